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

// TestTopKMaxima: the maxima strategy (topk_maxima.comp) on rows that
// reach its bounds: all-equal rows and rows of few values (the K-th group
// best tied with many), ascending and descending rows (the most entries
// gathered: K-1 whole groups), NaNs and signed zeros (K beyond the
// numbers: the lowest-indexed NaNs), rows whose starts are not 16-byte
// aligned (a head and a tail of scalar positions), 32-bit integers, both
// directions, 64-bit indices; K from 2 to the most its bound allows.
func TestTopKMaxima(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	wg := uint64(testutil.PlanContext(d).Limits.SubgroupSize) // the kernel's workgroup
	fills := append(topKFills(rng), topKFill{"descending", func(i int) uint64 { return uint64(math.Float32bits(float32(-i))) }},
		topKFill{"mostly-nan", func(int) uint64 {
			if rng.Intn(200) == 0 {
				return uint64(rng.Uint32() &^ 0x40000000) // a number
			}
			return 0x7fc00000 | uint64(rng.Intn(4))
		}})
	types := []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32}
	// -short: two fills (the all-equal one, whose K-th group best ties
	// with every group's, and one drawn), one K each (a pipeline a K
	// takes lavapipe a second or two to compile).
	short := map[int]bool{0: true, 1 + rng.Intn(len(fills)-1): true}
	for fi, f := range fills {
		if testing.Short() && !short[fi] {
			continue
		}
		dt := types[0]
		if fi%2 == 1 {
			dt = types[rng.Intn(len(types))]
		}
		// 3 rows: the second and third start 4n bytes after the first,
		// so n odd leaves them unaligned.
		n := 4000 + rng.Intn(60000)
		if fi%3 == 0 {
			n = 4000 + rng.Intn(5000)
		}
		// Rows the kernel takes at K = 2 at this subgroup size: at 4
		// lanes (LP_NATIVE_VECTOR_WIDTH=128) its trip bound ends at
		// 55,299 positions, and a longer draw was refused.
		for n > 4000 && !ops.TopKMaximaTakes(uint64(n), 2, wg) {
			n = 4000 + (n-4000)*3/4
		}
		in := testutil.NewTensor(rng, dt, []uint32{3, uint32(n)}, testutil.Packed, func(c []uint32) uint64 { return f.bits(int(c[1])) })
		// K: 2, the largest the planner's bound takes, and one between.
		kmax := uint32(2)
		for kmax < 2048 && ops.TopKMaximaTakes(uint64(n), uint64(kmax+1), wg) {
			kmax++
		}
		ks := []uint32{2, kmax, 2 + uint32(rng.Intn(int(kmax-1)))}
		if testing.Short() {
			ks = ks[1+rng.Intn(2):][:1]
		}
		for _, k := range ks {
			dir := ops.AxisDirection(rng.Intn(2))
			idx := tensor.UInt32
			if rng.Intn(2) == 0 {
				idx = tensor.UInt64
			}
			p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, idx), Kernel: ops.TopKStrategyMaxima}
			t.Run(fmt.Sprintf("%s/%v/n%d/K%d/%v/%v", f.name, dt, n, k, dir, idx), func(t *testing.T) {
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}

// TestTopKMaximaThreshold: the maxima kernel's threshold T where its
// shortcuts matter. "peaks": a tenth of a percent of 11s and 2.5% of 10s
// among negatives, so that many groups' bests tie at 10 with the K-th
// group best, one, two or three 10s a group at any position: the
// bisection goes on to indices, and a tied group's best index (read
// again) must be its first 10, across every group boundary. "zeros": +0
// and -0 only (one score, their bits kept), ties by index alone.
// "int-extremes": INT32 / UINT32 rows of words near 0 of both signs and,
// rarely, 0, 1, the sign bit, the largest and the all-ones word (the
// signed scores' edges). "nan-tail":
// numbers then NaNs of both signs (K beyond the numbers: NaNs by index).
// "random": the early stop of the score's bisection, K and a quarter
// groups' entries gathered. K: 1, 17 and 64 (the CPU class's range,
// tuning topKMaximaMinK/MaxK) and the most the planner's bound takes;
// both directions; two rows, the second unaligned.
func TestTopKMaximaThreshold(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	wg := uint64(testutil.PlanContext(d).Limits.SubgroupSize)
	neg := func() uint64 { return uint64(math.Float32bits(-1 - 1000*rng.Float32())) }
	// A word of either sign's edge one time in 300, else a small one of
	// either sign (as INT32 or UINT32): groups that hold them and groups
	// that do not.
	extreme := func(int, int) uint64 {
		if rng.Intn(300) == 0 {
			return []uint64{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x80000001}[rng.Intn(6)]
		}
		return uint64(uint32(int32(rng.Intn(2001) - 1000)))
	}
	fills := []struct {
		name string
		dt   tensor.DataType
		bits func(i, n int) uint64
	}{
		{"peaks", tensor.Float32, func(int, int) uint64 {
			switch r := rng.Intn(1000); {
			case r == 0:
				return uint64(math.Float32bits(11))
			case r < 25:
				return uint64(math.Float32bits(10))
			}
			return neg()
		}},
		{"zeros", tensor.Float32, func(int, int) uint64 { return uint64(rng.Intn(2)) << 31 }},
		{"int-extremes", tensor.Int32, extreme},
		{"uint-extremes", tensor.UInt32, extreme},
		{"nan-tail", tensor.Float32, func(i, n int) uint64 {
			if i < 20 {
				return uint64(math.Float32bits(rng.Float32()))
			}
			return []uint64{0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff}[rng.Intn(4)]
		}},
		{"random", tensor.Float32, func(int, int) uint64 { return uint64(math.Float32bits(float32(rng.NormFloat64()))) }},
	}
	for fi, f := range fills {
		if testing.Short() && fi%2 == 1 {
			continue
		}
		n := 20000 + 2*rng.Intn(20000) + 1 // odd: the second row starts unaligned
		// Rows the kernel takes at K = 1 at this subgroup size (at 4
		// lanes, up to 59,395 positions).
		for n > 20001 && !ops.TopKMaximaTakes(uint64(n), 1, wg) {
			n = (20000 + (n-20000)*3/4) | 1
		}
		in := testutil.NewTensor(rng, f.dt, []uint32{2, uint32(n)}, testutil.Packed, func(c []uint32) uint64 { return f.bits(int(c[1]), n) })
		kmax := uint32(1)
		for kmax < 2048 && ops.TopKMaximaTakes(uint64(n), uint64(kmax+1), wg) {
			kmax++
		}
		for ki, k := range []uint32{1, 17, 64, kmax} {
			if k > kmax || testing.Short() && ki%2 == 0 {
				continue
			}
			dir := ops.AxisDirection(rng.Intn(2))
			if f.name == "peaks" {
				dir = ops.AxisDirectionDecreasing // the 10s are the largest but one
			}
			p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, tensor.UInt32), Kernel: ops.TopKStrategyMaxima}
			t.Run(fmt.Sprintf("%s/n%d/K%d/%v", f.name, n, k, dir), func(t *testing.T) {
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
