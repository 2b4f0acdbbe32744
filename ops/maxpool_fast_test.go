//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

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
	n := 40
	if testing.Short() {
		n = 16
	}
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
