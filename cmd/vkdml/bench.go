package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/tensor"
)

// benchHelp follows the flags in `vkdml bench -h`.
const benchHelp = `Each case runs from one pre-recorded command list; times are device times
from timestamp queries (wall is Execute + Wait on the host). GB/s counts the
bytes read and written once each. The copy kernel (ELEMENT_WISE_IDENTITY)
over the same input, in the same run, is the bandwidth ceiling: %%copy is the
operator's GB/s over the copy kernel's.

--kernel forces a strategy; --kernel all measures every one (the table and
the plot then show one series per strategy). Strategies:
%s
--op submit times the host cost of re-submitting a pre-recorded tiny ARGMAX
(--shape, default 3,3) against an empty command list.

--format json (or --json) prints one self-contained JSON object per case
(docs/json.md); --format csv one CSV row per case under a header row;
--format benchstat one Go benchmark line per timed run (ns/op and MB/s, the
device time), which benchstat compares:
  vkdml bench --op argmax --shape 4096,4096 --axes 1 --format benchstat > old.txt
  (change vkdml or the machine)
  vkdml bench ... --format benchstat > new.txt
  benchstat old.txt new.txt
A case whose slowest run took over %d times its median is marked noisy.
`

func kernelList() string {
	var b strings.Builder
	for _, n := range operators.Names() {
		op, _ := operators.Lookup(n)
		fmt.Fprintf(&b, "  %-9s %s\n", n, strings.Join(op.Kernels(), ", "))
	}
	return b.String()
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

// joinU32 writes sizes as --shape takes them: 4096,16384.
func joinU32(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

// opCases are the flags bench and plan share: the operator (--op, and its
// own flags), --dtype and the --shape list, one desc per shape.
type opCases struct {
	op             *operators.Operator
	build          *operators.Builder
	dt             tensor.DataType
	shapes         shapeList
	opName, dtName *string
}

// flags registers the shared flags on fs, and those of the operator named
// name (opFromArgs); opHelp and shapeHelp are --op's and --shape's help.
func (c *opCases) flags(fs *flag.FlagSet, name, opHelp, shapeHelp string) {
	c.opName = fs.String("op", "", "operator: "+strings.Join(operators.Names(), ", ")+opHelp)
	c.dtName = fs.String("dtype", "float32", "input data type")
	fs.Var(&c.shapes, "shape", shapeHelp)
	if op, ok := operators.Lookup(name); ok {
		c.op, c.build = op, op.Flags(fs, operators.UseBench)
	}
}

// validate checks the parsed flags and reads --dtype; ops lists --op's
// values after the operators' names.
func (c *opCases) validate(ops string) (err error) {
	if c.op == nil {
		return fmt.Errorf("%w: --op must be one of %s%s (got %q)", errUsage, strings.Join(operators.Names(), ", "), ops, *c.opName)
	}
	if c.dt, err = tensor.ParseDataType(*c.dtName); err != nil || !c.dt.Valid() {
		return fmt.Errorf("%w: --dtype %q is not one of vkdml's ten types", errUsage, *c.dtName)
	}
	if len(c.shapes) == 0 {
		return fmt.Errorf("%w: --shape is required", errUsage)
	}
	return nil
}

// descs builds the operator's desc for each --shape, with benchInputs'
// inputs.
func (c *opCases) descs() ([]dml.OperatorDesc, error) {
	descs := make([]dml.OperatorDesc, len(c.shapes))
	for i, sh := range c.shapes {
		var err error
		if descs[i], err = c.build.Desc(benchInputs(c.op, c.dt, sh)); err != nil {
			return nil, err
		}
	}
	return descs, nil
}

// benchOptions are `vkdml bench`'s parsed flags.
type benchOptions struct {
	opCases
	submit         bool
	repeat, warmup int
	kernels        []string // "" = vkdml chooses
	forcing        planForcing
	format         string // one of benchFormats
	plot           string
	steps          bool // --steps: time each of a plan's dispatches
	dev            dml.DeviceOptions
}

// opFromArgs finds --op's value before the flags are parsed, so that only
// that operator's flags are registered.
func opFromArgs(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, p := range []string{"--op=", "-op="} {
			if strings.HasPrefix(a, p) {
				return a[len(p):]
			}
		}
		if (a == "--op" || a == "-op") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func parseBench(args []string, stdout, stderr io.Writer) (*benchOptions, error) {
	o := &benchOptions{}
	fs := newFlagSet("bench", "bench --op OP [--dtype T] --shape A,B[,..] [--shape ..] [op flags] [--repeat N] [--kernel K|all] [--format table|json|csv|benchstat] [--plot FILE.svg|.png]", stderr)
	name := opFromArgs(args)
	if name == "submit" {
		o.submit, name = true, "argmax"
	}
	o.flags(fs, name, " (copy = identity), or submit", "input sizes, e.g. 4096,16384 (repeat the flag for a sweep)")
	fs.IntVar(&o.repeat, "repeat", 20, "timed runs per case")
	fs.IntVar(&o.warmup, "warmup", 3, "untimed runs before timing")
	o.forcing.flags(fs, "force a strategy, or all (default: vkdml chooses; listed below)")
	format := fs.String("format", formatTable, "output: "+strings.Join(benchFormats, ", ")+" (below)")
	asJSON := fs.Bool("json", false, "print one JSON object per case (--format json)")
	fs.BoolVar(&o.steps, "steps", false, "also time each of the plan's dispatches (a timestamp after each, which waits for the dispatch before it and adds to the totals: on lavapipe with several threads ~0.1 ms each, so compare steps at LP_NUM_THREADS=1); the table lists their medians under the case, JSON's step_ms holds them (--format table or json)")
	fs.StringVar(&o.plot, "plot", "", "draw GB/s against size, with the copy kernel's ceiling, into FILE.svg or FILE.png")
	devOpts := deviceFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: vkdml bench --op OP [flags]\n\nFlags (with --op OP, also the operator's own):\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\n"+benchHelp, kernelList(), noisyRatio)
	}
	err := parseFlagsOnly(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	if o.format, err = benchFormat(*format, *asJSON); err != nil {
		return nil, err
	}
	if o.submit && len(o.shapes) == 0 {
		o.shapes = shapeList{{3, 3}}
		if f := fs.Lookup("axes"); f.Value.String() == "" {
			f.Value.Set("1")
		}
	}
	if err := o.validate(", copy or submit"); err != nil {
		return nil, err
	}
	if o.steps && (o.submit || o.plot != "" || o.format != formatTable && o.format != formatJSON) {
		// The step times go in the table and JSON records only, and the
		// timestamps between dispatches would skew a plot's or a
		// benchstat comparison's totals.
		return nil, fmt.Errorf("%w: --steps reports in --format table or json, without --plot, and not for --op submit", errUsage)
	}
	if o.repeat < 1 || o.repeat > 100000 || o.warmup < 0 || o.warmup > 100000 {
		return nil, fmt.Errorf("%w: --repeat must be in [1,100000] and --warmup in [0,100000]", errUsage)
	}
	if o.kernels, err = o.forcing.kernels(o.op, true); err != nil {
		return nil, err
	}
	if err := checkPlotPath(o.plot); err != nil {
		return nil, err
	}
	if o.dev, err = o.forcing.device(devOpts); err != nil {
		return nil, err
	}
	return o, o.build.Check()
}

// benchFormat is --format's value, checked, with --json its alias.
func benchFormat(format string, asJSON bool) (string, error) {
	f := strings.ToLower(format)
	if !slices.Contains(benchFormats, f) {
		return "", fmt.Errorf("%w: --format %q: want %s", errUsage, format, strings.Join(benchFormats, ", "))
	}
	if asJSON {
		if f != formatTable && f != formatJSON {
			return "", fmt.Errorf("%w: --json is --format json; it cannot go with --format %s", errUsage, f)
		}
		f = formatJSON
	}
	return f, nil
}

// benchInputs are the inputs bench gives op at one --shape: every required
// input has that shape and --dtype; optional ones are left out.
func benchInputs(op *operators.Operator, dt tensor.DataType, shape []uint32) []operators.Input {
	ins := make([]operators.Input, len(op.Inputs()))
	for i, f := range op.Inputs() {
		ins[i].Name = "--shape " + joinU32(shape)
		if !f.Optional {
			d := tensor.NewDesc(dt, shape)
			ins[i].Desc = &d
		}
	}
	return ins
}

// checkPlotPath fails early, before anything is measured, when the plot
// could not be written.
func checkPlotPath(p string) error {
	if p == "" {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(p)); ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%w: --plot needs a .svg or .png file name, got %q", errUsage, p)
	}
	if fi, err := os.Stat(p); err == nil {
		if err := regularOutput(p, fi); err != nil {
			return err
		}
	}
	f, name, err := createTemp(filepath.Dir(p), 0o666)
	if err != nil {
		return fmt.Errorf("--plot %s: %w", p, unwrapPathError(err))
	}
	f.Close()
	os.Remove(name)
	return nil
}

// runBench is `vkdml bench`.
func runBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseBench(args, stdout, stderr)
	if err != nil {
		return err
	}
	// Build every desc first: bad flags fail before the device opens.
	descs, err := o.descs()
	if err != nil {
		return err
	}
	d, err := createDevice(o.dev)
	if err != nil {
		return err
	}
	defer d.Close()
	rng := rand.New(rand.NewSource(1))
	base := o.recordBase(d)
	if o.submit {
		return runSubmitBench(d, descs[0], base, o.kernels[0], o.repeat, o.warmup, o.format, stdout, rng)
	}
	out := newBenchOutput(o.format, stdout)
	out.begin(base)
	prog := newProgress(stderr, len(descs)*len(o.kernels), o.warmup+o.repeat)
	var results []benchRecord
	for i, desc := range descs {
		copyDesc := copyBaseline(o.dt, desc.Inputs()[0].ElementCount(), uint64(d.GPU().Limits.MaxStorageBufferRange))
		var copyGBps float64
		for _, k := range o.kernels {
			r, err := measure(d, desc, k, o.repeat, o.warmup, o.steps, rng, prog)
			if err != nil {
				if len(o.kernels) > 1 { // --kernel all: a strategy may not apply to this shape
					fmt.Fprintf(stderr, "vkdml bench: %s %s: %v\n", tensor.Shape(o.shapes[i]), k, err)
					continue
				}
				return fmt.Errorf("shape %s: %w", tensor.Shape(o.shapes[i]), err)
			}
			if copyGBps == 0 {
				// The copy kernel over the same input, in the same run.
				// Inputs over one storage binding (the identity operator
				// does not window) are measured over the largest packed
				// prefix that fits.
				c, err := measure(d, copyDesc, "", o.repeat, o.warmup, false, rng, nil)
				if err != nil {
					return fmt.Errorf("copy kernel: %w", err)
				}
				copyGBps = c.GBps
			}
			if err := describeBenchPlan(d, desc, k, &r); err != nil {
				return fmt.Errorf("shape %s: %w", tensor.Shape(o.shapes[i]), err)
			}
			base.fill(&r, o.shapes[i], k, copyGBps)
			results = append(results, r)
			prog.clear()
			out.record(&r)
		}
	}
	prog.clear()
	out.end()
	if o.plot != "" {
		if err := plotResults(o.plot, results); err != nil {
			return err
		}
		if o.format == formatTable {
			fmt.Fprintf(stdout, "plot written to %s\n", o.plot)
		}
	}
	return nil
}

// describeBenchPlan records in r the tuning and the plan of desc with
// kernel forced on d: the plan measure ran (planning is deterministic).
func describeBenchPlan(d *dml.Device, desc dml.OperatorDesc, kernel string, r *benchRecord) error {
	ctx := d.Context()
	p, err := dml.PlanOperator(ctx, desc, kernel)
	if err != nil {
		return err
	}
	if r.Plan, err = describePlan(ctx, desc, p); err != nil {
		return err
	}
	r.Tuning, r.Plan.Tuning = r.Plan.Tuning, nil
	return nil
}

// copyBaseline is the copy kernel over n elements of dt, or over as many
// (a multiple of 4) as one storage binding of limit bytes holds.
func copyBaseline(dt tensor.DataType, n, limit uint64) dml.OperatorDesc {
	es := uint64(dt.Size())
	if n*es > limit {
		n = limit / es &^ 3
	}
	sh := []uint32{uint32(n)}
	return &dml.ElementWiseIdentity{Input: tensor.NewDesc(dt, sh), Output: tensor.NewDesc(dt, sh)}
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
// command list, and returns device and wall times; with steps, each
// dispatch's too (the medians in StepMS).
func measure(d *dml.Device, desc dml.OperatorDesc, kernel string, repeat, warmup int, steps bool, rng *rand.Rand, prog *progress) (benchRecord, error) {
	r, list, release, err := recordBench(d, desc, kernel, dml.PrepareOptions{Profiling: true, StepProfiling: steps}, rng)
	defer release()
	if err != nil {
		return r, err
	}
	var dev, wall []float64
	var stepMS [][]float64 // [step][run]
	for i := 0; i < warmup+repeat; i++ {
		elapsed := wallStart()
		if err := list.Execute(); err != nil {
			return r, err
		}
		if err := list.Wait(); err != nil {
			return r, err
		}
		w := elapsed()
		times, err := list.DispatchTimes()
		if err != nil {
			return r, err
		}
		if i >= warmup {
			dev = append(dev, float64(times[0])/1e6)
			wall = append(wall, float64(w)/1e6)
			if steps {
				st, err := list.StepTimes()
				if err != nil {
					return r, err
				}
				for j, t := range st[0] {
					if j == len(stepMS) {
						stepMS = append(stepMS, nil)
					}
					stepMS[j] = append(stepMS[j], float64(t)/1e6)
				}
			}
		}
		prog.step()
	}
	sort.Float64s(dev)
	sort.Float64s(wall)
	r.MedianMS, r.MinMS, r.MaxMS = median(dev), dev[0], dev[len(dev)-1]
	r.P25MS, r.P75MS = quantile(dev, 0.25), quantile(dev, 0.75)
	r.WallMedianMS = median(wall)
	r.Repeat, r.Warmup = repeat, warmup
	r.DeviceMS = dev
	for _, ms := range stepMS {
		sort.Float64s(ms)
		r.StepMS = append(r.StepMS, median(ms))
	}
	summarize(&r, dev, r.MedianMS)
	gbps := func(ms float64) float64 {
		if ms <= 0 {
			return 0
		}
		return float64(r.Bytes) / (ms / 1e3) / 1e9
	}
	r.GBps, r.GBpsLow, r.GBpsHigh = gbps(r.MedianMS), gbps(r.MaxMS), gbps(r.MinMS)
	return r, nil
}

func median(sorted []float64) float64 { return quantile(sorted, 0.5) }

// quantile interpolates linearly between the sorted samples.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
