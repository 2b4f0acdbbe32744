// Package conformance runs ONNX's own backend node tests for the ONNX
// operators vkdml's operator table maps (ArgMax, ArgMin, MaxPool,
// MaxUnpool, TopK and the Reduce* operators; the data sets Debian's
// libonnx-testdata installs under /usr/share/libonnx-testdata/data/node)
// against vkdml.
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
//   - Reduce*: REDUCE with the function of the operators package's
//     onnxReductions table (ReduceMean is AVERAGE); axes from the attribute
//     or the axes input (an empty one reads as none), negative ones from
//     the end, all axes when none (the explicit empty list with
//     noop_with_empty_axes=1); keepdims=0 is a reshape of the result.
//   - MaxPool: auto_pad SAME_UPPER/SAME_LOWER become explicit start and end
//     padding, VALID none; ceil_mode chooses the output extent; 1D pooling
//     runs as 2D with a unit H axis; the INT64 Indices output is a UINT64
//     index tensor (its values are non-negative, so the bits agree);
//     storage_order=1 (column-major indices) has no DirectML equivalent and
//     the case is skipped with that reason.
//
// The mapped operator runs through the public dml API on the device, and its
// outputs must equal ONNX's bit for bit (values) and exactly (indices),
// except the floating-point sums (ReduceL1, L2, LogSum, Mean, Sum,
// SumSquare): ONNX's expected values are numpy's, summed in numpy's order,
// so they are compared within ONNX's tolerance (operators.ONNXTolerance),
// and the device must equal the CPU reference bit for bit. vkdml's CPU
// reference is held to the same expected outputs. A data set of a type
// vkdml has no tensors of (ReduceLogSumExp's DOUBLE ones) is skipped,
// naming the type.
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
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/tensor"
)

// DefaultDataDir is where Debian's libonnx-testdata installs ONNX's node
// tests.
const DefaultDataDir = "/usr/share/libonnx-testdata/data/node"

// DataDirEnv names an environment variable that overrides DefaultDataDir,
// for machines where the data sets are copied elsewhere (the GPU machine's
// prebuilt test binaries, for example).
const DataDirEnv = "VKDML_ONNX_DATA"

// DataDir is $VKDML_ONNX_DATA when set, else DefaultDataDir.
func DataDir() string {
	if d := os.Getenv(DataDirEnv); d != "" {
		return d
	}
	return DefaultDataDir
}

// The suite runs every data-set folder under the data directory whose
// node is of an ONNX type the operator table maps (operators.ONNXTypes;
// 123 data sets in libonnx-testdata 1.12), whatever the folder's name, and
// lists every other folder as not mapped, with the reason: none is left
// out unsaid.

// Status is a case's outcome.
type Status string

// The outcomes of a data set.
const (
	// Pass: the device and the CPU reference match ONNX's outputs exactly
	// (or within the mapping's tolerance).
	Pass Status = "pass"
	// Fail: an output differs, or the case could not run; Reason says why.
	Fail Status = "fail"
	// Skip: the node has no DirectML equivalent; Reason says why.
	Skip Status = "skip"
	// NotMapped: the folder's node is of a type the operator table does
	// not map, or it holds no readable single-node model; it is listed
	// and not run, and Reason says why.
	NotMapped Status = "not mapped"
)

// Result is one data set's outcome.
type Result struct {
	Case   string `json:"case"`
	Status Status `json:"result"`
	Reason string `json:"reason,omitempty"` // why it failed or was skipped; the mapping when it passed
	Op     string `json:"op,omitempty"`     // the DirectML operator it ran as
	// ONNXOp is the node's ONNX type, when the model could be read.
	ONNXOp string `json:"onnx_op,omitempty"`
	// Nodes is the node count of a model of several nodes (not mapped).
	Nodes    int           `json:"nodes,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Summary counts results.
type Summary struct {
	// Total counts every data set run; Passed, Failed and Skipped each
	// outcome of them; NotMapped the folders not run.
	Total, Passed, Failed, Skipped, NotMapped int
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	var s Summary
	for _, r := range rs {
		if r.Status != NotMapped {
			s.Total++
		}
		switch r.Status {
		case NotMapped:
			s.NotMapped++
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

// String is the summary line: "conformance: N passed, M failed, K skipped".
func (s Summary) String() string {
	line := fmt.Sprintf("conformance: %d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
	if s.NotMapped > 0 {
		line += fmt.Sprintf("; %d folders not mapped", s.NotMapped)
	}
	return line
}

// ErrNoData says the data directory has no matching data sets.
var ErrNoData = errors.New("conformance: no ONNX node test data sets found")

// Cases lists the data-set folders under dataDir that the suite runs,
// sorted by name.
func Cases(dataDir string) ([]string, error) {
	run, _, err := Scan(dataDir)
	return run, err
}

// Scan reads every folder under dataDir: those whose single node is of an
// ONNX type the operator table maps are to run (sorted by name); every
// other one is a NotMapped result saying why.
func Scan(dataDir string) (run []string, notMapped []Result, err error) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w in %s: %v (Debian: apt-get install libonnx-testdata)", ErrNoData, dataDir, err)
	}
	mapped := MappedTypes()
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(dataDir, e.Name())
		r := Result{Case: e.Name(), Status: NotMapped}
		g, err := onnx.ReadModel(filepath.Join(dir, "model.onnx"))
		switch {
		case errors.Is(err, os.ErrNotExist):
			r.Reason = "no model.onnx: not an ONNX node test data set"
		case err != nil:
			r.Reason = "model.onnx cannot be read: " + err.Error()
		case len(g.Nodes) != 1:
			r.Nodes = len(g.Nodes)
			r.Reason = fmt.Sprintf("model.onnx has %d nodes; a node test has one", len(g.Nodes))
		case !slices.Contains(mapped, g.Nodes[0].OpType):
			r.ONNXOp = g.Nodes[0].OpType
			r.Reason = fmt.Sprintf("%s is not an operator vkdml maps (%s)", r.ONNXOp, strings.Join(mapped, ", "))
		default:
			run = append(run, dir)
			continue
		}
		notMapped = append(notMapped, r)
	}
	if len(run) == 0 {
		return nil, nil, fmt.Errorf("%w in %s: no folder holds a model.onnx of %s (%d folders not mapped)", ErrNoData, dataDir, strings.Join(mapped, ", "), len(notMapped))
	}
	sort.Strings(run)
	return run, notMapped, nil
}

// MappedTypes are the ONNX node types the operator table maps.
func MappedTypes() []string {
	var ts []string
	for _, op := range operators.Table {
		ts = append(ts, op.ONNXTypes...)
	}
	return ts
}

// Run runs every data set under dataDir that Scan finds on d, in name
// order, calling progress (when not nil) after each, and returns their
// results followed by the folders not mapped.
func Run(d *dml.Device, dataDir string, progress func(Result)) ([]Result, error) {
	dirs, notMapped, err := Scan(dataDir)
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
	return append(rs, notMapped...), nil
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
		ins, want, err := readSet(node, ds)
		if err != nil {
			return "", "", err
		}
		m, err := Map(node, ins, len(want))
		if err != nil {
			return "", "", err
		}
		op, mapping = m.Desc.OperatorType(), m.Mapping
		if err := check(m, d, ins, want); err != nil {
			return op, mapping, fmt.Errorf("%s: %w", filepath.Base(ds), err)
		}
	}
	return op, mapping, nil
}

// readSet reads a test_data_set_* folder's inputs and expected outputs.
// An empty input other than the first (ReduceSum's empty axes) is nil; a
// tensor of a type vkdml has no tensors of (LogSumExp's DOUBLE data sets)
// skips the case, naming the type.
func readSet(node *onnx.Node, ds string) (ins, want []*tensor.Tensor, err error) {
	read := func(name string) (*tensor.Tensor, error) {
		t, _, err := onnx.ReadTensor(filepath.Join(ds, name))
		if errors.Is(err, onnx.ErrDataType) {
			op := node.OpType
			if o := operators.ForONNX(op); o != nil {
				op = "DirectML's " + o.Type
			}
			return nil, skipf("%s: %v; %s takes none either", name, errors.Unwrap(err), op)
		}
		return t, err
	}
	for i := range node.Inputs {
		t, err := read(fmt.Sprintf("input_%d.pb", i))
		if i > 0 && errors.Is(err, onnx.ErrEmpty) {
			t, err = nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, t)
	}
	for i := range node.Outputs {
		t, err := read(fmt.Sprintf("output_%d.pb", i))
		if err != nil {
			return nil, nil, err
		}
		want = append(want, t)
	}
	return ins, want, nil
}

// Mapped is an ONNX node mapped onto a DirectML operator for one input
// shape (the operator table's mapping).
type Mapped = operators.ONNXMapping

// Map translates an ONNX node with the given inputs and outputs ONNX
// outputs into a DirectML desc, through the operator table
// (internal/operators).
func Map(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*Mapped, error) {
	m, err := operators.FromONNX(n, ins, outputs)
	var ne *operators.NoEquivalentError
	if errors.As(err, &ne) {
		return nil, skipf("%s", ne.Reason)
	}
	return m, err
}

// check runs the mapped operator on ONNX's inputs and compares with want,
// and holds the CPU reference to the same outputs.
func check(m *Mapped, d *dml.Device, onnxIns []*tensor.Tensor, want []*tensor.Tensor) error {
	x := onnxIns[0]
	m.Retype(x.Desc.DataType)
	ins := []*tensor.Tensor{{Desc: tensor.NewDesc(x.Desc.DataType, m.InputSizes), Data: x.ToPacked().Data}}
	if m.Bind != nil {
		ins = m.Bind(onnxIns)
	}
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
	got, err := d.Compute(m.Desc, ins...)
	if err != nil {
		return err
	}
	ref := make([]*tensor.Tensor, len(outs))
	for i, od := range outs {
		if od != nil {
			ref[i] = &tensor.Tensor{Desc: od.Clone(), Data: make([]byte, od.TotalTensorSizeInBytes)}
		}
	}
	if err := m.Desc.Reference(ins, ref); err != nil {
		return fmt.Errorf("CPU reference: %w", err)
	}
	if m.View != nil {
		got, ref = m.View(got), m.View(ref)
	}
	for i, w := range want {
		name := m.OutputNames[min(i, len(m.OutputNames)-1)]
		tol := m.Tolerance
		if !w.Desc.DataType.IsFloat() {
			tol = nil
		}
		if err := compare(name, "device", w, got[i], m.OutputSizes[i], tol); err != nil {
			return err
		}
		if err := compare(name, "CPU reference", w, ref[i], m.OutputSizes[i], tol); err != nil {
			return err
		}
		if tol != nil && !bytes.Equal(got[i].ToPacked().Data, ref[i].ToPacked().Data) {
			// ONNX's tolerance is numpy's summation order; vkdml's promise
			// is one answer on every device and the CPU reference.
			return fmt.Errorf("output %s: the device and the CPU reference differ: %w", name, diffs(w.Desc.DataType, ref[i].ToPacked().Data, got[i].ToPacked().Data, nil))
		}
	}
	return nil
}

// compare checks one output: ONNX's shape equals the mapped shape, the
// element types agree (INT64 indices may come back as UINT64 with the same
// bits), and the bytes are equal, or, with a tolerance, each element is
// within it of ONNX's.
func compare(name, who string, want, got *tensor.Tensor, onnxSizes []uint32, tol *operators.Tolerance) error {
	if !slices.Equal(want.Desc.Sizes, onnxSizes) {
		return fmt.Errorf("output %s: ONNX's shape %s differs from the mapped shape %s", name, tensor.Shape(want.Desc.Sizes), tensor.Shape(onnxSizes))
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
	if err := diffs(wt, w, g, tol); err != nil {
		return fmt.Errorf("output %s (%s): %w", name, who, err)
	}
	return nil
}

// diffs compares the elements of type dt in w and g, bit for bit or,
// with a tolerance, within it, and describes the first few that differ;
// nil when none does.
func diffs(dt tensor.DataType, w, g []byte, tol *operators.Tolerance) error {
	es := dt.Size()
	var shown []string
	n := 0
	for i := 0; i*es < len(w); i++ {
		a, b := w[i*es:(i+1)*es], g[i*es:(i+1)*es]
		if bytes.Equal(a, b) || (tol != nil && tol.Allows(value(dt, a), value(dt, b))) {
			continue
		}
		if len(shown) < 4 {
			shown = append(shown, fmt.Sprintf("[%d] want %s got %s", i, format(dt, a), format(dt, b)))
		}
		n++
	}
	if n == 0 {
		return nil
	}
	within := ""
	if tol != nil {
		within = " beyond " + tol.String()
	}
	return fmt.Errorf("%d of %d elements differ%s: %s", n, len(w)/es, within, strings.Join(shown, "; "))
}

// value is a floating-point element's value.
func value(dt tensor.DataType, b []byte) float64 {
	return (&tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}).Float64At(0)
}

func format(dt tensor.DataType, b []byte) string {
	t := &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}
	switch {
	case dt.IsFloat():
		return fmt.Sprint(float32(t.Float64At(0)))
	case dt.IsSigned():
		return fmt.Sprint(t.Int64At(0))
	}
	return fmt.Sprint(t.Uint64At(0))
}
