//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

var argVecTypes = []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32}

// argVecCase builds a random 32-bit case shaped for one of the vectorised
// layouts: "row" reduces the last axis (rows of any length and alignment,
// several kept axes, padded rows so that blocks start unaligned), "col"
// reduces leading or middle axes with a contiguous innermost kept axis of a
// multiple of 4 (padded strides that stay multiples of 4, or not, which
// must fall back).
func argVecCase(rng *rand.Rand, layout string, maxElems int) argCase {
	dt := argVecTypes[rng.Intn(len(argVecTypes))]
	var sizes, strides, axes []uint32
	switch layout {
	case "row":
		n := uint32(1 + rng.Intn(maxElems/2))
		if rng.Intn(3) == 0 {
			n = uint32(1 + rng.Intn(12))
		}
		rows := uint32(1 + rng.Intn(max(1, maxElems/int(n))))
		rows = min(rows, 64)
		sizes = []uint32{rows, n}
		axes = []uint32{1}
		if rng.Intn(3) == 0 {
			strides = []uint32{n + uint32(rng.Intn(7)), 1}
		}
		if rng.Intn(4) == 0 { // a second kept axis in front (3D)
			sizes = []uint32{2, rows, n}
			if strides != nil {
				strides = []uint32{rows * strides[0], strides[0], 1}
			}
			axes = []uint32{2}
		}
	case "col":
		w := 4 * uint32(1+rng.Intn(16))
		red := uint32(1 + rng.Intn(max(1, maxElems/int(w))))
		sizes = []uint32{red, w}
		axes = []uint32{0}
		if rng.Intn(3) == 0 {
			pad := 4 * uint32(rng.Intn(3))
			if rng.Intn(4) == 0 {
				pad = uint32(rng.Intn(4)) // misaligned: must fall back
			}
			strides = []uint32{w + pad, 1}
		}
		if rng.Intn(3) == 0 { // reduce a middle axis, keep outer and inner
			outer := uint32(2 + rng.Intn(2))
			row := red * w
			if strides != nil {
				row = red * strides[0]
			}
			if strides == nil {
				strides = []uint32{row, w, 1}
			} else {
				strides = []uint32{row, strides[0], 1}
			}
			sizes = []uint32{outer, red, w}
			axes = []uint32{1}
		}
	}
	in := argInput(dt, sizes, strides)
	vm := argValueModes[rng.Intn(len(argValueModes))]
	argFill(rng, in, vm)
	return argDrawCase(rng, layout+" ", in, axes, vm, "packed", "padded", "permuted")
}

// argVecPlan returns the strategy the planner reports for c with kernel.
func argVecPlan(t *testing.T, d *dml.Device, desc ops.Desc, kernel string) string {
	t.Helper()
	op, err := d.CreateOperatorWithKernel(desc, kernel)
	if err != nil {
		t.Fatalf("CreateOperatorWithKernel(%q): %v", kernel, err)
	}
	return op.Strategy()
}

// TestArgVec checks the vectorised kernels (vec-row, vec-col) against the
// CPU reference on random 32-bit cases of both layouts, planner-chosen and
// forced, including unaligned blocks, tails, misaligned strides that must
// fall back, strided outputs, every index type, ties, ±0, NaN.
func TestArgVec(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := testutil.CaseCount(80, 30)
	used, variants := map[string]int{}, map[string]int{}
	covered := func() bool { return used["vec-row"] >= n/5 && used["vec-col"] >= n/8 }
	drawCases(n, covered, func(i int) {
		layout := []string{"row", "col"}[i%2]
		c := argVecCase(rng, layout, 3000)
		strat := []string{"", ops.ArgStrategyVec}[(i/2)%2]
		used[argVecPlan(t, d, c.desc, strat)]++
		ctx := argContext(d)
		ctx.Kernel = strat
		if p, err := c.desc.Plan(ctx); err == nil {
			variants[p.Kernels[0].Variant]++
		}
		argCheckCase(t, d, c, strat, rng)
	})
	t.Logf("strategies: %v", used)
	t.Logf("variants: %v", variants)
	if !covered() {
		t.Errorf("the vectorised kernels were not exercised enough: %v", used)
	}
}

// TestArgVecSplit: long blocks cut into segments (split-K partials and the
// combine pass) and small binding windows, on both layouts.
func TestArgVecSplit(t *testing.T) {
	devices := windowDevices(t)
	rng := testutil.Rand(t)
	used := map[string]int{}
	for i := 0; i < 16; i++ {
		d := devices(0)
		var c argCase
		switch i % 4 {
		case 0: // one long row: split-K segments
			in := tensor.New(tensor.Float32, 1, uint32(70000+rng.Intn(9000)))
			argFill(rng, in, []string{"ties", "nan", "special"}[rng.Intn(3)])
			desc := argDesc(argKinds[rng.Intn(4)], in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{1, 1}), []uint32{1}, ops.AxisDirection(rng.Intn(2)))
			c = argCase{desc: desc, in: in, what: fmt.Sprintf("long row %v", in.Desc.Sizes)}
		case 1: // few wide columns: vec-col with segments
			in := tensor.New(tensor.Int32, uint32(20000+rng.Intn(500)), 8)
			argFill(rng, in, "ties")
			desc := argDesc(argKinds[rng.Intn(4)], in.Desc, tensor.NewDesc(tensor.UInt64, []uint32{1, 8}), []uint32{0}, ops.AxisDirection(rng.Intn(2)))
			c = argCase{desc: desc, in: in, what: fmt.Sprintf("tall %v", in.Desc.Sizes)}
		default: // small windows
			d = devices([]uint64{256, 1024, 4096}[rng.Intn(3)])
			c = argVecCase(rng, []string{"row", "col"}[i%2], 2000)
		}
		strat := []string{"", ops.ArgStrategyVec}[(i/4)%2]
		op, err := d.CreateOperatorWithKernel(c.desc, strat)
		if errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
			// Tiny windows can exceed the step or partial limits: a clean refusal.
			used["refused"]++
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		used[op.Strategy()]++
		argCheckCase(t, d, c, strat, rng)
	}
	t.Logf("strategies: %v", used)
}

// TestArgVecAdversarial: rows and columns of NaN first, all NaN, NaN but a
// few, ±0 only, specials, extreme last, at lengths that leave heads and
// tails, for both directions and ARGMAX/ARGMIN, on the vectorised kernels.
func TestArgVecAdversarial(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range argVecTypes {
		for pattern := 0; pattern < 6; pattern++ {
			for _, layout := range []string{"row", "col"} {
				n := uint32(700 + rng.Intn(4))
				sizes, axes, out := []uint32{5, n}, []uint32{1}, []uint32{5, 1}
				var strides []uint32
				if layout == "col" {
					sizes, axes, out = []uint32{n, 8}, []uint32{0}, []uint32{1, 8}
				} else if rng.Intn(2) == 0 {
					strides = []uint32{n + uint32(1+rng.Intn(3)), 1} // unaligned row starts
				}
				in := argInput(dt, sizes, strides)
				argFill(rng, in, "ties")
				tensor.ForEachIndex(sizes, func(c []uint32) { argAdversarial(rng, in, c, c[axes[0]], n, pattern, true) })
				for _, kind := range []string{"argmax", "argmin"} {
					for dir := ops.AxisDirection(0); dir < 2; dir++ {
						desc := argDesc(kind, in.Desc, tensor.NewDesc(tensor.UInt32, out), axes, dir)
						if s := argVecPlan(t, d, desc, ops.ArgStrategyVec); !strings.HasPrefix(s, "vec-") {
							t.Fatalf("%s %v: forced vec, got %q", layout, sizes, s)
						}
						c := argCase{desc: desc, in: in, what: fmt.Sprintf("%v %s pattern %d %s dir %d strides %v", dt, layout, pattern, kind, dir, strides)}
						argCheckCase(t, d, c, ops.ArgStrategyVec, rng)
					}
				}
			}
		}
	}
}

// TestArgVecFallbacks: the vectorised kernels without subgroup arithmetic
// (the shared-memory combine), without shaderInt64 (16-byte loads instead
// of 32-byte ones) and with every optional feature off.
func TestArgVecFallbacks(t *testing.T) {
	for _, name := range []string{"noSubgroup", "noInt64", "all"} {
		t.Run(name, func(t *testing.T) {
			dis := caps.Features{SubgroupArithmetic: true}
			if name == "noInt64" {
				dis = caps.Features{ShaderInt64: true}
			}
			if name == "all" {
				dis = argAllFallbacks
			}
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: dis})
			rng := testutil.Rand(t)
			for i := 0; i < 12; i++ {
				c := argVecCase(rng, []string{"row", "col"}[i%2], 2000)
				argCheckCase(t, d, c, ops.ArgStrategyVec, rng)
			}
		})
	}
}

// asGPU plans a desc as for a discrete GPU (GPU-sized workgroups, the
// shared-memory combines), so that lavapipe runs the GPU choices too.
type asGPU struct {
	ops.Desc
	kernel string
}

func (g *asGPU) Plan(ctx *ops.Context) (*ops.Plan, error) {
	return (&testutil.ForcedPlan{Desc: g.Desc, Kernel: g.kernel, DeviceType: caps.DeviceTypeDiscreteGPU}).Plan(ctx)
}

// TestArgVecGPUShapes runs the vectorised kernels with the planner's GPU
// choices (workgroups of 256 lanes for vec-row, 64 for vec-col), with and
// without shaderInt64 and subgroup arithmetic.
func TestArgVecGPUShapes(t *testing.T) {
	for _, dis := range []caps.Features{{}, {ShaderInt64: true}, {SubgroupArithmetic: true}} {
		t.Run(fmt.Sprintf("disable%+v", dis), func(t *testing.T) {
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: dis})
			rng := testutil.Rand(t)
			for i := 0; i < 10; i++ {
				c := argVecCase(rng, []string{"row", "col"}[i%2], 3000)
				c.desc = &asGPU{Desc: c.desc, kernel: []string{"", ops.ArgStrategyVec}[(i/2)%2]}
				argCheckCase(t, d, c, "", rng)
			}
		})
	}
}
