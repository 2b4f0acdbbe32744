// MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 cases: the rules of
// semantics.md.

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

type poolSpec struct {
	name, op                         string
	covers                           []string
	note                             string
	in, out                          parity.Tensor
	idx                              *parity.Tensor
	strides, window, start, end, dil []uint32
	expect                           string
}

func (g *gen) pool(s poolSpec, set func(*tensor.Tensor, []uint32, int)) {
	dt, _ := tensor.ParseDataType(s.in.DataType)
	buf := buffer(s.in, gapValue(dt, s.op), set)
	if s.op != "MAX_POOLING2" {
		s.dil = nil
	}
	g.add(parity.Case{Name: s.name, Covers: s.covers, Note: s.note, Operator: s.op, Input: s.in, Output: s.out, OutputIndices: s.idx,
		Strides: s.strides, WindowSize: s.window, StartPadding: s.start, EndPadding: s.end, Dilations: s.dil, Expect: s.expect}, buf)
}

// poolOut returns output and indices descs of sizes (N, C, spatial...).
func poolOut(dt, it tensor.DataType, sizes []uint32) (parity.Tensor, *parity.Tensor) {
	return desc(dt, sizes, nil), ptr(desc(it, sizes, nil))
}

// poolWindowRules adds rules 7-8: any output extent (with the maxpool
// facts of dml-under-wine.md (a)), ceil-mode extents, and the window taps
// o·Stride − Start + k·Dilation with asymmetric padding.
func (g *gen) poolWindowRules() {
	f32, u := tensor.Float32, tensor.UInt32
	in44 := desc(f32, u32(1, 1, 4, 4), nil)
	// Rule 7 (and the maxpool facts of dml-under-wine.md (a)): any output
	// extent; window 2x2, stride 1, dilation 2 on 0..15.
	for _, ext := range [][]uint32{{2, 2}, {3, 3}, {1, 1}, {1, 2}, {2, 3}, {3, 2}, {4, 4}, {5, 5}} {
		out, idx := poolOut(f32, u, u32(1, 1, ext[0], ext[1]))
		g.pool(poolSpec{name: fmt.Sprintf("rule07_extent_%dx%d_dilation2", ext[0], ext[1]), op: "MAX_POOLING2",
			covers: []string{"rule 7", "rule 8", "fact:maxpool dilation 2 output extents"},
			in:     in44, out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(2, 2)}, floats(iota(16)...))
	}
	out, idx := poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule07_control_dilation1_3x3", op: "MAX_POOLING2", covers: []string{"rule 7", "fact:maxpool dilation 1 control"},
		in: in44, out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(iota(16)...))
	// Ceil-mode extent: 5x5 input, window 2, stride 2: floor 2, ceil 3.
	out, idx = poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule07_ceil_extent", op: "MAX_POOLING1", covers: []string{"rule 7"},
		in: desc(f32, u32(1, 1, 5, 5), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)}, floats(iota(25)...))

	// Rule 8: taps o·Stride − Start + k·Dilation, asymmetric padding.
	vals := poolRuleValues()
	out, idx = poolOut(f32, u, u32(2, 3, 3, 3))
	g.pool(poolSpec{name: "rule08_window_taps_asymmetric", op: "MAX_POOLING2", covers: []string{"rule 8"},
		in: desc(f32, u32(2, 3, 5, 6), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 3), start: u32(1, 0), end: u32(0, 2), dil: u32(2, 1)}, floats(vals...))
}

// poolRuleValues is the row-major input of the larger pooling rule cases:
// 180 values in -20..32 in a fixed, scrambled order.
func poolRuleValues() []float64 {
	vals := make([]float64, 2*3*5*6)
	for i := range vals {
		vals[i] = float64((i*37)%53) - 20
	}
	return vals
}

// poolPaddingRules adds rule 9: all-padding windows, −FLT_MAX, −inf, NaN,
// ties, and each type's lowest value.
func (g *gen) poolPaddingRules() {
	f32, u := tensor.Float32, tensor.UInt32
	// Rule 9: all-padding windows, −FLT_MAX, −inf, NaN, ties; FLOAT16 and
	// integer lowest values.
	out, idx := poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule09_all_padding_windows", op: "MAX_POOLING2", covers: []string{"rule 9", "fact:maxpool window entirely in padding"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(1, 2, 3, 4))
	g.pool(poolSpec{name: "rule09_all_padding_negative_inputs", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(-1, -2, -3, -4))
	ninf := math.Inf(-1)
	g.pool(poolSpec{name: "rule09_all_minus_inf", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(1, 1), end: u32(1, 1), dil: u32(1, 1)}, floats(ninf, ninf, ninf, ninf))
	out22, idx22 := poolOut(f32, u, u32(1, 1, 2, 2))
	g.pool(poolSpec{name: "rule09_nan_never_selected", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(1, 1), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.NaN(), 2, 3, 4))
	g.pool(poolSpec{name: "rule09_nan_in_window", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.NaN(), 1, 2, 3, math.NaN(), 0, -1, 4, math.NaN()))
	g.pool(poolSpec{name: "rule09_ties_keep_first_tap", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(5, 5, 5, 5, 5, 1, 0, 5, 5))
	g.pool(poolSpec{name: "rule09_signed_zero_ties", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: desc(f32, u32(1, 1, 1, 1), nil), idx: ptr(desc(u, u32(1, 1, 1, 1), nil)), strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.Copysign(0, -1), 0, 0, math.Copysign(0, -1)))
	for _, dt := range []tensor.DataType{tensor.Float16, tensor.Int8, tensor.UInt8, tensor.Int16, tensor.UInt16, tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64} {
		o, ix := poolOut(dt, u, u32(1, 1, 3, 3))
		lo, _ := typeRange(dt)
		v := []float64{1, 2, 3, 4}
		if dt.IsSigned() || dt.IsFloat() {
			v = []float64{-1, -2, lo, -4}
		}
		g.pool(poolSpec{name: "rule09_all_padding_" + lower(dt.String()), op: "MAX_POOLING2", covers: []string{"rule 9"},
			note: "all-padding windows give the type's lowest value",
			in:   desc(dt, u32(1, 1, 2, 2), nil), out: o, idx: ix, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(v...))
	}
}

// poolIndexAndParameterRules adds rules 10-11: indices are logical NCHW
// whatever the strides; 5D; DimensionCount, types and zero parameters that
// must be rejected.
func (g *gen) poolIndexAndParameterRules() {
	f32, u := tensor.Float32, tensor.UInt32
	in44 := desc(f32, u32(1, 1, 4, 4), nil)
	vals := poolRuleValues()
	// Rule 10: indices are logical NCHW whatever the strides; UINT64.
	out, idx := poolOut(f32, u, u32(1, 2, 1, 1))
	g.pool(poolSpec{name: "rule10_nhwc_strides_indices", op: "MAX_POOLING2", covers: []string{"rule 10", "fact:maxpool NHWC strides give NCHW indices"},
		note: "physical values 0..7 in NHWC order",
		in:   desc(f32, u32(1, 2, 2, 2), u32(8, 1, 4, 2)), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)},
		func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, float64(t.Desc.Offset(c))) })
	out, idx = poolOut(f32, u, u32(2, 2, 1, 1))
	g.pool(poolSpec{name: "rule10_nhwc_strides_batch", op: "MAX_POOLING2", covers: []string{"rule 10"},
		in: desc(f32, u32(2, 2, 2, 2), u32(8, 1, 4, 2)), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)},
		func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, float64(t.Desc.Offset(c))) })
	out, idx = poolOut(f32, tensor.UInt64, u32(2, 3, 2, 2))
	g.pool(poolSpec{name: "rule10_uint64_indices", op: "MAX_POOLING2", covers: []string{"rule 10"},
		in: desc(f32, u32(2, 3, 3, 3), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(vals[:54]...))

	// Rule 11: 5D, DimensionCount, types, zero parameters.
	out, idx = poolOut(f32, u, u32(1, 2, 2, 2, 2))
	g.pool(poolSpec{name: "rule11_5d", op: "MAX_POOLING2", covers: []string{"rule 11", "rule 8"},
		in: desc(f32, u32(1, 2, 3, 3, 4), nil), out: out, idx: idx, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1), dil: u32(1, 1, 1)}, floats(vals[:72]...))
	out, _ = poolOut(f32, u, u32(1, 2, 2, 2, 2))
	g.pool(poolSpec{name: "rule11_5d_max_pooling", op: "MAX_POOLING", covers: []string{"rule 11"},
		in: desc(f32, u32(1, 2, 3, 3, 4), nil), out: out, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1)}, floats(vals[:72]...))
	rej := func(name, note string, mod func(s *poolSpec)) {
		o, ix := poolOut(f32, u, u32(1, 1, 3, 3))
		s := poolSpec{name: name, op: "MAX_POOLING2", covers: []string{"rule 11", "rule 14"}, note: note,
			in: in44, out: o, idx: ix, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1), expect: "E_INVALIDARG"}
		mod(&s)
		g.pool(s, floats(iota(16)...))
	}
	rej("rule11_stride_0", "", func(s *poolSpec) { s.strides = u32(1, 0) })
	rej("rule11_window_0", "", func(s *poolSpec) { s.window = u32(0, 2) })
	rej("rule11_dilation_0", "", func(s *poolSpec) { s.dil = u32(1, 0) })
	rej("rule11_dimension_count_3_for_4d", "DimensionCount 3 with a 4D input", func(s *poolSpec) {
		s.strides, s.window, s.start, s.end, s.dil = u32(1, 1, 1), u32(1, 2, 2), u32(0, 0, 0), u32(0, 0, 0), u32(1, 1, 1)
	})
	rej("rule11_output_type_differs", "", func(s *poolSpec) { s.out = desc(tensor.Float16, u32(1, 1, 3, 3), nil) })
	rej("rule11_index_type_int32", "", func(s *poolSpec) { s.idx = ptr(desc(tensor.Int32, u32(1, 1, 3, 3), nil)) })
	rej("rule11_output_batch_differs", "", func(s *poolSpec) {
		s.out, s.idx = poolOut(f32, u, u32(2, 1, 3, 3))
	})
	rej("rule11_indices_sizes_differ", "", func(s *poolSpec) { s.idx = ptr(desc(u, u32(1, 1, 3, 2), nil)) })
	rej("rule11_output_rank_differs", "", func(s *poolSpec) {
		s.out, s.idx = poolOut(f32, u, u32(1, 1, 3, 3, 1))
	})
	rej("rule13_aliasing_pool_output", "output strides {9,9,0,1}: rows alias; vkdml refuses", func(s *poolSpec) {
		s.out = desc(f32, u32(1, 1, 3, 3), u32(9, 9, 0, 1))
		s.covers = []string{"rule 13"}
	})
}
