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
		lo, hi := byteExtremes(dt)
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

// byteExtremes are the least and the greatest value of an 8-bit integer
// type, as raw bits.
func byteExtremes(dt tensor.DataType) (lo, hi uint64) {
	if dt == tensor.Int8 {
		return 0x80, 0x7F
	}
	return 0, 0xFF
}

// byteSelectCases are TestTopKByteSelect's row lengths and K (short: in
// -short), each one the planner gives the byte select.
var byteSelectCases = []struct {
	n, k  uint32
	short bool
	whole bool // the planner's whole-row byte select (cutByteWhole): K past the filter's, or a gather past SORT_MAX's 3/4
}{
	{2001, 17, true, false},
	{8197, 200, true, false},
	{32003, 50, false, false},
	{32003, 1024, false, false},
	{32003, 2048, true, true},
	{40001, 1400, false, true},
	{40001, 2047, false, true},
}

// TestTopKByteSelect: the GPUs' byte select for 8-bit rows
// (topk_select.comp's SCAN8 filter: a sampled threshold byte, a gather of
// 16-byte vectors at or above it, one sort) against the reference, at
// K = 17 (the filter's least), 50, 200 and 1024 (its greatest), on rows
// of odd lengths (every row but the first starts off a 16-byte boundary)
// that the planner keeps whole or cuts in two segments; and the
// whole-row byte select (one dispatch, no runs) at K = 1400, 2047 and
// 2048, where the exact counts and, past SORT_MAX at the K-th best
// byte, the ranked gather of its ties (bsel_rank_ties: lanes' blocks,
// the head and tail) give exactly K. Rows: random
// bytes and ascending bytes (the threshold byte shared by many
// positions across vectors, segments and the head and tail), the
// type's least and greatest value everywhere (the gather misses: the
// exact histogram's ties in index order, and with the greatest the
// threshold's top byte, where nothing is above it), the greatest at
// every 64th position and the least elsewhere (the sample, which takes
// every 64th position at least, sets the threshold at the greatest: a
// gather of fewer than K, then the exact one and its ties), the same
// over random bytes below the greatest (the exact gather without ties),
// a few values, the greatest in the first word of every 64 (exact
// counts at the sample's threshold short of K); then rows whose first
// 15 positions hold the least value and last 15 the greatest, one for
// each head and tail length, so that a head or tail position missed is
// a result missed. -short: INT8 DECREASING and UINT8 INCREASING, K =
// 17, 200 and 2048.
func TestTopKByteSelect(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range []tensor.DataType{tensor.Int8, tensor.UInt8} {
		lo, hi := byteExtremes(dt)
		below := func() uint64 { // a random byte other than hi
			for {
				if b := testutil.RandomBits(rng, dt); b != hi {
					return b
				}
			}
		}
		fills := []func(i int) uint64{
			func(i int) uint64 { return testutil.RandomBits(rng, dt) },
			func(i int) uint64 { return uint64(i & 0xFF) },
			func(i int) uint64 { return hi },
			func(i int) uint64 { return lo },
			func(i int) uint64 {
				if i%64 == 0 {
					return hi
				}
				return lo
			},
			func(i int) uint64 {
				if i%64 == 0 {
					return hi
				}
				return below()
			},
			func(i int) uint64 { return []uint64{lo, hi, 0, 1, lo + 1, hi - 1, 0xFF}[(i*5)%7] },
			nil, // sparse: the greatest in the first word of every 64 of the aligned middle (below)
		}
		sparse := len(fills) - 1
		for _, c := range byteSelectCases {
			// After the fills, 16 rows of edges: every head and tail
			// length from 0 to 15 (n is odd).
			in := testutil.NewTensor(rng, dt, []uint32{uint32(len(fills)) + 16, c.n}, testutil.Packed, func(x []uint32) uint64 {
				switch {
				case x[0] == uint32(sparse):
					// The greatest in the first word of every 64 words
					// of the row's aligned middle (packed rows, 16-byte
					// aligned), the least elsewhere: a sample of every
					// 16th or 8th word (steps 64, 32) sees the greatest
					// in a quarter or an eighth of its words, the row
					// holds it at n/64 positions, fewer than K: exact
					// counts at the sample's threshold fall short, then
					// those of every byte run.
					head := (16 - x[0]*c.n%16) % 16
					if x[1] >= head && (x[1]-head)%256 < 4 {
						return hi
					}
					return lo
				case x[0] < uint32(len(fills)):
					return fills[x[0]](int(x[1]))
				case x[1] < 15:
					return lo // INCREASING's best: every head position
				case x[1] >= c.n-15:
					return hi // DECREASING's best: every tail position
				}
				return 0x40
			})
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				if testing.Short() && (!c.short || (dt == tensor.Int8) != (dir == ops.AxisDirectionDecreasing)) {
					continue
				}
				t.Run(fmt.Sprintf("%v/n%d/K%d/%v", dt, c.n, c.k, dir), func(t *testing.T) {
					var plan *ops.Plan
					p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, c.k, dir, tensor.UInt32),
						DeviceType: caps.DeviceTypeDiscreteGPU}, got: &plan}
					testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
					first := plan.Kernels[0].Variant
					if !strings.Contains(first, "_filter") || !strings.HasSuffix(first, "_vec16") {
						t.Fatalf("first pass %q, want the byte select (a _filter _vec16 kernel)", first)
					}
					if c.whole && (len(plan.Kernels) != 1 || strings.Contains(first, "_runs")) {
						t.Fatalf("%d kernels, first %q: want the whole-row byte select, one dispatch", len(plan.Kernels), first)
					}
				})
			}
		}
	}
}

// TestTopKByteSelectWords: the byte select's kernels for devices without
// 8-bit storage buffers (topk_b8w_*: the head and tail read bytes out of
// words), on a device with 8-bit storage disabled: the whole-row select
// at K = 2048 (exact counts, the ranked ties) and the sampled gather at
// K = 200, rows of random bytes, ascending bytes, the greatest value
// everywhere, and the least value in the first 15 positions and the
// greatest in the last 15 (n odd: every row but the first starts off a
// 16-byte boundary). -short: UINT8 only.
func TestTopKByteSelectWords(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{Disable: caps.Features{StorageBuffer8Bit: true}})
	rng := testutil.Rand(t)
	for _, dt := range []tensor.DataType{tensor.UInt8, tensor.Int8} {
		if testing.Short() && dt == tensor.Int8 {
			continue
		}
		lo, hi := byteExtremes(dt)
		for _, c := range []struct{ n, k uint32 }{{32003, 2048}, {8197, 200}} {
			in := testutil.NewTensor(rng, dt, []uint32{5, c.n}, testutil.Packed, func(x []uint32) uint64 {
				switch x[0] {
				case 0:
					return testutil.RandomBits(rng, dt)
				case 1:
					return uint64(x[1] & 0xFF)
				case 2:
					return hi
				}
				switch {
				case x[1] < 15:
					return lo
				case x[1] >= c.n-15:
					return hi
				}
				return 0x40
			})
			for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
				t.Run(fmt.Sprintf("%v/n%d/K%d/%v", dt, c.n, c.k, dir), func(t *testing.T) {
					var plan *ops.Plan
					p := &recordedPlan{ForcedPlan: testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, c.k, dir, tensor.UInt32),
						DeviceType: caps.DeviceTypeDiscreteGPU}, got: &plan}
					testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
					if first := plan.Kernels[0].Variant; !strings.HasPrefix(first, "topk_b8w_filter") || !strings.HasSuffix(first, "_vec16") {
						t.Fatalf("first pass %q, want the word-storage byte select (topk_b8w_filter*_vec16)", first)
					}
				})
			}
		}
	}
}
