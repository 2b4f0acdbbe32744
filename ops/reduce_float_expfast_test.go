package ops

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/testseed"
)

// expFastHardInputs are x whose exp lies within the fast evaluation's
// error of a FLOAT32 rounding midpoint (found with expFloat32Fast: near 1,
// where exp(x) = 1 + x + x²/2 puts small x next to midpoints, and by a
// random search of 2^26 x), so the fallback must run for them; the first
// two round wrongly without it (TestExpFastMarginNeeded).
var expFastHardInputs = []uint32{
	0xb3000000, 0x33800000, // -2^-25, 2^-24
	0x337ffffe, 0x337fffff, 0x33800001, 0x33800002, 0xb3000001, 0xb3000002,
	0xb3bfffff, 0xb3c00000, 0xb3c00001, 0xb3c00002, 0x343ffffd, 0x343ffffe,
	0x343fffff, 0x34400000, 0x34dffffc, 0x34dffffd, 0x352ffffc, 0x350ffffd,
	0x35f7fff1, 0xb5080002, 0xb4d00003, 0x36fdffc1, 0x36f9ffc3, 0xb4600001,
	0xbadd0ab0, 0xbe47be83, 0x3a3ffa00, 0xb6b50020, 0xbf9ab562, 0xc13d6631,
	0x3caffe2e, 0xb86ae1af, 0x38cd5d6d, 0xbed8750d, 0xbffc842d, 0xb8fad3d7,
	0x4039cb53, 0xbc2a461a,
}

// TestExpFastConstants: shaders/reduce_float.glsl carries the fast exp's
// constants as expFastConstants computes them, and no step of the
// evaluation overflows its word at the largest h and j.
func TestExpFastConstants(t *testing.T) {
	src, err := os.ReadFile("../shaders/reduce_float.glsl")
	if err != nil {
		t.Fatal(err)
	}
	want := func(line string) {
		if !strings.Contains(string(src), line) {
			t.Errorf("reduce_float.glsl lacks %q", line)
		}
	}
	for i := 3; i <= 7; i++ {
		want(fmt.Sprintf("const uint EXP_F_D%d = 0x%08xu; // d%d·2^%d\n", i, expFastD[i], i, expFastScales[i]))
	}
	want(fmt.Sprintf("const uvec2 EXP_F_D2 = uvec2(0x%08xu, 0x%08xu);\n", uint32(expFastD2Q72), uint32(expFastD2Q72>>32)))
	want(fmt.Sprintf("const uvec2 EXP_F_D1 = uvec2(0x%08xu, 0x%08xu);\n", uint32(expFastD1Q68), uint32(expFastD1Q68>>32)))
	for j, v := range expFastTable {
		want(fmt.Sprintf("\tuvec2(0x%08xu, 0x%08xu)", uint32(v), uint32(v>>32)))
		if j == 0 && v != 1<<62 {
			t.Errorf("2^0 in Q62 is %#x", v)
		}
	}
	if expFastLog2EQ62 != fixLog2EQ62 {
		t.Errorf("log2 e: %#x, LOG2E_Q62 %#x", expFastLog2EQ62, fixLog2EQ62)
	}
	if fmt.Sprint(expFastMargin) != "131072" || !strings.Contains(string(src), "#define EXP_FAST_MARGIN 0x20000u\n") {
		t.Errorf("EXP_FAST_MARGIN is not expFastMargin (%d)", expFastMargin)
	}
	// The steps grow with h: at h = 1 - 2^-32 every word holds its sum.
	a := uint64(expFastD[7])
	for i := 6; i >= 3; i-- {
		a = uint64(expFastD[i]) + (0xffffffff*a>>32)>>(expFastScales[i+1]-expFastScales[i])
		if a >= 1<<32 {
			t.Fatalf("d%d's word overflows: %#x", i, a)
		}
	}
	a2, c2 := bits.Add64(expFastD2Q72, 0xffffffff*a>>8, 0)
	h60 := uint64(1)<<60 - 1
	a1, c1 := bits.Add64(expFastD1Q68, mulHi64(h60, a2), 0)
	v, cv := bits.Add64(expFastTable[15], mulHi64(expFastTable[15], mulHi64(h60, a1)), 0)
	if c2+c1+cv != 0 || v > 1<<63+expFastMargin {
		t.Errorf("a step overflows: carries %d %d %d, v %#x", c2, c1, cv, v)
	}
}

// expFastDraws are TestExpFastAgrees's x: every exponent, the fast range
// uniformly, multiples of ln 2/16 and their neighbours, the edges of
// overflow (88.72), of the denormal results (-87.34) and of underflow
// (-103.97), the hard inputs, ±0, ±inf, NaN and denormal x.
func expFastDraw(rng *rand.Rand, i int) uint32 {
	sign := uint32(rng.Intn(2)) << 31
	switch i % 6 {
	case 0: // any bits: every exponent, NaN, infinities, denormals
		return rng.Uint32()
	case 1, 2: // 2^-26 <= |x| < 128
		return sign | uint32(101+rng.Intn(33))<<23 | rng.Uint32()&0x7fffff
	case 3: // near a multiple of ln 2/16
		k := rng.Intn(150*16*2) - 150*16
		return uint32(int32(math.Float32bits(float32(float64(k)*math.Ln2/16))) + int32(rng.Intn(9)-4))
	case 4: // the edges
		edge := []float32{88.72283, -87.33654, -103.97208, -103.27893, 88.0296}[rng.Intn(5)]
		return uint32(int32(math.Float32bits(edge)) + int32(rng.Intn(2001)-1000))
	}
	return []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 1, 0x80000001,
		0x42b20000, 0xc2d00000, 0x32800000, 0xb2800000}[rng.Intn(12)]
}

// TestExpFastAgrees: where the fast evaluation does not fall back, its
// bits are expFloat32's, on random and adversarial x; every hard input
// falls back; and the fast value is within the proven bound (2^16.4
// units) of expFloat32's unrounded value (itself within 2^7 units).
func TestExpFastAgrees(t *testing.T) {
	seed, rng := testseed.Rand(t)
	n := 1 << 22
	if testing.Short() {
		n = 1 << 17
	}
	const bound = 86000 + 128 // 2^16.4 + 2^7: the fast and the Q62 errors
	var inRange, near, outside int
	var worst int64
	check := func(x uint32) {
		want := expFloat32(x)
		y, fb := expFloat32Fast(x, expFastMargin)
		_, fb0 := expFloat32Fast(x, 0)
		switch {
		case fb0:
			outside++
			return
		case fb:
			near++
		case y != want:
			t.Fatalf("seed %d: exp(%#x): fast %#x without fallback, expFloat32 %#x", seed, x, y, want)
		}
		inRange++
		v, k := expFastValue(x)
		negative, m, e := float32Parts(x)
		p, ks := expQ62(negative, m, e)
		ref := p
		switch ks - int64(k) { // the two evaluations' binades may differ by one
		case 1:
			ref = p << 1
		case -1:
			ref = p >> 1
		}
		d := int64(v) - ref
		if d < 0 {
			d = -d
		}
		if d > worst {
			worst = d
		}
		if d > bound {
			t.Fatalf("seed %d: exp(%#x): fast value %#x, Q62's %#x·2^%d: %d units apart, over %d", seed, x, v, p, ks-int64(k), d, bound)
		}
	}
	for _, x := range expFastHardInputs {
		if _, fb := expFloat32Fast(x, expFastMargin); !fb {
			t.Errorf("hard input %#x does not fall back", x)
		}
		check(x)
		check(x ^ 1<<31)
	}
	for i := 0; i < n; i++ {
		check(expFastDraw(rng, i))
	}
	t.Logf("%d x: %d in the fast range, %d of them within the margin of a midpoint (fallback), %d outside (fallback); worst fast error %d units of 2^-62 (bound %d)",
		inRange+outside, inRange, near, outside, worst, bound)
}

// TestExpFastMarginNeeded: without the fallback, or with a margin of 2^12
// units (under the fast error), the fast exp gives other bits than
// expFloat32 for some hard input; so TestExpFastAgrees and the kernels'
// tests on the hard inputs fail for such a kernel.
func TestExpFastMarginNeeded(t *testing.T) {
	for _, margin := range []uint32{0, 1 << 12} {
		wrong := 0
		for _, x := range expFastHardInputs {
			if y, fb := expFloat32Fast(x, margin); !fb && y != expFloat32(x) {
				wrong++
			}
		}
		if wrong == 0 {
			t.Errorf("margin %d: every hard input rounds right, so the tests cannot see a missing fallback", margin)
		}
	}
}
