//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// reduceValueFns are REDUCE's exact value functions.
var reduceValueFns = []ops.ReduceFunction{ops.ReduceFunctionMax, ops.ReduceFunctionMin, ops.ReduceFunctionSum,
	ops.ReduceFunctionMultiply, ops.ReduceFunctionL1, ops.ReduceFunctionSumSquare}

var reduceInts = []tensor.DataType{tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64}

// reduceTypesOf is the types vkdml computes f on: every type for MAX and
// MIN, the 32- and 64-bit integers for the others.
func reduceTypesOf(f ops.ReduceFunction) []tensor.DataType {
	if reduceExtreme(f) {
		return tensor.AllTypes
	}
	return reduceInts
}

func reduceExtreme(f ops.ReduceFunction) bool {
	return f == ops.ReduceFunctionMax || f == ops.ReduceFunctionMin
}

// reducePatterns are the value patterns, each set by block position j (of
// n) so that ties, NaN, ±0, ±∞, the types' extremes and wrap-around land
// on both sides of segment, lane and workgroup boundaries.
var reducePatterns = []string{"ties", "nan-first", "nan-last", "all-nan", "nan-but-few", "zeros", "specials", "boundary", "odd", "random"}

// reduceNaNs are NaN bits of FLOAT32 and FLOAT16 with either sign and
// payloads, so that which NaN a block of NaN gives shows.
var reduceNaNs = map[tensor.DataType][]uint64{
	tensor.Float32: {0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff, 0x7fc00123},
	tensor.Float16: {0x7e00, 0xfe00, 0x7c01, 0xffff, 0x7e12},
}

// reduceValue is the bits of the element at block position j of n.
func reduceValue(rng *rand.Rand, dt tensor.DataType, pattern string, j, n uint32) uint64 {
	nan := func() uint64 { v := reduceNaNs[dt]; return v[rng.Intn(len(v))] }
	small := func() uint64 { return argValueBits(dt, float64(rng.Intn(3)), rng) }
	switch pattern {
	case "nan-first", "nan-last":
		at := uint32(0)
		if pattern == "nan-last" {
			at = n - 1
		}
		if j == at {
			if dt.IsFloat() {
				return nan()
			}
			return argSpecial(rng, dt)
		}
		return small()
	case "all-nan":
		if dt.IsFloat() {
			return nan()
		}
		return argValueBits(dt, 1, rng)
	case "nan-but-few":
		if dt.IsFloat() && rng.Intn(40) != 0 {
			return nan()
		}
		return small()
	case "zeros":
		if dt.IsFloat() {
			return uint64(rng.Intn(2)) << (8*dt.Size() - 1)
		}
		return 0
	case "specials":
		if dt.IsFloat() && rng.Intn(6) == 0 {
			return nan()
		}
		return argSpecial(rng, dt)
	case "boundary": // specials at the ends of every 16 and 256 positions
		if j%16 == 0 || j%16 == 15 || j%256 == 0 || j%256 == 255 {
			return argSpecial(rng, dt)
		}
		return small()
	case "odd": // odd integers: products that do not vanish modulo 2^n
		return rng.Uint64() | 1
	case "random":
		return rng.Uint64()
	}
	return small()
}

// argValueBits is v (an integer, or ±0 for floats at random) as dt's bits.
func argValueBits(dt tensor.DataType, v float64, rng *rand.Rand) uint64 {
	t := tensor.New(dt, 1)
	if dt.IsFloat() && v == 0 && rng.Intn(2) == 0 {
		v = math.Copysign(0, -1)
	}
	t.SetFloat64([]uint32{0}, v)
	return t.Bits(0)
}

// reduceFill sets every logical element of t from pattern and its
// position j in its block (row-major over axes).
func reduceFill(rng *rand.Rand, t *tensor.Tensor, axes []uint32, pattern string) {
	rng.Read(t.Data) // garbage between strided elements
	n := uint32(1)
	seen := map[uint32]bool{}
	for _, ax := range axes {
		if !seen[ax] {
			n *= t.Desc.Sizes[ax]
		}
		seen[ax] = true
	}
	tensor.ForEachIndex(t.Desc.Sizes, func(c []uint32) {
		j := uint32(0)
		for ax := range t.Desc.Sizes {
			if seen[uint32(ax)] {
				j = j*t.Desc.Sizes[ax] + c[ax]
			}
		}
		t.SetBits(c, reduceValue(rng, t.Desc.DataType, pattern, j, n))
	})
}

// reduceCase is a REDUCE of function f over axes of in (filled with
// pattern), with an output of one of outLayouts.
func reduceCase(rng *rand.Rand, f ops.ReduceFunction, in *tensor.Tensor, axes []uint32, pattern string, outLayouts ...string) argCase {
	reduceFill(rng, in, axes, pattern)
	os := argOutSizes(in.Desc.Sizes, axes)
	out := tensor.NewStridedDesc(in.Desc.DataType, os, argLayout(rng, os, outLayouts[rng.Intn(len(outLayouts))]))
	what := fmt.Sprintf("%v %v sizes %v strides %v axes %v values %s -> strides %v",
		f, in.Desc.DataType, in.Desc.Sizes, in.Desc.Strides, axes, pattern, out.Strides)
	return argCase{desc: &ops.Reduce{Function: f, Input: in.Desc, Output: out, Axes: axes}, in: in, what: what}
}

// reduceRandomCase: a random function, one of its types, a random shape
// (argRandomShape), input layout and value pattern.
func reduceRandomCase(rng *rand.Rand, maxElems int) argCase {
	f := reduceValueFns[rng.Intn(len(reduceValueFns))]
	types := reduceTypesOf(f)
	dt := types[rng.Intn(len(types))]
	sizes, axes := argRandomShape(rng, maxElems)
	in := argInput(dt, sizes, argLayout(rng, sizes, argLayoutModes[rng.Intn(len(argLayoutModes))]))
	return reduceCase(rng, f, in, axes, reducePatterns[rng.Intn(len(reducePatterns))], "packed", "padded", "permuted")
}

// reduceStrategies are the strategies the tests force, "" the planner's
// own; vec on a layout no vector kernel fits runs the planner's scalar
// choice.
var reduceStrategies = append([]string{"", ops.ArgStrategyVec}, ops.ArgStrategies...)

// TestReduceValueExamples: the rules' examples (the issue, DirectML's
// measurements) on the GPU, on every strategy.
func TestReduceValueExamples(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range reduceExamples {
		in := c.input()
		for _, strat := range reduceStrategies {
			desc := &ops.Reduce{Function: c.fn, Input: in.Desc, Output: tensor.NewDesc(in.Desc.DataType, []uint32{1}), Axes: []uint32{0}}
			res := testutil.CheckOperator(t, d, reduceForced(desc, strat), []*tensor.Tensor{in}, rng)
			if got := res.Outputs[0].Bits(0); got != c.want {
				t.Errorf("%s [%q]: got %#x, want %#x", c.name, strat, got, c.want)
			}
		}
	}
}

func reduceForced(desc ops.Desc, strat string) ops.Desc {
	if strat == "" {
		return desc
	}
	return &testutil.ForcedPlan{Desc: desc, Kernel: strat}
}

// TestReduceValueRandom: random functions, types, ranks 1-8, axis subsets
// (duplicates, unordered, none), every input layout, strided outputs and
// every value pattern, on the planner's choice and on each forced
// strategy.
func TestReduceValueRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := testutil.CaseCount(150, 40)
	for i := 0; i < n; i++ {
		maxElems := 512
		if i%10 == 0 {
			maxElems = 6000
		}
		argCheckCase(t, d, reduceRandomCase(rng, maxElems), reduceStrategies[i%len(reduceStrategies)], rng)
	}
}

// reduceRowsCase: rows of n elements over the last axis (rows padded at
// random, so that blocks start unaligned).
func reduceRowsCase(rng *rand.Rand, f ops.ReduceFunction, dt tensor.DataType, rows, n uint32, pattern string) argCase {
	var strides []uint32
	if rng.Intn(2) == 0 {
		strides = []uint32{n + uint32(1+rng.Intn(5)), 1}
	}
	return reduceCase(rng, f, argInput(dt, []uint32{rows, n}, strides), []uint32{1}, pattern, "packed", "padded")
}

// reduceColsCase: columns over axis 0 (or a middle axis), whose GPU plans
// cut the blocks by the column split: an odd number of them, or with vec
// 16 or 32, which every width's vec-col kernel takes (16-byte loads of 16
// 8-bit, 8 16-bit, 4 or 8 32-bit and 2 64-bit adjacent outputs).
func reduceColsCase(rng *rand.Rand, f ops.ReduceFunction, dt tensor.DataType, pattern string, vec bool) argCase {
	nred := uint32(1000 + rng.Intn(3000))
	cols := uint32(3 + 2*rng.Intn(6))
	if vec {
		cols = 16 * uint32(1+rng.Intn(2))
	}
	sizes, axes := []uint32{nred, cols}, []uint32{0}
	if rng.Intn(2) == 0 {
		sizes, axes = []uint32{2, nred, cols}, []uint32{1}
	}
	return reduceCase(rng, f, argInput(dt, sizes, nil), axes, pattern, "packed", "padded")
}

// TestReduceValueRows runs every function on every type and value
// pattern over rows, on lavapipe's plans with each strategy forced and on
// the GPU plans (workgroups of 256 lanes, the row and column splits, the
// workgroup combine, eight loads in flight per thread): short rows, rows
// of a few hundred (lanes and subgroups), long ones (split-K segments)
// and columns (the column split), and columns that the vec-col kernels
// take, forced to them (vec) on both devices.
func TestReduceValueRows(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	used := map[string]int{}
	k := 0 // the cases run: each takes the next shape and strategy
	for _, f := range reduceValueFns {
		for ti, dt := range reduceTypesOf(f) {
			for pi, pattern := range reducePatterns {
				// Half the (type, pattern) pairs with VKDML_LONG, else a
				// quarter: each case compiles its own pipelines, and the
				// quarter already runs every kernel reduceCheckPlansUsed
				// asks for.
				if (pi+ti)%2 == 1 || !testutil.Long() && (pi+ti)%4 == 2 {
					continue
				}
				k++
				var c argCase
				strat, gpuKernel := reduceStrategies[k/5%len(reduceStrategies)], ""
				switch k % 5 {
				case 0:
					c = reduceRowsCase(rng, f, dt, uint32(1+rng.Intn(4)), uint32(1+rng.Intn(40)), pattern)
				case 1:
					c = reduceRowsCase(rng, f, dt, uint32(1+rng.Intn(5)), uint32(256+rng.Intn(1200)), pattern)
				case 2:
					c = reduceRowsCase(rng, f, dt, 1+uint32(rng.Intn(2)), uint32(70000+rng.Intn(9000)), pattern)
				case 3:
					c = reduceColsCase(rng, f, dt, pattern, false)
				case 4:
					c = reduceColsCase(rng, f, dt, pattern, true)
					strat, gpuKernel = ops.ArgStrategyVec, ops.ArgStrategyVec
				}
				argCheckCase(t, d, c, strat, rng)
				for _, tune := range []ops.Tuning{nil, {"argCombineGroupMin": "2", "argThreadLoads": "1"}} {
					reduceCheckGPUPlan(t, d, c, tune, gpuKernel, used, rng)
				}
			}
		}
	}
	// The workgroup combine without subgroup arithmetic is MULTIPLY's on
	// 64-bit types. The 64-bit MULTIPLY columns above take it at subgroup
	// sizes 4 and 8, but at 16 their shapes decide, and one run in 200
	// drew none: then a long 64-bit row, cut into segments that a
	// workgroup combines (no ticket), runs it at every subgroup size.
	if reducePlanRuns(used, "argmax_combine_group+") == 0 {
		c := reduceCase(rng, ops.ReduceFunctionMultiply, argInput(tensor.UInt64, []uint32{200000}, nil), []uint32{0}, "ties", "packed")
		reduceCheckGPUPlan(t, d, c, ops.Tuning{"argCombineGroupMin": "2", "argTicketOutputs": "0"}, "", used, rng)
	}
	reduceCheckPlansUsed(t, used, "argmax_combine_groupsg", "argmax_combine_group+", "threadx8", "groupsg",
		"vec_row64sg+", "vec_b16_rowsg", "vec_b64_row", "_colx4", "vec_b8_coly")
}

// reduceCheckGPUPlan checks c on the discrete-GPU plan with tuning tune
// and strategy kernel ("" for the planner's), counting its (strategy,
// kernels) in used.
func reduceCheckGPUPlan(t *testing.T, d *dml.Device, c argCase, tune ops.Tuning, kernel string, used map[string]int, rng *rand.Rand) {
	t.Helper()
	g := c
	g.desc = &testutil.ForcedPlan{Desc: c.desc, DeviceType: caps.DeviceTypeDiscreteGPU, Tuning: tune, Kernel: kernel}
	p, err := g.desc.Plan(testutil.PlanContext(d))
	if err != nil {
		t.Fatalf("%s: GPU plan: %v", c.what, err)
	}
	variants := []string{}
	for _, k := range p.Kernels {
		variants = append(variants, k.Variant)
	}
	used[p.Strategy+" "+strings.Join(variants, "+")]++
	argCheckCase(t, d, g, "", rng)
}

// reduceCheckPlansUsed logs the GPU plans used and fails unless some plan
// ran each of wants (a substring of "strategy kernel+kernel+").
func reduceCheckPlansUsed(t *testing.T, used map[string]int, wants ...string) {
	t.Helper()
	t.Logf("GPU plans (strategy, kernels): %v", used)
	for _, want := range wants {
		if reducePlanRuns(used, want) == 0 {
			t.Errorf("no GPU plan ran %s: %v", want, used)
		}
	}
}

// reducePlanRuns counts the runs in used (reduceCheckGPUPlan's) of the
// plans whose "strategy kernel+kernel+" contains want.
func reducePlanRuns(used map[string]int, want string) int {
	n := 0
	for k, v := range used {
		if strings.Contains(k+"+", want) {
			n += v
		}
	}
	return n
}

// TestReduceValueFallbacks: random cases without subgroup arithmetic (the
// shared-memory combines), and with every optional feature off (8/16-bit
// elements read and written as 32-bit words), on every strategy.
func TestReduceValueFallbacks(t *testing.T) {
	for _, name := range []string{"noSubgroup", "all"} {
		t.Run(name, func(t *testing.T) {
			dis := caps.Features{SubgroupArithmetic: true}
			if name == "all" {
				dis = argAllFallbacks
			}
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: dis})
			rng := testutil.Rand(t)
			n := testutil.CaseCount(30, 10)
			for i := 0; i < n; i++ {
				c := reduceRandomCase(rng, 3000)
				argCheckCase(t, d, c, reduceStrategies[i%len(reduceStrategies)], rng)
				g := c
				g.desc = &testutil.ForcedPlan{Desc: c.desc, DeviceType: caps.DeviceTypeDiscreteGPU, Kernel: ops.ArgStrategies[i%3]}
				argCheckCase(t, d, g, "", rng)
			}
		})
	}
}

// TestReduceValueWindows: binding windows of 256 bytes to 4 KiB cut the
// tensors into many steps and blocks into windowed segments.
func TestReduceValueWindows(t *testing.T) {
	devices := testutil.WindowDevices(t)
	rng := testutil.Rand(t)
	used := map[string]int{}
	for i := 0; i < testutil.CaseCount(24, 8); i++ {
		d := devices([]uint64{256, 1024, 4096}[rng.Intn(3)])
		c := reduceRandomCase(rng, 3000)
		if i%3 == 0 {
			f := reduceValueFns[rng.Intn(len(reduceValueFns))]
			types := reduceTypesOf(f)
			c = reduceRowsCase(rng, f, types[rng.Intn(len(types))], 2, uint32(3000+rng.Intn(3000)), reducePatterns[rng.Intn(len(reducePatterns))])
		}
		argCheckOrRefused(t, d, c, reduceStrategies[i%len(reduceStrategies)], rng, used)
	}
	t.Logf("strategies: %v", used)
}

// TestReduceValueNoAxes: AxisCount = 0 with equal sizes is the identity
// (semantics.md rule 2) for every function: the output is the input, with
// L1's |x| and SUM_SQUARE's x*x, and for MAX a NaN, a block of NaN only,
// -inf (rule 23).
func TestReduceValueNoAxes(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, f := range reduceValueFns {
		for _, dt := range reduceTypesOf(f) {
			in := argInput(dt, []uint32{3, 5}, nil)
			c := reduceCase(rng, f, in, nil, "specials", "padded")
			argCheckCase(t, d, c, "", rng)
			if f == ops.ReduceFunctionMax || f == ops.ReduceFunctionSum {
				res := testutil.CheckOperator(t, d, c.desc, []*tensor.Tensor{in}, rng)
				tensor.ForEachIndex(in.Desc.Sizes, func(i []uint32) {
					want := in.Bits(i...)
					if dt.IsFloat() && math.IsNaN(in.Float64At(i...)) {
						want = argValueBits(dt, math.Inf(-1), rng)
					}
					if got := res.Outputs[0].Bits(i...); got != want {
						t.Fatalf("%v %v: element %v is %#x, want the input's %#x", f, dt, i, got, want)
					}
				})
			}
		}
	}
}
