package ops_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// halfVecValue is the FLOAT16 bits of a row's element j of n in pattern:
// what the vector scan (shaders/reduce_half_fast.glsl) converts, what it
// hands to the widening path, and the sums where signed zeros decide.
func halfVecValue(rng *rand.Rand, pattern string, j, n int) uint64 {
	sign := uint64(rng.Intn(2)) << 15
	switch pattern {
	case "normal": // every binade 1..30, none of the halves set aside
		return sign | uint64(0x400+rng.Intn(0x7800))
	case "one_denormal": // normal but one denormal at a random place
		if j == n/3 {
			return sign | uint64(1+rng.Intn(0x3ff))
		}
		return sign | uint64(0x400+rng.Intn(0x7800))
	case "maxmag": // ±65504 in cancelling pairs, then 2^-24 (the sum's last bit)
		if j == n-1 {
			return 1
		}
		return uint64(j%2)<<15 | 0x7bff
	case "zeros": // ±0 with a few ±1 and ±2^-14 (the smallest normal)
		switch rng.Intn(16) {
		case 0:
			return sign | 0x3c00
		case 1:
			return sign | 0x0400
		}
		return sign
	case "negzeros": // -0 only: the sum is -0 (rule 43)
		return 0x8000
	case "zeros_one_pos": // -0 but one +0: the sum is +0
		if j == n/2 {
			return 0
		}
		return 0x8000
	case "specials": // ±inf, NaN among normal values
		switch rng.Intn(40) {
		case 0:
			return sign | 0x7c00
		case 1:
			return sign | 0x7c00 | uint64(1+rng.Intn(0x3ff))
		}
		return sign | uint64(0x400+rng.Intn(0x7800))
	}
	return uint64(rng.Intn(1 << 16))
}

var halfVecPatterns = []string{"normal", "one_denormal", "maxmag", "zeros", "negzeros", "zeros_one_pos", "specials", "random"}

// TestReduceFloatHalfVec checks FLOAT16 SUM, AVERAGE, LOG_SUM and L1 on the
// vector scan (argmax.comp HALF_FAST) against the reference bit for bit:
// rows of 1 to 40,000 halves, one row for each pattern of halfVecValue,
// whose starts fall on different alignments (a row stride of n + pad), on
// the GPU plans and the group strategy forced; SUM_SQUARE on the same
// kernel, which keeps the widening path. The group plans must use the
// _vec variant.
func TestReduceFloatHalfVec(t *testing.T) {
	if testing.Short() {
		// One case compiles this kernel's pipelines, 10 s or more on
		// lavapipe: -short keeps TestHalfVecGLSL (the conversion, every
		// FLOAT16) and TestReduceFloatRows's FLOAT16 group plans.
		t.Skip("the vector scan's plans run without -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the vector scan is not planned")
	}
	rng := testutil.Rand(t)
	fns := []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionL1, ops.ReduceFunctionAverage,
		ops.ReduceFunctionLogSum, ops.ReduceFunctionSumSquare}
	lens := []int{1 + rng.Intn(7), 8 + rng.Intn(16), 300 + rng.Intn(900), 4096 + rng.Intn(2000), 40000 + rng.Intn(3000)}
	for li, n := range lens {
		// One row a pattern (of halfVecPatterns, from a random one on),
		// each row starting at its own alignment (row stride n + pad).
		f := fns[li%len(fns)]
		rows, pad, first := len(halfVecPatterns), 1+rng.Intn(7), rng.Intn(len(halfVecPatterns))
		in := argInput(tensor.Float16, []uint32{uint32(rows), uint32(n)}, []uint32{uint32(n + pad), 1})
		rng.Read(in.Data)
		for r := 0; r < rows; r++ {
			pattern := halfVecPatterns[(first+r)%rows]
			for j := 0; j < n; j++ {
				in.SetBits([]uint32{uint32(r), uint32(j)}, halfVecValue(rng, pattern, j, n))
			}
		}
		out := tensor.NewDesc(tensor.Float16, []uint32{uint32(rows), 1})
		c := argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: []uint32{1}}, in: in,
			what: fmt.Sprintf("%v FLOAT16 %dx%d row stride %d, row r's values halfVecPatterns[(%d+r) %% %d]", f, rows, n, n+pad, first, rows)}
		// The GPU plan, and the group strategy forced where the plan
		// is another (thread for short rows, split-K for the longest).
		kernels := []string{""}
		for len(kernels) > 0 {
			kernel := kernels[0]
			kernels = kernels[1:]
			_, p := testutil.GPUPlan(t, d, c.desc, kernel, c.what)
			if p.Strategy != ops.ArgStrategyThread && !strings.HasSuffix(p.Kernels[0].Variant, shaders.ReduceFloatHalfVec) {
				t.Fatalf("%s: the %s plan runs %s, not the vector scan's variant", c.what, p.Strategy, p.Kernels[0].Variant)
			}
			reduceCheckGPUPlan(t, d, c, nil, kernel, map[string]int{}, rng)
			if kernel == "" && p.Strategy != ops.ArgStrategyGroup {
				kernels = append(kernels, ops.ArgStrategyGroup)
			}
		}
	}
}

// narrowGroupPlan plans its desc on the group strategy as if the device's
// subgroups were 4 lanes wide, so that the float group kernel runs
// workgroups of 4 (lavapipe at LP_NATIVE_VECTOR_WIDTH=128 does), whatever
// the device: the kernel uses no subgroup operation.
type narrowGroupPlan struct{ ops.Desc }

func (n narrowGroupPlan) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	c.Kernel = ops.ArgStrategyGroup
	c.Limits.SubgroupSize, c.Limits.MinSubgroupSize, c.Limits.MaxSubgroupSize = 4, 4, 4
	return n.Desc.Plan(&c)
}

// TestReduceFloatHalfVecNarrowGroup: the vector scan's unaligned head and
// tail hold up to 7 halves each, more than a workgroup of 4 lanes: rows
// of 8k+5 to 8k+7 halves starting at every alignment (row stride n+1),
// summed in workgroups of 4 on the _vec variant, equal the reference.
// Under -short too: it catches a lane that folds one head or tail half
// only (1 of 3 rows of ones short by up to 3).
func TestReduceFloatHalfVecNarrowGroup(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the vector scan is not planned")
	}
	rng := testutil.Rand(t)
	n := 8*(1+rng.Intn(40)) + 5 + rng.Intn(3)
	const rows = 9 // row r starts at element r·(n+1): every alignment mod 8
	in := argInput(tensor.Float16, []uint32{rows, uint32(n)}, []uint32{uint32(n + 1), 1})
	rng.Read(in.Data)
	for r := uint32(0); r < rows; r++ {
		for j := 0; j < n; j++ {
			v := uint64(0x3c00) // 1: a missing head or tail half shows in the sum
			if r%3 == 2 {
				v = halfVecValue(rng, "normal", j, n)
			}
			in.SetBits([]uint32{r, uint32(j)}, v)
		}
	}
	desc := narrowGroupPlan{&ops.Reduce{Function: ops.ReduceFunctionSum, Input: in.Desc,
		Output: tensor.NewDesc(tensor.Float16, []uint32{rows, 1}), Axes: []uint32{1}}}
	p, err := desc.Plan(testutil.PlanContext(d))
	if err != nil {
		t.Fatal(err)
	}
	if p.Kernels[0].Variant != "reduce_float_b16_group_vec" && p.Kernels[0].Variant != "reduce_float_b16w_group_vec" || p.Kernels[0].Spec[0] != 4 {
		t.Fatalf("the narrow group plan runs %s with %d lanes, want the vector scan with 4", p.Kernels[0].Variant, p.Kernels[0].Spec[0])
	}
	argCheckCase(t, d, argCase{desc: desc, in: in, what: fmt.Sprintf("SUM FLOAT16 %dx%d row stride %d, workgroups of 4", rows, n, n+1)}, "", rng)
}

// halfColLayout is a case of the FLOAT16 column kernels' tests: its
// sizes, strides (nil: packed) and reduced axes, whether the column
// kernel fits it, and whether to run it (not only plan it).
type halfColLayout struct {
	name                 string
	sizes, strides, axes []uint32
	vec                  bool
	run                  bool
}

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
	return halfColCaseOf(rng, f, sizes, strides, axes, halfColPatterns, halfColValue)
}

// halfColCaseOf is halfColCase with the patterns and their values
// (value(rng, pattern, j, n): position j of a block of n).
func halfColCaseOf(rng *rand.Rand, f ops.ReduceFunction, sizes, strides, axes []uint32,
	patterns []string, value func(rng *rand.Rand, pattern string, j, n int) uint64) argCase {
	in := argInput(tensor.Float16, sizes, strides)
	rng.Read(in.Data)
	np := len(patterns)
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
		in.SetBits(c, value(rng, patterns[p], j, blockLen))
	})
	out := tensor.NewDesc(tensor.Float16, argOutSizes(sizes, axes))
	what := fmt.Sprintf("%v FLOAT16 sizes %v strides %v axes %v, column c's values %q[(%d + c/16) %% %d] (odd 8-column groups: (%d + c) %% %d)",
		f, sizes, strides, axes, patterns, first, np, first, np)
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
	cases := []halfColLayout{
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
