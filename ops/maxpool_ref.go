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

// reference is max pooling written from the rules, one output at a time:
// rule 8's window, rule 9's scan, rule 10's index.
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

	// greater reports whether the element at coords is strictly greater than
	// the best so far, and makes it the best if so.
	var (
		bestF float64
		bestI int64
		bestU uint64
	)
	reset := func() {
		switch {
		case dt.IsFloat():
			bestF = -math.MaxFloat32
			if dt == tensor.Float16 {
				bestF = -65504
			}
		case dt.IsSigned():
			bestI = math.MinInt64 >> (64 - 8*dt.Size())
		default:
			bestU = 0
		}
	}
	greater := func(c []uint32) bool {
		switch {
		case dt.IsFloat():
			if v := in.Float64At(c...); v > bestF { // false for NaN
				bestF = v
				return true
			}
		case dt.IsSigned():
			if v := in.Int64At(c...); v > bestI {
				bestI = v
				return true
			}
		default:
			if v := in.Uint64At(c...); v > bestU {
				bestU = v
				return true
			}
		}
		return false
	}

	inC := make([]uint32, len(inSizes))
	k := make([]uint32, dims)
	lo, hi := make([]uint32, dims), make([]uint32, dims)
	tensor.ForEachIndex(out.Desc.Sizes, func(o []uint32) {
		reset()
		bits := LowestFinite(dt)
		var best uint64 // index: 0 when no tap is in bounds
		found := false
		inC[0], inC[1] = o[0], o[1]
		// Taps outside [0, In) are padding and change nothing (rule 8), so
		// only the in-bounds taps [lo, hi) of each axis are visited; in
		// row-major window order they come in the same order as in the
		// whole window. (Walking the whole window would take forever for
		// the huge windows a fuzzer or a hostile desc may declare.)
		empty := false
		for i := 0; i < dims; i++ {
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
				empty = true
				break
			}
			lo[i], hi[i] = uint32(l), uint32(h)
		}
		for i := 0; i < dims && !empty; i++ {
			k[i] = lo[i]
		}
		for !empty {
			for i := 0; i < dims; i++ {
				inC[2+i] = uint32(int64(o[2+i])*int64(m.strides[i]) - int64(m.start[i]) + int64(k[i])*int64(m.dilation(i)))
			}
			// Flat index over the logical input, N and C included.
			var flat uint64
			for i, c := range inC {
				flat = flat*uint64(inSizes[i]) + uint64(c)
			}
			if !found {
				found, best = true, flat
			}
			if greater(inC) {
				bits, best = in.Bits(inC...), flat
			}
			// Next in-bounds tap.
			i := dims - 1
			for ; i >= 0; i-- {
				k[i]++
				if k[i] < hi[i] {
					break
				}
				k[i] = lo[i]
			}
			if i < 0 {
				break
			}
		}
		out.SetBits(o, bits)
		if idx != nil {
			idx.SetUint64(o, best)
		}
	})
	return nil
}
