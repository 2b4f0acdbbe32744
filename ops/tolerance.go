package ops

import (
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// Tolerance is how far a GPU result may be from the CPU reference. The zero
// Tolerance means bit for bit, which every operator vkdml has today asks
// for: indices are always exact, and ARGMAX and MAX_POOLING copy values.
// An operator that computes values (REDUCE's SUM, AVERAGE, L2, ...) states
// its bound instead, per output, by implementing Toleranced.
type Tolerance struct {
	// ULP accepts a floating-point element within ULP units in the last
	// place of the reference's (counted over the ordered bit patterns, so
	// −0 and +0 are 1 apart).
	ULP uint64
	// Rel accepts a floating-point element with |got − want| ≤ Rel·|want|.
	Rel float64
}

// Toleranced is implemented by descs whose GPU results may differ from
// Reference by rounding; the test harness compares output i within
// Tolerance(i). Descs that do not implement it are compared bit for bit.
type Toleranced interface {
	Tolerance(output int) Tolerance
}

// ToleranceOf is d's tolerance for output i: exact unless d is Toleranced.
func ToleranceOf(d Desc, output int) Tolerance {
	if t, ok := d.(Toleranced); ok {
		return t.Tolerance(output)
	}
	return Tolerance{}
}

// Exact reports whether t asks for bit-for-bit equality.
func (t Tolerance) Exact() bool { return t.ULP == 0 && t.Rel == 0 }

// Accepts reports whether an element of type dt the GPU produced (got, its
// raw bits zero-extended) matches the reference's (want) within t. Integer
// types, and every type under the zero Tolerance, must match exactly; a NaN
// matches any NaN.
func (t Tolerance) Accepts(dt tensor.DataType, want, got uint64) bool {
	if want == got {
		return true
	}
	if t.Exact() || !dt.IsFloat() {
		return false
	}
	bits := 8 * dt.Size()
	w, g := floatOf(bits, want), floatOf(bits, got)
	if math.IsNaN(w) || math.IsNaN(g) {
		return math.IsNaN(w) && math.IsNaN(g)
	}
	if t.ULP > 0 {
		a, b := orderedBits(bits, want), orderedBits(bits, got)
		if d := max(a, b) - min(a, b); uint64(d) <= t.ULP {
			return true
		}
	}
	return t.Rel > 0 && math.Abs(g-w) <= t.Rel*math.Abs(w)
}

// floatOf decodes a bits-wide IEEE 754 value.
func floatOf(bits int, v uint64) float64 {
	switch bits {
	case 16:
		return float16(uint16(v))
	case 32:
		return float64(math.Float32frombits(uint32(v)))
	}
	return math.Float64frombits(v)
}

// float16 decodes an IEEE 754 binary16 value.
func float16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// orderedBits maps a bits-wide float's pattern to an integer whose order is
// the values' order (negative values below positive ones, −0 just below
// +0), so that the distance of two patterns counts ULPs.
func orderedBits(bits int, v uint64) int64 {
	signBit := uint64(1) << (bits - 1)
	mag := int64(v &^ signBit & (signBit<<1 - 1))
	if v&signBit != 0 {
		return -mag - 1
	}
	return mag
}
