//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// argVecWidthPatterns are TestArgVecWidths' value patterns: those of the
// column split (set by block position j) and "chunk-ties", equal extremes
// at both ends of every 16-byte chunk of a contiguous block, so that the
// lane that owns a chunk, its neighbours and the head and tail all hold one.
var argVecWidthPatterns = append([]string{"chunk-ties"}, argColSplitPatterns...)

// argVecWidthCase builds a case of type dt for the vectorised layout
// ("row" or "col") whose 16-byte loads hold per = 16 / size elements:
// rows of odd lengths around multiples of per, with padded strides that
// start rows unaligned, a leading kept axis, or one long row the split-K
// segments cut; columns and middle axes with an innermost kept size of a
// multiple of per (of 4 for 32-bit types) and padded strides of a
// multiple of per, or of none (which must fall back to a scalar kernel).
func argVecWidthCase(rng *rand.Rand, dt tensor.DataType, layout, pattern string) argCase {
	per := uint32(16 / dt.Size())
	if dt.Size() == 4 {
		per = 4
	}
	var sizes, strides, axes []uint32
	switch layout {
	case "row":
		// Blocks of 256 or more take the lanes-split strategies, which
		// vec-row serves; shorter ones the thread kernel.
		n := 256 + per*uint32(rng.Intn(8)) + uint32(rng.Intn(int(per)+1))
		switch rng.Intn(4) {
		case 0:
			n = uint32(200 + rng.Intn(3000))
		case 1:
			n = 1 + uint32(rng.Intn(3*int(per)))
		}
		rows := uint32(1 + rng.Intn(9))
		if rng.Intn(6) == 0 { // few outputs, long blocks: split-K segments
			n, rows = uint32(70000+rng.Intn(3000)), uint32(1+rng.Intn(2))
		}
		sizes, axes = []uint32{rows, n}, []uint32{1}
		if rng.Intn(2) == 0 {
			strides = []uint32{n + uint32(1+rng.Intn(int(per)+2)), 1} // unaligned row starts
		}
		if rng.Intn(4) == 0 {
			sizes, axes = []uint32{2, rows, n}, []uint32{2}
			if strides != nil {
				strides = []uint32{rows * strides[0], strides[0], 1}
			}
		}
	case "col":
		w := per * uint32(1+rng.Intn(4))
		red := uint32(1 + rng.Intn(300))
		sizes, axes = []uint32{red, w}, []uint32{0}
		if rng.Intn(2) == 0 {
			pad := per * uint32(rng.Intn(3))
			if rng.Intn(4) == 0 {
				pad = uint32(1 + rng.Intn(int(per)-1)) // misaligned: falls back
			}
			strides = []uint32{w + pad, 1}
		}
		if rng.Intn(3) == 0 { // a middle axis
			row := red * w
			if strides != nil {
				row = red * strides[0]
			}
			rs := w
			if strides != nil {
				rs = strides[0]
			}
			sizes, strides, axes = []uint32{uint32(2 + rng.Intn(2)), red, w}, []uint32{row, rs, 1}, []uint32{1}
		}
	}
	in := argInput(dt, sizes, strides)
	if pattern == "chunk-ties" {
		argFill(rng, in, "ties")
		tensor.ForEachIndex(sizes, func(c []uint32) {
			if j := c[axes[0]]; j%per == 0 || j%per == per-1 {
				in.SetFloat64(c, 3)
			}
		})
	} else {
		argColSplitFill(rng, in, axes, pattern)
	}
	return argDrawCase(rng, layout+" ", in, axes, pattern, "packed", "padded", "permuted")
}

// TestArgVecWidths runs the vectorised ARGMAX/ARGMIN kernels (vec-row,
// vec-col) at every element width against the CPU reference: all ten
// types, ARGMAX/ARGMIN/REDUCE, both directions, every index type, with
// the GPU plans forced and with the device's own plans, adversarial values
// (ties, NaN, ±0, ±Inf, min/max, equal extremes at 16-byte chunk and
// segment boundaries), odd sizes, strided inputs and outputs, poisoned
// outputs; on the full device and on one without shaderInt64, 8/16-bit
// storage and subgroup arithmetic (word loads, shared-memory combine).
// Each aligned case must plan the vectorised kernel of its width on the
// GPU, and lavapipe's own plan must take vec-row for rows (its tuning).
func TestArgVecWidths(t *testing.T) {
	for _, name := range []string{"all", "words"} {
		t.Run(name, func(t *testing.T) {
			opts := dml.DeviceOptions{}
			if name == "words" {
				opts.Disable = argAllFallbacks
			}
			argVecWidthsRun(t, testutil.OpenDML(t, opts))
		})
	}
}

func argVecWidthsRun(t *testing.T, d *dml.Device) {
	rng := testutil.Rand(t)
	used := map[string]int{}
	for ti, dt := range tensor.AllTypes {
		bits := 8 * int(dt.Size())
		for i, pattern := range argVecWidthPatterns {
			// Each pattern on one layout, alternating by type and pattern.
			for _, layout := range []string{[]string{"row", "col"}[(i+ti)%2]} {
				c := argVecWidthCase(rng, dt, layout, pattern)
				// Forced: a GPU's tuning gives columns of few outputs to
				// thread (argVecColMinOutputs); the run below alternates.
				_, gp := gpuPlan(t, d, c.desc, ops.ArgStrategyVec, c.what)
				cp, err := c.desc.Plan(argContext(d))
				if err != nil {
					t.Fatalf("%s: own plan: %v", c.what, err)
				}
				used[fmt.Sprintf("%d/gpu/%s", bits, gp.Strategy)]++
				used[fmt.Sprintf("%d/own/%s", bits, cp.Strategy)]++
				if strings.HasPrefix(gp.Strategy, "vec-") {
					want := "argmax_vec_"
					if bits != 32 {
						want = fmt.Sprintf("argmax_vec_b%d_", bits)
					}
					if v := gp.Kernels[0].Variant; !strings.HasPrefix(v, want) {
						t.Fatalf("%s: GPU plan %s runs %s, want a %s variant", c.what, gp.Strategy, v, want)
					}
				}
				long := c.in.Desc.Sizes[len(c.in.Desc.Sizes)-1] >= 256
				if layout == "row" && long && gp.Strategy != "vec-row" {
					t.Fatalf("%s: GPU plan %q, want vec-row", c.what, gp.Strategy)
				}
				if onCPU(d) && layout == "row" && long && cp.Strategy != "vec-row" {
					t.Fatalf("%s: lavapipe's plan %q, want vec-row", c.what, cp.Strategy)
				}
				if onCPU(d) && layout == "col" && bits != 32 && cp.Strategy == "vec-col" {
					t.Fatalf("%s: lavapipe's plan took vec-col, which its tuning keeps to 32-bit types", c.what)
				}
				argCheckCase(t, d, c, "", rng)
				g := c
				g.desc = &asGPU{Desc: c.desc, kernel: []string{"", ops.ArgStrategyVec}[i%2]}
				argCheckCase(t, d, g, "", rng)
			}
		}
	}
	t.Logf("strategies (bits/plan/strategy): %v", used)
	for _, bits := range []int{8, 16, 32, 64} {
		for _, s := range []string{"vec-row", "vec-col"} {
			if used[fmt.Sprintf("%d/gpu/%s", bits, s)] == 0 {
				t.Errorf("no %d-bit case ran %s on the GPU plans: %v", bits, s, used)
			}
		}
	}
}

// TestArgVecWidthVariants: the variant table has, for each narrow width,
// the row, subgroup row, one-subgroup row and column variants that
// shaders.ArgMaxVecName names for the planner.
func TestArgVecWidthVariants(t *testing.T) {
	have := map[string]bool{}
	for _, v := range shaders.Variants {
		have[v.Name] = true
	}
	for _, bits := range shaders.ArgMaxVecNarrowWidths {
		for _, base := range []string{shaders.ArgMaxVecRow, shaders.ArgMaxVecRowSG, shaders.ArgMaxVecRowSG1, shaders.ArgMaxVecCol} {
			if n := shaders.ArgMaxVecName(bits, base); !have[n] {
				t.Errorf("no variant %s", n)
			}
		}
	}
}
