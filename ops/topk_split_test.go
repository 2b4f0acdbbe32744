//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// topKSampledFills are rows for the sampled thresholds (TestTopKRadixSampled,
// TestTopKSplit), values by position: random, few values (ties at the
// threshold), ascending, descending, all equal (the gather holds the
// whole row), the largest values at every sampled-th position (the
// sample is unlike the row: the gather holds fewer than K), mostly NaN
// (the threshold is a NaN's score), NaNs and signed zeros among numbers.
func topKSampledFills(rng *rand.Rand, sampled int) []func(i int) float64 {
	nan := math.NaN()
	return []func(i int) float64{
		func(int) float64 { return rng.NormFloat64() },
		func(int) float64 { return float64(rng.Intn(100)) },
		func(i int) float64 { return float64(i) },
		func(i int) float64 { return float64(-i) },
		func(int) float64 { return 3 },
		func(i int) float64 {
			if i%sampled == 0 {
				return float64(1000 + i)
			}
			return float64(i % 7)
		},
		func(i int) float64 {
			if i%4 != 0 {
				return nan
			}
			return rng.NormFloat64()
		},
		func(i int) float64 {
			return []float64{nan, math.Copysign(0, -1), 0, rng.NormFloat64(), rng.NormFloat64()}[i%5]
		},
	}
}

// TestTopKSplit: the split radix select (topk_split.glsl: threshold,
// gather and ranking dispatches, and the exact threshold's three for the
// rows whose sample fails), forced on rows of 9001 positions (odd, so
// that rows start and end inside a texel) with topKSplitMinLen 4096,
// checked exactly against the reference. Every row of a tensor is one
// fill; the fills make the sample's threshold hold (random, few values
// with ties at it, ascending, descending, NaNs and signed zeros among
// the numbers) and fail both ways: too many entries at it (all equal; K
// largest values then thousands tied with the K-th; every position
// passing), too few (the sampled positions, every 32nd, hold the
// largest values), or none (mostly NaN: the threshold is a NaN's score;
// with K past the numbers, the lowest-indexed NaNs). Both directions,
// K = 1, 50, 700 (the sample's step 64 and 32) and 2048 (step 8, its own
// sample: ops topKSplitSampleCap; up to 2,944 entries ranked in
// topk_rank.comp's shared memory); and two rows of
// 32*(TopKSplitSortMax+200)+1 positions whose ties overflow the sampled
// gather's regions. -short: K = 50 DECREASING
// and K = 700 and 2048 INCREASING on FLOAT32, and the long rows; INT32, UINT32
// and K = 1 without -short.
func TestTopKSplit(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	nan := math.NaN()
	const n = 9001
	fills := append(topKSampledFills(rng, 32),
		func(i int) float64 {
			if i < 40 {
				return float64(1000 + i)
			}
			if i < 5000 {
				return 7
			}
			return float64(rng.Intn(7))
		},
		func(i int) float64 {
			if i%300 != 0 {
				return nan
			}
			return float64(i % 11)
		})
	// The CPU class's tuning on any device (GPUs never take the split).
	tune := ops.Tuning{"topKSplitMinLen": "4096"}
	const cpu = caps.DeviceTypeCPU
	types := []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32}
	ks := []uint32{1, 50, 700}
	if testing.Short() {
		types, ks = types[:1], []uint32{50, 700}
	}
	for _, dt := range types {
		in := testutil.NewTensor(rng, dt, []uint32{uint32(len(fills)), n}, testutil.Packed, func(c []uint32) uint64 {
			x := fills[c[0]](int(c[1]))
			if dt != tensor.Float32 {
				x *= 1000 // distinct values at the integers' resolution
			}
			return topKValueBits(dt, x)
		})
		for _, k := range append(ks, 2048) {
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				if testing.Short() && (k == 50) != (dir == ops.AxisDirectionDecreasing) {
					continue
				}
				for _, apart := range []bool{false, true} {
					if apart && (dt != tensor.Float32 || k != 2048) {
						continue
					}
					// Apart: FLOAT32 K = 2048 also with the gather in its own
					// dispatch.
					tune, first := splitTuning("4096", apart)
					p := testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, tensor.UInt32), Kernel: ops.TopKStrategyRadix, DeviceType: cpu, Tuning: tune}
					plan, err := p.Plan(testutil.PlanContext(d))
					if err != nil {
						t.Fatalf("%v K=%d %v: %v", dt, k, dir, err)
					}
					if plan.Kernels[0].Variant != first {
						t.Fatalf("%v K=%d %v: plan runs %s first, want %s", dt, k, dir, plan.Kernels[0].Variant, first)
					}
					t.Run(fmt.Sprintf("%v/K%d/%v/%s", dt, k, dir, first), func(t *testing.T) {
						testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
					})
				}
			}
		}
	}
	// Rows long enough that a gather lane's block (longN positions:
	// TopKSplitSortMax+200 texels a lane of 8) holds more texels at the
	// sample's threshold than its region (TopKSplitSortMax+3): all
	// equal, and the K-th tied with the rest. The exact threshold's
	// gather must then keep only the tied texels up to its position
	// (topk_gather.comp vt), or overflow again.
	const longN = 32*(shaders.TopKSplitSortMax+200) + 1
	long := testutil.NewTensor(rng, tensor.Float32, []uint32{2, longN}, testutil.Packed, func(c []uint32) uint64 {
		x := 3.0
		if c[0] == 1 && c[1] < 40 {
			x = float64(1000 + c[1])
		}
		return topKValueBits(tensor.Float32, x)
	})
	p := testutil.ForcedPlan{Desc: topKDesc(long.Desc, 1, 50, ops.AxisDirectionDecreasing, tensor.UInt32), Kernel: ops.TopKStrategyRadix, DeviceType: cpu, Tuning: tune}
	t.Run("long-ties", func(t *testing.T) {
		testutil.CheckOperator(t, d, &p, []*tensor.Tensor{long}, rng)
	})
}

// TestTopKSplitCapEdge: a row whose exact gather fills one region to
// exactly its capacity (shaders.TopKSplitSortMax passing texels and three
// that pass nothing: the row's two end texels, which hold the
// neighbouring rows' high values, and the threshold's own texel, which
// holds a tie after its index), with one gather lane (topKSplitWG 1, all
// in one region) and with eight. Row 1 of 65536+4*TopKSplitSortMax+5
// positions (73733 at 2048, 77317 at 2944) starts one word off a texel; 1.0 at every fourth position from 5 to
// 4*TopKSplitSortMax+1 (8193 at 2048, 11777 at 2944) and 50 more after
// it, negatives elsewhere; K = 1000 DECREASING: the sample fails (ties)
// and the exact threshold lands inside the ties.
// With topKSplitCap one texel smaller the wg1 row is left unwritten.
func TestTopKSplitCapEdge(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	// last: the SortMax-th 1.0 (positions 5, 9, ..., last). n puts the
	// exact threshold's position last+3 at reversed key n-1-j = 65536, a
	// prefix of the exact passes' digits, in the texel of the tie last+4.
	const last = 4*shaders.TopKSplitSortMax + 1
	const n = 65536 + last + 4
	high := uint64(0x7f000000)
	in := testutil.NewTensor(rng, tensor.Float32, []uint32{3, n}, testutil.Packed, func(c []uint32) uint64 {
		r, j := c[0], int(c[1])
		switch {
		case r == 0 && j == n-1, r == 2 && j < 2:
			return high
		case r == 1 && j%4 == 1 && j >= 5 && (j <= last || j < last+4+4*50):
			return uint64(math.Float32bits(1))
		}
		return uint64(math.Float32bits(float32(-1 - rng.Intn(1000))))
	})
	for _, wg := range []string{"1", "8"} {
		var plan *ops.Plan
		p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, 1000, ops.AxisDirectionDecreasing, tensor.UInt32),
			Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeCPU,
			Tuning: ops.Tuning{"topKSplitMinLen": "4096", "topKSplitWG": wg}}, got: &plan}
		t.Run("wg"+wg, func(t *testing.T) {
			testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			split := false
			for _, k := range plan.Kernels {
				split = split || k.Variant == "topk_gather"
			}
			if !split {
				t.Fatalf("plan %s without topk_gather, want the split select", plan.Strategy)
			}
		})
	}
}

// isSplitFirst: is v a split select's first kernel, the sampled
// threshold with the gather in its dispatch or without?
func isSplitFirst(v string) bool {
	return v == shaders.TopKThreshGatherName || v == shaders.TopKThreshSampleName
}

// splitTuning is the tuning that forces the split select from rows of
// minLen positions, with the sampled rows' gather in the threshold's
// dispatch or, apart, in its own (topKSplitThreshGather), and the
// plan's first kernel it gives.
func splitTuning(minLen string, apart bool) (ops.Tuning, string) {
	first := shaders.TopKThreshGatherName
	if apart {
		first = shaders.TopKThreshSampleName
	}
	return ops.Tuning{"topKSplitMinLen": minLen, "topKSplitThreshGather": fmt.Sprint(!apart)}, first
}

// sampledOnlyPlan is the split select's plan without the exact
// threshold's three dispatches: a row whose sampled threshold fails is
// left unwritten (poisoned). It keeps the 64-lane ranking of the rows
// the 8-lane one leaves (ROW_WIDE), which the sampled threshold holds.
type sampledOnlyPlan struct{ testutil.ForcedPlan }

func (p *sampledOnlyPlan) Plan(ctx *ops.Context) (*ops.Plan, error) {
	plan, err := p.ForcedPlan.Plan(ctx)
	if err != nil {
		return nil, err
	}
	// The steps before the exact threshold's: three with the sampled
	// rows' gather in the threshold's dispatch, else four.
	exact := 0
	for exact < len(plan.Steps) && plan.Kernels[plan.Steps[exact].Kernel].Variant != shaders.TopKThreshExactName {
		exact++
	}
	if !isSplitFirst(plan.Kernels[plan.Steps[0].Kernel].Variant) || len(plan.Steps) != exact+3 {
		return nil, fmt.Errorf("plan %s of %d steps, want the split select's", plan.Strategy, len(plan.Steps))
	}
	plan.Steps = plan.Steps[:exact]
	return plan, nil
}

// TestTopKSplitSampledHolds: on random rows the sampled threshold
// (topk_thresh.comp EXACT 0: the positions of every samp_step-th texel)
// finishes every row without the exact dispatches: its sample and the
// count it expects above the K-th best must agree, or the gather holds
// fewer than K (or more than fit) and the row is left to the exact
// path, which this plan drops. Rows of 40001 positions (rows start
// inside a texel) and 32000 (the benchmark's 8x32000, where a threshold
// cut at the first digit's coarse bins let about 3,400 entries through
// at K = 2048, more than topk_rank.comp ranks, and every row failed),
// normal values, K = 50, 700, 1024 and 2048 (steps 64, 32, 16 and 8),
// both directions.
// The values come from a fixed seed: the margin (three standard
// deviations and four) makes a failing row rare, not impossible, and
// the rows are chosen once so that the test does not flake.
func TestTopKSplitSampledHolds(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	data := rand.New(rand.NewSource(31))
	for _, shape := range [][2]uint32{{16, 40001}, {8, 32000}} {
		in := testutil.NewTensor(rng, tensor.Float32, shape[:], testutil.Packed, func([]uint32) uint64 {
			return topKValueBits(tensor.Float32, data.NormFloat64())
		})
		for _, k := range []uint32{50, 700, 1024, 2048} {
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				p := &sampledOnlyPlan{testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, tensor.UInt32), Kernel: ops.TopKStrategyRadix,
					DeviceType: caps.DeviceTypeCPU, Tuning: ops.Tuning{"topKSplitMinLen": "4096"}}}
				t.Run(fmt.Sprintf("%dx%d/K%d/%v", shape[0], shape[1], k, dir), func(t *testing.T) {
					testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
				})
			}
		}
	}
}

// TestTopKSplitRankBuckets: topk_rank.comp's buckets (equal score ranges
// over [the threshold, the row's best], each entry ranked against its
// own bucket's) on rows made to stress them, forced split select
// (topKSplitMinLen 1), checked exactly against the reference. Rows of
// 9001 positions: values in [1, 2) or, by the seed, in (-2, -1] (the
// larger or the smaller magnitudes score best), with 1e30 and -1e30
// (the range so wide that the passing entries share a few buckets over
// BUCKET_MAX: ranked whole); normal values with 1000 and -1000 (tens of
// entries a bucket, walked); scores within fewer keys than there are
// buckets (a bucket a key) and within a few more (several keys a
// bucket, many tied); 400 values each about 22 times (tie groups, the
// K-th inside one, the last walked bucket ending past K); all equal
// (the exact threshold's ties in one bucket, ranked whole). K = 100,
// 1024, 2048, both directions. Then K = N = 2048 and K = 2048 of 2049
// (every position passes; the walked buckets end at or one past K).
func TestTopKSplitRankBuckets(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 9001
	outlier := func(big float64, x func() float64) func(i int) float64 {
		return func(i int) float64 {
			switch i {
			case 7:
				return big
			case 4000:
				return -big
			}
			return x()
		}
	}
	uniform := func() float64 { return 1 + rng.Float64() }
	if rng.Intn(2) == 0 {
		uniform = func() float64 { return -1 - rng.Float64() }
	}
	keys := func(span int) func(int) float64 {
		return func(int) float64 { return float64(math.Float32frombits(0x3f800000 + uint32(rng.Intn(span)))) }
	}
	fills := []func(i int) float64{
		outlier(1e30, uniform),
		outlier(1000, rng.NormFloat64),
		keys(1500),
		keys(6000),
		func(int) float64 { return float64(rng.Intn(400)) / 4 },
		func(int) float64 { return 3 },
	}
	in := testutil.NewTensor(rng, tensor.Float32, []uint32{uint32(len(fills)), n}, testutil.Packed, func(c []uint32) uint64 {
		return topKValueBits(tensor.Float32, fills[c[0]](int(c[1])))
	})
	normal := func(rows, n uint32) *tensor.Tensor {
		return testutil.NewTensor(rng, tensor.Float32, []uint32{rows, n}, testutil.Packed, func([]uint32) uint64 {
			return topKValueBits(tensor.Float32, rng.NormFloat64())
		})
	}
	cases := []struct {
		in *tensor.Tensor
		ks []uint32
	}{{in, []uint32{100, 1024, 2048}}, {normal(2, 2048), []uint32{2048}}, {normal(2, 2049), []uint32{2048}}}
	for _, c := range cases {
		for _, k := range c.ks {
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				var plan *ops.Plan
				p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(c.in.Desc, 1, k, dir, tensor.UInt32), Kernel: ops.TopKStrategyRadix,
					DeviceType: caps.DeviceTypeCPU, Tuning: ops.Tuning{"topKSplitMinLen": "1"}}, got: &plan}
				t.Run(fmt.Sprintf("%v/K%d/%v", c.in.Desc.Sizes, k, dir), func(t *testing.T) {
					testutil.CheckOperator(t, d, p, []*tensor.Tensor{c.in}, rng)
					if !isSplitFirst(plan.Kernels[0].Variant) {
						t.Fatalf("plan runs %s first, want the split select", plan.Kernels[0].Variant)
					}
				})
			}
		}
	}
}

// TestTopKSplitBatches: rows in several batches of the split select (a
// binding window of 300 KiB holds three rows' states; 17 rows, so the
// last batch is shorter and its lists and states lie elsewhere), so that each
// batch's header (topk_split.glsl HDR_WIDE, HDR_EXACT, their lists) is
// set and filled again in the same temporary resource after the previous
// batch's indirect dispatches read it, with rows of every path: sampled,
// ROW_WIDE (the overflowing ties) and ROW_FAILED (too few passing, none)
// in different batches and places within them.
func TestTopKSplitBatches(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{BindingWindowCap: 300 << 10})
	rng := testutil.Rand(t)
	const n = 9001
	fills := topKSampledFills(rng, 32)
	fills = append(fills, fills...)
	fills = append(fills, fills[rng.Intn(len(fills))])[:17]
	rng.Shuffle(len(fills), func(i, j int) { fills[i], fills[j] = fills[j], fills[i] })
	in := testutil.NewTensor(rng, tensor.Float32, []uint32{uint32(len(fills)), n}, testutil.Packed, func(c []uint32) uint64 {
		return topKValueBits(tensor.Float32, fills[c[0]](int(c[1])))
	})
	// K = 2048 also with the sampled rows' gather in a dispatch of its
	// own (topk_gather.comp then sets each batch's header).
	for _, c := range []struct {
		k     uint32
		apart bool
	}{{50, false}, {2048, false}, {2048, true}} {
		tune, first := splitTuning("4096", c.apart)
		p := testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, c.k, ops.AxisDirectionDecreasing, tensor.UInt32), Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeCPU, Tuning: tune}
		ctx := testutil.PlanContext(d)
		ctx.BindingWindowCap = 300 << 10 // the device's, as dml plans with it
		plan, err := p.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Kernels[0].Variant != first || len(plan.Steps) < 3*6 {
			t.Fatalf("K=%d: %d steps of %s first, want the split select in three batches or more, %s first", c.k, len(plan.Steps), plan.Kernels[0].Variant, first)
		}
		t.Run(fmt.Sprintf("K%d/%d-rows/%d-steps/%s", c.k, len(fills), len(plan.Steps), first), func(t *testing.T) {
			testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
		})
	}
}

// TestTopKSplitBracketMissed: the sampled threshold's bracket
// (topk_thresh.comp bracket_pass) on a row whose subsample (every
// shaders.TopKSplitSubsample-th texel of the sample, which takes every
// 8th texel at K = 2048 of 9001) is unlike the rest: every other texel
// holds the best values (1000 and more, or -1000 and less increasing),
// so every best score of the sample lies past the bracket's bins. The
// bracket then fails the row, rather than running the sample's whole
// passes after its own (ops topKSplitSampleIters' bound): without the
// exact dispatches the row is left unwritten, while a random row beside
// it, whose bracket holds, is written; with them both are exact. Both
// directions, the gather in the threshold's dispatch and apart.
func TestTopKSplitBracketMissed(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 9001
	for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
		best := 1000.0
		if dir == ops.AxisDirectionIncreasing {
			best = -1000
		}
		// The values from a fixed seed, as TestTopKSplitSampledHolds's:
		// a random row's sample fails now and then (its margin makes
		// that rare, not impossible).
		data := rand.New(rand.NewSource(47))
		in := testutil.NewTensor(rng, tensor.Float32, []uint32{2, n}, testutil.Packed, func(c []uint32) uint64 {
			e0 := uint64(c[0]) * n
			if v := (e0+uint64(c[1]))/4 - e0/4; c[0] == 1 && v%(8*shaders.TopKSplitSubsample) != 0 {
				return topKValueBits(tensor.Float32, best+data.NormFloat64())
			}
			return topKValueBits(tensor.Float32, data.NormFloat64())
		})
		for _, apart := range []bool{false, true} {
			tune, _ := splitTuning("4096", apart)
			full := testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, 2048, dir, tensor.UInt32), Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeCPU, Tuning: tune}
			t.Run(fmt.Sprintf("%v/apart=%v", dir, apart), func(t *testing.T) {
				res, err := testutil.RunPoisoned(d, &sampledOnlyPlan{full}, []*tensor.Tensor{in}, rng)
				if err != nil {
					t.Fatal(err)
				}
				for row, wantWritten := range []bool{true, false} {
					written := true
					for j := uint32(0); j < 2048; j++ {
						c := []uint32{uint32(row), j}
						written = written && res.Outputs[0].Bits(c...) == res.Expected[0].Bits(c...) && res.Outputs[1].Bits(c...) == res.Expected[1].Bits(c...)
					}
					if written != wantWritten {
						t.Errorf("row %d: sampled plan wrote its results %v, want %v", row, written, wantWritten)
					}
				}
				testutil.CheckOperator(t, d, &full, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
