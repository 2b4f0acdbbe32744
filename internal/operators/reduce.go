package operators

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// REDUCE: DirectML's functions by their names in lower case.

// reduceFunctions are DML_REDUCE_FUNCTION's names in lower case, with
// DirectML's values (dml.ReduceFunction).
var reduceFunctions = []string{"argmax", "argmin", "average", "l1", "l2", "log_sum", "log_sum_exp", "max", "min", "multiply", "sum", "sum_square"}

func reduceOperator() *Operator {
	return &Operator{
		Name:      "reduce",
		Type:      "REDUCE",
		DMLTypes:  []string{"REDUCE"},
		Summary:   "REDUCE: max, min, sum, average, multiply, l1, l2, log_sum, log_sum_exp, sum_square, argmax or argmin over the given axes (the output keeps the input's rank)",
		Synopsis:  "--function NAME --axes A[,B...] [--index-type uint32|int32|uint64|int64] IN.npy OUT.npy",
		Help:      reduceHelp,
		Examples:  reduceExamples,
		Flags:     func(fs *flag.FlagSet, _ Use) *Builder { return reduceFlags(fs) },
		FromCase:  reduceFromCase,
		ONNXTypes: onnxReduceTypes(),
		FromONNX:  reduceFromONNX,
		Demos: []Demo{
			{"REDUCE: MAX ignores NaN and takes the later of equal values (-0, +0)", func(d *dml.Device, w io.Writer) error {
				nan := float32(math.NaN())
				return demoReduce(d, w, dml.ReduceFunctionMax, tensor.FromFloat32([]uint32{3, 3}, []float32{nan, 1, 3, 0, float32(math.Copysign(0, -1)), -5, -1, nan, -1}), "[3, -0, -1]")
			}},
			{"REDUCE: SUM of INT32 wraps modulo 2^32", func(d *dml.Device, w io.Writer) error {
				return demoReduce(d, w, dml.ReduceFunctionSum, tensor.FromInt64As(tensor.Int32, []uint32{2, 2}, []int64{math.MaxInt32, 1, -7, 3}), "[-2147483648, -4]")
			}},
		},
	}
}

// demoReduce runs REDUCE function f over the last axis of in on the
// device and the CPU reference, prints the input and the result, and
// checks both against want (the row's results as printed).
func demoReduce(d *dml.Device, w io.Writer, f dml.ReduceFunction, in *tensor.Tensor, want string) error {
	sizes := slices.Clone(in.Desc.Sizes)
	sizes[len(sizes)-1] = 1
	desc := &dml.Reduce{Function: f, Input: in.Desc, Output: tensor.NewDesc(in.Desc.DataType, sizes), Axes: []uint32{uint32(len(sizes) - 1)}}
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "InputTensor: (Sizes:%s, DataType:%v)\n%s\n", tensor.Shape(in.Desc.Sizes), in.Desc.DataType, nested(in.Float64s(), in.Desc.Sizes, nil))
	fmt.Fprintf(w, "Function: %v\nAxes: %s\n", f, tensor.Shape(desc.Axes))
	ref := &tensor.Tensor{Desc: desc.Output.Clone(), Data: make([]byte, desc.Output.TotalTensorSizeInBytes)}
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{ref}); err != nil {
		return err
	}
	got := reduceShown(outs[0])
	fmt.Fprintf(w, "OutputTensor: (Sizes:%s, DataType:%v)\n%s\n", tensor.Shape(sizes), in.Desc.DataType, got)
	if got != want || reduceShown(ref) != want {
		return fmt.Errorf("got %s, the CPU reference %s; want %s", got, reduceShown(ref), want)
	}
	return nil
}

// reduceShown prints a result's elements in a row (-0 with its sign).
func reduceShown(t *tensor.Tensor) string {
	var vals []string
	for _, v := range t.Float64s() {
		vals = append(vals, strconv.FormatFloat(v, 'f', -1, 64))
	}
	return "[" + strings.Join(vals, ", ") + "]"
}

var reduceHelp = `--function is DirectML's DML_REDUCE_FUNCTION in lower case: ` + strings.Join(reduceFunctions, ", ") + `.
vkdml computes max and min on every type, sum, multiply, l1 and sum_square
on int32, uint32, int64 and uint64 (exact: the integers wrap modulo 2^n),
sum, average, l1, sum_square, l2, log_sum and log_sum_exp on float32 and
float16 (summed exactly and rounded once: the same bits on every device and
plan), multiply on float32 and float16 (in one canonical order, a pairwise
tree over the block's row-major values, in float32: the same bits on every
device and plan), and argmax and argmin (an index of --index-type, ties to
the first). The output of the value functions has the input's type.

--axes counts from the end when negative, as numpy and ONNX do.

` + Wrap("NaN, as in DirectML: max and min ignore NaN wherever it sits (numpy's max returns NaN); "+
	"of equal values the later one wins, so max of [-0, 0] is 0 and of [0, -0] is -0; "+
	"a block of NaN only gives -inf (max) or +inf (min).", 76)

// reduceExamples are the rules of reduceHelp in numbers; the command's
// tests run them.
var reduceExamples = []Example{
	{Flags: "--function max --axes 0", Input: "[1, NaN, 3]", Output: "[3]"},
	{Flags: "--function max --axes 0", Input: "[NaN, 1, 2]", Output: "[2]"},
	{Flags: "--function min --axes 0", Input: "[3, 1, NaN]", Output: "[1]"},
	{Flags: "--function max --axes 0", Input: "[NaN, NaN]", Output: "[-Inf]"},
	{Flags: "--function max --axes 0", Input: "[-0, 0]", Output: "[0]"},
	{Flags: "--function max --axes 0", Input: "[0, -0]", Output: "[-0]"},
	{Flags: "--function max --axes -1", Input: argMatrix, Output: "[[3], [4], [5]]"},
	{Flags: "--function argmax --axes 0,1", Input: argMatrix, Output: "[[7]]"},
	{Flags: "--function sum --axes 0", Input: "[1e8, 1, -1e8, 1]", Output: "[2]"},
	{Flags: "--function l2 --axes 0", Input: "[3, 4]", Output: "[5]"},
}

// reduceFlags registers --function, --axes and --index-type.
func reduceFlags(fs *flag.FlagSet) *Builder {
	fn := fs.String("function", "", "DML_REDUCE_FUNCTION in lower case: "+strings.Join(reduceFunctions, ", ")+" (required)")
	axes := fs.String("axes", "", "comma-separated axes to reduce, e.g. 0,2 or -1 (required; negative counts from the end)")
	idx := fs.String("index-type", "", "argmax/argmin's index type: uint32 (default), int32, uint64 or int64")
	return &Builder{
		Check: func() error {
			_, _, err := reduceOptions(*fn, *axes, *idx)
			return err
		},
		Desc: func(ins []Input) (dml.OperatorDesc, error) {
			return ReduceDesc(*ins[0].Desc, *fn, *axes, *idx)
		},
		Params: func() map[string]any {
			return map[string]any{"function": strings.ToLower(*fn), "axes": *axes, "index_type": strings.ToLower(*idx)}
		},
	}
}

// reduceOptions checks the flags that do not depend on the input and
// returns the function and argmax/argmin's index type.
func reduceOptions(fnS, axesS, idxS string) (dml.ReduceFunction, tensor.DataType, error) {
	f := slices.Index(reduceFunctions, strings.ToLower(fnS))
	if f < 0 {
		return 0, 0, fmt.Errorf("%w: --function %q: want one of %s", ErrUsage, fnS, strings.Join(reduceFunctions, ", "))
	}
	fn := dml.ReduceFunction(f)
	index := fn == dml.ReduceFunctionArgMax || fn == dml.ReduceFunctionArgMin
	if idxS != "" && !index {
		return 0, 0, fmt.Errorf("%w: --index-type: %s's output has the input's type; the index type is argmax's and argmin's", ErrUsage, strings.ToLower(fnS))
	}
	if idxS == "" {
		idxS = "uint32"
	}
	_, idx, err := argOptions(axesS, "increasing", idxS)
	if !index {
		idx = tensor.Unknown
	}
	return fn, idx, err
}

// ReduceDesc builds the REDUCE desc of the flags for an input: the output
// keeps the input's rank and has its type, or argmax/argmin's index type.
func ReduceDesc(in tensor.Desc, fnS, axesS, idxS string) (dml.OperatorDesc, error) {
	fn, idx, err := reduceOptions(fnS, axesS, idxS)
	if err != nil {
		return nil, err
	}
	axes, sizes, err := reducedShape(in, axesS)
	if err != nil {
		return nil, err
	}
	if idx == tensor.Unknown {
		idx = in.DataType
	}
	return &dml.Reduce{Function: fn, Input: in, Output: tensor.NewDesc(idx, sizes), Axes: axes}, nil
}

func reduceFromCase(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error) {
	if t.Indices != nil {
		return nil, fmt.Errorf("case %s: REDUCE has no indices tensor", c.Name)
	}
	f, err := c.Function()
	if err != nil {
		return nil, err
	}
	return &dml.Reduce{Function: dml.ReduceFunction(f), Input: t.Input, Output: t.Output, Axes: c.Axes}, nil
}

// onnxReduction is an ONNX reduction's REDUCE function.
type onnxReduction struct {
	onnxType string
	function dml.ReduceFunction
	tolerant bool
}

// onnxReductions map ONNX's Reduce* operators onto REDUCE functions, as
// ONNX Runtime's DirectML provider does; one row each. Tolerant rows
// compare a floating-point result within ONNX's tolerances (ONNX's
// expected outputs are numpy's sums, in numpy's order; vkdml's are exact
// sums rounded once), the others bit for bit.
var onnxReductions = []onnxReduction{
	{"ReduceMax", dml.ReduceFunctionMax, false},
	{"ReduceMin", dml.ReduceFunctionMin, false},
	{"ReduceL1", dml.ReduceFunctionL1, true},
	{"ReduceL2", dml.ReduceFunctionL2, true},
	{"ReduceLogSum", dml.ReduceFunctionLogSum, true},
	{"ReduceLogSumExp", dml.ReduceFunctionLogSumExp, true},
	{"ReduceMean", dml.ReduceFunctionAverage, true},
	{"ReduceSum", dml.ReduceFunctionSum, true},
	{"ReduceSumSquare", dml.ReduceFunctionSumSquare, true},
	{"ReduceProd", dml.ReduceFunctionMultiply, true},
}

func onnxReduceTypes() []string {
	var ts []string
	for _, r := range onnxReductions {
		ts = append(ts, r.onnxType)
	}
	return ts
}

// reduceFromONNX maps ONNX's Reduce* (onnxReductions) as ONNX Runtime's
// DirectML provider does: the axes from the attribute (before opset 18;
// ReduceSum's from 13) or the optional second input, negative ones
// counting from the end, all axes when there are none (an empty axes
// input is nil), unless noop_with_empty_axes=1, which is the explicit
// empty list (AxisCount = 0, the identity); DirectML keeps the rank, so
// keepdims=0 is a reshape of the result.
func reduceFromONNX(n *onnx.Node, ins []*tensor.Tensor, _ int) (*ONNXMapping, error) {
	if len(ins) != 1 && len(ins) != 2 {
		return nil, fmt.Errorf("%d inputs; %s takes data and optional axes", len(ins), n.OpType)
	}
	in := ins[0].Desc.Sizes
	rank := int64(len(in))
	axes64 := n.Ints("axes", nil)
	if len(ins) == 2 && ins[1] != nil {
		axes64 = ins[1].Int64s()
	}
	var axes []uint32
	for _, a := range axes64 {
		if a < -rank || a >= rank {
			return nil, fmt.Errorf("axis %d is out of range for a rank-%d input", a, rank)
		}
		if a < 0 {
			a += rank
		}
		axes = append(axes, uint32(a))
	}
	if len(axes) == 0 && n.Int("noop_with_empty_axes", 0) == 0 {
		for i := range in {
			axes = append(axes, uint32(i))
		}
	}
	out := slices.Clone(in)
	for _, a := range axes {
		out[a] = 1
	}
	onnxOut := out
	keep := n.Int("keepdims", 1) != 0
	if !keep {
		onnxOut = nil
		for i, s := range in {
			if !slices.Contains(axes, uint32(i)) {
				onnxOut = append(onnxOut, s)
			}
		}
		if len(onnxOut) == 0 {
			onnxOut = []uint32{1}
		}
	}
	row := slices.IndexFunc(onnxReductions, func(r onnxReduction) bool { return r.onnxType == n.OpType })
	if row < 0 {
		return nil, fmt.Errorf("%s is not one of ONNX's reductions vkdml maps (%s)", n.OpType, strings.Join(onnxReduceTypes(), ", "))
	}
	fn := onnxReductions[row].function
	r := &dml.Reduce{Function: fn, Input: tensor.NewDesc(tensor.Float32, in), Output: tensor.NewDesc(tensor.Float32, out), Axes: axes}
	m := &ONNXMapping{Desc: r, InputSizes: in, OutputSizes: [][]uint32{onnxOut}, OutputNames: []string{"reduced"},
		Retype: func(dt tensor.DataType) {
			r.Input, r.Output = tensor.NewDesc(dt, r.Input.Sizes), tensor.NewDesc(dt, r.Output.Sizes)
		},
		Mapping: fmt.Sprintf("%v axes %s", fn, tensor.Shape(axes))}

	if len(ins) == 2 {
		m.Bind = func(ins []*tensor.Tensor) []*tensor.Tensor { return ins[:1] }
	}
	if !keep {
		m.Mapping += ", keepdims=0 as a reshape"
	}
	if onnxReductions[row].tolerant {
		m.Tolerance = &ONNXTolerance
		m.Mapping += ", within ONNX's " + ONNXTolerance.String()
	}
	return m, nil
}
