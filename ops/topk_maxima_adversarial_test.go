//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKMaximaAdversarial: rows whose scores equal the padding's (0),
// best entries in the head or tail, K at the planner's bound, n = 4m+r.
func TestTopKMaximaAdversarial(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	wg := uint64(testutil.PlanContext(d).Limits.SubgroupSize)
	type fill struct {
		name string
		dt   tensor.DataType
		dir  ops.AxisDirection
		bits func(i, n int) uint64
	}
	fills := []fill{
		{"u32-zeros", tensor.UInt32, ops.AxisDirectionDecreasing, func(int, int) uint64 { return 0 }},
		{"u32-ones-incr", tensor.UInt32, ops.AxisDirectionIncreasing, func(int, int) uint64 { return 0xffffffff }},
		{"i32-min", tensor.Int32, ops.AxisDirectionDecreasing, func(int, int) uint64 { return 0x80000000 }},
		{"u32-rare1", tensor.UInt32, ops.AxisDirectionDecreasing, func(int, int) uint64 {
			if rng.Intn(97) == 0 {
				return 1
			}
			return 0
		}},
		{"all-nan", tensor.Float32, ops.AxisDirection(rng.Intn(2)), func(int, int) uint64 {
			return []uint64{0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff}[rng.Intn(4)]
		}},
		{"head-tail-best", tensor.Float32, ops.AxisDirectionDecreasing, func(i, n int) uint64 {
			if i < 3 || i >= n-3 {
				return uint64(math.Float32bits(float32(100 + i%7)))
			}
			return uint64(math.Float32bits(1))
		}},
		{"ascending-desc", tensor.Float32, ops.AxisDirectionDecreasing, func(i, n int) uint64 { return uint64(math.Float32bits(float32(i))) }},
		{"zeros-signed", tensor.Float32, ops.AxisDirectionIncreasing, func(i, n int) uint64 { return uint64(rng.Intn(2)) << 31 }},
	}
	for fi, f := range fills {
		rs := []int{1, 3} // the row's length mod 4
		if testing.Short() {
			rs = rs[rng.Intn(2):][:1]
		}
		for _, r := range rs {
			n := 4*(1000+rng.Intn(9000)) + r
			in := testutil.NewTensor(rng, f.dt, []uint32{3, uint32(n)}, testutil.Packed, func(c []uint32) uint64 { return f.bits(int(c[1]), n) })
			kmax := uint32(1)
			for kmax < 2048 && ops.TopKMaximaTakes(uint64(n), uint64(kmax+1), wg) {
				kmax++
			}
			ks := []uint32{kmax}
			if (fi+r)%2 == 0 {
				ks = append(ks, 1)
			}
			for _, k := range ks {
				p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, f.dir, tensor.UInt32), Kernel: ops.TopKStrategyMaxima}
				t.Run(fmt.Sprintf("%s/n%d/K%d/%v", f.name, n, k, f.dir), func(t *testing.T) {
					testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
				})
			}
		}
	}
}
