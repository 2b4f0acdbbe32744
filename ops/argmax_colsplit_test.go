//go:build cgo

package ops_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// argColSplitPatterns are the value patterns of TestArgColSplitGPU, each
// set by block position j so that the extremes, ties and NaN land on both
// sides of the segment boundaries the column split cuts.
var argColSplitPatterns = []string{"ties", "nan-first", "all-equal", "nan-but-few", "zeros", "specials", "boundary-ties", "random"}

// argColSplitCase builds a reduction over non-innermost axes of type dt
// whose blocks are long enough for the GPU column split to cut them into
// several segments: a column ([R, C] over axis 0), a middle axis ([A, R,
// C] over 1), two separated axes ([R1, K, R2, C] over 0 and 2) or a
// transposed [C, R] (strides [1, C+pad]) over axis 1, with
// packed or padded input strides (the innermost kept axis stays the
// fastest), odd sizes, and with vecCol (32-bit types) a vec-col shape.
func argColSplitCase(rng *rand.Rand, dt tensor.DataType, pattern string, vecCol bool) argCase {
	minSeg := 512 / int(dt.Size()) // tuningGPU.argColSplitMinBytes / element size
	nred := uint32(2*minSeg + 1 + rng.Intn(4*minSeg))
	cols := uint32(3 + 2*rng.Intn(11)) // odd; 1 would leave the reduced axis the fastest
	if vecCol {
		cols = 4 * uint32(1+rng.Intn(8)) // vec-col, 4 or 8 outputs an invocation
	}
	var sizes, axes []uint32
	layout := []string{"col", "middle", "multi", "transposed"}[rng.Intn(4)]
	switch layout {
	case "col":
		sizes, axes = []uint32{nred, cols}, []uint32{0}
	case "middle":
		sizes, axes = []uint32{uint32(2 + rng.Intn(2)), nred, cols}, []uint32{1}
	case "multi":
		r2 := uint32(3 + 2*rng.Intn(3))
		r1 := nred/r2 + 1
		sizes, axes = []uint32{r1, uint32(2 + rng.Intn(2)), r2, cols}, []uint32{0, 2}
	}
	// Packed, or each outer stride padded (for vec-col by a multiple of 4
	// elements or not, which falls back to the scalar thread kernel); or a
	// transposed input reduced over its last logical axis, which is the
	// slow one in memory.
	var strides []uint32
	if layout == "transposed" {
		sizes, axes = []uint32{cols, nred}, []uint32{1}
		strides = []uint32{1, cols + uint32(rng.Intn(3))*4}
	} else if rng.Intn(2) == 0 {
		strides = make([]uint32, len(sizes))
		next := uint32(1)
		for d := len(sizes) - 1; d >= 0; d-- {
			strides[d] = next
			next = next*sizes[d] + uint32(rng.Intn(3))*[]uint32{1, 4}[rng.Intn(2)]
		}
	}
	in := argInput(dt, sizes, strides)
	argColSplitFill(rng, in, axes, pattern)
	return argDrawCase(rng, layout+" ", in, axes, pattern, "packed", "padded")
}

// argColSplitFill sets every logical element of t from pattern and its
// position j in its block (row-major over axes).
func argColSplitFill(rng *rand.Rand, t *tensor.Tensor, axes []uint32, pattern string) {
	dt := t.Desc.DataType
	mode := map[string]string{"ties": "ties", "specials": "special", "random": "random"}[pattern]
	if mode == "" {
		mode = "ties"
	}
	argFill(rng, t, mode)
	if pattern == "ties" || pattern == "specials" || pattern == "random" {
		return
	}
	tensor.ForEachIndex(t.Desc.Sizes, func(c []uint32) {
		j := uint32(0)
		for _, ax := range axes {
			j = j*t.Desc.Sizes[ax] + c[ax]
		}
		switch pattern {
		case "nan-first": // NaN (floats) or the type's min/max at j = 0
			if j == 0 {
				t.SetBits(c, argSpecial(rng, dt))
				if dt.IsFloat() && rng.Intn(2) == 0 {
					t.SetBits(c, argNanBits(dt))
				}
			}
		case "all-equal": // all NaN (floats) or all 1: index 0 or the last
			if dt.IsFloat() && rng.Intn(4) != 0 {
				t.SetBits(c, argNanBits(dt))
			} else {
				t.SetFloat64(c, 1)
			}
		case "nan-but-few":
			if dt.IsFloat() && rng.Intn(40) != 0 {
				t.SetBits(c, argNanBits(dt))
			}
		case "zeros": // ±0 only
			if dt.IsFloat() {
				t.SetBits(c, uint64(rng.Intn(2))<<(8*dt.Size()-1))
			} else {
				t.SetFloat64(c, 0)
			}
		case "boundary-ties": // equal extremes at the ends of every 32 positions
			t.SetFloat64(c, float64(rng.Intn(2)))
			if j%32 == 0 || j%32 == 31 {
				t.SetFloat64(c, 2)
			}
		}
	})
}

// TestArgColSplitGPU runs the GPU plans of reductions over non-innermost
// axes, whose blocks the column split cuts into segments reduced into
// partials and combined (sized from the bytes in flight), on lavapipe,
// against the CPU reference: all ten types, both directions, ARGMAX,
// ARGMIN and REDUCE, every index type, column, middle-axis and two-axis
// blocks, odd sizes, padded inputs and outputs, and adversarial values at
// segment boundaries; the 32-bit types again without shaderInt64
// (vec-col's 16-byte loads), and 8/16-bit types read as 32-bit words. Each
// case must plan the split on the GPU (a thread or vec-col first pass and
// a combine) and not on lavapipe's own device class.
func TestArgColSplitGPU(t *testing.T) {
	for _, name := range []string{"all", "noInt64", "words"} {
		t.Run(name, func(t *testing.T) {
			types, opts := tensor.AllTypes, dml.DeviceOptions{}
			switch name {
			case "noInt64":
				types, opts.Disable = argVecTypes, caps.Features{ShaderInt64: true}
			case "words": // 8/16-bit elements read as 32-bit words
				types, opts.Disable = []tensor.DataType{tensor.Int8, tensor.UInt8, tensor.Int16, tensor.Float16}, argAllFallbacks
			}
			argColSplitRun(t, testutil.OpenDML(t, opts), types)
		})
	}
}

// argColSplitRun is TestArgColSplitGPU on device d for types.
func argColSplitRun(t *testing.T, d *dml.Device, types []tensor.DataType) {
	rng := testutil.Rand(t)
	used := map[string]int{}
	for _, dt := range types {
		for pi, pattern := range argColSplitPatterns {
			c := argColSplitCase(rng, dt, pattern, dt.Size() == 4 && pi%2 == 0)
			kernel := ""
			switch pi % 4 {
			case 2: // vec-col (an aligned case), which a GPU's tuning leaves to many outputs
				kernel = ops.ArgStrategyVec
			case 3: // the scalar kernel for 32-bit types too
				kernel = ops.ArgStrategyThread
			}
			_, p := gpuPlan(t, d, c.desc, kernel, c.what)
			last := p.Kernels[len(p.Kernels)-1].Variant
			if p.Strategy != ops.ArgStrategyThread && p.Strategy != "vec-col" || !strings.HasPrefix(last, shaders.ArgMaxCombineName) {
				t.Fatalf("%s: GPU plan %q with kernels %v, want the column split (thread or vec-col, then a combine)", c.what, p.Strategy, p.Kernels)
			}
			used[p.Strategy+"/"+p.Kernels[0].Variant]++
			cctx := argContext(d)
			cctx.Kernel = kernel
			if onCPU(d) {
				if cp, err := c.desc.Plan(cctx); err != nil || len(cp.Kernels) != 1 {
					t.Fatalf("%s: lavapipe's plan split the blocks (%v): %v", c.what, err, cp)
				}
			}
			c.desc = &asGPU{Desc: c.desc, kernel: kernel}
			argCheckCase(t, d, c, "", rng)
		}
	}
	t.Logf("GPU first passes: %v", used)
	vec := 0
	for k, n := range used {
		if strings.HasPrefix(k, "vec-col/") {
			vec += n
		}
	}
	if slices.Contains(types, tensor.Float32) && vec == 0 {
		t.Errorf("no case ran vec-col: %v", used)
	}
}
