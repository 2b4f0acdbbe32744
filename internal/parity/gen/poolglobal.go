// MAX_POOLING cases of semantics.md rule 7a: the global window (window
// equal to the input's spatial sizes, no padding, dilation 1) without an
// indices output, which DirectML runs as a reduction.

package gen

import (
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// poolGlobalWindow adds rule 7a's cases: extents other than 1 on each
// spatial axis, where DirectML's reduction ignores rules 7-9 (known
// differences), the floor extent with windows of only NaN and −∞ (−∞,
// which vkdml follows), and the controls where DirectML follows rules
// 7-9: an indices output, padding, a dilation, ordinary values at the
// floor extent.
func (g *gen) poolGlobalWindow() {
	f32, f16, u := tensor.Float32, tensor.Float16, tensor.UInt32
	nan, ninf := math.NaN(), math.Inf(-1)
	cover := []string{"rule 7a", "rule 7"}
	// The difference `make parity-live` found (seed 917759000): DirectML
	// returns the input unchanged.
	found := floats(45445, 7179, 9233, 65535, 24344, 6399, 8619, 968)
	in2222 := desc(tensor.UInt16, u32(1, 2, 2, 2), nil)
	g.pool(poolSpec{name: "rule07a_global_window_extent_2x2_uint16", op: "MAX_POOLING", covers: cover,
		note: "extent 2x2 where the floor size is 1x1: DirectML copies the input",
		in:   in2222, out: in2222, strides: u32(1, 3), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)}, found)
	out, idx := poolOut(tensor.UInt16, u, u32(1, 2, 2, 2))
	g.pool(poolSpec{name: "rule07a_global_window_indices_control", op: "MAX_POOLING1", covers: cover,
		note: "the same desc with an indices output: DirectML follows rules 7-9",
		in:   in2222, out: out, idx: idx, strides: u32(1, 3), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)}, found)
	scrambled := floats(3, 7, 1, 8, 0, 5, 2, 6, 4, 12, 16, 10, 17, 9, 14, 11, 15, 13)
	in33 := desc(f32, u32(1, 2, 3, 3), nil)
	g.pool(poolSpec{name: "rule07a_global_window_extent_1x2_float32", op: "MAX_POOLING2", covers: cover,
		note: "extent 1x2: DirectML reduces floor(9/2) = 4 consecutive elements from (0, j)",
		in:   in33, out: desc(f32, u32(1, 2, 1, 2), nil), strides: u32(1, 1), window: u32(3, 3), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, scrambled)
	g.pool(poolSpec{name: "rule07a_global_window_extent_4x4_int32", op: "MAX_POOLING", covers: cover,
		note: "extent 4x4 over a 3x3 input: DirectML reduces floor(9/16) = 0 elements and writes the type's minimum",
		in:   desc(tensor.Int32, u32(1, 2, 3, 3), nil), out: desc(tensor.Int32, u32(1, 2, 4, 4), nil), strides: u32(2, 2), window: u32(3, 3), start: u32(0, 0), end: u32(0, 0)}, scrambled)
	g.pool(poolSpec{name: "rule07a_global_window_padding_control", op: "MAX_POOLING", covers: cover,
		note: "window equal to the input but an end padding: DirectML follows rules 7-9",
		in:   in33, out: desc(f32, u32(1, 2, 2, 2), nil), strides: u32(1, 1), window: u32(3, 3), start: u32(0, 0), end: u32(0, 1)}, scrambled)
	g.pool(poolSpec{name: "rule07a_global_window_dilation_control", op: "MAX_POOLING2", covers: cover,
		note: "window equal to the input with a dilation of 2: DirectML follows rules 7-9",
		in:   in33, out: desc(f32, u32(1, 2, 2, 2), nil), strides: u32(1, 1), window: u32(3, 3), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 2)}, scrambled)
	g.pool(poolSpec{name: "rule07a_global_window_floor_values", op: "MAX_POOLING", covers: cover,
		note: "the floor extent 1x1 with NaN and -inf among ordinary values: equal",
		in:   in33, out: desc(f32, u32(1, 2, 1, 1), nil), strides: u32(1, 1), window: u32(3, 3), start: u32(0, 0), end: u32(0, 0)},
		floats(nan, 1, ninf, 3, nan, -2, 0, 2, -5, ninf, -7, nan, -3, ninf, -1, -6, nan, -4))
	for _, dt := range []tensor.DataType{f32, f16} {
		g.pool(poolSpec{name: "rule07a_global_window_floor_no_winner_" + lower(dt.String()), op: "MAX_POOLING", covers: cover,
			note: "the floor extent 1x1, planes of only -inf and of NaN and -inf: DirectML writes -inf",
			in:   desc(dt, u32(1, 2, 2, 2), nil), out: desc(dt, u32(1, 2, 1, 1), nil), strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)},
			floats(ninf, ninf, ninf, ninf, nan, ninf, nan, nan))
	}
	g.pool(poolSpec{name: "rule07a_global_window_floor_no_winner_5d", op: "MAX_POOLING", covers: cover,
		note: "5D, the floor extent 1x1x1, planes of only -inf and of NaN and -inf: DirectML writes -inf",
		in:   desc(f32, u32(1, 2, 2, 1, 2), nil), out: desc(f32, u32(1, 2, 1, 1, 1), nil), strides: u32(1, 1, 1), window: u32(2, 1, 2), start: u32(0, 0, 0), end: u32(0, 0, 0)},
		floats(ninf, ninf, ninf, ninf, nan, ninf, nan, nan))
	// A window of one tap over a 1x1 input is the global window too; a
	// dilation of 2 leaves it, even on windows of 1.
	taps := func(lowest float64) func(*tensor.Tensor, []uint32, int) {
		return floats(ninf, nan, lowest, 1, math.Copysign(0, -1))
	}
	for _, dt := range []tensor.DataType{f32, f16} {
		lowest := -math.MaxFloat32
		if dt == f16 {
			lowest = -65504
		}
		in := desc(dt, u32(1, 5, 1, 1), nil)
		g.pool(poolSpec{name: "rule07a_global_window_1x1_" + lower(dt.String()), op: "MAX_POOLING1", covers: cover,
			note: "a 1x1 window over 1x1 planes of -inf, NaN, the lowest finite value, 1 and -0, without indices: DirectML writes -inf for -inf and NaN",
			in:   in, out: in, strides: u32(1, 1), window: u32(1, 1), start: u32(0, 0), end: u32(0, 0)}, taps(lowest))
	}
	in11 := desc(f32, u32(1, 5, 1, 1), nil)
	g.pool(poolSpec{name: "rule07a_global_window_1x1_dilation_control", op: "MAX_POOLING2", covers: cover,
		note: "the 1x1 window with a dilation of 2: DirectML follows rules 7-9 (-FLT_MAX for -inf and NaN)",
		in:   in11, out: in11, strides: u32(1, 1), window: u32(1, 1), start: u32(0, 0), end: u32(0, 0), dil: u32(2, 2)}, taps(-math.MaxFloat32))
}
