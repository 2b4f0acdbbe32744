//go:build cgo

package ops_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestMaxPoolPreloadGPU runs, on lavapipe, the GPU plans of random max
// poolings (every type, with and without 32- and 64-bit indices, 1-3
// spatial dimensions, strides, dilations, paddings, windows past the
// input, strided layouts, rule 9's special values: ties, NaN, ±0, ±∞,
// −FLT_MAX, −65504) whose direct kernel loads an interior window's taps
// before comparing them (maxpool.comp PRELOAD), against the CPU
// reference; with and without 8/16-bit storage. Every window of at most
// 16 taps must run the preloading variant.
func TestMaxPoolPreloadGPU(t *testing.T) {
	eachPoolStorage(t, func(t *testing.T, d *dml.Device, rng *rand.Rand) {
		g := poolGen{types: tensor.AllTypes, idx: allIdx, layouts: true}
		pre := 0
		for i := 0; i < 60; i++ {
			desc, in, what := g.randomPool(rng)
			_, p := gpuPlan(t, d, desc, "", what)
			if v := p.Kernels[0].Variant; strings.HasPrefix(v, "maxpool_b") || strings.HasPrefix(v, "maxpool_grid_b") { // a direct kernel
				taps := uint32(1)
				for _, w := range poolWindow(desc) {
					taps *= w
				}
				if got := strings.HasSuffix(p.Kernels[0].Variant, "_pre"); got != (taps <= 16) {
					t.Fatalf("%s: %d taps run %s", what, taps, p.Kernels[0].Variant)
				}
				if taps <= 16 {
					pre++
				}
			}
			testutil.CheckOperator(t, d, &asGPU{Desc: desc}, []*tensor.Tensor{in}, rng)
		}
		if pre < 20 {
			t.Errorf("only %d of 60 cases ran the preloading kernel", pre)
		}
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
