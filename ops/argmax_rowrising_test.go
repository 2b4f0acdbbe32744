//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// argRowRisingFill sets the rows of t ([rows, n]) to values in value order
// (up: increasing along the row, else decreasing), so that ARGMAX (up) or
// ARGMIN (down) takes a new best in almost every vector, with bests all
// over the type's range: negative floats, -0 and +0, positives, the
// integer types' ends. Values
// come from random bits and the specials (flavour "random"), six of them
// in runs ("runs": ties, -0 with +0 among them, straddle lanes and
// vectors) or a value and its raw neighbours ("ulps": a best and the
// element one step past it, the interval's ends); sign < 0 keeps negative
// values (the sign bit set), sign > 0 non-negative ones, so that a row's
// best can lie on either side of zero. NaNs go in at random positions,
// and at position 0 in some rows.
func argRowRisingFill(rng *rand.Rand, t *tensor.Tensor, up bool, flavour string, sign int) {
	dt := t.Desc.DataType
	rows, n := t.Desc.Sizes[0], t.Desc.Sizes[1]
	bits := 8 * uint(dt.Size())
	mask := uint64(math.MaxUint64)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	one := tensor.New(dt, 1)
	value := func(b uint64) float64 {
		one.SetBits([]uint32{0}, b)
		if dt.IsFloat() {
			return one.Float64At(0)
		}
		if dt == tensor.UInt64 {
			return float64(one.Uint64At(0))
		}
		return float64(one.Int64At(0))
	}
	signBit := uint64(1) << (bits - 1)
	draw := func() uint64 { // a non-NaN value
		for {
			b := rng.Uint64() & mask
			if rng.Intn(8) == 0 {
				b = argSpecial(rng, dt)
			}
			switch {
			case sign < 0:
				b |= signBit
			case sign > 0:
				b &^= signBit
			}
			if !math.IsNaN(value(b)) {
				return b
			}
		}
	}
	for r := uint32(0); r < rows; r++ {
		var pool []uint64
		switch flavour {
		case "runs":
			if dt.IsFloat() {
				pool = []uint64{0, signBit} // +0, -0, whatever the sign
			}
			for len(pool) < 6 {
				pool = append(pool, draw())
			}
		case "ulps":
			base := draw()
			for _, d := range []uint64{0, 1, 2, 3, mask, mask - 1} {
				if b := (base + d) & mask; !math.IsNaN(value(b)) {
					pool = append(pool, b)
				}
			}
		}
		vals := make([]uint64, 0, n)
		for len(vals) < int(n) {
			b := draw()
			if pool != nil {
				b = pool[rng.Intn(len(pool))]
			}
			vals = append(vals, b)
		}
		sort.SliceStable(vals, func(i, k int) bool {
			if up {
				return value(vals[i]) < value(vals[k])
			}
			return value(vals[i]) > value(vals[k])
		})
		if dt.IsFloat() {
			for i := range vals {
				if rng.Intn(60) == 0 {
					vals[i] = argNanBits(dt) | uint64(rng.Intn(2))<<(bits-1)
				}
			}
			if rng.Intn(3) == 0 {
				vals[0] = argNanBits(dt)
			}
		}
		for j, b := range vals {
			t.SetBits([]uint32{r, uint32(j)}, b)
		}
	}
}

// argRisingShapes reach every vec-row variant below 64 bits, with the
// GPU tuning's load filter (ROW_FILTER), on lavapipe: its own features
// (32-byte loads of 32-bit elements, subgroup arithmetic), without
// shaderInt64 (16-byte loads), without subgroup arithmetic (the
// shared-memory combine) or both, and with small workgroups of one full
// subgroup (the sg1 variants, which only a tuning override gives a GPU
// plan).
var argRisingShapes = []struct {
	name    string
	disable caps.Features
	tune    ops.Tuning
}{
	{"gpu", caps.Features{}, nil},
	{"no-int64", caps.Features{ShaderInt64: true}, nil},
	{"no-subgroup", caps.Features{SubgroupArithmetic: true}, nil},
	{"neither", caps.Features{ShaderInt64: true, SubgroupArithmetic: true}, nil},
	{"one-subgroup", caps.Features{}, ops.Tuning{"argSmallWG": "true"}},
	{"one-subgroup-no-int64", caps.Features{ShaderInt64: true}, ops.Tuning{"argSmallWG": "true"}},
}

// TestArgRowRisingBestGPU runs, on lavapipe, the GPU plans of rows whose
// values keep replacing the best (argRowRisingFill), against the CPU
// reference: vec-row's running best changes in almost every vector, to
// bests of every kind and sign, at both directions, ARGMAX and ARGMIN, so
// GPU plans' load filter (ROW_FILTER: a load is skipped unless one of its
// elements lies in the raw interval filter_bounds computes from each
// component's best) recomputes its interval from every kind of best.
// Every type runs all 18 kinds of row on the GPU tuning as it is, and two
// (one long, one short) on each of the other argRisingShapes; short rows
// (256 to 512 elements) take the subgroup-per-row variants. Every 8-, 16-
// and 32-bit case must run vec-row with ROW_FILTER set, and every vec-row
// variant below 64 bits must run so.
func TestArgRowRisingBestGPU(t *testing.T) {
	devs := make([]*dml.Device, len(argRisingShapes))
	for i, s := range argRisingShapes {
		devs[i] = testutil.OpenDML(t, dml.DeviceOptions{Disable: s.disable})
	}
	rng := testutil.Rand(t)
	filtered := map[string]int{} // vec-row variants run with ROW_FILTER
	// check runs rows of type dt and kind ci (flavour, sign, ARGMAX or
	// ARGMIN) on shape si at both directions.
	check := func(dt tensor.DataType, si, ci int, short bool) {
		flavour := []string{"random", "runs", "ulps"}[ci%3]
		sign := ci/3%3 - 1
		kind := []string{"argmax", "argmin"}[ci/9]
		up := kind == "argmax"
		if rng.Intn(4) == 0 {
			up = !up // the best set early and seldom replaced
		}
		rows := uint32(1 + rng.Intn(3))
		n := uint32(513 + rng.Intn(5000))
		if short {
			n = uint32(256 + rng.Intn(257))
		}
		in := tensor.New(dt, rows, n)
		argRowRisingFill(rng, in, up, flavour, sign)
		shape, d := argRisingShapes[si], devs[si]
		for dir := ops.AxisDirection(0); dir < 2; dir++ {
			what := fmt.Sprintf("%v [%d %d] %s dir %d up %v %s sign %d on %s", dt, rows, n, kind, dir, up, flavour, sign, shape.name)
			desc := &testutil.ForcedPlan{Desc: argDesc(kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{rows, 1}), []uint32{1}, dir),
				DeviceType: caps.DeviceTypeDiscreteGPU, Tuning: shape.tune}
			if err := desc.Validate(argContext(d)); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			p, err := desc.Plan(argContext(d))
			if err != nil {
				t.Fatalf("%s: GPU plan: %v", what, err)
			}
			k := p.Kernels[0]
			if rowFilterSet(t, k) {
				filtered[k.Variant]++
			} else if dt.Size() < 8 {
				t.Errorf("%s: the GPU plan runs %s without ROW_FILTER", what, k.Variant)
			}
			argCheckCase(t, d, argCase{desc: desc, in: in, what: what}, "", rng)
		}
	}
	for _, dt := range tensor.AllTypes {
		for ci := 0; ci < 18; ci++ {
			check(dt, 0, ci, ci%4 == 3)
		}
		if dt.Size() == 8 {
			continue // 64-bit elements have no filter
		}
		for si := 1; si < len(argRisingShapes); si++ {
			check(dt, si, rng.Intn(18), false)
			check(dt, si, rng.Intn(18), true)
		}
	}
	t.Logf("vec-row variants run with ROW_FILTER: %v", filtered)
	for _, v := range shaders.Variants {
		if v.Source == "argmax_vec_row.comp" && !slices.Contains(v.Defines, "ELEM_BITS=64") && filtered[v.Name] == 0 {
			t.Errorf("no case ran %s with ROW_FILTER", v.Name)
		}
	}
}

// rowFilterSet reports whether kernel k is vec-row with FLAGS' ROW_FILTER
// bit (17) set.
func rowFilterSet(t *testing.T, k ops.Kernel) bool {
	t.Helper()
	v, err := shaders.Lookup(k.Variant)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(v.Spec, "FLAGS")
	return v.Source == "argmax_vec_row.comp" && i >= 0 && k.Spec[i]>>17&1 == 1
}
