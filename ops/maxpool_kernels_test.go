//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
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

// asGridGPU plans a desc as for a discrete GPU with every direct plan on
// maxpool_grid.comp (tiles of any size), and with the device's
// maxComputeWorkGroupCount in y and z lowered to maxYZ (0: the device's),
// so that small tensors split their planes and rows over dispatches as
// large ones split past 65535.
type asGridGPU struct {
	ops.Desc
	maxYZ uint32
}

func (g *asGridGPU) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	c.DeviceType = caps.DeviceTypeDiscreteGPU
	c.Tuning = ops.Tuning{"poolGrid": "true", "poolGridMinLanes": "1"}
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
		gd := &asGridGPU{Desc: desc}
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
			if got := strings.HasSuffix(p.Kernels[0].Variant, "_pre"); got != (taps <= 16) {
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
