package ops_test

import (
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKLaneFitRow: the GPU lane strategy's workgroup kept within the
// lanes a row of 1000 has work for (tuning topKLaneFitMinWG: 128 for
// FLOAT32's 250 vectors, 64 for FLOAT16's 125, 32 for INT8's 63 in
// place of 256), against the reference bit for bit, on rows of 1000 and
// of 1001 (the second row starts in the middle of a vector: a head and a
// tail), K = 1, 2, 5, 16 or a random K up to 16, both directions; and
// FLOAT16's and FLOAT32's radix plans at K = 1000 (tuning
// topKLaneFitMinWG too: FLOAT16's 124 working lanes in 64, not 1024). The
// rows draw a share from a few values and the type's extremes (ties,
// NaNs, ±0, ±Inf, min, max). -short: one case a type and length.
func TestTopKLaneFitRow(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	plan := testutil.ForcedPlan{DeviceType: caps.DeviceTypeDiscreteGPU}
	types := []struct {
		dt    tensor.DataType
		edges []uint64
	}{
		{tensor.Float32, []uint64{0x7FC00000, 0xFF800000, 0x7F800000, 0x80000000, 0, 0x7F7FFFFF, 0xFF7FFFFF, 1}},
		{tensor.Float16, []uint64{0x7E00, 0xFC00, 0x7C00, 0x8000, 0, 0x7BFF, 0xFBFF, 1}},
		{tensor.Int8, []uint64{0x80, 0x7F, 0, 0xFF, 1}},
	}
	for _, ty := range types {
		for _, n := range []uint32{1000, 1001} {
			cases := 4
			if testing.Short() {
				cases = 2
			}
			for range cases {
				few := []uint64{testutil.RandomBits(rng, ty.dt), ty.edges[rng.Intn(len(ty.edges))]}
				in := testutil.NewTensor(rng, ty.dt, []uint32{3, n}, testutil.Packed, func([]uint32) uint64 {
					switch r := rng.Intn(8); {
					case r < 3:
						return few[rng.Intn(len(few))]
					case r < 4:
						return ty.edges[rng.Intn(len(ty.edges))]
					}
					return testutil.RandomBits(rng, ty.dt)
				})
				ks := []uint32{1, 2, 5, 16, uint32(1 + rng.Intn(16))}
				k := ks[rng.Intn(len(ks))]
				if ty.dt != tensor.Int8 && rng.Intn(3) == 0 {
					k = 1000
				}
				dir := ops.AxisDirection(rng.Intn(2))
				p := plan
				p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
				t.Run(fmt.Sprintf("%v/n%d/K%d/%v", ty.dt, n, k, dir), func(t *testing.T) {
					testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
				})
			}
		}
	}
}
