package ops

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// valueFunc is what a reduction computes: reduce.glsl's FUNC, the value
// the reduction kernels take as a specialization constant.
type valueFunc uint32

const (
	funcIndex     valueFunc = iota // ARGMAX / ARGMIN: the index
	funcExtreme                    // REDUCE MAX, or MIN (argOp.isMin)
	funcSum                        // REDUCE SUM
	funcMultiply                   // REDUCE MULTIPLY
	funcL1                         // REDUCE L1: the sum of |x|
	funcSumSquare                  // REDUCE SUM_SQUARE: the sum of x*x
	funcFloat                      // REDUCE's float functions: an exact sum (argOp.floatFn, reduce_float.go)
)

// reduceValueFuncs maps REDUCE's exact value functions to the kernels'.
var reduceValueFuncs = map[ReduceFunction]valueFunc{
	ReduceFunctionMax: funcExtreme, ReduceFunctionMin: funcExtreme,
	ReduceFunctionSum: funcSum, ReduceFunctionMultiply: funcMultiply,
	ReduceFunctionL1: funcL1, ReduceFunctionSumSquare: funcSumSquare,
}

// subgroups: may a's kernels combine lanes with subgroup arithmetic? Not
// for 64-bit MULTIPLY, whose subgroup product would be exact modulo 2^32
// only (reduce_group.glsl).
func (a *argOp) subgroups(ctx *Context) bool {
	return ctx.Features.SubgroupArithmetic && !(a.value == funcMultiply && a.in.DataType.Size() == 8) && a.value != funcFloat
}

// valueLog is reduce_part.glsl's VAL_LOG: log2 of a value function's output
// element bytes (0 for the index).
func (a *argOp) valueLog() uint32 {
	if a.value == funcIndex {
		return 0
	}
	return uint32(bits.TrailingZeros(uint(a.out.DataType.Size())))
}

// valueOp is REDUCE with a value function: ARGMAX's planner and kernels
// with a value in place of the index (reduce_part.glsl), its own type
// tables and reference; the float functions are valueOps of value
// funcFloat (reduce_float.go).
type valueOp struct {
	*argOp
	fn          ReduceFunction
	implemented bool
}

func newValueOp(o *Reduce) *valueOp {
	value, ok := reduceValueFuncs[o.Function]
	if o.Input.DataType.IsFloat() && reduceFloatFuncs[o.Function] {
		value, ok = funcFloat, true
	}
	return &valueOp{fn: o.Function, implemented: ok, argOp: &argOp{typ: "REDUCE", in: &o.Input, out: &o.Output, axes: o.Axes,
		isMin: o.Function == ReduceFunctionMin, reduce: true, value: value, floatFn: o.Function}}
}

// unsupported says why vkdml does not compute v, or nil when it does:
// since every float function has a kernel (issue 32), only a function and
// type pair that validate refuses first (AVERAGE of an integer), which
// reference may still be handed.
func (v *valueOp) unsupported() error {
	if !v.implemented {
		return hresult.Unsupported("Function", "%v is not implemented by vkdml (REDUCE computes ARGMAX, ARGMIN, MAX, MIN, SUM, MULTIPLY, L1 and SUM_SQUARE of integers, and %s of floats)", v.fn, reduceFloatFuncNames())
	}
	if v.value != funcExtreme && v.value != funcFloat && v.in.DataType.IsFloat() {
		return hresult.Unsupported("Function", "%v of %v is not implemented by vkdml yet (its integer types are)", v.fn, v.in.DataType)
	}
	return nil
}

// plan is the reduction planner's, for the functions vkdml computes.
func (v *valueOp) plan(ctx *Context) (*Plan, error) {
	if err := v.unsupported(); err != nil {
		return nil, err
	}
	return v.argOp.plan(ctx)
}

var (
	reduceFloats   = []tensor.DataType{tensor.Float32, tensor.Float16}
	reduceInts32   = []tensor.DataType{tensor.Int32, tensor.UInt32}
	reduceInts3264 = []tensor.DataType{tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64}
)

// reduceValueTypes is DirectML's input (and output) types of function f at
// feature level lvl (the DML_REDUCE_FUNCTION and DML_REDUCE_OPERATOR_DESC
// pages, DirectML 1.8's release notes): FLOAT32 and FLOAT16 from 1.0; MAX,
// MIN, SUM and MULTIPLY add INT32 and UINT32 at 2.1; MAX and MIN add the
// 8- and 16-bit integers at 3.0 and the 64-bit ones at 5.0; SUM,
// MULTIPLY, L1 and SUM_SQUARE have INT32, UINT32, INT64 and UINT64 at 5.0;
// AVERAGE, L2, LOG_SUM and LOG_SUM_EXP stay FLOAT32 and FLOAT16.
func reduceValueTypes(f ReduceFunction, lvl FeatureLevel) []tensor.DataType {
	extreme := f == ReduceFunctionMax || f == ReduceFunctionMin
	integer := extreme || f == ReduceFunctionSum || f == ReduceFunctionMultiply || f == ReduceFunctionL1 || f == ReduceFunctionSumSquare
	switch {
	case lvl < FeatureLevel2_1 || !integer:
		return reduceFloats
	case extreme && lvl >= FeatureLevel5_0:
		return tensor.AllTypes
	case extreme && lvl >= FeatureLevel3_0:
		return argInputTypes30
	case lvl >= FeatureLevel5_0:
		return append(append([]tensor.DataType(nil), reduceFloats...), reduceInts3264...)
	case extreme || f == ReduceFunctionSum || f == ReduceFunctionMultiply:
		return append(append([]tensor.DataType(nil), reduceFloats...), reduceInts32...)
	}
	return reduceFloats
}

// validate applies DirectML's rules: the rank (4 before feature level 3.0,
// 1 to 8 from it), the function's types at the level, equal input and
// output types, and the shapes every reduction shares. vkdml computes
// every function on every type DirectML has (unsupported is left for a
// function and type pair it does not name).
func (v *valueOp) validate(ctx *Context) error {
	lvl := ctx.FeatureLevel
	minRank, maxRank := 1, argMaxRank
	if lvl < FeatureLevel3_0 {
		minRank, maxRank = 4, 4
	}
	if err := ValidateTensor("InputTensor", v.in, minRank, maxRank, false); err != nil {
		return err
	}
	if err := ValidateTensor("OutputTensor", v.out, minRank, maxRank, true); err != nil {
		return err
	}
	types := reduceValueTypes(v.fn, lvl)
	if CheckType("InputTensor", v.in.DataType, types) != nil {
		return hresult.InvalidArg("InputTensor.DataType", "%v is not supported by REDUCE %v at feature level %v (supported: %v)", v.in.DataType, v.fn, lvl, types)
	}
	if v.out.DataType != v.in.DataType {
		return hresult.InvalidArg("OutputTensor.DataType", "%v must equal InputTensor.DataType %v (REDUCE %v keeps the type)", v.out.DataType, v.in.DataType, v.fn)
	}
	if _, err := v.validateShape(); err != nil {
		return err
	}
	return v.unsupported()
}

// reference is the CPU oracle, written from semantics.md's REDUCE rules
// and not from the kernels: for each output element it walks the block in
// row-major order (rule 1) and folds the elements literally. MAX and MIN
// skip NaN and replace the result by every later element that compares
// greater or equal (MAX) / less or equal (MIN) with the language's own
// comparisons (-0 == +0, so the later zero wins); a block of NaN only
// gives -inf (MAX) or +inf (MIN). SUM, MULTIPLY, L1 and SUM_SQUARE of integers are
// computed in uint64 and kept modulo 2^n, as the integers wrap. It writes
// only the addressed output elements.
func (v *valueOp) reference(inputs, outputs []*tensor.Tensor) error {
	if len(inputs) != 1 || len(outputs) != 1 {
		return fmt.Errorf("REDUCE reference: want 1 input and 1 output, got %d and %d", len(inputs), len(outputs))
	}
	if err := v.unsupported(); err != nil {
		return err
	}
	in, out := inputs[0], outputs[0]
	dt := v.in.DataType
	read := argRawReader(in.Data, dt)
	fold := v.fold()
	var bsizes, bstrides []uint64
	reduced := v.reducedAxes()
	istr := v.in.EffectiveStrides()
	for i, r := range reduced {
		if r {
			bsizes = append(bsizes, uint64(v.in.Sizes[i]))
			bstrides = append(bstrides, uint64(istr[i]))
		}
	}
	tensor.ForEachIndex(v.out.Sizes, func(c []uint32) {
		var ioff uint64
		for i, x := range c {
			ioff += uint64(x) * uint64(istr[i])
		}
		if v.value == funcFloat {
			out.SetBits(c, v.floatBlock(bsizes, bstrides, ioff, read))
			return
		}
		var acc uint64
		first := true
		argWalkBlock(bsizes, bstrides, ioff, func(off uint64) {
			acc = fold(acc, read(off), first)
			first = false
		})
		if v.value == funcExtreme && dt.IsFloat() && math.IsNaN(float64(argFloat32Of(dt)(acc))) {
			acc = reduceInfinity(dt, !v.isMin)
		}
		out.SetBits(c, acc) // the low bits: modulo 2^n
	})
	return nil
}

// reduceInfinity is the bits of dt's -inf (negative) or +inf.
func reduceInfinity(dt tensor.DataType, negative bool) uint64 {
	inf, sign := uint64(0x7F800000), uint64(0x80000000)
	if dt == tensor.Float16 {
		inf, sign = 0x7C00, 0x8000
	}
	if negative {
		return inf | sign
	}
	return inf
}

// fold is the reference's step: the result so far and the next element's
// raw bits (the first element's with first) give the new result.
func (v *valueOp) fold() func(acc, x uint64, first bool) uint64 {
	dt := v.in.DataType
	nbits := 8 * dt.Size()
	signed := func(x uint64) int64 { return int64(x<<(64-nbits)) >> (64 - nbits) }
	switch v.fn {
	case ReduceFunctionMax, ReduceFunctionMin:
		isNaN := func(x uint64) bool { return false }
		var geq func(c, b uint64) bool // does c replace b?
		switch {
		case dt.IsFloat():
			f := argFloat32Of(dt)
			isNaN = func(x uint64) bool { return f(x) != f(x) }
			geq = func(c, b uint64) bool { return f(c) >= f(b) }
			if v.isMin {
				geq = func(c, b uint64) bool { return f(c) <= f(b) }
			}
		case dt.IsSigned():
			geq = func(c, b uint64) bool { return signed(c) >= signed(b) }
			if v.isMin {
				geq = func(c, b uint64) bool { return signed(c) <= signed(b) }
			}
		default:
			geq = func(c, b uint64) bool { return c >= b }
			if v.isMin {
				geq = func(c, b uint64) bool { return c <= b }
			}
		}
		return func(acc, x uint64, first bool) uint64 {
			switch {
			case first, isNaN(acc):
				return x // a NaN so far gives way to any later element
			case isNaN(x):
				return acc
			case geq(x, acc):
				return x
			}
			return acc
		}
	case ReduceFunctionMultiply:
		return func(acc, x uint64, first bool) uint64 {
			if first {
				return x
			}
			return acc * x
		}
	}
	term := func(x uint64) uint64 { return x }
	switch v.fn {
	case ReduceFunctionL1:
		if dt.IsSigned() {
			term = func(x uint64) uint64 {
				if s := signed(x); s < 0 {
					return uint64(-s) // |INT_MIN| wraps to INT_MIN
				}
				return x
			}
		}
	case ReduceFunctionSumSquare:
		term = func(x uint64) uint64 { return x * x }
	}
	return func(acc, x uint64, first bool) uint64 {
		if first {
			return term(x)
		}
		return acc + term(x)
	}
}
