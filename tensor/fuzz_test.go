package tensor

import (
	"encoding/binary"
	"errors"
	"math/big"
	"testing"

	"github.com/vkdml/vkdml/hresult"
)

// descFromBytes decodes a fuzzer's bytes into a descriptor: type, flags,
// rank, then sizes and strides as little-endian uint32s.
func descFromBytes(b []byte) Desc {
	word := func() uint32 {
		if len(b) < 4 {
			b = nil
			return 0
		}
		v := binary.LittleEndian.Uint32(b)
		b = b[4:]
		return v
	}
	var d Desc
	if len(b) < 4 {
		return d
	}
	d.DataType = DataType(b[0] % 14)
	d.Flags = Flags(b[1] % 3)
	rank := int(b[2] % 10)
	strided := b[3]&1 != 0
	d.GuaranteedBaseOffsetAlignment = uint32(b[3]>>1) % 65
	b = b[4:]
	for range rank {
		d.Sizes = append(d.Sizes, word())
	}
	if strided {
		for range rank {
			d.Strides = append(d.Strides, word())
		}
	}
	d.TotalTensorSizeInBytes = uint64(word())<<32 | uint64(word())
	return d
}

// FuzzBufferTensorSize compares CalcBufferTensorSize with a math/big model
// and checks that Validate never panics and, when it accepts a desc, every
// invariant the host layer relies on holds.
func FuzzBufferTensorSize(f *testing.F) {
	seed := func(dt DataType, flags Flags, strided bool, sizes, strides []uint32, total uint64) []byte {
		b := []byte{byte(dt), byte(flags), byte(len(sizes)), 0}
		if strided {
			b[3] = 1
		}
		for _, s := range sizes {
			b = binary.LittleEndian.AppendUint32(b, s)
		}
		for _, s := range strides {
			b = binary.LittleEndian.AppendUint32(b, s)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(total>>32))
		return binary.LittleEndian.AppendUint32(b, uint32(total))
	}
	f.Add(seed(Float32, 0, false, []uint32{1, 1, 3, 5}, nil, 60))
	f.Add(seed(Float32, 0, true, []uint32{1, 1, 3, 5}, []uint32{15, 1, 5, 1}, 60))
	f.Add(seed(Float16, 0, true, []uint32{2, 3}, []uint32{0, 1}, 8))
	f.Add(seed(UInt8, 1, true, []uint32{2, 3}, []uint32{3000000000, 1}, 1<<33))
	f.Add(seed(Int64, 0, false, []uint32{65536, 65536}, nil, 1<<35))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := descFromBytes(b)
		got := CalcBufferTensorSize(d.DataType, d.Sizes, d.Strides)
		if want := bigCalc(d.DataType, d.Sizes, d.Strides); got != want {
			t.Fatalf("CalcBufferTensorSize(%v) = %d, math/big model %d", d, got, want)
		}
		err := d.Validate()
		if err != nil {
			if !errors.Is(err, hresult.E_INVALIDARG) {
				t.Fatalf("Validate(%v) = %v, not E_INVALIDARG", d, err)
			}
			return
		}
		// Accepted: the invariants kernels and bindings rely on.
		n := new(big.Int).SetUint64(1)
		for _, s := range d.Sizes {
			n.Mul(n, new(big.Int).SetUint64(uint64(s)))
		}
		if n.Sign() == 0 || n.Cmp(big.NewInt(MaxElementCount)) > 0 || d.ElementCount() != n.Uint64() {
			t.Fatalf("accepted %v with %v elements", d, n)
		}
		if d.TotalTensorSizeInBytes < got || got%4 != 0 {
			t.Fatalf("accepted %v: total below the implied %d, or the implied size not DWORD-aligned", d, got)
		}
		if len(d.Sizes) < 1 || len(d.Sizes) > MaxDimensionCount {
			t.Fatalf("accepted rank %d", len(d.Sizes))
		}
		// The last element lies inside the buffer.
		last := make([]uint32, len(d.Sizes))
		for i, s := range d.Sizes {
			last[i] = s - 1
		}
		if end := (d.Offset(last) + 1) * uint64(d.DataType.Size()); end > d.TotalTensorSizeInBytes {
			t.Fatalf("accepted %v: last element ends at byte %d", d, end)
		}
		if err := d.ValidateOutput(); err == nil {
			checkNoAliasing(t, d)
		}
	})
}

// checkNoAliasing verifies, for small tensors, that an accepted output
// never maps two elements to one offset.
func checkNoAliasing(t *testing.T, d Desc) {
	if d.ElementCount() > 4096 {
		return
	}
	seen := map[uint64]bool{}
	ForEachIndex(d.Sizes, func(c []uint32) {
		o := d.Offset(c)
		if seen[o] {
			t.Fatalf("ValidateOutput accepted %v, which maps two elements to offset %d", d, o)
		}
		seen[o] = true
	})
}
