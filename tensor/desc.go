package tensor

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/hresult"
)

// Flags is DML_TENSOR_FLAGS.
type Flags uint32

const (
	// FlagNone is DML_TENSOR_FLAG_NONE: the tensor is bound at execution.
	FlagNone Flags = 0
	// FlagOwnedByDML is DML_TENSOR_FLAG_OWNED_BY_DML: an input bound once
	// at initialization, whose data DirectML copies into the persistent
	// resource.
	FlagOwnedByDML Flags = 1
)

const (
	// MinimumBufferTensorAlignment is DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT:
	// every buffer tensor's base offset is at least this aligned.
	MinimumBufferTensorAlignment = 16
	// MaxDimensionCount is DML_TENSOR_DIMENSION_COUNT_MAX1, the largest
	// DimensionCount at feature level 3.0 and above.
	MaxDimensionCount = 8
	// MaxElementCount is DirectML's limit on the elements of one buffer
	// tensor, 2^32-1.
	MaxElementCount = math.MaxUint32
)

// Desc is DML_BUFFER_TENSOR_DESC. DimensionCount is len(Sizes).
type Desc struct {
	DataType DataType // the element type (DML_TENSOR_DATA_TYPE)
	Flags    Flags    // FlagNone or FlagOwnedByDML (DML_TENSOR_FLAGS)
	// Sizes are the logical dimensions, outermost first.
	Sizes []uint32
	// Strides are in elements, one per dimension; nil (or empty) means
	// packed row-major. A stride of 0 broadcasts along its dimension.
	Strides []uint32
	// TotalTensorSizeInBytes is the size of the buffer range the tensor
	// occupies; it must cover the minimum implied size.
	TotalTensorSizeInBytes uint64
	// GuaranteedBaseOffsetAlignment is 0 (no guarantee) or a power of two
	// that the binding offset is a multiple of.
	GuaranteedBaseOffsetAlignment uint32
}

// mulSat and addSat are uint64 arithmetic that saturates at MaxUint64
// instead of wrapping, so an overflowed size can only ever fail a
// "must be at least" check, never pass one.
func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

func addSat(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// CalcBufferTensorSize is DMLCalcBufferTensorSize (dml-semantics.md §3.3,
// semantics.md rule 12): without strides, roundup(Π sizes · elemSize, 4);
// with strides, roundup((Σ (sizes[i]-1)·strides[i] + 1) · elemSize, 4).
//
// Unlike DirectML's helper, whose last-element index is a 32-bit UINT that
// wraps on huge strided tensors, the arithmetic here is 64-bit and
// saturates: a size that does not fit in 64 bits is returned as
// math.MaxUint64, which no TotalTensorSizeInBytes can satisfy.
//
// An unknown data type (Size 0) gives 0, as in DirectML. A tensor with a
// size of 0 addresses no memory and gives 0 (DirectML rejects it anyway).
// strides must be nil, empty, or have len(sizes) entries; any other length
// gives math.MaxUint64.
func CalcBufferTensorSize(dt DataType, sizes, strides []uint32) uint64 {
	es := uint64(dt.Size())
	if es == 0 {
		return 0
	}
	if slices.Contains(sizes, 0) {
		return 0
	}
	var bytes uint64
	if len(strides) == 0 {
		n := uint64(1)
		for _, s := range sizes {
			n = mulSat(n, uint64(s))
		}
		bytes = mulSat(n, es)
	} else {
		if len(strides) != len(sizes) {
			return math.MaxUint64
		}
		var last uint64 // index of the last element
		for i, s := range sizes {
			last = addSat(last, mulSat(uint64(s-1), uint64(strides[i])))
		}
		bytes = mulSat(addSat(last, 1), es)
	}
	// DirectML: "all bound buffers must have a total size that is
	// DWORD-aligned".
	if bytes > math.MaxUint64-3 {
		return math.MaxUint64
	}
	return (bytes + 3) &^ 3
}

// PackedStrides returns the row-major (C-order) strides of sizes: the last
// dimension has stride 1. A stride that does not fit in uint32 (only
// possible for more than 2^32-1 elements, which Validate rejects) is
// saturated to math.MaxUint32.
func PackedStrides(sizes []uint32) []uint32 {
	st := make([]uint32, len(sizes))
	acc := uint64(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		st[i] = uint32(min(acc, math.MaxUint32))
		acc = mulSat(acc, uint64(sizes[i]))
	}
	return st
}

// NewDesc returns a packed descriptor for sizes with
// TotalTensorSizeInBytes set to the minimum implied size. sizes is copied.
func NewDesc(dt DataType, sizes []uint32) Desc {
	return Desc{
		DataType:               dt,
		Sizes:                  slices.Clone(sizes),
		TotalTensorSizeInBytes: CalcBufferTensorSize(dt, sizes, nil),
	}
}

// NewStridedDesc returns a descriptor with explicit strides and
// TotalTensorSizeInBytes set to the minimum implied size. sizes and strides
// are copied.
func NewStridedDesc(dt DataType, sizes, strides []uint32) Desc {
	return Desc{
		DataType:               dt,
		Sizes:                  slices.Clone(sizes),
		Strides:                slices.Clone(strides),
		TotalTensorSizeInBytes: CalcBufferTensorSize(dt, sizes, strides),
	}
}

var validTypeNames = func() string {
	names := make([]string, len(AllTypes))
	for i, dt := range AllTypes {
		names[i] = dt.String()
	}
	return strings.Join(names, ", ")
}()

// Validate applies DirectML's rules for a buffer tensor descriptor
// (dml-semantics.md §3.2, semantics.md rule 12). Every failure is an
// hresult E_INVALIDARG error whose Field names the offending field
// ("DataType", "Flags", "DimensionCount", "Sizes[2]", "Sizes", "Strides",
// "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment") and whose Rule
// says what it must satisfy; callers prefix the tensor's name with
// hresult.WithField. The rules, in the order they are checked:
//
//   - DataType is one of the ten types in AllTypes;
//   - Flags is FlagNone or FlagOwnedByDML;
//   - DimensionCount (len(Sizes)) is 1..8;
//   - no size is 0;
//   - Strides, when present, has DimensionCount entries;
//   - the element count (product of Sizes) is at most 2^32-1;
//   - TotalTensorSizeInBytes is at least CalcBufferTensorSize (always a
//     multiple of 4); a larger value need not be one (semantics.md rule 12:
//     real DirectML accepts e.g. 9 bytes for five UINT8 elements). Kernels
//     never touch bytes past CalcBufferTensorSize;
//   - GuaranteedBaseOffsetAlignment is 0 or a power of two at least the
//     element size.
func (d *Desc) Validate() error {
	if !d.DataType.Valid() {
		why := ""
		switch {
		case d.DataType == Unknown:
			why = " (UNKNOWN is never valid)"
		case d.DataType == Float64:
			why = " (FLOAT64 is not supported by vkdml)"
		}
		return hresult.InvalidArg("DataType", "must be one of %s; got %v%s", validTypeNames, d.DataType, why)
	}
	if d.Flags&^FlagOwnedByDML != 0 {
		return hresult.InvalidArg("Flags", "must be DML_TENSOR_FLAG_NONE (0) or DML_TENSOR_FLAG_OWNED_BY_DML (1); got 0x%X", uint32(d.Flags))
	}
	rank := len(d.Sizes)
	if rank < 1 || rank > MaxDimensionCount {
		return hresult.InvalidArg("DimensionCount", "must be between 1 and %d; got %d", MaxDimensionCount, rank)
	}
	for i, s := range d.Sizes {
		if s == 0 {
			return hresult.InvalidArg(fmt.Sprintf("Sizes[%d]", i), "a size of zero is invalid")
		}
	}
	if len(d.Strides) != 0 && len(d.Strides) != rank {
		return hresult.InvalidArg("Strides", "must have DimensionCount (%d) entries when present; got %d", rank, len(d.Strides))
	}
	if n := d.ElementCount(); n > MaxElementCount {
		return hresult.InvalidArg("Sizes", "the element count %s (product of the sizes) exceeds DirectML's limit of 2^32-1 elements", countString(n))
	}
	implied := CalcBufferTensorSize(d.DataType, d.Sizes, d.Strides)
	if implied == math.MaxUint64 {
		return hresult.InvalidArg("Strides", "the byte offset of the last element, the sum of (Sizes[i]-1)*Strides[i], overflows 64 bits")
	}
	if d.TotalTensorSizeInBytes < implied {
		return hresult.InvalidArg("TotalTensorSizeInBytes", "must be at least the minimum implied size of %d bytes (DMLCalcBufferTensorSize); got %d", implied, d.TotalTensorSizeInBytes)
	}
	if a := d.GuaranteedBaseOffsetAlignment; a != 0 && (a&(a-1) != 0 || a < uint32(d.DataType.Size())) {
		return hresult.InvalidArg("GuaranteedBaseOffsetAlignment", "must be 0 or a power of two at least the element size (%d bytes for %v); got %d", d.DataType.Size(), d.DataType, a)
	}
	return nil
}

// countString prints an element count, spelling out saturation.
func countString(n uint64) string {
	if n == math.MaxUint64 {
		return ">= 2^64"
	}
	return strconv.FormatUint(n, 10)
}

// ValidateOutput is Validate plus the rule for tensors that are written
// (semantics.md rule 13): no two distinct logical elements may share
// memory, because aliasing writes would make results depend on thread
// order. Broadcast strides (0 on a dimension of size > 1) are therefore
// rejected here, though Validate allows them on inputs.
//
// Deciding exactly whether arbitrary strides alias is a bounded knapsack
// problem, so vkdml applies the standard sufficient criterion instead: sort
// the dimensions of size > 1 by stride; each stride must exceed the span
// Σ (size-1)·stride of all dimensions with smaller strides. This accepts
// every packed, permuted (NHWC) and padded layout, and rejects every
// aliasing one, but it also rejects a few interleaved layouts that do not
// alias (e.g. Sizes {3,2} Strides {2,3}); vkdml treats those as
// E_INVALIDARG too. The error's Field is "Strides".
func (d *Desc) ValidateOutput() error {
	if err := d.Validate(); err != nil {
		return err
	}
	if len(d.Strides) == 0 {
		return nil // packed never aliases
	}
	dims := make([]int, 0, len(d.Sizes))
	for i, s := range d.Sizes {
		if s > 1 {
			dims = append(dims, i)
		}
	}
	slices.SortStableFunc(dims, func(a, b int) int {
		return cmp.Compare(d.Strides[a], d.Strides[b])
	})
	var span uint64 // the largest offset reachable using the dimensions seen so far
	for k, i := range dims {
		st := uint64(d.Strides[i])
		if st == 0 {
			return hresult.InvalidArg("Strides", "stride 0 on dimension %d (size %d) makes elements share memory; broadcast strides are allowed on inputs only", i, d.Sizes[i])
		}
		if st <= span {
			return hresult.InvalidArg("Strides", "strides %s make output elements share memory: Strides[%d] = %d must exceed %d, the span sum of (Sizes[j]-1)*Strides[j] of dimensions %s with smaller strides", Shape(d.Strides), i, st, span, Shape(dims[:k]))
		}
		span = addSat(span, mulSat(uint64(d.Sizes[i]-1), st))
	}
	return nil
}

// Rank returns DimensionCount.
func (d Desc) Rank() int { return len(d.Sizes) }

// ElementCount returns the number of logical elements, the product of the
// sizes, saturated at math.MaxUint64.
func (d Desc) ElementCount() uint64 {
	n := uint64(1)
	for _, s := range d.Sizes {
		n = mulSat(n, uint64(s))
	}
	return n
}

// SpanBytes is the bytes from the tensor's first element to the end of its
// last one: what a host buffer must hold, without
// CalcBufferTensorSize's rounding to 4. It is 0 for a tensor with a zero
// size and saturates at math.MaxUint64.
func (d Desc) SpanBytes() uint64 {
	strides := d.EffectiveStrides()
	var last uint64
	for i, s := range d.Sizes {
		if s == 0 {
			return 0
		}
		last = addSat(last, mulSat(uint64(s-1), uint64(strides[i])))
	}
	return mulSat(addSat(last, 1), uint64(d.DataType.Size()))
}

// IsPacked reports whether the tensor is laid out row-major without gaps:
// Strides absent, or equal to PackedStrides(Sizes).
func (d Desc) IsPacked() bool {
	return len(d.Strides) == 0 || slices.Equal(d.Strides, PackedStrides(d.Sizes))
}

// EffectiveStrides returns Strides when present (the same slice, not a
// copy), else the packed strides.
func (d Desc) EffectiveStrides() []uint32 {
	if len(d.Strides) != 0 {
		return d.Strides
	}
	return PackedStrides(d.Sizes)
}

// Offset returns the element offset of coords, dot(coords, strides). It
// panics when coords does not have one in-range coordinate per dimension,
// since that is a bug in the caller, not bad data. The result saturates at
// math.MaxUint64.
func (d Desc) Offset(coords []uint32) uint64 {
	if len(coords) != len(d.Sizes) {
		panic(fmt.Sprintf("tensor: Offset: %d coordinates for a rank-%d tensor", len(coords), len(d.Sizes)))
	}
	var off uint64
	if len(d.Strides) == 0 {
		for i, c := range coords {
			if c >= d.Sizes[i] {
				panic(fmt.Sprintf("tensor: Offset: coordinate %d is %d, outside size %d", i, c, d.Sizes[i]))
			}
			off = addSat(mulSat(off, uint64(d.Sizes[i])), uint64(c))
		}
		return off
	}
	for i, c := range coords {
		if c >= d.Sizes[i] {
			panic(fmt.Sprintf("tensor: Offset: coordinate %d is %d, outside size %d", i, c, d.Sizes[i]))
		}
		off = addSat(off, mulSat(uint64(c), uint64(d.Strides[i])))
	}
	return off
}

// String formats the descriptor as, e.g., "FLOAT32[2,3,4]" or
// "FLOAT32[2,3,4] strides[12,4,1]", with " OWNED_BY_DML" when that flag is
// set and " total=N" when TotalTensorSizeInBytes differs from the minimum
// implied size.
func (d Desc) String() string {
	var b strings.Builder
	b.WriteString(d.DataType.String())
	writeList(&b, d.Sizes)
	if len(d.Strides) != 0 {
		b.WriteString(" strides")
		writeList(&b, d.Strides)
	}
	if d.Flags&FlagOwnedByDML != 0 {
		b.WriteString(" OWNED_BY_DML")
	}
	if d.Flags&^FlagOwnedByDML != 0 {
		fmt.Fprintf(&b, " flags=0x%X", uint32(d.Flags))
	}
	if d.TotalTensorSizeInBytes != CalcBufferTensorSize(d.DataType, d.Sizes, d.Strides) {
		fmt.Fprintf(&b, " total=%d", d.TotalTensorSizeInBytes)
	}
	if d.GuaranteedBaseOffsetAlignment != 0 {
		fmt.Fprintf(&b, " align=%d", d.GuaranteedBaseOffsetAlignment)
	}
	return b.String()
}

func writeList(b *strings.Builder, v []uint32) { b.WriteString(Shape(v)) }

// Shape formats a list of sizes, strides or axes the one way vkdml's
// messages and tools print them: "[2,3,4]", with no spaces (as Desc's
// String does).
func Shape[T ~uint32 | ~int | ~int64 | ~uint64](v []T) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	b.WriteByte(']')
	return b.String()
}

// Clone returns a deep copy of d.
func (d Desc) Clone() Desc {
	c := d
	c.Sizes = slices.Clone(d.Sizes)
	c.Strides = slices.Clone(d.Strides)
	return c
}

// CloneDescs returns deep copies of the descs in list, as an operator
// keeps them; a nil entry (an absent optional tensor) stays nil.
func CloneDescs(list []*Desc) []*Desc {
	out := make([]*Desc, len(list))
	for i, t := range list {
		if t != nil {
			c := t.Clone()
			out[i] = &c
		}
	}
	return out
}
