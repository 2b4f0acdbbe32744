package ops

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// LowestFinite returns the bits of the lowest finite value of dt, where
// max pooling's running best starts (semantics.md rule 9): −FLT_MAX for
// FLOAT32, −65504 for FLOAT16, the minimum of an integer type.
func LowestFinite(dt tensor.DataType) uint64 {
	switch dt {
	case tensor.Float32:
		return uint64(math.Float32bits(-math.MaxFloat32))
	case tensor.Float16:
		return 0xfbff
	case tensor.Int8:
		return 0x80
	case tensor.Int16:
		return 0x8000
	case tensor.Int32:
		return 0x80000000
	case tensor.Int64:
		return 1 << 63
	}
	return 0 // unsigned types
}

// negInfBits returns the bits of −∞ in the float type dt (FLOAT32
// 0xFF800000, FLOAT16 0xFC00).
func negInfBits(dt tensor.DataType) uint64 {
	if dt == tensor.Float16 {
		return 0xfc00
	}
	return uint64(math.Float32bits(float32(math.Inf(-1))))
}

// poolBest is rule 9's running best of one window: it starts at the
// lowest finite value, and a tap replaces it only when strictly greater
// (never a NaN). FLOAT16 is the exception: DirectML compares it in 32-bit
// floats from −FLT_MAX, so an element of −65504 beats the start and takes
// the index, where a NaN or −∞ tap before it does not (the value written
// is −65504 either way). With negInf (rule 7a's global window at extent
// 1, float types only) the best starts at −∞ instead, which no tap
// strictly exceeds unless it is finite or +∞, so a window of only NaN and
// −∞ keeps the start.
type poolBest struct {
	dt tensor.DataType
	f  float64
	i  int64
	u  uint64
}

func newPoolBest(dt tensor.DataType, negInf bool) poolBest {
	b := poolBest{dt: dt}
	switch {
	case dt.IsFloat() && negInf:
		b.f = math.Inf(-1)
	case dt.IsFloat():
		b.f = -math.MaxFloat32
	case dt.IsSigned():
		b.i = math.MinInt64 >> (64 - 8*dt.Size())
	}
	return b
}

// beats reports whether the element of in at c is strictly greater than
// the best so far, and makes it the best if so.
func (b *poolBest) beats(in *tensor.Tensor, c []uint32) bool {
	switch {
	case b.dt.IsFloat():
		if v := in.Float64At(c...); v > b.f { // false for NaN
			b.f = v
			return true
		}
	case b.dt.IsSigned():
		if v := in.Int64At(c...); v > b.i {
			b.i = v
			return true
		}
	default:
		if v := in.Uint64At(c...); v > b.u {
			b.u = v
			return true
		}
	}
	return false
}

// inBoundsTaps sets [lo[i], hi[i]) to the taps of output o's window that
// fall inside the input on each spatial axis, and reports whether there is
// any. Taps outside [0, In) are padding and change nothing (rule 8), so
// only these are visited; in row-major window order they come in the same
// order as in the whole window. (Walking the whole window would take
// forever for the huge windows a fuzzer or a hostile desc may declare.)
func (m *maxPool) inBoundsTaps(o, inSizes, lo, hi []uint32) bool {
	for i := range lo {
		first := int64(o[2+i])*int64(m.strides[i]) - int64(m.start[i])
		d := int64(m.dilation(i))
		l := int64(0)
		if first < 0 {
			l = (-first + d - 1) / d
		}
		h := int64(m.window[i])
		if last := int64(inSizes[2+i]) - 1 - first; last < 0 {
			h = 0
		} else if n := last/d + 1; n < h {
			h = n
		}
		if l >= h {
			return false
		}
		lo[i], hi[i] = uint32(l), uint32(h)
	}
	return true
}

// reference is max pooling written from the rules, one output at a time:
// rule 8's window, rule 9's scan (from −∞ for rule 7a's global window at
// extent 1), rule 10's index.
func (m *maxPool) reference(inputs, outputs []*tensor.Tensor) error {
	if len(inputs) != 1 || len(outputs) < 1 || inputs[0] == nil || outputs[0] == nil {
		return fmt.Errorf("maxpool reference: want 1 input and an output")
	}
	in, out := inputs[0], outputs[0]
	var idx *tensor.Tensor
	if len(outputs) > 1 {
		idx = outputs[1]
	}
	if (idx == nil) != (m.idx == nil) {
		return fmt.Errorf("maxpool reference: indices tensor present %v, desc says %v", idx != nil, m.idx != nil)
	}
	dt := in.Desc.DataType
	dims := len(in.Desc.Sizes) - 2
	inSizes := in.Desc.Sizes
	inC := make([]uint32, len(inSizes))
	k := make([]uint32, dims)
	lo, hi := make([]uint32, dims), make([]uint32, dims)
	negInf := m.startsAtNegInf()
	start := LowestFinite(dt)
	if negInf {
		start = negInfBits(dt)
	}
	tensor.ForEachIndex(out.Desc.Sizes, func(o []uint32) {
		best := newPoolBest(dt, negInf)
		bits := start
		var at uint64 // index: 0 when no tap is in bounds
		found := false
		inC[0], inC[1] = o[0], o[1]
		for ok := m.inBoundsTaps(o, inSizes, lo, hi); ok; ok = nextTap(k, lo, hi) {
			if !found {
				copy(k, lo)
			}
			for i := 0; i < dims; i++ {
				inC[2+i] = uint32(int64(o[2+i])*int64(m.strides[i]) - int64(m.start[i]) + int64(k[i])*int64(m.dilation(i)))
			}
			// Flat index over the logical input, N and C included.
			var flat uint64
			for i, c := range inC {
				flat = flat*uint64(inSizes[i]) + uint64(c)
			}
			if !found {
				found, at = true, flat
			}
			if best.beats(in, inC) {
				bits, at = in.Bits(inC...), flat
			}
		}
		out.SetBits(o, bits)
		if idx != nil {
			idx.SetUint64(o, at)
		}
	})
	return nil
}

// nextTap steps k to the next tap in row-major order within [lo, hi) per
// axis, and reports false after the last.
func nextTap(k, lo, hi []uint32) bool {
	for i := len(k) - 1; i >= 0; i-- {
		k[i]++
		if k[i] < hi[i] {
			return true
		}
		k[i] = lo[i]
	}
	return false
}
