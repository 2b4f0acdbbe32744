package ops

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/vkdml/vkdml/tensor"
)

// reference is the CPU oracle, written from semantics.md's rules 31-36 and
// not from the kernels: for each sequence along Axis it stable-sorts the
// positions 0..n-1 by value with the language's own comparisons (greater
// first for DECREASING, smaller first for INCREASING; -0 == +0, so equal
// values, signed zeros included, keep their index order: ties go to the
// lower index), every NaN after every number, in index order among
// themselves; then it writes the first K: each value's bits as they are in
// the input, and its index. It writes only the addressed output elements.
func (t *topKOp) reference(inputs, outputs []*tensor.Tensor) error {
	if len(inputs) != 1 || len(outputs) != 2 {
		return fmt.Errorf("%s reference: want 1 input and 2 outputs, got %d and %d", t.typ, len(inputs), len(outputs))
	}
	in, vals, idx := inputs[0], outputs[0], outputs[1]
	dt := t.in.DataType
	read := argRawReader(in.Data, dt)
	writeVal := topKRawWriter(vals.Data, dt)
	writeIdx := argIndexWriter(idx.Data, t.idx.DataType)
	before := topKBefore(dt, t.dir == AxisDirectionDecreasing)

	istr, vstr, xstr := t.in.EffectiveStrides(), t.vals.EffectiveStrides(), t.idx.EffectiveStrides()
	n, ax := uint64(t.in.Sizes[t.axis]), t.axis
	rows := append([]uint32(nil), t.in.Sizes...)
	rows[ax] = 1
	raw := make([]uint64, n)
	order := make([]int, n)
	tensor.ForEachIndex(rows, func(c []uint32) {
		var ib, vb, xb uint64
		for i, x := range c {
			ib += uint64(x) * uint64(istr[i])
			vb += uint64(x) * uint64(vstr[i])
			xb += uint64(x) * uint64(xstr[i])
		}
		for j := range raw {
			raw[j] = read(ib + uint64(j)*uint64(istr[ax]))
			order[j] = j
		}
		sort.SliceStable(order, func(a, b int) bool { return before(raw[order[a]], raw[order[b]]) })
		for r := uint64(0); r < uint64(t.k); r++ {
			writeVal(vb+r*uint64(vstr[ax]), raw[order[r]])
			writeIdx(xb+r*uint64(xstr[ax]), uint64(order[r]))
		}
	})
	return nil
}

// topKBefore is the strict order of rules 32-35 on raw bits: does a come
// before b? A number comes before every NaN; of two numbers the greater
// (decreasing) or the smaller comes first, by the language's comparison;
// nothing else does (equal numbers and two NaNs: the stable sort keeps
// index order).
func topKBefore(dt tensor.DataType, decreasing bool) func(a, b uint64) bool {
	switch {
	case dt.IsFloat():
		f := argFloat32Of(dt)
		return func(a, b uint64) bool {
			x, y := f(a), f(b)
			if x != x || y != y {
				return x == x // a number before a NaN; a NaN before nothing
			}
			if decreasing {
				return x > y
			}
			return x < y
		}
	case dt.IsSigned():
		shift := 64 - 8*uint64(dt.Size())
		return topKOrdered(func(x uint64) int64 { return int64(x<<shift) >> shift }, decreasing)
	}
	return topKOrdered(func(x uint64) uint64 { return x }, decreasing)
}

func topKOrdered[T int64 | uint64](value func(uint64) T, decreasing bool) func(a, b uint64) bool {
	if decreasing {
		return func(a, b uint64) bool { return value(a) > value(b) }
	}
	return func(a, b uint64) bool { return value(a) < value(b) }
}

// topKRawWriter stores raw bits (as argRawReader reads them) as the
// element at an element offset.
func topKRawWriter(data []byte, dt tensor.DataType) func(off, v uint64) {
	switch dt.Size() {
	case 1:
		return func(off, v uint64) { data[off] = byte(v) }
	case 2:
		return func(off, v uint64) { binary.LittleEndian.PutUint16(data[2*off:], uint16(v)) }
	case 4:
		return func(off, v uint64) { binary.LittleEndian.PutUint32(data[4*off:], uint32(v)) }
	}
	return func(off, v uint64) { binary.LittleEndian.PutUint64(data[8*off:], v) }
}
