package ops

import (
	"sort"
	"strings"

	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// REDUCE's float functions on the reduction planner (docs/semantics.md
// rules 39-44): a valueOp of value funcFloat runs ARGMAX's kernels
// compiled with REDUCE_FLOAT (shaders/reduce_part_float.glsl), whose Part
// is the exact accumulator of reduce_float_ref.go, so every plan, lane
// count and segment cut gives the reference's bits. MULTIPLY (rule 42)
// runs reduce_fmul.comp on the same plans, its segments cut at the
// canonical tree's nodes. FLOAT16 columns of SUM, AVERAGE, L1,
// LOG_SUM, SUM_SQUARE, L2 and LOG_SUM_EXP run reduce_half_col.comp where
// vec-col's layout fits (argOp.halfCol); FLOAT16 LOG_SUM_EXP reads its
// terms from a table (reduce_float_exptable.go).

// reduceFloatFuncs are the float functions vkdml computes.
var reduceFloatFuncs = map[ReduceFunction]bool{
	ReduceFunctionSum: true, ReduceFunctionAverage: true, ReduceFunctionL1: true,
	ReduceFunctionSumSquare: true, ReduceFunctionL2: true, ReduceFunctionLogSum: true, ReduceFunctionLogSumExp: true,
	ReduceFunctionMultiply: true,
}

// reduceFloatPartial is the bytes of a float partial: ten limbs, the
// flags and a spare word (reduce_part_float.glsl PART_WORDS).
const reduceFloatPartial = 48

// reduceFloatFuncNames lists reduceFloatFuncs' names, for messages.
func reduceFloatFuncNames() string {
	var names []string
	for f := range reduceFloatFuncs {
		names = append(names, reduceFunctionNames[f])
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// partialBytes is the bytes of one of a's partials.
func (a *argOp) partialBytes() uint64 {
	if a.value == funcFloat {
		return reduceFloatPartial
	}
	return argPartial
}

// reduceFloatCombine is the float functions' combine pass: one invocation
// (or, perGroup, one workgroup) per output; tree: MULTIPLY's, which
// finishes rule 42's tree over the partials in order (hwMul: with the
// hardware's multiply, argOp.hwMul).
func reduceFloatCombine(perGroup, tree, hwMul bool) string {
	hw := ""
	if hwMul {
		hw = shaders.ReduceFmulHW
	}
	switch {
	case tree && perGroup:
		return shaders.ReduceFmulCombineGroup + hw
	case tree:
		return shaders.ReduceFmulCombine + hw
	case perGroup:
		return shaders.ReduceFloatCombineGroup
	}
	return shaders.ReduceFloatCombine
}

// treeOrder: a is MULTIPLY of floats, whose product follows rule 42's
// canonical tree (reduce_fmul.comp), so its segments must be aligned
// nodes of it (argLayout.treeSegmentLen).
func (a *argOp) treeOrder() bool {
	return a.value == funcFloat && a.floatFn == ReduceFunctionMultiply
}

// hwMul: a's tree multiplies natively (reduce_fmul.comp HW_MUL), a
// device fact: the device keeps 32-bit denormals, respects ±0, ±inf and
// NaN and rounds to nearest even when a kernel asks (float controls), so
// its FLOAT32 multiply is IEEE's and gives mul_f32's bits (rule 42).
func (a *argOp) hwMul(ctx *Context) bool {
	return a.treeOrder() && ieeeMul32(ctx)
}

// hwSquare: a's first pass computes the terms x·x of SUM_SQUARE and L2
// of FLOAT32 by the native multiply (the ReduceFloatName variants ending
// in shaders.ReduceFmulHW, reduce_part_float.glsl HW_MUL), the device
// fact hwMul's: the same bits as mul_f32 (rule 41).
func (a *argOp) hwSquare(ctx *Context) bool {
	square := a.floatFn == ReduceFunctionSumSquare || a.floatFn == ReduceFunctionL2
	return a.value == funcFloat && square && a.in.DataType == tensor.Float32 && ieeeMul32(ctx)
}

// halfCol: a's first pass may run a FLOAT16 column kernel, 16-byte
// vectors of 8 adjacent outputs, where the layout fits (argVecLayout's
// "col"), on a device with shaderInt64: reduce_half_col.comp, a 64-bit
// exact sum a column, for SUM, AVERAGE, LOG_SUM and L1 (whose terms are x
// or |x|, rule 41), a 128-bit sum of squares a column for SUM_SQUARE and
// L2 (x·x: shaders/reduce_half.glsl), and LOG_SUM_EXP's table terms
// where the table fits a binding (argOp.expTable: its _exptab variant);
// reduce_fmul.comp COL, each column's tree (rule 42), for MULTIPLY.
func (a *argOp) halfCol(ctx *Context) bool {
	if a.expTable(ctx) {
		// LOG_SUM_EXP's terms from the table (ReduceFloatHalfCol with
		// shaders.ReduceFloatExpTable).
		return ctx.Features.ShaderInt64
	}
	switch a.floatFn {
	case ReduceFunctionSum, ReduceFunctionAverage, ReduceFunctionLogSum, ReduceFunctionL1,
		ReduceFunctionSumSquare, ReduceFunctionL2, ReduceFunctionMultiply:
		return a.value == funcFloat && a.in.DataType == tensor.Float16 && ctx.Features.ShaderInt64
	}
	return false
}

// ieeeMul32: the device keeps 32-bit denormals, respects ±0, ±inf and
// NaN and rounds to nearest even when a kernel asks (float controls), so
// its FLOAT32 multiply is IEEE's.
func ieeeMul32(ctx *Context) bool {
	f := ctx.Features
	return f.DenormPreserveFloat32 && f.SignedZeroInfNanPreserveFloat32 && f.RoundingModeRTEFloat32
}

// floatBlock is the reference's answer for the block at input offset
// ioff: its values widened to FLOAT32 in row-major order, reduced by
// reduceFloatExact.
func (v *valueOp) floatBlock(bsizes, bstrides []uint64, ioff uint64, read func(uint64) uint64) uint64 {
	half := v.in.DataType == tensor.Float16
	var xs []uint32
	argWalkBlock(bsizes, bstrides, ioff, func(off uint64) {
		x := uint32(read(off))
		if half {
			x = halfToFloat32Bits(uint16(x))
		}
		xs = append(xs, x)
	})
	return uint64(reduceFloatExact(v.fn, half, xs))
}

// reduceFloatLaneTerms is the most terms a lane's fixed-point window
// holds (shaders/reduce_part_float.glsl LANE_W): terms below 2^48 units
// in a signed 64-bit sum. A Part folds at most one lane's elements of one
// segment before it is settled, argIters of them (segmentCap with one
// element a trip a lane) and the lane's first, or in the texel variants'
// texel_scan (argmax.comp) up to six more (whole texels rounded up, a
// head and a tail element); TestReduceFloatLaneBound holds the planner
// to it.
const reduceFloatLaneTerms = 1 << 15
