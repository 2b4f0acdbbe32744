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
