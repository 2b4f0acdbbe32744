package ops

import (
	"math/big"
	"math/bits"
)

// The kernels' fast exp (shaders/reduce_float.glsl's exp_f32), modelled
// word for word. It does not define a result: rule 40's exp is
// expFloat32's. The fast evaluation is accurate to Δ = 2^16.4 units of
// 2^-62·2^k (docs/semantics.md rule 40 derives it: under 2^-44.6 of the
// value); where its value lies more than expFastMargin from every
// FLOAT32 rounding midpoint it rounds as expFloat32's value (within
// 2^-56 of exp(x)) does, and elsewhere, or where the result is not a
// normal FLOAT32, the kernel runs expFloat32's algorithm instead. So the
// kernels' exp is expFloat32, bit for bit (TestExpFastAgrees).
//
// The evaluation: t = |x|·log2 e in Q55 from the exact 88-bit product of
// x's significand and log2 e in Q62; s = ±t = k + j/16 + g, g in
// [0, 1/16), h = 16g; 2^(j/16) from a table in Q62 and 2^g =
// 1 + h·(d1 + h·(d2 + h·(d3 + ... + h·d7))), d_i = (ln 2/16)^i/i!, by
// Horner: d7..d3 in 32-bit words scaled to their size, d2 in Q72, d1 in
// Q68, each product truncated (mulHi64 drops the low words' product).

// expFastMargin is the kernels' margin in units of 2^-62 of the value's
// binade (EXP_FAST_MARGIN): 2^17, over the fast error's bound 2^16.4
// plus the Q62 algorithm's 2^-56 relative (2^7 units).
const expFastMargin = 1 << 17

// expFastScales are the binary scales of d3..d7 in their 32-bit words:
// each word holds Σ_{l>=i} d_l·2^scale below 2^32
// (TestExpFastConstants).
var expFastScales = [8]uint{3: 48, 4: 54, 5: 61, 6: 68, 7: 76}

// The fast exp's constants, computed exactly with math/big.
var (
	expFastLog2EQ62 uint64     // 1/ln 2 · 2^62, truncated (LOG2E_Q62)
	expFastD        [8]uint32  // d3..d7 rounded at their scales
	expFastD2Q72    uint64     // d2·2^72, rounded
	expFastD1Q68    uint64     // d1·2^68, rounded
	expFastTable    [16]uint64 // 2^(j/16)·2^62, rounded
)

var _ = expFastConstants()

func expFastConstants() bool {
	const prec = 256
	ln2 := bigLn2()
	one := big.NewFloat(1).SetPrec(prec)
	round := func(v *big.Float, exp int) uint64 {
		s := new(big.Float).SetPrec(prec).SetMantExp(v, exp)
		s.Add(s, big.NewFloat(0.5))
		i, _ := s.Int(nil)
		return i.Uint64()
	}
	log2e := new(big.Float).SetPrec(prec).Quo(one, ln2)
	i, _ := new(big.Float).SetPrec(prec).SetMantExp(log2e, 62).Int(nil)
	expFastLog2EQ62 = i.Uint64()
	// d_i = (ln 2/16)^i / i!
	d := new(big.Float).SetPrec(prec).Set(one)
	c := new(big.Float).SetPrec(prec).Quo(ln2, big.NewFloat(16))
	for i := 1; i <= 7; i++ {
		d.Mul(d, c)
		d.Quo(d, big.NewFloat(float64(i)))
		switch {
		case i == 1:
			expFastD1Q68 = round(d, 68)
		case i == 2:
			expFastD2Q72 = round(d, 72)
		default:
			expFastD[i] = uint32(round(d, int(expFastScales[i])))
		}
	}
	// 2^(1/16) by four square roots, then its powers.
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for i := 0; i < 4; i++ {
		root.Sqrt(root)
	}
	p := new(big.Float).SetPrec(prec).Set(one)
	for j := range expFastTable {
		expFastTable[j] = round(p, 62)
		p.Mul(p, root)
	}
	return true
}

// mulHi64 is the high 64 bits of a·b less the low words' product and the
// cross products' low words: floor(a·b/2^64) minus 0, 1 or 2 (the
// kernels' mul_hi64: three 32-bit multiplications).
func mulHi64(a, b uint64) uint64 {
	ah, al, bh, bl := a>>32, a&0xffffffff, b>>32, b&0xffffffff
	return ah*bh + (al*bh)>>32 + (ah*bl)>>32
}

// expFloat32Fast is the kernels' fast exp of the FLOAT32 x with the given
// margin: its FLOAT32 bits, and whether the kernel falls back to
// expFloat32 (x outside 2^-25 <= |x|, -104 < x < 89, a result that is not
// a normal FLOAT32, or a value within margin of a rounding midpoint).
// Where fallback is true the bits are not the answer.
func expFloat32Fast(x uint32, margin uint32) (y uint32, fallback bool) {
	v, k := expFastValue(x)
	r := uint32(v>>38) & 1
	y = uint32(k+126)<<23 + uint32(v>>39) + r // the significand's carry bumps the exponent
	flip := r - 1                             // bits 37..0 within margin of the midpoint 2^38
	near := (uint32(v>>32)^flip)&0x3f == 0 && uint32(v)^flip <= margin
	biased := x >> 23 & 0xff
	negative := x>>31 == 1
	inRange := biased >= 102 && (negative && x < 0xc2d00000 || !negative && x < 0x42b20000) && uint32(k+126) < 254
	return y, near || !inRange
}

// expFastValue is the fast evaluation of exp(x) = v·2^(k-62), v in
// [2^62, 2^63] (within the fast error), for x in the fast range; other x
// give garbage, as in the kernels.
func expFastValue(x uint32) (v uint64, k int32) {
	biased := x >> 23 & 0xff
	m := x&0x7fffff | 0x800000
	sh := (133 - biased) & 31 // 7 - e - 24
	// t·2^55 = m·log2e·2^62 >> (7 - e), through the exact 88-bit product.
	hi, lo := bits.Mul64(uint64(m), expFastLog2EQ62)
	p := lo>>24 | hi<<40 // the product < 2^87, shifted right by 24
	s := p >> sh
	if x>>31 == 1 {
		s = -s
	}
	k = int32(uint32(s>>32)) >> 23
	j := s >> 51 & 15
	g := s & (1<<51 - 1)
	h32 := uint32(g >> 19) // h = 16g in Q32
	h60 := g << 9          // h in Q60
	a := expFastD[7]
	for i := 6; i >= 3; i-- {
		a = expFastD[i] + uint32(uint64(h32)*uint64(a)>>32)>>(expFastScales[i+1]-expFastScales[i])
	}
	a2 := expFastD2Q72 + uint64(h32)*uint64(a)>>(32+expFastScales[3]-72)
	a1 := expFastD1Q68 + mulHi64(h60, a2) // Q60·Q72/2^64: Q68
	w := mulHi64(h60, a1)                 // h·(d1 + ...) in Q64
	tj := expFastTable[j]
	return tj + mulHi64(tj, w), k // 2^(j/16)·2^g in Q62
}
