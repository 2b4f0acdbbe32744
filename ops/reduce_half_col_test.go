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

// halfColPatterns are halfVecPatterns and "denormals", columns of ±0
// and ±denormals only, whose sums round to a value that every denormal
// decides.
var halfColPatterns = append(halfVecPatterns[:len(halfVecPatterns):len(halfVecPatterns)], "denormals")

// halfColValue is halfVecValue, or for "denormals" a ±0 or ±denormal.
func halfColValue(rng *rand.Rand, pattern string, j, n int) uint64 {
	if pattern == "denormals" {
		return uint64(rng.Intn(2))<<15 | uint64(rng.Intn(0x400))
	}
	return halfVecValue(rng, pattern, j, n)
}

// halfColCase is function f of FLOAT16 over the rows of a columns
// tensor: sizes with the reduced axes (axes) and strides (nil: packed),
// each column's values one of halfColPatterns (halfColValue, over the
// column's position in the block): in the 8-column groups that one
// invocation of the vector kernel takes, the even groups one pattern for
// all 8 (so that -0 sums, maxima and cancelling pairs run on the fast
// path), the odd ones a pattern a column.
func halfColCase(rng *rand.Rand, f ops.ReduceFunction, sizes, strides, axes []uint32) argCase {
	in := argInput(tensor.Float16, sizes, strides)
	rng.Read(in.Data)
	np := len(halfColPatterns)
	first := rng.Intn(np)
	blockLen := 1
	for _, a := range axes {
		blockLen *= int(sizes[a])
	}
	inner := len(sizes) - 1
	tensor.ForEachIndex(sizes, func(c []uint32) {
		col := int(c[inner])
		p := (first + col/16) % np
		if col/8%2 == 1 {
			p = (first + col) % np
		}
		j := 0 // the position in the block, row-major over the reduced axes
		for _, a := range axes {
			j = j*int(sizes[a]) + int(c[a])
		}
		in.SetBits(c, halfColValue(rng, halfColPatterns[p], j, blockLen))
	})
	out := tensor.NewDesc(tensor.Float16, argOutSizes(sizes, axes))
	what := fmt.Sprintf("%v FLOAT16 sizes %v strides %v axes %v, column c's values halfColPatterns[(%d + c/16) %% %d] (odd 8-column groups: (%d + c) %% %d)",
		f, sizes, strides, axes, first, np, first, np)
	return argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: axes}, in: in, what: what}
}

// TestReduceFloatHalfCol checks the FLOAT16 column kernel
// (reduce_half_col.comp) on the discrete-GPU plans against the reference
// bit for bit: SUM, AVERAGE, L1 and LOG_SUM over columns whose values are
// every halfColPatterns (±0, -0 sums, ±65504 cancelling, the smallest
// normal, denormals, ±inf, NaN, any bits), on padded rows under a
// broadcast kept axis (stride 0) with two reduced axes (the odometer),
// and (without -short) packed long columns cut into segments (the
// combine); and that the layouts it does not fit plan the scalar
// fallback: a column count that is not a multiple of 8, and rows that
// start off a 16-byte boundary (a row stride of 8k+1..7), which run
// against the reference too in a long run (testutil.Long). Each run
// compiles its pipelines, about 6 s on lavapipe.
func TestReduceFloatHalfCol(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the column kernel is not planned")
	}
	rng := testutil.Rand(t)
	fns := []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionL1, ops.ReduceFunctionAverage, ops.ReduceFunctionLogSum}
	// The cases take the functions in turn from SUM or AVERAGE, whose
	// results keep a zero sum's sign (rule 43): the first case, the one
	// -short runs, checks the signed-zero flags.
	fi := 2 * rng.Intn(2)
	fn := func() ops.ReduceFunction { fi++; return fns[(fi-1)%len(fns)] }
	rows := uint32(8 + rng.Intn(60))
	cols := uint32(8 * (2*len(halfColPatterns) + rng.Intn(4))) // every pattern in both kinds of group
	pad := uint32(8 * (1 + rng.Intn(3)))
	type layout struct {
		name                 string
		sizes, strides, axes []uint32
		vec                  bool // the column kernel fits
		run                  bool // run it, not only plan it
	}
	cases := []layout{
		{"padded rows, broadcast kept axis, two reduced axes", []uint32{2, 3, rows, cols}, []uint32{0, rows*(cols+pad) + 8, cols + pad, 1}, []uint32{1, 2}, true, true},
		{"long packed columns", []uint32{20000 + uint32(rng.Intn(3000)), 16}, nil, []uint32{0}, true, !testing.Short()},
		{"ragged columns", []uint32{rows, cols - 1 - uint32(rng.Intn(7))}, nil, []uint32{0}, false, testutil.Long()},
		{"unaligned rows", []uint32{rows, cols}, []uint32{cols + 1 + uint32(rng.Intn(7)), 1}, []uint32{0}, false, testutil.Long()},
	}
	used := map[string]int{}
	for _, l := range cases {
		c := halfColCase(rng, fn(), l.sizes, l.strides, l.axes)
		c.what = l.name + ": " + c.what
		_, p := testutil.GPUPlan(t, d, c.desc, "", c.what)
		if got := p.Kernels[0].Variant == shaders.ReduceFloatHalfCol; got != l.vec {
			t.Fatalf("%s: the GPU plan runs %s (%s); want the column kernel: %v", c.what, p.Kernels[0].Variant, p.Strategy, l.vec)
		}
		if l.vec && len(l.sizes) == 2 && len(p.Kernels) != 2 {
			t.Fatalf("%s: the GPU plan runs %d kernels; want the column split's combine", c.what, len(p.Kernels))
		}
		if l.run {
			reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
		}
	}
	t.Logf("GPU plans run (strategy, kernels): %v", used)
}
