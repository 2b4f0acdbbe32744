package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// ReduceFunction is DML_REDUCE_FUNCTION, with DirectML's values.
type ReduceFunction uint32

// DirectML's reduce functions.
const (
	ReduceFunctionArgMax    ReduceFunction = 0
	ReduceFunctionArgMin    ReduceFunction = 1
	ReduceFunctionAverage   ReduceFunction = 2
	ReduceFunctionL1        ReduceFunction = 3
	ReduceFunctionL2        ReduceFunction = 4
	ReduceFunctionLogSum    ReduceFunction = 5
	ReduceFunctionLogSumExp ReduceFunction = 6
	ReduceFunctionMax       ReduceFunction = 7
	ReduceFunctionMin       ReduceFunction = 8
	ReduceFunctionMultiply  ReduceFunction = 9
	ReduceFunctionSum       ReduceFunction = 10
	ReduceFunctionSumSquare ReduceFunction = 11
)

var reduceFunctionNames = [...]string{"ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"}

// String is DirectML's name, e.g. DML_REDUCE_FUNCTION_ARGMAX.
func (f ReduceFunction) String() string {
	if int(f) < len(reduceFunctionNames) {
		return "DML_REDUCE_FUNCTION_" + reduceFunctionNames[f]
	}
	return fmt.Sprintf("DML_REDUCE_FUNCTION(%d)", uint32(f))
}

// Reduce is DML_REDUCE_OPERATOR_DESC. Each function has its own
// implementation (reduceImpl), chosen by Function. vkdml implements the
// ARGMAX and ARGMIN functions (deprecated by DirectML at feature level 3.0
// in favour of the standalone operators, and equal to them with INCREASING
// direction, with REDUCE's own feature-level tables), and the exact value
// functions (reduce_values.go): MAX and MIN on every type, SUM, MULTIPLY,
// L1 and SUM_SQUARE on the integer types; and the float functions
// (reduce_float.go, semantics.md rules 39-44): every function on FLOAT32
// and FLOAT16, the sums exact, MULTIPLY in one canonical tree.
//
// A new function adds a case to impl, its own file with validate, plan
// and reference, and, when its results may differ from the reference by
// rounding (SUM, AVERAGE, L2, ...), a Tolerance for its output
// (Toleranced).
type Reduce struct {
	Function ReduceFunction
	Input    tensor.Desc
	Output   tensor.Desc
	Axes     []uint32
}

// reduceImpl is one REDUCE function's validation, plan and reference.
type reduceImpl interface {
	validate(ctx *Context) error
	plan(ctx *Context) (*Plan, error)
	reference(inputs, outputs []*tensor.Tensor) error
}

// impl returns the implementation of o.Function, or the error that says
// why there is none.
func (o *Reduce) impl() (reduceImpl, error) {
	switch o.Function {
	case ReduceFunctionArgMax, ReduceFunctionArgMin:
		return &argOp{typ: "REDUCE", in: &o.Input, out: &o.Output, axes: o.Axes, isMin: o.Function == ReduceFunctionArgMin, reduce: true}, nil
	}
	if int(o.Function) >= len(reduceFunctionNames) {
		return nil, hresult.InvalidArg("Function", "%d is not a DML_REDUCE_FUNCTION (0..%d)", uint32(o.Function), len(reduceFunctionNames)-1)
	}
	return newValueOp(o), nil
}

// OperatorType is "REDUCE".
func (*Reduce) OperatorType() string { return "REDUCE" }

// Inputs is [InputTensor].
func (o *Reduce) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputTensor].
func (o *Reduce) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// Validate applies the rules of o.Function.
func (o *Reduce) Validate(ctx *Context) error {
	f, err := o.impl()
	if err != nil {
		return err
	}
	return f.validate(ctx)
}

// Plan plans o.Function's kernels.
func (o *Reduce) Plan(ctx *Context) (*Plan, error) {
	f, err := o.impl()
	if err != nil {
		return nil, err
	}
	return f.plan(ctx)
}

// Reference computes o.Function on the CPU.
func (o *Reduce) Reference(inputs, outputs []*tensor.Tensor) error {
	f, err := o.impl()
	if err != nil {
		return err
	}
	return f.reference(inputs, outputs)
}
