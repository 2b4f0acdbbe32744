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
	ctx := argContext(d)
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
	eachPoolStorage(t, func(t *testing.T, d *dml.Device, rng *rand.Rand) {
		g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}
		split := 0
		for i := 0; i < 80; i++ {
			desc, in, what := g.randomPool(rng)
			gd := &asGridGPU{Desc: desc, maxYZ: uint32(i % 4)}
			v, steps := gridVariant(t, d, gd, what)
			if !strings.HasPrefix(v, "maxpool_grid_") && !strings.HasPrefix(v, "maxpool_vec") {
				t.Fatalf("%s: the GPU plan runs %s", what, v)
			}
			if steps > 1 {
				split++
			}
			testutil.CheckOperator(t, d, gd, []*tensor.Tensor{in}, rng)
		}
		if split < 10 {
			t.Errorf("only %d of 80 cases split over dispatches", split)
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
