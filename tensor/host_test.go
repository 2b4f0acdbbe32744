package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/x448/float16"
)

func TestConversions(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		dt      DataType
		set     float64
		wantF   float64 // Float64At after SetFloat64
		wantI   int64   // Int64At
		wantU   uint64  // Uint64At
		wantRaw uint64  // Bits
	}{
		{Float32, 1.5, 1.5, 1, 1, 0x3FC00000},
		{Float32, -2.75, -2.75, -2, 0, 0xC0300000},
		{Float32, 1e300, inf, math.MaxInt64, math.MaxUint64, 0x7F800000},
		{Float16, 1.0, 1.0, 1, 1, 0x3C00},
		{Float16, 65504, 65504, 65504, 65504, 0x7BFF},
		{Float16, 65520, inf, math.MaxInt64, math.MaxUint64, 0x7C00}, // halfway to 2^16 rounds to Inf
		{Float16, math.Copysign(0, -1), 0, 0, 0, 0x8000},
		{Float16, 1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-10, 1, 1, 0x3C01}, // double rounding via float32 would give 0x3C00
		{Float16, 1 + 0x1p-11, 1, 1, 1, 0x3C00},                     // exact tie: to even
		{Int8, 127.9, 127, 127, 127, 0x7F},
		{Int8, 300, 127, 127, 127, 0x7F},
		{Int8, -300, -128, -128, math.MaxUint64 - 127, 0x80},
		{Int8, -1.9, -1, -1, math.MaxUint64, 0xFF},
		{Int8, nan, 0, 0, 0, 0},
		{UInt8, -5, 0, 0, 0, 0},
		{UInt8, 255.5, 255, 255, 255, 0xFF},
		{UInt8, 1e9, 255, 255, 255, 0xFF},
		{Int16, -40000, -32768, -32768, math.MaxUint64 - 32767, 0x8000},
		{UInt16, 70000, 65535, 65535, 65535, 0xFFFF},
		{Int32, 1e10, math.MaxInt32, math.MaxInt32, math.MaxInt32, 0x7FFFFFFF},
		{Int32, -1e10, math.MinInt32, math.MinInt32, 1<<64 - 1<<31, 0x80000000},
		{UInt32, 4294967295.7, 4294967295, 4294967295, 4294967295, 0xFFFFFFFF},
		{Int64, 1e19, 0x1p63, math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{Int64, -inf, -0x1p63, math.MinInt64, 1 << 63, 1 << 63},
		{Int64, nan, 0, 0, 0, 0},
		{UInt64, 1e20, 0x1p64, -1, math.MaxUint64, math.MaxUint64},
		{UInt64, 0x1p63, 0x1p63, math.MinInt64, 1 << 63, 1 << 63},
	}
	for _, tc := range tests {
		x := New(tc.dt, 2)
		x.SetFloat64([]uint32{1}, tc.set)
		got := struct {
			f    float64
			i    int64
			u    uint64
			bits uint64
		}{x.Float64At(1), x.Int64At(1), x.Uint64At(1), x.Bits(1)}
		if !(got.f == tc.wantF || math.IsNaN(got.f) && math.IsNaN(tc.wantF)) || got.i != tc.wantI || got.u != tc.wantU || got.bits != tc.wantRaw {
			t.Errorf("%v ← %v: got f=%v i=%d u=%d bits=%#x; want f=%v i=%d u=%d bits=%#x",
				tc.dt, tc.set, got.f, got.i, got.u, got.bits, tc.wantF, tc.wantI, tc.wantU, tc.wantRaw)
		}
		if x.Bits(0) != 0 {
			t.Errorf("%v: neighbouring element written", tc.dt)
		}
	}
}

func TestIntegerConversionsWrap(t *testing.T) {
	tests := []struct {
		dt   DataType
		i    int64
		u    uint64
		bits uint64 // after SetInt64(i); SetUint64(u) must give the same
	}{
		{Int8, 200, 200, 0xC8},
		{UInt8, -1, math.MaxUint64, 0xFF},
		{Int16, 70000, 70000, 70000 & 0xFFFF},
		{UInt32, -2, math.MaxUint64 - 1, 0xFFFFFFFE},
		{Int64, -1, math.MaxUint64, math.MaxUint64},
		{UInt64, math.MinInt64, 1 << 63, 1 << 63},
	}
	for _, tc := range tests {
		x := New(tc.dt, 1)
		x.SetInt64([]uint32{0}, tc.i)
		if x.Bits(0) != tc.bits {
			t.Errorf("%v SetInt64(%d): bits %#x, want %#x", tc.dt, tc.i, x.Bits(0), tc.bits)
		}
		x.SetUint64([]uint32{0}, tc.u)
		if x.Bits(0) != tc.bits {
			t.Errorf("%v SetUint64(%d): bits %#x, want %#x", tc.dt, tc.u, x.Bits(0), tc.bits)
		}
	}
	// Exact 64-bit values survive Int64At/Uint64At, unlike float64.
	x := FromInt64As(Int64, []uint32{2}, []int64{math.MaxInt64, math.MinInt64 + 1})
	if x.Int64At(0) != math.MaxInt64 || x.Int64At(1) != math.MinInt64+1 {
		t.Errorf("INT64 extremes: %d %d", x.Int64At(0), x.Int64At(1))
	}
	u := FromUint64As(UInt64, []uint32{1}, []uint64{math.MaxUint64 - 1})
	if u.Uint64At(0) != math.MaxUint64-1 {
		t.Errorf("UINT64: %d", u.Uint64At(0))
	}
	f := FromInt64As(Float16, []uint32{2}, []int64{2049, 1 << 40})
	if f.Float64At(0) != 2048 || !math.IsInf(f.Float64At(1), 1) {
		t.Errorf("FLOAT16 from int: %v %v", f.Float64At(0), f.Float64At(1))
	}
}

// TestFloat16Rounding compares the float64 → FLOAT16 conversion with a
// brute-force nearest-even search over all finite FLOAT16 values.
func TestFloat16Rounding(t *testing.T) {
	type h struct {
		v    float64
		bits uint16
	}
	var finite []h
	for b := 0; b < 1<<16; b++ {
		f := float16.Frombits(uint16(b))
		if f.IsFinite() && !(f.Signbit() && f.Float32() == 0) {
			finite = append(finite, h{float64(f.Float32()), uint16(b)})
		}
	}
	sort.Slice(finite, func(i, j int) bool { return finite[i].v < finite[j].v })
	nearest := func(v float64) uint16 {
		if v >= 65520 {
			return 0x7C00
		}
		if v <= -65520 {
			return 0xFC00
		}
		i := sort.Search(len(finite), func(i int) bool { return finite[i].v >= v })
		if finite[i].v == v {
			return finite[i].bits
		}
		lo, hi := finite[i-1], finite[i]
		var r h
		switch dl, dh := v-lo.v, hi.v-v; {
		case dl < dh:
			r = lo
		case dh < dl:
			r = hi
		case lo.bits&1 == 0:
			r = lo
		default:
			r = hi
		}
		if r.v == 0 && v < 0 {
			return 0x8000
		}
		return r.bits
	}
	rng := rand.New(rand.NewPCG(5, 6))
	check := func(v float64) {
		if got, want := f16FromFloat64(v), nearest(v); got != want {
			t.Fatalf("f16FromFloat64(%v) = %#04x, want %#04x", v, got, want)
		}
	}
	for i := 1; i < len(finite); i++ {
		a, b := finite[i-1], finite[i]
		mid := (a.v + b.v) / 2
		check(mid)
		check(math.Nextafter(mid, math.Inf(1)))
		check(math.Nextafter(mid, math.Inf(-1)))
	}
	for range 200000 {
		check((rng.Float64()*2 - 1) * math.Ldexp(1, rng.IntN(40)-24))
	}
}

func TestStridedAccess(t *testing.T) {
	// NHWC storage of a logical NCHW {1,2,3,4} tensor.
	sizes := []uint32{1, 2, 3, 4}
	d := NewStridedDesc(Int32, sizes, []uint32{24, 1, 8, 2})
	x := &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	if err := x.Validate(); err != nil {
		t.Fatal(err)
	}
	var want []int64
	i := int64(0)
	ForEachIndex(sizes, func(c []uint32) {
		x.SetInt64(c, i)
		want = append(want, i)
		i++
	})
	if got := x.Int64s(); !slices.Equal(got, want) {
		t.Errorf("Int64s = %v, want %v", got, want)
	}
	// Channel is innermost in memory: element (0,1,0,0) = 12 sits at offset 1.
	if x.Desc.Offset([]uint32{0, 1, 0, 0}) != 1 || x.Int64At(0, 1, 0, 0) != 12 {
		t.Errorf("NHWC layout wrong")
	}
	p := x.ToPacked()
	if !p.Desc.IsPacked() || len(p.Desc.Strides) != 0 || p.Desc.TotalTensorSizeInBytes != 96 {
		t.Errorf("ToPacked desc = %v", p.Desc)
	}
	if got := p.Int64s(); !slices.Equal(got, want) {
		t.Errorf("packed Int64s = %v", got)
	}
	fs := p.Float64s()
	us := p.Uint64s()
	for i := range want {
		if fs[i] != float64(want[i]) || us[i] != uint64(want[i]) {
			t.Fatalf("Float64s/Uint64s mismatch at %d", i)
		}
	}
}

func TestBroadcastRead(t *testing.T) {
	d := NewStridedDesc(Float16, []uint32{3, 2}, []uint32{0, 1})
	x := &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	x.SetFloat64([]uint32{0, 0}, 1.5)
	x.SetFloat64([]uint32{2, 1}, -3) // same memory as (0,1)
	want := []float64{1.5, -3, 1.5, -3, 1.5, -3}
	if got := x.Float64s(); !slices.Equal(got, want) {
		t.Errorf("Float64s = %v, want %v", got, want)
	}
	if got := x.ToPacked().Float64s(); !slices.Equal(got, want) {
		t.Errorf("ToPacked = %v", got)
	}
}

func TestFromConstructors(t *testing.T) {
	nanBits := uint32(0x7FC12345)
	v := []float32{1, -2, math.Float32frombits(nanBits), 0}
	x := FromFloat32([]uint32{2, 2}, v)
	if x.Bits(1, 0) != uint64(nanBits) || x.Float64At(0, 1) != -2 {
		t.Errorf("FromFloat32: bits %#x", x.Bits(1, 0))
	}
	for _, dt := range AllTypes {
		y := FromFloat64As(dt, []uint32{3}, []float64{1, 2, 100})
		if got := y.Float64s(); !slices.Equal(got, []float64{1, 2, 100}) {
			t.Errorf("%v FromFloat64As: %v", dt, got)
		}
		z := FromUint64As(dt, []uint32{1, 3}, []uint64{7, 8, 9})
		if got := z.Uint64s(); !slices.Equal(got, []uint64{7, 8, 9}) {
			t.Errorf("%v FromUint64As: %v", dt, got)
		}
		if err := z.Validate(); err != nil {
			t.Errorf("%v: %v", dt, err)
		}
	}
	for _, f := range []func(){
		func() { FromFloat32([]uint32{3}, []float32{1, 2}) },
		func() { New(Float64, 2) },
		func() { New(Float32, 0) },
		func() { New(Float32) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		}()
	}
	short := &Tensor{Desc: NewDesc(Float32, []uint32{4}), Data: make([]byte, 12)}
	checkInvalidArg(t, short.Validate(), "Data", "at least TotalTensorSizeInBytes (16)")
}

func TestForEachIndex(t *testing.T) {
	var got [][]uint32
	ForEachIndex([]uint32{2, 1, 3}, func(c []uint32) { got = append(got, slices.Clone(c)) })
	want := [][]uint32{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got %v", got)
	}
	n := 0
	ForEachIndex([]uint32{3, 0}, func([]uint32) { n++ })
	ForEachIndex(nil, func(c []uint32) { n += 10 + len(c) })
	if n != 10 {
		t.Errorf("empty/rank-0 calls: %d", n)
	}
	// forEachOffset agrees with Offset on random strides.
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		rank := 1 + rng.IntN(5)
		sizes, strides := make([]uint32, rank), make([]uint32, rank)
		for i := range sizes {
			sizes[i], strides[i] = 1+uint32(rng.IntN(4)), uint32(rng.IntN(50))
		}
		d := NewStridedDesc(UInt8, sizes, strides)
		var a, b []uint64
		ForEachIndex(sizes, func(c []uint32) { a = append(a, d.Offset(c)) })
		forEachOffset(sizes, strides, func(o uint64) { b = append(b, o) })
		if !slices.Equal(a, b) {
			t.Fatalf("%v: Offset order %v, forEachOffset %v", d, a, b)
		}
	}
}

func TestLargeTranspose(t *testing.T) {
	// 4M elements through the strided path: must stay fast.
	const r, c = 2048, 2048
	d := NewStridedDesc(Float32, []uint32{r, c}, []uint32{1, r})
	x := &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	p := x.ToPacked()
	if len(p.Float64s()) != r*c {
		t.Fatal("wrong count")
	}
}
