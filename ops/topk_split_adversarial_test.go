//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKSplitAdversarial: the split select (forced, topKSplitMinLen 1)
// on rows whose scores equal a NaN's (0: UINT32 zeros DECREASING, INT32's
// least, all NaN), rare numbers among them, signed zeros, and an ascending
// row (the best texels at the end); 3 rows of odd length (the second and
// third unaligned); K = 17 and 2048.
func TestTopKSplitAdversarial(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	fills := []struct {
		name string
		dt   tensor.DataType
		dir  ops.AxisDirection
		bits func(i int) uint64
	}{
		{"u32-zeros", tensor.UInt32, ops.AxisDirectionDecreasing, func(int) uint64 { return 0 }},
		{"u32-rare", tensor.UInt32, ops.AxisDirectionDecreasing, func(int) uint64 {
			if rng.Intn(50) == 0 {
				return uint64(1 + rng.Intn(3))
			}
			return 0
		}},
		{"i32-min-incr-max", tensor.Int32, ops.AxisDirectionIncreasing, func(int) uint64 { return 0x7fffffff }},
		{"nan-rare", tensor.Float32, ops.AxisDirection(rng.Intn(2)), func(int) uint64 {
			if rng.Intn(100) == 0 {
				return uint64(math.Float32bits(rng.Float32()))
			}
			return []uint64{0x7fc00000, 0xffc00000, 0x7f800001}[rng.Intn(3)]
		}},
		{"zeros", tensor.Float32, ops.AxisDirection(rng.Intn(2)), func(int) uint64 { return uint64(rng.Intn(2)) << 31 }},
		{"ascending", tensor.Float32, ops.AxisDirectionDecreasing, func(i int) uint64 { return uint64(math.Float32bits(float32(i))) }},
	}
	for _, f := range fills {
		n := 8193 + 2*rng.Intn(4000)
		in := testutil.NewTensor(rng, f.dt, []uint32{3, uint32(n)}, testutil.Packed, func(c []uint32) uint64 { return f.bits(int(c[1])) })
		for _, k := range []uint32{17, 2048} {
			var plan *ops.Plan
			p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, f.dir, tensor.UInt32), Kernel: ops.TopKStrategyRadix,
				DeviceType: caps.DeviceTypeCPU, Tuning: ops.Tuning{"topKSplitMinLen": "1"}}, got: &plan}
			t.Run(fmt.Sprintf("%s/n%d/K%d/%v", f.name, n, k, f.dir), func(t *testing.T) {
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
				if !isSplitFirst(plan.Kernels[0].Variant) {
					t.Fatalf("plan runs %s first, want the split select", plan.Kernels[0].Variant)
				}
			})
		}
	}
}
