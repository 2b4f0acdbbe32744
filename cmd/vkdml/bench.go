package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// benchFlags registers the operator flags of `vkdml bench` (shared by the
// operators, so that each flag exists once) and returns, per operator, the
// function that builds its desc for an input type and shape.
func benchFlags(fs *flag.FlagSet) (map[string]func(tensor.DataType, []uint32) (ops.Desc, error), *string) {
	var pf poolFlags
	pf.register(fs)
	axes := fs.String("axes", "", "argmax/argmin: axes to reduce, e.g. 1 or 0,1")
	dir := fs.String("direction", "increasing", "argmax/argmin: increasing or decreasing")
	indices := fs.Bool("indices", false, "maxpool: also produce the indices output")
	arg := func(name string) func(tensor.DataType, []uint32) (ops.Desc, error) {
		return func(dt tensor.DataType, shape []uint32) (ops.Desc, error) {
			return argDesc(name, tensor.NewDesc(dt, shape), *axes, *dir, *pf.indexType)
		}
	}
	return map[string]func(tensor.DataType, []uint32) (ops.Desc, error){
		"copy": func(dt tensor.DataType, shape []uint32) (ops.Desc, error) {
			return &ops.ElementWiseIdentity{Input: tensor.NewDesc(dt, shape), Output: tensor.NewDesc(dt, shape)}, nil
		},
		"argmax": arg("argmax"),
		"argmin": arg("argmin"),
		"maxpool": func(dt tensor.DataType, shape []uint32) (ops.Desc, error) {
			return pf.desc("--shape "+joinU32(shape), tensor.NewDesc(dt, shape), *indices)
		},
	}, axes
}

// shapeList is a repeatable --shape flag: "4096,16384".
type shapeList [][]uint32

func (s *shapeList) String() string {
	var parts []string
	for _, sh := range *s {
		parts = append(parts, joinU32(sh))
	}
	return strings.Join(parts, " ")
}

func (s *shapeList) Set(v string) error {
	sh, err := parseU32List(v)
	if err != nil {
		return err
	}
	for _, x := range sh {
		if x == 0 {
			return fmt.Errorf("a size of 0 is invalid")
		}
	}
	*s = append(*s, sh)
	return nil
}

// parseU32List parses "1,2,3" into numbers, naming the bad entry.
func parseU32List(v string) ([]uint32, error) {
	if strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("empty list")
	}
	var out []uint32
	for _, p := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a non-negative 32-bit integer", p)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}

func joinU32(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

// benchResult is one line of `vkdml bench --json`.
type benchResult struct {
	Op           string    `json:"op"`
	Shape        []uint32  `json:"shape"`
	DType        string    `json:"dtype"`
	Kernel       string    `json:"kernel"`
	Bytes        uint64    `json:"bytes"` // read + written per run
	MedianMS     float64   `json:"median_ms"`
	MinMS        float64   `json:"min_ms"`
	MaxMS        float64   `json:"max_ms"`
	WallMedianMS float64   `json:"wall_median_ms"`
	GBps         float64   `json:"gbps"`
	CopyGBps     float64   `json:"copy_gbps"`
	PctOfCopy    float64   `json:"pct_of_copy"`
	Repeat       int       `json:"repeat"`
	Device       string    `json:"device"`
	DeviceMS     []float64 `json:"device_ms,omitempty"`
	// --op submit: the bare submit + fence wait of an empty list, and the
	// ratio of the pre-recorded dispatch's wall median to it.
	EmptyWallMedianMS float64 `json:"empty_wall_median_ms,omitempty"`
	SubmitRatio       float64 `json:"submit_ratio,omitempty"`
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "bench --op OP [--dtype T] --shape A,B[,..] [--shape ..] [op flags] [--repeat N] [--kernel K] [--json] [--plot FILE.svg|.png]", stderr)
	opName := fs.String("op", "", "operator: argmax, argmin, maxpool or copy; or submit (a pre-recorded ARGMAX of --shape, default 3,3, re-submitted, against an empty list's submit + fence wait)")
	dtName := fs.String("dtype", "float32", "input data type")
	var shapes shapeList
	fs.Var(&shapes, "shape", "input sizes, e.g. 4096,16384 (repeat the flag for a sweep)")
	repeat := fs.Int("repeat", 20, "timed runs per case")
	warmup := fs.Int("warmup", 3, "untimed runs before timing")
	kernel := fs.String("kernel", "", "force a kernel strategy (default: vkdml chooses)")
	asJSON := fs.Bool("json", false, "print one JSON object per case")
	plot := fs.String("plot", "", "draw GB/s against size with the copy kernel's line into FILE.svg or FILE.png")
	sel := fs.String("device", "", "device index or name substring")
	builders, axes := benchFlags(fs)
	submit := false
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	if *opName == "submit" {
		if len(shapes) == 0 {
			shapes = shapeList{{3, 3}}
			if *axes == "" {
				*axes = "1"
			}
		}
		*opName = "argmax"
		submit = true
	}
	build, ok := builders[*opName]
	if !ok {
		return fmt.Errorf("%w: --op must be one of argmax, argmin, maxpool, copy, submit", errUsage)
	}
	dt, err := tensor.ParseDataType(*dtName)
	if err != nil || !dt.Valid() {
		return fmt.Errorf("%w: --dtype %q is not one of vkdml's ten types", errUsage, *dtName)
	}
	if len(shapes) == 0 {
		return fmt.Errorf("%w: --shape is required", errUsage)
	}
	if *repeat < 1 || *repeat > 100000 || *warmup < 0 {
		return fmt.Errorf("%w: --repeat must be in [1,100000] and --warmup ≥ 0", errUsage)
	}
	if *plot != "" && !strings.HasSuffix(*plot, ".svg") && !strings.HasSuffix(*plot, ".png") {
		return fmt.Errorf("%w: --plot needs a .svg or .png file name", errUsage)
	}
	// Build every desc first: bad flags fail before the device opens.
	descs := make([]ops.Desc, len(shapes))
	for i, sh := range shapes {
		if descs[i], err = build(dt, sh); err != nil {
			return err
		}
	}
	d, err := createDevice(dml.DeviceOptions{Device: *sel})
	if err != nil {
		return err
	}
	defer d.Close()
	rng := rand.New(rand.NewSource(1))
	if submit {
		return runSubmitBench(d, descs[0], shapes[0], dt, *kernel, *repeat, *warmup, *asJSON, stdout, rng)
	}
	var results []benchResult
	if !*asJSON {
		fmt.Fprintf(stdout, "device: %s\n", d.GPU().Info.Name)
		fmt.Fprintf(stdout, "%-8s %-20s %-8s %-14s %9s %9s %9s %9s %8s %8s\n", "op", "shape", "dtype", "kernel", "median", "min", "max", "wall", "GB/s", "%copy")
	}
	for i, desc := range descs {
		if len(descs) > 1 && !*asJSON {
			progress(stderr, i, len(descs))
		}
		r, err := measure(d, desc, *kernel, *repeat, *warmup, rng)
		if err != nil {
			return fmt.Errorf("shape %s: %w", joinU32(shapes[i]), err)
		}
		// The copy kernel over the same input, in the same run.
		// Inputs over one storage binding (the identity operator does not
		// window) are measured over the largest packed prefix that fits.
		copyDesc := copyBaseline(dt, desc.Inputs()[0].ElementCount(), uint64(d.GPU().Limits.MaxStorageBufferRange))
		c, err := measure(d, copyDesc, "", *repeat, *warmup, rng)
		if err != nil {
			return fmt.Errorf("copy kernel: %w", err)
		}
		r.Op, r.Shape, r.DType, r.Device = *opName, shapes[i], dt.String(), d.GPU().Info.Name
		r.CopyGBps = c.GBps
		if c.GBps > 0 {
			r.PctOfCopy = 100 * r.GBps / c.GBps
		}
		results = append(results, r)
		if *asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(b))
		} else {
			fmt.Fprintf(stdout, "%-8s %-20s %-8s %-14s %8.3fms %8.3fms %8.3fms %8.3fms %8.2f %7.1f%%\n",
				r.Op, joinU32(r.Shape), r.DType, r.Kernel, r.MedianMS, r.MinMS, r.MaxMS, r.WallMedianMS, r.GBps, r.PctOfCopy)
		}
	}
	if len(descs) > 1 && !*asJSON {
		progress(stderr, len(descs), len(descs))
		fmt.Fprintln(stderr)
	}
	if !*asJSON {
		fmt.Fprintln(stdout, "times are device times (timestamp queries) except wall; GB/s counts bytes read + written")
	}
	if *plot != "" {
		if err := plotResults(*plot, results); err != nil {
			return err
		}
		if !*asJSON {
			fmt.Fprintf(stdout, "plot written to %s\n", *plot)
		}
	}
	return nil
}

// copyBaseline is the copy kernel over n elements of dt, or over as many
// (a multiple of 4) as one storage binding of limit bytes holds.
func copyBaseline(dt tensor.DataType, n, limit uint64) ops.Desc {
	es := uint64(dt.Size())
	if n*es > limit {
		n = limit / es &^ 3
	}
	sh := []uint32{uint32(n)}
	return &ops.ElementWiseIdentity{Input: tensor.NewDesc(dt, sh), Output: tensor.NewDesc(dt, sh)}
}

// progress draws a one-line bar on w.
func progress(w io.Writer, done, total int) {
	const width = 30
	fill := width * done / total
	fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total)
}

// randomInput fills a tensor with random finite values of its type.
func randomInput(rng *rand.Rand, d tensor.Desc) *tensor.Tensor {
	t := &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)}
	rng.Read(t.Data)
	if d.DataType.IsFloat() { // no NaNs: keep the comparisons' fast path honest
		tensor.ForEachIndex(d.Sizes, func(c []uint32) { t.SetFloat64(c, rng.NormFloat64()) })
	}
	return t
}

// measure runs desc repeat times after warmup runs, from one pre-recorded
// command list, and returns device and wall times.
func measure(d *dml.Device, desc ops.Desc, kernel string, repeat, warmup int, rng *rand.Rand) (benchResult, error) {
	r, list, release, err := recordBench(d, desc, kernel, true, rng)
	defer release()
	if err != nil {
		return r, err
	}
	var dev, wall []float64
	for i := 0; i < warmup+repeat; i++ {
		start := time.Now()
		if err := list.Execute(); err != nil {
			return r, err
		}
		if err := list.Wait(); err != nil {
			return r, err
		}
		w := time.Since(start)
		times, err := list.DispatchTimes()
		if err != nil {
			return r, err
		}
		if i >= warmup {
			dev = append(dev, float64(times[0])/1e6)
			wall = append(wall, float64(w)/1e6)
		}
	}
	sort.Float64s(dev)
	sort.Float64s(wall)
	r.MedianMS, r.MinMS, r.MaxMS = median(dev), dev[0], dev[len(dev)-1]
	r.WallMedianMS = median(wall)
	r.Repeat = repeat
	r.DeviceMS = dev
	if r.MedianMS > 0 {
		r.GBps = float64(r.Bytes) / (r.MedianMS / 1e3) / 1e9
	}
	return r, nil
}

// recordBench creates desc's operator with fresh buffers (random input) and
// records its dispatch (with timestamps when profile is set) into a closed command list ready to
// execute; release frees everything (call it even on error).
func recordBench(d *dml.Device, desc ops.Desc, kernel string, profile bool, rng *rand.Rand) (r benchResult, list *dml.CommandList, release func(), err error) {
	var cleanup []func()
	release = func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}
	op, err := d.CreateOperatorWithKernel(desc, kernel)
	if err != nil {
		return r, nil, release, err
	}
	r.Kernel = op.Strategy()
	cop, err := d.CompileOperator(op, dml.ExecutionFlagNone)
	if err != nil {
		return r, nil, release, err
	}
	cleanup = append(cleanup, cop.Release)
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		return r, nil, release, err
	}
	var res []*dml.Resource
	cleanup = append(cleanup, func() {
		for _, x := range res {
			x.Release()
		}
	})
	alloc := func(size uint64) (*dml.BufferBinding, error) {
		b, err := d.CreateBuffer(max(size, 4))
		if err != nil {
			return nil, err
		}
		res = append(res, b)
		return &dml.BufferBinding{Buffer: b, SizeInBytes: size}, nil
	}
	var ins, outs []dml.Binding
	for _, td := range desc.Inputs() {
		if td == nil {
			ins = append(ins, nil)
			continue
		}
		b, err := alloc(td.TotalTensorSizeInBytes)
		if err != nil {
			return r, nil, release, err
		}
		if err := b.Buffer.Write(0, randomInput(rng, *td).Data); err != nil {
			return r, nil, release, err
		}
		ins = append(ins, b)
		r.Bytes += td.ElementCount() * uint64(td.DataType.Size())
	}
	for _, td := range desc.Outputs() {
		if td == nil {
			outs = append(outs, nil)
			continue
		}
		b, err := alloc(td.TotalTensorSizeInBytes)
		if err != nil {
			return r, nil, release, err
		}
		outs = append(outs, b)
		r.Bytes += td.ElementCount() * uint64(td.DataType.Size())
	}
	props := cop.BindingProperties()
	var temp *dml.BufferBinding
	if props.TemporaryResourceSize > 0 {
		if temp, err = alloc(props.TemporaryResourceSize); err != nil {
			return r, nil, release, err
		}
	}
	rec, _ := d.CreateCommandRecorder()
	list, err = d.CreateCommandList()
	if err != nil {
		return r, nil, release, err
	}
	cleanup = append(cleanup, list.Release)
	it, _ := d.CreateBindingTable(init)
	if err := rec.RecordDispatch(list, init, it); err != nil {
		return r, nil, release, err
	}
	if err := list.Close(); err != nil {
		return r, nil, release, err
	}
	if err := list.Execute(); err != nil {
		return r, nil, release, err
	}
	if err := list.Wait(); err != nil {
		return r, nil, release, err
	}
	if err := list.Reset(); err != nil {
		return r, nil, release, err
	}
	list.SetProfiling(profile)
	table, _ := d.CreateBindingTable(cop)
	for _, e := range []error{table.BindInputs(ins...), table.BindOutputs(outs...), table.BindTemporaryResource(temp), rec.RecordDispatch(list, cop, table), list.Close()} {
		if e != nil {
			return r, nil, release, e
		}
	}
	return r, list, release, nil
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
