//go:build cgo

package ops_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/x448/float16"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// topKDesc is TOP_K1 over in along axis with packed outputs.
func topKDesc(in tensor.Desc, axis, k uint32, dir ops.AxisDirection, idx tensor.DataType) *ops.TopK1 {
	out := slices.Clone(in.Sizes)
	out[axis] = k
	return &ops.TopK1{Input: in, OutputValue: tensor.NewDesc(in.DataType, out), OutputIndex: tensor.NewDesc(idx, out),
		Axis: axis, K: k, AxisDirection: dir}
}

// topKBits draws element bits for dt from a small pool most of the time,
// so that rows hold ties, signed zeros and (floats) NaNs of several
// payloads, and otherwise any bits.
func topKBits(rng *rand.Rand, dt tensor.DataType) uint64 {
	if rng.Intn(4) == 0 {
		return testutil.RandomBits(rng, dt)
	}
	switch dt {
	case tensor.Float32:
		pool := []uint32{0x7fc00000, 0xffc00001, 0x80000000, 0, 0x3f800000, 0xbf800000, 0x40000000, 0x7f800000, 0xff800000}
		return uint64(pool[rng.Intn(len(pool))])
	case tensor.Float16:
		pool := []uint16{0x7e00, 0xfe01, 0x8000, 0, 0x3c00, 0xbc00, 0x4000, 0x7c00, 0xfc00}
		return uint64(pool[rng.Intn(len(pool))])
	}
	v := uint64(rng.Intn(5))
	if dt.IsSigned() && rng.Intn(2) == 0 {
		v = -v
	}
	if w := dt.Size() * 8; w < 64 {
		v &= 1<<w - 1
	}
	return v
}

// topKRun checks desc on the GPU against the reference, with strategy
// strat forced ("" the planner's choice).
func topKRun(t *testing.T, d *dml.Device, desc ops.Desc, in *tensor.Tensor, strat string, rng *rand.Rand) {
	t.Helper()
	if gpu, ok := topKGPUStrategies[strat]; ok {
		p := &testutil.ForcedPlan{Desc: desc, Kernel: gpu, DeviceType: caps.DeviceTypeDiscreteGPU}
		testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
		return
	}
	if strat != "" {
		op, err := d.CreateOperatorWithKernel(desc, strat)
		if err != nil {
			t.Fatalf("CreateOperatorWithKernel(%s): %v", strat, err)
		}
		if op.Strategy() != strat {
			t.Fatalf("forced %q, plan says %q", strat, op.Strategy())
		}
		desc = &testutil.ForcedPlan{Desc: desc, Kernel: strat}
	}
	testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
}

// topKTakes: does strategy strat ("" the planner's choice) take K = k?
func topKTakes(strat string, k uint32) bool {
	switch strat {
	case ops.TopKStrategyThread, ops.TopKStrategyLane:
		return k <= 16
	case ops.TopKStrategyFilter:
		return k <= 1024
	case ops.TopKStrategyRadix:
		return k <= 2048
	case ops.TopKStrategyMaxima:
		// 32-bit rows of input stride 1 and K groups only:
		// TestTopKMaxima.
		return false
	}
	return true
}

// TestTopKMeasured: DirectML's measured cases (issue 31, semantics.md
// rules 32-35) on every strategy.
func TestTopKMeasured(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	nan := float32(math.NaN())
	cases := []struct {
		v     []float32
		k     uint32
		dir   ops.AxisDirection
		index []uint64
	}{
		{[]float32{3, 1, 3, 2, 3}, 2, ops.AxisDirectionDecreasing, []uint64{0, 2}},
		{[]float32{1, nan, 3, 2}, 2, ops.AxisDirectionDecreasing, []uint64{2, 3}},
		{[]float32{nan, 1, 3, 2}, 2, ops.AxisDirectionDecreasing, []uint64{2, 3}},
		{[]float32{nan, 1, 3, 2}, 2, ops.AxisDirectionIncreasing, []uint64{1, 3}},
		{[]float32{1, nan, 3, 2}, 2, ops.AxisDirectionIncreasing, []uint64{0, 3}},
		{[]float32{nan, 2, nan, 1}, 3, ops.AxisDirectionDecreasing, []uint64{1, 3, 0}},
		{[]float32{float32(math.Copysign(0, -1)), 0, -1}, 3, ops.AxisDirectionDecreasing, []uint64{0, 1, 2}},
	}
	for _, c := range cases {
		in := tensor.FromFloat32([]uint32{uint32(len(c.v))}, c.v)
		for _, strat := range ops.TopKStrategies {
			if strat == ops.TopKStrategyMaxima {
				continue // rows of at least K groups: TestTopKMaxima
			}
			desc := topKDesc(in.Desc, 0, c.k, c.dir, tensor.UInt32)
			if strat != "" {
				topKRun(t, d, desc, in, strat, rng)
			}
			res := testutil.CheckOperator(t, d, &testutil.ForcedPlan{Desc: desc, Kernel: strat}, []*tensor.Tensor{in}, rng)
			if got := res.Outputs[1].Uint64s(); !slices.Equal(got, c.index) {
				t.Errorf("%v K=%d %v (%s): indices %v, want %v", c.v, c.k, c.dir, strat, got, c.index)
			}
		}
	}
}

// TestTopKRandom: random shapes, layouts, types, axes and K (1, the axis
// size, around 16 and around the sort's 2048) on every strategy that
// takes the K, checked exactly against the reference.
func TestTopKRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int32, tensor.Int16, tensor.Int8, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int64, tensor.UInt64}
	for it := 0; it < 40; it++ {
		dt := types[rng.Intn(len(types))]
		rank := 1 + rng.Intn(4)
		sizes := testutil.RandomSizes(rng, rank, 6, 200)
		axis := uint32(rng.Intn(rank))
		// A long axis now and then: several segments and merge passes.
		switch rng.Intn(4) {
		case 0:
			sizes[axis] = uint32(1 + rng.Intn(5000))
		case 1:
			sizes[axis] = uint32(1 + rng.Intn(300))
		}
		n := sizes[axis]
		ks := []uint32{1, n, uint32(1 + rng.Intn(int(n)))}
		for _, k := range []uint32{15, 16, 17, 1023, 1024, 1025, 2047, 2048, 2049} {
			if k <= n {
				ks = append(ks, k)
			}
		}
		k := ks[rng.Intn(len(ks))]
		layout := testutil.Layouts[rng.Intn(3)]
		in := testutil.NewTensor(rng, dt, sizes, layout, func([]uint32) uint64 { return topKBits(rng, dt) })
		dir := ops.AxisDirection(rng.Intn(2))
		idx := tensor.UInt32
		if rng.Intn(3) == 0 {
			idx = tensor.UInt64
		}
		desc := topKDesc(in.Desc, axis, k, dir, idx)
		for _, strat := range append([]string{""}, ops.TopKStrategies...) {
			// Radix on every eighth case only: its pipelines take lavapipe
			// seconds each to compile, and TestTopKRadix and
			// TestTopKFilterAdversarial cover it.
			if !topKTakes(strat, k) || strat == ops.TopKStrategyRadix && it%8 != 0 {
				continue
			}
			t.Run(fmt.Sprintf("%d/%v/%v/%s/axis%d/K%d/%v/%s", it, dt, sizes, layout, axis, k, dir, strat), func(t *testing.T) {
				topKRun(t, d, desc, in, strat, rng)
			})
		}
	}
}

// TestTopKWindows: small binding windows cut the rows into boxes and the
// temporary into batches.
func TestTopKWindows(t *testing.T) {
	rng := testutil.Rand(t)
	for _, cap := range []uint64{8192, 20000} {
		d := testutil.OpenDML(t, dml.DeviceOptions{BindingWindowCap: cap})
		sizes := []uint32{7, 300, 5}
		in := testutil.NewTensor(rng, tensor.Float32, sizes, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Float32) })
		for _, axis := range []uint32{1, 2} {
			for _, k := range []uint32{1, 5, 40} {
				if k > sizes[axis] {
					continue
				}
				for _, strat := range append([]string{""}, ops.TopKStrategies...) {
					if !topKTakes(strat, k) {
						continue
					}
					t.Run(fmt.Sprintf("cap%d/axis%d/K%d/%s", cap, axis, k, strat), func(t *testing.T) {
						topKRun(t, d, topKDesc(in.Desc, axis, k, ops.AxisDirectionDecreasing, tensor.UInt32), in, strat, rng)
					})
				}
			}
		}
	}
}

// TestTopKFilterAdversarial: the filter strategy where every position is a
// candidate (ascending rows for DECREASING, so the buffer fills at every
// chunk), where ties and NaNs straddle chunk and segment boundaries, and
// with K at the list's sizes; every strategy that takes K, against the
// reference. The GPUs' filter (16-byte vectors) also runs on FLOAT16,
// INT16 and UINT16 rows of the same values (eight positions a vector,
// heads and tails of up to seven; FLOAT16 rounds the ascending rows past
// 2048 into runs of ties).
func TestTopKFilterAdversarial(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	negZero := float32(math.Copysign(0, -1))
	fills := map[string]func(i, n int) float32{
		"ascending": func(i, _ int) float32 { return float32(i) },
		"ties":      func(i, _ int) float32 { return float32(i % 7) },
		"nan":       func(i, _ int) float32 { return []float32{float32(math.NaN()), 1, -0.0, float32(i % 3)}[i%4] },
		"random":    func(int, int) float32 { return float32(rng.Intn(100)) },
		// Fourteen 1s early, -0s late, +0s in the last seven positions
		// (the vector scans' tail, offered first), -1 elsewhere: with K
		// = 17 the list's K-th entry is a tail +0 while the -0s, lower
		// in index, are still to come and tie it on score (the 16-bit
		// pretest's gate key of -0 is below +0's).
		"zeros": func(i, n int) float32 {
			switch j := i % n; {
			case j >= n-7:
				return 0
			case j < 98 && j%7 == 0:
				return 1
			case j >= n*4/5 && j%3 == 0:
				return negZero
			}
			return -1
		},
	}
	names := slices.Sorted(maps.Keys(fills)) // a seed replays the same rows
	// 1501: the second row starts off a 16-byte boundary (vector scans
	// with a head and a tail).
	for _, n := range []uint32{700, 1501, 9000} {
		// Every fill's FLOAT32 rows, then its rows of each 16-bit type:
		// filterAdversarialRun takes each K, direction and strategy across
		// them in this order, so that the runs of one desc (the fills of
		// a type), whose pipelines are the same, follow each other and
		// share them through the device's kernel cache.
		values := map[string][]float32{}
		for _, name := range names {
			v := make([]float32, 2*n)
			for i := range v {
				v[i] = fills[name](i, int(n))
			}
			values[name] = v
		}
		var rows []filterAdversarialRows
		for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int16, tensor.UInt16} {
			if testing.Short() && dt != tensor.Float32 && dt != tensor.Float16 {
				continue // -short: FLOAT16's rows only
			}
			for _, name := range names {
				v := values[name]
				r := filterAdversarialRows{name: name, in: tensor.FromFloat32([]uint32{2, n}, v),
					strats: []string{ops.TopKStrategyFilter, topKFilterGPU, ops.TopKStrategySort, ops.TopKStrategyRadix}}
				if name == "zeros" && testing.Short() {
					r.strats = []string{topKFilterGPU} // -short: the vector pretest it is made for
				}
				if dt != tensor.Float32 {
					r.name = fmt.Sprintf("%s/%v", name, dt)
					r.in = testutil.NewTensor(rng, dt, []uint32{2, n}, testutil.Packed, func(c []uint32) uint64 {
						return topKValueBits(dt, float64(v[int(c[0]*n+c[1])]))
					})
					r.strats = []string{topKFilterGPU}
				}
				rows = append(rows, r)
			}
		}
		filterAdversarialRun(t, d, rng, rows, n)
	}
}

// filterAdversarialRows are rows of one of TestTopKFilterAdversarial's
// fills and the strategies that run on them.
type filterAdversarialRows struct {
	name   string
	in     *tensor.Tensor
	strats []string
}

// filterAdversarialRun runs TestTopKFilterAdversarial's strategies on
// each of rows (2 rows of n), K from the list's sizes.
func filterAdversarialRun(t *testing.T, d *dml.Device, rng *rand.Rand, rows []filterAdversarialRows, n uint32) {
	t.Helper()
	for _, k := range []uint32{17, 50, 64, 65, 1000, 1024} {
		if k > n {
			continue
		}
		for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
			for _, strat := range []string{ops.TopKStrategyFilter, topKFilterGPU, ops.TopKStrategySort, ops.TopKStrategyRadix} {
				if strat == ops.TopKStrategyRadix && testing.Short() && k != 1024 {
					continue // -short: radix's pipelines cost lavapipe seconds each; TestTopKRadix covers it
				}
				if n == 1501 && strat != topKFilterGPU || strat == topKFilterGPU && testing.Short() && (n != 1501 || k > 65) {
					continue // -short: the GPUs' filter on the unaligned rows, K up to 65
				}
				for _, r := range rows {
					if !slices.Contains(r.strats, strat) {
						continue
					}
					t.Run(fmt.Sprintf("%s/n%d/K%d/%v/%s", r.name, n, k, dir, strat), func(t *testing.T) {
						topKRun(t, d, topKDesc(r.in.Desc, 1, k, dir, tensor.UInt32), r.in, strat, rng)
					})
				}
			}
		}
	}
}

// topKFill is a row's FLOAT32 bits by position.
type topKFill struct {
	name string
	bits func(i int) uint64
}

// topKFills are rows that reach the selections' edges: all-equal, ascending,
// few values, NaNs and signed zeros, random; a slice, not a map, so that
// a seed replays the same rows.
func topKFills(rng *rand.Rand) []topKFill {
	return []topKFill{
		{"equal", func(int) uint64 { return 0x3f800000 }},
		{"ascending", func(i int) uint64 { return uint64(math.Float32bits(float32(i))) }},
		{"few", func(i int) uint64 { return uint64(math.Float32bits(float32(rng.Intn(3)))) }},
		{"nan-zeros", func(i int) uint64 {
			return []uint64{0x7fc00000, 0x80000000, 0, 0xffc00001, 0x3f800000}[(i*7+rng.Intn(2))%5]
		}},
		{"random", func(int) uint64 { return uint64(rng.Uint32()) }},
	}
}

// TestTopKRadix: the radix strategy where its digit passes run (rows
// longer than the sort it ends with) and where they must go down to the
// positions' digits: all-equal rows (every key ties on the score), few
// values, NaNs and signed zeros placed across the rows and the segment
// boundary, ascending rows, 16-, 32- and 64-bit keys (whose digits
// straddle key words differently), K = 1, K around the rank's limit
// (2047, 2048) and between; as lavapipe plans it (a row per workgroup,
// the sort stopped at 2048 or at K's power of two) and as a GPU plans it
// (1024 lanes or the device's most, rows cut into split-K segments and
// merged, the runs' budget lifted so that large Ks split too; the budget's
// one segment a row is TestTopKRunsBudgetGPU's): one K and one
// plan for each of the 15 rows, two rows under -short.
func TestTopKRadix(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	// FLOAT32 bits by position (FLOAT16 and UINT64 rows are made from
	// them).
	fills := topKFills(rng)
	plans := []struct {
		name string
		plan testutil.ForcedPlan
	}{
		// topKSplitMinLen 0: topk_select.comp's radix on the CPU class's
		// rows from 8192 on too (the split select: TestTopKSplit*).
		{"cpu", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKRadixSortMul": "0", "topKSplitMinLen": "0"}}},
		{"cpu-sortK", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKRadixSortMul": "1", "topKSplitMinLen": "0"}}},
		{"gpu-split", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU,
			Tuning: ops.Tuning{"topKRadixSplit": "true", "topKRadixSortMul": "0", "topKRunPercent": "0"}}},
	}
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt64}
	// -short: two (fill, type) rows, the all-equal one among them.
	short := map[[2]int]bool{{rng.Intn(len(fills)), rng.Intn(len(types))}: true, {0, rng.Intn(len(types))}: true}
	for fi, f := range fills {
		name, fill := f.name, f.bits
		for ti, dt := range types {
			if testing.Short() && !short[[2]int{fi, ti}] {
				continue
			}
			// From 8192 on, the GPU plan cuts a row into two segments.
			n := uint32(2500 + rng.Intn(3000) + min(ti, 1)*5700)
			in := testutil.NewTensor(rng, dt, []uint32{2, n}, testutil.Packed, func(c []uint32) uint64 {
				b := fill(int(c[1]))
				switch dt {
				case tensor.Float16:
					return uint64(float16.Fromfloat32(math.Float32frombits(uint32(b))).Bits())
				case tensor.UInt64:
					return b<<32 | b>>7
				}
				return b
			})
			// One K and one plan a row (each radix pipeline takes lavapipe
			// seconds to compile); the plans take turns.
			ks := []uint32{1, 2047, 2048, uint32(2 + rng.Intn(2000))}
			for _, k := range ks[rng.Intn(len(ks)):][:1] {
				dir := ops.AxisDirection(rng.Intn(2))
				for _, pl := range plans[(fi+ti)%len(plans):][:1] {
					p, pname := pl.plan, pl.name
					p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
					t.Run(fmt.Sprintf("%s/%v/n%d/K%d/%v/%s", name, dt, n, k, dir, pname), func(t *testing.T) {
						testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
					})
				}
			}
		}
	}
}

// TestTopKRadixSampled: the radix strategy's sampled threshold
// (topk_select.comp radix_sampled), forced with a sample of every 16th
// position, on rows where it gathers enough (random values, few values
// with ties at the threshold, ascending and descending rows) and where
// it must fall back to the exact passes: all-equal rows (the gather holds
// the whole row), rows whose sampled positions hold the largest values
// (it holds fewer than K), mostly-NaN rows (the threshold is a NaN's
// score), NaNs and signed zeros among the numbers; an odd row length, so
// that the second row's 16-byte scan has a head and a tail; K = 1, two
// Ks the sample covers, K = 2048 (no sample: the gather could not hold
// K with a margin; buckets) and, on a row of 1500, K = the row (the
// sample would have to keep all of it: declined); both directions. Every row of a tensor is one fill, so that a
// pipeline (seconds to compile on lavapipe) covers them all. Each case
// runs with the sample over the CPU tuning's floor; FLOAT32's (the texel
// variant, the only one that takes a floor) at K = 700 run with the floor
// alone too (topk_select.comp radix_select), all of FLOAT32's cases with
// VKDML_LONG=1 (CI time: the floor alone on every case doubled the run).
// -short: FLOAT32, K = 50 INCREASING and K = 700 DECREASING, the floor
// alone at K = 700.
func TestTopKRadixSampled(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	fills := topKSampledFills(rng, 16)
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int16}
	rows := map[uint32][]uint32{9001: {1, 50, 700, 2048}, 1500: {1500}}
	if testing.Short() {
		types, rows = types[:1], map[uint32][]uint32{9001: {50, 700}}
	}
	// The sampled threshold over a floor from a sparser sample (the CPU
	// tuning's topKRadixFloor), and the floor alone (the exact passes
	// then count only the entries at the floor), both taken whatever
	// share of the row is expected at the floor (topKRadixFloorShare 0:
	// with blocks, topk_select.comp radix_scan). TestTopKRadix's plans
	// (the CPU tuning's share) take no floor on its rows: the texel
	// variant's scan a vector at a time.
	plans := []struct {
		name string
		plan testutil.ForcedPlan
	}{
		// topKSplitMinLen 0: topk_select.comp's radix on the CPU class's
		// rows from 8192 on too (the split select: TestTopKSplit*).
		{"sampled", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKRadixSample": "16", "topKRadixSampleCap": "2048", "topKRadixFloorShare": "0", "topKSplitMinLen": "0"}}},
		{"floor", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKRadixSample": "0", "topKRadixFloor": "16", "topKRadixFloorShare": "0", "topKSplitMinLen": "0"}}},
	}
	for _, dt := range types {
		for _, n := range []uint32{9001, 1500} {
			if len(rows[n]) == 0 {
				continue
			}
			in := testutil.NewTensor(rng, dt, []uint32{uint32(len(fills)), n}, testutil.Packed, func(c []uint32) uint64 {
				x := fills[c[0]](int(c[1]))
				if dt == tensor.Int16 {
					x *= 100 // distinct values at the integers' resolution
				}
				return topKValueBits(dt, x)
			})
			for _, k := range rows[n] {
				for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
					if testing.Short() && (k == 50) == (dir == ops.AxisDirectionDecreasing) {
						continue
					}
					for pi, pl := range plans {
						// The floor alone: FLOAT32 at K = 700 (every K
						// with VKDML_LONG=1).
						if pi == 1 && (dt != tensor.Float32 || k != 700 && !testutil.Long()) {
							continue
						}
						p := pl.plan
						p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
						t.Run(fmt.Sprintf("%v/n%d/K%d/%v/%s", dt, n, k, dir, pl.name), func(t *testing.T) {
							testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
						})
					}
				}
			}
		}
	}
}

// topKValueBits is x's bits as dt: a float's (NaN a quiet NaN, -0 kept),
// or an integer's, x rounded toward zero and clamped to the type's range
// (NaN is 0).
func topKValueBits(dt tensor.DataType, x float64) uint64 {
	switch dt {
	case tensor.Float32:
		return uint64(math.Float32bits(float32(x)))
	case tensor.Float16:
		return uint64(float16.Fromfloat32(float32(x)).Bits())
	}
	if math.IsNaN(x) {
		return 0
	}
	w := uint(dt.Size() * 8)
	lo, hi := 0.0, math.Ldexp(1, int(w))-1
	if dt.IsSigned() {
		lo, hi = -math.Ldexp(1, int(w)-1), math.Ldexp(1, int(w)-1)-1
	}
	x = math.Trunc(math.Max(lo, math.Min(hi, x)))
	var v uint64
	switch {
	case x >= math.Ldexp(1, 63):
		v = math.MaxUint64 // UINT64's maximum (hi rounds up to 2^64)
	case x >= 0:
		v = uint64(x)
	default:
		v = uint64(int64(x))
	}
	if w < 64 {
		v &= 1<<w - 1
	}
	return v
}

// topKLaneGPU and topKFilterGPU name, in a test's list of strategies
// for topKRun, the lane strategy planned with the GPUs' tuning (its
// workgroups of 128 or 256 lanes, where lavapipe's have 8) and the
// filter strategy (16-byte vectors a lane on 32-bit rows of stride 1).
const (
	topKLaneGPU   = "lane-gpu"
	topKFilterGPU = "filter-gpu"
)

var topKGPUStrategies = map[string]string{topKLaneGPU: ops.TopKStrategyLane, topKFilterGPU: ops.TopKStrategyFilter}

// TestTopKListGate: the thread and lane lists' gate (topk_select.comp
// THE GATE), which skips a position by its value alone once the list's
// last entry is a number, on rows where every position enters (ascending
// for DECREASING, descending for INCREASING), all ties, NaNs before, among
// and after the numbers, signed zeros, subnormals next to the zeros,
// negative floats (one ulp apart too), the types' extremes and random bits; at every element
// width and with K = 1, 2 and the lists' 16, each row against the
// reference. Rows of an odd length start at every word alignment and end
// in a partial vector: the 16-byte scans of 32-bit rows (topk_select.comp
// scan_split) then have heads and tails of 0 to 3 positions. The radix
// strategy's scans test vectors too and run at K = 16. The lane strategy
// runs with lavapipe's and with the GPUs' tuning. 16-bit rows are read
// eight positions a vector (VEC8), heads and tails of 0 to 7. -short:
// FLOAT32 and FLOAT16 with K = 1 and 16 (radix and the GPUs' lane plan
// DECREASING only at 16).
func TestTopKListGate(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 1501
	nan := math.NaN()
	sub := []float64{0, math.Copysign(0, -1), 1e-45, -1e-45, 6e-8, -6e-8}
	rowFills := []func(dt tensor.DataType, i int) uint64{
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, float64(i-n/2)) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, float64(n/2-i)) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, 3) },
		func(dt tensor.DataType, i int) uint64 {
			if i < n/2 {
				return topKValueBits(dt, nan)
			}
			return topKValueBits(dt, float64(i%5))
		},
		func(dt tensor.DataType, i int) uint64 {
			if i%3 == 0 {
				return topKValueBits(dt, nan)
			}
			return topKValueBits(dt, float64(i%7-3))
		},
		func(dt tensor.DataType, i int) uint64 {
			if i >= n-3 {
				return topKValueBits(dt, float64(-i))
			}
			return topKValueBits(dt, nan)
		},
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, sub[i%len(sub)]) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, -1-float64(i%11)/4) },
		// Negative floats one ulp apart, each above the one before: the
		// gate's threshold from a negative score must not skip them.
		func(dt tensor.DataType, i int) uint64 {
			switch dt {
			case tensor.Float32:
				return 0xbf800002 - uint64(i%3)
			case tensor.Float16:
				return 0xbc02 - uint64(i%3)
			}
			return topKValueBits(dt, float64(i%3-5))
		},
		func(dt tensor.DataType, i int) uint64 {
			return topKValueBits(dt, []float64{math.Inf(1), 0, math.Inf(-1), 1, -1}[i%5])
		},
		func(dt tensor.DataType, i int) uint64 { return testutil.RandomBits(rng, dt) },
	}
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int8, tensor.UInt32, tensor.Int32, tensor.Int16, tensor.UInt16, tensor.Int64, tensor.UInt64}
	ks := []uint32{1, 2, 16}
	if testing.Short() {
		types, ks = []tensor.DataType{tensor.Float32, tensor.Float16}, []uint32{1, 16}
	}
	for _, dt := range types {
		sizes := []uint32{uint32(len(rowFills)), n}
		in := testutil.NewTensor(rng, dt, sizes, testutil.Packed, func(c []uint32) uint64 { return rowFills[c[0]](dt, int(c[1])) })
		for _, k := range ks {
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				strats := []string{ops.TopKStrategyThread, ops.TopKStrategyLane}
				// -short: the 4-second pipelines (K = 16's 128 lanes with the
				// GPUs' tuning, radix) in one direction.
				if k < 16 || !testing.Short() || dir == ops.AxisDirectionDecreasing {
					strats = append(strats, topKLaneGPU)
				}
				if k == 16 && (!testing.Short() || dir == ops.AxisDirectionDecreasing) {
					strats = append(strats, ops.TopKStrategyRadix)
				}
				for _, strat := range strats {
					t.Run(fmt.Sprintf("%v/K%d/%v/%s", dt, k, dir, strat), func(t *testing.T) {
						topKRun(t, d, topKDesc(in.Desc, 1, k, dir, tensor.UInt32), in, strat, rng)
					})
				}
			}
		}
	}
}

// TestTopKRunsBudgetGPU: the planner's choice with the GPUs' tuning where
// the runs' budget (tuning topKRunPercent) shapes the plan, against the
// reference: FLOAT32 K=1000 on rows of 9000, whose filter segments would
// write runs of most of the row, goes to radix with a segment a row (the
// GPUs' 1024-lane workgroups, or the device's most); K=50 on rows of
// 20000 keeps filter with workgroups of 64 (topKFilterMinWG) and three
// segments a row (four would exceed the budget), INT64 with four, their
// runs merged. Rows draw from few values (ties, signed zeros, NaNs)
// across the segment boundaries. -short: one direction a case.
func TestTopKRunsBudgetGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range []struct {
		dt       tensor.DataType
		n, k     uint32
		strategy string
	}{
		{tensor.Float32, 9000, 1000, ops.TopKStrategyRadix},
		{tensor.Float32, 20000, 50, ops.TopKStrategyFilter},
		{tensor.Int64, 20000, 50, ops.TopKStrategyFilter},
	} {
		in := testutil.NewTensor(rng, c.dt, []uint32{2, c.n}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, c.dt) })
		dirs := []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing}
		if testing.Short() {
			dirs = dirs[rng.Intn(2):][:1]
		}
		for _, dir := range dirs {
			p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, c.k, dir, tensor.UInt32), DeviceType: caps.DeviceTypeDiscreteGPU}
			t.Run(fmt.Sprintf("%v/n%d/K%d/%v", c.dt, c.n, c.k, dir), func(t *testing.T) {
				op, err := d.CreateOperator(p)
				if err != nil {
					t.Fatal(err)
				}
				if op.Strategy() != c.strategy {
					t.Fatalf("the GPUs' tuning planned %q; want %q", op.Strategy(), c.strategy)
				}
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}

// TestTopKLaneWholeRow: lavapipe's lane plans for rows shorter than the
// CPU tuning's topKLaneSplitMinLen (8x32000, the vocabulary rows of issue
// 31) run one dispatch, a workgroup a row with no merge passes, and
// agree with the reference; with the knob at 0 the same rows are cut
// into split-K segments and merged, and agree too. Rows: all ties (the
// first wins in both directions), NaNs but two equal numbers in
// different lanes' shares (the first wins), a random row whose extremes
// appear twice far apart, -0 and +0 ties in both orders (the first, with
// its bits), all NaN (the first NaN), ascending and descending (the
// winner at either end), random bits. -short: FLOAT32 (the texel scan)
// at K = 1 in both directions and FLOAT16 DECREASING, split only for
// FLOAT32 DECREASING.
func TestTopKLaneWholeRow(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	const n = 32000
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.Float64()*2 - 1
	}
	// zerosAt: -1 but the signed zeros at.
	zerosAt := func(dt tensor.DataType, i int, at map[int]float64) uint64 {
		if z, ok := at[i]; ok {
			return topKValueBits(dt, z)
		}
		return topKValueBits(dt, -1)
	}
	rowFills := []func(dt tensor.DataType, i int) uint64{
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, 3) },
		func(dt tensor.DataType, i int) uint64 {
			if i == 4573 || i == n-1 {
				return topKValueBits(dt, -5)
			}
			return topKValueBits(dt, nan)
		},
		func(dt tensor.DataType, i int) uint64 {
			switch i {
			case 9145, 27431:
				return topKValueBits(dt, 2)
			case 13, n - 2:
				return topKValueBits(dt, -2)
			}
			return topKValueBits(dt, u[i])
		},
		func(dt tensor.DataType, i int) uint64 {
			return zerosAt(dt, i, map[int]float64{7: 0, 20001: negZero, 30000: 0})
		},
		func(dt tensor.DataType, i int) uint64 { return zerosAt(dt, i, map[int]float64{7: negZero, 20001: 0}) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, nan) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, float64(i%2000-1000)) },
		func(dt tensor.DataType, i int) uint64 { return topKValueBits(dt, float64(1000-i%2000)) },
		func(dt tensor.DataType, i int) uint64 { return testutil.RandomBits(rng, dt) },
	}
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int32, tensor.UInt8, tensor.Int64}
	ks := []uint32{1, 2}
	if testing.Short() {
		types, ks = types[:2], ks[:1]
	}
	for _, dt := range types {
		in := testutil.NewTensor(rng, dt, []uint32{uint32(len(rowFills)), n}, testutil.Packed, func(c []uint32) uint64 { return rowFills[c[0]](dt, int(c[1])) })
		for _, k := range ks {
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				if testing.Short() && dt != tensor.Float32 && dir != ops.AxisDirectionDecreasing {
					continue
				}
				for _, split := range []bool{false, true} {
					if testing.Short() && split && (dt != tensor.Float32 || dir != ops.AxisDirectionDecreasing) {
						continue
					}
					t.Run(fmt.Sprintf("%v/K%d/%v/split=%v", dt, k, dir, split), func(t *testing.T) {
						var plan *ops.Plan
						p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, tensor.UInt32),
							DeviceType: caps.DeviceTypeCPU}, got: &plan}
						if split {
							p.Tuning = ops.Tuning{"topKLaneSplitMinLen": "0"}
						}
						testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
						if plan.Strategy != ops.TopKStrategyLane || (len(plan.Steps) == 1) == split {
							t.Fatalf("plan %s of %d dispatches, want lane in one dispatch (split=false) or several (split=true)", plan.Strategy, len(plan.Steps))
						}
					})
				}
			}
		}
	}
}

// TestTopKFilterShortRowsGPU: the GPUs' filter reads 16-byte vectors only
// where a row has one for each of the workgroup's lanes; shorter rows
// (65536x64 in the h100 grid) test one position a lane. Both sides of the
// cut, FLOAT32 and FLOAT16, rows of ties, NaNs and signed zeros
// (topKBits), every row but the first off a 16-byte boundary where n is
// odd, against the reference.
func TestTopKFilterShortRowsGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range []struct {
		dt      tensor.DataType
		n, k    uint32
		vectors bool // the plan's samp_step is the vector's positions
	}{
		{tensor.Float32, 64, 17, false}, {tensor.Float32, 255, 33, false}, {tensor.Float32, 256, 17, true},
		{tensor.Float32, 301, 64, true}, {tensor.Float16, 64, 33, false}, {tensor.Float16, 511, 17, false},
		{tensor.Float16, 513, 17, true},
	} {
		in := testutil.NewTensor(rng, c.dt, []uint32{5, c.n}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, c.dt) })
		for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
			t.Run(fmt.Sprintf("%v/n%d/K%d/%v", c.dt, c.n, c.k, dir), func(t *testing.T) {
				var plan *ops.Plan
				p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, c.k, dir, tensor.UInt32),
					Kernel: ops.TopKStrategyFilter, DeviceType: caps.DeviceTypeDiscreteGPU}, got: &plan}
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
				_, push, err := ops.StepValues(plan, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := push["samp_step"] > 0; got != c.vectors {
					t.Fatalf("samp_step %d (workgroup of %d lanes): vectors %v, want %v", push["samp_step"], plan.Kernels[plan.Steps[0].Kernel].Spec[0], got, c.vectors)
				}
			})
		}
	}
}

// TestTopKRadixFitsSegments: where split-K cuts the GPUs' radix rows
// into segments of fewer 16-byte vectors than the workgroup's lanes, the
// workgroup shrinks to them when the same segments keep within the trip
// bound (h100 8x32000 FLOAT16 K = 17: segments of 667 vectors, 512
// lanes, not 1024 with a third of them empty), and the results stay
// exact: rows of ties, NaNs and signed zeros (topKBits).
func TestTopKRadixFitsSegments(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := testutil.NewTensor(rng, tensor.Float16, []uint32{8, 32000}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Float16) })
	for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
		t.Run(dir.String(), func(t *testing.T) {
			var plan *ops.Plan
			p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, 17, dir, tensor.UInt32),
				Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU}, got: &plan}
			testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			_, push, err := ops.StepValues(plan, 0)
			if err != nil {
				t.Fatal(err)
			}
			wg, vectors := plan.Kernels[plan.Steps[0].Kernel].Spec[0], (push["seg_len"]+7)/8
			if push["nseg"] < 2 || wg > vectors || 2*wg <= vectors {
				t.Fatalf("%d segments of %d vectors in workgroups of %d lanes: want several, the workgroup the largest power of two within them", push["nseg"], vectors, wg)
			}
		})
	}
}

// TestTopKK1Vectors: K = 1's vector scan (topk_select.comp list_scan:
// two accumulators, four 16-byte vectors a trip, then two, then one) on
// the thread strategy (one lane a row) and the lane strategy, on rows of
// every count of vectors modulo 4 and heads and tails of 0-3 positions
// (a row of n starts at r*n), with the best score tied across the
// accumulators: at the first and the last vector, or at two vectors
// apart, or everywhere (ties, NaNs and signed zeros from topKBits).
func TestTopKK1Vectors(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, n := range []uint32{3, 4, 5, 8, 12, 16, 17, 20, 28, 33, 45, 64, 101, 255, 1030} {
		for _, fill := range []string{"pool", "tied"} {
			var in *tensor.Tensor
			if fill == "pool" {
				in = testutil.NewTensor(rng, tensor.Float32, []uint32{5, n}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Float32) })
			} else {
				// -1 but 7 at two positions a draw apart: lowest index wins.
				in = testutil.NewTensor(rng, tensor.Float32, []uint32{5, n}, testutil.Packed, func([]uint32) uint64 { return topKValueBits(tensor.Float32, -1) })
				for r := uint32(0); r < 5; r++ {
					a := uint32(rng.Intn(int(n)))
					b := uint32(rng.Intn(int(n)))
					for _, j := range []uint32{a, b} {
						in.SetFloat64([]uint32{r, j}, 7)
					}
				}
			}
			for _, strat := range []string{ops.TopKStrategyThread, ops.TopKStrategyLane} {
				for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
					t.Run(fmt.Sprintf("n%d/%s/%s/%v", n, fill, strat, dir), func(t *testing.T) {
						topKRun(t, d, topKDesc(in.Desc, 1, 1, dir, tensor.UInt32), in, strat, rng)
					})
				}
			}
		}
	}
}
