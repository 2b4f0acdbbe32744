package tensor

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vkdml/vkdml/hresult"
	"github.com/x448/float16"
)

// Tensor is a tensor in host memory: a descriptor and the little-endian
// bytes it addresses. Data holds at least Desc.TotalTensorSizeInBytes bytes;
// the element at coordinates c starts at byte Desc.Offset(c)·elementSize, so
// strided, padded and broadcast layouts are represented as they would be in
// a GPU buffer.
//
// Typed access converts between the element type and float64, int64 or
// uint64 with these rules, chosen so that results never depend on the
// platform:
//
//   - float to integer truncates toward zero and saturates to the target
//     type's range; NaN gives 0 (Go leaves out-of-range conversions
//     implementation-defined, C leaves them undefined);
//   - integer to integer wraps (keeps the low bits, two's complement), as a
//     C cast or NumPy's astype does;
//   - anything to float rounds to nearest, ties to even; FLOAT16 is
//     converted with a single correct rounding from float64. INT64 and
//     UINT64 values above 2^53 lose precision in float64: use Int64At and
//     Uint64At for them, and Bits for exact comparisons including NaN
//     payloads.
type Tensor struct {
	Desc Desc   // the layout of Data
	Data []byte // at least Desc.TotalTensorSizeInBytes bytes, little-endian elements
}

// New returns a packed, zeroed tensor. It panics if the descriptor is
// invalid (see Desc.Validate), because that is a bug in the caller.
func New(dt DataType, sizes ...uint32) *Tensor {
	d := NewDesc(dt, sizes)
	if err := d.Validate(); err != nil {
		panic(fmt.Sprintf("tensor: New(%v, %v): %v", dt, sizes, err))
	}
	return &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
}

func newFilled(dt DataType, sizes []uint32, n int, what string) *Tensor {
	t := New(dt, sizes...)
	if uint64(n) != t.Desc.ElementCount() {
		panic(fmt.Sprintf("tensor: %s: %d values for sizes %v (%d elements)", what, n, sizes, t.Desc.ElementCount()))
	}
	return t
}

// FromFloat32 returns a packed FLOAT32 tensor holding v in row-major order.
// The bits are copied exactly (NaN payloads included). It panics when
// len(v) is not the element count.
func FromFloat32(sizes []uint32, v []float32) *Tensor {
	t := newFilled(Float32, sizes, len(v), "FromFloat32")
	for i, x := range v {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(x))
	}
	return t
}

// FromFloat64As returns a packed tensor of type dt holding v, converted,
// in row-major order. It panics when len(v) is not the element count.
func FromFloat64As(dt DataType, sizes []uint32, v []float64) *Tensor {
	return fromValues("FromFloat64As", dt, sizes, v, fromFloat64)
}

// FromInt64As returns a packed tensor of type dt holding v, converted, in
// row-major order. It panics when len(v) is not the element count.
func FromInt64As(dt DataType, sizes []uint32, v []int64) *Tensor {
	return fromValues("FromInt64As", dt, sizes, v, fromInteger[int64])
}

// FromUint64As returns a packed tensor of type dt holding v, converted, in
// row-major order. It panics when len(v) is not the element count.
func FromUint64As(dt DataType, sizes []uint32, v []uint64) *Tensor {
	return fromValues("FromUint64As", dt, sizes, v, fromInteger[uint64])
}

// fromValues is the From*As constructors: a packed tensor of type dt
// holding v in row-major order, each value converted to raw bits by conv.
func fromValues[T any](what string, dt DataType, sizes []uint32, v []T, conv func(DataType, T) uint64) *Tensor {
	t := newFilled(dt, sizes, len(v), what)
	for i, x := range v {
		t.putRaw(uint64(i), conv(dt, x))
	}
	return t
}

// Validate checks the descriptor (Desc.Validate) and that Data covers
// TotalTensorSizeInBytes. Errors are E_INVALIDARG; a short buffer is
// reported on the field "Data".
func (t *Tensor) Validate() error {
	if err := t.Desc.Validate(); err != nil {
		return err
	}
	if uint64(len(t.Data)) < t.Desc.TotalTensorSizeInBytes {
		return hresult.InvalidArg("Data", "must hold at least TotalTensorSizeInBytes (%d) bytes; got %d", t.Desc.TotalTensorSizeInBytes, len(t.Data))
	}
	return nil
}

// rawAt returns the bits of the element at element offset off,
// zero-extended.
func (t *Tensor) rawAt(off uint64) uint64 {
	switch t.Desc.DataType.Size() {
	case 1:
		return uint64(t.Data[off])
	case 2:
		return uint64(binary.LittleEndian.Uint16(t.Data[2*off:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(t.Data[4*off:]))
	case 8:
		return binary.LittleEndian.Uint64(t.Data[8*off:])
	}
	panic(fmt.Sprintf("tensor: element access on data type %v", t.Desc.DataType))
}

// putRaw stores the low bits of b as the element at element offset off.
func (t *Tensor) putRaw(off, b uint64) {
	switch t.Desc.DataType.Size() {
	case 1:
		t.Data[off] = byte(b)
	case 2:
		binary.LittleEndian.PutUint16(t.Data[2*off:], uint16(b))
	case 4:
		binary.LittleEndian.PutUint32(t.Data[4*off:], uint32(b))
	case 8:
		binary.LittleEndian.PutUint64(t.Data[8*off:], b)
	default:
		panic(fmt.Sprintf("tensor: element access on data type %v", t.Desc.DataType))
	}
}

// Bits returns the raw bits of the element at coords, zero-extended to 64
// bits, for exact comparisons (NaN payloads, -0).
func (t *Tensor) Bits(coords ...uint32) uint64 { return t.rawAt(t.Desc.Offset(coords)) }

// SetBits stores the low bits of b as the element at coords.
func (t *Tensor) SetBits(coords []uint32, b uint64) { t.putRaw(t.Desc.Offset(coords), b) }

// Float64At returns the element at coords converted to float64.
func (t *Tensor) Float64At(coords ...uint32) float64 {
	return toFloat64(t.Desc.DataType, t.rawAt(t.Desc.Offset(coords)))
}

// Int64At returns the element at coords converted to int64.
func (t *Tensor) Int64At(coords ...uint32) int64 {
	return toInt64(t.Desc.DataType, t.rawAt(t.Desc.Offset(coords)))
}

// Uint64At returns the element at coords converted to uint64.
func (t *Tensor) Uint64At(coords ...uint32) uint64 {
	return toUint64(t.Desc.DataType, t.rawAt(t.Desc.Offset(coords)))
}

// SetFloat64 stores v, converted to the element type, at coords.
func (t *Tensor) SetFloat64(coords []uint32, v float64) {
	t.putRaw(t.Desc.Offset(coords), fromFloat64(t.Desc.DataType, v))
}

// SetInt64 stores v, converted to the element type, at coords.
func (t *Tensor) SetInt64(coords []uint32, v int64) {
	t.putRaw(t.Desc.Offset(coords), fromInteger(t.Desc.DataType, v))
}

// SetUint64 stores v, converted to the element type, at coords.
func (t *Tensor) SetUint64(coords []uint32, v uint64) {
	t.putRaw(t.Desc.Offset(coords), fromInteger(t.Desc.DataType, v))
}

// ToPacked returns a copy laid out packed in row-major order, with a
// minimal TotalTensorSizeInBytes and the same DataType and Flags.
// Broadcast dimensions are materialized.
func (t *Tensor) ToPacked() *Tensor {
	d := NewDesc(t.Desc.DataType, t.Desc.Sizes)
	d.Flags = t.Desc.Flags
	p := &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	es := uint64(d.DataType.Size())
	if t.Desc.IsPacked() {
		n := t.Desc.ElementCount() * es
		copy(p.Data, t.Data[:n])
		return p
	}
	var i uint64
	forEachOffset(t.Desc.Sizes, t.Desc.Strides, func(off uint64) {
		copy(p.Data[i:i+es], t.Data[off*es:off*es+es])
		i += es
	})
	return p
}

// Float64s returns the logical elements in row-major order, converted to
// float64.
func (t *Tensor) Float64s() []float64 { return elements(t, toFloat64) }

// Int64s returns the logical elements in row-major order, converted to
// int64.
func (t *Tensor) Int64s() []int64 { return elements(t, toInt64) }

// Uint64s returns the logical elements in row-major order, converted to
// uint64.
func (t *Tensor) Uint64s() []uint64 { return elements(t, toUint64) }

// elements is t's logical elements in row-major order, each converted
// from its raw bits by conv.
func elements[T any](t *Tensor, conv func(DataType, uint64) T) []T {
	out := make([]T, 0, t.Desc.ElementCount())
	dt := t.Desc.DataType
	forEachOffset(t.Desc.Sizes, t.Desc.EffectiveStrides(), func(off uint64) {
		out = append(out, conv(dt, t.rawAt(off)))
	})
	return out
}

// ForEachIndex calls fn with every coordinate vector of sizes in row-major
// order (last dimension fastest). fn receives the same slice each time and
// must not keep it. A size of 0 means no calls; rank 0 means one call with
// no coordinates.
func ForEachIndex(sizes []uint32, fn func(coords []uint32)) {
	for _, s := range sizes {
		if s == 0 {
			return
		}
	}
	coords := make([]uint32, len(sizes))
	for {
		fn(coords)
		i := len(sizes) - 1
		for ; i >= 0; i-- {
			coords[i]++
			if coords[i] < sizes[i] {
				break
			}
			coords[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// forEachOffset calls fn with the element offset of every logical element
// in row-major order, updating the offset incrementally rather than
// recomputing the dot product. strides nil means packed.
func forEachOffset(sizes, strides []uint32, fn func(off uint64)) {
	if len(strides) == 0 {
		strides = PackedStrides(sizes)
	}
	for _, s := range sizes {
		if s == 0 {
			return
		}
	}
	rank := len(sizes)
	if rank == 0 {
		fn(0)
		return
	}
	coords := make([]uint32, rank)
	inner, innerStride := sizes[rank-1], uint64(strides[rank-1])
	var base uint64
	for {
		off := base
		for range inner {
			fn(off)
			off += innerStride
		}
		i := rank - 2
		for ; i >= 0; i-- {
			coords[i]++
			base += uint64(strides[i])
			if coords[i] < sizes[i] {
				break
			}
			base -= uint64(coords[i]) * uint64(strides[i])
			coords[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// toFloat64 converts the raw bits of a dt element to float64.
func toFloat64(dt DataType, b uint64) float64 {
	switch dt {
	case Float32:
		return float64(math.Float32frombits(uint32(b)))
	case Float16:
		return float64(float16.Frombits(uint16(b)).Float32())
	case Float64:
		return math.Float64frombits(b)
	case Int8, Int16, Int32, Int64:
		return float64(toInt64(dt, b)) // sign-extend
	case UInt8, UInt16, UInt32, UInt64:
		return float64(b)
	}
	panic(fmt.Sprintf("tensor: element access on data type %v", dt))
}

// toInt64 converts the raw bits of a dt element to int64.
func toInt64(dt DataType, b uint64) int64 {
	switch dt {
	case Float32, Float16, Float64:
		return floatToInt(toFloat64(dt, b), math.MinInt64, math.MaxInt64)
	case Int8:
		return int64(int8(b))
	case Int16:
		return int64(int16(b))
	case Int32:
		return int64(int32(b))
	case Int64, UInt8, UInt16, UInt32, UInt64:
		return int64(b)
	}
	panic(fmt.Sprintf("tensor: element access on data type %v", dt))
}

// toUint64 converts the raw bits of a dt element to uint64.
func toUint64(dt DataType, b uint64) uint64 {
	switch dt {
	case Float32, Float16, Float64:
		return floatToUint(toFloat64(dt, b), math.MaxUint64)
	case Int8, Int16, Int32:
		return uint64(toInt64(dt, b)) // sign-extend, then wrap
	case Int64, UInt8, UInt16, UInt32, UInt64:
		return b
	}
	panic(fmt.Sprintf("tensor: element access on data type %v", dt))
}

// floatToInt truncates v toward zero and clamps it to [lo, hi]; NaN is 0.
// The comparisons are done in float64 where lo is exact (a power of two)
// and hi rounds up to one, so v >= float64(hi) catches every value that
// does not fit.
func floatToInt(v float64, lo, hi int64) int64 {
	switch {
	case v != v:
		return 0
	case v >= float64(hi):
		return hi
	case v <= float64(lo):
		return lo
	}
	return int64(v)
}

// floatToUint truncates v toward zero and clamps it to [0, hi]; NaN is 0.
func floatToUint(v float64, hi uint64) uint64 {
	switch {
	case v != v, v <= 0:
		return 0
	case v >= float64(hi):
		return hi
	}
	return uint64(v)
}

// f16FromFloat64 rounds v to FLOAT16 once, to nearest even. Going through
// float32 with ordinary rounding would round twice and can be off by one
// ulp on ties; rounding to float32 "to odd" (truncate, then set the last bit
// when inexact) makes the second rounding exact, because float32 carries
// more than two extra bits over FLOAT16.
func f16FromFloat64(v float64) uint16 {
	f := float32(v)
	if float64(f) != v && v == v && !math.IsInf(float64(f), 0) {
		if math.Abs(float64(f)) > math.Abs(v) {
			f = math.Nextafter32(f, 0)
		}
		f = math.Float32frombits(math.Float32bits(f) | 1)
	}
	return float16.Fromfloat32(f).Bits()
}

// fromFloat64 converts v to the raw bits of a dt element.
func fromFloat64(dt DataType, v float64) uint64 {
	switch dt {
	case Float32:
		return uint64(math.Float32bits(float32(v)))
	case Float16:
		return uint64(f16FromFloat64(v))
	case Float64:
		return math.Float64bits(v)
	case Int8:
		return uint64(floatToInt(v, math.MinInt8, math.MaxInt8))
	case Int16:
		return uint64(floatToInt(v, math.MinInt16, math.MaxInt16))
	case Int32:
		return uint64(floatToInt(v, math.MinInt32, math.MaxInt32))
	case Int64:
		return uint64(floatToInt(v, math.MinInt64, math.MaxInt64))
	case UInt8:
		return floatToUint(v, math.MaxUint8)
	case UInt16:
		return floatToUint(v, math.MaxUint16)
	case UInt32:
		return floatToUint(v, math.MaxUint32)
	case UInt64:
		return floatToUint(v, math.MaxUint64)
	}
	panic(fmt.Sprintf("tensor: element access on data type %v", dt))
}

// fromInteger converts v to the raw bits of a dt element; integer targets
// keep the low bits of v's two's complement (putRaw truncates).
func fromInteger[T int64 | uint64](dt DataType, v T) uint64 {
	switch dt {
	case Float32:
		return uint64(math.Float32bits(float32(v)))
	case Float16:
		return uint64(f16FromFloat64(float64(v)))
	case Float64:
		return math.Float64bits(float64(v))
	}
	if !dt.Valid() {
		panic(fmt.Sprintf("tensor: element access on data type %v", dt))
	}
	return uint64(v)
}
