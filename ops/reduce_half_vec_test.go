package ops_test

import (
	"encoding/binary"
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
// kernel's squares (TestReduceFloatHalfSquares has their patterns). The
// group plans must use the _vec variant.
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

// halfSqPlaced are the patterns of halfSqValue that place a few halves
// (each with a random sign) evenly over a block of ±0, chosen so that
// the FLOAT16 result shows a lost low bit or a lost carry of
// reduce_half.glsl's squares:
//   - the ties: the exact sum of squares (SUM_SQUARE) or its square root
//     (L2) lies just above a FLOAT16 tie, by the square of the smallest
//     half of the window (2^-14 in window 0, 2^-4 in window 1); without
//     it the result rounds to even, one ULP lower;
//   - the carries: 17 halves 63.97 (0x53ff, window 0) or 65504 (window 1)
//     one 16-byte vector in 4 apart (a block starting on a 16-byte
//     boundary puts them in one lane of a 4-lane workgroup, or one
//     column): their squares' sum passes 2^64 units, and a lost carry
//     leaves a finite L2 (and SUM_SQUARE, window 0) where the exact one
//     is larger (or +inf); with a denormal too, the squares take the
//     widening path (rows) or half_sq_exact (columns), whose bits past 64
//     must not be lost.
var halfSqPlaced = map[string][]uint64{
	"sq_tie0_sum": {0x3c00, 0x2000, 0x2000, 0x0400}, // 1 + 2·2^-12 + 2^-28: 1 + 2^-10, not 1
	"sq_tie0_l2":  {0x3c00, 0x1400, 0x1000, 0x0400}, // sqrt((1 + 2^-11)^2 + 2^-28): 1 + 2^-10
	"sq_tie1_sum": {0x5800, 0x4000, 0x4000, 0x2c00}, // 2^14 + 8 + 2^-8: 16400, not 16384
	"sq_tie1_l2":  {0x5800, 0x4400, 0x2c00, 0x2c00}, // sqrt((128 + 2^-4)^2 + 2^-8): 128.125
}

// halfSqPatterns are the patterns of TestReduceFloatHalfSquares's rows
// and columns: halfSqPlaced, the carries, the windows of reduce_half.glsl
// (0: [2^-14, 64), 1: [2^-4, 65504]) and their edges, one half outside a
// lane's window mid-block (the lane takes the other window or the
// widening path while its neighbours stay), and halfVecPatterns' denormals,
// ±inf, NaN, zeros and any bits.
var halfSqPatterns = []string{"sq_tie0_sum", "sq_tie0_l2", "sq_tie1_sum", "sq_tie1_l2", "sq_carry0", "sq_carry1", "sq_carry_denormal",
	"sq_small", "sq_large", "sq_edges", "sq_one_large", "sq_one_tiny",
	"one_denormal", "specials", "negzeros", "zeros_one_pos", "random"}

// halfSqEdges are the halves at and beside the windows' bounds.
var halfSqEdges = []uint64{0, 0x03ff, 0x0400, 0x0401, 0x2bff, 0x2c00, 0x53ff, 0x5400, 0x7bff, 0x7c00}

// halfSqValue is the FLOAT16 bits of element j of n of a block in
// pattern (halfSqPatterns).
func halfSqValue(rng *rand.Rand, pattern string, j, n int) uint64 {
	sign := uint64(rng.Intn(2)) << 15
	small := func() uint64 { return sign | uint64(0x400+rng.Intn(0x5000)) }  // window 0
	large := func() uint64 { return sign | uint64(0x2c00+rng.Intn(0x5000)) } // window 1
	if vals, ok := halfSqPlaced[pattern]; ok {
		if step := n / len(vals); step > 0 && j%step == 0 && j/step < len(vals) {
			return sign | vals[j/step]
		}
		return sign
	}
	switch pattern {
	case "sq_carry0", "sq_carry1", "sq_carry_denormal": // sq_carry_denormal: sq_carry1's, the last a denormal (no window)
		if pattern == "sq_carry_denormal" && j == n-1 {
			return sign | 1
		}
		if j%32 == 0 && j < 17*32 {
			if pattern == "sq_carry0" {
				return sign | 0x53ff
			}
			return sign | 0x7bff
		}
		return sign
	case "sq_small":
		if rng.Intn(4) == 0 {
			return sign
		}
		return small()
	case "sq_large":
		if rng.Intn(4) == 0 {
			return sign | 0x7bff
		}
		return large()
	case "sq_edges":
		return sign | halfSqEdges[rng.Intn(len(halfSqEdges)-1)] // not inf, which would hide the sum
	case "sq_one_large": // window 0 but one 65504
		if j == n/2 {
			return sign | 0x7bff
		}
		return small()
	case "sq_one_tiny": // window 1 but one 2^-14
		if j == n/3 {
			return sign | 0x0400
		}
		return large()
	}
	return halfVecValue(rng, pattern, j, n)
}

// TestReduceFloatHalfSquares checks FLOAT16 SUM_SQUARE and L2 on the
// vector scan's squares (reduce_half_fast.glsl HALF_SQ, reduce_half.glsl)
// against the reference bit for bit: one row a halfSqPatterns pattern,
// rows starting on 16-byte boundaries, in workgroups of 4 lanes (many
// vectors a lane: carries, a lane leaving its window mid-row while the
// others stay); without -short also on the GPU plans of long rows at
// every alignment and of the whole tensor (split-K). -short runs one of
// the two functions, the seed's.
func TestReduceFloatHalfSquares(t *testing.T) {
	d, rng, fns := halfSqSetup(t, "the vector scan")
	first := rng.Intn(2)
	rows := uint32(len(halfSqPatterns))
	for i := range fns {
		if i > 0 && testing.Short() {
			break // -short: one function, the seed's (a pipeline compiles in seconds)
		}
		f := fns[(first+i)%2]
		n := 8 * (17*4 + rng.Intn(60))
		in := halfSqRows(rng, rows, n, n)
		desc := narrowGroupPlan{&ops.Reduce{Function: f, Input: in.Desc,
			Output: tensor.NewDesc(tensor.Float16, []uint32{rows, 1}), Axes: []uint32{1}}}
		p, err := desc.Plan(testutil.PlanContext(d))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(p.Kernels[0].Variant, shaders.ReduceFloatHalfVec) || p.Kernels[0].Spec[0] != 4 {
			t.Fatalf("the narrow group plan runs %s with %d lanes, want the vector scan with 4", p.Kernels[0].Variant, p.Kernels[0].Spec[0])
		}
		argCheckCase(t, d, argCase{desc: desc, in: in, what: fmt.Sprintf("%v FLOAT16 %dx%d, row r's values halfSqPatterns[r], workgroups of 4", f, rows, n)}, "", rng)
	}
	if testing.Short() {
		return
	}
	used := map[string]int{}
	for i, f := range fns {
		n, pad := 40000+rng.Intn(3000), 1+rng.Intn(7)
		in := halfSqRows(rng, rows, n, n+pad)
		axes := [][]uint32{{1}, {0, 1}}[i]
		what := fmt.Sprintf("%v FLOAT16 %dx%d row stride %d axes %v, row r's values halfSqPatterns[r]", f, rows, n, n+pad, axes)
		out := tensor.NewDesc(tensor.Float16, []uint32{rows, 1})
		if len(axes) == 2 {
			out = tensor.NewDesc(tensor.Float16, []uint32{1, 1})
		}
		c := argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: axes}, in: in, what: what}
		reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
		reduceCheckGPUPlan(t, d, c, nil, ops.ArgStrategyGroup, used, rng)
	}
	reduceCheckPlansUsed(t, used, shaders.ReduceFloatHalfVec)
}

// halfSqRows is a FLOAT16 rows×n tensor of row stride stride whose row r
// holds halfSqPatterns[r] (the padding random bits).
func halfSqRows(rng *rand.Rand, rows uint32, n, stride int) *tensor.Tensor {
	in := argInput(tensor.Float16, []uint32{rows, uint32(n)}, []uint32{uint32(stride), 1})
	rng.Read(in.Data)
	for r := uint32(0); r < rows; r++ {
		for j := 0; j < n; j++ {
			in.SetBits([]uint32{r, uint32(j)}, halfSqValue(rng, halfSqPatterns[r], j, n))
		}
	}
	return in
}

// TestReduceFloatHalfSquaresCol checks FLOAT16 SUM_SQUARE and L2 on the
// column kernel's squares (reduce_half_col.comp HALF_SQ) against the
// reference bit for bit: columns of every halfSqPatterns pattern
// (halfColCaseOf: 8-column groups of one pattern, and of a pattern
// a column), long enough for the carries (17·32 rows and more), packed,
// and padded rows under a broadcast kept axis with two reduced axes.
// -short runs one function on the packed case, the seed's.
func TestReduceFloatHalfSquaresCol(t *testing.T) {
	d, rng, fns := halfSqSetup(t, "the column kernel")
	first := rng.Intn(2)
	cols := uint32(8 * 2 * len(halfSqPatterns)) // every pattern in both kinds of group
	rows := uint32(17*32 + rng.Intn(200))
	type layout struct {
		name                 string
		sizes, strides, axes []uint32
	}
	cases := []layout{
		{"packed columns", []uint32{rows, cols}, nil, []uint32{0}},
		{"padded rows, broadcast kept axis, two reduced axes", []uint32{2, 2, rows / 2, cols}, []uint32{0, rows / 2 * (cols + 8), cols + 8, 1}, []uint32{1, 2}},
	}
	used := map[string]int{}
	for i, l := range cases {
		if i > 0 && testing.Short() {
			break
		}
		c := halfColCaseOf(rng, fns[(first+i)%2], l.sizes, l.strides, l.axes, halfSqPatterns, halfSqValue)
		c.what = l.name + ": " + c.what + ", patterns halfSqPatterns"
		_, p := testutil.GPUPlan(t, d, c.desc, "", c.what)
		if p.Kernels[0].Variant != shaders.ReduceFloatHalfCol {
			t.Fatalf("%s: the GPU plan runs %s (%s), not the column kernel", c.what, p.Kernels[0].Variant, p.Strategy)
		}
		reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
	}
	t.Logf("GPU plans run (strategy, kernels): %v", used)
}

// TestHalfSquaresGLSL runs shaders/reduce_half.glsl's squares (through
// testdata/reduce_half_sq_check.comp) on every FLOAT16: half_sq_outside
// must set exactly the halves outside each window (window 0: ±0 and
// [2^-14, 64); window 1: ±0 and [2^-4, 65504]), half_sq_pair must give
// the exact square in the window's units (2^-48, 2^-28) where the half is
// in it, and half_sq_exact the exact 128-bit square in units 2^-48 of
// every finite half, +inf's flag for ±inf and NaN's for NaN.
func TestHalfSquaresGLSL(t *testing.T) {
	d, k := glslCheckKernel(t, "reduce_half_sq_check", 4)
	if !d.Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64")
	}
	const n = 1 << 16
	in := make([]byte, 4*n)
	for h := 0; h < n; h++ {
		binary.LittleEndian.PutUint32(in[4*h:], uint32(h))
	}
	out := glslCheckRun(t, d, k, in, 48*n, binary.LittleEndian.AppendUint32(nil, n), n/64)
	word := func(h, i int) uint64 { return binary.LittleEndian.Uint64(out[48*h+8*i:]) }
	for h := 0; h < n; h++ {
		tm, e := uint64(h&0x7fff), h>>10&31
		m, s := tm, uint(0) // h = m·2^(max(e,1)-25): h·h = m·m·2^s units 2^-48
		if e > 0 {
			m, s = tm&0x3ff|0x400, uint(2*(e-1))
		}
		sqLo, sqHi := m*m<<s, uint64(0)
		if s > 0 {
			sqHi = m * m >> (64 - s)
		}
		in0 := tm == 0 || tm >= 0x400 && tm < 0x5400
		in1 := tm == 0 || tm >= 0x2c00 && tm < 0x7c00
		for w, in := range []bool{in0, in1} {
			if got := word(h, w) != 0; got == in {
				t.Fatalf("half %04x: half_sq_outside in window %d says outside %v", h, w, got)
			}
		}
		if in0 && word(h, 2) != sqLo {
			t.Fatalf("half %04x: half_sq_pair in window 0 is %d, want %d", h, word(h, 2), sqLo)
		}
		if want := sqHi<<44 | sqLo>>20; in1 && (sqLo&(1<<20-1) != 0 || word(h, 3) != want) {
			t.Fatalf("half %04x: half_sq_pair in window 1 is %d, want %d (%d·2^64 + %d over 2^20)", h, word(h, 3), want, sqHi, sqLo)
		}
		lo, hi, flags := word(h, 4), word(h, 5)&0xffffffff, word(h, 5)>>32
		var wantFlags uint64
		switch {
		case e == 31 && tm != 0x7c00:
			wantFlags, sqLo, sqHi = 4, 0, 0 // EXACT_NAN
		case e == 31:
			wantFlags, sqLo, sqHi = 1, 0, 0 // EXACT_POS_INF
		}
		if lo != sqLo || hi != sqHi || flags != wantFlags {
			t.Fatalf("half %04x: half_sq_exact gives %d·2^64 + %d, flags %d; want %d·2^64 + %d, flags %d", h, hi, lo, flags, sqHi, sqLo, wantFlags)
		}
	}
}

// halfSqSetup opens the device (skipping where kernel, which needs
// shaderInt64, is not planned), the seeded generator and the functions
// whose terms are x·x.
func halfSqSetup(t *testing.T, kernel string) (*dml.Device, *rand.Rand, []ops.ReduceFunction) {
	t.Helper()
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: " + kernel + " is not planned")
	}
	return d, testutil.Rand(t), []ops.ReduceFunction{ops.ReduceFunctionSumSquare, ops.ReduceFunctionL2}
}
