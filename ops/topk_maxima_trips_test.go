//go:build cgo

package ops_test

import (
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKMaximaMostTrips: the plan with the most loop trips (the early stop
// gathering KC whole groups, then step 4 over them) on staircase rows
// (each group one value, descending: the score's bisection stops early
// with K and a quarter whole groups at or above T, more entries than the
// K - 1 groups' bound), where lavapipe's 65,535-trip limiter would cut a
// loop short.
func TestTopKMaximaMostTrips(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	wg := uint64(testutil.PlanContext(d).Limits.SubgroupSize)
	n, k, gv, trips := ops.TopKMaximaMostTrips(wg, 1<<17)
	t.Logf("wg %d: n %d K %d GV %d, about %d trips a lane", wg, n, k, gv, trips)
	ns := []uint64{n}
	if ops.TopKMaximaTakes(n+1, k, wg) {
		ns = append(ns, n+1) // rows of odd length: the second and third start unaligned
	}
	for _, n := range ns {
		for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
			in := testutil.NewTensor(rng, tensor.Int32, []uint32{3, uint32(n)}, testutil.Packed, func(c []uint32) uint64 {
				v := int32(1<<20 - int(c[1])/int(4*gv))
				if dir == ops.AxisDirectionIncreasing {
					v = -v
				}
				return uint64(uint32(v))
			})
			p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, uint32(k), dir, tensor.UInt32), Kernel: ops.TopKStrategyMaxima}
			t.Run(fmt.Sprintf("n%d/K%d/%v", n, k, dir), func(t *testing.T) {
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
