//go:build cgo

package ops_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKRadixVec2: the radix strategy's scans of 64-bit rows of stride
// 1 two keys a 16-byte load (topk_select.comp radix_scan VEC2, the
// SCAN64 kernels the GPU class's plans run), which offer a vector when
// either score, masked to the bits a pass has chosen, may pass: the GPU
// plan with one segment a row (workgroups of 1024) and cut into split-K
// segments whose runs topk_merge.comp merges, against the reference bit
// for bit. The rows draw from the type's least and greatest values, ±1,
// values one apart across the words' boundary, and values sharing a high
// word with random low words (the passes go down into the low word, where
// the mask covers part of it), with ties of a few of them across
// vectors, segments and the head and tail; rows of odd length, so that
// the second row's vectors start unaligned (a head and a tail). K = 1, 2,
// 8, 2047, 2048 or a random K, both directions. -short: two cases a type.
func TestTopKRadixVec2(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	pools := map[tensor.DataType][]uint64{
		tensor.Int64: {1 << 63, 1<<63 | 1, 1<<63 - 1, 1<<63 - 2, 0, 1, ^uint64(0), ^uint64(1), 0xFFFFFFFF, 1 << 32,
			0xFFFFFFFF00000000, 0xFFFFFFFEFFFFFFFF, 0x7FFFFFFF00000000, 0x80000000FFFFFFFF, 0x0000000180000000, 0x000000017FFFFFFF},
		tensor.UInt64: {0, 1, ^uint64(0), ^uint64(1), 1 << 63, 1<<63 - 1, 0xFFFFFFFF, 1 << 32, 0x00000001FFFFFFFF,
			0xFFFFFFFF00000000, 0x8000000080000000, 0x800000007FFFFFFF, 0x0020000000000000, 0x001FFFFFFFFFFFFF},
	}
	plans := []struct {
		name  string
		split bool
		plan  testutil.ForcedPlan
	}{
		{"gpu", false, testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU,
			Tuning: ops.Tuning{"topKRadixSortMul": "0"}}},
		{"gpu-split", true, testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU,
			Tuning: ops.Tuning{"topKRadixSortMul": "0", "topKRunPercent": "0"}}},
	}
	for _, dt := range []tensor.DataType{tensor.Int64, tensor.UInt64} {
		pool := pools[dt]
		cases := 6
		if testing.Short() {
			cases = 2
		}
		for c := range cases {
			pl := plans[c%len(plans)]
			// Odd, so that the second row starts in the middle of a
			// vector; split rows are long enough for 2 or 3 segments
			// (split-K's least is 4096 positions).
			n := uint32(2*(1200+rng.Intn(2000)) + 1)
			if pl.split {
				n = uint32(2*(4500+rng.Intn(2000)) + 1)
			}
			// A high word shared by random low words, and a few of the
			// pool's values (ties).
			hi := pool[rng.Intn(len(pool))] &^ 0xFFFFFFFF
			few := []uint64{pool[rng.Intn(len(pool))], pool[rng.Intn(len(pool))]}[:1+rng.Intn(2)]
			in := testutil.NewTensor(rng, dt, []uint32{2, n}, testutil.Packed, func([]uint32) uint64 {
				switch r := rng.Intn(8); {
				case r < 3:
					return few[rng.Intn(len(few))]
				case r < 5:
					return pool[rng.Intn(len(pool))]
				case r < 7:
					return hi | uint64(rng.Uint32())
				}
				return rng.Uint64()
			})
			ks := []uint32{1, 2, 8, 2047, 2048, uint32(3 + rng.Intn(2000))}
			k := ks[rng.Intn(len(ks))]
			dir := ops.AxisDirection(rng.Intn(2))
			t.Run(fmt.Sprintf("%v/n%d/K%d/%v/%s", dt, n, k, dir, pl.name), func(t *testing.T) {
				var plan *ops.Plan
				p := &recordedPlan{ForcedPlan: pl.plan, got: &plan}
				p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
				if first := plan.Kernels[0].Variant; !strings.HasSuffix(first, "_vec2") {
					t.Fatalf("first pass %q, want a SCAN64 kernel (_vec2)", first)
				}
				if runs := len(plan.Kernels) > 1; runs != pl.split {
					t.Fatalf("%d kernels, want split-K runs %v", len(plan.Kernels), pl.split)
				}
			})
		}
	}
}
