//go:build cgo

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

// TestTopKRadixStrided: the GPU class's radix scans with STRIDED
// (topk_select.comp lane_vectors: lane t reads 16-byte vectors t, t+WG,
// ...) on rows long enough that every lane takes two to four vectors of
// one segment, so that the stride, not only the first vector, is what a
// scan reads: FLOAT32 (VEC4), FLOAT16 (VEC8) and INT64 (VEC2), one
// segment a row in workgroups of 1024, against the reference bit for bit.
// The rows mix a few tied values (ties across lanes and vectors), the
// type's extremes and random bits; odd lengths, so that the second row
// starts unaligned. K = 1, 8, 1000, 2048 or a random K, both directions.
// -short: one case a type.
func TestTopKRadixStrided(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	plan := testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU,
		Tuning: ops.Tuning{"topKRadixSortMul": "0", "topKRadixSplit": "false"}}
	types := []struct {
		dt    tensor.DataType
		vw    int      // positions a 16-byte vector
		edges []uint64 // the type's extremes, zeros and NaNs
	}{
		{tensor.Float32, 4, []uint64{0x7FC00000, 0xFF800000, 0x7F800000, 0x80000000, 0, 0x7F7FFFFF, 0xFF7FFFFF, 1}},
		{tensor.Float16, 8, []uint64{0x7E00, 0xFC00, 0x7C00, 0x8000, 0, 0x7BFF, 0xFBFF, 1}},
		{tensor.Int64, 2, []uint64{1 << 63, 1<<63 - 1, 0, ^uint64(0), 1, 0xFFFFFFFF, 1 << 32}},
	}
	for _, ty := range types {
		cases := 3
		if testing.Short() {
			cases = 1
		}
		for range cases {
			// 2 to 4 vectors a lane of 1024.
			n := uint32(2*(1024*ty.vw+rng.Intn(1024*ty.vw/2*3)) + 1)
			few := []uint64{testutil.RandomBits(rng, ty.dt), ty.edges[rng.Intn(len(ty.edges))]}
			in := testutil.NewTensor(rng, ty.dt, []uint32{2, n}, testutil.Packed, func([]uint32) uint64 {
				switch r := rng.Intn(8); {
				case r < 3:
					return few[rng.Intn(len(few))]
				case r < 4:
					return ty.edges[rng.Intn(len(ty.edges))]
				}
				return testutil.RandomBits(rng, ty.dt)
			})
			ks := []uint32{1, 8, 1000, 2048, uint32(2 + rng.Intn(2000))}
			k := ks[rng.Intn(len(ks))]
			dir := ops.AxisDirection(rng.Intn(2))
			p := plan
			p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
			t.Run(fmt.Sprintf("%v/n%d/K%d/%v", ty.dt, n, k, dir), func(t *testing.T) {
				testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
