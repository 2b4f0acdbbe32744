package ops_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// TestArgRowTexel: vec-row's one-subgroup scan reading its input as a
// uniform texel buffer (the tuning knob argRowTexel, lavapipe's choice)
// gives the reference's bits, as the storage-buffer scan does, for every
// function it takes on 32-bit elements (ARGMAX, ARGMIN, and REDUCE's
// exact functions): whole tensors and long rows (split-K segments), rows
// of a few hundred with padded strides (heads and tails off the 32-byte
// vectors), NaN, ±0, ties and the types' extremes at lane and vector
// boundaries (reducePatterns), and small binding windows (views from an
// offset inside their block, and windows across allocations). Each case
// runs with the knob on (with and without the load filter, ROW_FILTER)
// and off, and the plans must be the texel variant and not. Run it at LP_NATIVE_VECTOR_WIDTH=128, 256 and 512 (subgroups of
// 4, 8 and 16) to cover every lane count.
func TestArgRowTexel(t *testing.T) {
	devices := testutil.WindowDevices(t)
	if f := testutil.PlanContext(devices(0)).Features; !f.SubgroupArithmetic || !f.SubgroupSizeControl || !f.ComputeFullSubgroups {
		t.Skip("the device has no one-subgroup vec-row scan")
	}
	rng := testutil.Rand(t)
	n := testutil.CaseCount(24, 8)
	used := map[string]int{}
	for i := range n {
		var window uint64 // the binding window cap, 0 for none
		f := reduceValueFns[rng.Intn(len(reduceValueFns))]
		types := []tensor.DataType{tensor.Int32, tensor.UInt32}
		if reduceExtreme(f) {
			types = append(types, tensor.Float32)
		}
		dt := types[rng.Intn(len(types))]
		pattern := reducePatterns[rng.Intn(len(reducePatterns))]
		var c argCase
		switch i % 4 {
		case 0: // a whole tensor: split-K
			c = reduceCase(rng, f, argInput(dt, []uint32{uint32(60000 + rng.Intn(20000))}, nil), []uint32{0}, pattern, "packed")
		case 1:
			c = reduceRowsCase(rng, f, dt, uint32(1+rng.Intn(5)), uint32(256+rng.Intn(1200)), pattern)
		case 2:
			c = argVecCase(rng, "row", 3000)
		case 3: // small windows
			window = []uint64{4096, 16384}[rng.Intn(2)]
			c = reduceRowsCase(rng, f, dt, uint32(1+rng.Intn(8)), uint32(100+rng.Intn(600)), pattern)
		}
		d := devices(window)
		ctx := testutil.PlanContext(d)
		ctx.BindingWindowCap = window
		for _, run := range []struct{ texel, filter bool }{{true, false}, {true, true}, {false, false}} {
			texel := run.texel
			desc := &testutil.ForcedPlan{Desc: c.desc, Kernel: ops.ArgStrategyVec,
				Tuning: ops.Tuning{"argRowTexel": fmt.Sprint(texel), "argRowFilter": fmt.Sprint(run.filter)}}
			p, err := desc.Plan(ctx)
			if errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
				used["refused"]++ // tiny windows can exceed the step or partial limits
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			variant := p.Kernels[0].Variant
			used[variant]++
			if variant == shaders.ArgMaxVecRowTexelSG1 && rowFilterSet(t, p.Kernels[0]) {
				used["texel with ROW_FILTER"]++
			}
			if isTexel := variant == shaders.ArgMaxVecRowTexelSG1; isTexel != (texel && p.Strategy == "vec-row" && isTexelShape(p)) {
				t.Errorf("%s: argRowTexel=%v planned %s %s", c.what, texel, p.Strategy, variant)
			}
			argCheckCase(t, d, argCase{desc: desc, in: c.in, what: fmt.Sprintf("%s, argRowTexel=%v", c.what, texel)}, "", rng)
		}
	}
	t.Logf("first-pass variants: %v", used)
	if used[shaders.ArgMaxVecRowTexelSG1] < n {
		t.Errorf("the texel scan ran %d of %d cases (twice each): %v", used[shaders.ArgMaxVecRowTexelSG1], n, used)
	}
	// The load filter (argRowFilter, a GPU knob a user may set here too)
	// has its own texel loop; TestArgRowRisingBestGPU leaves it to this
	// test, its plans being the GPU's.
	if used["texel with ROW_FILTER"] == 0 {
		t.Errorf("no case ran the texel scan with ROW_FILTER: %v", used)
	}
}

// isTexelShape reports whether p's first pass has the texel scan's shape:
// one-subgroup vec-row workgroups (a required subgroup size) over 32-bit
// elements, the only plans argRowTexel changes.
func isTexelShape(p *ops.Plan) bool {
	k := p.Kernels[0]
	return k.SubgroupSize != 0 && (k.Variant == shaders.ArgMaxVecRowTexelSG1 || k.Variant == shaders.ArgMaxVecRow64SG1 || k.Variant == shaders.ArgMaxVecRowSG1)
}
