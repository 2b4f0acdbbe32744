// TOP_K and TOP_K1 cases: semantics.md rules 31-36, DirectML's measured
// cases (issue 31), every data type, each kernel regime (short rows, long
// rows cut into segments, K up to and past the sort's 2048), and
// must-reject descs. They come after every other case, so that the random
// values of those stay as they were.

package gen

import (
	"fmt"
	"math"
	"slices"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// topKSpec is one TOP_K/TOP_K1 case.
type topKSpec struct {
	name   string
	covers []string
	note   string
	op     string // TOP_K1 unless set
	in     parity.Tensor
	idx    tensor.DataType
	axis   uint32
	k      uint32
	dir    string
	values func(*tensor.Tensor, []uint32, int)
	expect string
}

func (g *gen) topKCase(s topKSpec) {
	dt, _ := tensor.ParseDataType(s.in.DataType)
	out := slices.Clone(s.in.Sizes)
	if int(s.axis) < len(out) {
		out[s.axis] = s.k
	}
	idx := s.idx
	if idx == tensor.Unknown {
		idx = tensor.UInt32
	}
	op := s.op
	if op == "" {
		op = "TOP_K1"
	}
	dir := s.dir
	if op == "TOP_K1" && dir == "" {
		dir = "DECREASING"
	}
	g.add(parity.Case{Name: s.name, Covers: s.covers, Note: s.note, Operator: op, Input: s.in,
		Output: desc(dt, out, nil), OutputIndices: ptr(desc(idx, out, nil)), Axis: &s.axis, K: &s.k, AxisDirection: dir,
		Expect: s.expect}, buffer(s.in, gapValue(dt, op), s.values))
}

// topK adds every TOP_K case.
func (g *gen) topK() {
	g.topKRules()
	g.topKRegimes()
	g.topKRejects()
}

// topKRules adds the measured cases and one or more cases per rule.
func (g *gen) topKRules() {
	f32, f16 := tensor.Float32, tensor.Float16
	nan, negz := math.NaN(), math.Copysign(0, -1)
	row := func(dt tensor.DataType, n uint32) parity.Tensor { return desc(dt, u32(n), nil) }
	for _, c := range []topKSpec{
		{name: "rule32_decreasing_sorted", covers: []string{"rule 32"}, in: row(f32, 6), k: 4, values: floats(2, 7, -1, 5, 0, 3)},
		{name: "rule32_increasing_sorted", covers: []string{"rule 32"}, in: row(f32, 6), k: 4, dir: "INCREASING", values: floats(2, 7, -1, 5, 0, 3)},
		{name: "rule32_top_k_is_decreasing", covers: []string{"rule 32", "rule 31"}, op: "TOP_K", in: desc(f32, u32(1, 1, 2, 5), nil), axis: 3, k: 3,
			values: floats(2, 7, -1, 5, 0, 3, 3, 1, 9, 4)},
		{name: "rule33_ties_lower_index_decreasing", covers: []string{"rule 33"}, note: "issue 31's measured case: indices [0,2]",
			in: row(f32, 5), k: 2, values: floats(3, 1, 3, 2, 3)},
		{name: "rule33_ties_lower_index_increasing", covers: []string{"rule 33"}, in: row(f32, 5), k: 3, dir: "INCREASING", values: floats(1, 3, 1, 2, 1)},
		{name: "rule33_k1_is_first_maximum", covers: []string{"rule 33"}, note: "K = 1 DECREASING is ARGMAX INCREASING", in: row(f32, 5), k: 1, values: floats(3, 1, 3, 2, 3)},
		{name: "rule34_nan_skipped_decreasing", covers: []string{"rule 34"}, note: "issue 31's measured case: [3,2]", in: row(f32, 4), k: 2, values: floats(1, nan, 3, 2)},
		{name: "rule34_nan_first_skipped_decreasing", covers: []string{"rule 34"}, in: row(f32, 4), k: 2, values: floats(nan, 1, 3, 2)},
		{name: "rule34_nan_first_skipped_increasing", covers: []string{"rule 34"}, note: "issue 31's measured case: [1,2] at [1,3]", in: row(f32, 4), k: 2, dir: "INCREASING", values: floats(nan, 1, 3, 2)},
		{name: "rule34_nan_second_increasing", covers: []string{"rule 34", "rule 38"}, note: "DirectML's defect: it gives [2,3] at [3,2]", in: row(f32, 4), k: 2, dir: "INCREASING", values: floats(1, nan, 3, 2)},
		{name: "rule34_nan_second_increasing_k1", covers: []string{"rule 34", "rule 38"}, in: row(f32, 4), k: 1, dir: "INCREASING", values: floats(1, nan, 3, 2)},
		{name: "rule34_nan_second_increasing_k3", covers: []string{"rule 34", "rule 38"}, in: row(f32, 4), k: 3, dir: "INCREASING", values: floats(1, nan, 3, 2)},
		{name: "rule34_nan_last_increasing", covers: []string{"rule 34", "rule 38"}, in: row(f32, 4), k: 2, dir: "INCREASING", values: floats(1, 3, 2, nan)},
		{name: "rule34_nan_second_increasing_float16", covers: []string{"rule 34", "rule 38"}, in: row(f16, 4), k: 2, dir: "INCREASING", values: floats(1, nan, 3, 2)},
		{name: "rule34_nan_at_500_of_1024", covers: []string{"rule 34"}, note: "issue 31: a NaN at 500 is not picked",
			in: row(f32, 1024), k: 8, values: func(t *tensor.Tensor, c []uint32, i int) {
				v := float64(i % 97)
				if i == 500 {
					v = nan
				}
				t.SetFloat64(c, v)
			}},
		{name: "rule35_signed_zeros_tie", covers: []string{"rule 35"}, note: "-0 and +0 in index order, bits kept", in: row(f32, 5), k: 4, values: floats(negz, 0, 1, negz, 0)},
		{name: "rule35_signed_zeros_tie_increasing_float16", covers: []string{"rule 35"}, in: row(f16, 5), k: 4, dir: "INCREASING", values: floats(0, negz, -1, 0, negz)},
		{name: "rule36_k_past_the_numbers", covers: []string{"rule 36"}, note: "issue 31: DirectML gives indices [1,3,2]; vkdml [1,3,0]", in: row(f32, 4), k: 3, values: floats(nan, 2, nan, 1)},
		{name: "rule36_all_nan", covers: []string{"rule 36"}, in: row(f32, 4), k: 2, dir: "INCREASING", values: floats(nan, nan, nan, nan)},
		{name: "rule31_k_equals_axis", covers: []string{"rule 31"}, note: "a full sort, although the page says K < the axis size", in: row(f32, 7), k: 7, values: floats(5, 1, 4, 1, 5, 9, 2)},
		{name: "rule31_axis_0_of_3d", covers: []string{"rule 31"}, in: desc(f32, u32(4, 2, 3), nil), axis: 0, k: 2, values: floats(ruleValues(24)...)},
		{name: "rule31_strided_input", covers: []string{"rule 31"}, in: desc(f32, u32(3, 4), u32(1, 5)), axis: 1, k: 2, dir: "INCREASING", values: floats(ruleValues(12)...)},
		{name: "rule31_uint64_indices", covers: []string{"rule 31"}, in: desc(f32, u32(2, 6), nil), axis: 1, k: 3, idx: tensor.UInt64, values: floats(ruleValues(12)...)},
	} {
		g.topKCase(c)
	}
	// Every type, with ties (so that the tie rule meets every key).
	for _, dt := range []tensor.DataType{f32, f16, tensor.Int32, tensor.Int16, tensor.Int8, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int64, tensor.UInt64} {
		for _, dir := range []string{"DECREASING", "INCREASING"} {
			idx := tensor.UInt32
			if dt.Size() == 8 {
				idx = tensor.UInt64
			}
			g.topKCase(topKSpec{name: fmt.Sprintf("rule32_type_%s_%s", lower(dt.String()), lower(dir)), covers: []string{"rule 32", "rule 33"},
				in: desc(dt, u32(3, 17), nil), axis: 1, k: 5, dir: dir, idx: idx, values: g.draw(dt, g.rng.Intn(2) == 0)})
		}
	}
}

// topKRegimes adds a case per kernel regime of vkdml's planner: short
// rows (thread), long contiguous rows with K <= 16 (lane, segments and
// merges), K past 16 (sort), K around the sort's 2048, a strided axis.
func (g *gen) topKRegimes() {
	f32 := tensor.Float32
	for _, c := range []struct {
		sizes []uint32
		axis  uint32
		k     uint32
		dir   string
	}{
		{u32(64, 8), 1, 2, "DECREASING"},
		{u32(2, 5000), 1, 1, "DECREASING"},
		{u32(2, 5000), 1, 16, "INCREASING"},
		{u32(2, 5000), 1, 50, "DECREASING"},
		{u32(1, 5000), 1, 2048, "DECREASING"},
		{u32(1, 5000), 1, 2049, "INCREASING"},
		{u32(3000, 3), 0, 5, "DECREASING"},
	} {
		g.topKCase(topKSpec{name: fmt.Sprintf("regime_%dx%d_axis%d_k%d_%s", c.sizes[0], c.sizes[1], c.axis, c.k, lower(c.dir)),
			covers: []string{"rule 32", "rule 33", "rule 34"}, in: desc(f32, c.sizes, nil), axis: c.axis, k: c.k, dir: c.dir,
			values: g.draw(f32, true)})
	}
	g.topKCase(topKSpec{name: "regime_float16_5000_k100", covers: []string{"rule 32", "rule 33"}, in: desc(tensor.Float16, u32(1, 5000), nil),
		axis: 1, k: 100, values: g.draw(tensor.Float16, false)})
}

// topKRejects adds the descs DirectML refuses.
func (g *gen) topKRejects() {
	f32 := tensor.Float32
	vals := floats(ruleValues(10)...)
	for _, c := range []topKSpec{
		{name: "reject_topk_k_past_axis", covers: []string{"rule 31"}, in: desc(f32, u32(2, 5), nil), axis: 1, k: 6, expect: "E_INVALIDARG"},
		{name: "reject_topk_int32_indices", covers: []string{"rule 31"}, in: desc(f32, u32(2, 5), nil), axis: 1, k: 2, idx: tensor.Int32, expect: "E_INVALIDARG"},
		{name: "reject_topk_int64_indices", covers: []string{"rule 31"}, in: desc(f32, u32(2, 5), nil), axis: 1, k: 2, idx: tensor.Int64, expect: "E_INVALIDARG"},
		{name: "reject_topk_axis_past_rank", covers: []string{"rule 31"}, in: desc(f32, u32(2, 5), nil), axis: 2, k: 1, expect: "E_INVALIDARG"},
		{name: "reject_topk_k_0", covers: []string{"rule 37"}, note: "K = 0: outputs with a size of 0 along Axis", in: desc(f32, u32(2, 5), nil), axis: 1, k: 0, expect: "E_INVALIDARG"},
	} {
		c.values = vals
		g.topKCase(c)
	}
}

// randomTopKLongK are the K of randomTopK's long rows: around the lane
// strategy's 16, the filter's and the sort's limits (1024, 2048).
var randomTopKLongK = []uint32{1, 2, 16, 17, 50, 1024, 2048, 2049}

// randomTopK adds one TOP_K1 case per data type for Random: either a
// short block of rank 1-4 (any axis, K from 1 to its length, a permuted
// or padded input one time in three) or, one time in four, one or two
// long rows of 500 to 5499 (K of randomTopKLongK, so that the lane,
// filter, sort and radix regimes and their limits come up); either
// direction, UINT32 or UINT64 indices, ties half of the time, and NaN
// (one element in 16) in the float types, so that rules 33-36 and 38
// meet every boundary.
func (g *gen) randomTopK() {
	for _, dt := range allTypes {
		var sizes []uint32
		var axis, k uint32
		layout := "packed"
		if g.rng.Intn(4) == 0 {
			n := uint32(500 + g.rng.Intn(5000))
			sizes, axis = u32(uint32(1+g.rng.Intn(2)), n), 1
			k = min(randomTopKLongK[g.rng.Intn(len(randomTopKLongK))], n)
		} else {
			rank := 1 + g.rng.Intn(4)
			sizes = g.sizes(rank, 240)
			axis = uint32(g.rng.Intn(rank))
			k = 1 + uint32(g.rng.Intn(int(sizes[axis])))
			if g.rng.Intn(3) == 0 {
				layout = []string{"permuted", "padded"}[g.rng.Intn(2)]
			}
		}
		dir := []string{"DECREASING", "INCREASING"}[g.rng.Intn(2)]
		idx := []tensor.DataType{tensor.UInt32, tensor.UInt64}[g.rng.Intn(2)]
		draw := g.draw(dt, g.rng.Intn(2) == 0)
		values := func(t *tensor.Tensor, c []uint32, i int) {
			if dt.IsFloat() && g.rng.Intn(16) == 0 {
				t.SetFloat64(c, math.NaN())
				return
			}
			draw(t, c, i)
		}
		g.topKCase(topKSpec{name: fmt.Sprintf("random_topk_%s_%s", lower(dt.String()), lower(dir)),
			covers: []string{"random", "rule 32", "rule 33", "rule 34", "rule 36", "rule 38"}, note: layout + " input",
			in: desc(dt, sizes, g.layout(sizes, layout)), idx: idx, axis: axis, k: k, dir: dir, values: values})
	}
}

// topKNaNDecreasing adds the cases of semantics.md rule 38 in the
// DECREASING direction (TOP_K1 and TOP_K): the short rows measured after
// `make parity-live` (seed 31031) found DirectML misordering such rows,
// and two long rows like those it found (ties and a NaN in 16, drawn as
// randomTopK draws them, after every other family).
func (g *gen) topKNaNDecreasing() {
	f32, f16 := tensor.Float32, tensor.Float16
	nan := math.NaN()
	row := func(dt tensor.DataType, n uint32) parity.Tensor { return desc(dt, u32(n), nil) }
	nanLast := floats(82.25, 11.390625, -17.453125, nan)
	withNaN := func(dt tensor.DataType) func(*tensor.Tensor, []uint32, int) {
		draw := g.draw(dt, true)
		return func(t *tensor.Tensor, c []uint32, i int) {
			if g.rng.Intn(16) == 0 {
				t.SetFloat64(c, nan)
				return
			}
			draw(t, c, i)
		}
	}
	for _, c := range []topKSpec{
		{name: "rule38_nan_last_decreasing_k1", covers: []string{"rule 38"}, note: "DirectML gives [NaN] at [3]", in: row(f32, 4), k: 1, values: nanLast},
		{name: "rule38_nan_last_decreasing_float16", covers: []string{"rule 38"}, note: "parity-live seed 31031: DirectML gives [NaN,82.25,11.39,-17.45] at [3,0,1,2]",
			in: row(f16, 4), k: 4, values: nanLast},
		{name: "rule38_nan_last_decreasing_float16_k3", covers: []string{"rule 38"}, note: "parity-live seed 31031 (a column of a permuted block): DirectML gives [NaN,1,-1] at [4,3,0]",
			in: row(f16, 5), k: 3, values: floats(-1, -1, -1, 1, nan)},
		{name: "rule38_nan_second_decreasing_k3", covers: []string{"rule 38"}, note: "DirectML gives [3,2,NaN] at [2,3,1]; with K = 2 it is right (rule34_nan_skipped_decreasing)",
			in: row(f32, 4), k: 3, values: floats(1, nan, 3, 2)},
		{name: "rule38_top_k_nan_last", covers: []string{"rule 38"}, note: "TOP_K alike: DirectML gives [NaN,82.25] at [3,0]", op: "TOP_K",
			in: desc(f32, u32(1, 1, 1, 4), nil), axis: 3, k: 2, values: nanLast},
		{name: "rule38_long_float16_1225_k16", covers: []string{"rule 38"}, note: "like parity-live seed 31031's FLOAT16 row of 1225, where DirectML skipped 65504 maxima",
			in: desc(f16, u32(1, 1225), nil), axis: 1, k: 16, values: withNaN(f16)},
		{name: "rule38_long_float32_2x4512_k16", covers: []string{"rule 38"}, note: "like parity-live seed 31031's FLOAT32 rows of 4512, where DirectML gave tied maxima out of index order",
			in: desc(f32, u32(2, 4512), nil), axis: 1, k: 16, values: withNaN(f32)},
	} {
		g.topKCase(c)
	}
}
