package ops

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// reference is the CPU oracle, written from semantics.md's rules and not
// from the kernels: for each output element it walks the block of reduced
// axes in row-major order (rule 1) and runs rule 5's sequential scan
// literally, with the language's own comparisons (every comparison with
// NaN false, -0 == +0). It writes only the addressed output elements
// (rule 6).
func (a *argOp) reference(inputs, outputs []*tensor.Tensor) error {
	if len(inputs) != 1 || len(outputs) != 1 {
		return fmt.Errorf("%s reference: want 1 input and 1 output, got %d and %d", a.typ, len(inputs), len(outputs))
	}
	in, out := inputs[0], outputs[0]
	reduced := a.reducedAxes()
	rank := a.in.Rank()
	sizes, istr := a.in.Sizes, a.in.EffectiveStrides()
	ostr := a.out.EffectiveStrides()
	es := uint64(a.in.DataType.Size())
	read := argRawReader(in.Data, a.in.DataType)

	// The scan's comparison: does a later element c replace the best b?
	orEqual := a.dir == AxisDirectionDecreasing
	var moves func(c, b uint64) bool
	dt := a.in.DataType
	switch {
	case dt.IsFloat():
		moves = argScanMoves(argFloat32Of(dt), a.isMin, orEqual)
	case dt.IsSigned():
		shift := 64 - 8*es
		moves = argScanMoves(func(x uint64) int64 { return int64(x<<shift) >> shift }, a.isMin, orEqual)
	default:
		moves = argScanMoves(func(x uint64) uint64 { return x }, a.isMin, orEqual)
	}

	// The block: reduced dimensions in dimension order.
	var bsizes, bstrides []uint64
	for i := 0; i < rank; i++ {
		if reduced[i] {
			bsizes = append(bsizes, uint64(sizes[i]))
			bstrides = append(bstrides, uint64(istr[i]))
		}
	}
	scan := func(base uint64) uint64 {
		best := read(base)
		var bestIdx, idx uint64
		first := true
		argWalkBlock(bsizes, bstrides, base, func(off uint64) {
			if first {
				first = false
				idx++
				return
			}
			if v := read(off); moves(v, best) {
				best, bestIdx = v, idx
			}
			idx++
		})
		return bestIdx
	}

	write := argIndexWriter(out.Data, a.out.DataType)
	// Every output element: kept coordinates, reduced ones at 0.
	tensor.ForEachIndex(a.out.Sizes, func(c []uint32) {
		var ioff, ooff uint64
		for i, x := range c {
			ioff += uint64(x) * uint64(istr[i])
			ooff += uint64(x) * uint64(ostr[i])
		}
		write(ooff, scan(ioff))
	})
	return nil
}

// argScanMoves is rule 5's comparison on the values that value decodes
// from raw bits: ARGMAX moves on "c > b", ARGMIN on "c < b", and orEqual
// (DECREASING) adds equality. The operators are the language's own, so
// every comparison with NaN is false and -0 == +0.
func argScanMoves[T float32 | int64 | uint64](value func(uint64) T, isMin, orEqual bool) func(c, b uint64) bool {
	switch {
	case !isMin && !orEqual:
		return func(c, b uint64) bool { return value(c) > value(b) }
	case !isMin && orEqual:
		return func(c, b uint64) bool { return value(c) >= value(b) }
	case isMin && !orEqual:
		return func(c, b uint64) bool { return value(c) < value(b) }
	}
	return func(c, b uint64) bool { return value(c) <= value(b) }
}

// walkBlock calls fn with the element offset of every position of a block
// (sizes, strides in elements, outermost first) in row-major order.
func argWalkBlock(sizes, strides []uint64, base uint64, fn func(off uint64)) {
	if len(sizes) == 0 {
		fn(base)
		return
	}
	if len(sizes) == 1 {
		n, s := sizes[0], strides[0]
		for i := uint64(0); i < n; i++ {
			fn(base + i*s)
		}
		return
	}
	for i := uint64(0); i < sizes[0]; i++ {
		argWalkBlock(sizes[1:], strides[1:], base+i*strides[0], fn)
	}
}

// rawReader returns the zero-extended bits of the element at an element
// offset.
func argRawReader(data []byte, dt tensor.DataType) func(off uint64) uint64 {
	switch dt.Size() {
	case 1:
		return func(off uint64) uint64 { return uint64(data[off]) }
	case 2:
		return func(off uint64) uint64 { return uint64(binary.LittleEndian.Uint16(data[2*off:])) }
	case 4:
		return func(off uint64) uint64 { return uint64(binary.LittleEndian.Uint32(data[4*off:])) }
	default:
		return func(off uint64) uint64 { return binary.LittleEndian.Uint64(data[8*off:]) }
	}
}

// indexWriter stores an index as the output type's element at an element
// offset (indices are non-negative and validated to fit).
func argIndexWriter(data []byte, dt tensor.DataType) func(off, v uint64) {
	if dt.Size() == 8 {
		return func(off, v uint64) { binary.LittleEndian.PutUint64(data[8*off:], v) }
	}
	return func(off, v uint64) { binary.LittleEndian.PutUint32(data[4*off:], uint32(v)) }
}

// float32Of decodes FLOAT32 or FLOAT16 bits exactly.
func argFloat32Of(dt tensor.DataType) func(uint64) float32 {
	if dt == tensor.Float32 {
		return func(b uint64) float32 { return math.Float32frombits(uint32(b)) }
	}
	return func(b uint64) float32 { return argHalf(uint16(b)) }
}

// half converts IEEE binary16 bits to float32 (exact).
func argHalf(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man * 2^-24
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}
