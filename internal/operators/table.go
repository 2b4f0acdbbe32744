// Package operators is the one table of vkdml's operators for the tools
// around the library: the command's run, bench and demo, the ONNX
// conformance suite (internal/conformance) and the parity corpus
// (internal/parity/vk).
//
// Each operator lives in its own file here (argmax.go, maxpool.go,
// identity.go) and is listed once in Table. An entry names the desc type of
// ops' registry it builds (whose inputs, outputs and kernel strategies come
// from there), and says how the command spells the operator and its flags,
// how a flag set becomes a DirectML desc for its inputs, which
// DML_OPERATOR_TYPEs of the parity corpus and which ONNX node types it
// maps, and which examples `vkdml demo` shows. Every registered desc type
// is some entry's Type or one of its DMLTypes (TestTableCoversRegistry).
// Adding an operator therefore touches its own file and one line of Table;
// the peripherals find it there.
package operators

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/schema"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// ErrUsage marks errors in flags or arguments: the command prints them with
// its usage hint and exits 2.
var ErrUsage = errors.New("usage")

// Use says which command registers an operator's flags: a few flags differ
// between `vkdml run` (files) and `vkdml bench` (generated inputs).
type Use int

const (
	// UseRun is `vkdml run OP IN.npy OUT.npy`: extra outputs are file names.
	UseRun Use = iota
	// UseBench is `vkdml bench --op OP`: extra outputs are switched on.
	UseBench
)

// Operator is one row of Table.
type Operator struct {
	// Name is the command's name: `vkdml run NAME`, `vkdml bench --op NAME`.
	Name string
	// Type is the operator type, in ops' registry, of the descs the
	// command builds: their inputs (the files `vkdml run` reads) and the
	// kernel strategies bench knows come from there.
	Type string
	// Aliases are other names the command accepts (bench's "copy").
	Aliases []string
	// Summary is the one-line description `vkdml run -h` lists.
	Summary string
	// Synopsis is the usage after `vkdml run NAME`.
	Synopsis string
	// Help is printed after the flags by `vkdml run NAME -h`, when set.
	Help string
	// Examples follow Help in `vkdml run NAME -h`: every rule Help states,
	// shown with numbers. The command's tests run each example as printed
	// and compare the outputs, so help and behaviour cannot drift apart.
	Examples []Example
	// Flags registers the operator's flags on fs and returns the builder
	// that turns them, once parsed, into a desc.
	Flags func(fs *flag.FlagSet, use Use) *Builder
	// DMLTypes are the DML_OPERATOR_TYPE names (without the prefix) of the
	// parity corpus that FromCase builds.
	DMLTypes []string
	// FromCase builds the desc a parity corpus case names. Descs that are
	// invalid on purpose are built as they are.
	FromCase func(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error)
	// Source names the input window, block or elements that produced an
	// output element of a parity case, for the differences a comparison
	// lists (parity.Explain); nil when the operator names none.
	Source parity.SourceFunc
	// ONNXTypes are the ONNX node types FromONNX maps.
	ONNXTypes []string
	// FromONNX maps an ONNX node with the given inputs (their shapes, and
	// the values of constant inputs such as MaxUnpool's output_shape) and
	// outputs ONNX outputs onto a DirectML desc, as ONNX Runtime's
	// DirectML execution provider does. A node with no DirectML
	// equivalent returns a *NoEquivalentError.
	FromONNX func(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*ONNXMapping, error)
	// Demos are the examples `vkdml demo` runs and checks, in order.
	Demos []Demo
}

// Builder is an operator's parsed flags.
type Builder struct {
	// Check validates the flags alone, before any file is read or the
	// device opened.
	Check func() error
	// Desc builds the desc for inputs, one per input of the operator in
	// binding order (Operator.Inputs).
	Desc func(ins []Input) (dml.OperatorDesc, error)
	// ExtraOutputs are the output files named by flags (UseRun), written
	// after OUT in the desc's output order; nil when there are none.
	ExtraOutputs func() []string
	// Params are the operator's parameters as flags gave them, for JSON
	// records (snake_case keys).
	Params func() map[string]any
}

// Input is one input tensor of a desc to build.
type Input struct {
	// Name names it in errors: its file, or bench's --shape.
	Name string
	// Desc is nil for an optional input left out.
	Desc *tensor.Desc
}

// registered is op's row of ops' registry; TestTableCoversRegistry holds
// every Type to one.
func (op *Operator) registered() *ops.Operator {
	o, ok := ops.LookupOperator(op.Type)
	if !ok {
		panic("operators: " + op.Name + ": " + op.Type + " is not in ops' registry")
	}
	return o
}

// Kernels are the strategies `vkdml bench --kernel` may force
// (Device.CreateOperatorWithKernel's names), in the order --kernel all
// measures them: the registry's for Type.
func (op *Operator) Kernels() []string { return op.registered().Strategies }

// Inputs are the input tensors of Type's descs, in binding order.
func (op *Operator) Inputs() []schema.Field { return op.registered().Inputs() }

// InputFiles is how `vkdml run` usage names the input files: IN.npy for an
// operator with one input, else IN1.npy IN2.npy ..., an optional one in
// brackets.
func (op *Operator) InputFiles() string {
	ins := op.Inputs()
	if len(ins) == 1 && !ins[0].Optional {
		return "IN.npy"
	}
	names := make([]string, len(ins))
	for i, f := range ins {
		names[i] = fmt.Sprintf("IN%d.npy", i+1)
		if f.Optional {
			names[i] = "[" + names[i] + "]"
		}
	}
	return strings.Join(names, " ")
}

// RequiredOutputs is how many of the outputs are not optional: `vkdml
// run` takes a file for each after the inputs (optional ones are named by
// flags, as --indices).
func (op *Operator) RequiredOutputs() int {
	n := 0
	for _, f := range op.registered().Outputs() {
		if !f.Optional {
			n++
		}
	}
	return n
}

// OutputFiles is how `vkdml run` usage names the output files: OUT.npy
// for one, OUT1.npy OUT2.npy ... for several.
func (op *Operator) OutputFiles() string {
	n := op.RequiredOutputs()
	if n == 1 {
		return "OUT.npy"
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("OUT%d.npy", i+1)
	}
	return strings.Join(names, " ")
}

// RequiredInputs is how many of the inputs are not optional. `vkdml run`
// gives the files to the inputs in order, so optional inputs must follow
// the required ones (TestTableCoversRegistry checks).
func (op *Operator) RequiredInputs() int {
	n := 0
	for _, f := range op.Inputs() {
		if !f.Optional {
			n++
		}
	}
	return n
}

// Example is one run of `vkdml run NAME` as its help shows it. Tensors are
// FLOAT32 (indices UINT32), written as nested lists, outermost axis first;
// numbers may be NaN, -0 or -FLT_MAX.
type Example struct {
	// Flags are the operator's flags, without the files.
	Flags string
	// Input is IN.npy; Output is OUT.npy.
	Input, Output string
	// Indices, when set, is the --indices IDX.npy output.
	Indices string
}

// ExamplesHelp is the examples paragraph of `vkdml run NAME -h`, empty
// when the operator has none. Each example reads
//
//	vkdml run NAME FLAGS [--indices IDX.npy] IN.npy OUT.npy
//	  IN  [...]
//	  OUT [...]
//	  IDX [...]
func (op *Operator) ExamplesHelp() string {
	if len(op.Examples) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Examples (FLOAT32 inputs, UINT32 indices; vkdml's tests run each one):\n")
	for _, e := range op.Examples {
		files := "IN.npy OUT.npy"
		if e.Indices != "" {
			files = "--indices IDX.npy " + files
		}
		fmt.Fprintf(&b, "\n  vkdml run %s %s %s\n    IN  %s\n    OUT %s\n", op.Name, e.Flags, files, e.Input, e.Output)
		if e.Indices != "" {
			fmt.Fprintf(&b, "    IDX %s\n", e.Indices)
		}
	}
	return b.String()
}

// Demo is one example of `vkdml demo`: Run prints it on w and returns an
// error when the device's result is not the documented one.
type Demo struct {
	Title string
	Run   func(d *dml.Device, w io.Writer) error
}

// CaseTensors are a parity case's tensors as descs.
type CaseTensors struct {
	Input, Output tensor.Desc
	// Indices is the optional indices output; nil when the case has none.
	Indices *tensor.Desc
	// InputIndices is MAX_UNPOOLING's indices input; nil when the case
	// has none.
	InputIndices *tensor.Desc
	// Direction is the case's DML_AXIS_DIRECTION.
	Direction dml.AxisDirection
}

// ONNXMapping is an ONNX node mapped onto a DirectML operator for one
// input shape.
type ONNXMapping struct {
	// Desc is the DirectML desc, with FLOAT32 values until Retype.
	Desc dml.OperatorDesc
	// InputSizes are the sizes the ONNX input is viewed with (1D pooling
	// gains a unit H axis); the bytes do not move.
	InputSizes []uint32
	// OutputSizes are ONNX's expected output shapes (after keepdims=0 or
	// the 1D reshape), one per ONNX output; the DirectML outputs are
	// viewed with these sizes.
	OutputSizes [][]uint32
	// OutputNames name the outputs in messages, one per ONNX output.
	OutputNames []string
	// Mapping describes the translation in words, for the table.
	Mapping string
	// Retype gives the desc's value tensors the input's data type.
	Retype func(dt tensor.DataType)
	// Bind, when set, gives the desc's inputs from ONNX's (MaxUnpool binds
	// X and I, I's INT64 read as UINT64, and not output_shape); nil binds
	// ONNX's one input viewed with InputSizes.
	Bind func(ins []*tensor.Tensor) []*tensor.Tensor
	// View, when set, gives ONNX's outputs from the desc's (MaxUnpool's
	// output_shape: the whole buffer a strided output lies in); nil takes
	// the desc's outputs as they are.
	View func(outs []*tensor.Tensor) []*tensor.Tensor
	// Tolerance, when set, compares floating-point outputs with ONNX's
	// within it (the functions whose ONNX outputs are rounded sums in
	// numpy's order); nil compares them bit for bit. Integer outputs are
	// compared exactly either way.
	Tolerance *Tolerance
}

// Tolerance is numpy's assert_allclose test, which ONNX's backend test
// runner applies: |got - want| <= ATol + RTol·|want|, NaN where NaN is
// expected, an infinity of the same sign where one is expected.
type Tolerance struct{ RTol, ATol float64 }

// ONNXTolerance is the ONNX backend test runner's default for node tests
// loaded from data sets (onnx.backend.test.loader: rtol 1e-3, atol 1e-7);
// no Reduce* node test sets its own.
var ONNXTolerance = Tolerance{RTol: 1e-3, ATol: 1e-7}

// Allows reports whether got is within the tolerance of want.
func (tol Tolerance) Allows(want, got float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return want == got
	}
	return math.Abs(got-want) <= tol.ATol+tol.RTol*math.Abs(want)
}

// String is "rtol 0.001, atol 1e-07".
func (tol Tolerance) String() string { return fmt.Sprintf("rtol %g, atol %g", tol.RTol, tol.ATol) }

// NoEquivalentError says that an ONNX node has no DirectML equivalent (the
// conformance suite skips such a case with the reason).
type NoEquivalentError struct{ Reason string }

// Error returns the reason.
func (e *NoEquivalentError) Error() string { return e.Reason }

// Table lists every operator the tools know, in the order help lists them.
var Table = []*Operator{
	argMaxOperator("argmax"),
	argMinOperator("argmin"),
	reduceOperator(),
	maxPoolOperator(),
	maxUnpoolOperator(),
	identityOperator(),
	topKOperator(),
}

// Lookup returns the operator the command calls name (or an alias of it).
func Lookup(name string) (*Operator, bool) {
	for _, op := range Table {
		if op.Name == name {
			return op, true
		}
		for _, a := range op.Aliases {
			if a == name {
				return op, true
			}
		}
	}
	return nil, false
}

// Names lists the operators' command names, sorted.
func Names() []string {
	var names []string
	for _, op := range Table {
		names = append(names, op.Name)
	}
	sort.Strings(names)
	return names
}

// FromCase builds the desc of parity case c through the operator whose
// DMLTypes hold c.Operator.
func FromCase(c *parity.Case) (dml.OperatorDesc, error) {
	for _, op := range Table {
		for _, t := range op.DMLTypes {
			if t == c.Operator {
				ts, err := caseTensors(c)
				if err != nil {
					return nil, err
				}
				return op.FromCase(c, ts)
			}
		}
	}
	return nil, fmt.Errorf("case %s: unknown operator %q", c.Name, c.Operator)
}

// Source is a parity.SourceFunc for every operator: the Source of the
// operator whose DMLTypes hold c.Operator, or nil.
func Source(c *parity.Case, inputs [][]byte, output int, coords []uint32) *parity.Source {
	for _, op := range Table {
		if slices.Contains(op.DMLTypes, c.Operator) && op.Source != nil {
			return op.Source(c, inputs, output, coords)
		}
	}
	return nil
}

func caseTensors(c *parity.Case) (CaseTensors, error) {
	var ts CaseTensors
	var err error
	if ts.Input, err = c.Input.Desc(); err != nil {
		return ts, err
	}
	if ts.Output, err = c.Output.Desc(); err != nil {
		return ts, err
	}
	if c.OutputIndices != nil {
		d, err := c.OutputIndices.Desc()
		if err != nil {
			return ts, err
		}
		ts.Indices = &d
	}
	if c.Indices != nil {
		d, err := c.Indices.Desc()
		if err != nil {
			return ts, err
		}
		ts.InputIndices = &d
	}
	d, err := c.Direction()
	ts.Direction = dml.AxisDirection(d)
	return ts, err
}

// FromONNX maps ONNX node n with inputs ins through the operator whose
// ONNXTypes hold its type.
func FromONNX(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*ONNXMapping, error) {
	if op := ForONNX(n.OpType); op != nil {
		return op.FromONNX(n, ins, outputs)
	}
	return nil, &NoEquivalentError{fmt.Sprintf("operator %s is not part of this suite", n.OpType)}
}

// ForONNX returns the operator whose ONNXTypes hold onnxType, or nil.
func ForONNX(onnxType string) *Operator {
	for _, op := range Table {
		if slices.Contains(op.ONNXTypes, onnxType) {
			return op
		}
	}
	return nil
}

// Demos lists every operator's examples, in Table order.
func Demos() []Demo {
	var ds []Demo
	for _, op := range Table {
		ds = append(ds, op.Demos...)
	}
	return ds
}

// convertAll converts every element of v to To (ONNX's int64 attributes
// to DirectML's uint32s, indices to the float64s nested prints).
func convertAll[To, From uint32 | int64 | uint64 | float64](v []From) []To {
	out := make([]To, len(v))
	for i, x := range v {
		out[i] = To(x)
	}
	return out
}
