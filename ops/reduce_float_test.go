//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// reduceFloatFns are REDUCE's float functions with kernels.
var reduceFloatFns = []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionAverage, ops.ReduceFunctionL1,
	ops.ReduceFunctionSumSquare, ops.ReduceFunctionL2, ops.ReduceFunctionLogSum, ops.ReduceFunctionLogSumExp}

// reduceFloatPatterns are the float value patterns (reduceFloatValue).
var reduceFloatPatterns = []string{"cancel", "magnitudes", "denormals", "zeros", "specials", "random"}

// reduceFloatValue is the bits of dt's element at block position j: terms
// that cancel earlier ones (and the exact sum with them), huge and tiny
// magnitudes side by side, denormals, signed zeros, infinities and NaN,
// any bits.
func reduceFloatValue(rng *rand.Rand, dt tensor.DataType, pattern string, j uint32) uint64 {
	half := dt == tensor.Float16
	bits := func(f float64) uint64 {
		t := tensor.New(dt, 1)
		t.SetFloat64([]uint32{0}, f)
		return t.Bits(0)
	}
	sign := uint64(rng.Intn(2))
	top := uint64(31)
	if half {
		top = 15
	}
	switch pattern {
	case "cancel": // ±(a few magnitudes): long runs cancel exactly
		v := []float64{1e8, 1, 3.5, 1e-3, 65504, 0.1}[rng.Intn(6)]
		if half {
			v = []float64{1000, 1, 3.5, 1e-3, 65504, 0.1}[rng.Intn(6)]
		}
		return bits(v) | sign<<top
	case "magnitudes":
		if half {
			return uint64(rng.Intn(0x7c00)) | sign<<top
		}
		return uint64(rng.Intn(0x7f800000)) | sign<<top
	case "denormals":
		if half {
			return uint64(rng.Intn(0x400)) | sign<<top
		}
		return uint64(rng.Intn(0x800000)) | sign<<top
	case "zeros":
		if rng.Intn(8) == 0 {
			return bits(1) | sign<<top
		}
		return sign << top
	case "near1": // ±(1 + d), |d| < 1/16: long products stay finite and round every step
		return bits(1+(rng.Float64()*2-1)/16) | sign<<top
	case "crossing": // huge and tiny factors: partial products leave the range in some orders
		e := 20 + rng.Intn(100)
		if half {
			e = 2 + rng.Intn(14)
		}
		if rng.Intn(2) == 0 {
			e = -e
		}
		return bits(math.Ldexp(1+rng.Float64(), e)) | sign<<top
	case "underflow": // factors below 1: products sink through the denormals to 0
		e := 1 + rng.Intn(24)
		if half {
			e = 1 + rng.Intn(4)
		}
		return bits(math.Ldexp(1+rng.Float64(), -e)) | sign<<top
	case "squares": // x·x below half of 2^-149 (+0), a denormal or a tiny normal
		e := -80 + rng.Intn(19)
		if half {
			e = -24 + rng.Intn(40)
		}
		return bits(math.Ldexp(1+rng.Float64(), e)) | sign<<top
	case "specials":
		switch rng.Intn(12) {
		case 0:
			return bits(math.Inf(1)) | sign<<top
		case 1:
			return reduceNaNs[dt][rng.Intn(len(reduceNaNs[dt]))]
		case 2:
			return bits(65504) | sign<<top // FLOAT16's largest, x·x past it
		}
		return bits(float64(rng.Intn(5))) | sign<<top
	}
	if half {
		return uint64(rng.Intn(1 << 16))
	}
	return uint64(rng.Uint32())
}

// reduceFloatCase is function f over axes of in filled with pattern.
func reduceFloatCase(rng *rand.Rand, f ops.ReduceFunction, in *tensor.Tensor, axes []uint32, pattern string) argCase {
	rng.Read(in.Data)
	tensor.ForEachIndex(in.Desc.Sizes, func(c []uint32) {
		in.SetBits(c, reduceFloatValue(rng, in.Desc.DataType, pattern, 0))
	})
	os := argOutSizes(in.Desc.Sizes, axes)
	out := tensor.NewStridedDesc(in.Desc.DataType, os, argLayout(rng, os, []string{"packed", "padded"}[rng.Intn(2)]))
	what := fmt.Sprintf("%v %v sizes %v strides %v axes %v values %s", f, in.Desc.DataType, in.Desc.Sizes, in.Desc.Strides, axes, pattern)
	return argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: axes}, in: in, what: what}
}

// reduceFloatShapedCase is f over one of five shapes, by k: rows of up to
// 40, rows of hundreds, rows of 40,000 and more (split-K segments),
// columns (the column split), and a random shape, layout and axes.
func reduceFloatShapedCase(rng *rand.Rand, f ops.ReduceFunction, dt tensor.DataType, pattern string, k int) argCase {
	switch k % 5 {
	case 0:
		return reduceFloatCase(rng, f, argInput(dt, []uint32{uint32(1 + rng.Intn(4)), uint32(1 + rng.Intn(40))}, nil), []uint32{1}, pattern)
	case 1:
		return reduceFloatCase(rng, f, argInput(dt, []uint32{uint32(1 + rng.Intn(5)), uint32(256 + rng.Intn(1200))}, nil), []uint32{1}, pattern)
	case 2:
		return reduceFloatCase(rng, f, argInput(dt, []uint32{1 + uint32(rng.Intn(2)), uint32(40000 + rng.Intn(9000))}, nil), []uint32{1}, pattern)
	case 3:
		return reduceFloatCase(rng, f, argInput(dt, []uint32{uint32(1000 + rng.Intn(3000)), uint32(3 + 2*rng.Intn(6))}, nil), []uint32{0}, pattern)
	}
	sizes, axes := argRandomShape(rng, 3000)
	return reduceFloatCase(rng, f, argInput(dt, sizes, argLayout(rng, sizes, argLayoutModes[rng.Intn(len(argLayoutModes))])), axes, pattern)
}

// TestReduceFloatRows runs every float function on FLOAT32 and FLOAT16
// over rows short and long (split-K segments), columns (the column
// split), whole tensors and random shapes, on lavapipe's plans with each
// strategy forced and on the GPU plans (workgroups of 256 lanes, the row
// and column splits, both combines), against the reference bit for bit.
func TestReduceFloatRows(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	used := map[string]int{}
	k, n := 0, 0
	for fi, f := range reduceFloatFns {
		for ti, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
			for pi, pattern := range reduceFloatPatterns {
				// Each case compiles its own pipelines (about 2 s on
				// lavapipe): half the triples in a long run (testutil.Long),
				// one pattern per function and type otherwise (the patterns
				// in turn), with -short one each of SUM, L1, L2 and
				// LOG_SUM_EXP.
				n++
				switch {
				case testing.Short() && (fi%2 == 1 || ti != fi/2%2 || pi != fi%len(reduceFloatPatterns)),
					testutil.Long() && pi%2 == n%2,
					!testing.Short() && !testutil.Long() && pi != (2*fi+ti)%len(reduceFloatPatterns):
					continue
				}
				k++
				c := reduceFloatShapedCase(rng, f, dt, pattern, k)
				argCheckCase(t, d, c, reduceStrategies[k%len(reduceStrategies)], rng)
				tunes := []ops.Tuning{nil, {"argCombineGroupMin": "2"}}
				if testing.Short() {
					tunes = tunes[k%2 : k%2+1]
				}
				for _, tune := range tunes {
					reduceCheckGPUPlan(t, d, c, tune, "", used, rng)
				}
			}
		}
	}
	if testing.Short() {
		t.Logf("GPU plans (strategy, kernels): %v", used)
		return
	}
	// Split-K's 48 segments a block, at least a subgroup of 16, so
	// that the workgroup combine runs whatever the shapes drawn above.
	c := reduceFloatCase(rng, ops.ReduceFunctionSum, argInput(tensor.Float32, []uint32{200000}, nil), []uint32{0}, "cancel")
	c.desc = &testutil.ForcedPlan{Desc: c.desc, Kernel: ops.ArgStrategySplitK}
	reduceCheckGPUPlan(t, d, c, ops.Tuning{"argCombineGroupMin": "2"}, "", used, rng)
	reduceCheckPlansUsed(t, used, "reduce_float_combine_group", "reduce_float_combine+", "_thread", "_group")
}

// TestReduceFloatExamples: the measured blocks, whose exact
// answers differ from a left-to-right FLOAT32 scan, on every strategy.
func TestReduceFloatExamples(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	ones := func(first float32, n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		v[0] = first
		return v
	}
	cases := []struct {
		fn   ops.ReduceFunction
		in   []float32
		want float32
	}{
		{ops.ReduceFunctionSum, []float32{1e8, 1, -1e8, 1}, 2},
		{ops.ReduceFunctionSum, ones(1<<24, 5), 1<<24 + 4},
		{ops.ReduceFunctionSum, ones(1<<24, 64), 16777280}, // 16777279 rounds to even
		{ops.ReduceFunctionAverage, []float32{0.1, 0.2, 0.4}, 0.23333333},
		{ops.ReduceFunctionL2, []float32{3, 4}, 5},
		{ops.ReduceFunctionL2, []float32{3e30, 4e30}, float32(math.Inf(1))},
		{ops.ReduceFunctionL1, []float32{-1e8, 1, 1e8, -1}, 2e8},
		{ops.ReduceFunctionSumSquare, []float32{1e20, -1e20}, float32(math.Inf(1))},
		{ops.ReduceFunctionLogSum, []float32{0, 0}, float32(math.Inf(-1))},
		{ops.ReduceFunctionLogSum, []float32{1, 1}, float32(math.Ln2)},
		{ops.ReduceFunctionLogSumExp, []float32{1000, 1000}, float32(math.Inf(1))},
		{ops.ReduceFunctionLogSumExp, []float32{-1000, -1000}, float32(math.Inf(-1))},
		{ops.ReduceFunctionLogSumExp, []float32{0, 0}, float32(math.Ln2)},
	}
	for i, c := range cases {
		in := argInput(tensor.Float32, []uint32{uint32(len(c.in))}, nil)
		for i, v := range c.in {
			in.SetBits([]uint32{uint32(i)}, uint64(math.Float32bits(v)))
		}
		// Each strategy compiles its own pipelines: a case runs one of
		// them under -short, two by default and all with VKDML_LONG (the
		// cases rotate, so every strategy still runs).
		n := len(reduceStrategies)
		switch {
		case testing.Short():
			n = 1
		case !testutil.Long():
			n = 2
		}
		for j := range n {
			strat := reduceStrategies[(i+j)%len(reduceStrategies)]
			desc := &ops.Reduce{Function: c.fn, Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1}), Axes: []uint32{0}}
			res := testutil.CheckOperator(t, d, reduceForced(desc, strat), []*tensor.Tensor{in}, rng)
			if got := res.Outputs[0].Bits(0); got != uint64(math.Float32bits(c.want)) {
				t.Errorf("%v %v [%q]: got %g, want %g", c.fn, c.in[:min(len(c.in), 5)], strat, math.Float32frombits(uint32(got)), c.want)
			}
		}
	}
}

// TestReduceFloatPast2To24 sums 2^24 + 4099 ones after a 0.5 (a FLOAT32
// scan stalls at 2^24; the exact sum is 16781315.5, which rounds to
// 16781316) on the GPU plan and on split-K; not under -short.
func TestReduceFloatPast2To24(t *testing.T) {
	if testing.Short() {
		t.Skip("a 64 MiB input")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 1<<24 + 4100
	in := argInput(tensor.Float32, []uint32{n}, nil)
	for i := uint32(0); i < n; i++ {
		v := float32(1)
		if i == 0 {
			v = 0.5
		}
		in.SetBits([]uint32{i}, uint64(math.Float32bits(v)))
	}
	for _, strat := range []string{"", ops.ArgStrategySplitK} {
		desc := &ops.Reduce{Function: ops.ReduceFunctionSum, Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1}), Axes: []uint32{0}}
		res := testutil.CheckOperator(t, d, reduceForced(desc, strat), []*tensor.Tensor{in}, rng)
		if got := math.Float32frombits(uint32(res.Outputs[0].Bits(0))); got != 16781316 {
			t.Errorf("[%q]: got %v, want 16781316", strat, got)
		}
	}
}

// laneWindowRows are the rows of TestReduceFloatLaneWindow: each drives
// the lane window of shaders/reduce_part_float.glsl (LANE_W = 24 binades,
// placed LANE_ABOVE = 3 above the term that moves it, within biased
// exponents [1, 254]) across one of its boundaries.
var laneWindowRows = []string{
	"up",       // exponents rising along the row: every lane moves its window up, again and again
	"edges",    // exponents e0-21, e0-20, e0-19, e0, e0+3, e0+4, e0+24, e0-40: just inside and outside any window
	"extremes", // 2^±100, 1, denormals and ±0 side by side
	"headroom", // a lane's first term small, then terms of the window's top binade, all ones, one sign
	"cancel",   // in-window terms and their negations, with -0 among them: exactly +0
	"negzero",  // -0 only: -0
	"inf",      // in-window terms and one +Inf
	"nan",      // in-window terms, -Inf and NaN
	"top",      // pairs x, -x near the largest finite value and terms near 1 (the window clamps at 254)
	"topnan",   // near the largest finite value, and a NaN, which no window may take
	"bottom",   // the least normals and denormals (the window clamps at 1)
	"random",   // any bits
}

// laneWindowValue is the bits of row pattern's element j of n in a
// binary format of ebits exponent and mbits significand bits.
func laneWindowValue(rng *rand.Rand, pattern string, j, n int, ebits, mbits uint) uint64 {
	emax := uint64(1)<<ebits - 1 // infinities and NaN
	bias := int(emax >> 1)
	sign := uint64(rng.Intn(2)) << (ebits + mbits)
	mant := func() uint64 { return uint64(rng.Int63()) & (1<<mbits - 1) }
	// at is a normal of biased exponent e (clamped to the normals).
	at := func(e int) uint64 { return uint64(min(max(e, 1), int(emax)-1))<<mbits | mant() }
	span := 2 * bias // the normals' exponents, about
	switch pattern {
	case "up":
		if rng.Intn(16) == 0 {
			return sign | at(1+rng.Intn(span)) // a term anywhere
		}
		return sign | at(1+j*span/n)
	case "edges":
		d := []int{-21, -20, -19, 0, 3, 4, 24, -40}[rng.Intn(8)]
		return sign | at(bias+d*span/254)
	case "extremes":
		switch rng.Intn(5) {
		case 0:
			return sign | at(bias+100*span/254)
		case 1:
			return sign | at(bias-100*span/254)
		case 2:
			return sign | mant() // a denormal or a zero
		case 3:
			return sign
		}
		return sign | at(bias)
	case "headroom":
		if j < 256 { // each lane's first term, in every plan drawn here
			return uint64(bias) << mbits
		}
		return uint64(bias+3)<<mbits | (1<<mbits - 1)
	case "cancel":
		if j%7 == 3 {
			return 1 << (ebits + mbits) // -0
		}
		return laneWindowPair(j, n, bias-10, 24, ebits, mbits)
	case "negzero":
		return 1 << (ebits + mbits)
	case "inf", "nan":
		if j == n/2 {
			if pattern == "inf" {
				return emax << mbits
			}
			return emax<<mbits | 1<<(mbits-1)
		}
		if pattern == "nan" && j == n/3 {
			return 1<<(ebits+mbits) | emax<<mbits
		}
		return sign | at(bias+rng.Intn(8))
	case "top":
		if j%5 == 2 {
			return sign | at(bias+rng.Intn(3))
		}
		return laneWindowPair(j, n, int(emax)-3, 3, ebits, mbits)
	case "topnan":
		if j == n/2 {
			return emax<<mbits | 1<<(mbits-1)
		}
		return sign | at(int(emax)-1-rng.Intn(3))
	case "bottom":
		if rng.Intn(2) == 0 {
			return sign | mant()
		}
		return sign | at(1+rng.Intn(2))
	}
	return uint64(rng.Int63()) & (1<<(ebits+mbits+1) - 1)
}

// laneWindowPair is element j of n of a row whose elements j and n-1-j
// are x and -x (the middle one of an odd row +0), x of a biased exponent
// in [e, e+k) drawn from j's pair alone.
func laneWindowPair(j, n, e, k int, ebits, mbits uint) uint64 {
	pair := min(j, n-1-j)
	r := rand.New(rand.NewSource(int64(pair)))
	v := uint64(e+r.Intn(k))<<mbits | uint64(r.Int63())&(1<<mbits-1)
	switch {
	case j == n-1-j:
		return 0
	case j > pair:
		v |= 1 << (ebits + mbits)
	}
	return v
}

// TestReduceFloatLaneWindow holds the lane window to the reference, bit
// for bit: every row of laneWindowRows, as rows (axis 1: the group
// kernel, four loads a trip) and as columns (axis 0: the thread kernel,
// which scans a whole column in one lane), on the strategies forced (two
// a case in turn, all with VKDML_LONG) and on the GPU plans, for SUM and
// L1 on FLOAT32 and SUM on FLOAT16 (with -short, SUM on FLOAT32 on the
// planner's kernels). A
// window that drops a term or admits a NaN, or a flush that drops or
// shifts a bit, fails it.
func TestReduceFloatLaneWindow(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := 3000
	if testing.Short() {
		n = 1200
	}
	p, k := len(laneWindowRows), 0
	fns := []struct {
		fn ops.ReduceFunction
		dt tensor.DataType
	}{{ops.ReduceFunctionSum, tensor.Float32}, {ops.ReduceFunctionL1, tensor.Float32}, {ops.ReduceFunctionSum, tensor.Float16}}
	if testing.Short() { // each plan compiles its own pipelines, about 4 s
		fns = fns[:1]
	}
	for _, c := range fns {
		ebits, mbits := uint(8), uint(23)
		if c.dt == tensor.Float16 {
			ebits, mbits = 5, 10
		}
		for _, axis := range []uint32{1, 0} {
			sizes := []uint32{uint32(p), uint32(n)}
			if axis == 0 {
				sizes = []uint32{uint32(n), uint32(p)}
			}
			in := argInput(c.dt, sizes, nil)
			for r, pattern := range laneWindowRows {
				for j := 0; j < n; j++ {
					at := []uint32{uint32(r), uint32(j)}
					if axis == 0 {
						at = []uint32{uint32(j), uint32(r)}
					}
					in.SetBits(at, laneWindowValue(rng, pattern, j, n, ebits, mbits))
				}
			}
			os := argOutSizes(sizes, []uint32{axis})
			ac := argCase{desc: &ops.Reduce{Function: c.fn, Input: in.Desc, Output: tensor.NewDesc(c.dt, os), Axes: []uint32{axis}}, in: in,
				what: fmt.Sprintf("%v %v sizes %v axis %d rows %v", c.fn, c.dt, sizes, axis, laneWindowRows)}
			if testing.Short() {
				// The planner's kernel on lavapipe: group (axis 1),
				// thread (axis 0).
				argCheckCase(t, d, ac, "", rng)
				continue
			}
			// Two strategies a case, in turn over the six cases (every
			// strategy runs), all of them with VKDML_LONG; then the GPU
			// plan.
			strats := 2
			if testutil.Long() {
				strats = len(reduceStrategies)
			}
			for j := range strats {
				argCheckCase(t, d, ac, reduceStrategies[(k+j)%len(reduceStrategies)], rng)
			}
			k += strats
			reduceCheckGPUPlan(t, d, ac, nil, "", map[string]int{}, rng)
		}
	}
}

// TestReduceLogSumExpFallback: LOG_SUM_EXP of blocks whose one finite term
// is exp of an input the kernels' fast exp leaves to its fallback (a
// FLOAT32 rounding midpoint within its error: ops.ExpFastHardInputs, and
// the FLOAT16 x that fall back), the rest -inf (terms 0), so the answer
// is log of that term alone and shows a wrong rounding; also rule 40's
// special cases. Rows (axis 1) and columns (axis 0), on every strategy
// forced and the GPU plans, equal to the reference bit for bit.
func TestReduceLogSumExpFallback(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()), 89, -104,
		88.72283, 88.72284, -87.33654, -103.97208, 0x1p-26, -0x1p-26, 0x1p-25, 0x1p-149, -0x1p-149, 1, -1}
	var xs32 []uint32
	for _, x := range ops.ExpFastHardInputs {
		xs32 = append(xs32, x, x^1<<31)
	}
	for _, v := range specials {
		xs32 = append(xs32, math.Float32bits(v))
	}
	xs16 := []uint32{0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x5990, 0xd990, 0x0001, 0x3c00, 0xbc00} // FLOAT16 0, inf, NaN, 178, denormal, ±1
	near16 := 0
	for h := uint32(0); h < 1<<16; h++ {
		if ops.ExpFastFallsBackNear(ops.HalfToFloat32Bits(uint16(h))) {
			xs16 = append(xs16, h)
			near16++
		}
	}
	t.Logf("%d FLOAT16 x fall back near a midpoint", near16)
	strats := reduceStrategies
	// noTableCap is a binding window below TableExpHalfBytes: its device
	// plans FLOAT16 LOG_SUM_EXP without the table (opened on first use).
	const noTableCap = 128 << 10
	var dNoTable *dml.Device
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		xs := xs32
		if dt == tensor.Float16 {
			xs = xs16
		}
		for axis := uint32(0); axis < 2; axis++ {
			const n = 37
			sizes := []uint32{uint32(len(xs)), n}
			if axis == 0 {
				sizes = []uint32{n, uint32(len(xs))}
			}
			in := argInput(dt, sizes, nil)
			negInf := uint64(0xff800000)
			if dt == tensor.Float16 {
				negInf = 0xfc00
			}
			for i, x := range xs {
				for j := uint32(0); j < n; j++ {
					v := negInf
					if j == uint32(i*7)%n {
						v = uint64(x)
					}
					c := []uint32{uint32(i), j}
					if axis == 0 {
						c = []uint32{j, uint32(i)}
					}
					in.SetBits(c, v)
				}
			}
			os := argOutSizes(sizes, []uint32{axis})
			c := argCase{desc: &ops.Reduce{Function: ops.ReduceFunctionLogSumExp, Input: in.Desc, Output: tensor.NewDesc(dt, os), Axes: []uint32{axis}},
				in: in, what: fmt.Sprintf("LOG_SUM_EXP %v %v axis %d of the fallback's inputs", dt, sizes, axis)}
			// Each strategy compiles its own pipelines (seconds on
			// lavapipe): under -short one strategy, drawn, for the
			// FLOAT32 rows (TestFloatFunctionsGLSL runs exp_f32 on every
			// input here).
			if testing.Short() {
				if dt == tensor.Float32 && axis == 1 {
					argCheckCase(t, d, c, strats[rng.Intn(len(strats))], rng)
				}
				continue
			}
			// Without -short: two strategies, drawn, for the FLOAT32 rows
			// (every one with VKDML_LONG), a drawn one for the other
			// cases, and the GPU plans.
			rows, first := 1, rng.Intn(len(strats))
			if dt == tensor.Float32 && axis == 1 {
				rows = 2
				if testutil.Long() {
					rows = len(strats)
				}
			}
			for j := range rows {
				argCheckCase(t, d, c, strats[(first+j)%len(strats)], rng)
			}
			reduceCheckGPUPlan(t, d, c, nil, "", map[string]int{}, rng)
			if dt == tensor.Float16 {
				// The plans above read the terms from TableExpHalf; a
				// device whose binding window cannot hold it computes
				// rule 40's exp (the kernels without _exptab).
				if dNoTable == nil {
					dNoTable = testutil.OpenDML(t, dml.DeviceOptions{BindingWindowCap: noTableCap})
				}
				for _, strat := range strats {
					reduceCheckExpTable(t, d, 0, c, strat, true)
					reduceCheckExpTable(t, dNoTable, noTableCap, c, strat, false)
				}
				argCheckCase(t, dNoTable, c, strats[(first+rows)%len(strats)], rng)
				reduceCheckGPUPlan(t, dNoTable, c, nil, "", map[string]int{}, rng)
			}
		}
	}
}

// reduceCheckExpTable fails unless c's plans on d (opened with the binding
// window cap, 0 for none), on d's own device type and as on a discrete
// GPU, with the strategy strat ("": the planner's), take a kernel that
// reads TableExpHalf (a variant named with shaders.ReduceFloatExpTable)
// exactly when want.
func reduceCheckExpTable(t *testing.T, d *dml.Device, windowCap uint64, c argCase, strat string, want bool) {
	t.Helper()
	for _, dev := range []caps.DeviceType{d.GPU().Info.Type, caps.DeviceTypeDiscreteGPU} {
		ctx := testutil.PlanContext(d)
		ctx.BindingWindowCap, ctx.DeviceType, ctx.Kernel = windowCap, dev, strat
		p, err := c.desc.Plan(ctx)
		if err != nil {
			t.Fatalf("%s [%q] window cap %d: %v", c.what, strat, windowCap, err)
		}
		var variants []string
		got := false
		for _, k := range p.Kernels {
			variants = append(variants, k.Variant)
			got = got || strings.Contains(k.Variant, shaders.ReduceFloatExpTable)
		}
		if got != want {
			t.Fatalf("%s [%q] window cap %d, %v: kernels %v, want a table kernel (%s) %v", c.what, strat, windowCap, dev, variants, shaders.ReduceFloatExpTable, want)
		}
	}
}
