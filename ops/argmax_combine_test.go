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
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// argManySegmentsCase is a reduction whose GPU plan cuts each block into
// at least 32 segments, so that a workgroup per output combines the
// partials: a few long rows (split-K, 32 to ~90 segments of one block) or
// columns over axis 0 (the column split), with values set by
// argColSplitFill so that ties, NaN and the extremes fall on both sides of
// segment boundaries and of the combine's lanes (whose partials counts are
// not powers of two).
func argManySegmentsCase(rng *rand.Rand, dt tensor.DataType, pattern, layout string) argCase {
	var sizes, axes []uint32
	switch layout {
	case "rows":
		sizes, axes = []uint32{uint32(1 + rng.Intn(3)), uint32(32*4096 + rng.Intn(60*4096))}, []uint32{1}
	case "cols":
		rows := uint32(32*512/dt.Size()) + uint32(rng.Intn(4096))
		sizes, axes = []uint32{rows, uint32(3 + 2*rng.Intn(5))}, []uint32{0}
	}
	in := argInput(dt, sizes, nil)
	argColSplitFill(rng, in, axes, pattern)
	return argDrawCase(rng, layout+" ", in, axes, pattern, "packed", "padded")
}

// TestArgGroupCombineGPU runs, on lavapipe, GPU plans whose combine pass
// gives each output a workgroup (argmax_combine_group.comp, with subgroup
// arithmetic and with shared memory only) against the CPU reference: all
// ten types, both directions, ARGMAX, ARGMIN and REDUCE, every index type,
// adversarial values across segments. Each case's GPU plan must end with
// the workgroup combine, no lane of which loops over more than 64
// partials.
func TestArgGroupCombineGPU(t *testing.T) {
	for _, name := range []string{"subgroup", "shared"} {
		t.Run(name, func(t *testing.T) {
			opts := dml.DeviceOptions{}
			want := shaders.ArgMaxCombineGroupSG
			if name == "shared" {
				opts.Disable, want = caps.Features{SubgroupArithmetic: true}, shaders.ArgMaxCombineGroup
			}
			d := testutil.OpenDML(t, opts)
			rng := testutil.Rand(t)
			used := map[string]int{}
			for ti, dt := range tensor.AllTypes {
				for pi := 0; pi < 4; pi++ {
					pattern := argColSplitPatterns[(ti+pi)%len(argColSplitPatterns)]
					layout := []string{"rows", "cols"}[pi%2]
					c := argManySegmentsCase(rng, dt, pattern, layout)
					gctx, p := gpuPlan(t, d, c.desc, "", c.what)
					k := p.Kernels[len(p.Kernels)-1]
					if k.Variant != want {
						t.Fatalf("%s: GPU plan %q ends with %s, want %s", c.what, p.Strategy, k.Variant, want)
					}
					for _, f := range argPlanFacts(t, gctx, p) {
						if f.SerialPartials > 64 {
							t.Fatalf("%s: %v", c.what, f)
						}
					}
					used[fmt.Sprintf("%s/wg%d", layout, k.Spec[0])]++
					c.desc = &asGPU{Desc: c.desc}
					argCheckCase(t, d, c, "", rng)
				}
			}
			t.Logf("combines (layout/workgroup): %v", used)
			for _, l := range []string{"rows/", "cols/"} {
				n := 0
				for k, v := range used {
					if strings.HasPrefix(k, l) {
						n += v
					}
				}
				if n == 0 {
					t.Errorf("no %s case: %v", l, used)
				}
			}
		})
	}
}

// TestArgRowSplitGPU runs, on lavapipe, GPU plans that cut each of a few
// long contiguous rows into segments so that the device gets enough
// workgroups (tuning.argRowGroupsPerCU; more rows than split-K takes),
// against the CPU reference: all ten types, adversarial values across the
// segment boundaries, with and without subgroup arithmetic. Each case's
// GPU plan must split the rows (a vec-row or group first pass into
// partials, then a combine) where lavapipe's own plan does not.
func TestArgRowSplitGPU(t *testing.T) {
	for _, name := range []string{"subgroup", "shared"} {
		t.Run(name, func(t *testing.T) {
			opts := dml.DeviceOptions{}
			if name == "shared" {
				opts.Disable = caps.Features{SubgroupArithmetic: true}
			}
			d := testutil.OpenDML(t, opts)
			rng := testutil.Rand(t)
			used := map[string]int{}
			for ti, dt := range tensor.AllTypes {
				for pi := 0; pi < 2; pi++ {
					pattern := argColSplitPatterns[(2*ti+pi)%len(argColSplitPatterns)]
					rows := uint32(65 + rng.Intn(30))
					n := uint32(3*8192/dt.Size()) + uint32(rng.Intn(5000))
					in := argInput(dt, []uint32{rows, n}, nil)
					argColSplitFill(rng, in, []uint32{1}, pattern)
					c := argDrawCase(rng, "rows ", in, []uint32{1}, pattern, "packed", "padded")
					_, p := gpuPlan(t, d, c.desc, "", c.what)
					if p.TemporarySize == 0 || len(p.Kernels) != 2 {
						t.Fatalf("%s: GPU plan %q with kernels %v does not split the rows", c.what, p.Strategy, p.Kernels)
					}
					if d.GPU().Info.Type == caps.DeviceTypeCPU {
						if cp, err := c.desc.Plan(argContext(d)); err != nil || len(cp.Kernels) != 1 {
							t.Fatalf("%s: lavapipe's plan split the rows (%v): %v", c.what, err, cp)
						}
					}
					used[p.Strategy+"/"+p.Kernels[0].Variant]++
					c.desc = &asGPU{Desc: c.desc}
					argCheckCase(t, d, c, "", rng)
				}
			}
			t.Logf("first passes: %v", used)
		})
	}
}

// TestArgColLoadsGPU runs, on lavapipe, the GPU plans of 8-, 16- and
// 64-bit column reductions, whose vec-col lanes load four block positions
// before scanning them (argmax_vec_col.comp LOADS 4) over segments cut
// from the bytes in flight, against the CPU reference: columns, middle
// axes and two separated reduced axes (the odometer path), block and
// segment lengths with every remainder mod 4, and adversarial values
// (ties, NaN first, all equal, ±0) across rows, segments and loads.
func TestArgColLoadsGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	used := map[string]int{}
	for ti, dt := range tensor.AllTypes {
		if dt.Size() == 4 {
			continue
		}
		per := uint32(16 / dt.Size())
		for pi := 0; pi < 4; pi++ {
			pattern := argColSplitPatterns[(ti+pi)%len(argColSplitPatterns)]
			cols := per * uint32(1+rng.Intn(3))
			nred := uint32(300 + rng.Intn(3000))
			var sizes, axes []uint32
			switch layout := []string{"col", "middle", "multi", "col"}[pi]; layout {
			case "col":
				sizes, axes = []uint32{nred, cols}, []uint32{0}
			case "middle":
				sizes, axes = []uint32{2, nred, cols}, []uint32{1}
			case "multi":
				r2 := uint32(3 + 2*rng.Intn(3))
				sizes, axes = []uint32{nred/r2 + 1, 2, r2, cols}, []uint32{0, 2}
			}
			in := argInput(dt, sizes, nil)
			argColSplitFill(rng, in, axes, pattern)
			c := argDrawCase(rng, "", in, axes, pattern, "packed", "padded")
			// Forced: a GPU's tuning gives 8- and 16-bit columns of few
			// outputs to thread (argVecColMinOutputs).
			gctx, p := gpuPlan(t, d, c.desc, ops.ArgStrategyVec, c.what)
			if v := p.Kernels[0].Variant; v != shaders.ArgMaxVecName(8*int(dt.Size()), shaders.ArgMaxVecColX4) {
				t.Fatalf("%s: GPU plan %q runs %s, want the four-load vec-col", c.what, p.Strategy, v)
			}
			f := argPlanFacts(t, gctx, p)
			if f[0].BytesPerLaneInFlight != 64 {
				t.Fatalf("%s: %v, want 64 bytes a lane in flight", c.what, f[0])
			}
			used[fmt.Sprintf("%d-bit/%d kernels", 8*dt.Size(), len(p.Kernels))]++
			c.desc = &asGPU{Desc: c.desc, kernel: ops.ArgStrategyVec}
			argCheckCase(t, d, c, "", rng)
		}
	}
	t.Logf("cases: %v", used)
}

// TestArgRowSubgroupsGPU runs, on lavapipe, the GPU plans of short
// contiguous rows, which give each row a subgroup (argmax_vec_row.comp
// ROWS, full subgroups of the device's size), against the CPU reference:
// all ten types, rows from 256 elements (the group strategy's least) to
// half a workgroup of vector loads, with heads and tails (padded row
// strides), row counts that leave the last workgroup's subgroups partly
// without a row, and adversarial values across lanes and vectors. Every
// width must run the subgroup variant.
func TestArgRowSubgroupsGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	used := map[string]int{}
	for ti, dt := range tensor.AllTypes {
		vw := 16 / int(dt.Size())
		if dt.Size() == 4 {
			vw = 8 // row64's 32-byte loads
		}
		for pi := 0; pi < 4; pi++ {
			pattern := argColSplitPatterns[(ti+pi)%len(argColSplitPatterns)]
			hi := max(128*vw-vw, 256) // room for a head and a tail
			n := uint32(256 + rng.Intn(hi-256+1))
			rows := uint32(3 + rng.Intn(70))
			var strides []uint32
			if pi%2 == 1 {
				strides = []uint32{n + uint32(rng.Intn(5)), 1}
			}
			in := argInput(dt, []uint32{rows, n}, strides)
			argColSplitFill(rng, in, []uint32{1}, pattern)
			c := argDrawCase(rng, "", in, []uint32{1}, pattern, "packed", "padded")
			gctx, p := gpuPlan(t, d, c.desc, "", c.what)
			k := p.Kernels[0]
			if strings.HasSuffix(k.Variant, "sub") {
				if !k.FullSubgroups || k.SubgroupSize != gctx.Limits.SubgroupSize {
					t.Fatalf("%s: %+v does not require full subgroups of the device's size", c.what, k)
				}
				used[fmt.Sprintf("%d-bit", 8*dt.Size())]++
			}
			c.desc = &asGPU{Desc: c.desc}
			argCheckCase(t, d, c, "", rng)
		}
	}
	t.Logf("cases with a subgroup per row: %v", used)
	for _, b := range []string{"8-bit", "16-bit", "32-bit", "64-bit"} {
		if used[b] == 0 {
			t.Errorf("no %s case ran a subgroup per row: %v", b, used)
		}
	}
}
