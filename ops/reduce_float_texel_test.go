//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// TestReduceFloatTexel: the FLOAT32 float functions' first passes reading
// their input as a uniform texel buffer (the tuning knob
// reduceFloatTexel, lavapipe's choice; argmax.comp TEXEL) give the
// reference's bits, as the storage-buffer passes do: whole tensors
// (split-K segments, whose starts fall anywhere in a texel), rows of a
// few hundred with padded strides (texel_scan's heads and tails), columns
// (the thread kernel, which keeps storage buffers), small binding
// windows (views from an offset inside a block) and random shapes
// (several reduced dimensions: one texel fetch an element), with
// reduceFloatValue's patterns (cancelling terms, huge and tiny
// magnitudes, denormals, ±0, ±Inf, NaN) and laneWindowValue's (terms just inside and outside a lane's window,
// which leave the fast scan mid-trip). Each case runs with the knob on,
// and with VKDML_LONG=1 off too, on the planner's strategy and (without
// -short) a forced one in turn; the group plans must be the texel variants and not. Run it at
// LP_NATIVE_VECTOR_WIDTH=128, 256 and 512 (4, 8 and 16 lanes a subgroup).
func TestReduceFloatTexel(t *testing.T) {
	devices := testutil.WindowDevices(t)
	if !ops.TexelFits(testutil.PlanContext(devices(0)).Limits) {
		t.Skip("the device's texel buffers cannot hold a binding window")
	}
	rng := testutil.Rand(t)
	// Each case compiles its own pipelines, 5 to 10 s on lavapipe: CI's
	// full run takes one case of each kind with the knob on (the
	// storage-buffer passes run in every test that forces a GPU plan),
	// VKDML_LONG=1 two of each, on and off.
	n := testutil.CaseCount(5, 2)
	knobs := []bool{true}
	if testutil.Long() {
		n, knobs = 10, []bool{true, false}
	}
	forced := []string{ops.ArgStrategyThread, ops.ArgStrategyGroup, ops.ArgStrategySplitK}
	patterns := append(append([]string{}, reduceFloatPatterns...), "edges", "up", "extremes", "top", "bottom")
	used := map[string]int{}
	for i := range n {
		if testing.Short() && i%5 != 1 {
			// Each case compiles its own pipelines, 5 to 10 s on
			// lavapipe: -short runs the rows of SUM (every pattern, a
			// row each: texel_scan). The other float tests run the
			// texel variants too on lavapipe, the planner's choice.
			continue
		}
		f := reduceFloatFns[rng.Intn(len(reduceFloatFns))]
		if testing.Short() {
			f = ops.ReduceFunctionSum
		}
		pattern := patterns[(i*7+rng.Intn(2))%len(patterns)]
		var window uint64 // the binding window cap, 0 for none
		var c argCase
		switch i % 5 {
		case 0: // a whole tensor: split-K
			c = reduceFloatTexelCase(rng, f, argInput(tensor.Float32, []uint32{uint32(60000 + rng.Intn(20000))}, nil), []uint32{0}, pattern)
		case 1: // rows of every pattern, padded or not: every head and tail
			// A row stride that is not a multiple of 4 starts rows
			// inside a texel: texel_scan's heads (review: a stride of
			// 4k, as VKDML_SEED=4 drew, folded none).
			rows, m := uint32(len(patterns)), uint32(256+rng.Intn(1200))|1
			var strides []uint32
			if rng.Intn(4) != 0 {
				strides = []uint32{m + uint32(1+rng.Intn(5)), 1}
				if strides[0]%4 == 0 {
					strides[0]++
				}
			}
			c = reduceFloatTexelCase(rng, f, argInput(tensor.Float32, []uint32{rows, m}, strides), []uint32{1}, pattern)
			for r, rp := range patterns {
				row := reduceFloatTexelCase(rng, f, argInput(tensor.Float32, []uint32{m}, nil), []uint32{0}, rp)
				for j := range m {
					c.in.SetBits([]uint32{uint32(r), j}, row.in.Bits(j))
				}
			}
			c.what += fmt.Sprintf(" (row r: pattern %v[r])", patterns)
		case 2: // columns: the thread kernel
			c = reduceFloatTexelCase(rng, f, argInput(tensor.Float32, []uint32{uint32(1000 + rng.Intn(3000)), uint32(3 + 2*rng.Intn(6))}, nil), []uint32{0}, pattern)
		case 3: // small windows
			window = []uint64{4096, 16384}[rng.Intn(2)]
			c = reduceFloatTexelCase(rng, f, argInput(tensor.Float32, []uint32{uint32(1 + rng.Intn(8)), uint32(100 + rng.Intn(600))}, nil), []uint32{1}, pattern)
		case 4:
			sizes, axes := argRandomShape(rng, 3000)
			c = reduceFloatTexelCase(rng, f, argInput(tensor.Float32, sizes, argLayout(rng, sizes, argLayoutModes[rng.Intn(len(argLayoutModes))])), axes, pattern)
		}
		d := devices(window)
		ctx := testutil.PlanContext(d)
		ctx.BindingWindowCap = window
		for _, texel := range knobs {
			strats := []string{"", forced[i%len(forced)]}
			if testing.Short() {
				strats = strats[:1]
			}
			for _, strat := range strats {
				desc := &testutil.ForcedPlan{Desc: c.desc, Kernel: strat, Tuning: ops.Tuning{"reduceFloatTexel": fmt.Sprint(texel)}}
				p, err := desc.Plan(ctx)
				if errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
					used["refused"]++ // tiny windows can exceed the step or partial limits
					continue
				}
				if err != nil {
					t.Fatalf("%s [%q]: %v", c.what, strat, err)
				}
				variant := p.Kernels[0].Variant
				used[variant]++
				group := strings.Contains(variant, shaders.ArgMaxGroup)
				want := texel && group && f != ops.ReduceFunctionLogSumExp // LOG_SUM_EXP keeps storage buffers
				if isTexel := strings.HasSuffix(variant, shaders.ReduceFloatTexel); isTexel != want {
					t.Errorf("%s [%q]: reduceFloatTexel=%v planned %s", c.what, strat, texel, variant)
				}
				argCheckCase(t, d, argCase{desc: desc, in: c.in, what: fmt.Sprintf("%s, reduceFloatTexel=%v", c.what, texel)}, "", rng)
			}
		}
	}
	t.Logf("first-pass variants: %v", used)
	// A device whose texel buffers cannot hold a binding window keeps the
	// storage-buffer passes, whatever the knob says.
	small := testutil.PlanContext(devices(0))
	small.Limits.MaxTexelBufferElements = 65536
	for _, sizes := range [][]uint32{{64, 4096}, {1 << 20}} {
		axes := []uint32{uint32(len(sizes) - 1)}
		c := reduceFloatCase(rng, ops.ReduceFunctionSum, argInput(tensor.Float32, sizes, nil), axes, reduceFloatPatterns[0])
		desc := &testutil.ForcedPlan{Desc: c.desc, Tuning: ops.Tuning{"reduceFloatTexel": "true"}}
		p, err := desc.Plan(small)
		if err != nil {
			t.Fatalf("%s, maxTexelBufferElements 65536: %v", c.what, err)
		}
		if v := p.Kernels[0].Variant; strings.HasSuffix(v, shaders.ReduceFloatTexel) {
			t.Errorf("%s, maxTexelBufferElements 65536 (a window of %d bytes does not fit): planned %s", c.what, small.Limits.MaxStorageBufferRange, v)
		}
	}
	// The planner's strategy of cases 0 and 1: split-K and group (the
	// group kernel's texel_scan).
	if v := shaders.ReduceFloatName(32, false, shaders.ArgMaxGroup) + shaders.ReduceFloatTexel; used[v] == 0 {
		t.Errorf("%s never ran: %v", v, used)
	}
}

// reduceFloatTexelCase is reduceFloatCase with pattern one of
// reduceFloatValue's or, for the names it does not know, laneWindowValue's
// over the tensor's elements in row-major order.
func reduceFloatTexelCase(rng *rand.Rand, f ops.ReduceFunction, in *tensor.Tensor, axes []uint32, pattern string) argCase {
	c := reduceFloatCase(rng, f, in, axes, pattern)
	if !slices.Contains(reduceFloatPatterns, pattern) {
		total := 1
		for _, s := range in.Desc.Sizes {
			total *= int(s)
		}
		j := 0
		tensor.ForEachIndex(in.Desc.Sizes, func(at []uint32) {
			in.SetBits(at, laneWindowValue(rng, pattern, j, total, 8, 23))
			j++
		})
	}
	return c
}
