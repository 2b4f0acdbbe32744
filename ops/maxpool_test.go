//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

const fltMaxBits = 0xff7fffff // −FLT_MAX

// poolCase is one fixed case seen on real DirectML.
type poolCase struct {
	name       string
	desc       *ops.MaxPooling2
	input      *tensor.Tensor
	values     []uint64 // expected output bits, row-major
	indices    []uint64
	floatValue []float64 // or expected values as numbers
}

func iota32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

func u32Desc(sizes ...uint32) *tensor.Desc {
	d := tensor.NewDesc(tensor.UInt32, sizes)
	return &d
}

// directMLFacts are semantics.md's cases checked against DirectML.dll.
func directMLFacts() []poolCase {
	in4x4 := tensor.FromFloat32([]uint32{1, 1, 4, 4}, iota32(16))
	nhwc := &tensor.Tensor{Desc: tensor.NewStridedDesc(tensor.Float32, []uint32{1, 2, 2, 2}, []uint32{8, 1, 4, 2})}
	nhwc.Data = make([]byte, nhwc.Desc.TotalTensorSizeInBytes)
	for i := 0; i < 8; i++ { // memory holds 0..7 in NHWC order
		c, h, w := uint32(i%2), uint32(i/4), uint32(i/2%2)
		nhwc.SetFloat64([]uint32{0, c, h, w}, float64(i))
	}
	f := func(v ...float64) []float64 { return v }
	u := func(v ...uint64) []uint64 { return v }
	return []poolCase{
		{
			name: "4x4 window 2 dilation 2",
			desc: &ops.MaxPooling2{Input: in4x4.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 2, 2}),
				OutputIndices: u32Desc(1, 1, 2, 2), Strides: []uint32{1, 1}, WindowSize: []uint32{2, 2},
				StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{2, 2}},
			input: in4x4, floatValue: f(10, 11, 14, 15), indices: u(10, 11, 14, 15),
		},
		{
			name: "4x4 window 2 dilation 2, 3x3 output",
			desc: &ops.MaxPooling2{Input: in4x4.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 3, 3}),
				OutputIndices: u32Desc(1, 1, 3, 3), Strides: []uint32{1, 1}, WindowSize: []uint32{2, 2},
				StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{2, 2}},
			input: in4x4, floatValue: f(10, 11, 10, 14, 15, 14, 10, 11, 10), indices: u(10, 11, 10, 14, 15, 14, 10, 11, 10),
		},
		{
			name: "2x2 window 1 start padding 1",
			desc: &ops.MaxPooling2{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 2, 2}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 3, 3}),
				OutputIndices: u32Desc(1, 1, 3, 3), Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1},
				StartPadding: []uint32{1, 1}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}},
			input:   tensor.FromFloat32([]uint32{1, 1, 2, 2}, []float32{1, 2, 3, 4}),
			values:  u(fltMaxBits, fltMaxBits, fltMaxBits, fltMaxBits, 0x3f800000, 0x40000000, fltMaxBits, 0x40400000, 0x40800000),
			indices: u(0, 0, 0, 0, 0, 1, 0, 2, 3),
		},
		{
			name: "NHWC-strided input gives NCHW indices",
			desc: &ops.MaxPooling2{Input: nhwc.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 1, 1}),
				OutputIndices: u32Desc(1, 2, 1, 1), Strides: []uint32{1, 1}, WindowSize: []uint32{2, 2},
				StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}},
			input: nhwc, floatValue: f(6, 7), indices: u(3, 7),
		},
	}
}

func checkFact(t *testing.T, c poolCase, out, idx *tensor.Tensor) {
	t.Helper()
	if c.floatValue != nil {
		if got := out.Float64s(); !slices.Equal(got, c.floatValue) {
			t.Errorf("values %v, want %v", got, c.floatValue)
		}
	} else {
		var got []uint64
		tensor.ForEachIndex(out.Desc.Sizes, func(co []uint32) { got = append(got, out.Bits(co...)) })
		if !slices.Equal(got, c.values) {
			t.Errorf("value bits %#x, want %#x", got, c.values)
		}
	}
	if got := idx.Uint64s(); !slices.Equal(got, c.indices) {
		t.Errorf("indices %v, want %v", got, c.indices)
	}
}

// TestMaxPoolReferenceFacts checks the CPU reference itself against what
// DirectML was seen to do.
func TestMaxPoolReferenceFacts(t *testing.T) {
	for _, c := range directMLFacts() {
		t.Run(c.name, func(t *testing.T) {
			out := tensor.New(tensor.Float32, c.desc.Output.Sizes...)
			idx := tensor.New(tensor.UInt32, c.desc.OutputIndices.Sizes...)
			if err := c.desc.Reference([]*tensor.Tensor{c.input}, []*tensor.Tensor{out, idx}); err != nil {
				t.Fatal(err)
			}
			checkFact(t, c, out, idx)
		})
	}
}

func TestMaxPoolFacts(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range directMLFacts() {
		t.Run(c.name, func(t *testing.T) {
			res := testutil.CheckOperator(t, d, c.desc, []*tensor.Tensor{c.input}, rng)
			checkFact(t, c, res.Outputs[0], res.Outputs[1])
			// The same through MAX_POOLING1 / MAX_POOLING where dilation is 1,
			// and with UINT64 indices.
			if !slices.ContainsFunc(c.desc.Dilations, func(v uint32) bool { return v != 1 }) {
				d1 := &ops.MaxPooling1{Input: c.desc.Input, Output: c.desc.Output, OutputIndices: c.desc.OutputIndices,
					Strides: c.desc.Strides, WindowSize: c.desc.WindowSize, StartPadding: c.desc.StartPadding, EndPadding: c.desc.EndPadding}
				res := testutil.CheckOperator(t, d, d1, []*tensor.Tensor{c.input}, rng)
				checkFact(t, c, res.Outputs[0], res.Outputs[1])
				d0 := &ops.MaxPooling{Input: c.desc.Input, Output: c.desc.Output,
					Strides: c.desc.Strides, WindowSize: c.desc.WindowSize, StartPadding: c.desc.StartPadding, EndPadding: c.desc.EndPadding}
				testutil.CheckOperator(t, d, d0, []*tensor.Tensor{c.input}, rng)
			}
			d64 := *c.desc
			i64 := tensor.NewDesc(tensor.UInt64, c.desc.OutputIndices.Sizes)
			d64.OutputIndices = &i64
			res = testutil.CheckOperator(t, d, &d64, []*tensor.Tensor{c.input}, rng)
			checkFact(t, c, res.Outputs[0], res.Outputs[1])
		})
	}
}

// TestMaxPoolRule9 pins the scan rule on hand-made windows: ties keep the
// first tap, NaN and −∞ are never selected, an all-(−∞) window gives
// −FLT_MAX with its first in-bounds tap's index, an all-padding window
// −FLT_MAX with index 0, and −0 before +0 keeps −0.
func TestMaxPoolRule9(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name   string
		in     []float64 // one 1x1x1x4 row, window 1x2 stride 1x2
		start  uint32
		outW   uint32
		values []float64
		idx    []uint64
	}{
		{"ties keep the first", []float64{5, 5, 2, 2}, 0, 2, []float64{5, 2}, []uint64{0, 2}},
		{"NaN never selected", []float64{nan, 1, 1, nan}, 0, 2, []float64{1, 1}, []uint64{1, 2}},
		{"all NaN", []float64{nan, nan, 3, nan}, 0, 2, []float64{-math.MaxFloat32, 3}, []uint64{0, 2}},
		{"−∞ never selected", []float64{-inf, -inf, -inf, 7}, 0, 2, []float64{-math.MaxFloat32, 7}, []uint64{0, 3}},
		{"+∞ selected", []float64{1, inf, inf, 2}, 0, 2, []float64{inf, inf}, []uint64{1, 2}},
		{"−FLT_MAX tie keeps first", []float64{-math.MaxFloat32, -math.MaxFloat32, 0, 0}, 0, 2, []float64{-math.MaxFloat32, 0}, []uint64{0, 2}},
		{"all padding", []float64{1, 2, 3, 4}, 4, 4, []float64{-math.MaxFloat32, -math.MaxFloat32, 2, 4}, []uint64{0, 0, 1, 3}},
		{"window past the end", []float64{1, 2, 3, 4}, 0, 4, []float64{2, 4, -math.MaxFloat32, -math.MaxFloat32}, []uint64{1, 3, 0, 0}},
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := tensor.FromFloat64As(tensor.Float32, []uint32{1, 1, 1, 4}, c.in)
			desc := &ops.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 1, c.outW}),
				OutputIndices: u32Desc(1, 1, 1, c.outW), Strides: []uint32{1, 2}, WindowSize: []uint32{1, 2},
				StartPadding: []uint32{0, c.start}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
			res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			if got := res.Outputs[0].Float64s(); !slices.Equal(got, c.values) {
				t.Errorf("values %v, want %v", got, c.values)
			}
			if got := res.Outputs[1].Uint64s(); !slices.Equal(got, c.idx) {
				t.Errorf("indices %v, want %v", got, c.idx)
			}
		})
	}
	t.Run("−0 then +0 keeps −0", func(t *testing.T) {
		in := tensor.FromFloat32([]uint32{1, 1, 1, 2}, []float32{float32(math.Copysign(0, -1)), 0})
		desc := &ops.MaxPooling{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 1, 1}),
			Strides: []uint32{1, 1}, WindowSize: []uint32{1, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}
		res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
		if b := res.Outputs[0].Bits(0, 0, 0, 0); b != 0x80000000 {
			t.Errorf("got bits %#x, want −0", b)
		}
	})
	t.Run("window 1 ignores a huge dilation", func(t *testing.T) {
		in := tensor.FromFloat32([]uint32{1, 1, 2, 2}, []float32{1, 2, 3, 4})
		desc := &ops.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 4, 4}),
			OutputIndices: u32Desc(1, 1, 4, 4), Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1},
			StartPadding: []uint32{2, 1}, EndPadding: []uint32{0, 0}, Dilations: []uint32{math.MaxUint32, 1 << 31}}
		res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
		if got := res.Outputs[1].Uint64s(); !slices.Equal(got, []uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 3, 0}) {
			t.Errorf("indices %v", got)
		}
	})
	t.Run("FLOAT16 all padding is −65504", func(t *testing.T) {
		in := tensor.FromFloat64As(tensor.Float16, []uint32{1, 1, 1, 1}, []float64{1})
		desc := &ops.MaxPooling{Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, []uint32{1, 1, 1, 3}),
			Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1}, StartPadding: []uint32{0, 1}, EndPadding: []uint32{0, 1}}
		res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
		if got := res.Outputs[0].Float64s(); !slices.Equal(got, []float64{-65504, 1, -65504}) {
			t.Errorf("got %v", got)
		}
	})
	// DirectML compares FLOAT16 in 32-bit floats from −FLT_MAX: −65504
	// after a NaN or −∞ takes the index; a −65504 tie keeps the first; a
	// window of only −∞ keeps its first tap. The value is −65504 in all.
	t.Run("FLOAT16 −65504 beats NaN and −∞ before it", func(t *testing.T) {
		in := tensor.FromFloat64As(tensor.Float16, []uint32{1, 1, 1, 10},
			[]float64{nan, -65504, -inf, -65504, -65504, -65504, -inf, -inf, -inf, nan})
		for _, withIdx := range []bool{true, false} {
			var desc ops.Desc = &ops.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, []uint32{1, 1, 1, 5}),
				OutputIndices: u32Desc(1, 1, 1, 5), Strides: []uint32{1, 2}, WindowSize: []uint32{1, 2},
				StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
			if !withIdx {
				desc = &ops.MaxPooling{Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, []uint32{1, 1, 1, 5}),
					Strides: []uint32{1, 2}, WindowSize: []uint32{1, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}
			}
			res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			var bits []uint64
			tensor.ForEachIndex(res.Outputs[0].Desc.Sizes, func(c []uint32) { bits = append(bits, res.Outputs[0].Bits(c...)) })
			if want := []uint64{0xfbff, 0xfbff, 0xfbff, 0xfbff, 0xfbff}; !slices.Equal(bits, want) {
				t.Errorf("value bits %#x, want %#x", bits, want)
			}
			if withIdx {
				if got, want := res.Outputs[1].Uint64s(), []uint64{1, 3, 4, 6, 8}; !slices.Equal(got, want) {
					t.Errorf("indices %v, want %v", got, want)
				}
			}
		}
	})
}

// ---- randomized cases ----

// layoutStrides returns strides for sizes: packed, a random dimension
// order (Fortran order and NHWC among them) and/or gaps, and for inputs
// broadcast (stride 0) dimensions.
func layoutStrides(rng *rand.Rand, sizes []uint32, input bool) ([]uint32, string) {
	switch rng.Intn(5) {
	case 0:
		return nil, "packed"
	case 1: // Fortran order: first dimension fastest
		st := make([]uint32, len(sizes))
		acc := uint32(1)
		for i := range sizes {
			st[i] = acc
			acc *= sizes[i]
		}
		return st, "fortran"
	case 2: // NHWC-like: channels fastest
		order := append([]int{1}, len(sizes)-1)
		for i := len(sizes) - 2; i >= 2; i-- {
			order = append(order, i)
		}
		order = append(order, 0)
		return orderStrides(rng, sizes, order, false), "nhwc"
	case 3:
		if input && rng.Intn(2) == 0 {
			st := slices.Clone(tensor.PackedStrides(sizes))
			for i := range st {
				if rng.Intn(3) == 0 {
					st[i] = 0
				}
			}
			return st, "broadcast"
		}
		fallthrough
	default: // a random order with gaps
		order := rng.Perm(len(sizes))
		return orderStrides(rng, sizes, order, true), "padded"
	}
}

// orderStrides lays dimensions out fastest-first in order, with random
// gaps when gaps is set.
func orderStrides(rng *rand.Rand, sizes []uint32, order []int, gaps bool) []uint32 {
	st := make([]uint32, len(sizes))
	acc := uint32(1)
	if gaps {
		acc = uint32(1 + rng.Intn(2))
	}
	for _, d := range order {
		st[d] = acc
		acc *= sizes[d]
		if gaps {
			acc += uint32(rng.Intn(3))
		}
	}
	return st
}

// special returns interesting bit patterns of dt: ties (small values),
// the extremes, and for floats NaN, ±∞, ±0, −FLT_MAX and denormals.
func special(rng *rand.Rand, dt tensor.DataType) uint64 {
	small := int64(rng.Intn(5) - 2)
	if rng.Intn(4) != 0 {
		switch {
		case dt.IsFloat():
			return tensor.FromFloat64As(dt, []uint32{1}, []float64{float64(small)}).Bits(0)
		default:
			return tensor.FromInt64As(dt, []uint32{1}, []int64{small}).Bits(0)
		}
	}
	switch dt {
	case tensor.Float32:
		return []uint64{0x7fc00000, 0xffc00001, 0x7f800000, 0xff800000, 0x80000000, 0, fltMaxBits, 0x7f7fffff, 1, 0x80000001, 0x7f800001}[rng.Intn(11)]
	case tensor.Float16:
		return []uint64{0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x8000, 0, 0xfbff, 0x7bff, 1, 0x8001, 0x7c01}[rng.Intn(11)]
	}
	bits := 8 * dt.Size()
	mask := uint64(math.MaxUint64) >> (64 - bits)
	ext := []uint64{0, mask, mask >> 1, (mask >> 1) + 1, 1, rng.Uint64() & mask}
	return ext[rng.Intn(len(ext))]
}

// randomTensor fills a tensor of desc d with special values (and random
// bytes in the gaps).
func randomTensor(rng *rand.Rand, d tensor.Desc) *tensor.Tensor {
	t := &tensor.Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	rng.Read(t.Data)
	tensor.ForEachIndex(d.Sizes, func(c []uint32) { t.SetBits(c, special(rng, d.DataType)) })
	return t
}

// eachPoolStorage runs f, as a subtest, on a device with 8/16-bit storage
// ("native") and on one without it ("words": 8/16-bit elements read as
// 32-bit words).
func eachPoolStorage(t *testing.T, f func(t *testing.T, d *dml.Device, rng *rand.Rand)) {
	for _, name := range []string{"native", "words"} {
		t.Run(name, func(t *testing.T) {
			opts := dml.DeviceOptions{}
			if name == "words" {
				opts.Disable = caps.Features{StorageBuffer8Bit: true, StorageBuffer16Bit: true}
			}
			f(t, testutil.OpenDML(t, opts), testutil.Rand(t))
		})
	}
}

type poolGen struct {
	types   []tensor.DataType
	idx     []tensor.DataType // tensor.Unknown = no indices
	layouts bool
	// maxW, when above the default (9; 5 in 3D), bounds the innermost
	// input extent instead: rows wide enough for runs of outputs.
	maxW int
}

// randomPool draws one pooling case.
func (g poolGen) randomPool(rng *rand.Rand) (ops.Desc, *tensor.Tensor, string) {
	rank := 4 + rng.Intn(2)
	dims := rank - 2
	maxIn := 9
	if dims == 3 {
		maxIn = 5
	}
	dt := g.types[rng.Intn(len(g.types))]
	inSizes := []uint32{uint32(1 + rng.Intn(3)), uint32(1 + rng.Intn(3))}
	var win, str, dil, sp, ep []uint32
	outSizes := slices.Clone(inSizes)
	dilated := false
	for i := 0; i < dims; i++ {
		in := uint32(1 + rng.Intn(maxIn))
		if i == dims-1 && g.maxW > maxIn {
			in = uint32(1 + rng.Intn(g.maxW))
		}
		w, s, dl := uint32(1+rng.Intn(4)), uint32(1+rng.Intn(3)), uint32(1)
		if rng.Intn(2) == 0 {
			dl = uint32(1 + rng.Intn(3))
		}
		dilated = dilated || dl != 1
		a, b := uint32(rng.Intn(int(w)+1)), uint32(rng.Intn(int(w)+1))
		floor := ops.MaxPoolOutputSize(in, w, s, a, b, dl, false)
		ceil := ops.MaxPoolOutputSize(in, w, s, a, b, dl, true)
		var o uint64
		switch rng.Intn(4) {
		case 0, 1:
			o = floor
		case 2:
			o = ceil
		default:
			o = floor + uint64(1+rng.Intn(3)) // larger: windows past the padded input
		}
		if o == 0 {
			o = uint64(1 + rng.Intn(3))
		}
		inSizes = append(inSizes, in)
		outSizes = append(outSizes, uint32(o))
		win, str, dil, sp, ep = append(win, w), append(str, s), append(dil, dl), append(sp, a), append(ep, b)
	}
	layout := "packed"
	inDesc := tensor.NewDesc(dt, inSizes)
	outDesc := tensor.NewDesc(dt, outSizes)
	var idxDesc *tensor.Desc
	if it := g.idx[rng.Intn(len(g.idx))]; it != tensor.Unknown {
		d := tensor.NewDesc(it, outSizes)
		idxDesc = &d
	}
	if g.layouts {
		var st []uint32
		st, layout = layoutStrides(rng, inSizes, true)
		inDesc = tensor.NewStridedDesc(dt, inSizes, st)
		st, l := layoutStrides(rng, outSizes, false)
		outDesc = tensor.NewStridedDesc(dt, outSizes, st)
		layout += "/" + l
		if idxDesc != nil {
			st, l := layoutStrides(rng, outSizes, false)
			*idxDesc = tensor.NewStridedDesc(idxDesc.DataType, outSizes, st)
			layout += "/" + l
		}
		if rng.Intn(4) == 0 {
			inDesc.TotalTensorSizeInBytes += 4 * uint64(rng.Intn(4))
		}
	}
	in := randomTensor(rng, inDesc)
	name := fmt.Sprintf("%v in%v out%v win%v str%v dil%v pad%v/%v %s", dt, inSizes, outSizes, win, str, dil, sp, ep, layout)
	if idxDesc != nil {
		name += " idx " + idxDesc.DataType.String()
	}
	var desc ops.Desc
	switch {
	case dilated || (idxDesc != nil && rng.Intn(2) == 0) || rng.Intn(3) == 0:
		desc = &ops.MaxPooling2{Input: inDesc, Output: outDesc, OutputIndices: idxDesc, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep, Dilations: dil}
	case idxDesc != nil || rng.Intn(2) == 0:
		desc = &ops.MaxPooling1{Input: inDesc, Output: outDesc, OutputIndices: idxDesc, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
	default:
		desc = &ops.MaxPooling{Input: inDesc, Output: outDesc, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
	}
	return desc, in, desc.OperatorType() + " " + name
}

var allIdx = []tensor.DataType{tensor.Unknown, tensor.UInt32, tensor.UInt64}

func runRandom(t *testing.T, d *dml.Device, g poolGen, n int) {
	rng := testutil.Rand(t)
	for i := 0; i < n; i++ {
		desc, in, name := g.randomPool(rng)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Log(name)
			testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
		})
	}
}

func TestMaxPoolRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	n := testutil.CaseCount(100, 40)
	runRandom(t, d, poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}, n)
}

// TestMaxPoolEveryType runs each type with each index type at least once.
func TestMaxPoolEveryType(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	eachTypePair(t, allIdx, func(t *testing.T, dt, it tensor.DataType) {
		runRandom(t, d, poolGen{types: []tensor.DataType{dt}, idx: []tensor.DataType{it}, layouts: true}, 2)
	})
}

// eachTypePair runs run as a subtest for every type with every index type
// of idx.
func eachTypePair(t *testing.T, idx []tensor.DataType, run func(t *testing.T, dt, it tensor.DataType)) {
	for _, dt := range tensor.AllTypes {
		for _, it := range idx {
			t.Run(fmt.Sprintf("%v/%v", dt, it), func(t *testing.T) { run(t, dt, it) })
		}
	}
}

// TestMaxPoolFallbacks forces each device-feature fallback, alone and all
// together.
func TestMaxPoolFallbacks(t *testing.T) {
	wide := []tensor.DataType{tensor.Int64, tensor.UInt64, tensor.Float32}
	cases := []struct {
		name    string
		disable caps.Features
		types   []tensor.DataType
	}{
		{"no 8-bit storage", caps.Features{StorageBuffer8Bit: true, ShaderInt8: true}, []tensor.DataType{tensor.UInt8, tensor.Int8}},
		{"no 16-bit storage", caps.Features{StorageBuffer16Bit: true, ShaderInt16: true}, []tensor.DataType{tensor.Float16, tensor.UInt16, tensor.Int16}},
		{"no shaderFloat16", caps.Features{ShaderFloat16: true}, []tensor.DataType{tensor.Float16}},
		{"no shaderInt64", caps.Features{ShaderInt64: true}, wide},
		{"none", caps.Features{ShaderInt64: true, StorageBuffer8Bit: true, StorageBuffer16Bit: true, SubgroupArithmetic: true,
			ShaderInt16: true, ShaderInt8: true, ShaderFloat16: true, SubgroupExtendedTypes: true}, tensor.AllTypes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: c.disable})
			n := testutil.CaseCount(15, 8)
			runRandom(t, d, poolGen{types: c.types, idx: allIdx, layouts: true}, n)
		})
	}
}

// limited plans with a smaller maxStorageBufferRange, so that the planner
// splits the tensors over several steps with windowed bindings.
type limited struct {
	ops.Desc
	rangeBytes uint32
	kernel     string // a forced strategy, when not empty
}

func (l limited) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	if l.rangeBytes != 0 {
		c.Limits.MaxStorageBufferRange = l.rangeBytes
	}
	if l.kernel != "" {
		c.Kernel = l.kernel
	}
	return l.Desc.Plan(&c)
}

// TestMaxPoolWindowCap runs random pools on devices whose bindings are
// capped (dml.DeviceOptions.BindingWindowCap, a few hundred or thousand
// bytes), each case on the smallest cap that holds one (batch, channel)
// plane of every tensor but not the whole of the largest, so that tensors
// that would fit one binding take the split strategies; and checks the
// strategy errors.
func TestMaxPoolWindowCap(t *testing.T) {
	devices := testutil.WindowDevices(t)
	rng := testutil.Rand(t)
	g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}
	caps := []uint64{64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192}
	strategies := map[string]int{}
	ran := func() int { return strategies["split-n"] + strategies["split-c"] }
	drawCases(12, func() bool { return ran() >= 6 }, func(i int) {
		desc, in, name := g.randomPool(rng)
		plane, _, total := poolSpans(desc)
		win := testutil.SmallestWindowCap(caps, plane, total)
		if win == 0 {
			strategies["no cap fits"]++
			return
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Logf("%s, window cap %d", name, win)
			res, err := testutil.RunPoisoned(devices(win), desc, []*tensor.Tensor{in}, rng)
			if err != nil {
				t.Fatal(err)
			}
			strategies[res.Strategy[:min(7, len(res.Strategy))]]++
			if !strings.HasPrefix(res.Strategy, "split-") {
				t.Errorf("strategy %q under a cap below the tensors' size", res.Strategy)
			}
			for j := range res.Outputs {
				if res.Outputs[j] != nil {
					if diff := testutil.DiffTensors(res.Expected[j], res.Outputs[j], 8); diff != "" {
						t.Fatalf("%s: output %d differs:\n%s", res.Strategy, j, diff)
					}
				}
			}
		})
	})
	t.Logf("strategies: %v", strategies)
	if ran() < 6 {
		t.Errorf("too few cases ran under a window cap: %v", strategies)
	}
	d := devices(0)
	desc, _, _ := g.randomPool(rng)
	var he *hresult.Error
	for _, k := range []string{"tiles", "split"} {
		if _, err := d.CreateOperator(limited{Desc: desc, kernel: k}); !errors.As(err, &he) || he.Field != "Kernel" {
			t.Errorf("unknown strategy %q: %v", k, err)
		}
	}
	if _, err := d.CreateOperator(limited{Desc: desc, kernel: "direct", rangeBytes: 16}); !errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
		t.Errorf("direct strategy over the range: %v", err)
	}
}

func TestMaxPoolSplit(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}
	strategies := map[string]int{}
	n := testutil.CaseCount(60, 25)
	covered := func() bool { return testing.Short() || strategies["split-n"] > 0 && strategies["split-c"] > 0 }
	drawCases(n, covered, func(i int) {
		desc, in, name := g.randomPool(rng)
		// A range between one (batch, channel) plane and the whole tensors.
		plane, batch, total := poolSpans(desc)
		slack := max(d.GPU().Limits.MinStorageBufferOffsetAlignment, 4) + 8
		var lim uint32
		switch i % 4 {
		case 0: // at least a plane, less than a batch: runs of channels
			lim = uint32(plane + slack + uint64(rng.Int63n(int64(batch-plane+1))))
		case 1: // at least a batch: runs of batches
			lim = uint32(batch + slack + uint64(rng.Int63n(int64(total-batch+1))))
		case 2: // less than a plane: unsupported
			lim = uint32(1 + rng.Intn(int(plane+slack)))
		default:
			lim = uint32(plane + slack + uint64(rng.Int63n(int64(total+8))))
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Logf("%s, range %d", name, lim)
			res, err := testutil.RunPoisoned(d, limited{Desc: desc, rangeBytes: lim}, []*tensor.Tensor{in}, rng)
			if err != nil {
				if errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
					strategies["unsupported"]++
					return
				}
				t.Fatal(err)
			}
			strategies[res.Strategy[:min(7, len(res.Strategy))]]++
			for j := range res.Outputs {
				if res.Outputs[j] == nil {
					continue
				}
				if diff := testutil.DiffTensors(res.Expected[j], res.Outputs[j], 8); diff != "" {
					t.Fatalf("%s: output %d differs:\n%s", res.Strategy, j, diff)
				}
			}
		})
	})
	t.Logf("strategies: %v", strategies)
	if !covered() {
		t.Errorf("the random cases did not reach both split strategies: %v", strategies)
	}
}

func TestMaxPoolSplitUnsupported(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewStridedDesc(tensor.Float32, []uint32{1, 4, 8, 8}, []uint32{256, 1, 32, 4}) // NHWC
	desc := &ops.MaxPooling{Input: in, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 4, 4, 4}),
		Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}
	_, err := d.CreateOperator(limited{Desc: desc, rangeBytes: 512})
	var he *hresult.Error
	if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || he.Field != "InputTensor.Strides" {
		t.Fatalf("got %v, want DXGI_ERROR_UNSUPPORTED on InputTensor.Strides", err)
	}
}

// poolSpans returns, over desc's tensors, the most bytes one (batch,
// channel) plane spans, the most one batch element's channels span, and
// the largest tensor's size.
func poolSpans(desc ops.Desc) (plane, batch, total uint64) {
	for _, td := range append(desc.Inputs(), desc.Outputs()...) {
		if td == nil {
			continue
		}
		st, es := td.EffectiveStrides(), uint64(td.DataType.Size())
		last := uint64(0)
		for j := 2; j < len(st); j++ {
			last += uint64(td.Sizes[j]-1) * uint64(st[j])
		}
		plane = max(plane, (last+1)*es)
		batch = max(batch, (last+uint64(td.Sizes[1]-1)*uint64(st[1])+1)*es)
		total = max(total, td.TotalTensorSizeInBytes)
	}
	return plane, batch, total
}

// The GPU kernels' own tests: maxpool_vec.comp's 2x2 fast path, maxpool_grid.comp and
// the preloading direct kernel, each forced on lavapipe as a GPU plan.

// vecPoolCase draws a 2x2 stride-2 pooling case of a 32-bit type. aligned
// cases meet maxpool_vec.comp's conditions (floor or smaller output extents,
// widths multiples of 4, packed tensors); the others break one condition
// (odd width, padding, dilation, strided input or output, 5D) and must run
// on the direct kernel with the same results.
func vecPoolCase(rng *rand.Rand, aligned bool) (ops.Desc, *tensor.Tensor, string) {
	dt := []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32}[rng.Intn(3)]
	n, c := uint32(1+rng.Intn(2)), uint32(1+rng.Intn(3))
	ow := 4 * uint32(1+rng.Intn(5))
	iw := 2*ow + 4*uint32(rng.Intn(2)) // floor size, or a wider input
	oh := uint32(1 + rng.Intn(6))
	ih := 2*oh + uint32(rng.Intn(3)) // odd heights drop their last row
	sp, ep, dil := []uint32{0, 0}, []uint32{0, 0}, []uint32{1, 1}
	var inStrides, outStrides []uint32
	breaks := "none"
	if !aligned {
		switch rng.Intn(5) {
		case 0:
			iw++ // rows start unaligned
			breaks = "odd width"
		case 1:
			sp = []uint32{1, 1}
			ep = []uint32{1, 1}
			ih, iw = 2*oh-1, 2*ow-1
			breaks = "padding"
		case 2:
			dil = []uint32{1, 2}
			iw = 2*ow + 1
			breaks = "dilation"
		case 3:
			inStrides = []uint32{c * ih * (iw + 4), ih * (iw + 4), iw + 4, 1}
			breaks = "padded input rows"
		case 4:
			c = 2 + uint32(rng.Intn(2)) // with one plane the permutation would be packed
			outStrides = []uint32{1, n, n * c * ow, n * c}
			breaks = "permuted output"
		}
	}
	inSizes, outSizes := []uint32{n, c, ih, iw}, []uint32{n, c, oh, ow}
	in := tensor.NewDesc(dt, inSizes)
	if inStrides != nil {
		in = tensor.NewStridedDesc(dt, inSizes, inStrides)
	}
	out := tensor.NewDesc(dt, outSizes)
	if outStrides != nil {
		out = tensor.NewStridedDesc(dt, outSizes, outStrides)
	}
	desc := &ops.MaxPooling2{Input: in, Output: out, Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2},
		StartPadding: sp, EndPadding: ep, Dilations: dil}
	it := allIdx[rng.Intn(len(allIdx))]
	if it != tensor.Unknown {
		idx := tensor.NewDesc(it, outSizes)
		desc.OutputIndices = &idx
	}
	return desc, randomTensor(rng, in), fmt.Sprintf("%v in %v out %v idx %v breaks %s", dt, inSizes, outSizes, it, breaks)
}

// TestMaxPoolVec checks the vectorised 2x2 kernel against the CPU
// reference (rule 9's NaN, −∞, ±0 and tie cases come from randomTensor's
// specials), chosen by the planner and forced, and that layouts it does not
// fit fall back to the direct kernel.
func TestMaxPoolVec(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := testutil.CaseCount(40, 16)
	for i := 0; i < n; i++ {
		aligned := i%4 != 3
		desc, in, name := vecPoolCase(rng, aligned)
		kernel := []string{"", ops.MaxPoolStrategyVec2x2}[i%2]
		res := testutil.CheckOperator(t, d, limited{Desc: desc, kernel: kernel}, []*tensor.Tensor{in}, rng)
		want := "direct"
		if aligned {
			want = ops.MaxPoolStrategyVec2x2
		}
		if res.Strategy != want {
			t.Errorf("%s (kernel %q): strategy %q, want %q", name, kernel, res.Strategy, want)
		}
	}
}

// TestMaxPoolVecRule9: windows of only NaN, only −∞, −FLT_MAX ties, ±0
// ties and equal values, in every tap position, on the vectorised kernel.
func TestMaxPoolVecRule9(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	pick := map[tensor.DataType][]uint64{
		tensor.Float32: {0x7fc00000, 0xffc00001, 0x7f800001, 0xff800000, 0xff7fffff, 0x80000000, 0, 0x3f800000},
		tensor.Int32:   {0x80000000, 0x7fffffff, 0, 0xffffffff},
		tensor.UInt32:  {0, 0xffffffff, 1, 0x80000000},
	}
	for dt, vals := range pick {
		for _, it := range allIdx {
			sizes := []uint32{1, 3, 4, 16}
			in := &tensor.Tensor{Desc: tensor.NewDesc(dt, sizes), Data: make([]byte, 4*3*4*16)}
			tensor.ForEachIndex(sizes, func(c []uint32) {
				// Each window draws from at most two values, so ties and
				// all-special windows are common.
				w := (c[1]*2+c[2]/2)*8 + c[3]/2
				a, b := vals[int(w)%len(vals)], vals[int(w/3)%len(vals)]
				if rng.Intn(2) == 0 {
					in.SetBits(c, a)
				} else {
					in.SetBits(c, b)
				}
			})
			out := []uint32{1, 3, 2, 8}
			desc := &ops.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(dt, out), Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2},
				StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
			if it != tensor.Unknown {
				idx := tensor.NewDesc(it, out)
				desc.OutputIndices = &idx
			}
			res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			if res.Strategy != ops.MaxPoolStrategyVec2x2 {
				t.Fatalf("%v: strategy %q", dt, res.Strategy)
			}
		}
	}
}

// TestMaxPoolVecGPUShape: the vectorised kernel with the planner's GPU
// choice (64 lanes, one quad per invocation and step).
func TestMaxPoolVecGPUShape(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for i := 0; i < 8; i++ {
		desc, in, name := vecPoolCase(rng, true)
		res := testutil.CheckOperator(t, d, &asGPU{Desc: desc}, []*tensor.Tensor{in}, rng)
		if res.Strategy != ops.MaxPoolStrategyVec2x2 {
			t.Errorf("%s: strategy %q", name, res.Strategy)
		}
	}
}

// asGridGPU plans a desc as for a discrete GPU with every direct plan on
// maxpool_grid.comp (tiles of any size), and with the device's
// maxComputeWorkGroupCount in y and z lowered to maxYZ (0: the device's),
// so that small tensors split their planes and rows over dispatches as
// large ones split past 65535.
type asGridGPU struct {
	ops.Desc
	maxYZ uint32
	outs  int // runs of outputs per lane (poolGridOuts); 0: the GPU class's
}

func (g *asGridGPU) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	c.DeviceType = caps.DeviceTypeDiscreteGPU
	c.Tuning = ops.Tuning{"poolGrid": "true", "poolGridMinLanes": "1"}
	if g.outs > 0 {
		c.Tuning["poolGridOuts"] = fmt.Sprint(g.outs)
	}
	if g.maxYZ > 0 {
		c.Limits.MaxComputeWorkGroupCount[1] = min(c.Limits.MaxComputeWorkGroupCount[1], g.maxYZ)
		c.Limits.MaxComputeWorkGroupCount[2] = min(c.Limits.MaxComputeWorkGroupCount[2], g.maxYZ)
	}
	return g.Desc.Plan(&c)
}

// gridVariant is the kernel of a max pooling's grid plan, and its
// dispatches.
func gridVariant(t *testing.T, d *dml.Device, g *asGridGPU, what string) (string, int) {
	t.Helper()
	ctx := testutil.PlanContext(d)
	if err := g.Validate(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	p, err := g.Plan(ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return p.Kernels[0].Variant, len(p.Steps)
}

// TestMaxPoolGridGPU runs random max poolings (every type, 32- and 64-bit
// indices or none, 1-3 spatial dimensions, strides, dilations, paddings,
// windows past the input and of padding only, strided layouts, N and C
// above 1, rule 9's special values) on maxpool_grid.comp against the CPU
// reference, with and without 8/16-bit storage, with the device's grid
// limits and with y and z limited to 1-3 workgroups (planes and rows
// split over dispatches).
func TestMaxPoolGridGPU(t *testing.T) {
	randomPoolsGPU(t, 80, 10, "split over dispatches", func(t *testing.T, d *dml.Device, i int, desc ops.Desc, what string) (ops.Desc, bool) {
		gd := &asGridGPU{Desc: desc, maxYZ: uint32(i % 4)}
		v, steps := gridVariant(t, d, gd, what)
		if !strings.HasPrefix(v, "maxpool_grid_") && !strings.HasPrefix(v, "maxpool_vec") {
			t.Fatalf("%s: the GPU plan runs %s", what, v)
		}
		return gd, steps > 1
	})
}

// TestMaxPoolRunGPU runs random max poolings on maxpool_grid.comp's runs
// of 2, 4 and 8 outputs per lane (poolGridOuts), on rows up to 40 wide so
// that runs lie wholly inside the input as well as across its borders and
// past the last column: every type, 32- and 64-bit indices or none, 1-3
// spatial dimensions, strides, dilations, paddings, strided layouts, with
// and without 8/16-bit storage; with y and z limited to 1-3 workgroups
// (rows and planes over dispatches) and, every fifth case, split over
// planes (one binding a plane). randomTensor draws most elements from a
// handful of small values and rule 9's specials (NaN, ±0, ±∞, −FLT_MAX,
// denormals), so ties and NaN fall on the columns neighbouring outputs
// of a run share.
func TestMaxPoolRunGPU(t *testing.T) {
	eachPoolStorage(t, func(t *testing.T, d *dml.Device, rng *rand.Rand) {
		g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true, maxW: 40}
		ran, splits := map[int]int{}, 0
		n := testutil.CaseCount(90, 30)
		for i := 0; i < n; i++ {
			// About 40% of the draws cannot take runs of 8 (rows
			// narrower than a run, windows past the preload); the maxpool
			// grid plan's fallback to one output a lane is
			// TestMaxPoolGridGPU's. A tenth hold a single (n, c) plane,
			// which every fifth case, split over planes, cannot split.
			// Redraw up to 16 times until the plan takes the run the case
			// tests and, every fifth case, splits (a case misses with p <
			// 1e-5), so that the coverage checks below hold for every
			// seed: one seed of stop 37's CI drew 1 of 10 for runs of 8,
			// and -short's 6 split cases all held one plane with p≈5e-7.
			outs := shaders.MaxPoolRunOuts[i%len(shaders.MaxPoolRunOuts)]
			want := fmt.Sprintf("_pre_x%d", outs)
			split := i%5 == 4 // a binding holds one (n, c) plane of each tensor
			var in *tensor.Tensor
			var run ops.Desc
			for try := 0; try < 16; try++ {
				var desc ops.Desc
				var what string
				desc, in, what = g.randomPool(rng)
				gd := &asGridGPU{Desc: desc, outs: outs, maxYZ: uint32(i % 4)}
				run = gd
				if split {
					plane, _, _ := poolSpans(desc)
					run = limited{Desc: gd, rangeBytes: uint32(plane + max(d.GPU().Limits.MinStorageBufferOffsetAlignment, 4) + 8)}
				}
				v, _ := gridVariant(t, d, gd, what)
				if !strings.HasSuffix(v, want) {
					continue
				}
				if p, err := run.Plan(testutil.PlanContext(d)); !split || err == nil && strings.HasPrefix(p.Strategy, "split-") {
					ran[outs]++
					break
				}
			}
			if res := testutil.CheckOperator(t, d, run, []*tensor.Tensor{in}, rng); strings.HasPrefix(res.Strategy, "split-") {
				splits++
			}
		}
		if splits == 0 {
			t.Error("no case split over planes")
		}
		for _, outs := range shaders.MaxPoolRunOuts {
			if ran[outs] < n/len(shaders.MaxPoolRunOuts)/2 {
				t.Errorf("runs of %d: only %d of %d cases ran them", outs, ran[outs], n/len(shaders.MaxPoolRunOuts))
			}
		}
	})
}

// TestMaxPoolRunFloatCmpGPU runs random FLOAT32 max poolings on the runs
// that compare floats natively (maxpool_grid.comp FLOAT_CMP), against the
// CPU reference, with rule 9's specials (denormals, NaN, ±0, ±inf,
// −FLT_MAX) on the columns a run's outputs share. It needs a device that
// reports the float controls those kernels ask for: lavapipe flushes
// denormals and reports no shaderDenormPreserveFloat32, so there it skips
// (scripts/gpu_compare.py --gpu-run runs it first on a GPU).
func TestMaxPoolRunFloatCmpGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if f := d.GPU().Features; !f.DenormPreserveFloat32 || !f.SignedZeroInfNanPreserveFloat32 {
		t.Skip("the device reports no shaderDenormPreserveFloat32 and shaderSignedZeroInfNanPreserveFloat32: the native compare never runs on it")
	}
	rng := testutil.Rand(t)
	g := poolGen{types: []tensor.DataType{tensor.Float32}, idx: allIdx, layouts: true, maxW: 40}
	n, ran := testutil.CaseCount(90, 30), 0
	for i := 0; i < n; i++ {
		desc, in, what := g.randomPool(rng)
		gd := &asGridGPU{Desc: desc, outs: shaders.MaxPoolRunOuts[i%len(shaders.MaxPoolRunOuts)]}
		if v, _ := gridVariant(t, d, gd, what); strings.HasSuffix(v, "_fcmp") {
			ran++
		}
		testutil.CheckOperator(t, d, gd, []*tensor.Tensor{in}, rng)
	}
	if ran < n/4 {
		t.Errorf("only %d of %d cases ran a native-compare run", ran, n)
	}
}

// TestMaxPoolRunFloatCmpPlan: the GPU plans of runs compare natively
// exactly where the device reports both float controls and the input is
// FLOAT32 (a device fact, not a device class).
func TestMaxPoolRunFloatCmpPlan(t *testing.T) {
	p, err := profiles.Lookup("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dt                 tensor.DataType
		denormal, zeroInfs bool
		want               bool
	}{
		{tensor.Float32, true, true, true},
		{tensor.Float32, false, true, false},
		{tensor.Float32, true, false, false},
		{tensor.Float16, true, true, false},
		{tensor.Int32, true, true, false},
	} {
		f := p.Features
		f.DenormPreserveFloat32, f.SignedZeroInfNanPreserveFloat32 = c.denormal, c.zeroInfs
		shape, out := []uint32{2, 8, 112, 112}, []uint32{2, 8, 56, 56}
		desc := &ops.MaxPooling2{Input: tensor.NewDesc(c.dt, shape), Output: tensor.NewDesc(c.dt, out), Strides: []uint32{2, 2},
			WindowSize: []uint32{3, 3}, StartPadding: []uint32{1, 1}, EndPadding: []uint32{1, 1}, Dilations: []uint32{1, 1}}
		v := profilePlan(t, p, f, desc).Kernels[0].Variant
		if got := strings.HasSuffix(v, "_fcmp"); got != c.want || !strings.Contains(v, "_pre_x") {
			t.Errorf("%v, denormals kept %v, ±0/inf/NaN kept %v: %s, want a run, native compare %v", c.dt, c.denormal, c.zeroInfs, v, c.want)
		}
	}
}

// profilePlan validates and plans desc on profile p's device with
// features f in place of its own, at the newest feature level.
func profilePlan(t *testing.T, p *profiles.Profile, f caps.Features, desc ops.Desc) *ops.Plan {
	t.Helper()
	ctx := &ops.Context{FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], Features: f, Limits: p.Limits, DeviceType: p.Type}
	if err := desc.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	plan, err := desc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// randomPoolsGPU draws n random max poolings (every type, 32- and 64-bit
// indices or none, strided layouts) on each storage mode of
// eachPoolStorage; plan checks case i's GPU plan and returns the desc to
// run against the CPU reference and whether the case counts towards the
// least (want) that must be counted (counted says what they did).
func randomPoolsGPU(t *testing.T, n, want int, counted string, plan func(t *testing.T, d *dml.Device, i int, desc ops.Desc, what string) (ops.Desc, bool)) {
	eachPoolStorage(t, func(t *testing.T, d *dml.Device, rng *rand.Rand) {
		g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}
		got := 0
		for i := 0; i < n; i++ {
			desc, in, what := g.randomPool(rng)
			run, ok := plan(t, d, i, desc, what)
			if ok {
				got++
			}
			testutil.CheckOperator(t, d, run, []*tensor.Tensor{in}, rng)
		}
		if got < want {
			t.Errorf("only %d of %d cases %s", got, n, counted)
		}
	})
}

// TestMaxPoolGridOverLimits runs grids past the device's own limits: more
// planes than maxComputeWorkGroupCount[2] allows in one dispatch, and more
// row groups than [1] allows, with indices.
func TestMaxPoolGridOverLimits(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	lim := d.GPU().Limits.MaxComputeWorkGroupCount
	cases := []struct{ in []uint32 }{
		{[]uint32{2, lim[2]/2 + 3, 1, 2}}, // planes past z
		{[]uint32{1, 1, lim[1] + 2, 128}}, // rows past y (128 columns: one row a tile)
	}
	for _, c := range cases {
		out := []uint32{c.in[0], c.in[1], c.in[2], c.in[3]}
		inDesc, outDesc := tensor.NewDesc(tensor.Float32, c.in), tensor.NewDesc(tensor.Float32, out)
		idx := tensor.NewDesc(tensor.UInt64, out)
		desc := &ops.MaxPooling2{Input: inDesc, Output: outDesc, OutputIndices: &idx, Strides: []uint32{1, 1}, WindowSize: []uint32{3, 3},
			StartPadding: []uint32{1, 1}, EndPadding: []uint32{1, 1}, Dilations: []uint32{1, 1}}
		what := fmt.Sprintf("in%v", c.in)
		gd := &asGridGPU{Desc: desc, outs: 1} // one output a lane: a run of 8 would fit y
		v, steps := gridVariant(t, d, gd, what)
		if !strings.HasPrefix(v, "maxpool_grid_") || steps < 2 {
			t.Fatalf("%s: %s in %d dispatches, want maxpool_grid in 2 or more", what, v, steps)
		}
		testutil.CheckOperator(t, d, gd, []*tensor.Tensor{randomTensor(rng, inDesc)}, rng)
	}
}

// TestMaxPoolPreloadGPU runs, on lavapipe, the GPU plans of random max
// poolings (every type, with and without 32- and 64-bit indices, 1-3
// spatial dimensions, strides, dilations, paddings, windows past the
// input, strided layouts, rule 9's special values: ties, NaN, ±0, ±∞,
// −FLT_MAX, −65504) whose direct kernel loads an interior window's taps
// before comparing them (maxpool.comp PRELOAD), against the CPU
// reference; with and without 8/16-bit storage. Every window of at most
// 16 taps must run the preloading variant.
func TestMaxPoolPreloadGPU(t *testing.T) {
	randomPoolsGPU(t, 60, 20, "ran the preloading kernel", func(t *testing.T, d *dml.Device, _ int, desc ops.Desc, what string) (ops.Desc, bool) {
		_, p := testutil.GPUPlan(t, d, desc, "", what)
		pre := false
		if v := p.Kernels[0].Variant; strings.HasPrefix(v, "maxpool_b") || strings.HasPrefix(v, "maxpool_grid_b") { // a direct kernel
			taps := uint32(1)
			for _, w := range poolWindow(desc) {
				taps *= w
			}
			if got := strings.HasSuffix(p.Kernels[0].Variant, "_pre") || strings.Contains(p.Kernels[0].Variant, "_pre_x"); got != (taps <= 16) {
				t.Fatalf("%s: %d taps run %s", what, taps, p.Kernels[0].Variant)
			}
			pre = taps <= 16
		}
		return &asGPU{Desc: desc}, pre
	})
}

// poolWindow is a max pooling desc's window.
func poolWindow(d ops.Desc) []uint32 {
	switch p := d.(type) {
	case *ops.MaxPooling:
		return p.WindowSize
	case *ops.MaxPooling1:
		return p.WindowSize
	case *ops.MaxPooling2:
		return p.WindowSize
	}
	panic("not a max pooling")
}

// semantics.md rule 7a: with the global window (WindowSize equal to the
// input's spatial sizes, both paddings 0, every dilation 1), no indices
// output and an output extent of 1 on every spatial axis, DirectML runs a
// reduction from −∞, so a window of only NaN and −∞ gives −∞; with an
// indices output, a padding, a dilation or another extent it keeps rule
// 9's −FLT_MAX or −65504. These tests run such descs, and the controls, on
// every max pooling kernel a plan can pick.

// floatPatterns are the bit patterns of a float type the adversarial
// planes are built from.
type floatPatterns struct {
	negInf, posInf, lowest, negZero uint64
	nans                            []uint64 // quiet, negative with a payload, signalling
}

func patternsOf(dt tensor.DataType) floatPatterns {
	if dt == tensor.Float16 {
		return floatPatterns{negInf: 0xfc00, posInf: 0x7c00, lowest: 0xfbff, negZero: 0x8000, nans: []uint64{0x7e00, 0xfe01, 0x7c01}}
	}
	return floatPatterns{negInf: 0xff800000, posInf: 0x7f800000, lowest: fltMaxBits, negZero: 0x80000000, nans: []uint64{0x7fc00000, 0xffc00001, 0x7f800001}}
}

// noWinner returns n taps of only NaN and −∞, at least one of each when
// n > 1, in an order drawn from rng.
func (p floatPatterns) noWinner(rng *rand.Rand, n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		if rng.Intn(2) == 0 {
			v[i] = p.negInf
		} else {
			v[i] = p.nans[rng.Intn(len(p.nans))]
		}
	}
	if n > 1 {
		v[0], v[n-1] = p.negInf, p.nans[rng.Intn(len(p.nans))]
		rng.Shuffle(n, func(i, j int) { v[i], v[j] = v[j], v[i] })
	}
	return v
}

// adversarialPlanes returns one plane of n taps per pattern: only −∞,
// NaN and −∞ mixed, only NaN, NaN and −∞ around one lowest finite value,
// ±0 ties with −0 first and with +0 first, +∞ among NaN, and ordinary
// values with a NaN.
func adversarialPlanes(rng *rand.Rand, dt tensor.DataType, n int) [][]uint64 {
	p := patternsOf(dt)
	allNegInf := slices.Repeat([]uint64{p.negInf}, n)
	allNaN := make([]uint64, n)
	for i := range allNaN {
		allNaN[i] = p.nans[i%len(p.nans)]
	}
	around := func(vals ...uint64) []uint64 {
		v := p.noWinner(rng, n)
		at := rng.Perm(n)[:min(len(vals), n)]
		slices.Sort(at)
		for i, a := range at {
			v[a] = vals[i]
		}
		return v
	}
	ordinary := make([]uint64, n)
	for i := range ordinary {
		ordinary[i] = tensor.FromFloat64As(dt, []uint32{1}, []float64{float64(rng.Intn(200) - 100)}).Bits(0)
	}
	ordinary[rng.Intn(n)] = p.nans[0]
	return [][]uint64{allNegInf, p.noWinner(rng, n), allNaN, around(p.lowest), around(p.negZero, 0, p.negZero),
		around(0, p.negZero), around(p.posInf), ordinary}
}

// globalMaxBits is rule 7a's reduction of one (n, c) plane of in: the
// best starts at −∞ and a tap replaces it only when strictly greater (NaN
// never does), so ±0 ties keep the first zero (rule 11a).
func globalMaxBits(in *tensor.Tensor, n, c uint32) uint64 {
	best, bits := math.Inf(-1), patternsOf(in.Desc.DataType).negInf
	tensor.ForEachIndex(in.Desc.Sizes[2:], func(s []uint32) {
		co := append([]uint32{n, c}, s...)
		if v := in.Float64At(co...); v > best {
			best, bits = v, in.Bits(co...)
		}
	})
	return bits
}

// fillPlanes writes plane p's taps (row-major) into every (n, c) plane of
// t with n·C + c = p mod len(planes), and returns t.
func fillPlanes(t *tensor.Tensor, planes [][]uint64) *tensor.Tensor {
	sizes := t.Desc.Sizes
	tensor.ForEachIndex(sizes, func(co []uint32) {
		var tap int
		for i := 2; i < len(sizes); i++ {
			tap = tap*int(sizes[i]) + int(co[i])
		}
		p := (int(co[0])*int(sizes[1]) + int(co[1])) % len(planes)
		t.SetBits(co, planes[p][tap])
	})
	return t
}

// globalDesc is a max pooling of in into out with window win, strides
// str, paddings sp/ep and dilations dil (nil: 1), through op (MAX_POOLING,
// MAX_POOLING1 or MAX_POOLING2) and with indices of type it
// (tensor.Unknown: none).
func globalDesc(op string, in, out tensor.Desc, it tensor.DataType, win, str, sp, ep, dil []uint32) ops.Desc {
	var idx *tensor.Desc
	if it != tensor.Unknown {
		d := tensor.NewDesc(it, out.Sizes)
		idx = &d
	}
	switch {
	case op == "MAX_POOLING2" || dil != nil:
		if dil == nil {
			dil = slices.Repeat([]uint32{1}, len(win))
		}
		return &ops.MaxPooling2{Input: in, Output: out, OutputIndices: idx, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep, Dilations: dil}
	case op == "MAX_POOLING1" || idx != nil:
		return &ops.MaxPooling1{Input: in, Output: out, OutputIndices: idx, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
	}
	return &ops.MaxPooling{Input: in, Output: out, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
}

// globalRunner plans a desc as one of the max pooling kernels: want is
// the prefix its kernels' variant must have, and split whether its plan
// must bind windows of planes (split-n or split-c).
type globalRunner struct {
	name  string
	want  string
	split bool
	wrap  func(d *dml.Device, desc ops.Desc) ops.Desc
}

// globalRunners are every kernel a plan can pick for a max pooling:
// maxpool.comp with and without PRELOAD, whole or split over planes;
// maxpool_grid.comp with and without PRELOAD, in one dispatch or split
// over dispatches in y and z, and split over planes; and the planner's
// answer to a forced vec2x2, which never runs maxpool_vec.comp here.
func globalRunners() []globalRunner {
	noPreload := ops.Tuning{"poolPreloadTaps": "0"}
	grid := ops.Tuning{"poolGrid": "true", "poolGridMinLanes": "1"}
	split := func(d *dml.Device, desc ops.Desc) ops.Desc {
		plane, _, _ := poolSpans(desc)
		return limited{Desc: desc, rangeBytes: uint32(plane + max(d.GPU().Limits.MinStorageBufferOffsetAlignment, 4) + 8)}
	}
	forced := func(kernel string, devType caps.DeviceType, tu ops.Tuning) func(*dml.Device, ops.Desc) ops.Desc {
		return func(_ *dml.Device, desc ops.Desc) ops.Desc {
			return &testutil.ForcedPlan{Desc: desc, Kernel: kernel, DeviceType: devType, Tuning: tu}
		}
	}
	gpu := caps.DeviceTypeDiscreteGPU
	return []globalRunner{
		{"direct", "maxpool_b", false, forced("direct", caps.DeviceTypeOther, nil)},
		{"direct-no-preload", "maxpool_b", false, forced("direct", caps.DeviceTypeOther, noPreload)},
		{"direct-split", "maxpool_b", true, split},
		{"vec2x2 forced", "maxpool_b", false, forced(ops.MaxPoolStrategyVec2x2, caps.DeviceTypeOther, nil)},
		{"grid", "maxpool_grid_", false, forced("", gpu, grid)},
		{"grid-no-preload", "maxpool_grid_", false, forced("", gpu, grid.With(noPreload))},
		{"grid-yz-dispatches", "maxpool_grid_", false, func(_ *dml.Device, desc ops.Desc) ops.Desc { return &asGridGPU{Desc: desc, maxYZ: 1} }},
		{"grid-split", "maxpool_grid_", true, func(d *dml.Device, desc ops.Desc) ops.Desc {
			return split(d, &testutil.ForcedPlan{Desc: desc, DeviceType: gpu, Tuning: grid})
		}},
	}
}

// negInfStarts plans desc on d and reports whether its kernels start the
// best at −∞ (KIND's shaders.MaxPoolNegInfStart bit), failing t when the
// plan's kernels are not r's or do not agree.
func (r globalRunner) negInfStarts(t *testing.T, d *dml.Device, desc ops.Desc) bool {
	t.Helper()
	ctx := testutil.PlanContext(d)
	if err := desc.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.split && !strings.HasPrefix(p.Strategy, "split-") {
		t.Fatalf("plan %s, want a split over planes", p.Strategy)
	}
	var starts []bool
	for _, k := range p.Kernels {
		if !strings.HasPrefix(k.Variant, r.want) {
			t.Fatalf("plan %s runs %s, want %s*", p.Strategy, k.Variant, r.want)
		}
		v, err := shaders.Lookup(k.Variant)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(v.Spec, "KIND")
		if i < 0 {
			t.Fatalf("%s declares no KIND", k.Variant)
		}
		starts = append(starts, k.Spec[i]&shaders.MaxPoolNegInfStart != 0)
	}
	if len(starts) == 0 || slices.Contains(starts, !starts[0]) {
		t.Fatalf("kernels' −∞ starts %v", starts)
	}
	return starts[0]
}

// runGlobal runs desc on in with every runner: its kernels must start at
// −∞ exactly when wantNegInf, its outputs must equal the CPU reference's,
// and check sees each runner's values.
func runGlobal(t *testing.T, d *dml.Device, rng *rand.Rand, desc ops.Desc, in *tensor.Tensor, wantNegInf bool, check func(t *testing.T, out *tensor.Tensor)) {
	t.Helper()
	plane, _, total := poolSpans(desc)
	for _, r := range globalRunners() {
		if r.split && total <= plane {
			// One plane, or a broadcast input whose every (n, c) reads
			// the same bytes: a window that holds a plane holds the
			// whole tensor, so there is nothing to split.
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			w := r.wrap(d, desc)
			if got := r.negInfStarts(t, d, w); got != wantNegInf {
				t.Fatalf("kernels start at −∞: %v, want %v", got, wantNegInf)
			}
			res := testutil.CheckOperator(t, d, w, []*tensor.Tensor{in}, rng)
			check(t, res.Outputs[0])
		})
	}
}

// planeBits are the output bits of each (n, c) plane's first output.
func planeBits(out *tensor.Tensor) []uint64 {
	var bits []uint64
	zeros := make([]uint32, len(out.Desc.Sizes)-2)
	for n := uint32(0); n < out.Desc.Sizes[0]; n++ {
		for c := uint32(0); c < out.Desc.Sizes[1]; c++ {
			bits = append(bits, out.Bits(append([]uint32{n, c}, zeros...)...))
		}
	}
	return bits
}

// globalShape is an input's spatial sizes and the strides to pool it
// with (any: the one window covers the input).
type globalShape struct {
	in, strides []uint32
}

// globalShapes: windows of 4 taps (PRELOAD), 35 (no PRELOAD), one tap
// (1x1: DirectML's reduction too), an axis of 1, and 5D.
var globalShapes = []globalShape{
	{[]uint32{2, 2}, []uint32{1, 1}},
	{[]uint32{5, 7}, []uint32{3, 5}},
	{[]uint32{1, 1}, []uint32{1, 1}},
	{[]uint32{1, 6}, []uint32{2, 1}},
	{[]uint32{2, 3, 2}, []uint32{1, 2, 3}},
}

// TestMaxPoolGlobalNoWinner: the global window at extent 1 without
// indices, through MAX_POOLING, MAX_POOLING1 and MAX_POOLING2, on
// FLOAT32 and FLOAT16 planes of only −∞, of NaN and −∞, of only NaN
// (−∞ on every kernel), and around a lowest finite value, ±0 ties, +∞
// and ordinary values (their own maximum; a ±0 tie its first zero).
func TestMaxPoolGlobalNoWinner(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		p := patternsOf(dt)
		for si, sh := range globalShapes {
			for oi, op := range []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"} {
				taps := 1
				for _, s := range sh.in {
					taps *= int(s)
				}
				planes := adversarialPlanes(rng, dt, taps)
				if taps == 1 { // a window of one tap: each pattern's own tap
					planes = [][]uint64{{p.negInf}, {p.nans[1]}, {p.nans[2]}, {p.lowest}, {p.negZero}, {0}, {p.posInf}, {p.nans[0]}}
				}
				n := uint32(1 + (si+oi)%2)
				inSizes := append([]uint32{n, uint32(len(planes))}, sh.in...)
				outSizes := append([]uint32{n, uint32(len(planes))}, slices.Repeat([]uint32{1}, len(sh.in))...)
				in := fillPlanes(tensor.New(dt, inSizes...), planes)
				zero := make([]uint32, len(sh.in))
				desc := globalDesc(op, in.Desc, tensor.NewDesc(dt, outSizes), tensor.Unknown, sh.in, sh.strides, zero, zero, nil)
				var want []uint64
				for i := uint32(0); i < n*uint32(len(planes)); i++ {
					want = append(want, globalMaxBits(in, i/uint32(len(planes)), i%uint32(len(planes))))
				}
				for i, b := range want {
					// Planes 0-2 have no winner, and the 1x1 window's NaN plane.
					if i%len(planes) < 3 && b != p.negInf {
						t.Fatalf("the oracle gives %#x for plane %d, want −∞", b, i)
					}
				}
				t.Run(fmt.Sprintf("%v/%s/in%v", dt, op, inSizes), func(t *testing.T) {
					runGlobal(t, d, rng, desc, in, true, func(t *testing.T, out *tensor.Tensor) {
						if got := planeBits(out); !slices.Equal(got, want) {
							t.Errorf("bits %#x, want %#x", got, want)
						}
					})
				})
			}
		}
	}
}

// TestMaxPoolGlobalControls: the same planes where one condition of rule
// 7a fails keep rule 9's lowest finite value in the windows without a
// winner: an indices output (UINT32, UINT64), an end padding, a dilation
// of 2 (also on an axis whose window is 1), an extent of 2 on one axis,
// and a window one smaller than the input.
func TestMaxPoolGlobalControls(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in2 := []uint32{3, 4}
	zero := []uint32{0, 0}
	type control struct {
		name          string
		in            []uint32
		op            string
		it            tensor.DataType
		out, win, str []uint32
		sp, ep, dil   []uint32
	}
	controls := []control{
		{"indices UINT32", in2, "MAX_POOLING1", tensor.UInt32, []uint32{1, 1}, in2, []uint32{1, 1}, zero, zero, nil},
		{"indices UINT64", in2, "MAX_POOLING2", tensor.UInt64, []uint32{1, 1}, in2, []uint32{2, 1}, zero, zero, []uint32{1, 1}},
		{"end padding", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 1}, in2, []uint32{2, 2}, zero, []uint32{0, 1}, nil},
		{"dilation 2", in2, "MAX_POOLING2", tensor.Unknown, []uint32{1, 1}, in2, []uint32{1, 1}, zero, zero, []uint32{2, 1}},
		{"dilation 2 on a window of 1", []uint32{1, 4}, "MAX_POOLING2", tensor.Unknown, []uint32{1, 1}, []uint32{1, 4}, []uint32{1, 1}, zero, zero, []uint32{2, 1}},
		{"extent 1x2", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 2}, in2, []uint32{1, 1}, zero, zero, nil},
		{"window smaller than the input", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 1}, []uint32{3, 3}, []uint32{1, 1}, zero, zero, nil},
	}
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		p := patternsOf(dt)
		for _, c := range controls {
			taps := int(c.in[0] * c.in[1])
			planes := adversarialPlanes(rng, dt, taps)[:3] // no winner in any window
			inSizes := append([]uint32{2, 3}, c.in...)
			in := fillPlanes(tensor.New(dt, inSizes...), planes)
			desc := globalDesc(c.op, in.Desc, tensor.NewDesc(dt, append([]uint32{2, 3}, c.out...)), c.it, c.win, c.str, c.sp, c.ep, c.dil)
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				runGlobal(t, d, rng, desc, in, false, func(t *testing.T, out *tensor.Tensor) {
					tensor.ForEachIndex(out.Desc.Sizes, func(co []uint32) {
						if b := out.Bits(co...); b != p.lowest {
							t.Fatalf("at %v: bits %#x, want the lowest finite value %#x", co, b, p.lowest)
						}
					})
				})
			})
		}
	}
}

// TestMaxPoolGlobalIntegers: the global window at extent 1 without
// indices on every integer type keeps its kernels' start (the type's
// minimum, which DirectML's reduction starts from too): a plane of only
// the minimum gives the minimum, others their maximum.
func TestMaxPoolGlobalIntegers(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range tensor.AllTypes {
		if dt.IsFloat() {
			continue
		}
		t.Run(dt.String(), func(t *testing.T) {
			minBits := ops.LowestFinite(dt)
			in := tensor.New(dt, 2, 3, 2, 3)
			var want []uint64
			for n := uint32(0); n < 2; n++ {
				for c := uint32(0); c < 3; c++ {
					best := minBits
					tensor.ForEachIndex([]uint32{2, 3}, func(s []uint32) {
						co := []uint32{n, c, s[0], s[1]}
						b := minBits
						if (n*3+c)%3 != 0 {
							b = special(rng, dt)
						}
						in.SetBits(co, b)
					})
					if (n*3+c)%3 != 0 {
						best = maxIntBits(in, n, c)
					}
					want = append(want, best)
				}
			}
			desc := globalDesc("MAX_POOLING", in.Desc, tensor.NewDesc(dt, []uint32{2, 3, 1, 1}), tensor.Unknown, []uint32{2, 3}, []uint32{1, 1}, []uint32{0, 0}, []uint32{0, 0}, nil)
			runGlobal(t, d, rng, desc, in, false, func(t *testing.T, out *tensor.Tensor) {
				if got := planeBits(out); !slices.Equal(got, want) {
					t.Errorf("bits %#x, want %#x", got, want)
				}
			})
		})
	}
}

// maxIntBits is the bits of the largest element of plane (n, c) of an
// integer tensor.
func maxIntBits(in *tensor.Tensor, n, c uint32) uint64 {
	var bits, u uint64
	var i int64
	first := true
	tensor.ForEachIndex(in.Desc.Sizes[2:], func(s []uint32) {
		co := append([]uint32{n, c}, s...)
		if in.Desc.DataType.IsSigned() {
			if v := in.Int64At(co...); first || v > i {
				i, bits = v, in.Bits(co...)
			}
		} else if v := in.Uint64At(co...); first || v > u {
			u, bits = v, in.Bits(co...)
		}
		first = false
	})
	return bits
}

// TestMaxPoolGlobalRandom: random global windows at extent 1 without
// indices (2 or 3 spatial axes, sizes 1-6, 1-3 batches and channels, any
// strides, strided layouts, MAX_POOLING, MAX_POOLING1 or MAX_POOLING2)
// over fresh FLOAT32 and FLOAT16 inputs whose planes are drawn from
// windows without a winner, rule 9's special values and mixes of both,
// on every kernel, against the reduction from −∞.
func TestMaxPoolGlobalRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := testutil.CaseCount(12, 5)
	for i := 0; i < n; i++ {
		dt := []tensor.DataType{tensor.Float32, tensor.Float16}[i%2]
		p := patternsOf(dt)
		dims := 2 + rng.Intn(2)
		inSizes := []uint32{uint32(1 + rng.Intn(3)), uint32(1 + rng.Intn(3))}
		var str []uint32
		for j := 0; j < dims; j++ {
			inSizes = append(inSizes, uint32(1+rng.Intn(6-2*(dims-2))))
			str = append(str, uint32(1+rng.Intn(4)))
		}
		outSizes := append(slices.Clone(inSizes[:2]), slices.Repeat([]uint32{1}, dims)...)
		inSt, inLayout := layoutStrides(rng, inSizes, true)
		outSt, outLayout := layoutStrides(rng, outSizes, false)
		in := &tensor.Tensor{Desc: tensor.NewStridedDesc(dt, inSizes, inSt)}
		in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
		rng.Read(in.Data)
		taps := 1
		for _, s := range inSizes[2:] {
			taps *= int(s)
		}
		planes := make([][]uint64, inSizes[0]*inSizes[1])
		for k := range planes {
			switch rng.Intn(3) {
			case 0:
				planes[k] = p.noWinner(rng, taps)
			case 1:
				planes[k] = make([]uint64, taps)
				for j := range planes[k] {
					planes[k][j] = special(rng, dt)
				}
			default:
				planes[k] = p.noWinner(rng, taps)
				planes[k][rng.Intn(taps)] = special(rng, dt)
			}
		}
		fillPlanes(in, planes)
		zero := make([]uint32, dims)
		op := []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"}[rng.Intn(3)]
		desc := globalDesc(op, in.Desc, tensor.NewStridedDesc(dt, outSizes, outSt), tensor.Unknown, inSizes[2:], str, zero, zero, nil)
		var want []uint64
		for k := uint32(0); k < inSizes[0]*inSizes[1]; k++ {
			want = append(want, globalMaxBits(in, k/inSizes[1], k%inSizes[1]))
		}
		t.Run(fmt.Sprintf("%d/%v/%s/in%v/str%v/%s-%s", i, dt, op, inSizes, str, inLayout, outLayout), func(t *testing.T) {
			runGlobal(t, d, rng, desc, in, true, func(t *testing.T, out *tensor.Tensor) {
				if got := planeBits(out); !slices.Equal(got, want) {
					t.Errorf("bits %#x, want %#x", got, want)
				}
			})
		})
	}
}
