package ops

import (
	"math/big"
	"math/bits"
)

// This file is the definition of REDUCE's floating-point functions
// (docs/semantics.md rules 39-44) as a Go reference. Every step is integer
// arithmetic on 32-bit words or on 64-bit words that a shader holds as two
// (umulExtended, uaddCarry), so that a GLSL kernel can give the same bits:
// nothing depends on the host's float unit, fused multiply-add or denormal
// flushing.

// binaryFormat describes an IEEE binary interchange format.
type binaryFormat struct {
	prec    int    // significand bits, the hidden bit included
	emin    int    // exponent of the smallest normal number
	bias    int    // exponent bias; also the largest exponent
	expMask uint32 // the all-ones exponent field, shifted into place
	sign    uint32 // the sign bit
	nan     uint32 // vkdml's NaN: the quiet NaN with sign 0 and no payload
}

var (
	formatFloat32 = binaryFormat{prec: 24, emin: -126, bias: 127, expMask: 0x7f800000, sign: 1 << 31, nan: 0x7fc00000}
	formatFloat16 = binaryFormat{prec: 11, emin: -14, bias: 15, expMask: 0x7c00, sign: 1 << 15, nan: 0x7e00}
)

func (f binaryFormat) inf(negative bool) uint32 {
	if negative {
		return f.expMask | f.sign
	}
	return f.expMask
}

func (f binaryFormat) zero(negative bool) uint32 {
	if negative {
		return f.sign
	}
	return 0
}

// highestBit is the index of the highest set bit of the little-endian
// words mag, or -1 when mag is zero.
func highestBit(mag []uint32) int {
	for i := len(mag) - 1; i >= 0; i-- {
		if mag[i] != 0 {
			return 32*i + 31 - bits.LeadingZeros32(mag[i])
		}
	}
	return -1
}

// bitAt is bit i of mag (0 outside it).
func bitAt(mag []uint32, i int) uint32 {
	if i < 0 || i >= 32*len(mag) {
		return 0
	}
	return mag[i>>5] >> uint(i&31) & 1
}

// anyBelow reports whether any of bits 0..i-1 of mag is set.
func anyBelow(mag []uint32, i int) bool {
	for w := 0; w < len(mag) && 32*w < i; w++ {
		keep := mag[w]
		if n := i - 32*w; n < 32 {
			keep &= 1<<uint(n) - 1
		}
		if keep != 0 {
			return true
		}
	}
	return false
}

// field is bits lo..lo+n-1 of mag (n <= 32), as a shader reads them from
// at most two words.
func field(mag []uint32, lo, n int) uint32 {
	var v uint32
	for i := 0; i < n; i++ {
		v |= bitAt(mag, lo+i) << uint(i)
	}
	return v
}

// roundBinary rounds (-1)^negative · mag · 2^lsbExp to f, to nearest with
// ties to even, denormals kept, past the largest finite value to infinity
// (IEEE 754's roundTiesToEven). A zero magnitude gives a zero of the sign.
func roundBinary(mag []uint32, lsbExp int, negative bool, f binaryFormat) uint32 {
	h := highestBit(mag)
	if h < 0 {
		return f.zero(negative)
	}
	sign := f.zero(negative)
	top := h + lsbExp // the value lies in [2^top, 2^(top+1))
	if top > f.bias+1 {
		return f.inf(negative)
	}
	lsb := top // the exponent of the result's last significand bit
	if lsb < f.emin {
		lsb = f.emin
	}
	lsb -= f.prec - 1
	var keep uint32
	if d := lsb - lsbExp; d <= 0 {
		keep = field(mag, 0, h+1) << uint(-d)
	} else {
		keep = field(mag, d, f.prec)
		if bitAt(mag, d-1) == 1 && (keep&1 == 1 || anyBelow(mag, d-1)) {
			keep++
		}
		if keep == 1<<uint(f.prec) {
			keep >>= 1
			lsb++
		}
	}
	hidden := uint32(1) << uint(f.prec-1)
	if keep < hidden { // a denormal (lsb is emin-prec+1)
		return sign | keep
	}
	biased := lsb + f.prec - 1 + f.bias
	if biased >= 2*f.bias+1 {
		return f.inf(negative)
	}
	return sign | uint32(biased)<<uint(f.prec-1) | keep&(hidden-1)
}

// float32Parts splits a finite FLOAT32 into sign, integer significand m
// (denormals included) and exponent e, the value being ±m·2^e.
func float32Parts(x uint32) (negative bool, m uint32, e int) {
	biased := int(x >> 23 & 0xff)
	m = x & 0x7fffff
	if biased != 0 {
		m |= 1 << 23
	} else {
		biased = 1
	}
	return x>>31 == 1, m, biased - 150
}

func isNaN32(x uint32) bool { return x&0x7fffffff > 0x7f800000 }
func isInf32(x uint32) bool { return x&0x7fffffff == 0x7f800000 }

// halfToFloat32Bits widens FLOAT16 bits to FLOAT32 bits, exactly; a NaN
// keeps its sign and payload.
func halfToFloat32Bits(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	biased := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case biased == 0x1f:
		return sign | 0x7f800000 | man<<13
	case biased == 0 && man == 0:
		return sign
	case biased == 0:
		return roundBinary([]uint32{man}, -24, sign != 0, formatFloat32)
	}
	return sign | (biased+112)<<23 | man<<13
}

// float32ToHalfBits rounds FLOAT32 bits to FLOAT16 once (nearest even);
// NaN becomes vkdml's NaN.
func float32ToHalfBits(x uint32) uint16 {
	switch {
	case isNaN32(x):
		return uint16(formatFloat16.nan)
	case isInf32(x):
		return uint16(formatFloat16.inf(x>>31 == 1))
	}
	negative, m, e := float32Parts(x)
	return uint16(roundBinary([]uint32{m}, e, negative, formatFloat16))
}

// exactLimbs is the accumulator's width in 32-bit words. Limb i weighs
// 2^(32i-149): every finite FLOAT32 (and FLOAT16) is a multiple of 2^-149
// below 2^128, so 2^32 of them sum to less than 2^160, and 320 bits of two's
// complement hold any such sum exactly (the sign bit weighs 2^170).
const exactLimbs = 10

// exactAcc is the exact sum of FLOAT32 terms: a two's complement fixed-point
// number of 32-bit limbs, and the terms' infinities, NaN and signed zeros
// kept apart. Merging accumulators in any grouping gives the same state, so
// the result does not depend on how a block is split.
type exactAcc struct {
	limb   [exactLimbs]uint32
	posInf bool
	negInf bool
	nan    bool
	// notAllNegZero: some term was not -0. With every term -0 (or none)
	// the zero sum is -0, as IEEE addition of -0s gives.
	notAllNegZero bool
}

// add adds one FLOAT32 term.
func (a *exactAcc) add(x uint32) {
	if x != 0x80000000 {
		a.notAllNegZero = true
	}
	switch {
	case isNaN32(x):
		a.nan = true
		return
	case isInf32(x):
		if x>>31 == 1 {
			a.negInf = true
		} else {
			a.posInf = true
		}
		return
	}
	negative, m, e := float32Parts(x)
	if m == 0 {
		return
	}
	p := e + 149 // the bit of m's lowest bit in the accumulator, 0..253
	q, s := p>>5, uint(p&31)
	lo := m << s
	var hi uint32
	if s != 0 {
		hi = m >> (32 - s)
	}
	if negative {
		var borrow uint32
		a.limb[q], borrow = bits.Sub32(a.limb[q], lo, 0)
		a.limb[q+1], borrow = bits.Sub32(a.limb[q+1], hi, borrow)
		for i := q + 2; i < exactLimbs && borrow != 0; i++ {
			a.limb[i], borrow = bits.Sub32(a.limb[i], 0, borrow)
		}
		return
	}
	var carry uint32
	a.limb[q], carry = bits.Add32(a.limb[q], lo, 0)
	a.limb[q+1], carry = bits.Add32(a.limb[q+1], hi, carry)
	for i := q + 2; i < exactLimbs && carry != 0; i++ {
		a.limb[i], carry = bits.Add32(a.limb[i], 0, carry)
	}
}

// merge adds another accumulator's sum into a.
func (a *exactAcc) merge(b *exactAcc) {
	var carry uint32
	for i := range a.limb {
		a.limb[i], carry = bits.Add32(a.limb[i], b.limb[i], carry)
	}
	a.posInf = a.posInf || b.posInf
	a.negInf = a.negInf || b.negInf
	a.nan = a.nan || b.nan
	a.notAllNegZero = a.notAllNegZero || b.notAllNegZero
}

// round rounds the exact sum once to f (nearest even): NaN if a term was
// NaN or there were infinities of both signs, an infinity if there was
// one, ±0 for an exact zero (-0 only if every term was -0).
func (a *exactAcc) round(f binaryFormat) uint32 {
	switch {
	case a.nan || a.posInf && a.negInf:
		return f.nan
	case a.posInf || a.negInf:
		return f.inf(a.negInf)
	}
	mag := a.limb
	negative := mag[exactLimbs-1]>>31 == 1
	if negative { // two's complement negation
		carry := uint32(1)
		for i := range mag {
			mag[i], carry = bits.Add32(^mag[i], 0, carry)
		}
	}
	if highestBit(mag[:]) < 0 {
		return f.zero(!a.notAllNegZero)
	}
	return roundBinary(mag[:], -149, negative, f)
}

// mulFloat32 is IEEE FLOAT32 multiplication (nearest even, denormals kept),
// from the significands' 48-bit product.
func mulFloat32(x, y uint32) uint32 {
	negative := (x^y)>>31 == 1
	switch {
	case isNaN32(x) || isNaN32(y):
		return formatFloat32.nan
	case isInf32(x) || isInf32(y):
		if x&0x7fffffff == 0 || y&0x7fffffff == 0 {
			return formatFloat32.nan
		}
		return formatFloat32.inf(negative)
	}
	_, mx, ex := float32Parts(x)
	_, my, ey := float32Parts(y)
	hi, lo := bits.Mul32(mx, my)
	return roundBinary([]uint32{lo, hi}, ex+ey, negative, formatFloat32)
}

// divFloat32ByCount is x/n for a count n >= 1, correctly rounded.
func divFloat32ByCount(x uint32, n uint32) uint32 {
	if isNaN32(x) {
		return formatFloat32.nan
	}
	if isInf32(x) {
		return x
	}
	negative, m, e := float32Parts(x)
	num := uint64(m) << 39 // the quotient keeps 26 bits or more past a normal m
	q, r := num/uint64(n), num%uint64(n)
	q <<= 1 // the remainder's sticky bit below the quotient
	if r != 0 {
		q |= 1
	}
	return roundBinary(words64(q), e-40, negative, formatFloat32)
}

func words64(v uint64) []uint32 { return []uint32{uint32(v), uint32(v >> 32)} }

// isqrt64 is floor(sqrt(v)), bit by bit.
func isqrt64(v uint64) uint64 {
	var root uint64
	for bit := uint64(1) << 62; bit != 0; bit >>= 2 {
		if v >= root+bit {
			v -= root + bit
			root = root>>1 + bit
		} else {
			root >>= 1
		}
	}
	return root
}

// sqrtFloat32 is the correctly rounded square root (IEEE 754's): -0 for
// -0, NaN below zero.
func sqrtFloat32(x uint32) uint32 {
	switch {
	case isNaN32(x):
		return formatFloat32.nan
	case x&0x7fffffff == 0:
		return x
	case x>>31 == 1:
		return formatFloat32.nan
	case isInf32(x):
		return x
	}
	_, m, e := float32Parts(x)
	for m < 1<<23 { // normalise a denormal
		m <<= 1
		e--
	}
	v := uint64(m)
	if e&1 != 0 {
		v <<= 1
		e--
	}
	v <<= 38 // v < 2^63: the root has at least 26 bits
	root := isqrt64(v)
	inexact := root*root != v
	root <<= 1 // the remainder's sticky bit below the root
	if inexact {
		root |= 1
	}
	return roundBinary(words64(root), (e-38)/2-1, false, formatFloat32)
}

// Fixed-point constants of exp and log (fixedConstants computes them
// exactly with math/big; a shader include carries the same numbers).
var (
	fixLn2Q64      uint64    // ln 2 · 2^64, truncated
	fixLog2EQ62    uint64    // 1/ln 2 · 2^62, truncated
	fixExpCoeffs   [16]int64 // round(2^62/j!): exp's Taylor series; the tail past j = 15 is below 2^-63 for |r| <= 0.35
	fixAtanhCoeffs [13]int64 // round(2^62/(2j+1)): 2·atanh(s)/s in powers of s², the tail below 2^-66 for |s| <= 0.172
)

func init() { fixedConstants() }

// bigLn2 is ln 2 = 2·atanh(1/3) = Σ 2/((2j+1)·3^(2j+1)) to 256 bits.
func bigLn2() *big.Float {
	const prec = 256
	ln2 := new(big.Float).SetPrec(prec)
	third := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3))
	pow := new(big.Float).SetPrec(prec).Set(third)
	ninth := new(big.Float).SetPrec(prec).Mul(third, third)
	for j := 0; j < 90; j++ {
		t := new(big.Float).SetPrec(prec).Quo(pow, big.NewFloat(float64(2*j+1)))
		ln2.Add(ln2, t)
		pow.Mul(pow, ninth)
	}
	return ln2.Mul(ln2, big.NewFloat(2))
}

func fixedConstants() {
	const prec = 256
	ln2 := bigLn2()
	scaled := func(v *big.Float, exp int) uint64 {
		i, _ := new(big.Float).SetPrec(prec).SetMantExp(v, exp).Int(nil) // truncates
		return i.Uint64()
	}
	fixLn2Q64 = scaled(ln2, 64)
	fixLog2EQ62 = scaled(new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), ln2), 62)
	roundedQuo := func(d *big.Int) int64 { // round(2^62/d)
		n := new(big.Int).Lsh(big.NewInt(1), 63)
		n.Add(n, d)
		n.Quo(n, new(big.Int).Lsh(d, 1))
		return n.Int64()
	}
	fact := big.NewInt(1)
	for j := range fixExpCoeffs {
		if j > 0 {
			fact.Mul(fact, big.NewInt(int64(j)))
		}
		fixExpCoeffs[j] = roundedQuo(fact)
	}
	for j := range fixAtanhCoeffs {
		fixAtanhCoeffs[j] = roundedQuo(big.NewInt(int64(2*j + 1)))
	}
}

// mulQ62 is a·b/2^62 for signed Q62 numbers, the magnitude truncated.
func mulQ62(a, b int64) int64 {
	negative := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absInt64(a), absInt64(b))
	v := int64(hi<<2 | lo>>62)
	if negative {
		return -v
	}
	return v
}

func absInt64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// expFloat32 is vkdml's exp: x = k·ln2 + r with |r| <= ln2/2 in fixed
// point, exp(r) by its Taylor series in Q62, the product 2^k·exp(r)
// rounded once. Error under 0.5 ULP + 2^-30 ULP (rule 40; measured by
// TestExpFloat32Accuracy).
func expFloat32(x uint32) uint32 {
	switch {
	case isNaN32(x):
		return formatFloat32.nan
	case x == 0xff800000:
		return 0
	case isInf32(x):
		return x
	}
	negative, m, e := float32Parts(x)
	switch {
	case e+23 < -26: // |x| < 2^-26: exp(x) rounds to 1
		return 0x3f800000
	case !negative && x >= 0x42b20000: // x >= 89: past FLT_MAX
		return formatFloat32.inf(false)
	case negative && x >= 0xc2d00000: // x <= -104: below 2^-150
		return 0
	}
	p, k := expQ62(negative, m, e)
	return roundBinary(words64(uint64(p)), int(k)-62, false, formatFloat32)
}

// expQ62 is exp(±m·2^e) = p·2^(k-62) for 2^-26 <= m·2^e < 128, within
// 2^-56 of the value (rule 40): expFloat32's evaluation before rounding.
func expQ62(negative bool, m uint32, e int) (p, k int64) {
	ax := uint64(m) << uint(e+56) // |x|·2^56, exact: e >= -49 here, |x| < 2^7
	// k = round(|x|/ln 2)
	hi, _ := bits.Mul64(ax, fixLog2EQ62) // |x|/ln2 · 2^118
	k = int64((hi + 1<<53) >> 54)
	// r = |x| - k·ln2, in Q62: (|x|·2^64 - k·ln2·2^64) / 4
	khi, klo := bits.Mul64(uint64(k), fixLn2Q64)
	xhi, xlo := ax>>56, ax<<8 // |x|·2^64 as 128 bits
	dlo, borrow := bits.Sub64(xlo, klo, 0)
	dhi, _ := bits.Sub64(xhi, khi, borrow)
	r := int64(dhi<<62 | dlo>>2) // |r| < 2^61: fits, sign included
	if negative {
		r, k = -r, -k
	}
	p = fixExpCoeffs[len(fixExpCoeffs)-1]
	for j := len(fixExpCoeffs) - 2; j >= 0; j-- {
		p = fixExpCoeffs[j] + mulQ62(p, r)
	}
	return p, k
}

// logFloat32 is vkdml's natural logarithm: x = 2^k·f with f in
// [sqrt(1/2), sqrt(2)], log f = 2·atanh((f-1)/(f+1)) by its series in Q62,
// k·ln2 + log f rounded once. Error under 0.5 ULP + 2^-30 ULP (rule 40).
func logFloat32(x uint32) uint32 {
	switch {
	case isNaN32(x):
		return formatFloat32.nan
	case x&0x7fffffff == 0:
		return formatFloat32.inf(true)
	case x>>31 == 1:
		return formatFloat32.nan
	case isInf32(x):
		return x
	case x == 0x3f800000:
		return 0
	}
	_, m, e := float32Parts(x)
	for m < 1<<23 { // normalise a denormal
		m <<= 1
		e--
	}
	k := int64(e + 23)
	f := int64(m) << 38 // f in Q61, [1, 2)
	if m > 11863283 {   // f > sqrt 2: halve it
		f >>= 1
		k++
	}
	one := int64(1) << 61
	num, den := f-one, f+one // |num| < den < 2^63
	// s = num/den scaled by 2^scale into [1/4, 1), in Q62, so that log f
	// near 1 keeps as many significant bits as anywhere else.
	scale := 0
	if k == 0 {
		scale = bits.Len64(uint64(den)) - bits.Len64(absInt64(num)) - 1
	}
	sh := uint(62 + scale)
	var nhi, nlo uint64
	if sh < 64 {
		nhi, nlo = absInt64(num)>>(64-sh), absInt64(num)<<sh
	} else {
		nhi = absInt64(num) << (sh - 64)
	}
	sq, _ := bits.Div64(nhi, nlo, uint64(den))
	s := int64(sq) // s·2^scale, |s| <= 0.172 when scale is 0
	if num < 0 {
		s = -s
	}
	z := mulQ62(s, s) >> uint(2*scale)
	q := fixAtanhCoeffs[len(fixAtanhCoeffs)-1]
	for j := len(fixAtanhCoeffs) - 2; j >= 0; j-- {
		q = fixAtanhCoeffs[j] + mulQ62(q, z)
	}
	logF := 2 * mulQ62(s, q) // log f · 2^scale in Q62
	if k == 0 {
		return roundBinary(words64(absInt64(logF)), -62-scale, logF < 0, formatFloat32)
	}
	// k·ln2 + log f in Q64 as a signed 128-bit number (|k| <= 150).
	hi, lo := bits.Mul64(absInt64(k), fixLn2Q64)
	fhi, flo := absInt64(logF)>>62, absInt64(logF)<<2
	negative := k < 0
	if (logF < 0) == negative { // same signs: add the magnitudes
		var c uint64
		lo, c = bits.Add64(lo, flo, 0)
		hi, _ = bits.Add64(hi, fhi, c)
	} else { // |k·ln2| > ln2/2 >= |log f|
		var b uint64
		lo, b = bits.Sub64(lo, flo, 0)
		hi, _ = bits.Sub64(hi, fhi, b)
	}
	return roundBinary([]uint32{uint32(lo), uint32(lo >> 32), uint32(hi), uint32(hi >> 32)}, -64, negative, formatFloat32)
}

// multiplyTree is MULTIPLY's canonical order (rule 42): the block's n
// values in row-major order, padded with 1s to a power of two, multiplied
// as a balanced binary tree whose every node covers an aligned power-of-two
// range, each product rounded to FLOAT32.
func multiplyTree(xs []uint32) uint32 {
	if len(xs) == 1 {
		return xs[0]
	}
	half := 1
	for half*2 < len(xs) {
		half *= 2
	}
	return mulFloat32(multiplyTree(xs[:half]), multiplyTree(xs[half:]))
}

// reduceFloatTerm is the term a function sums for one FLOAT32 value.
func reduceFloatTerm(f ReduceFunction, x uint32) uint32 {
	switch f {
	case ReduceFunctionL1:
		return x &^ (1 << 31) // a NaN stays a NaN
	case ReduceFunctionL2, ReduceFunctionSumSquare:
		return mulFloat32(x, x)
	case ReduceFunctionLogSumExp:
		return expFloat32(x)
	}
	return x
}

// reduceFloatExact is the definition of a floating-point REDUCE function
// over one block: xs are the block's values as FLOAT32 bits (FLOAT16 inputs
// widened exactly) in row-major order over the reduced axes. The answer is
// FLOAT32 bits, or FLOAT16 bits in the low half when half is set.
func reduceFloatExact(f ReduceFunction, half bool, xs []uint32) uint32 {
	if f == ReduceFunctionMultiply {
		p := multiplyTree(xs)
		if isNaN32(p) { // a lone NaN keeps its bits in the tree; rule 43 writes one NaN
			p = formatFloat32.nan
		}
		return narrowIf(half, p)
	}
	var acc exactAcc
	for _, x := range xs {
		acc.add(reduceFloatTerm(f, x))
	}
	switch f {
	case ReduceFunctionSum, ReduceFunctionL1, ReduceFunctionSumSquare:
		if half {
			return acc.round(formatFloat16)
		}
		return acc.round(formatFloat32)
	}
	sum := acc.round(formatFloat32)
	var v uint32
	switch f {
	case ReduceFunctionAverage:
		v = divFloat32ByCount(sum, uint32(len(xs)))
	case ReduceFunctionL2:
		v = sqrtFloat32(sum)
	default: // LOG_SUM, LOG_SUM_EXP
		v = logFloat32(sum)
	}
	return narrowIf(half, v)
}

func narrowIf(half bool, x uint32) uint32 {
	if half {
		return uint32(float32ToHalfBits(x))
	}
	return x
}
