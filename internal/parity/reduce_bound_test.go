package parity

import (
	"math"
	"math/big"
	"testing"

	"github.com/vkdml/vkdml/internal/testseed"
)

func TestCheckReduceFloatExamples(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	maxF := float64(math.MaxFloat32)
	f := func(v float64) float64 { return float64(float32(v)) }
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	ones63 := []float64{1 << 24}
	for i := 0; i < 63; i++ {
		ones63 = append(ones63, 1)
	}
	cases := []struct {
		name, function, dataType string
		block                    []float64
		vkdml, directml          float64
		want                     string
	}{
		{"cancelling, DirectML's 2", "SUM", "FLOAT32", []float64{1e8, 1, -1e8, 1}, 2, 2, Equal},
		{"cancelling, a left-to-right scan", "SUM", "FLOAT32", []float64{1e8, 1, -1e8, 1}, 2, 1, WithinBound},
		{"cancelling, far off", "SUM", "FLOAT32", []float64{1e8, 1, -1e8, 1}, 2, 100, OutsideBound},
		{"2^24 and 63 ones", "SUM", "FLOAT32", ones63, 16777280, 16777278, WithinBound},
		{"AVERAGE of 0.1, 0.2, 0.4", "AVERAGE", "FLOAT32", []float64{float64(float32(0.1)), float64(float32(0.2)), float64(float32(0.4))}, float64(float32(0.23333333)), float64(float32(0.23333335)), WithinBound},
		{"AVERAGE off by 0.001", "AVERAGE", "FLOAT32", []float64{0.5, 0.25}, 0.375, 0.376, OutsideBound},
		{"NaN on both sides", "SUM", "FLOAT32", []float64{1, nan}, nan, -nan, Equal},
		{"a NaN input, DirectML finite", "SUM", "FLOAT32", []float64{1, nan}, nan, 1, OutsideBound},
		{"a partial sum may overflow", "SUM", "FLOAT32", []float64{maxF, maxF, -maxF}, maxF, inf, WithinBound},
		{"an infinity decides", "SUM", "FLOAT32", []float64{inf, 1}, inf, maxF, OutsideBound},
		{"L2 overflows in x·x", "L2", "FLOAT32", []float64{3e30, 4e30}, inf, 5e30, OutsideBound},
		{"L2 of 3, 4", "L2", "FLOAT32", []float64{3, 4}, 5, float64(math.Nextafter32(5, 6)), WithinBound},
		{"LOG_SUM_EXP naive overflow", "LOG_SUM_EXP", "FLOAT32", []float64{1000, 1000}, inf, inf, Equal},
		{"LOG_SUM_EXP at exp's overflow", "LOG_SUM_EXP", "FLOAT32", []float64{88.72283, 0}, 88.72283, inf, WithinBound},
		{"LOG_SUM_EXP off", "LOG_SUM_EXP", "FLOAT32", []float64{0, 0}, math.Ln2, 0.7, OutsideBound},
		{"LOG_SUM of a cancelled sum", "LOG_SUM", "FLOAT32", []float64{1e8, 1, -1e8}, 0, -inf, WithinBound},
		{"LOG_SUM of zeros", "LOG_SUM", "FLOAT32", []float64{0, 0}, -inf, 0, OutsideBound},
		{"MULTIPLY under- and overflow", "MULTIPLY", "FLOAT32", []float64{1e30, 1e30, 1e-30, 1e-30}, nan, 1, WithinBound},
		{"MULTIPLY an ULP apart", "MULTIPLY", "FLOAT32", []float64{2, 3, 4}, 24, float64(math.Nextafter32(24, 25)), WithinBound},
		{"MULTIPLY off", "MULTIPLY", "FLOAT32", []float64{2, 3, 4}, 24, 24.01, OutsideBound},
		{"FLOAT16 SUM an FP16 ULP apart", "SUM", "FLOAT16", []float64{1024, 0.5, 0.5}, 1025, 1024, WithinBound},
		{"FLOAT16 SUM off", "SUM", "FLOAT16", []float64{1, 2}, 3, 3.5, OutsideBound},
		// γ·A is 0.54 ULP: DirectML's FLOAT32 sum may be below 5996, which
		// narrows towards zero to 5992, two ULPs from vkdml's 6000.
		{"FLOAT16 SUM two ULPs off, narrowed towards zero", "SUM", "FLOAT16", rep(1, 6000), 6000, 5992, WithinBound},
		{"FLOAT16 SUM three ULPs off", "SUM", "FLOAT16", rep(1, 6000), 6000, 5988, OutsideBound},
		{"rig: FLOAT16 LOG_SUM_EXP of 0, 0, 0 narrowed towards zero", "LOG_SUM_EXP", "FLOAT16", []float64{0, 0, 0}, 1.0986328125, 1.09765625, WithinBound},
		{"FLOAT16 SUM at the overflow", "SUM", "FLOAT16", []float64{65504, 7.99}, 65504, inf, WithinBound},
		{"FLOAT16 SUM short of the overflow", "SUM", "FLOAT16", []float64{60000, 1}, 60000, inf, OutsideBound},
		// Measured on the rig where DirectML's answer is not vkdml's
		// (ops.TestReduceFloatAgainstDirectML).
		{"rig: FLOAT16 LOG_SUM_EXP of 64 × -20", "LOG_SUM_EXP", "FLOAT16", rep(-20, 64), -2028.0 / 128, -2027.0 / 128, WithinBound},
		{"rig: SUM of inf, -inf, 2", "SUM", "FLOAT32", []float64{inf, -inf, 2}, nan, -nan, Equal},
		{"rig: SUM with a partial overflow", "SUM", "FLOAT32", []float64{f(3.4e38), f(3.4e38), -f(3.4e38)}, f(3.4e38), inf, WithinBound},
		{"rig: MULTIPLY order", "MULTIPLY", "FLOAT32", []float64{f(1e30), f(1e30), f(1e-30), f(1e-30)}, nan, inf, WithinBound},
		{"rig: FLOAT16 SUM past the range, saturated", "SUM", "FLOAT16", rep(60000, 4), inf, 65504, WithinBound},
		{"rig: FLOAT16 L2 past the range, saturated", "L2", "FLOAT16", rep(60000, 4), inf, 65504, WithinBound},
		{"FLOAT16 SUM past the range, another finite", "SUM", "FLOAT16", rep(60000, 4), inf, 65490, OutsideBound},
		{"FLOAT16 SUM past the range, the other sign", "SUM", "FLOAT16", rep(60000, 4), inf, -65504, OutsideBound},
		{"FLOAT16 SUM at the overflow, 65504", "SUM", "FLOAT16", []float64{65504, 8, 8}, inf, 65504, WithinBound},
		{"FLOAT16 SUM of an infinity, 65504", "SUM", "FLOAT16", []float64{inf, 1}, inf, 65504, OutsideBound},
		{"rig: LOG_SUM of a denormal sum", "LOG_SUM", "FLOAT32", []float64{0x1p-149, 0x1p-149, 0x3p-149, -0x1p-149}, f(-147 * math.Ln2), float64(math.Float32frombits(0xc2b00f34)), WithinBound},
		{"LOG_SUM of a tiny normal sum, off", "LOG_SUM", "FLOAT32", []float64{0x1p-120, 0x1p-120}, f(-119 * math.Ln2), f(-127 * math.Ln2), OutsideBound},
		{"rig: AVERAGE", "AVERAGE", "FLOAT32", []float64{f(0.1), f(0.2), f(0.4)}, float64(math.Float32frombits(0x3e6eeeef)), float64(math.Float32frombits(0x3e6eeef0)), WithinBound},
	}
	for _, c := range cases {
		got, err := CheckReduceFloat(c.function, c.dataType, c.block, c.vkdml, c.directml)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Verdict != c.want {
			t.Errorf("%s: %s %v: vkdml %g, DirectML %g: %s (bound %g, diff %g), want %s", c.name, c.function, c.block, c.vkdml, c.directml, got.Verdict, got.Bound, got.Diff, c.want)
		}
	}
}

func TestCheckReduceFloatErrors(t *testing.T) {
	for _, c := range []struct {
		function, dataType string
		block              []float64
	}{{"SUM", "INT32", []float64{1}}, {"MAX", "FLOAT32", []float64{1}}, {"SUM", "FLOAT32", nil}} {
		if _, err := CheckReduceFloat(c.function, c.dataType, c.block, 0, 0); err == nil {
			t.Errorf("%s of %s, %d values: no error", c.function, c.dataType, len(c.block))
		}
	}
}

// TestReduceBoundHoldsForOrders sums random FLOAT32 blocks exactly (math/big,
// rounded once: vkdml's definition) and in three FLOAT32 orders DirectML
// might use; every order must be equal or within the bound.
func TestReduceBoundHoldsForOrders(t *testing.T) {
	seed, rng := testseed.Rand(t)
	var pairwise func(xs []float32) float32
	pairwise = func(xs []float32) float32 {
		if len(xs) == 1 {
			return xs[0]
		}
		return pairwise(xs[:len(xs)/2]) + pairwise(xs[len(xs)/2:])
	}
	within := 0
	for trial := 0; trial < 2000; trial++ {
		xs := make([]float32, 1+rng.Intn(300))
		block := make([]float64, len(xs))
		exact := new(big.Float).SetPrec(2000)
		scale := math.Ldexp(1, rng.Intn(60)-30)
		for i := range xs {
			xs[i] = float32(rng.NormFloat64() * scale)
			if i > 0 && rng.Intn(4) == 0 {
				xs[i] = -xs[rng.Intn(i)]
			}
			block[i] = float64(xs[i])
			exact.Add(exact, big.NewFloat(block[i]))
		}
		v, _ := exact.Float32()
		var forward, backward float32
		for i := range xs {
			forward += xs[i]
			backward += xs[len(xs)-1-i]
		}
		for _, d := range []float32{forward, backward, pairwise(xs)} {
			got, err := CheckReduceFloat("SUM", "FLOAT32", block, float64(v), float64(d))
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict == OutsideBound {
				t.Fatalf("seed %d trial %d: exact %g, an order's %g: outside bound %g", seed, trial, v, d, got.Bound)
			}
			if got.Verdict == WithinBound {
				within++
			}
		}
	}
	if within == 0 {
		t.Fatalf("seed %d: no order differed from the exact sum: the test proves nothing", seed)
	}
}
