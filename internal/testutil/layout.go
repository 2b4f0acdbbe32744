package testutil

import (
	"fmt"
	"math/rand"

	"github.com/vkdml/vkdml/tensor"
)

// Layout is how a test tensor's elements are laid out in memory.
type Layout int

const (
	Packed    Layout = iota // C order
	Fortran                 // column-major, as a Fortran-order .npy
	Padded                  // C order with gaps after each row and plane
	Broadcast               // C order with stride 0 on some dimensions
)

// Layouts lists every layout, for sweeps.
var Layouts = []Layout{Packed, Fortran, Padded, Broadcast}

// String names the layout in test names ("packed", ...), or "Layout(n)".
func (l Layout) String() string {
	if l < 0 || int(l) >= len(Layouts) {
		return fmt.Sprintf("Layout(%d)", int(l))
	}
	return [...]string{"packed", "fortran", "padded", "broadcast"}[l]
}

// Strides returns strides for sizes in layout l (nil for Packed).
func Strides(rng *rand.Rand, sizes []uint32, l Layout) []uint32 {
	n := len(sizes)
	s := make([]uint32, n)
	switch l {
	case Packed:
		return nil
	case Fortran:
		acc := uint32(1)
		for i := 0; i < n; i++ {
			s[i] = acc
			acc *= sizes[i]
		}
	case Padded:
		acc := uint32(1)
		for i := n - 1; i >= 0; i-- {
			s[i] = acc
			acc = acc*sizes[i] + uint32(rng.Intn(3))
		}
	case Broadcast:
		acc := uint32(1)
		zeroed := false
		for i := n - 1; i >= 0; i-- {
			if rng.Intn(2) == 0 || (!zeroed && i == 0) {
				s[i] = 0 // every element along i repeats
				zeroed = true
				continue
			}
			s[i] = acc
			acc *= sizes[i]
		}
	}
	return s
}

// NewTensor makes a tensor of sizes in layout l, with every addressed
// element set by fill (called in row-major order of logical coordinates;
// broadcast elements get the value of the last write).
func NewTensor(rng *rand.Rand, dt tensor.DataType, sizes []uint32, l Layout, fill func(c []uint32) uint64) *tensor.Tensor {
	var d tensor.Desc
	if st := Strides(rng, sizes, l); st == nil {
		d = tensor.NewDesc(dt, sizes)
	} else {
		d = tensor.NewStridedDesc(dt, sizes, st)
	}
	t := &tensor.Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	rng.Read(t.Data) // bytes between elements hold noise, never read
	tensor.ForEachIndex(sizes, func(c []uint32) { t.SetBits(c, fill(c)) })
	return t
}

// RandomBits returns random element bits for dt (any bit pattern, NaNs and
// infinities included for floats), masked to the type's width.
func RandomBits(rng *rand.Rand, dt tensor.DataType) uint64 {
	v := rng.Uint64()
	if w := dt.Size() * 8; w < 64 {
		v &= 1<<w - 1
	}
	return v
}

// RandomSizes returns rank sizes whose product is at most maxElems.
func RandomSizes(rng *rand.Rand, rank int, maxDim uint32, maxElems uint64) []uint32 {
	for {
		s := make([]uint32, rank)
		p := uint64(1)
		for i := range s {
			s[i] = 1 + uint32(rng.Intn(int(maxDim)))
			p *= uint64(s[i])
		}
		if p <= maxElems {
			return s
		}
	}
}
