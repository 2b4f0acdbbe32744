//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
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

// TestArgRowRisingBestGPU runs, on lavapipe, the GPU plans of rows whose
// values keep replacing the best (argRowRisingFill), against the CPU
// reference: vec-row's running best changes in almost every vector, to
// bests of every kind and sign, at both directions, ARGMAX and ARGMIN, so
// GPU plans' load filter (ROW_FILTER: a load is skipped unless one of its
// elements lies in the raw interval filter_bounds computes from each
// component's best) recomputes its interval from every kind of best.
// Every width must run a vec-row variant.
func TestArgRowRisingBestGPU(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	used := map[string]int{}
	for _, dt := range tensor.AllTypes {
		for ci := 0; ci < 18; ci++ {
			flavour := []string{"random", "runs", "ulps"}[ci%3]
			sign := ci/3%3 - 1
			kind := []string{"argmax", "argmin"}[ci/9]
			up := kind == "argmax"
			if rng.Intn(4) == 0 {
				up = !up // the best set early and seldom replaced
			}
			rows := uint32(1 + rng.Intn(3))
			n := uint32(200 + rng.Intn(5000))
			in := tensor.New(dt, rows, n)
			argRowRisingFill(rng, in, up, flavour, sign)
			for dir := ops.AxisDirection(0); dir < 2; dir++ {
				desc := argDesc(kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{rows, 1}), []uint32{1}, dir)
				_, p := gpuPlan(t, d, desc, "", fmt.Sprintf("%v [%d %d]", dt, rows, n))
				if v := p.Kernels[0].Variant; strings.Contains(v, "_row") {
					used[fmt.Sprintf("%d-bit", 8*dt.Size())]++
				}
				c := argCase{desc: &asGPU{Desc: desc}, in: in,
					what: fmt.Sprintf("%v [%d %d] %s dir %d up %v %s sign %d", dt, rows, n, kind, dir, up, flavour, sign)}
				argCheckCase(t, d, c, "", rng)
			}
		}
	}
	t.Logf("cases on vec-row: %v", used)
	for _, b := range []string{"8-bit", "16-bit", "32-bit"} {
		if used[b] == 0 {
			t.Errorf("no %s case ran vec-row: %v", b, used)
		}
	}
}
