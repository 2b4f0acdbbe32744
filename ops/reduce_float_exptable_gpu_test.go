//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// lseHalfCheck runs c, FLOAT16 LOG_SUM_EXP, on strategy strat ("": the
// planner's choice; gpu: as a discrete GPU plans it) against the
// reference, after checking that its first pass reads the terms from the
// table (shaders.ReduceFloatExpTable) and is variant want, when given.
func lseHalfCheck(t *testing.T, d *dml.Device, c argCase, strat string, gpu bool, want string, rng *rand.Rand) {
	t.Helper()
	forced := &testutil.ForcedPlan{Desc: c.desc, Kernel: strat}
	if gpu {
		forced.DeviceType = caps.DeviceTypeDiscreteGPU
	}
	p, err := forced.Plan(testutil.PlanContext(d))
	if err != nil {
		t.Fatalf("%s [%q]: %v", c.what, strat, err)
	}
	if v := p.Kernels[0].Variant; !strings.Contains(v, shaders.ReduceFloatExpTable) || want != "" && v != want {
		t.Fatalf("%s [%q]: first pass %s, not the table variant %s", c.what, strat, v, want)
	}
	g := c
	g.desc = forced
	g.what = fmt.Sprintf("%s (gpu plan %v)", c.what, gpu)
	argCheckCase(t, d, g, "", rng)
}

// lseHalfProbes is LOG_SUM_EXP over axis (0 or 1) of a [len(probes), n]
// or [n, len(probes)] FLOAT16 tensor whose block i holds probes[i] at one
// place and filler(i) at the others.
func lseHalfProbes(probes []uint64, n uint32, axis uint32, filler func(i int) uint64, what string) argCase {
	sizes := []uint32{uint32(len(probes)), n}
	if axis == 0 {
		sizes = []uint32{n, uint32(len(probes))}
	}
	in := argInput(tensor.Float16, sizes, nil)
	for i, h := range probes {
		for j := uint32(0); j < n; j++ {
			v := filler(i)
			if j == uint32(i)*7%n {
				v = h
			}
			c := []uint32{uint32(i), j}
			if axis == 0 {
				c = []uint32{j, uint32(i)}
			}
			in.SetBits(c, v)
		}
	}
	return argCase{desc: &ops.Reduce{Function: ops.ReduceFunctionLogSumExp, Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, argOutSizes(sizes, []uint32{axis})), Axes: []uint32{axis}},
		in: in, what: fmt.Sprintf("LOG_SUM_EXP FLOAT16 %v axis %d, %s", sizes, axis, what)}
}

// TestReduceLogSumExpHalfTable: FLOAT16 LOG_SUM_EXP on the table
// variants against the reference, bit for bit. Every half is the one
// finite term of a block (the others -inf, terms 0), so the answer is
// log of that half's table word and shows a wrong or misplaced word:
// NaN, ±inf, ±0, denormals, halves whose exp overflows (above 88.7) or
// underflows to 0 (-104 and below); rows (the thread kernel) and columns
// (the GPU's vec-col, whose segments then all take the lane window).
// Every half whose term lies in the vector scans' window (|h| < 8,
// reduce_half.glsl) with seven halves of -7.996 (exp 3.4e-4), where the
// answer is near log of the probe's word: rows on the group kernel's
// lse_scan, columns on vec-col's window. Then blocks that mix them with
// ordinary values, long enough for the fast scans, split-K segments and
// the column split. Each strategy compiles its pipelines (up to 2.5 s on
// lavapipe): under -short one long-row case runs a drawn one of group
// and split-K; without -short every case runs every strategy and the GPU
// plan.
func TestReduceLogSumExpHalfTable(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	all := !testing.Short()
	var every, window []uint64
	for h := uint64(0); h < 1<<16; h++ {
		every = append(every, h)
		if h&0x7fff < 0x4800 {
			window = append(window, h)
		}
	}
	vecCol := shaders.ReduceFloatHalfCol + shaders.ReduceFloatExpTable
	negInf := func(int) uint64 { return 0xfc00 }
	if all {
		lseHalfCheck(t, d, lseHalfProbes(every, 3, 1, negInf, "every half once"), "", false, "", rng)
		lseHalfCheck(t, d, lseHalfProbes(every, 3, 0, negInf, "every half once"), "", true, vecCol, rng)
		near := func(int) uint64 { return 0xc7ff }
		lseHalfCheck(t, d, lseHalfProbes(window, 8, 1, near, "every half with |h| < 8 and 7 of -7.996"), ops.ArgStrategyGroup, false, "", rng)
		lseHalfCheck(t, d, lseHalfProbes(window, 8, 0, near, "every half with |h| < 8 and 7 of -7.996"), "", true, vecCol, rng)
	} else {
		// Each check builds pipelines for its shape (about 0.4 s each
		// on lavapipe): -short takes both probe sets in one tensor a
		// direction, the thread kernel's rows and vec-col's columns;
		// the group kernel's lse_scan runs on the long rows below, and
		// TestHalfLSEGLSL holds its terms to the table on every half.
		both := append(slices.Clone(every), window...)
		mixed := func(i int) uint64 {
			if i < len(every) {
				return 0xfc00
			}
			return 0xc7ff
		}
		what := "every half once, then every half with |h| < 8 and 7 of -7.996"
		lseHalfCheck(t, d, lseHalfProbes(both, 8, 1, mixed, what), "", false, "", rng)
		lseHalfCheck(t, d, lseHalfProbes(both, 8, 0, mixed, what), "", true, vecCol, rng)
	}
	if all {
		for _, axis := range []uint32{0, 1} {
			c := lseHalfProbes(every, 3, axis, negInf, "every half once")
			for _, s := range reduceStrategies {
				lseHalfCheck(t, d, c, s, false, "", rng)
			}
			lseHalfCheck(t, d, c, "", true, "", rng)
		}
	}
	shapes := []struct {
		sizes []uint32
		axis  uint32
	}{
		{[]uint32{7, 1 + uint32(rng.Intn(1500))}, 1},
		{[]uint32{2, 40000 + uint32(rng.Intn(9000))}, 1},
		{[]uint32{1000 + uint32(rng.Intn(3000)), 16}, 0},
		{[]uint32{3, 5, 700}, 2},
	}
	for i, s := range shapes {
		if !all && i != 1 {
			continue
		}
		in := argInput(tensor.Float16, s.sizes, nil)
		rows := 0
		// Outside the vector scan's window: rarely (most vectors take
		// its sum) or often (most fold through the lane window).
		outside := []float64{0.002, 0.3}[rng.Intn(2)]
		tensor.ForEachIndex(in.Desc.Sizes, func(c []uint32) {
			in.SetBits(c, lseHalfValue(rng, outside))
			rows++
		})
		// Some blocks get a few specials each: NaN, +inf, a half whose
		// exp overflows; -inf is among lseHalfValue's own.
		for k := 0; k < rows/500+1; k++ {
			c := make([]uint32, len(s.sizes))
			for a := range c {
				c[a] = uint32(rng.Intn(int(s.sizes[a])))
			}
			in.SetBits(c, []uint64{0x7e00, 0x7c00, 0x5a00, 0xfe01}[rng.Intn(4)])
		}
		c := argCase{desc: &ops.Reduce{Function: ops.ReduceFunctionLogSumExp, Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, argOutSizes(s.sizes, []uint32{s.axis})), Axes: []uint32{s.axis}},
			in: in, what: fmt.Sprintf("LOG_SUM_EXP FLOAT16 %v axis %d, mixed, %g outside", s.sizes, s.axis, outside)}
		if !all {
			lseHalfCheck(t, d, c, []string{ops.ArgStrategyGroup, ops.ArgStrategySplitK}[rng.Intn(2)], false, "", rng)
			continue
		}
		for _, st := range reduceStrategies {
			lseHalfCheck(t, d, c, st, false, "", rng)
		}
		lseHalfCheck(t, d, c, "", true, "", rng)
	}
}

// lseHalfValue is a FLOAT16 for LOG_SUM_EXP's mixed blocks: with
// probability outside one whose term lies outside the vector scan's
// window (-inf, halves whose exp underflows to 0 or lies far below the
// others, -104 to -8, and large ones, 8 to 88), else one inside (|h| < 8:
// ±0 and denormals among them, and its edges ±7.996).
func lseHalfValue(rng *rand.Rand, outside float64) uint64 {
	sign := uint64(rng.Intn(2)) << 15
	if rng.Float64() >= outside {
		if rng.Intn(50) == 0 {
			return sign | 0x47ff
		}
		return sign | uint64(rng.Intn(0x4800))
	}
	switch rng.Intn(5) {
	case 0:
		return 0xfc00 // -inf
	case 1:
		return 0xd680 + uint64(rng.Intn(0x100)) // -104 and below: exp is 0
	case 2:
		return 0xc800 + uint64(rng.Intn(0xe80)) // -8 to -104
	case 3:
		return sign | 0x4800 // ±8: just outside
	}
	return uint64(0x4800 + rng.Intn(0x1170)) // 8 to 88: large terms
}
