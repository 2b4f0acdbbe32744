// Package conformance runs ONNX's own backend node tests for ArgMax, ArgMin
// and MaxPool (the data sets Debian's libonnx-testdata installs under
// /usr/share/libonnx-testdata/data/node) against vkdml.
//
// Each data set is a single-node model.onnx plus test_data_set_*/ folders of
// input_*.pb and output_*.pb TensorProtos. The node's attributes are mapped
// onto a DirectML desc the way ONNX Runtime's DirectML execution provider
// maps them:
//
//   - ArgMax/ArgMin: a negative axis counts from the end, the default axis
//     is 0; select_last_index=1 is DML_AXIS_DIRECTION_DECREASING; DirectML
//     keeps the rank, so keepdims=0 is a reshape of the result; the INT64
//     output is an INT64 index tensor.
//   - MaxPool: auto_pad SAME_UPPER/SAME_LOWER become explicit start and end
//     padding, VALID none; ceil_mode chooses the output extent; 1D pooling
//     runs as 2D with a unit H axis; the INT64 Indices output is a UINT64
//     index tensor (its values are non-negative, so the bits agree);
//     storage_order=1 (column-major indices) has no DirectML equivalent and
//     the case is skipped with that reason.
//
// The mapped operator runs through the public dml API on the device, and its
// outputs must equal ONNX's bit for bit (values) and exactly (indices).
// vkdml's CPU reference is held to the same expected outputs.
package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/tensor"
)

// DefaultDataDir is where Debian's libonnx-testdata installs ONNX's node
// tests.
const DefaultDataDir = "/usr/share/libonnx-testdata/data/node"

// Patterns are the data-set folder names the suite runs (47 data sets in
// libonnx-testdata 1.x).
var Patterns = []string{"test_argmax_*", "test_argmin_*", "test_maxpool_*"}

// Status is a case's outcome.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one data set's outcome.
type Result struct {
	Case     string        `json:"case"`
	Status   Status        `json:"result"`
	Reason   string        `json:"reason,omitempty"` // why it failed or was skipped; the mapping when it passed
	Op       string        `json:"op,omitempty"`     // the DirectML operator it ran as
	Duration time.Duration `json:"duration_ns"`
}

// Summary counts results.
type Summary struct {
	Total, Passed, Failed, Skipped int
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	s := Summary{Total: len(rs)}
	for _, r := range rs {
		switch r.Status {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		case Skip:
			s.Skipped++
		}
	}
	return s
}

func (s Summary) String() string {
	return fmt.Sprintf("conformance: %d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

// ErrNoData says the data directory has no matching data sets.
var ErrNoData = errors.New("conformance: no ONNX node test data sets found")

// Cases lists the data-set folders under dataDir that the suite runs,
// sorted by name.
func Cases(dataDir string) ([]string, error) {
	if _, err := os.Stat(dataDir); err != nil {
		return nil, fmt.Errorf("%w in %s: %v (Debian: apt-get install libonnx-testdata)", ErrNoData, dataDir, err)
	}
	var dirs []string
	for _, p := range Patterns {
		m, err := filepath.Glob(filepath.Join(dataDir, p))
		if err != nil {
			return nil, err
		}
		for _, d := range m {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w in %s (patterns %s)", ErrNoData, dataDir, strings.Join(Patterns, ", "))
	}
	sort.Strings(dirs)
	return dirs, nil
}

// Run runs every data set under dataDir on d, in name order, calling
// progress (when not nil) after each.
func Run(d *dml.Device, dataDir string, progress func(Result)) ([]Result, error) {
	dirs, err := Cases(dataDir)
	if err != nil {
		return nil, err
	}
	var rs []Result
	for _, dir := range dirs {
		r := RunCase(d, dir)
		if progress != nil {
			progress(r)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// skipError marks a case that has no DirectML equivalent.
type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

func skipf(format string, args ...any) error { return &skipError{fmt.Sprintf(format, args...)} }

// RunCase runs one data-set folder (model.onnx and test_data_set_*).
func RunCase(d *dml.Device, dir string) (r Result) {
	start := time.Now()
	r.Case = filepath.Base(dir)
	defer func() {
		if p := recover(); p != nil { // a panic is a failure of this case, not of the suite
			r.Status, r.Reason = Fail, fmt.Sprintf("panic: %v", p)
		}
		r.Duration = time.Since(start)
	}()
	op, mapping, err := runCase(d, dir)
	r.Op = op
	var se *skipError
	switch {
	case errors.As(err, &se):
		r.Status, r.Reason = Skip, se.reason
	case err != nil:
		r.Status, r.Reason = Fail, err.Error()
	default:
		r.Status, r.Reason = Pass, mapping
	}
	return r
}

func runCase(d *dml.Device, dir string) (op, mapping string, err error) {
	g, err := onnx.ReadModel(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return "", "", err
	}
	if len(g.Nodes) != 1 {
		return "", "", fmt.Errorf("model has %d nodes; a node test has one", len(g.Nodes))
	}
	node := &g.Nodes[0]
	if node.Domain != "" && node.Domain != "ai.onnx" {
		return "", "", skipf("operator domain %q", node.Domain)
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		return "", "", fmt.Errorf("no test_data_set_* folders")
	}
	sort.Strings(sets)
	for _, ds := range sets {
		var ins, want []*tensor.Tensor
		for i := range node.Inputs {
			t, _, err := onnx.ReadTensor(filepath.Join(ds, fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				return "", "", err
			}
			ins = append(ins, t)
		}
		for i := range node.Outputs {
			t, _, err := onnx.ReadTensor(filepath.Join(ds, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				return "", "", err
			}
			want = append(want, t)
		}
		if len(ins) != 1 {
			return "", "", fmt.Errorf("%d inputs; %s takes 1", len(ins), node.OpType)
		}
		m, err := Map(node, ins[0].Desc.Sizes, len(want))
		if err != nil {
			return "", "", err
		}
		op, mapping = m.Desc.OperatorType(), m.Mapping
		if err := m.check(d, ins[0], want); err != nil {
			return op, mapping, fmt.Errorf("%s: %w", filepath.Base(ds), err)
		}
	}
	return op, mapping, nil
}

// Mapped is an ONNX node mapped onto a DirectML operator for one input
// shape.
type Mapped struct {
	Desc dml.OperatorDesc
	// InputSizes are the sizes the ONNX input is viewed with (1D pooling
	// gains a unit H axis); the bytes do not move.
	InputSizes []uint32
	// OutputSizes are ONNX's expected output shapes (after keepdims=0 or
	// the 1D reshape), one per ONNX output; the DirectML outputs are
	// viewed with these sizes.
	OutputSizes [][]uint32
	// Mapping describes the translation in words, for the table.
	Mapping string
}

// Map translates an ONNX ArgMax, ArgMin or MaxPool node with an input of
// the given shape and outputs ONNX outputs into a DirectML desc.
func Map(n *onnx.Node, inSizes []uint32, outputs int) (*Mapped, error) {
	switch n.OpType {
	case "ArgMax", "ArgMin":
		return mapArg(n, inSizes)
	case "MaxPool":
		return mapMaxPool(n, inSizes, outputs)
	}
	return nil, skipf("operator %s is not part of this suite", n.OpType)
}

func mapArg(n *onnx.Node, in []uint32) (*Mapped, error) {
	rank := int64(len(in))
	axis := n.Int("axis", 0)
	if axis < -rank || axis >= rank {
		return nil, fmt.Errorf("axis %d is out of range for a rank-%d input", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	keep := n.Int("keepdims", 1) != 0
	dir := dml.AxisDirectionIncreasing
	if n.Int("select_last_index", 0) != 0 {
		dir = dml.AxisDirectionDecreasing
	}
	out := slices.Clone(in)
	out[axis] = 1
	inD := tensor.NewDesc(tensor.Float32, in) // the data type is filled in by check
	outD := tensor.NewDesc(tensor.Int64, out)
	onnxOut := out
	if !keep {
		onnxOut = slices.Delete(slices.Clone(in), int(axis), int(axis)+1)
		if len(onnxOut) == 0 {
			onnxOut = []uint32{1}
		}
	}
	m := &Mapped{InputSizes: in, OutputSizes: [][]uint32{onnxOut}}
	axes := []uint32{uint32(axis)}
	if n.OpType == "ArgMax" {
		m.Desc = &dml.ArgMax{Input: inD, Output: outD, Axes: axes, AxisDirection: dir}
	} else {
		m.Desc = &dml.ArgMin{Input: inD, Output: outD, Axes: axes, AxisDirection: dir}
	}
	m.Mapping = fmt.Sprintf("axes [%d], %s, INT64", axis, strings.TrimPrefix(dir.String(), "DML_AXIS_DIRECTION_"))
	if !keep {
		m.Mapping += ", keepdims=0 as a reshape"
	}
	return m, nil
}

func mapMaxPool(n *onnx.Node, in []uint32, outputs int) (*Mapped, error) {
	if so := n.Int("storage_order", 0); so != 0 {
		return nil, skipf("storage_order=%d (column-major indices) has no DirectML equivalent: MAX_POOLING2's indices are row-major", so)
	}
	if len(in) < 3 || len(in) > 5 {
		return nil, fmt.Errorf("input rank %d; MaxPool takes N,C and 1-3 spatial axes", len(in))
	}
	if outputs < 1 || outputs > 2 {
		return nil, fmt.Errorf("%d outputs; MaxPool has Y and optional Indices", outputs)
	}
	dims := len(in) - 2
	ones := slices.Repeat([]int64{1}, dims)
	k := n.Ints("kernel_shape", nil)
	s := n.Ints("strides", ones)
	dl := n.Ints("dilations", ones)
	pads := n.Ints("pads", make([]int64, 2*dims))
	if len(k) != dims || len(s) != dims || len(dl) != dims || len(pads) != 2*dims {
		return nil, fmt.Errorf("kernel_shape %v, strides %v, dilations %v, pads %v do not match %d spatial axes", k, s, dl, pads, dims)
	}
	for i := 0; i < dims; i++ {
		if k[i] < 1 || s[i] < 1 || dl[i] < 1 || pads[i] < 0 || pads[dims+i] < 0 ||
			k[i] > 1<<31 || s[i] > 1<<31 || dl[i] > 1<<31 || pads[i] > 1<<31 || pads[dims+i] > 1<<31 {
			return nil, fmt.Errorf("spatial axis %d: kernel %d, stride %d, dilation %d, pads %d/%d out of range", i, k[i], s[i], dl[i], pads[i], pads[dims+i])
		}
	}
	start, end := slices.Clone(pads[:dims]), slices.Clone(pads[dims:])
	out := make([]int64, dims)
	ceil := n.Int("ceil_mode", 0) != 0
	ap := n.String("auto_pad", "NOTSET")
	for i := 0; i < dims; i++ {
		x := int64(in[2+i])
		win := (k[i]-1)*dl[i] + 1
		switch ap {
		case "NOTSET", "":
			padded := x + start[i] + end[i] - win
			if padded < 0 {
				return nil, fmt.Errorf("spatial axis %d: the dilated window %d is larger than the padded input %d", i, win, x+start[i]+end[i])
			}
			out[i] = padded/s[i] + 1
			if ceil && padded%s[i] != 0 {
				out[i]++
				// ONNX (like PyTorch) drops a last window that would start
				// in the end padding.
				if (out[i]-1)*s[i] >= x+start[i] {
					out[i]--
				}
			}
		case "VALID":
			start[i], end[i] = 0, 0
			if win > x {
				return nil, fmt.Errorf("spatial axis %d: the dilated window %d is larger than the input %d", i, win, x)
			}
			out[i] = (x-win)/s[i] + 1
		case "SAME_UPPER", "SAME_LOWER":
			out[i] = (x + s[i] - 1) / s[i]
			total := max((out[i]-1)*s[i]+win-x, 0)
			start[i], end[i] = total/2, total-total/2
			if ap == "SAME_LOWER" {
				start[i], end[i] = end[i], start[i]
			}
		default:
			return nil, fmt.Errorf("auto_pad %q is not an ONNX value", ap)
		}
	}
	u32 := func(v []int64) []uint32 {
		r := make([]uint32, len(v))
		for i, x := range v {
			r[i] = uint32(x)
		}
		return r
	}
	onnxOut := append(slices.Clone(in[:2]), u32(out)...)
	m := &Mapped{InputSizes: in, OutputSizes: [][]uint32{onnxOut}}
	w, st, di, a, b := u32(k), u32(s), u32(dl), u32(start), u32(end)
	o := u32(out)
	inSizes := slices.Clone(in)
	outSizes := slices.Clone(onnxOut)
	what := []string{}
	if dims == 1 { // ONNX Runtime runs 1D pooling as 2D with a unit H axis
		w, st, di, a, b, o = append([]uint32{1}, w...), append([]uint32{1}, st...), append([]uint32{1}, di...),
			append([]uint32{0}, a...), append([]uint32{0}, b...), append([]uint32{1}, o...)
		inSizes = []uint32{in[0], in[1], 1, in[2]}
		outSizes = []uint32{in[0], in[1], 1, o[1]}
		what = append(what, "1D as 2D")
	}
	m.InputSizes = inSizes
	desc := &dml.MaxPooling2{
		Input: tensor.NewDesc(tensor.Float32, inSizes), Output: tensor.NewDesc(tensor.Float32, outSizes),
		Strides: st, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: di,
	}
	if outputs == 2 {
		id := tensor.NewDesc(tensor.UInt64, outSizes)
		desc.OutputIndices = &id
		m.OutputSizes = append(m.OutputSizes, onnxOut)
		what = append(what, "Indices as UINT64")
	}
	m.Desc = desc
	if ap != "NOTSET" && ap != "" {
		what = append(what, "auto_pad "+ap)
	}
	if ceil {
		what = append(what, "ceil_mode")
	}
	m.Mapping = fmt.Sprintf("window %v strides %v dilations %v pads %v/%v", w, st, di, a, b)
	if len(what) > 0 {
		m.Mapping += ", " + strings.Join(what, ", ")
	}
	return m, nil
}

// setType gives the mapped desc's value tensors the input's data type.
func (m *Mapped) setType(dt tensor.DataType) {
	switch x := m.Desc.(type) {
	case *dml.ArgMax:
		x.Input = tensor.NewDesc(dt, x.Input.Sizes)
	case *dml.ArgMin:
		x.Input = tensor.NewDesc(dt, x.Input.Sizes)
	case *dml.MaxPooling2:
		x.Input = tensor.NewDesc(dt, x.Input.Sizes)
		x.Output = tensor.NewDesc(dt, x.Output.Sizes)
	}
}

// check runs the mapped operator on x and compares with want, and holds the
// CPU reference to the same outputs.
func (m *Mapped) check(d *dml.Device, x *tensor.Tensor, want []*tensor.Tensor) error {
	m.setType(x.Desc.DataType)
	in := &tensor.Tensor{Desc: tensor.NewDesc(x.Desc.DataType, m.InputSizes), Data: x.ToPacked().Data}
	outs := m.Desc.Outputs()
	present := 0
	for _, od := range outs {
		if od != nil {
			present++
		}
	}
	if len(want) != present {
		return fmt.Errorf("%d expected outputs for %s's %d", len(want), m.Desc.OperatorType(), present)
	}
	got, err := d.Compute(m.Desc, in)
	if err != nil {
		return err
	}
	ref := make([]*tensor.Tensor, len(outs))
	for i, od := range outs {
		if od != nil {
			ref[i] = &tensor.Tensor{Desc: od.Clone(), Data: make([]byte, od.TotalTensorSizeInBytes)}
		}
	}
	if err := m.Desc.Reference([]*tensor.Tensor{in}, ref); err != nil {
		return fmt.Errorf("CPU reference: %w", err)
	}
	for i, w := range want {
		name := []string{"Y", "Indices"}[min(i, 1)]
		if m.Desc.OperatorType() != "MAX_POOLING2" {
			name = "reduced"
		}
		if err := compare(name, "device", w, got[i], m.OutputSizes[i]); err != nil {
			return err
		}
		if err := compare(name, "CPU reference", w, ref[i], m.OutputSizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// compare checks one output: ONNX's shape equals the mapped shape, the
// element types agree (INT64 indices may come back as UINT64 with the same
// bits), and the bytes are equal.
func compare(name, who string, want, got *tensor.Tensor, onnxSizes []uint32) error {
	if !slices.Equal(want.Desc.Sizes, onnxSizes) {
		return fmt.Errorf("output %s: ONNX's shape %v differs from the mapped shape %v", name, want.Desc.Sizes, onnxSizes)
	}
	wt, gt := want.Desc.DataType, got.Desc.DataType
	if wt != gt && !(wt == tensor.Int64 && gt == tensor.UInt64) {
		return fmt.Errorf("output %s: ONNX's type %v, %s's %v", name, wt, who, gt)
	}
	if want.Desc.ElementCount() != got.Desc.ElementCount() {
		return fmt.Errorf("output %s: %d elements expected, %s has %d", name, want.Desc.ElementCount(), who, got.Desc.ElementCount())
	}
	w, g := want.ToPacked().Data, got.ToPacked().Data
	if bytes.Equal(w, g) {
		return nil
	}
	es := wt.Size()
	var diffs []string
	n := 0
	for i := 0; i*es < len(w); i++ {
		a, b := w[i*es:(i+1)*es], g[i*es:(i+1)*es]
		if !bytes.Equal(a, b) {
			if len(diffs) < 4 {
				diffs = append(diffs, fmt.Sprintf("[%d] want %s got %s", i, format(wt, a), format(wt, b)))
			}
			n++
		}
	}
	return fmt.Errorf("output %s (%s): %d of %d elements differ: %s", name, who, n, len(w)/es, strings.Join(diffs, "; "))
}

func format(dt tensor.DataType, b []byte) string {
	t := &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}
	switch {
	case dt.IsFloat():
		return fmt.Sprint(t.Float64At(0))
	case dt.IsSigned():
		return fmt.Sprint(t.Int64At(0))
	}
	return fmt.Sprint(t.Uint64At(0))
}
