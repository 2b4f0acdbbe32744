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

// recordedPlan is a forced plan that records the plan it made, so that a
// test knows which kernels and dispatches ran (the SCAN8 kernel, one
// dispatch a row).
type recordedPlan struct {
	testutil.ForcedPlan
	got **ops.Plan
}

func (p *recordedPlan) Plan(ctx *ops.Context) (*ops.Plan, error) {
	plan, err := p.ForcedPlan.Plan(ctx)
	if err == nil {
		*p.got = plan
	}
	return plan, err
}

// TestTopKScan8: the GPUs' 16-byte scans of 8-bit rows (topk_select.comp
// SCAN8, topk_scan8.glsl's SWAR gates) on the thread and lane
// strategies, against the reference: rows of 61 and 1001 positions (so
// that every row but the first starts off a 16-byte boundary: heads and
// tails of 0 to 15), all-equal rows of the type's least and greatest
// values, ascending and descending bytes (every position enters in one
// direction), the extremes and their ties at the ends of words (3, 4),
// vectors (15, 16, 31, 32) and rows, few values, random bytes; K = 1, 2
// and 16. INT8's order key is the
// byte with its sign bit flipped: a gate that skipped it would order
// -1 above 127. -short: K = 1 and 2, DECREASING on INT8 only.
func TestTopKScan8(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	cases := []struct {
		strat string
		n     uint32
		ks    []uint32
	}{
		{ops.TopKStrategyThread, 61, []uint32{2, 16}},
		{ops.TopKStrategyLane, 1001, []uint32{1, 16}},
	}
	for _, dt := range []tensor.DataType{tensor.Int8, tensor.UInt8} {
		lo, hi := uint64(0), uint64(0xFF)
		if dt == tensor.Int8 {
			lo, hi = 0x80, 0x7F
		}
		fills := []func(i int) uint64{
			func(i int) uint64 { return testutil.RandomBits(rng, dt) },
			func(i int) uint64 { return hi },
			func(i int) uint64 { return lo },
			func(i int) uint64 { return uint64(i & 0xFF) },
			func(i int) uint64 { return uint64(-i & 0xFF) },
			func(i int) uint64 {
				switch i % 32 {
				case 3, 15, 16, 31:
					return hi
				case 4, 0:
					return lo
				}
				return 0x40
			},
			func(i int) uint64 { return []uint64{lo, hi, 0, 1, lo + 1, hi - 1, 0xFF}[(i*5)%7] },
		}
		for _, c := range cases {
			sizes := []uint32{uint32(len(fills)), c.n}
			in := testutil.NewTensor(rng, dt, sizes, testutil.Packed, func(x []uint32) uint64 {
				if x[0] == 5 && x[1] == c.n-1 {
					return hi // a tie of the extreme in the last tail position
				}
				return fills[x[0]](int(x[1]))
			})
			for _, k := range c.ks {
				for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
					if testing.Short() && (dt != tensor.Int8 || dir != ops.AxisDirectionDecreasing || k == 16) {
						continue
					}
					t.Run(fmt.Sprintf("%v/n%d/K%d/%v/%s", dt, c.n, k, dir, c.strat), func(t *testing.T) {
						var plan *ops.Plan
						p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, tensor.UInt32),
							Kernel: c.strat, DeviceType: caps.DeviceTypeDiscreteGPU}, got: &plan}
						testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
						if first := plan.Kernels[0].Variant; !strings.HasSuffix(first, "_vec16") {
							t.Fatalf("first pass %q, want a SCAN8 kernel (_vec16)", first)
						}
					})
				}
			}
		}
	}
}
