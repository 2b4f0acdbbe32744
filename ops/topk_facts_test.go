package ops_test

import (
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKPartialBytes: TOP_K's runs in the temporary resource are split-K
// partials. A plan's partial bytes are the runs its first pass writes and
// its merge passes read and write: every binding of the temporary, each
// once (the first pass's output region, a merge's input region and, but
// for the final merge, its output region). ops/facts_topk.go once counted
// none, so vkdml plan --check passed FLOAT16 128x256000 K=1024, whose
// first pass wrote 262 MB of runs for 65 MB of input. A plan of one
// segment a row has no runs and no partials.
func TestTopKPartialBytes(t *testing.T) {
	for _, c := range []struct {
		kernel string
		dt     tensor.DataType
		rows   uint32
		n, k   uint32
		runs   bool
	}{
		{ops.TopKStrategyFilter, tensor.Float16, 128, 256000, 1024, true},
		{ops.TopKStrategySort, tensor.Int64, 8, 32000, 2048, true},
		{ops.TopKStrategyLane, tensor.Float32, 128, 256000, 1, true},
		{ops.TopKStrategyThread, tensor.Float32, 65536, 64, 8, false},
	} {
		ctx := h100Context(t)
		ctx.Kernel = c.kernel
		what := fmt.Sprintf("%s %v %dx%d K=%d", c.kernel, c.dt, c.rows, c.n, c.k)
		_, p, pf := topKRowsFacts(t, ctx, c.dt, c.rows, c.n, c.k, what)
		var want uint64
		for i, s := range p.Steps {
			var runs uint64
			for _, b := range s.Bindings {
				if b.Kind == ops.SlotTemporary {
					runs += b.Size
				}
			}
			if got := pf.Dispatches[i].PartialBytes; got != runs {
				t.Errorf("%s: dispatch %d (%s) counts %d bytes of partials; its runs in the temporary take %d", what, i, p.Kernels[s.Kernel].Variant, got, runs)
			}
			want += runs
		}
		if (want > 0) != c.runs || pf.PartialBytes != want {
			t.Errorf("%s: the plan counts %d bytes of partials; want %d, the runs written and read (runs expected: %v)", what, pf.PartialBytes, want, c.runs)
		}
	}
}

// TestTopKRunsBudget: on the h100 profile the planner keeps TOP_K's runs
// (partials written and read) within 5% of the bytes of the input (vkdml
// plan --check's partial_bytes goal; tuning topKRunPercent), and the
// streaming first pass keeps 2 MiB in flight on the cases that move 64
// MiB or more, where its kernels can: 32-bit rows (radix where filter's
// and sort's segments are too short, one segment a row at K >= 1024) and
// 64-bit rows at K=50 (filter's workgroups of 64). Before the budget,
// FLOAT32 128x256000 K=1024 wrote 22.4% of its input in runs and K=50
// 6.6%, INT64 128x256000 K=50 kept 1632 KiB in flight.
func TestTopKRunsBudget(t *testing.T) {
	ctx := h100Context(t)
	for _, c := range []struct {
		dt      tensor.DataType
		rows, n uint32
		k       uint32
	}{
		{tensor.Float32, 128, 256000, 50},
		{tensor.Float32, 128, 256000, 1024},
		{tensor.UInt32, 128, 256000, 2048},
		{tensor.Int32, 8, 32000, 1024},
		{tensor.Float32, 8, 32000, 2048},
		{tensor.Int64, 128, 256000, 50},
		{tensor.UInt64, 8, 32000, 50},
	} {
		what := fmt.Sprintf("%v %dx%d K=%d", c.dt, c.rows, c.n, c.k)
		desc, p, pf := topKRowsFacts(t, ctx, c.dt, c.rows, c.n, c.k, what)
		input := desc.Input.TotalTensorSizeInBytes
		if pf.PartialBytes*100 > 5*input {
			t.Errorf("%s (%s): %d bytes of runs written and read, %.1f%% of the %d input bytes, over 5%%", what, p.Strategy, pf.PartialBytes, 100*float64(pf.PartialBytes)/float64(input), input)
		}
		if first := pf.Dispatches[0]; input >= 64<<20 && first.BytesInFlight(ctx.Limits.ResidentLanes()) < 2<<20 {
			t.Errorf("%s (%s): the first pass keeps %d bytes in flight, under 2 MiB", what, p.Strategy, first.BytesInFlight(ctx.Limits.ResidentLanes()))
		}
	}
}

// topKRowsFacts plans TOP_K1 DECREASING (UINT32 indices) of K = k over
// rows of n elements of dt on ctx and returns the desc, the plan and its
// facts, failing t (naming the case what) on an error.
func topKRowsFacts(t *testing.T, ctx *ops.Context, dt tensor.DataType, rows, n, k uint32, what string) (*ops.TopK1, *ops.Plan, *ops.PlanFacts) {
	t.Helper()
	desc := &ops.TopK1{Input: tensor.NewDesc(dt, []uint32{rows, n}), OutputValue: tensor.NewDesc(dt, []uint32{rows, k}),
		OutputIndex: tensor.NewDesc(tensor.UInt32, []uint32{rows, k}), Axis: 1, K: k, AxisDirection: ops.AxisDirectionDecreasing}
	p := validPlan(t, ctx, desc, what)
	pf, err := ops.Facts(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return desc, p, pf
}
