package ops

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// AxisDirection is DML_AXIS_DIRECTION: which of several equal extremes
// ARGMAX and ARGMIN return.
type AxisDirection uint32

const (
	// AxisDirectionIncreasing returns the first extreme in block order.
	AxisDirectionIncreasing AxisDirection = 0
	// AxisDirectionDecreasing returns the last extreme (the index still
	// counts from the block's start).
	AxisDirectionDecreasing AxisDirection = 1
)

// String is DirectML's name, e.g. DML_AXIS_DIRECTION_INCREASING.
func (d AxisDirection) String() string {
	switch d {
	case AxisDirectionIncreasing:
		return "DML_AXIS_DIRECTION_INCREASING"
	case AxisDirectionDecreasing:
		return "DML_AXIS_DIRECTION_DECREASING"
	}
	return fmt.Sprintf("DML_AXIS_DIRECTION(%d)", uint32(d))
}

// ArgMax is DML_ARGMAX_OPERATOR_DESC: for each output element, the index of
// the largest input element in its block of reduced axes. See
// semantics.md rules 1-6 for the index, axes, shape, tie, NaN and write
// rules vkdml follows.
type ArgMax struct {
	Input         tensor.Desc
	Output        tensor.Desc
	Axes          []uint32 // AxisCount = len(Axes)
	AxisDirection AxisDirection
}

// ArgMin is DML_ARGMIN_OPERATOR_DESC, ArgMax's twin for the smallest element.
type ArgMin struct {
	Input         tensor.Desc
	Output        tensor.Desc
	Axes          []uint32
	AxisDirection AxisDirection
}

// OperatorType is "ARGMAX".
func (*ArgMax) OperatorType() string { return "ARGMAX" }

// OperatorType is "ARGMIN".
func (*ArgMin) OperatorType() string { return "ARGMIN" }

// Inputs is [InputTensor].
func (o *ArgMax) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputTensor].
func (o *ArgMax) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// Inputs is [InputTensor].
func (o *ArgMin) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputTensor].
func (o *ArgMin) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// argOp is what the three descs have in common.
type argOp struct {
	typ    string
	in     *tensor.Desc
	out    *tensor.Desc
	axes   []uint32
	dir    AxisDirection
	isMin  bool
	reduce bool // REDUCE: its own feature-level tables
	// value is what the reduction computes: funcIndex (the index, ARGMAX
	// and ARGMIN) or one of REDUCE's value functions (reduce_values.go).
	value valueFunc
	// floatFn is the DML_REDUCE_FUNCTION of a funcFloat reduction
	// (reduce_part_float.glsl's FFUNC).
	floatFn ReduceFunction
}

func (o *ArgMax) op() *argOp {
	return &argOp{typ: "ARGMAX", in: &o.Input, out: &o.Output, axes: o.Axes, dir: o.AxisDirection}
}
func (o *ArgMin) op() *argOp {
	return &argOp{typ: "ARGMIN", in: &o.Input, out: &o.Output, axes: o.Axes, dir: o.AxisDirection, isMin: true}
}

// Validate applies DirectML's rules and semantics.md rules 1-3.
func (o *ArgMax) Validate(ctx *Context) error { return o.op().validate(ctx) }

// Validate applies DirectML's rules and semantics.md rules 1-3.
func (o *ArgMin) Validate(ctx *Context) error { return o.op().validate(ctx) }

// Plan chooses the kernels and steps (reduce_plan.go).
func (o *ArgMax) Plan(ctx *Context) (*Plan, error) { return o.op().plan(ctx) }

// Plan chooses the kernels and steps (reduce_plan.go).
func (o *ArgMin) Plan(ctx *Context) (*Plan, error) { return o.op().plan(ctx) }

// Reference computes the indices on the CPU (argmax_ref.go).
func (o *ArgMax) Reference(inputs, outputs []*tensor.Tensor) error {
	return o.op().reference(inputs, outputs)
}

// Reference computes the indices on the CPU (argmax_ref.go).
func (o *ArgMin) Reference(inputs, outputs []*tensor.Tensor) error {
	return o.op().reference(inputs, outputs)
}

// Type tables (DirectML's docs, dml-semantics.md §1.3 and §1.4).
var (
	argIndexTypes   = []tensor.DataType{tensor.Int64, tensor.Int32, tensor.UInt64, tensor.UInt32}
	argInputTypes30 = []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int32, tensor.Int16, tensor.Int8, tensor.UInt32, tensor.UInt16, tensor.UInt8}
	argInputTypes41 = append(append([]tensor.DataType(nil), argInputTypes30...), tensor.Int64, tensor.UInt64)
	reduceInputs10  = []tensor.DataType{tensor.Float32, tensor.Float16}
)

// argMaxRank is the rank limit of ARGMAX/ARGMIN (and REDUCE from FL 3.0).
const argMaxRank = 8

// validate applies every rule of DirectML's pages and semantics.md 1-3.
func (a *argOp) validate(ctx *Context) error {
	lvl := ctx.FeatureLevel
	minRank, maxRank := 1, argMaxRank
	inTypes, outTypes := argInputTypes41, argIndexTypes
	if a.reduce {
		switch {
		case lvl < FeatureLevel2_1:
			minRank, maxRank = 4, 4
			inTypes, outTypes = reduceInputs10, []tensor.DataType{tensor.UInt32}
		case lvl < FeatureLevel3_0:
			minRank, maxRank = 4, 4
			inTypes, outTypes = argInputTypes30, []tensor.DataType{tensor.UInt32}
		case lvl < FeatureLevel4_1:
			inTypes = argInputTypes30
		}
	} else {
		if lvl < FeatureLevel3_0 {
			return hresult.Unsupported("OperatorType", "DML_OPERATOR_%s needs DML_FEATURE_LEVEL_3_0; the device is at %v", a.typ, lvl)
		}
		if lvl < FeatureLevel4_1 {
			inTypes = argInputTypes30
		}
		if a.dir != AxisDirectionIncreasing && a.dir != AxisDirectionDecreasing {
			return hresult.InvalidArg("AxisDirection", "%d is not a DML_AXIS_DIRECTION (INCREASING = 0, DECREASING = 1)", uint32(a.dir))
		}
	}
	if err := ValidateTensor("InputTensor", a.in, minRank, maxRank, false); err != nil {
		return err
	}
	if err := ValidateTensor("OutputTensor", a.out, minRank, maxRank, true); err != nil {
		return err
	}
	if CheckType("InputTensor", a.in.DataType, inTypes) != nil {
		return hresult.InvalidArg("InputTensor.DataType", "%v is not supported by %s at feature level %v (supported: %v)", a.in.DataType, a.typ, lvl, inTypes)
	}
	if err := CheckType("OutputTensor", a.out.DataType, outTypes); err != nil {
		return err
	}
	block, err := a.validateShape()
	if err != nil {
		return err
	}
	// An INT32 index cannot hold positions from 2^31 on. DirectML is
	// silent; vkdml refuses the operator rather than wrap (the rule is
	// vkdml's, documented in semantics.md's spirit: indices are exact).
	if a.out.DataType == tensor.Int32 && block > math.MaxInt32+1 {
		return hresult.InvalidArg("OutputTensor.DataType", "INT32 cannot hold every index of a block of %d reduced elements (the largest is %d > 2^31-1); use UINT32, INT64 or UINT64", block, block-1)
	}
	return nil
}

// validateShape applies the rules every reduction shares to the shapes:
// equal ranks, axes inside the rank (a duplicate acts once, semantics.md
// rule 2) and output sizes of 1 on the reduced axes and the input's on the
// others. It returns the elements of one block.
func (a *argOp) validateShape() (block uint64, err error) {
	rank := a.in.Rank()
	if a.out.Rank() != rank {
		return 0, hresult.InvalidArg("OutputTensor.DimensionCount", "%d must equal InputTensor.DimensionCount %d (the rank is preserved)", a.out.Rank(), rank)
	}
	reduced := make([]bool, rank)
	for i, ax := range a.axes {
		if ax >= uint32(rank) {
			return 0, hresult.InvalidArg(fmt.Sprintf("Axes[%d]", i), "axis %d is not in [0, InputTensor.DimensionCount-1] = [0,%d]", ax, rank-1)
		}
		reduced[ax] = true // duplicates act once (semantics.md rule 2)
	}
	block = 1
	for i := 0; i < rank; i++ {
		want := a.in.Sizes[i]
		if reduced[i] {
			want = 1
			block *= uint64(a.in.Sizes[i])
		}
		if a.out.Sizes[i] != want {
			if reduced[i] {
				return 0, hresult.InvalidArg(fmt.Sprintf("OutputTensor.Sizes[%d]", i), "is %d; axis %d is reduced, so it must be 1", a.out.Sizes[i], i)
			}
			what := "is not in Axes"
			if len(a.axes) == 0 {
				what = "is kept: with AxisCount = 0 the output sizes must equal the input sizes"
			}
			return 0, hresult.InvalidArg(fmt.Sprintf("OutputTensor.Sizes[%d]", i), "is %d but must equal InputTensor.Sizes[%d] = %d: axis %d %s", a.out.Sizes[i], i, want, i, what)
		}
	}
	return block, nil
}

// reducedAxes returns a mask of the reduced dimensions.
func (a *argOp) reducedAxes() []bool {
	r := make([]bool, a.in.Rank())
	for _, ax := range a.axes {
		r[ax] = true
	}
	return r
}
