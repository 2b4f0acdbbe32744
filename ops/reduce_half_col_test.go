package ops_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// halfColCase is function f of FLOAT16 over the rows of a columns
// tensor: sizes with the reduced axes (axes) and strides (nil: packed),
// each column's values one of halfVecPatterns (halfVecValue, over the
// column's position in the block): in the 8-column groups that one
// invocation of the vector kernel takes, the even groups one pattern for
// all 8 (so that -0 sums, maxima and cancelling pairs run on the fast
// path), the odd ones a pattern a column.
func halfColCase(rng *rand.Rand, f ops.ReduceFunction, sizes, strides, axes []uint32) argCase {
	in := argInput(tensor.Float16, sizes, strides)
	rng.Read(in.Data)
	first := rng.Intn(len(halfVecPatterns))
	blockLen := 1
	for _, a := range axes {
		blockLen *= int(sizes[a])
	}
	inner := len(sizes) - 1
	tensor.ForEachIndex(sizes, func(c []uint32) {
		col := int(c[inner])
		p := (first + col/16) % len(halfVecPatterns)
		if col/8%2 == 1 {
			p = (first + col) % len(halfVecPatterns)
		}
		j := 0 // the position in the block, row-major over the reduced axes
		for _, a := range axes {
			j = j*int(sizes[a]) + int(c[a])
		}
		in.SetBits(c, halfVecValue(rng, halfVecPatterns[p], j, blockLen))
	})
	out := tensor.NewDesc(tensor.Float16, argOutSizes(sizes, axes))
	what := fmt.Sprintf("%v FLOAT16 sizes %v strides %v axes %v, column c's values halfVecPatterns[(%d + c/16) %% %d] (odd 8-column groups: (%d + c) %% %d)",
		f, sizes, strides, axes, first, len(halfVecPatterns), first, len(halfVecPatterns))
	return argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: axes}, in: in, what: what}
}

// TestReduceFloatHalfCol checks the FLOAT16 column kernel
// (reduce_half_col.comp) on the discrete-GPU plans against the reference
// bit for bit: SUM, AVERAGE, L1 and LOG_SUM over columns whose values are
// every halfVecPatterns (±0, -0 sums, ±65504 cancelling, the smallest
// normal, denormals, ±inf, NaN, any bits), packed and padded rows, a
// broadcast kept axis (stride 0), two reduced axes (the odometer) and
// long columns cut into segments (the combine); and that the layouts it
// does not fit take the scalar fallback with the same bits: a column
// count that is not a multiple of 8, and rows that start off a 16-byte
// boundary (a row stride of 8k+1..7).
func TestReduceFloatHalfCol(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the column kernel is not planned")
	}
	rng := testutil.Rand(t)
	fns := []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionL1, ops.ReduceFunctionAverage, ops.ReduceFunctionLogSum}
	fi := rng.Intn(len(fns))
	fn := func() ops.ReduceFunction { fi++; return fns[fi%len(fns)] }
	rows := uint32(20 + rng.Intn(200))
	cols := uint32(8 * (16 + rng.Intn(4))) // every pattern in both kinds of group
	pad := uint32(8 * (1 + rng.Intn(3)))
	type layout struct {
		name                 string
		sizes, strides, axes []uint32
		vec                  bool // the column kernel fits
	}
	cases := []layout{
		{"padded rows", []uint32{rows, cols}, []uint32{cols + pad, 1}, []uint32{0}, true},
		{"ragged columns", []uint32{rows, cols - 1 - uint32(rng.Intn(7))}, nil, []uint32{0}, false},
		{"unaligned rows", []uint32{rows, cols}, []uint32{cols + 1 + uint32(rng.Intn(7)), 1}, []uint32{0}, false},
	}
	if !testing.Short() {
		cases = append(cases,
			layout{"packed", []uint32{rows, cols}, nil, []uint32{0}, true},
			layout{"broadcast kept axis", []uint32{3, rows, cols}, []uint32{0, cols, 1}, []uint32{1}, true},
			layout{"two reduced axes", []uint32{3, rows / 4, cols}, []uint32{(rows/4)*(cols+pad) + 8, cols + pad, 1}, []uint32{0, 1}, true},
			layout{"long columns", []uint32{20000 + uint32(rng.Intn(3000)), 16}, nil, []uint32{0}, true},
		)
	}
	used := map[string]int{}
	for _, l := range cases {
		c := halfColCase(rng, fn(), l.sizes, l.strides, l.axes)
		c.what = l.name + ": " + c.what
		_, p := testutil.GPUPlan(t, d, c.desc, "", c.what)
		if got := p.Kernels[0].Variant == shaders.ReduceFloatHalfCol; got != l.vec {
			t.Fatalf("%s: the GPU plan runs %s (%s); want the column kernel: %v", c.what, p.Kernels[0].Variant, p.Strategy, l.vec)
		}
		reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
	}
	t.Logf("GPU plans (strategy, kernels): %v", used)
}
