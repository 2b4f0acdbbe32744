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

// TestTopKRadixBuckets: the radix strategy's ordering of its gathered
// entries in buckets of equal score ranges (topk_select.comp
// bucket_rank_emit), on FLOAT32 rows of 9001 whose gathers hold at least
// the CPU tuning's 256 entries (K = 300, 1024, 2048), each row a fill
// that takes one of its routes: normal values (a bucket's entries one
// word each, score offset over position), the same rounded to a
// thousandth (ties on the score within a bucket, ordered by index in
// that word), values spread over 2^-60..2^60 of both signs (the score
// range too wide for the word: the entries' slots), few distinct values
// (a bucket over BUCKET_MAX entries: the ranking or sort instead), and
// normal values with NaNs, signed zeros and infinities among them; both
// directions, through texels (lavapipe's plans) and storage buffers.
// -short: K = 1024 through texels, both directions.
func TestTopKRadixBuckets(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 9001
	fills := []func(i int) float64{
		func(int) float64 { return rng.NormFloat64() },
		func(int) float64 { return math.Round(rng.NormFloat64()*1000) / 1000 },
		func(int) float64 {
			return math.Copysign(math.Ldexp(1+rng.Float64(), rng.Intn(121)-60), float64(rng.Intn(2)*2-1))
		},
		func(int) float64 { return float64(rng.Intn(7)) },
		func(i int) float64 {
			if i%37 == 0 {
				return []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1)}[rng.Intn(5)]
			}
			return rng.NormFloat64()
		},
	}
	in := testutil.NewTensor(rng, tensor.Float32, []uint32{uint32(len(fills)), n}, testutil.Packed, func(c []uint32) uint64 {
		return topKValueBits(tensor.Float32, fills[c[0]](int(c[1])))
	})
	plans := []struct {
		name string
		plan testutil.ForcedPlan
	}{
		// topKSplitMinLen 0: topk_select.comp's radix on the CPU class's
		// rows from 8192 on too (the split select: TestTopKSplit*).
		{"texel", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKSplitMinLen": "0"}}},
		{"storage", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKTexel": "false", "topKSplitMinLen": "0"}}},
	}
	ks := []uint32{300, 1024, 2048}
	if testing.Short() {
		ks, plans = []uint32{1024}, plans[:1]
	}
	for _, k := range ks {
		for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
			for _, pl := range plans {
				p := pl.plan
				p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
				t.Run(fmt.Sprintf("K%d/%v/%s", k, dir, pl.name), func(t *testing.T) {
					testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
				})
			}
		}
	}
}
