//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// reduceTermPatterns are the value patterns of the terms' tests: x·x
// denormal or rounding to 0 (squares), cancelling sums, huge and tiny
// magnitudes (x·x overflowing), denormals, ±0, ±inf and NaN.
var reduceTermPatterns = []string{"squares", "cancel", "magnitudes", "denormals", "zeros", "specials"}

// reduceTermFns are the functions whose terms the kernels compute without
// a sign (|x|, x·x: reduce_part_float.glsl TERMS_NONNEG), and SUM, whose
// terms keep theirs.
var reduceTermFns = []ops.ReduceFunction{ops.ReduceFunctionSumSquare, ops.ReduceFunctionL2, ops.ReduceFunctionL1, ops.ReduceFunctionSum}

// TestReduceFloatTerms: SUM_SQUARE, L2, L1 and SUM of FLOAT32 over
// squares that round to denormals and to 0, and rule 41 and 43's edges,
// on the strategies forced and on the GPU plans, every result equal to
// the reference bit for bit; the integer squares (mul_f32) with the
// float controls disabled, TestReduceFloatSquareNative the native ones.
func TestReduceFloatTerms(t *testing.T) {
	reduceFloatTermsCheck(t, testutil.OpenDML(t, dml.DeviceOptions{Disable: reduceFmulFloatControls}), "")
}

// TestReduceFloatSquareNative: TestReduceFloatTerms on the native
// squares (the first passes ending in shaders.ReduceFmulHW). It needs a
// device that reports the three float controls those kernels ask for:
// lavapipe reports no shaderDenormPreserveFloat32 (it flushes denormals),
// so there it skips, and the planner never runs them there.
func TestReduceFloatSquareNative(t *testing.T) {
	reduceFloatTermsCheck(t, openFloatControls(t, "the native squares"), shaders.ReduceFmulHW)
}

// reduceFloatTermsCheck is TestReduceFloatTerms on d, whose SUM_SQUARE
// and L2 first passes end in hw (and no other kernel does).
func reduceFloatTermsCheck(t *testing.T, d *dml.Device, hw string) {
	rng := testutil.Rand(t)
	used := map[string]int{}
	k := 0
	// Each case compiles its own pipelines (3-5 s a plan on lavapipe):
	// there the squares only (TestReduceFloatRows runs these functions
	// over the other patterns), and with -short none
	// (TestReduceFloatColumnSegments runs SUM_SQUARE's squares on
	// columns), SUM_SQUARE's examples only; the native squares over
	// every pattern.
	patterns := reduceTermPatterns[:1]
	if hw != "" {
		patterns = reduceTermPatterns
	}
	for _, f := range reduceTermFns {
		for _, pattern := range patterns {
			if testing.Short() {
				continue
			}
			k++
			c := reduceFloatShapedCase(rng, f, tensor.Float32, pattern, k)
			strat := reduceStrategies[k%len(reduceStrategies)]
			reduceFloatCheckSquares(t, d, reduceForced(c.desc, strat), c.what, f, hw)
			argCheckCase(t, d, c, strat, rng)
			g := &testutil.ForcedPlan{Desc: c.desc, DeviceType: caps.DeviceTypeDiscreteGPU}
			reduceFloatCheckSquares(t, d, g, c.what, f, hw)
			reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
		}
	}
	if !testing.Short() {
		t.Logf("GPU plans (strategy, kernels): %v", used)
	}
	reduceFloatTermExamples(t, d, hw)
}

// reduceFloatTermExamples checks rules 41 and 43's edges of the terms on
// d's GPU plan (and, hw set, the group strategy), a row of four each,
// whose SUM_SQUARE and L2 first passes end in hw.
func reduceFloatTermExamples(t *testing.T, d *dml.Device, hw string) {
	rng := testutil.Rand(t)
	const below = 0x1p64 - 0x1p40 // the largest x whose x·x is finite
	tiny := 1.75 * 0x1p-75        // x·x = 3.0625·2^-150 rounds to the denormal 2^-148
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	for _, c := range []struct {
		f    ops.ReduceFunction
		rows [][4]float64
		want []float64
	}{
		{ops.ReduceFunctionSumSquare, [][4]float64{
			{below, 0, 0, 0}, {below, below, 0, 0}, {0x1p64, 0, 0, 0}, {tiny, tiny, tiny, tiny},
			{0x1p-75, 0, 0, 0}, {negZero, negZero, negZero, negZero}, {-inf, 1, 2, 3}, {1, nan, 2, 3}, {-3, 4, 0, 0}},
			[]float64{0x1p128 - 0x1p105, inf, inf, 0x1p-146, 0, 0, inf, nan, 25}},
		{ops.ReduceFunctionL2, [][4]float64{{3e30, 4e30, 0, 0}, {-3, -4, 0, 0}, {tiny, tiny, tiny, tiny}, {negZero, negZero, negZero, negZero}},
			[]float64{inf, 5, math.Sqrt(0x1p-146), 0}},
		{ops.ReduceFunctionL1, [][4]float64{{negZero, negZero, negZero, negZero}, {-1e8, 1, 1e8, -1}, {-inf, 1, 0, 0}, {1, -nan, 0, 0}, {-0x1p-149, -0x1p-149, 0, 0}},
			[]float64{0, 2e8, inf, nan, 0x1p-148}},
		{ops.ReduceFunctionSum, [][4]float64{{negZero, negZero, negZero, negZero}, {-1e8, 1, 1e8, 1}, {-inf, 1, 0, 0}},
			[]float64{negZero, 2, -inf}},
	} {
		if testing.Short() && c.f != ops.ReduceFunctionSumSquare {
			continue
		}
		in := argInput(tensor.Float32, []uint32{uint32(len(c.rows)), 4}, nil)
		for i, row := range c.rows {
			for j, v := range row {
				in.SetBits([]uint32{uint32(i), uint32(j)}, uint64(math.Float32bits(float32(v))))
			}
		}
		desc := &ops.Reduce{Function: c.f, Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{uint32(len(c.rows)), 1}), Axes: []uint32{1}}
		// The GPU plan (thread), and on a device with the native
		// squares the group kernel too.
		descs := []ops.Desc{&testutil.ForcedPlan{Desc: desc, DeviceType: caps.DeviceTypeDiscreteGPU}}
		if hw != "" {
			descs = append(descs, reduceForced(desc, ops.ArgStrategyGroup))
		}
		for _, run := range descs {
			reduceFloatCheckSquares(t, d, run, fmt.Sprint(c.f), c.f, hw)
			res := testutil.CheckOperator(t, d, run, []*tensor.Tensor{in}, rng)
			for i, w := range c.want {
				want := math.Float32bits(float32(w))
				if math.IsNaN(w) {
					want = 0x7fc00000 // rule 43's one NaN
				}
				if got := uint32(res.Outputs[0].Bits(uint32(i), 0)); got != want {
					t.Errorf("%v %v: got %#x (%g), want %#x (%g)", c.f, c.rows[i], got, math.Float32frombits(got), want, w)
				}
			}
		}
	}
}

// reduceFloatCheckSquares fails unless desc's plan on d runs a first
// pass ending in hw exactly where f squares (SUM_SQUARE, L2) and hw is
// set, and no combine ending in shaders.ReduceFmulHW.
func reduceFloatCheckSquares(t *testing.T, d *dml.Device, desc ops.Desc, what string, f ops.ReduceFunction, hw string) {
	t.Helper()
	p, err := desc.Plan(testutil.PlanContext(d))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	square := f == ops.ReduceFunctionSumSquare || f == ops.ReduceFunctionL2
	for i, k := range p.Kernels {
		want := i == 0 && square && hw != ""
		if got := strings.HasSuffix(k.Variant, shaders.ReduceFmulHW); got != want {
			t.Errorf("%s: dispatch %d runs %s, want the native squares %v", what, i, k.Variant, want)
		}
	}
}

// TestReduceFloatSquareNativePlan: the h100 profile's SUM_SQUARE and L2
// plans of FLOAT32 square natively in the first pass exactly where the
// device reports all three float controls (a device fact); FLOAT16 (whose
// squares are exact in FLOAT32) and the other functions never do.
func TestReduceFloatSquareNativePlan(t *testing.T) {
	m, whole := []uint32{4096, 16384}, []uint32{1 << 24}
	checkNativePlans(t, true, []nativePlanCase{
		{tensor.Float32, ops.ReduceFunctionSumSquare, caps.Features{}, m, []uint32{1}, true},
		{tensor.Float32, ops.ReduceFunctionSumSquare, caps.Features{}, m, []uint32{0}, true},
		{tensor.Float32, ops.ReduceFunctionL2, caps.Features{}, whole, []uint32{0}, true},
		{tensor.Float32, ops.ReduceFunctionL2, caps.Features{}, m, []uint32{0}, true},
		{tensor.Float32, ops.ReduceFunctionSumSquare, caps.Features{DenormPreserveFloat32: true}, m, []uint32{1}, false},
		{tensor.Float32, ops.ReduceFunctionL2, caps.Features{SignedZeroInfNanPreserveFloat32: true}, m, []uint32{0}, false},
		{tensor.Float32, ops.ReduceFunctionSumSquare, caps.Features{RoundingModeRTEFloat32: true}, whole, []uint32{0}, false},
		{tensor.Float16, ops.ReduceFunctionSumSquare, caps.Features{}, m, []uint32{1}, false},
		{tensor.Float32, ops.ReduceFunctionSum, caps.Features{}, m, []uint32{0}, false},
		{tensor.Float32, ops.ReduceFunctionL1, caps.Features{}, m, []uint32{1}, false},
	})
}

// TestReduceFloatColumnSegments: FLOAT32 columns of 4096 rows (the h100
// axis-0 case's) on the GPU plan, which cuts each into as many segments
// as partials of at most 1/40 of the bytes read allow (8 of 512 rows:
// lanes walking 512 rows, the combine reading 8), and into 7 and 9 with
// the in-flight target tuned, every function's result equal to the
// reference bit for bit.
func TestReduceFloatColumnSegments(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	fns := []ops.ReduceFunction{ops.ReduceFunctionSumSquare, ops.ReduceFunctionSum, ops.ReduceFunctionL1, ops.ReduceFunctionAverage}
	for i, nseg := range []uint64{8, 7, 9} {
		if testing.Short() && i > 0 {
			break
		}
		for fi, f := range fns {
			// 2-4 s a case on lavapipe: with -short SUM_SQUARE at 8
			// segments only, and SUM_SQUARE alone at 7 and 9.
			if fi > 0 && (testing.Short() || nseg != 8) {
				break
			}
			pattern := reduceTermPatterns[(i*len(fns)+fi)%len(reduceTermPatterns)]
			c := reduceFloatCase(rng, f, argInput(tensor.Float32, []uint32{4096, 16}, nil), []uint32{0}, pattern)
			tune := ops.Tuning{}
			if nseg != 8 {
				// An in-flight target of nseg lanes of 16 bytes a
				// column on one compute unit, the partials uncapped.
				tune = ops.Tuning{"computeUnits": "1", "argColInFlightPerCU": fmt.Sprint(16 * 16 * nseg), "argColPartialDiv": "1"}
			}
			g := &testutil.ForcedPlan{Desc: c.desc, DeviceType: caps.DeviceTypeDiscreteGPU, Tuning: tune}
			p, err := g.Plan(testutil.PlanContext(d))
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			// 16 columns of nseg 48-byte partials.
			if got := p.TemporarySize / (16 * 48); got != nseg || len(p.Kernels) != 2 {
				t.Fatalf("%s, tuning %v: %d segments a column in %d dispatches, want %d in 2", c.what, tune, got, len(p.Kernels), nseg)
			}
			reduceCheckGPUPlan(t, d, c, tune, "", map[string]int{}, rng)
		}
	}
}
