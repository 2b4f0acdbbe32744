//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"strings"
	"testing"

	"github.com/x448/float16"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// reduceFmulPatterns are MULTIPLY's value patterns (reduceFloatValue):
// factors near 1 (every product rounds, so any other order shows), huge
// and tiny factors whose partial products overflow or underflow in some
// orders (and meet as inf·0), factors sinking through the denormals,
// signed zeros, infinities and NaN.
var reduceFmulPatterns = []string{"near1", "crossing", "underflow", "zeros", "specials", "denormals"}

// reduceFmulSplits are tunings that cut short blocks into many segments
// on the GPU plans: the column split of the thread kernel and the row
// split of the group kernel, with segment lengths that are not powers of
// two before the planner rounds them (rule 42's aligned segments), and
// the combine by workgroups.
var reduceFmulSplits = []ops.Tuning{
	nil,
	{"argColInFlightPerCU": "0", "argColSplitItems": "3000", "argColSplitMinBytes": "12", "argCombineGroupMin": "2"},
	{"argRowGroupsPerCU": "4096", "argRowSplitMinBytes": "20"},
	{"argRowGroupsPerCU": "4096", "argRowSplitMinBytes": "200", "argCombineGroupMin": "2"},
}

// TestReduceFloatMultiply: MULTIPLY of FLOAT32 and FLOAT16 (rule 42's
// canonical tree) over reduceFloatShapedCase's rows short, long
// (segments) and of lengths that are not powers of two, columns, random
// shapes and axes, on each strategy forced and on the GPU plans with their row and
// column splits and both combines, and through binding windows that cut
// blocks into boxes: every result equal to the reference bit for bit.
func TestReduceFloatMultiply(t *testing.T) {
	// The integer products (mul_f32): on a device with the float
	// controls, TestReduceFloatMultiplyNative runs the native ones.
	reduceFmulCheckAll(t, testutil.OpenDML(t, dml.DeviceOptions{Disable: reduceFmulFloatControls}), "")
}

// reduceFmulFloatControls are the float controls that make the planner
// multiply natively (shaders.ReduceFmulHW variants).
var reduceFmulFloatControls = caps.Features{DenormPreserveFloat32: true, SignedZeroInfNanPreserveFloat32: true, RoundingModeRTEFloat32: true}

// openFloatControls opens the device and skips t unless it reports the
// three float controls of the native-multiply variants (reduceFmulFloatControls),
// which what names.
func openFloatControls(t *testing.T, what string) *dml.Device {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if f := d.GPU().Features; !f.DenormPreserveFloat32 || !f.SignedZeroInfNanPreserveFloat32 || !f.RoundingModeRTEFloat32 {
		t.Skipf("the device reports shaderDenormPreserveFloat32 %v, shaderSignedZeroInfNanPreserveFloat32 %v, shaderRoundingModeRTEFloat32 %v: %s never runs on it",
			f.DenormPreserveFloat32, f.SignedZeroInfNanPreserveFloat32, f.RoundingModeRTEFloat32, what)
	}
	return d
}

// reduceFmulCheckAll is TestReduceFloatMultiply's cases on d, whose
// MULTIPLY kernels' names all end in hw (shaders.ReduceFmulHW, or "").
func reduceFmulCheckAll(t *testing.T, d *dml.Device, hw string) {
	rng := testutil.Rand(t)
	used := map[string]int{}
	f := ops.ReduceFunctionMultiply
	k := 0
	for ti, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		for pi, pattern := range reduceFmulPatterns {
			// Each case compiles its own pipelines (about 2 s on
			// lavapipe): with -short two patterns a type.
			if testing.Short() && pi%3 != ti {
				continue
			}
			k++
			c := reduceFloatShapedCase(rng, f, dt, pattern, k)
			// Each case runs on one or two of the strategies forced and
			// of the GPU tunings, in turn.
			runs := testutil.CaseCount(2, 1)
			for r := range runs {
				strat := reduceStrategies[(runs*k+r)%len(reduceStrategies)]
				reduceFmulCheckVariants(t, d, c, strat, hw)
				argCheckCase(t, d, c, strat, rng)
				reduceCheckGPUPlan(t, d, c, reduceFmulSplits[(runs*k+r)%len(reduceFmulSplits)], "", used, rng)
			}
		}
	}
	// Binding windows of 4 KiB cut a block of 3000 into boxes that the
	// segments must stay aligned to.
	devices := testutil.WindowDevices(t)
	wrefused := map[string]int{}
	for i, strat := range []string{ops.ArgStrategyGroup, ops.ArgStrategyThread}[:testutil.CaseCount(2, 1)] {
		c := reduceFloatCase(rng, f, argInput(tensor.Float32, []uint32{uint32(3000 + rng.Intn(100))}, nil), []uint32{0}, reduceFmulPatterns[i])
		argCheckOrRefused(t, devices(4096), c, strat, rng, wrefused)
	}
	if wrefused["refused"] > 0 {
		_, err := devices(4096).CreateOperatorWithKernel(&ops.Reduce{Function: f, Input: argInput(tensor.Float32, []uint32{3000}, nil).Desc,
			Output: tensor.NewDesc(tensor.Float32, []uint32{1}), Axes: []uint32{0}}, ops.ArgStrategyThread)
		t.Errorf("windowed MULTIPLY refused: %v (%v)", wrefused, err)
	}
	for plan := range used {
		for _, v := range strings.Split(plan[strings.Index(plan, " ")+1:], "+") {
			if b := withoutHalfVec(v); !strings.HasSuffix(b, hw) || hw == "" && strings.HasSuffix(b, shaders.ReduceFmulHW) {
				t.Errorf("GPU plan %q runs %s, want variants ending in %q", plan, v, hw)
			}
		}
	}
	if testing.Short() {
		t.Logf("GPU plans (strategy, kernels): %v", used)
		return
	}
	reduceCheckPlansUsed(t, used, "reduce_fmul_combine_group"+hw, "reduce_fmul_combine"+hw+"+", "_thread"+hw, "_group"+hw)
}

// withoutHalfVec is variant's name less the FLOAT16 vector scan's suffix
// (shaders.ReduceFloatHalfVec), which follows shaders.ReduceFmulHW.
func withoutHalfVec(variant string) string {
	return strings.TrimSuffix(variant, shaders.ReduceFloatHalfVec)
}

// reduceFmulCheckVariants fails unless c's plan on d (strategy strat
// forced) runs MULTIPLY kernels whose names end in hw (or, hw "", none
// of the native ones).
func reduceFmulCheckVariants(t *testing.T, d *dml.Device, c argCase, strat, hw string) {
	t.Helper()
	p, err := reduceForced(c.desc, strat).Plan(testutil.PlanContext(d))
	if err != nil {
		t.Fatalf("%s [%q]: %v", c.what, strat, err)
	}
	for _, k := range p.Kernels {
		if b := withoutHalfVec(k.Variant); !strings.HasSuffix(b, hw) || hw == "" && strings.HasSuffix(b, shaders.ReduceFmulHW) {
			t.Errorf("%s [%q]: runs %s, want a variant ending in %q", c.what, strat, k.Variant, hw)
		}
	}
}

// TestReduceFloatMultiplyNative: TestReduceFloatMultiply's cases,
// rule 42's examples and a long row of factors near 1 on the native
// multiply (reduce_fmul.comp HW_MUL), every result equal to the
// reference (and so to the integer products) bit for bit. It needs a
// device that reports the three float controls those kernels ask for:
// lavapipe reports no shaderDenormPreserveFloat32 (it flushes denormals),
// so there it skips, and the planner never runs them there.
func TestReduceFloatMultiplyNative(t *testing.T) {
	d := openFloatControls(t, "the native multiply")
	reduceFmulCheckAll(t, d, shaders.ReduceFmulHW)
	reduceFmulExamples(t, d, shaders.ReduceFmulHW)
	n := uint32(1<<16 + 3)
	if !testing.Short() {
		n = 1<<22 + 3
	}
	reduceFmulLong(t, d, n, shaders.ReduceFmulHW)
}

// TestReduceFloatMultiplyNativePlan: the h100 profile's MULTIPLY plans
// run the native-multiply variants exactly where the device reports all
// three float controls (a device fact), on every kernel of the plan.
func TestReduceFloatMultiplyNativePlan(t *testing.T) {
	checkNativePlans(t, false, []nativePlanCase{
		{tensor.Float32, ops.ReduceFunctionMultiply, caps.Features{}, []uint32{4096, 16384}, []uint32{1}, true},
		{tensor.Float32, ops.ReduceFunctionMultiply, caps.Features{}, []uint32{4096, 16384}, []uint32{0}, true},
		{tensor.Float16, ops.ReduceFunctionMultiply, caps.Features{}, []uint32{1 << 24}, []uint32{0}, true},
		{tensor.Float16, ops.ReduceFunctionMultiply, caps.Features{}, []uint32{4096, 16384}, []uint32{0}, true},
		{tensor.Float32, ops.ReduceFunctionMultiply, caps.Features{DenormPreserveFloat32: true}, []uint32{4096, 16384}, []uint32{0}, false},
		{tensor.Float32, ops.ReduceFunctionMultiply, caps.Features{SignedZeroInfNanPreserveFloat32: true}, []uint32{4096, 16384}, []uint32{0}, false},
		{tensor.Float32, ops.ReduceFunctionMultiply, caps.Features{RoundingModeRTEFloat32: true}, []uint32{1 << 24}, []uint32{0}, false},
		{tensor.Float32, ops.ReduceFunctionSum, caps.Features{}, []uint32{4096, 16384}, []uint32{0}, false},
	})
}

// nativePlanCase is a REDUCE of dt over axes of sizes, planned on the h100
// profile without the features off, and whether it runs native-multiply
// variants (names ending in shaders.ReduceFmulHW).
type nativePlanCase struct {
	dt    tensor.DataType
	f     ops.ReduceFunction
	off   caps.Features
	sizes []uint32
	axes  []uint32
	want  bool
}

// checkNativePlans fails unless each case's kernels (firstOnly: its first
// pass; the others never) end in shaders.ReduceFmulHW exactly when want.
func checkNativePlans(t *testing.T, firstOnly bool, cases []nativePlanCase) {
	t.Helper()
	p, err := profiles.Lookup("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		desc := &ops.Reduce{Function: c.f, Input: tensor.NewDesc(c.dt, c.sizes), Output: tensor.NewDesc(c.dt, argOutSizes(c.sizes, c.axes)), Axes: c.axes}
		for i, k := range profilePlan(t, p, p.Features.Without(c.off), desc).Kernels {
			want := c.want && (i == 0 || !firstOnly)
			if got := strings.HasSuffix(withoutHalfVec(k.Variant), shaders.ReduceFmulHW); got != want {
				t.Errorf("%v %v %v axes %v, without %+v: dispatch %d runs %s, want a native multiply %v", c.f, c.dt, c.sizes, c.axes, c.off, i, k.Variant, want)
			}
		}
	}
}

// TestReduceFloatMultiplyExamples: rule 42's examples, whose answers
// depend on the order, on every strategy.
func TestReduceFloatMultiplyExamples(t *testing.T) {
	reduceFmulExamples(t, testutil.OpenDML(t, dml.DeviceOptions{Disable: reduceFmulFloatControls}), "")
}

// reduceFmulExamples is TestReduceFloatMultiplyExamples on d, whose
// MULTIPLY kernels' names end in hw (reduceFmulCheckVariants).
func reduceFmulExamples(t *testing.T, d *dml.Device, hw string) {
	rng := testutil.Rand(t)
	inf, nan, negZero := float32(math.Inf(1)), float32(math.NaN()), float32(math.Copysign(0, -1))
	cases := []struct {
		in   []float32
		want float32
	}{
		{[]float32{2, 3, 4}, 24},
		{[]float32{1e30, 1e30, 1e-30, 1e-30}, nan}, // (1e30·1e30)·(1e-30·1e-30) = inf·0
		{[]float32{1e30, 1e-30, 1e30, 1e-30}, 1},
		{[]float32{1e30, 1e30, 1e-5, 1e-5}, inf},
		{[]float32{3, 1.0 / 3, 7, 1.0 / 7, 11}, 11},
		{[]float32{negZero, 5}, negZero},
		{[]float32{0x1p-100, 0x1p-40, 0x1p100, 2}, 0x1p-39}, // 2^-140 is a denormal, exact
	}
	for i, c := range cases {
		in := argInput(tensor.Float32, []uint32{uint32(len(c.in))}, nil)
		for i, v := range c.in {
			in.SetBits([]uint32{uint32(i)}, uint64(math.Float32bits(v)))
		}
		strats := reduceStrategies
		if testing.Short() {
			strats = strats[i%len(strats) : i%len(strats)+1]
		}
		for _, strat := range strats {
			desc := &ops.Reduce{Function: ops.ReduceFunctionMultiply, Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1}), Axes: []uint32{0}}
			reduceFmulCheckVariants(t, d, argCase{desc: desc, in: in, what: fmt.Sprint("MULTIPLY", c.in)}, strat, hw)
			res := testutil.CheckOperator(t, d, reduceForced(desc, strat), []*tensor.Tensor{in}, rng)
			want := math.Float32bits(c.want)
			if math.IsNaN(float64(c.want)) {
				want = 0x7fc00000 // rule 43's one NaN
			}
			if got := uint32(res.Outputs[0].Bits(0)); got != want {
				t.Errorf("MULTIPLY%v [%q]: got %#x (%g), want %#x", c.in, strat, got, math.Float32frombits(got), want)
			}
		}
	}
}

// TestReduceFloatMultiplyLong: a block of 2^22 + 3 factors 1 ± 2^-23·k,
// whose product stays near 1 but rounds differently in every order, on
// the planner's plan and on split-K (hundreds of segments finished by the
// combine's scan), against the reference bit for bit; not under -short.
func TestReduceFloatMultiplyLong(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 MiB input")
	}
	reduceFmulLong(t, testutil.OpenDML(t, dml.DeviceOptions{Disable: reduceFmulFloatControls}), 1<<22+3, "")
}

// reduceFmulLong is TestReduceFloatMultiplyLong's block of n factors on
// d, whose MULTIPLY kernels' names end in hw (reduceFmulCheckVariants).
func reduceFmulLong(t *testing.T, d *dml.Device, n uint32, hw string) {
	rng := testutil.Rand(t)
	in := argInput(tensor.Float32, []uint32{n}, nil)
	for i := uint32(0); i < n; i++ {
		v := float32(1 + float64(rng.Intn(9)-4)*0x1p-23)
		in.SetBits([]uint32{i}, uint64(math.Float32bits(v)))
	}
	desc := &ops.Reduce{Function: ops.ReduceFunctionMultiply, Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1}), Axes: []uint32{0}}
	c := argCase{desc: desc, in: in, what: fmt.Sprintf("MULTIPLY of %d factors near 1", n)}
	for _, strat := range []string{"", ops.ArgStrategySplitK} {
		reduceFmulCheckVariants(t, d, c, strat, hw)
		argCheckCase(t, d, c, strat, rng)
	}
}

// halfVecMulValue is the FLOAT16 bits of a MULTIPLY row's element j of n
// in pattern: halfVecValue's patterns, and factors near 1 with random
// signs (every product of the tree rounds, none leaves the range, the
// sign is the parity of the halves').
func halfVecMulValue(rng *rand.Rand, pattern string, j, n int) uint64 {
	if pattern == "near1" {
		return uint64(rng.Intn(2))<<15 | uint64(0x3bf0+rng.Intn(0x20))
	}
	return halfVecValue(rng, pattern, j, n)
}

// TestReduceFloatMultiplyHalfVec: FLOAT16 MULTIPLY on the vector run
// (reduce_fmul.comp HALF_VEC) against the reference bit for bit: rows of
// 1 to about 43,000 halves, one a pattern (factors near 1 with random signs,
// every binade, ±0, -0 only, denormals, ±65504, infinities and NaN, any
// bits), starting at every alignment (a row stride of n + pad), on the
// GPU plan and the group strategy forced, whose first pass must be the
// _vec variant; and once on a device without shaderInt64, which plans the
// variant without it, for the same bits.
func TestReduceFloatMultiplyHalfVec(t *testing.T) {
	if testing.Short() {
		// Each plan compiles its pipelines (about 7 s on lavapipe):
		// under -short TestReduceFloatMultiply's FLOAT16 group cases run
		// the vector run.
		t.Skip("the vector run's plans run without -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the vector run is not planned")
	}
	rng := testutil.Rand(t)
	patterns := append([]string{"near1"}, halfVecPatterns...)
	lens := []int{16*(20+rng.Intn(40)) + rng.Intn(16), 1 + rng.Intn(15), 4096 + rng.Intn(2000), 40000 + rng.Intn(3000)}
	if !testutil.Long() {
		// CI time (about 110 s for all four on lavapipe): the first
		// length (with the fallback device) and one drawn of the other
		// three; every length with VKDML_LONG.
		lens = []int{lens[0], lens[1+rng.Intn(3)]}
	}
	for li, n := range lens {
		rows, pad := len(patterns), 1+rng.Intn(7)
		in := argInput(tensor.Float16, []uint32{uint32(rows), uint32(n)}, []uint32{uint32(n + pad), 1})
		rng.Read(in.Data)
		for r := 0; r < rows; r++ {
			for j := 0; j < n; j++ {
				in.SetBits([]uint32{uint32(r), uint32(j)}, halfVecMulValue(rng, patterns[r], j, n))
			}
		}
		out := tensor.NewDesc(tensor.Float16, []uint32{uint32(rows), 1})
		c := argCase{desc: &ops.Reduce{Function: ops.ReduceFunctionMultiply, Input: in.Desc, Output: out, Axes: []uint32{1}}, in: in,
			what: fmt.Sprintf("MULTIPLY FLOAT16 %dx%d row stride %d, row r's values %q[r]", rows, n, n+pad, patterns)}
		for _, kernel := range []string{"", ops.ArgStrategyGroup} {
			_, p := testutil.GPUPlan(t, d, c.desc, kernel, c.what)
			if p.Strategy != ops.ArgStrategyThread && !strings.HasSuffix(p.Kernels[0].Variant, shaders.ReduceFloatHalfVec) {
				t.Fatalf("%s: the %s plan runs %s, not the vector run's variant", c.what, p.Strategy, p.Kernels[0].Variant)
			}
			reduceCheckGPUPlan(t, d, c, nil, kernel, map[string]int{}, rng)
		}
		if li == 0 {
			// The fallback: no shaderInt64, no _vec variant, the same bits.
			d64 := testutil.OpenDML(t, dml.DeviceOptions{Disable: caps.Features{ShaderInt64: true}})
			_, p := testutil.GPUPlan(t, d64, c.desc, ops.ArgStrategyGroup, c.what)
			if v := p.Kernels[0].Variant; strings.HasSuffix(v, shaders.ReduceFloatHalfVec) {
				t.Fatalf("%s without shaderInt64: runs %s", c.what, v)
			}
			reduceCheckGPUPlan(t, d64, c, nil, ops.ArgStrategyGroup, map[string]int{}, rng)
		}
	}
}

// fmulColPatterns are the FLOAT16 MULTIPLY column patterns (fmulColValue):
// factors near 1 with random signs (every product rounds, so any other
// order shows), "crossing" (a block's first half 2^11 to 2^16, its second
// 2^-14 to 2^-9: the tree's left part overflows and its right part
// underflows, inf·0), and halfColPatterns (every binade, ±0, -0 only,
// denormals, ±65504, infinities and NaN, any bits).
var fmulColPatterns = append([]string{"near1", "crossing"}, halfColPatterns...)

// fmulColValue is the FLOAT16 bits of position j of a block of n in
// pattern (fmulColPatterns).
func fmulColValue(rng *rand.Rand, pattern string, j, n int) uint64 {
	switch pattern {
	case "near1":
		return halfVecMulValue(rng, pattern, j, n)
	case "crossing":
		sign := uint64(rng.Intn(2)) << 15
		if j < n/2 {
			return sign | uint64(0x6800+rng.Intn(0x1400))
		}
		return sign | uint64(0x0400+rng.Intn(0x1400))
	}
	return halfColValue(rng, pattern, j, n)
}

// TestReduceFloatMultiplyHalfCol: FLOAT16 MULTIPLY over columns on the
// column kernel (reduce_fmul.comp COL: 8 columns an invocation, each its
// own tree in rule 42's order) against the reference bit for bit, columns
// of fmulColPatterns (halfColCaseOf: in the 8-column groups of one
// invocation, the even groups one pattern for all 8, which keeps the
// near-1 and binade groups on the fast path, the odd ones a pattern a
// column, which sends a group through the widening path), on the GPU
// plan: padded rows under a broadcast kept axis with two reduced axes
// (the odometer), blocks of 16k+1..16k+15 positions (whole batches of 16
// and a tail), whose outputs (0, 0-7) hold factors drawn so that the
// FLOAT16 result shows the order of the stack's nodes (fmulStackOrder: a
// mutant folding them bottom-up fails); long packed columns cut into segments (the combine),
// whose first 8 columns start with 16 factors drawn so that the FLOAT16
// result shows the tree's order (fmulOrderColumn: a mutant pairing the
// 4-position nodes 0 with 2 fails). The
// layouts the kernel does not fit (column counts that are not a multiple
// of 8, rows off a 16-byte boundary, no shaderInt64) plan the thread
// kernel. Each run compiles the kernel's pipeline, about 20 s on a busy
// lavapipe (its integer products, mul_f32, inlined at each of the
// batch's 120 products): -short plans every case and runs none; without
// it the two column-kernel layouts run, and with VKDML_LONG=1 the
// thread-kernel layouts and the device without shaderInt64 as well
// (TestReduceFloatMultiply runs the thread kernel on every CI run).
func TestReduceFloatMultiplyHalfCol(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if !d.GPU().Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64: the column kernel is not planned")
	}
	rng := testutil.Rand(t)
	f := ops.ReduceFunctionMultiply
	rows := uint32(16*(1+rng.Intn(3)) + 1 + rng.Intn(15))
	for bits.OnesCount32(3*rows) < 3 { // the padded blocks' 3·rows: a stack of 3+ nodes (fmulStackOrder)
		rows = uint32(16*(1+rng.Intn(3)) + 1 + rng.Intn(15))
	}
	cols := uint32(8 * (2*len(fmulColPatterns) + rng.Intn(4))) // every pattern in both kinds of group
	pad := uint32(8 * (1 + rng.Intn(3)))
	long := 20000 + uint32(rng.Intn(3000))
	cases := []halfColLayout{
		{"padded rows, broadcast kept axis, two reduced axes", []uint32{2, 3, rows, cols}, []uint32{0, rows*(cols+pad) + 8, cols + pad, 1}, []uint32{1, 2}, true, !testing.Short()},
		{"long packed columns", []uint32{long, 16}, nil, []uint32{0}, true, !testing.Short()},
		{"ragged columns", []uint32{rows, cols - 1 - uint32(rng.Intn(7))}, nil, []uint32{0}, false, testutil.Long()},
		{"unaligned rows", []uint32{rows, cols}, []uint32{cols + 1 + uint32(rng.Intn(7)), 1}, []uint32{0}, false, testutil.Long()},
	}
	used := map[string]int{}
	for i, l := range cases {
		c := halfColCaseOf(rng, f, l.sizes, l.strides, l.axes, fmulColPatterns, fmulColValue)
		c.what = l.name + ": " + c.what
		if i == 0 {
			// Outputs (0, 0-7), one invocation on the fast path: blocks
			// of 3·rows factors whose product shows the order above the
			// batches (the stack's nodes, the tail).
			n := 3 * rows
			for col := uint32(0); col < 8; col++ {
				h := fmulStackOrder(rng, int(n))
				for j := range n {
					c.in.SetBits([]uint32{0, j / rows, j % rows, col}, uint64(h[j]))
				}
			}
			c.what += "; outputs (0, 0-7): blocks whose product shows the order of the stack's nodes (fmulStackOrder)"
		}
		if i == 1 {
			// Columns 0-7 (one invocation, on the fast path): a batch
			// of 16 whose FLOAT16 product shows the tree's order
			// against a left-to-right scan (columns 0-3) and against
			// the 4-position nodes paired 0 with 2 and 1 with 3 (4-7),
			// then 1s.
			alts := []func(x [16]float32) float32{fmulScan16, fmulCrossed16}
			for col := uint32(0); col < 8; col++ {
				h := fmulOrderColumn(rng, alts[col/4])
				for j := uint32(0); j < l.sizes[0]; j++ {
					v := uint64(0x3c00)
					if j < 16 {
						v = uint64(h[j])
					}
					c.in.SetBits([]uint32{j, col}, v)
				}
			}
			c.what += "; columns 0-7: 16 factors whose product shows the tree's order (fmulOrderColumn), then 1s"
		}
		_, p := testutil.GPUPlan(t, d, c.desc, "", c.what)
		if got := strings.TrimSuffix(p.Kernels[0].Variant, shaders.ReduceFmulHW) == shaders.ReduceFmulHalfCol; got != l.vec {
			t.Fatalf("%s: the GPU plan runs %s (%s); want the column kernel: %v", c.what, p.Kernels[0].Variant, p.Strategy, l.vec)
		}
		if i == 1 && len(p.Kernels) != 2 {
			t.Fatalf("%s: the GPU plan runs %d kernels; want the column split's combine", c.what, len(p.Kernels))
		}
		if l.run {
			reduceCheckGPUPlan(t, d, c, nil, "", used, rng)
		}
		if i == 0 {
			// Without shaderInt64: the thread kernel, the same bits.
			d64 := testutil.OpenDML(t, dml.DeviceOptions{Disable: caps.Features{ShaderInt64: true}})
			_, p := testutil.GPUPlan(t, d64, c.desc, "", c.what)
			if v := p.Kernels[0].Variant; strings.HasPrefix(v, shaders.ReduceFmulHalfCol) {
				t.Fatalf("%s without shaderInt64: runs %s", c.what, v)
			}
			if testutil.Long() {
				reduceCheckGPUPlan(t, d64, c, nil, "", used, rng)
			}
		}
	}
	t.Logf("GPU plans run (strategy, kernels): %v", used)
}

// fmulNodes4 is rule 42's nodes over positions 4i..4i+3 of 16 FLOAT32
// values, each product rounded to FLOAT32 (Go's float32 multiply: IEEE,
// to nearest even).
func fmulNodes4(x [16]float32) [4]float32 {
	var n [4]float32
	for i := range n {
		a, b := x[4*i]*x[4*i+1], x[4*i+2]*x[4*i+3]
		n[i] = a * b
	}
	return n
}

// fmulScan16 is the left-to-right product of 16 values.
func fmulScan16(x [16]float32) float32 {
	p := x[0]
	for _, v := range x[1:] {
		p *= v
	}
	return p
}

// fmulCrossed16 is rule 42's tree but with the 4-position nodes paired
// 0 with 2 and 1 with 3.
func fmulCrossed16(x [16]float32) float32 {
	n := fmulNodes4(x)
	l, r := n[0]*n[2], n[1]*n[3]
	return l * r
}

// fmulTree is rule 42's tree over x: ops.multiplyTree's shape on Go's
// float32 multiply (IEEE, to nearest even), which fmulStackOrder's draws
// need at about ten times the speed of the reference's integer multiply.
func fmulTree(x []float32) float32 {
	if len(x) == 1 {
		return x[0]
	}
	half := 1
	for half*2 < len(x) {
		half *= 2
	}
	return fmulTree(x[:half]) * fmulTree(x[half:])
}

// fmulStackLeft is x's product with rule 42's aligned power-of-two nodes
// (the binary decomposition of len(x), largest first: a kernel's stack
// at the end of a block) folded left to right, ((a·b)·c)·d, where rule
// 42 folds them right to left, a·(b·(c·d)).
func fmulStackLeft(x []float32) float32 {
	var p float32
	for start := 0; start < len(x); {
		size := 1 << (bits.Len(uint(len(x)-start)) - 1)
		v := fmulTree(x[start : start+size])
		if start == 0 {
			p = v
		} else {
			p *= v
		}
		start += size
	}
	return p
}

// fmulStackOrder draws n FLOAT16 factors near 1 until their product in
// rule 42's tree, rounded to FLOAT16, differs from fmulStackLeft's: n
// must have 3 or more bits set (with two nodes both orders are one
// product). A mutant folding a column kernel's stack bottom-up passed
// TestReduceFloatMultiplyHalfCol before these columns (review, seed
// 1795825510984165270).
func fmulStackOrder(rng *rand.Rand, n int) []uint16 {
	h := make([]uint16, n)
	x := make([]float32, n)
	for {
		for i := range h {
			h[i] = uint16(rng.Intn(2))<<15 | uint16(0x3bf0+rng.Intn(0x20))
			x[i] = float16.Frombits(h[i]).Float32()
		}
		if float16.Fromfloat32(fmulTree(x)).Bits() != float16.Fromfloat32(fmulStackLeft(x)).Bits() {
			return h
		}
	}
}

// fmulOrderColumn draws 16 FLOAT16 factors near 1 until their product in
// rule 42's tree, rounded to FLOAT16, differs from their product in the
// order alt: FLOAT16's rounding hides almost every FLOAT32 rounding
// difference between orders (about one column in 10^4 shows one), so a
// test that is to see the order draws its columns.
func fmulOrderColumn(rng *rand.Rand, alt func([16]float32) float32) [16]uint16 {
	for {
		var h [16]uint16
		var x [16]float32
		for i := range h {
			h[i] = uint16(rng.Intn(2))<<15 | uint16(0x3bf0+rng.Intn(0x20))
			x[i] = float16.Frombits(h[i]).Float32()
		}
		if float16.Fromfloat32(fmulTree(x[:])).Bits() != float16.Fromfloat32(alt(x)).Bits() {
			return h
		}
	}
}
