package ops

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/testseed"
)

func f32(v float32) uint32 { return math.Float32bits(v) }

func f32s(vs ...float32) []uint32 {
	out := make([]uint32, len(vs))
	for i, v := range vs {
		out[i] = f32(v)
	}
	return out
}

// randomFloat32Bits draws finite FLOAT32 bits of any magnitude, denormals
// and zeros included.
func randomFloat32Bits(rng *rand.Rand) uint32 {
	for {
		x := rng.Uint32()
		switch rng.Intn(4) {
		case 0: // magnitudes near 1
			x = x&0x807fffff | uint32(110+rng.Intn(30))<<23
		case 1: // denormals and zeros
			x &= 0x80000000 | uint32(rng.Intn(1<<uint(rng.Intn(24)+1)))
		}
		if !isNaN32(x) && !isInf32(x) {
			return x
		}
	}
}

// exactSumBig is Σ xs with math/big, exactly.
func exactSumBig(xs []uint32) *big.Float {
	sum := new(big.Float).SetPrec(2000)
	for _, x := range xs {
		sum.Add(sum, new(big.Float).SetFloat64(float64(math.Float32frombits(x))))
	}
	return sum
}

func TestExactSumExamples(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	maxF := float32(math.MaxFloat32)
	tiny := math.Float32frombits(1) // 2^-149
	cases := []struct {
		name string
		in   []uint32
		want uint32
	}{
		{"cancelling", f32s(1e8, 1, -1e8, 1), f32(2)},
		{"2^24 and 63 ones, a tie to even", append(f32s(1<<24), f32s(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)...), f32(16777280)},
		{"2^24 and four ones", f32s(1<<24, 1, 1, 1, 1), f32(16777220)},
		{"huge and tiny", f32s(maxF, tiny, -maxF), 1},
		{"denormals sum to a normal", f32s(math.Float32frombits(0x7fffff), tiny), 0x00800000},
		{"overflow", f32s(maxF, maxF, -maxF), f32(maxF)},
		{"overflow to inf", f32s(maxF, maxF), f32(inf)},
		{"all -0", f32s(negZero, negZero), 0x80000000},
		{"-0 and +0", f32s(negZero, 0), 0},
		{"x and -x", f32s(3, -3), 0},
		{"inf", f32s(1, inf), f32(inf)},
		{"-inf", f32s(-inf, -inf, 5), f32(-inf)},
		{"inf - inf", f32s(inf, -inf), formatFloat32.nan},
		{"NaN", f32s(1, nan, inf), formatFloat32.nan},
	}
	for _, c := range cases {
		if got := reduceFloatExact(ReduceFunctionSum, false, c.in); got != c.want {
			t.Errorf("SUM %s: got %#08x (%g), want %#08x (%g)", c.name, got, math.Float32frombits(got), c.want, math.Float32frombits(c.want))
		}
	}
}

// TestExactSumRandom compares the accumulator with math/big's exact sum
// rounded by big.Float.Float32, and checks that merging partial
// accumulators split anywhere gives the same bits.
func TestExactSumRandom(t *testing.T) {
	seed, rng := testseed.Rand(t)
	for trial := 0; trial < 3000; trial++ {
		xs := make([]uint32, 1+rng.Intn(64))
		for i := range xs {
			xs[i] = randomFloat32Bits(rng)
			if rng.Intn(8) == 0 && i > 0 { // cancel an earlier term
				xs[i] = xs[rng.Intn(i)] ^ 1<<31
			}
		}
		want, _ := exactSumBig(xs).Float32()
		got := reduceFloatExact(ReduceFunctionSum, false, xs)
		if got != f32(want) && !(want == 0 && got&0x7fffffff == 0) {
			t.Fatalf("seed %d trial %d: SUM %08x = %08x, math/big %08x", seed, trial, xs, got, f32(want))
		}
		var whole, left, right exactAcc
		cut := rng.Intn(len(xs) + 1)
		for i, x := range xs {
			whole.add(x)
			if i < cut {
				left.add(x)
			} else {
				right.add(x)
			}
		}
		right.merge(&left)
		if whole.round(formatFloat32) != right.round(formatFloat32) || whole.round(formatFloat16) != right.round(formatFloat16) {
			t.Fatalf("seed %d trial %d: split at %d gives other bits", seed, trial, cut)
		}
	}
}

// nearestHalf is the FLOAT16 nearest to v (ties to even), found by
// comparing v exactly with the neighbours of its float64 approximation.
func nearestHalf(v *big.Float) uint16 {
	approx, _ := v.Float64()
	h := float32ToHalfBits(f32(float32(approx))) // a neighbour, maybe off by one
	best, bestDist := uint16(0), (*big.Float)(nil)
	for _, c := range []int{-2, -1, 0, 1, 2} {
		cand := uint16(int(h) + c)
		if c > 0 && h&0x7fff == 0 && approx < 0 { // across zero
			cand = uint16(c)
		}
		cb := halfToFloat32Bits(cand)
		if isNaN32(cb) {
			continue
		}
		cv := float64(math.Float32frombits(cb))
		if isInf32(cb) {
			// Rounding goes on as if the exponent were unbounded: ±Inf
			// stands at ±2^16, so a sum at or past 65520 (halfway from
			// 65504, ties to the even 2^16) overflows to ±Inf.
			cv = math.Copysign(65536, cv)
		}
		d := new(big.Float).SetPrec(2000).Sub(v, big.NewFloat(cv))
		d.Abs(d)
		if bestDist == nil || d.Cmp(bestDist) < 0 || d.Cmp(bestDist) == 0 && cand&1 == 0 {
			best, bestDist = cand, d
		}
	}
	return best
}

func TestExactSumHalfRandom(t *testing.T) {
	// Past the largest FLOAT16 (65504) rounding goes on as if the exponent
	// were unbounded: 65520, halfway to 2^16, ties to the even 2^16 = Inf.
	h := func(v float32) uint32 { return halfToFloat32Bits(float32ToHalfBits(f32(v))) }
	for _, c := range []struct {
		xs   []uint32
		want uint16
	}{
		{[]uint32{h(65504), h(15.9921875)}, 0x7bff},
		{[]uint32{h(65504), h(16)}, 0x7c00},
		{[]uint32{h(-65504), h(-16)}, 0xfc00},
		{[]uint32{h(65440), h(87.9375), h(-0.38085938), h(-0.14404297)}, 0x7c00}, // 65527.4
	} {
		if got := reduceFloatExact(ReduceFunctionSum, true, c.xs); got != uint32(c.want) {
			t.Errorf("FLOAT16 SUM %08x = %04x, want %04x", c.xs, got, c.want)
		}
		if got := nearestHalf(exactSumBig(c.xs)); got != c.want {
			t.Errorf("nearestHalf of the sum of %08x = %04x, want %04x", c.xs, got, c.want)
		}
	}
	seed, rng := testseed.Rand(t)
	for trial := 0; trial < 3000; trial++ {
		xs := make([]uint32, 1+rng.Intn(16))
		for i := range xs {
			h := uint16(rng.Uint32()) &^ 0x4000 // |x| < 2, denormals often
			if rng.Intn(3) == 0 {
				h = uint16(rng.Intn(0x7c00)) | uint16(rng.Intn(2))<<15
			}
			xs[i] = halfToFloat32Bits(h)
		}
		sum := exactSumBig(xs)
		if sum.Sign() == 0 || sum.MantExp(nil) > 16 {
			continue
		}
		want := nearestHalf(sum)
		if got := reduceFloatExact(ReduceFunctionSum, true, xs); got != uint32(want) {
			t.Fatalf("seed %d trial %d: FLOAT16 SUM %08x = %04x, math/big %04x", seed, trial, xs, got, want)
		}
	}
}

// TestExactSumPast2To24 sums 2^24+3 ones: exact 16777219 rounds to
// 16777220, where a FLOAT32 running sum stalls at 2^24.
func TestExactSumPast2To24(t *testing.T) {
	xs := make([]uint32, 1<<24+3)
	for i := range xs {
		xs[i] = f32(1)
	}
	if got := reduceFloatExact(ReduceFunctionSum, false, xs); got != f32(16777220) {
		t.Fatalf("SUM of 2^24+3 ones = %g, want 16777220", math.Float32frombits(got))
	}
	// FLOAT16: 2^24+3 times 2^-24 is 1 + 3·2^-24, which rounds to 1.
	for i := range xs {
		xs[i] = halfToFloat32Bits(1) // 2^-24, the smallest FLOAT16
	}
	if got := reduceFloatExact(ReduceFunctionSum, true, xs); got != 0x3c00 {
		t.Fatalf("FLOAT16 SUM of 2^24+3 × 2^-24 = %#04x, want 0x3c00", got)
	}
}

func TestReduceFloatFunctions(t *testing.T) {
	inf := float32(math.Inf(1))
	cases := []struct {
		f    ReduceFunction
		in   []uint32
		want float32
	}{
		// The exact sum 0.70000001043 rounds to 0.69999999; DirectML's
		// FP32 sum is 0.70000005 and its answer 0.23333335 (within bound).
		{ReduceFunctionAverage, f32s(0.1, 0.2, 0.4), 0.23333333},
		{ReduceFunctionL1, f32s(-1e8, 1, 1e8, -1), 200000000},
		{ReduceFunctionL2, f32s(3, 4), 5},
		{ReduceFunctionL2, f32s(3e30, 4e30), inf}, // x·x overflows, as DirectML
		{ReduceFunctionSumSquare, f32s(1e20, -1e20), inf},
		{ReduceFunctionLogSum, f32s(0, 0), -inf},
		{ReduceFunctionLogSum, f32s(0.5, 0.5), 0},
		{ReduceFunctionLogSum, f32s(1, 1), float32(math.Ln2)},
		{ReduceFunctionLogSumExp, f32s(1000, 1000), inf},
		{ReduceFunctionLogSumExp, f32s(-1000, -1000), -inf},
		{ReduceFunctionLogSumExp, f32s(0, 0), float32(math.Ln2)},
		{ReduceFunctionMultiply, f32s(2, 3, 4), 24},
		{ReduceFunctionMultiply, f32s(1e30, 1e30, 1e-5, 1e-5), inf}, // 1e30·1e30 overflows in the tree
		{ReduceFunctionMultiply, f32s(1e30, 1e-30, 1e30, 1e-30), 1},
	}
	for _, c := range cases {
		if got := reduceFloatExact(c.f, false, c.in); got != f32(c.want) {
			t.Errorf("function %d of %v = %g, want %g", c.f, c.in, math.Float32frombits(got), c.want)
		}
	}
	// The tree's order decides: (1e30·1e30)·(1e-30·1e-30) is +inf·0.
	if got := reduceFloatExact(ReduceFunctionMultiply, false, f32s(1e30, 1e30, 1e-30, 1e-30)); got != formatFloat32.nan {
		t.Errorf("MULTIPLY(1e30, 1e30, 1e-30, 1e-30) = %08x, want NaN", got)
	}
	// FLOAT16: AVERAGE in FLOAT32, then rounded to FLOAT16.
	h := []uint32{halfToFloat32Bits(0x2e66), halfToFloat32Bits(0x3266), halfToFloat32Bits(0x3666)} // 0.1, 0.2, 0.4
	if got, want := reduceFloatExact(ReduceFunctionAverage, true, h), float32ToHalfBits(f32(float32(0.0999755859375+0.199951171875+0.39990234375)/3)); got != uint32(want) {
		t.Errorf("FLOAT16 AVERAGE = %#04x, want %#04x", got, want)
	}
}

// TestMultiplyTreeOrder checks the canonical order against a hand-built
// tree for 5 values: ((x0·x1)·(x2·x3))·x4.
func TestMultiplyTreeOrder(t *testing.T) {
	seed, rng := testseed.Rand(t)
	for trial := 0; trial < 1000; trial++ {
		x := make([]float32, 5)
		for i := range x {
			x[i] = math.Float32frombits(randomFloat32Bits(rng))
		}
		want := ((x[0] * x[1]) * (x[2] * x[3])) * x[4]
		if got := multiplyTree(f32s(x...)); got != f32(want) && !(want != want) {
			t.Fatalf("seed %d: tree of %v = %g, want %g", seed, x, math.Float32frombits(got), want)
		}
	}
}

// TestMulFloat32 checks the integer multiplication against the host's
// IEEE FLOAT32 multiply (Go rounds each product; amd64 and arm64 keep
// denormals).
func TestMulFloat32(t *testing.T) {
	seed, rng := testseed.Rand(t)
	for i := 0; i < 1000000; i++ {
		x, y := randomFloat32Bits(rng), randomFloat32Bits(rng)
		if i%7 == 0 {
			y = rng.Uint32()
		}
		want := math.Float32frombits(x) * math.Float32frombits(y)
		got := mulFloat32(x, y)
		if got != f32(want) && !(want != want && got == formatFloat32.nan) {
			t.Fatalf("seed %d: %08x·%08x = %08x, want %08x", seed, x, y, got, f32(want))
		}
	}
}

func TestDivFloat32ByCount(t *testing.T) {
	seed, rng := testseed.Rand(t)
	for i := 0; i < 200000; i++ {
		x := randomFloat32Bits(rng)
		n := uint32(1 + rng.Intn(1<<uint(rng.Intn(32))))
		q := new(big.Float).SetPrec(200).Quo(big.NewFloat(float64(math.Float32frombits(x))), new(big.Float).SetUint64(uint64(n)))
		want, _ := q.Float32()
		if got := divFloat32ByCount(x, n); got != f32(want) {
			t.Fatalf("seed %d: %08x/%d = %08x, want %08x", seed, x, n, got, f32(want))
		}
	}
}

// TestSqrtFloat32 checks the correctly rounded root against float64's
// (rounding its root to FLOAT32 is correct: 53 >= 2·24+2).
func TestSqrtFloat32(t *testing.T) {
	seed, rng := testseed.Rand(t)
	check := func(x uint32) {
		want := float32(math.Sqrt(float64(math.Float32frombits(x))))
		if got := sqrtFloat32(x); got != f32(want) && !(want != want && got == formatFloat32.nan) {
			t.Fatalf("seed %d: sqrt %08x = %08x, want %08x", seed, x, got, f32(want))
		}
	}
	for _, x := range []uint32{0, 0x80000000, 1, 2, 3, 0x7fffff, 0x800000, 0x3f800000, 0x7f7fffff, 0x7f800000, 0xff800000, 0xbf800000, 0x7fc00000} {
		check(x)
	}
	for i := 0; i < 1000000; i++ {
		check(randomFloat32Bits(rng) &^ (1 << 31))
	}
}

// ulpError is |got - want| in units of FLOAT32's last place at want.
func ulpError(got uint32, want float64) float64 {
	g := float64(math.Float32frombits(got))
	if math.IsInf(want, 0) || math.IsInf(g, 0) {
		if g == want {
			return 0
		}
		return math.Inf(1)
	}
	a := math.Abs(want)
	e := math.Max(math.Floor(math.Log2(a)), -126)
	if a == 0 {
		e = -126
	}
	return math.Abs(g-want) / math.Ldexp(1, int(e)-23)
}

// Measured: exp and log are within 0.5 ULP + 1e-6 of float64's exp and
// log (whose own error is below 1e-8 FLOAT32 ULP); the limit asserted is
// rule 40's.
const expLogULPBound = 0.5 + 1.0/(1<<20)

// checkULP measures f against ref (float64's function) on the edge cases
// and on n inputs drawn by draw (0 skips a draw), logs the worst error and
// how many results differ from ref rounded to FLOAT32, and fails past
// expLogULPBound or on a special value other than want's.
func checkULP(t *testing.T, name string, f func(uint32) uint32, ref func(float64) float64, edges []uint32, draw func(*rand.Rand, int) uint32, specials map[uint32]uint32) {
	seed, rng := testseed.Rand(t)
	var worst float64
	var worstX uint32
	mismatches := 0
	check := func(x uint32) {
		want := ref(float64(math.Float32frombits(x)))
		if want > math.MaxFloat32*(1+1.0/(1<<25)) {
			want = math.Inf(1)
		}
		got := f(x)
		if got != f32(float32(want)) {
			mismatches++
		}
		if e := ulpError(got, want); e > worst {
			worst, worstX = e, x
		}
	}
	for _, x := range edges {
		check(x)
	}
	for i := 0; i < 2000000; i++ {
		if x := draw(rng, i); x != 0 {
			check(x)
		}
	}
	t.Logf("%s: worst %.9f ULP at %g (%08x); %d results differ from float64's %s rounded to FLOAT32", name, worst, math.Float32frombits(worstX), worstX, mismatches, name)
	if worst > expLogULPBound {
		t.Fatalf("seed %d: %s error %.9f ULP at %08x, over %.9f", seed, name, worst, worstX, expLogULPBound)
	}
	for x, want := range specials {
		if got := f(x); got != want {
			t.Errorf("%s %08x = %08x, want %08x", name, x, got, want)
		}
	}
}

func TestExpFloat32Accuracy(t *testing.T) {
	edges := []uint32{0x80000000, 1, 0x80000001, f32(88.72283), f32(88.72284), f32(-87.33654), f32(-103.9), f32(-103.97), f32(-104), f32(89), f32(1), f32(-1), f32(0.34657359), f32(-0.34657359), f32(1.0 / (1 << 26)), f32(-1.0 / (1 << 26))}
	draw := func(rng *rand.Rand, _ int) uint32 { // |x| < 105: exp's finite, nonzero range and past it
		x := rng.Uint32()&0x807fffff | uint32(100+rng.Intn(34))<<23
		if math.Abs(float64(math.Float32frombits(x))) >= 105 {
			return 0
		}
		return x
	}
	checkULP(t, "exp", expFloat32, math.Exp, edges, draw,
		map[uint32]uint32{0: 0x3f800000, 0x7fc00000: formatFloat32.nan, 0x7f800000: 0x7f800000, 0xff800000: 0})
}

func TestLogFloat32Accuracy(t *testing.T) {
	edges := []uint32{1, 2, 0x7fffff, 0x800000, 0x3f7fffff, 0x3f800001, 0x3f3504f3, 0x3fb504f3, 0x3fb504f4, 0x7f7fffff, f32(2.7182817), f32(0.5), f32(2)}
	draw := func(rng *rand.Rand, i int) uint32 {
		if i%2 == 0 { // near 1, where log is small
			return 0x3f800000 + uint32(rng.Intn(1<<16)) - 1<<15
		}
		return randomFloat32Bits(rng) &^ (1 << 31)
	}
	checkULP(t, "log", logFloat32, math.Log, edges, draw,
		map[uint32]uint32{0: 0xff800000, 0x80000000: 0xff800000, 0xbf800000: formatFloat32.nan, 0x7f800000: 0x7f800000, 0x3f800000: 0})
}

func TestFloat16Conversions(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		x := halfToFloat32Bits(uint16(h))
		if want := f32(argHalf(uint16(h))); x != want && !isNaN32(x) {
			t.Fatalf("half %04x widens to %08x, want %08x", h, x, want)
		}
		if back := float32ToHalfBits(x); back != uint16(h) && !isNaN32(x) {
			t.Fatalf("half %04x round trip gives %04x", h, back)
		}
	}
}

// TestReduceFloatAgainstDirectML runs the definition on blocks measured on
// the parity rig (DirectML 1.15.4, Mesa 25 lavapipe under Wine, a 1×1×1×n
// tensor reduced over axis 3). DirectML's FLOAT16 answers show FP32
// computation: no FLOAT16 accumulation (4096 ones give 4096), terms not
// rounded to FLOAT16 (1024 × (2^-13)² is 2^-16, not 0), no FLOAT16
// overflow inside L2 or MULTIPLY. Where vkdml's answer is not DirectML's,
// rule 44's bound covers it.
func TestReduceFloatAgainstDirectML(t *testing.T) {
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	inf := math.Inf(1)
	cases := []struct {
		name     string
		f        ReduceFunction
		half     bool
		in       []float64
		directml uint32 // measured
		vkdml    uint32 // the definition's, where it differs from DirectML's
	}{
		{"f16_sum_4096_ones", ReduceFunctionSum, true, rep(1, 4096), 0x6c00, 0},
		{"f16_sum_2048_then_ones", ReduceFunctionSum, true, append([]float64{2048}, rep(1, 64)...), 0x6820, 0},
		{"f16_sumsq_underflow_terms", ReduceFunctionSumSquare, true, rep(0x1p-13, 1024), 0x0100, 0},
		{"f16_l2_overflow_sum", ReduceFunctionL2, true, []float64{200, 200}, 0x5c6b, 0},
		{"f16_lse_tiny_terms", ReduceFunctionLogSumExp, true, rep(-20, 64), 0xcbeb, 0xcbec},
		{"f16_mul_order", ReduceFunctionMultiply, true, []float64{256, 256, 1.0 / 256, 1.0 / 256}, 0x3c00, 0},
		{"f16_avg", ReduceFunctionAverage, true, []float64{0.0999755859375, 0.199951171875, 0.39990234375}, 0x3377, 0},
		{"f16_sum_tie", ReduceFunctionSum, true, []float64{2048, 1, 2, 1}, 0x6802, 0},
		{"f32_sum_cancel", ReduceFunctionSum, false, []float64{1e8, 1, -1e8, 1}, 0x40000000, 0},
		{"f32_sum_nan", ReduceFunctionSum, false, []float64{1, math.NaN(), 2}, 0x7fc00000, 0},
		{"f32_sum_infs", ReduceFunctionSum, false, []float64{inf, -inf, 2}, 0xffc00000, 0x7fc00000},
		{"f32_sum_negzero", ReduceFunctionSum, false, []float64{math.Copysign(0, -1), math.Copysign(0, -1)}, 0x80000000, 0},
		{"f32_sum_negzero1", ReduceFunctionSum, false, []float64{math.Copysign(0, -1)}, 0x80000000, 0},
		{"f32_sum_overflow_mid", ReduceFunctionSum, false, []float64{float64(float32(3.4e38)), float64(float32(3.4e38)), -float64(float32(3.4e38))}, 0x7f800000, f32(3.4e38)},
		{"f32_mul_order", ReduceFunctionMultiply, false, []float64{float64(float32(1e30)), float64(float32(1e30)), float64(float32(1e-30)), float64(float32(1e-30))}, 0x7f800000, 0x7fc00000},
		{"f32_mul_order5", ReduceFunctionMultiply, false, []float64{3, float64(float32(1 / 3.0)), 7, float64(float32(1 / 7.0)), 11}, 0x41300000, 0},
		{"f32_avg", ReduceFunctionAverage, false, []float64{float64(float32(0.1)), float64(float32(0.2)), float64(float32(0.4))}, 0x3e6eeef0, 0x3e6eeeef},
		{"f32_lse_overflow_edge", ReduceFunctionLogSumExp, false, []float64{float64(float32(88.72283)), 0}, 0x42b17217, 0},
		{"f32_logsum_neg", ReduceFunctionLogSum, false, []float64{-1, -2}, 0x7fc00000, 0},
		{"f32_sum_denorm", ReduceFunctionSum, false, []float64{0x1p-149, 0x1p-149, 0x1p-149}, 0x3, 0},
	}
	for _, c := range cases {
		xs := make([]uint32, len(c.in))
		for i, v := range c.in {
			xs[i] = f32(float32(v))
			if c.half {
				xs[i] = halfToFloat32Bits(float32ToHalfBits(xs[i]))
			}
		}
		want := c.vkdml
		if want == 0 {
			want = c.directml
		}
		if got := reduceFloatExact(c.f, c.half, xs); got != want {
			t.Errorf("%s: %#x, want %#x (DirectML %#x)", c.name, got, want, c.directml)
		}
	}
}

// TestReduceFloatGLSLConstants: shaders/reduce_float.glsl carries exp's and
// log's fixed-point constants as fixedConstants computes them.
func TestReduceFloatGLSLConstants(t *testing.T) {
	src, err := os.ReadFile("../shaders/reduce_float.glsl")
	if err != nil {
		t.Fatal(err)
	}
	want := func(name string, v uint64) {
		line := fmt.Sprintf("const uvec2 %s = uvec2(0x%08xu, 0x%08xu);", name, uint32(v), uint32(v>>32))
		if !strings.Contains(string(src), line+"\n") {
			t.Errorf("reduce_float.glsl lacks %q", line)
		}
	}
	want("LN2_Q64", fixLn2Q64)
	want("LOG2E_Q62", fixLog2EQ62)
	for j, c := range fixExpCoeffs {
		want(fmt.Sprintf("EXP_C%d", j), uint64(c))
	}
	for j, c := range fixAtanhCoeffs {
		want(fmt.Sprintf("ATANH_C%d", j), uint64(c))
	}
}

// TestReduceFloatLaneBound: a lane of the float kernels folds fewer terms
// than its window holds, so the window's 64-bit sum cannot overflow, and a
// lane of LOG_SUM_EXP's FLOAT16 table scans sums few enough terms in units
// 2^-35 that its signed 64-bit sum cannot either.
func TestReduceFloatLaneBound(t *testing.T) {
	if lane := segmentCap(argIters, 1, 1) + 1 + 6; lane > reduceFloatLaneTerms {
		t.Errorf("a lane folds up to %d terms, its window holds %d", lane, reduceFloatLaneTerms)
	}
	// LOG_SUM_EXP's FLOAT16 table scans (reduce_half.glsl EXP_TABLE) sum
	// a lane's in-window terms (|h| < 8) in units 2^-35 in a signed 64-bit
	// integer: a lane of a segment of a thread or group kernel takes every
	// wg-th whole 8-half vector of it (reduce_half_fast.glsl half_scan),
	// a column of reduce_half_col.comp one position a trip.
	var maxUnits uint64
	for h := range uint32(1 << 16) {
		if h&0x7fff < 0x4800 { // |h| < 8
			maxUnits = max(maxUnits, uint64(math.Ldexp(float64(math.Float32frombits(expFloat32(halfToFloat32Bits(uint16(h))))), lseUnitExp)))
		}
	}
	if term := math.Ldexp(float64(maxUnits), -lseUnitExp); term < 2969.33 || term > 2969.34 {
		t.Errorf("the largest in-window term is %g (%d units 2^-35), not exp(7.99609375) = 2969.335", term, maxUnits)
	}
	for _, wg := range []uint64{1, 4, argThreadWG, argGroupWG} {
		laneHalves := max(segmentCap(argIters, 1, 1), 8*ceilDiv(segmentCap(argIters, wg, 1), 8*wg))
		if hi, lo := bits.Mul64(laneHalves, maxUnits); hi != 0 || lo >= 1<<63 {
			t.Errorf("workgroup %d: a lane sums up to %d LOG_SUM_EXP terms of up to %d units 2^-35, over a signed 64-bit sum", wg, laneHalves, maxUnits)
		}
	}
}

// lseUnitExp is reduce_half.glsl's LSE_UNIT_EXP: the table scans' terms
// are integers in units 2^-lseUnitExp.
const lseUnitExp = 35
