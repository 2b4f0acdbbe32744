package ops_test

import (
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKRadixVec8: the radix strategy's scans of 16-bit rows of stride
// 1 eight keys a 16-byte load (topk_select.comp radix_scan VEC8), which
// test a vector against the range of keys that may pass and, for floats,
// a key one below elem_key's for a negative value (-0 one below +0): the
// GPU plan (workgroups of 1024, one segment a row) and lavapipe's, against
// the reference bit for bit. The rows draw from a few special values
// (NaNs of both signs with payloads, ±0, ±Inf, denormals next to zero,
// the type's min and max, keys one apart), so that ties and the K-th key
// fall across vector boundaries and a histogram pass's range is a single
// key; a row of odd length, so that the second row's 16-byte scan starts
// unaligned (a head and a tail). K = 1, 2, 8, 2047, 2048 or a random K,
// both directions. -short: two FLOAT16 cases, one a type else. First a
// fixed FLOAT16 row of -0s at the K-th key, in both directions and plans:
// it fails on every seed without the float scan's widened range.
func TestTopKRadixVec8(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	pools := map[tensor.DataType][]uint64{
		tensor.Float16: {0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x0002, 0x8002,
			0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3C01, 0xBC01},
		tensor.Int16:  {0x8000, 0x8001, 0x7FFF, 0x7FFE, 0x0000, 0xFFFF, 0x0001, 0xFFFE, 0x0100, 0xFF00},
		tensor.UInt16: {0x0000, 0x0001, 0xFFFF, 0xFFFE, 0x8000, 0x7FFF, 0x0100, 0x00FF},
	}
	plans := []struct {
		name string
		plan testutil.ForcedPlan
	}{
		{"gpu", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, DeviceType: caps.DeviceTypeDiscreteGPU,
			Tuning: ops.Tuning{"topKRadixSortMul": "0", "topKRunPercent": "0"}}},
		// topKSplitMinLen 0: topk_select.comp's radix on the CPU class's
		// rows from 8192 on too (the split select: TestTopKSplit*).
		{"cpu", testutil.ForcedPlan{Kernel: ops.TopKStrategyRadix, Tuning: ops.Tuning{"topKRadixSortMul": "0", "topKSplitMinLen": "0"}}},
	}
	// A fixed row first, so that the float key trick is checked on every
	// run (the random rows reach it on about half the seeds): 30 values
	// better than zero, 200 -0s, then +0s mixed with values worse than
	// zero, K = 100. The 70 zeros taken are -0s, most in vectors of -0s
	// alone, whose fast keys sit one below the K-th key's range: a scan
	// that does not widen the range by one skips those vectors and takes
	// later +0s (ties go to the lower index).
	for _, dir := range []ops.AxisDirection{ops.AxisDirectionDecreasing, ops.AxisDirectionIncreasing} {
		better, worse := uint64(0x3C00), uint64(0xBC00) // 1 and -1
		if dir == ops.AxisDirectionIncreasing {
			better, worse = worse, better
		}
		const n = 2*1500 + 1
		in := testutil.NewTensor(rng, tensor.Float16, []uint32{2, n}, testutil.Packed, func(c []uint32) uint64 {
			switch j := c[1]; {
			case j < 30:
				return better
			case j < 230:
				return 0x8000
			case j%3 == 0:
				return worse
			}
			return 0x0000
		})
		for _, pl := range plans {
			p := pl.plan
			p.Desc = topKDesc(in.Desc, 1, 100, dir, tensor.UInt32)
			t.Run(fmt.Sprintf("negzeros/%v/%s", dir, pl.name), func(t *testing.T) {
				testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
			})
		}
	}
	types := []tensor.DataType{tensor.Float16, tensor.Int16, tensor.UInt16}
	for ti, dt := range types {
		pool := pools[dt]
		cases := 4
		if testing.Short() {
			cases = 1 + 1&^ti // FLOAT16: two (the key trick)
		}
		for c := range cases {
			// Odd, so that the second row starts in the middle of a vector.
			n := uint32(2*(1200+rng.Intn(2000)) + 1)
			// A share of the row from a few of the pool's values (ties),
			// the rest from all of it, some random bits.
			from := pool
			if dt == tensor.Float16 && c%2 == 0 {
				// Negative values whose keys' low byte is 0 (-0, -1, -2,
				// -2^-14, -Inf): a K-th key at the start of a radix
				// digit's range, where the scan's key one below elem_key's
				// must still be offered.
				from = []uint64{0x8000, 0xBC00, 0xC000, 0x8400, 0xFC00}
			}
			few := []uint64{from[rng.Intn(len(from))], from[rng.Intn(len(from))]}[:1+rng.Intn(2)]
			in := testutil.NewTensor(rng, dt, []uint32{2, n}, testutil.Packed, func([]uint32) uint64 {
				switch r := rng.Intn(8); {
				case r < 4:
					return few[rng.Intn(len(few))]
				case r < 7:
					return pool[rng.Intn(len(pool))]
				}
				return uint64(rng.Intn(1 << 16))
			})
			ks := []uint32{1, 2, 8, 2047, 2048, uint32(3 + rng.Intn(2000))}
			k := ks[rng.Intn(len(ks))]
			dir := ops.AxisDirection(rng.Intn(2))
			pl := plans[(ti+c)%len(plans)]
			p := pl.plan
			p.Desc = topKDesc(in.Desc, 1, k, dir, tensor.UInt32)
			t.Run(fmt.Sprintf("%v/n%d/K%d/%v/%s", dt, n, k, dir, pl.name), func(t *testing.T) {
				testutil.CheckOperator(t, d, &p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
