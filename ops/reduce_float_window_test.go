//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// laneWindowRows are the rows of TestReduceFloatLaneWindow: each drives
// the lane window of shaders/reduce_part_float.glsl (LANE_W = 24 binades,
// placed LANE_ABOVE = 3 above the term that moves it, within biased
// exponents [1, 254]) across one of its boundaries.
var laneWindowRows = []string{
	"up",       // exponents rising along the row: every lane moves its window up, again and again
	"edges",    // exponents e0-21, e0-20, e0-19, e0, e0+3, e0+4, e0+24, e0-40: just inside and outside any window
	"extremes", // 2^±100, 1, denormals and ±0 side by side
	"headroom", // a lane's first term small, then terms of the window's top binade, all ones, one sign
	"cancel",   // in-window terms and their negations, with -0 among them: exactly +0
	"negzero",  // -0 only: -0
	"inf",      // in-window terms and one +Inf
	"nan",      // in-window terms, -Inf and NaN
	"top",      // pairs x, -x near the largest finite value and terms near 1 (the window clamps at 254)
	"topnan",   // near the largest finite value, and a NaN, which no window may take
	"bottom",   // the least normals and denormals (the window clamps at 1)
	"random",   // any bits
}

// laneWindowValue is the bits of row pattern's element j of n in a
// binary format of ebits exponent and mbits significand bits.
func laneWindowValue(rng *rand.Rand, pattern string, j, n int, ebits, mbits uint) uint64 {
	emax := uint64(1)<<ebits - 1 // infinities and NaN
	bias := int(emax >> 1)
	sign := uint64(rng.Intn(2)) << (ebits + mbits)
	mant := func() uint64 { return uint64(rng.Int63()) & (1<<mbits - 1) }
	// at is a normal of biased exponent e (clamped to the normals).
	at := func(e int) uint64 { return uint64(min(max(e, 1), int(emax)-1))<<mbits | mant() }
	span := 2 * bias // the normals' exponents, about
	switch pattern {
	case "up":
		if rng.Intn(16) == 0 {
			return sign | at(1+rng.Intn(span)) // a term anywhere
		}
		return sign | at(1+j*span/n)
	case "edges":
		d := []int{-21, -20, -19, 0, 3, 4, 24, -40}[rng.Intn(8)]
		return sign | at(bias+d*span/254)
	case "extremes":
		switch rng.Intn(5) {
		case 0:
			return sign | at(bias+100*span/254)
		case 1:
			return sign | at(bias-100*span/254)
		case 2:
			return sign | mant() // a denormal or a zero
		case 3:
			return sign
		}
		return sign | at(bias)
	case "headroom":
		if j < 256 { // each lane's first term, in every plan drawn here
			return uint64(bias) << mbits
		}
		return uint64(bias+3)<<mbits | (1<<mbits - 1)
	case "cancel":
		if j%7 == 3 {
			return 1 << (ebits + mbits) // -0
		}
		return laneWindowPair(j, n, bias-10, 24, ebits, mbits)
	case "negzero":
		return 1 << (ebits + mbits)
	case "inf", "nan":
		if j == n/2 {
			if pattern == "inf" {
				return emax << mbits
			}
			return emax<<mbits | 1<<(mbits-1)
		}
		if pattern == "nan" && j == n/3 {
			return 1<<(ebits+mbits) | emax<<mbits
		}
		return sign | at(bias+rng.Intn(8))
	case "top":
		if j%5 == 2 {
			return sign | at(bias+rng.Intn(3))
		}
		return laneWindowPair(j, n, int(emax)-3, 3, ebits, mbits)
	case "topnan":
		if j == n/2 {
			return emax<<mbits | 1<<(mbits-1)
		}
		return sign | at(int(emax)-1-rng.Intn(3))
	case "bottom":
		if rng.Intn(2) == 0 {
			return sign | mant()
		}
		return sign | at(1+rng.Intn(2))
	}
	return uint64(rng.Int63()) & (1<<(ebits+mbits+1) - 1)
}

// laneWindowPair is element j of n of a row whose elements j and n-1-j
// are x and -x (the middle one of an odd row +0), x of a biased exponent
// in [e, e+k) drawn from j's pair alone.
func laneWindowPair(j, n, e, k int, ebits, mbits uint) uint64 {
	pair := min(j, n-1-j)
	r := rand.New(rand.NewSource(int64(pair)))
	v := uint64(e+r.Intn(k))<<mbits | uint64(r.Int63())&(1<<mbits-1)
	switch {
	case j == n-1-j:
		return 0
	case j > pair:
		v |= 1 << (ebits + mbits)
	}
	return v
}

// TestReduceFloatLaneWindow holds the lane window to the reference, bit
// for bit: every row of laneWindowRows, as rows (axis 1: the group
// kernel, four loads a trip) and as columns (axis 0: the thread kernel,
// which scans a whole column in one lane), on each strategy forced and on
// the GPU plans, for SUM and L1 on FLOAT32 and SUM on FLOAT16 (with
// -short, SUM on FLOAT32 on the planner's kernels). A
// window that drops a term or admits a NaN, or a flush that drops or
// shifts a bit, fails it.
func TestReduceFloatLaneWindow(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := 3000
	if testing.Short() {
		n = 1200
	}
	p := len(laneWindowRows)
	fns := []struct {
		fn ops.ReduceFunction
		dt tensor.DataType
	}{{ops.ReduceFunctionSum, tensor.Float32}, {ops.ReduceFunctionL1, tensor.Float32}, {ops.ReduceFunctionSum, tensor.Float16}}
	if testing.Short() { // each plan compiles its own pipelines, about 4 s
		fns = fns[:1]
	}
	for _, c := range fns {
		ebits, mbits := uint(8), uint(23)
		if c.dt == tensor.Float16 {
			ebits, mbits = 5, 10
		}
		for _, axis := range []uint32{1, 0} {
			sizes := []uint32{uint32(p), uint32(n)}
			if axis == 0 {
				sizes = []uint32{uint32(n), uint32(p)}
			}
			in := argInput(c.dt, sizes, nil)
			for r, pattern := range laneWindowRows {
				for j := 0; j < n; j++ {
					at := []uint32{uint32(r), uint32(j)}
					if axis == 0 {
						at = []uint32{uint32(j), uint32(r)}
					}
					in.SetBits(at, laneWindowValue(rng, pattern, j, n, ebits, mbits))
				}
			}
			os := argOutSizes(sizes, []uint32{axis})
			ac := argCase{desc: &ops.Reduce{Function: c.fn, Input: in.Desc, Output: tensor.NewDesc(c.dt, os), Axes: []uint32{axis}}, in: in,
				what: fmt.Sprintf("%v %v sizes %v axis %d rows %v", c.fn, c.dt, sizes, axis, laneWindowRows)}
			if testing.Short() {
				// The planner's kernel on lavapipe: group (axis 1),
				// thread (axis 0).
				argCheckCase(t, d, ac, "", rng)
				continue
			}
			for _, strat := range reduceStrategies {
				argCheckCase(t, d, ac, strat, rng)
			}
			reduceCheckGPUPlan(t, d, ac, nil, "", map[string]int{}, rng)
		}
	}
}
