// The 16-bit cases: FLOAT16, INT16 and UINT16 in every operator family and
// every rule the 32-bit cases cover, each type's special values, the
// FLOAT16 windows where DirectML's 32-bit compare shows, and the INT64
// values DirectML orders wrongly. They come after every other case, so
// that adding them changed none of the cases before them (the random
// source is shared).

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

var types16 = []tensor.DataType{tensor.Float16, tensor.Int16, tensor.UInt16}

func (g *gen) sixteenBit() {
	for _, dt := range types16 {
		g.argRules16(dt)
		g.poolRules16(dt)
		g.specials16(dt)
	}
	g.fp16NoWinner()
	for _, dt := range []tensor.DataType{tensor.Int16, tensor.UInt16} {
		for _, fn := range []string{"ARGMAX", "ARGMIN"} {
			sizes := g.sizes(4, 200)
			axes := u32(1, 3)
			g.arg(argSpec{name: fmt.Sprintf("random_reduce_%s_%s", lower(fn), lower(dt.String())), op: "REDUCE", fn: fn,
				covers: []string{"random", "rule 4"}, in: desc(dt, sizes, nil), out: argOut(tensor.UInt32, sizes, axes), axes: axes}, g.draw(dt, true))
		}
	}
	g.int64LowWordStraddle()
}

// fit shifts vals into dt's range: for an unsigned type, by minus the
// smallest value when that is negative. The order, and so the answer's
// indices, stay the same.
func fit(dt tensor.DataType, vals []float64) []float64 {
	lo := 0.0
	for _, v := range vals {
		lo = math.Min(lo, v)
	}
	if dt.IsSigned() || dt.IsFloat() || lo == 0 {
		return vals
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v - lo
	}
	return out
}

// argRules16 adds the ARGMAX, ARGMIN and REDUCE rule cases (rules 1-6 and
// 12-14) at dt, named as the 32-bit ones with the type appended.
func (g *gen) argRules16(dt tensor.DataType) {
	s := "_" + lower(dt.String())
	u := tensor.UInt32
	sizes := u32(2, 3, 4)
	rv := fit(dt, ruleValues(24))
	g.arg(argSpec{name: "rule01_block_index_axes02" + s, op: "ARGMAX", covers: []string{"rule 1"},
		in: desc(dt, sizes, nil), out: argOut(u, sizes, u32(0, 2)), axes: u32(0, 2)}, floats(rv...))
	g.arg(argSpec{name: "rule01_strided_input_transposed" + s, op: "ARGMAX", covers: []string{"rule 1"},
		in: desc(dt, sizes, u32(1, 2, 6)), out: argOut(u, sizes, u32(1, 2)), axes: u32(1, 2)}, floats(rv...))
	g.arg(argSpec{name: "rule01_strided_input_gaps_argmin" + s, op: "ARGMIN", covers: []string{"rule 1"},
		in: desc(dt, sizes, u32(20, 6, 1)), out: argOut(u, sizes, u32(0, 1)), axes: u32(0, 1)}, floats(rv...))

	in33 := desc(dt, u32(3, 3), nil)
	for _, a := range []struct {
		name string
		axes []uint32
	}{{"unsorted_10", u32(1, 0)}, {"duplicate_001", u32(0, 0, 1)}} {
		g.arg(argSpec{name: "rule02_axes_" + a.name + s, op: "ARGMAX", covers: []string{"rule 2"},
			in: in33, out: argOut(u, u32(3, 3), a.axes), axes: a.axes}, floats(seedInput...))
	}
	g.arg(argSpec{name: "rule02_axiscount0_null" + s, op: "ARGMIN", covers: []string{"rule 2"}, note: "Axes = NULL",
		in: in33, out: desc(u, u32(3, 3), nil), axes: nil}, floats(seedInput...))
	g.arg(argSpec{name: "rule02_axis_out_of_range" + s, op: "ARGMAX", covers: []string{"rule 2", "rule 14"},
		in: in33, out: desc(u, u32(3, 3), nil), axes: u32(2), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule03_kept_axis_wrong" + s, op: "ARGMIN", covers: []string{"rule 3"},
		in: in33, out: desc(u, u32(2, 1), nil), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))

	// Rule 4: ties in both directions, REDUCE, long rows.
	ties := []float64{2, 7, 7, 1, 7, 0, 7, 3, 7, 7, 1, 1}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		vals := ties
		if op == "ARGMIN" {
			vals = make([]float64, len(ties))
			for i, v := range ties {
				vals[i] = 7 - v // the minimum 0 is tied as the maximum 7 was
			}
		}
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("rule04_ties_%s_%s%s", lower(op), lower(dir), s), op: op, covers: []string{"rule 4"},
				in: desc(dt, u32(2, 2, 3), nil), out: argOut(u, u32(2, 2, 3), u32(1, 2)), axes: u32(1, 2), dir: dir}, floats(vals...))
		}
		g.arg(argSpec{name: "rule04_ties_reduce_" + lower(op) + s, op: "REDUCE", fn: op, covers: []string{"rule 4"},
			in: desc(dt, u32(2, 2, 3), nil), out: argOut(u, u32(2, 2, 3), u32(1, 2)), axes: u32(1, 2)}, floats(vals...))
	}
	long := make([]float64, 2*2000)
	for i := range long {
		long[i] = float64(g.rng.Intn(3))
	}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("rule04_long_rows_ties_%s_%s%s", lower(op), lower(dir), s), op: op, covers: []string{"rule 4"},
				note: "rows of 2000 with values in {0,1,2}",
				in:   desc(dt, u32(2, 2000), nil), out: argOut(u, u32(2, 2000), u32(1)), axes: u32(1), dir: dir}, floats(long...))
		}
	}

	// Rule 5: NaN and signed zero (FLOAT16); the type's extremes in short
	// rows (integers).
	var rows [][]float64
	note := ""
	if dt.IsFloat() {
		nan, nz := math.NaN(), math.Copysign(0, -1)
		rows = [][]float64{{1, nan, 3}, {nan, 1, 2}, {1, 2, nan}, {nan, nan, nan}, {2, nan, 5}, {nan, 5, 1}, {0, nz, 0}, {nz, 0, nz}}
		note = "rows [1,NaN,3] [NaN,1,2] [1,2,NaN] [NaN,NaN,NaN] [2,NaN,5] [NaN,5,1] [0,-0,0] [-0,0,-0]"
	} else {
		lo, hi := typeRange(dt)
		rows = [][]float64{{lo, hi, lo}, {hi, lo, hi}, {lo, lo, lo}, {hi, hi, hi}, {lo + 1, lo, hi - 1}, {hi - 1, hi, lo}}
		note = "rows of the type's extremes, with ties"
	}
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("rule05_short_rows_%s_%s%s", lower(op), lower(dir), s), op: op, covers: []string{"rule 5"},
				note: note, in: desc(dt, u32(uint32(len(rows)), 3), nil), out: argOut(u, u32(uint32(len(rows)), 3), u32(1)), axes: u32(1), dir: dir}, floats(flat...))
		}
	}

	rv12 := fit(dt, ruleValues(12))
	g.arg(argSpec{name: "rule06_strided_output_gaps" + s, op: "ARGMAX", covers: []string{"rule 6"},
		note: "output strides {2,1}: the odd elements keep the fill",
		in:   desc(dt, u32(4, 3), nil), out: desc(u, u32(4, 1), u32(2, 1)), axes: u32(1)}, floats(rv12...))
	g.arg(argSpec{name: "rule12_size_rounded_up" + s, op: "ARGMIN", covers: []string{"rule 12"},
		note: "3 elements of 2 bytes: TotalTensorSizeInBytes is 8",
		in:   desc(dt, u32(1, 3), nil), out: argOut(u, u32(1, 3), u32(1)), axes: u32(1)}, floats(fit(dt, []float64{5, -3, 7})...))
	g.arg(argSpec{name: "rule12_total_size_too_small" + s, op: "ARGMAX", covers: []string{"rule 12", "rule 14"},
		in: parity.Tensor{DataType: dt.String(), Sizes: u32(3, 3), TotalTensorSizeInBytes: 16}, out: argOut(u, u32(3, 3), u32(1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule13_broadcast_input" + s, op: "ARGMAX", covers: []string{"rule 13"},
		note: "input strides {0,1}: every row is the same 4 values",
		in:   desc(dt, u32(3, 4), u32(0, 1)), out: argOut(u, u32(3, 4), u32(0)), axes: u32(0)}, floats(rv12...))
	g.arg(argSpec{name: "rule14_bad_axis_direction" + s, op: "ARGMAX", covers: []string{"rule 14"},
		in: in33, out: argOut(u, u32(3, 3), u32(1)), axes: u32(1), dir: "2", expect: "E_INVALIDARG"}, floats(seedInput...))
}

// poolRules16 adds the max-pooling rule cases (rules 7-11 and 13) at dt.
func (g *gen) poolRules16(dt tensor.DataType) {
	s := "_" + lower(dt.String())
	u := tensor.UInt32
	in44 := desc(dt, u32(1, 1, 4, 4), nil)
	for _, ext := range [][]uint32{{3, 3}, {5, 5}} {
		out, idx := poolOut(dt, u, u32(1, 1, ext[0], ext[1]))
		g.pool(poolSpec{name: fmt.Sprintf("rule07_extent_%dx%d_dilation2%s", ext[0], ext[1], s), op: "MAX_POOLING2",
			covers: []string{"rule 7", "rule 8"},
			in:     in44, out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(2, 2)}, floats(iota(16)...))
	}
	out, idx := poolOut(dt, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule07_ceil_extent" + s, op: "MAX_POOLING1", covers: []string{"rule 7"},
		in: desc(dt, u32(1, 1, 5, 5), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)}, floats(iota(25)...))
	vals := fit(dt, poolRuleValues())
	out, idx = poolOut(dt, u, u32(2, 3, 3, 3))
	g.pool(poolSpec{name: "rule08_window_taps_asymmetric" + s, op: "MAX_POOLING2", covers: []string{"rule 8"},
		in: desc(dt, u32(2, 3, 5, 6), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 3), start: u32(1, 0), end: u32(0, 2), dil: u32(2, 1)}, floats(vals...))

	// Rule 9.
	out, idx = poolOut(dt, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule09_all_padding_windows" + s, op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(dt, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(1, 2, 3, 4))
	out22, idx22 := poolOut(dt, u, u32(1, 1, 2, 2))
	g.pool(poolSpec{name: "rule09_ties_keep_first_tap" + s, op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(dt, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(5, 5, 5, 5, 5, 1, 0, 5, 5))
	lo, hi := typeRange(dt)
	if dt.IsFloat() {
		nan, ninf, nz := math.NaN(), math.Inf(-1), math.Copysign(0, -1)
		g.pool(poolSpec{name: "rule09_all_minus_inf" + s, op: "MAX_POOLING2", covers: []string{"rule 9"},
			in: desc(dt, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(1, 1), end: u32(1, 1), dil: u32(1, 1)}, floats(ninf, ninf, ninf, ninf))
		g.pool(poolSpec{name: "rule09_nan_in_window" + s, op: "MAX_POOLING2", covers: []string{"rule 9"},
			in: desc(dt, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(nan, 1, 2, 3, nan, 0, -1, 4, nan))
		g.pool(poolSpec{name: "rule09_signed_zero_ties" + s, op: "MAX_POOLING2", covers: []string{"rule 9", "rule 11a"},
			in: desc(dt, u32(1, 1, 2, 2), nil), out: desc(dt, u32(1, 1, 1, 1), nil), idx: ptr(desc(u, u32(1, 1, 1, 1), nil)), strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(nz, 0, 0, nz))
	} else {
		g.pool(poolSpec{name: "rule09_extremes" + s, op: "MAX_POOLING2", covers: []string{"rule 9"},
			note: "windows of the type's lowest and highest values, with ties",
			in:   desc(dt, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(lo, lo, hi, lo, lo, hi, lo, hi, lo))
	}

	// Rule 10.
	out, idx = poolOut(dt, u, u32(1, 2, 1, 1))
	g.pool(poolSpec{name: "rule10_nhwc_strides_indices" + s, op: "MAX_POOLING2", covers: []string{"rule 10"},
		note: "physical values 0..7 in NHWC order",
		in:   desc(dt, u32(1, 2, 2, 2), u32(8, 1, 4, 2)), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)},
		func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, float64(t.Desc.Offset(c))) })
	out, idx = poolOut(dt, tensor.UInt64, u32(2, 3, 2, 2))
	g.pool(poolSpec{name: "rule10_uint64_indices" + s, op: "MAX_POOLING2", covers: []string{"rule 10"},
		in: desc(dt, u32(2, 3, 3, 3), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(fit(dt, poolRuleValues()[:54])...))

	// Rule 11: 5D, MAX_POOLING, and types that must be refused.
	out, idx = poolOut(dt, u, u32(1, 2, 2, 2, 2))
	g.pool(poolSpec{name: "rule11_5d" + s, op: "MAX_POOLING2", covers: []string{"rule 11", "rule 8"},
		in: desc(dt, u32(1, 2, 3, 3, 4), nil), out: out, idx: idx, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1), dil: u32(1, 1, 1)}, floats(fit(dt, poolRuleValues()[:72])...))
	g.pool(poolSpec{name: "rule11_5d_max_pooling" + s, op: "MAX_POOLING", covers: []string{"rule 11"},
		in: desc(dt, u32(1, 2, 3, 3, 4), nil), out: out, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1)}, floats(fit(dt, poolRuleValues()[:72])...))
	rej := func(name string, mod func(s *poolSpec)) {
		o, ix := poolOut(dt, u, u32(1, 1, 3, 3))
		sp := poolSpec{name: name + s, op: "MAX_POOLING2", covers: []string{"rule 11", "rule 14"},
			in: in44, out: o, idx: ix, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1), expect: "E_INVALIDARG"}
		mod(&sp)
		g.pool(sp, floats(iota(16)...))
	}
	rej("rule11_output_type_differs", func(sp *poolSpec) { sp.out = desc(tensor.Float32, u32(1, 1, 3, 3), nil) })
	rej("rule11_index_type_int32", func(sp *poolSpec) { sp.idx = ptr(desc(tensor.Int32, u32(1, 1, 3, 3), nil)) })
	rej("rule13_aliasing_pool_output", func(sp *poolSpec) {
		sp.out = desc(dt, u32(1, 1, 3, 3), u32(9, 9, 0, 1))
		sp.covers = []string{"rule 13"}
	})
}

// specials returns dt's special values: for FLOAT16 ±65504, ±0, the
// smallest and largest subnormals, the smallest normal, ±∞ and NaN; for
// the integers their extremes and the values next to them and to 0.
func specials(dt tensor.DataType) []float64 {
	switch dt {
	case tensor.Float16:
		sub, maxSub, minNorm := math.Ldexp(1, -24), math.Ldexp(1, -14)-math.Ldexp(1, -24), math.Ldexp(1, -14)
		return []float64{-65504, 65504, 0, math.Copysign(0, -1), sub, -sub, maxSub, -maxSub, minNorm, math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 65504, -65504}
	case tensor.Int16:
		return []float64{math.MinInt16, math.MaxInt16, math.MinInt16 + 1, math.MaxInt16 - 1, -1, 0, 1, math.MinInt16, math.MaxInt16}
	default:
		return []float64{0, math.MaxUint16, math.MaxUint16 - 1, 1, 1 << 15, 1<<15 - 1, 0, math.MaxUint16}
	}
}

// specials16 adds ARGMAX, ARGMIN and max-pooling cases over dt's special
// values in a random order, repeated so that they tie.
func (g *gen) specials16(dt tensor.DataType) {
	sp := specials(dt)
	pick := func(*tensor.Tensor, []uint32, int) {}
	pick = func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, sp[g.rng.Intn(len(sp))]) }
	s := lower(dt.String())
	note := "the type's special values in a random order"
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("special_%s_%s_%s", lower(op), s, lower(dir)), op: op, covers: []string{"special values", "rule 4", "rule 5"},
				note: note, in: desc(dt, u32(6, 8), nil), out: argOut(tensor.UInt32, u32(6, 8), u32(1)), axes: u32(1), dir: dir}, pick)
		}
	}
	g.arg(argSpec{name: "special_reduce_argmax_" + s, op: "REDUCE", fn: "ARGMAX", covers: []string{"special values", "rule 1"},
		note: note, in: desc(dt, u32(4, 3, 4), nil), out: argOut(tensor.UInt32, u32(4, 3, 4), u32(1, 2)), axes: u32(1, 2)}, pick)
	out, idx := poolOut(dt, tensor.UInt32, u32(2, 2, 6, 6))
	g.pool(poolSpec{name: "special_max_pooling2_" + s, op: "MAX_POOLING2", covers: []string{"special values", "rule 9"},
		note: note, in: desc(dt, u32(2, 2, 5, 5), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(1, 1), end: u32(1, 1), dil: u32(1, 1)}, pick)
	out, _ = poolOut(dt, tensor.UInt32, u32(2, 2, 2, 2))
	g.pool(poolSpec{name: "special_max_pooling_" + s, op: "MAX_POOLING", covers: []string{"special values", "rule 9"},
		note: note, in: desc(dt, u32(2, 2, 5, 5), nil), out: out, strides: u32(2, 2), window: u32(3, 3), start: u32(0, 0), end: u32(0, 0)}, pick)
}

// fp16NoWinner adds FLOAT16 windows without a finite winner before −65504:
// DirectML compares FLOAT16 pooling in 32-bit floats from below −65504, so
// a −65504 after NaN or −∞ takes the index; windows of only NaN and −∞,
// and windows in the padding, keep the first tap (index 0 for padding).
func (g *gen) fp16NoWinner() {
	f16, u := tensor.Float16, tensor.UInt32
	nan, ninf := math.NaN(), math.Inf(-1)
	row := []float64{nan, -65504, ninf, -65504, ninf, ninf, nan, nan, -65504, -65504, ninf, nan, -65504, 3}
	covers := []string{"rule 9", "fact:FLOAT16 pooling compares from below -65504"}
	note := "windows [NaN,-65504] [-inf,-65504] [-inf,-inf] [NaN,NaN] [-65504,-65504] [-inf,NaN] [-65504,3], then one in the padding"
	for _, op := range []string{"MAX_POOLING1", "MAX_POOLING2"} {
		out, idx := poolOut(f16, u, u32(1, 1, 1, 8))
		g.pool(poolSpec{name: "fp16_no_winner_row_" + lower(op), op: op, covers: covers, note: note,
			in: desc(f16, u32(1, 1, 1, 14), nil), out: out, idx: idx, strides: u32(1, 2), window: u32(1, 2), start: u32(0, 0), end: u32(0, 2), dil: u32(1, 1)}, floats(row...))
	}
	out, _ := poolOut(f16, u, u32(1, 1, 1, 8))
	g.pool(poolSpec{name: "fp16_no_winner_row_max_pooling", op: "MAX_POOLING", covers: covers, note: note,
		in: desc(f16, u32(1, 1, 1, 14), nil), out: out, strides: u32(1, 2), window: u32(1, 2), start: u32(0, 0), end: u32(0, 2)}, floats(row...))
	out, idx := poolOut(f16, tensor.UInt64, u32(1, 2, 3, 3))
	g.pool(poolSpec{name: "fp16_no_winner_2d_padding", op: "MAX_POOLING2", covers: covers,
		note: "2x2 windows with padding 1 over NaN, -inf and -65504",
		in:   desc(f16, u32(1, 2, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(1, 1), end: u32(1, 1), dil: u32(1, 1)},
		floats(ninf, nan, nan, -65504, nan, ninf, -65504, ninf))
}

// int64LowWordStraddle adds INT64 cases whose values share a high word
// and whose low words lie on both sides of 2^31: DirectML's INT64 kernel
// compares the low words as signed (semantics.md rule 15), so its answers
// differ from the true order vkdml gives; known-differences.json lists
// them. The same values as UINT64 are ordered right by both.
func (g *gen) int64LowWordStraddle() {
	i64 := tensor.Int64
	// Rows of 3: high word 0, then high word -1 (negative numbers).
	vals := []int64{3, 1<<31 + 5, 7, 1<<31 + 5, 3, 1<<31 + 1, -5, -(1 << 32) + 3, -(1 << 31) - 9, 1<<32 - 1, 1 << 31, 1<<31 - 1}
	set := func(t *tensor.Tensor, c []uint32, i int) { t.SetInt64(c, vals[i]) }
	note := "rows [3, 2^31+5, 7] [2^31+5, 3, 2^31+1] [-5, -2^32+3, -2^31-9] [2^32-1, 2^31, 2^31-1]: equal high words, low words on both sides of 2^31"
	covers := []string{"rule 15"}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		g.arg(argSpec{name: "int64_low_word_straddle_" + lower(op), op: op, covers: covers, note: note,
			in: desc(i64, u32(4, 3), nil), out: argOut(tensor.UInt32, u32(4, 3), u32(1)), axes: u32(1)}, set)
	}
	out, idx := poolOut(i64, tensor.UInt32, u32(1, 4, 1, 1))
	g.pool(poolSpec{name: "int64_low_word_straddle_max_pooling2", op: "MAX_POOLING2", covers: covers, note: note,
		in: desc(i64, u32(1, 4, 1, 3), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 3), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, set)
	uvals := []uint64{3, 1<<31 + 5, 7, 1<<31 + 5, 3, 1<<31 + 1, 1<<32 + 5, 1<<32 + 1<<31, 1<<32 + 9, 1<<32 - 1, 1 << 31, 1<<31 - 1}
	g.arg(argSpec{name: "uint64_low_word_straddle_argmax", op: "ARGMAX", covers: covers, note: "the INT64 straddle rows' pattern as UINT64: ordered right by DirectML",
		in: desc(tensor.UInt64, u32(4, 3), nil), out: argOut(tensor.UInt32, u32(4, 3), u32(1)), axes: u32(1)},
		func(t *tensor.Tensor, c []uint32, i int) { t.SetUint64(c, uvals[i]) })
}
