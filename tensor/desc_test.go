package tensor

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
)

// bigCalc is DMLCalcBufferTensorSize in arbitrary precision, saturated to
// math.MaxUint64: the model CalcBufferTensorSize must match.
func bigCalc(dt DataType, sizes, strides []uint32) uint64 {
	es := big.NewInt(int64(dt.Size()))
	if es.Sign() == 0 || slices.Contains(sizes, 0) {
		return 0
	}
	n := big.NewInt(1)
	if strides == nil {
		for _, s := range sizes {
			n.Mul(n, big.NewInt(int64(s)))
		}
	} else {
		last := new(big.Int)
		for i, s := range sizes {
			last.Add(last, new(big.Int).Mul(big.NewInt(int64(s)-1), big.NewInt(int64(strides[i]))))
		}
		n.Add(last, big.NewInt(1))
	}
	n.Mul(n, es)
	n.Add(n, big.NewInt(3))
	n.AndNot(n, big.NewInt(3))
	if !n.IsUint64() {
		return math.MaxUint64
	}
	return n.Uint64()
}

func TestCalcBufferTensorSize(t *testing.T) {
	tests := []struct {
		name           string
		dt             DataType
		sizes, strides []uint32
		want           uint64
	}{
		{"packed FLOAT32 {1,1,3,5}", Float32, []uint32{1, 1, 3, 5}, nil, 60},
		{"NHWC strides", Float32, []uint32{1, 1, 3, 5}, []uint32{15, 1, 5, 1}, 60},
		{"explicit packed strides", Float32, []uint32{2, 3, 4}, []uint32{12, 4, 1}, 96},
		{"broadcast stride 0", Float32, []uint32{4, 3}, []uint32{0, 1}, 12},       // logical 48
		{"broadcast all", Float32, []uint32{4, 3}, []uint32{0, 0}, 4},             // a scalar
		{"padded rows", Float32, []uint32{2, 3}, []uint32{8, 1}, (8 + 2 + 1) * 4}, // 44
		{"FLOAT16 {3}", Float16, []uint32{3}, nil, 8},
		{"UINT8 {5}", UInt8, []uint32{5}, nil, 8},
		{"INT8 {4}", Int8, []uint32{4}, nil, 4},
		{"INT64 {3}", Int64, []uint32{3}, nil, 24},
		{"FLOAT16 strided", Float16, []uint32{3}, []uint32{2}, 12}, // (4+1)*2=10 → 12
		{"unknown type", Unknown, []uint32{3}, nil, 0},
		{"size 0", Float32, []uint32{3, 0}, nil, 0},
		{"size 0 strided", Float32, []uint32{3, 0}, []uint32{1, 1}, 0},
		// DirectML's helper accumulates the last index in 32 bits:
		// 3e9+2 fits in a UINT, but (3e9+2)*2 + ... below do not.
		{"32-bit accumulator overflow", Float32, []uint32{2, 3}, []uint32{3000000000, 1}, 12000000012},
		{"32-bit accumulator overflow 2", Float32, []uint32{3, 3}, []uint32{3000000000, 1}, 24000000012},
		{"max packed", Int64, []uint32{math.MaxUint32, math.MaxUint32}, nil, bigCalc(Int64, []uint32{math.MaxUint32, math.MaxUint32}, nil)},
		{"saturates", Int64, []uint32{math.MaxUint32, math.MaxUint32, math.MaxUint32}, nil, math.MaxUint64},
		{"saturates strided", Int64, slices.Repeat([]uint32{math.MaxUint32}, 8), slices.Repeat([]uint32{math.MaxUint32}, 8), math.MaxUint64},
		{"stride length mismatch", Float32, []uint32{2, 3}, []uint32{1}, math.MaxUint64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CalcBufferTensorSize(tc.dt, tc.sizes, tc.strides)
			if got != tc.want {
				t.Errorf("CalcBufferTensorSize = %d, want %d", got, tc.want)
			}
			if len(tc.strides) == 0 || len(tc.strides) == len(tc.sizes) {
				if m := bigCalc(tc.dt, tc.sizes, tc.strides); got != m {
					t.Errorf("CalcBufferTensorSize = %d, math/big model says %d", got, m)
				}
			}
		})
	}
}

func TestCalcBufferTensorSizeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() uint32 {
		switch rng.IntN(4) {
		case 0:
			return rng.Uint32()
		case 1:
			return math.MaxUint32 - uint32(rng.IntN(3))
		default:
			return uint32(rng.IntN(10))
		}
	}
	for i := range 20000 {
		dt := DataType(rng.IntN(13))
		rank := rng.IntN(9)
		sizes := make([]uint32, rank)
		var strides []uint32
		if rng.IntN(2) == 0 {
			strides = make([]uint32, rank)
		}
		for j := range sizes {
			sizes[j] = pick()
			if strides != nil {
				strides[j] = pick()
			}
		}
		got := CalcBufferTensorSize(dt, sizes, strides)
		if want := bigCalc(dt, sizes, strides); got != want {
			t.Fatalf("case %d: CalcBufferTensorSize(%v, %v, %v) = %d, want %d", i, dt, sizes, strides, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	valid := func() Desc { return NewDesc(Float32, []uint32{2, 3, 4}) }
	tests := []struct {
		name  string
		mod   func(d *Desc)
		field string // "" means valid
		rule  string // a fragment of the message
	}{
		{"packed", func(d *Desc) {}, "", ""},
		{"owned by DML", func(d *Desc) { d.Flags = FlagOwnedByDML }, "", ""},
		{"larger total", func(d *Desc) { d.TotalTensorSizeInBytes = 1024 }, "", ""},
		// Rule 12: any total at or above the minimum, a multiple of 4 or not.
		{"total not multiple of 4", func(d *Desc) { d.TotalTensorSizeInBytes = 97 }, "", ""},
		{"total 2 over the minimum", func(d *Desc) { d.TotalTensorSizeInBytes = 98 }, "", ""},
		{"total 3 over the minimum", func(d *Desc) { d.TotalTensorSizeInBytes = 99 }, "", ""},
		{"five UINT8 in 9 bytes", func(d *Desc) { *d = NewDesc(UInt8, []uint32{5}); d.TotalTensorSizeInBytes = 9 }, "", ""},
		{"five UINT8 in 7 bytes", func(d *Desc) { *d = NewDesc(UInt8, []uint32{5}); d.TotalTensorSizeInBytes = 7 }, "TotalTensorSizeInBytes", "minimum implied size of 8"},
		{"five UINT8 in 5 bytes", func(d *Desc) { *d = NewDesc(UInt8, []uint32{5}); d.TotalTensorSizeInBytes = 5 }, "TotalTensorSizeInBytes", "minimum implied size of 8"},
		{"three FLOAT16 in 7 bytes", func(d *Desc) { *d = NewDesc(Float16, []uint32{3}); d.TotalTensorSizeInBytes = 7 }, "TotalTensorSizeInBytes", "minimum implied size of 8"},
		{"three FLOAT16 in 11 bytes", func(d *Desc) { *d = NewDesc(Float16, []uint32{3}); d.TotalTensorSizeInBytes = 11 }, "", ""},
		{"total 2^64-1", func(d *Desc) { d.TotalTensorSizeInBytes = math.MaxUint64 }, "", ""},
		{"alignment 16", func(d *Desc) { d.GuaranteedBaseOffsetAlignment = 16 }, "", ""},
		{"alignment 4", func(d *Desc) { d.GuaranteedBaseOffsetAlignment = 4 }, "", ""},
		{"rank 8", func(d *Desc) { *d = NewDesc(Int8, []uint32{1, 2, 1, 2, 1, 2, 1, 2}) }, "", ""},
		{"broadcast input", func(d *Desc) { *d = NewStridedDesc(Float32, []uint32{4, 3}, []uint32{0, 1}) }, "", ""},
		{"empty strides = packed", func(d *Desc) { d.Strides = []uint32{} }, "", ""},
		{"max elements", func(d *Desc) { *d = NewDesc(UInt8, []uint32{math.MaxUint32}) }, "", ""},

		{"unknown type", func(d *Desc) { d.DataType = Unknown }, "DataType", "UNKNOWN is never valid"},
		{"float64", func(d *Desc) { d.DataType = Float64 }, "DataType", "FLOAT64 is not supported"},
		{"out of enum", func(d *Desc) { d.DataType = 12 }, "DataType", "must be one of"},
		{"bad flags", func(d *Desc) { d.Flags = 2 }, "Flags", "DML_TENSOR_FLAG_OWNED_BY_DML"},
		{"rank 0", func(d *Desc) { d.Sizes = nil }, "DimensionCount", "between 1 and 8; got 0"},
		{"rank 9", func(d *Desc) { *d = NewDesc(Float32, slices.Repeat([]uint32{1}, 9)) }, "DimensionCount", "got 9"},
		{"size 0", func(d *Desc) { d.Sizes[2] = 0 }, "Sizes[2]", "size of zero"},
		{"strides too short", func(d *Desc) { d.Strides = []uint32{12, 4} }, "Strides", "(3) entries"},
		{"strides too long", func(d *Desc) { d.Strides = []uint32{12, 4, 1, 1} }, "Strides", "got 4"},
		{"too many elements", func(d *Desc) { *d = NewDesc(UInt8, []uint32{65536, 65536}) }, "Sizes", "2^32-1"},
		{"total too small", func(d *Desc) { d.TotalTensorSizeInBytes = 92 }, "TotalTensorSizeInBytes", "at least the minimum implied size of 96"},
		{"total zero", func(d *Desc) { d.TotalTensorSizeInBytes = 0 }, "TotalTensorSizeInBytes", "at least"},
		{"total not multiple of 4 below the minimum", func(d *Desc) { d.TotalTensorSizeInBytes = 95 }, "TotalTensorSizeInBytes", "at least the minimum implied size of 96"},
		{"strided total too small", func(d *Desc) { d.Strides = []uint32{24, 8, 1} }, "TotalTensorSizeInBytes", "at least"},
		{"alignment 3", func(d *Desc) { d.GuaranteedBaseOffsetAlignment = 3 }, "GuaranteedBaseOffsetAlignment", "power of two"},
		{"alignment 2 for FLOAT32", func(d *Desc) { d.GuaranteedBaseOffsetAlignment = 2 }, "GuaranteedBaseOffsetAlignment", "at least the element size (4 bytes"},
		{"alignment 4 for INT64", func(d *Desc) { *d = NewDesc(Int64, []uint32{2}); d.GuaranteedBaseOffsetAlignment = 4 }, "GuaranteedBaseOffsetAlignment", "8 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := valid()
			tc.mod(&d)
			err := d.Validate()
			checkInvalidArg(t, err, tc.field, tc.rule)
		})
	}
}

func TestValidateIndexOverflow(t *testing.T) {
	// The element-count limit still allows a last index of
	// (2^32-2)·(2^32-1) ≈ 2^64, which fits in 64 bits for one byte per
	// element but not for eight.
	d := NewStridedDesc(UInt8, []uint32{math.MaxUint32}, []uint32{math.MaxUint32})
	if err := d.Validate(); err != nil {
		t.Fatalf("UINT8: %v", err)
	}
	if want := bigCalc(UInt8, d.Sizes, d.Strides); d.TotalTensorSizeInBytes != want {
		t.Errorf("total %d, want %d", d.TotalTensorSizeInBytes, want)
	}
	d.DataType = Int64
	checkInvalidArg(t, d.Validate(), "Strides", "overflows 64 bits")
}

func checkInvalidArg(t *testing.T, err error, field, rule string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want E_INVALIDARG on %s", field)
	}
	if !errors.Is(err, hresult.E_INVALIDARG) {
		t.Errorf("error %v is not E_INVALIDARG", err)
	}
	var he *hresult.Error
	if !errors.As(err, &he) || he.Field != field {
		t.Errorf("error %v: field %q, want %q", err, he.Field, field)
	}
	if !strings.Contains(err.Error(), rule) || !strings.HasPrefix(err.Error(), field+": ") {
		t.Errorf("error %q does not name %q and say %q", err, field, rule)
	}
}

func TestValidateWithField(t *testing.T) {
	d := NewDesc(Float32, []uint32{2, 0})
	err := hresult.WithField("InputTensor", d.Validate())
	if !strings.HasPrefix(err.Error(), "InputTensor.Sizes[1]: ") {
		t.Errorf("got %q", err)
	}
}

func TestValidateOutput(t *testing.T) {
	tests := []struct {
		name           string
		sizes, strides []uint32
		ok             bool
	}{
		{"packed", []uint32{2, 3, 4}, nil, true},
		{"explicit packed", []uint32{2, 3, 4}, []uint32{12, 4, 1}, true},
		{"NHWC", []uint32{1, 2, 3, 5}, []uint32{30, 1, 10, 2}, true},
		{"padded rows", []uint32{2, 3}, []uint32{8, 1}, true},
		{"padded inner", []uint32{2, 3}, []uint32{9, 3}, true},
		{"transposed", []uint32{3, 2}, []uint32{1, 3}, true},
		{"stride 0 on size 1", []uint32{1, 3}, []uint32{0, 1}, true},
		{"any stride on size 1", []uint32{3, 1}, []uint32{1, 1}, true},
		{"all size 1", []uint32{1, 1}, []uint32{0, 0}, true},
		{"broadcast", []uint32{2, 3}, []uint32{0, 1}, false},
		{"broadcast inner", []uint32{2, 3}, []uint32{1, 0}, false},
		{"equal strides", []uint32{2, 2}, []uint32{1, 1}, false},
		{"overlapping rows", []uint32{2, 3}, []uint32{2, 1}, false},
		{"overlap at last element only", []uint32{2, 2, 2}, []uint32{3, 2, 1}, false}, // 0+2+1 == 3
		{"interleaved, no alias but rejected", []uint32{3, 2}, []uint32{2, 3}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewStridedDesc(Float32, tc.sizes, tc.strides)
			if err := d.Validate(); err != nil {
				t.Fatalf("Validate: %v (inputs may alias)", err)
			}
			err := d.ValidateOutput()
			if tc.ok {
				checkInvalidArg(t, err, "", "")
			} else {
				checkInvalidArg(t, err, "Strides", "share memory")
			}
			// Cross-check against enumeration: accepted layouts never alias.
			if tc.ok && aliases(d) {
				t.Errorf("accepted layout aliases")
			}
		})
	}
	// ValidateOutput includes Validate.
	d := NewDesc(Float32, []uint32{0})
	checkInvalidArg(t, d.ValidateOutput(), "Sizes[0]", "zero")
}

func aliases(d Desc) bool {
	seen := map[uint64]bool{}
	dup := false
	ForEachIndex(d.Sizes, func(c []uint32) {
		off := d.Offset(c)
		dup = dup || seen[off]
		seen[off] = true
	})
	return dup
}

// TestValidateOutputRandom checks on random small layouts that
// ValidateOutput never accepts an aliasing layout and accepts every
// permutation of padded strides.
func TestValidateOutputRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		rank := 1 + rng.IntN(4)
		sizes := make([]uint32, rank)
		strides := make([]uint32, rank)
		for i := range sizes {
			sizes[i] = 1 + uint32(rng.IntN(4))
			strides[i] = uint32(rng.IntN(12))
		}
		d := NewStridedDesc(Int16, sizes, strides)
		if d.ValidateOutput() == nil && aliases(d) {
			t.Fatalf("%v accepted but aliases", d)
		}
		// A permuted, padded layout: never rejected.
		perm := rng.Perm(rank)
		acc := uint32(1)
		for _, p := range perm {
			strides[p] = acc
			acc = acc*sizes[p] + uint32(rng.IntN(3))
		}
		d = NewStridedDesc(Int16, sizes, strides)
		if err := d.ValidateOutput(); err != nil {
			t.Fatalf("%v rejected: %v", d, err)
		}
	}
}

func TestDescMethods(t *testing.T) {
	d := NewDesc(Float32, []uint32{2, 3, 4})
	if d.Rank() != 3 || d.ElementCount() != 24 || !d.IsPacked() {
		t.Errorf("Rank/ElementCount/IsPacked = %d/%d/%v", d.Rank(), d.ElementCount(), d.IsPacked())
	}
	if got := d.String(); got != "FLOAT32[2,3,4]" {
		t.Errorf("String() = %q", got)
	}
	if got := PackedStrides(d.Sizes); !slices.Equal(got, []uint32{12, 4, 1}) {
		t.Errorf("PackedStrides = %v", got)
	}
	if got := d.EffectiveStrides(); !slices.Equal(got, []uint32{12, 4, 1}) {
		t.Errorf("EffectiveStrides = %v", got)
	}
	if got := d.Offset([]uint32{1, 2, 3}); got != 23 {
		t.Errorf("Offset = %d", got)
	}
	s := NewStridedDesc(Float32, []uint32{2, 3, 4}, []uint32{12, 4, 1})
	if !s.IsPacked() || s.String() != "FLOAT32[2,3,4] strides[12,4,1]" {
		t.Errorf("explicit packed strides: IsPacked %v, String %q", s.IsPacked(), s.String())
	}
	n := NewStridedDesc(Float16, []uint32{1, 2, 3, 5}, []uint32{30, 1, 10, 2})
	if n.IsPacked() || n.Offset([]uint32{0, 1, 2, 4}) != 1+20+8 {
		t.Errorf("NHWC: IsPacked %v, Offset %d", n.IsPacked(), n.Offset([]uint32{0, 1, 2, 4}))
	}
	n.Flags = FlagOwnedByDML
	n.TotalTensorSizeInBytes = 128
	n.GuaranteedBaseOffsetAlignment = 32
	if got := n.String(); got != "FLOAT16[1,2,3,5] strides[30,1,10,2] OWNED_BY_DML total=128 align=32" {
		t.Errorf("String() = %q", got)
	}
	c := n.Clone()
	c.Sizes[0], c.Strides[0] = 9, 9
	if n.Sizes[0] != 1 || n.Strides[0] != 30 {
		t.Errorf("Clone shares memory")
	}
	cs := CloneDescs([]*Desc{&n, nil})
	cs[0].Sizes[1], cs[0].Strides[1] = 9, 9
	if len(cs) != 2 || cs[1] != nil || cs[0] == &n || n.Sizes[1] != 2 || n.Strides[1] != 1 || cs[0].TotalTensorSizeInBytes != 128 {
		t.Errorf("CloneDescs: %v shares memory with or differs from %v, or keeps no nil", cs, n)
	}
	sizes := []uint32{4}
	nd := NewDesc(Int8, sizes)
	sizes[0] = 5
	if nd.Sizes[0] != 4 {
		t.Errorf("NewDesc keeps the caller's slice")
	}
	if got := PackedStrides([]uint32{2, 65536, 65536}); got[0] != math.MaxUint32 {
		t.Errorf("PackedStrides overflow: %v, want saturation", got)
	}
	for _, bad := range [][]uint32{{0, 0}, {2, 3, 4, 0}, {0, 3, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Offset(%v) did not panic", bad)
				}
			}()
			d.Offset(bad)
		}()
	}
}

// TestShape pins the one style shapes print in: "[2,3,4]".
func TestShape(t *testing.T) {
	if got := Shape([]uint32{2, 3, 4}); got != "[2,3,4]" {
		t.Fatalf("Shape = %q", got)
	}
	if got := Shape([]int64{100000, 100000}); got != "[100000,100000]" {
		t.Fatalf("Shape = %q", got)
	}
	if got := Shape([]int(nil)); got != "[]" {
		t.Fatalf("Shape(nil) = %q", got)
	}
	if got := NewStridedDesc(Float32, []uint32{2, 3}, []uint32{3, 1}).String(); got != "FLOAT32[2,3] strides[3,1]" {
		t.Fatalf("Desc.String = %q", got)
	}
}
