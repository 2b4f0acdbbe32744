// REDUCE's value functions: MAX and MIN on every type, SUM, MULTIPLY, L1
// and SUM_SQUARE on the 32- and 64-bit integers, a case per function x
// type x rule of docs/semantics.md's REDUCE rules (NaN, signed zero,
// infinities, the types' extremes, wrap-around, AxisCount = 0), random
// multi-axis blocks, and the combinations DirectML rejects. They come
// last, so that the cases before them keep their inputs.

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// bits sets the logical elements from raw bit patterns (row-major).
func bits(vals ...uint64) func(*tensor.Tensor, []uint32, int) {
	return func(t *tensor.Tensor, c []uint32, i int) { t.SetBits(c, vals[i]) }
}

var reduceIntTypes = []tensor.DataType{tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64}

// reduceValue adds a REDUCE of fn over axes of a packed dt input of sizes
// with the raw values vals; the output has the input's type.
func (g *gen) reduceValue(name, fn string, covers []string, dt tensor.DataType, sizes, axes []uint32, set func(*tensor.Tensor, []uint32, int)) {
	g.arg(argSpec{name: name, op: "REDUCE", fn: fn, covers: covers,
		in: desc(dt, sizes, nil), out: argOut(dt, sizes, axes), axes: axes}, set)
}

// typeBits is v's bits in dt (v a value dt holds exactly, or ±Inf/NaN for
// floats).
func typeBits(dt tensor.DataType, v float64) uint64 {
	t := tensor.New(dt, 1)
	t.SetFloat64([]uint32{0}, v)
	return t.Bits(0)
}

func (g *gen) reduceValues() {
	for _, fn := range []string{"MAX", "MIN"} {
		for _, dt := range tensor.AllTypes {
			g.reduceExtremeRules(fn, dt)
		}
	}
	for _, fn := range []string{"SUM", "MULTIPLY", "L1", "SUM_SQUARE"} {
		for _, dt := range reduceIntTypes {
			g.reduceWrapRules(fn, dt)
		}
	}
	g.reduceRejects()
}

// reduceExtremeRules: NaN at the first, a middle and the last position and
// a block of NaN only (two NaN payloads: which one DirectML returns), the
// sign of equal zeros, infinities as values, the type's extremes, random
// ties over two axes, and AxisCount = 0.
func (g *gen) reduceExtremeRules(fn string, dt tensor.DataType) {
	base := "reduce_" + lower(fn) + "_" + lower(dt.String())
	lo, hi := typeRange(dt)
	if dt.IsFloat() {
		nan, nan2 := reduceNaNBits(dt)
		one, three, negz := typeBits(dt, 1), typeBits(dt, 3), typeBits(dt, math.Copysign(0, -1))
		ninf, pinf := typeBits(dt, math.Inf(-1)), typeBits(dt, math.Inf(1))
		g.reduceValue(base+"_nan_positions", fn, []string{"rule 23"}, dt, u32(4, 3), u32(1),
			bits(nan, one, three, one, nan, three, one, three, nan, nan, nan2, nan))
		g.reduceValue(base+"_signed_zero", fn, []string{"rule 24"}, dt, u32(3, 2), u32(1),
			bits(negz, 0, 0, negz, negz, negz))
		g.reduceValue(base+"_infinities", fn, []string{"rule 25"}, dt, u32(3, 2), u32(1),
			bits(ninf, ninf, pinf, pinf, ninf, nan))
		// AxisCount = 0 over NaN, ±0 and ±inf: one-element blocks.
		g.reduceValue(base+"_no_axes_specials", fn, []string{"rule 2", "rule 23"}, dt, u32(2, 3), nil,
			bits(nan, nan2, negz, 0, ninf, pinf))
	}
	lb, hb := typeBits(dt, lo), typeBits(dt, hi)
	g.reduceValue(base+"_extremes", fn, []string{"rule 25"}, dt, u32(2, 3), u32(1),
		bits(lb, hb, typeBits(dt, 0), hb, lb, lb))
	g.reduceValue(base+"_random_axes02", fn, []string{"rule 1"}, dt, u32(3, 4, 5), u32(0, 2), g.draw(dt, true))
	g.reduceValue(base+"_no_axes", fn, []string{"rule 2"}, dt, u32(2, 3), nil, g.draw(dt, true))
}

// reduceNaNBits are two NaNs of dt: the quiet NaN and a negative one with
// a payload.
func reduceNaNBits(dt tensor.DataType) (uint64, uint64) {
	if dt == tensor.Float16 {
		return 0x7e00, 0xfe01
	}
	return 0x7fc00000, 0xffc00001
}

// reduceWrapRules: the wrap-around examples of the issue at every width
// (the largest value plus one, products of 2^16, |INT_MIN| in L1, squares
// past 2^n), random values over two axes, and AxisCount = 0.
func (g *gen) reduceWrapRules(fn string, dt tensor.DataType) {
	base := "reduce_" + lower(fn) + "_" + lower(dt.String())
	nb := 8 * dt.Size()
	mask := ^uint64(0) >> (64 - nb)
	sign := uint64(1) << (nb - 1)
	// Rows: max + 1; min + (-1); 2^(n/2) x 2^(n/2) x 3; the sign bit alone
	// and with 1; -3 and 4 (all-ones - 2 for unsigned types).
	half := uint64(1) << (nb / 2)
	vals := []uint64{
		mask >> 1, 1, 0,
		sign, mask, 1,
		half, half, 3,
		sign, 1, 1,
		mask - 2, 4, 1,
	}
	if fn == "MULTIPLY" {
		vals[2], vals[5], vals[11], vals[14] = 1, 1, 1, 1
	}
	g.reduceValue(base+"_wrap", fn, []string{"rule 26"}, dt, u32(5, 3), u32(1), bits(vals...))
	g.reduceValue(base+"_random_axes02", fn, []string{"rule 1", "rule 26"}, dt, u32(3, 4, 5), u32(0, 2), g.draw(dt, false))
	g.reduceValue(base+"_no_axes", fn, []string{"rule 2"}, dt, u32(2, 3), nil, g.draw(dt, false))
}

// reduceRejects: the combinations DirectML refuses with E_INVALIDARG
// (a function on a type outside its table, an output type other than the
// input's, output sizes that are not the reduced ones).
func (g *gen) reduceRejects() {
	for _, r := range []struct {
		name, fn string
		in, out  tensor.DataType
		outSizes []uint32
	}{
		{"sum_int8", "SUM", tensor.Int8, tensor.Int8, u32(2, 1)},
		{"l1_uint16", "L1", tensor.UInt16, tensor.UInt16, u32(2, 1)},
		{"sum_square_int16", "SUM_SQUARE", tensor.Int16, tensor.Int16, u32(2, 1)},
		{"average_int32", "AVERAGE", tensor.Int32, tensor.Int32, u32(2, 1)},
		{"max_output_type", "MAX", tensor.Float32, tensor.UInt32, u32(2, 1)},
		{"sum_output_type", "SUM", tensor.Int32, tensor.Int64, u32(2, 1)},
		{"min_output_sizes", "MIN", tensor.Int32, tensor.Int32, u32(2, 3)},
	} {
		g.arg(argSpec{name: fmt.Sprintf("reject_reduce_%s", r.name), op: "REDUCE", fn: r.fn, covers: []string{"rule 27"},
			in: desc(r.in, u32(2, 3), nil), out: desc(r.out, r.outSizes, nil), axes: u32(1), expect: "E_INVALIDARG"},
			floats(iota(6)...))
	}
}
