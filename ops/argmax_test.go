//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// argDesc builds ARGMAX, ARGMIN or REDUCE (kind "argmax", "argmin",
// "reduce-argmax", "reduce-argmin").
func argDesc(kind string, in, out tensor.Desc, axes []uint32, dir ops.AxisDirection) ops.Desc {
	switch kind {
	case "argmax":
		return &ops.ArgMax{Input: in, Output: out, Axes: axes, AxisDirection: dir}
	case "argmin":
		return &ops.ArgMin{Input: in, Output: out, Axes: axes, AxisDirection: dir}
	case "reduce-argmax":
		return &ops.Reduce{Function: ops.ReduceFunctionArgMax, Input: in, Output: out, Axes: axes}
	case "reduce-argmin":
		return &ops.Reduce{Function: ops.ReduceFunctionArgMin, Input: in, Output: out, Axes: axes}
	}
	panic(kind)
}

var argKinds = []string{"argmax", "argmin", "reduce-argmax", "reduce-argmin"}

// argOutSizes keeps the rank and sets reduced axes to 1.
func argOutSizes(sizes []uint32, axes []uint32) []uint32 {
	out := slices.Clone(sizes)
	for _, a := range axes {
		out[a] = 1
	}
	return out
}

// argRunArg runs desc on the reference and the GPU (CheckOperator) and returns
// the indices.
func argRunArg(t *testing.T, d *dml.Device, desc ops.Desc, in *tensor.Tensor, rng *rand.Rand) []uint64 {
	t.Helper()
	res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
	return res.Outputs[0].Uint64s()
}

func argF32Tensor(sizes []uint32, v ...float32) *tensor.Tensor { return tensor.FromFloat32(sizes, v) }

// TestArgSeedExamples: the seed pages' examples, on every strategy.
func TestArgSeedExamples(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := argF32Tensor([]uint32{3, 3}, 1, 2, 3, 3, 0, 4, 2, 5, 2)
	cases := []struct {
		kind string
		axes []uint32
		want []uint64
	}{
		{"argmax", []uint32{0}, []uint64{1, 2, 1}},
		{"argmax", []uint32{1}, []uint64{2, 2, 1}},
		{"argmax", []uint32{0, 1}, []uint64{7}},
		{"argmin", []uint32{0}, []uint64{0, 1, 2}},
		{"argmin", []uint32{1}, []uint64{0, 1, 0}},
		{"argmin", []uint32{0, 1}, []uint64{4}},
		{"reduce-argmax", []uint32{0, 1}, []uint64{7}},
		{"reduce-argmin", []uint32{1}, []uint64{0, 1, 0}},
	}
	for _, c := range cases {
		for _, strat := range append([]string{""}, ops.ArgStrategies...) {
			desc := argDesc(c.kind, in.Desc, tensor.NewDesc(tensor.UInt32, argOutSizes(in.Desc.Sizes, c.axes)), c.axes, ops.AxisDirectionIncreasing)
			got := argRunArgKernel(t, d, desc, in, strat, rng)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s axes %v (%q): got %v, want %v", c.kind, c.axes, strat, got, c.want)
			}
		}
	}
	// The direction examples.
	dirs := []struct {
		kind string
		v    []float32
		dir  ops.AxisDirection
		want uint64
	}{
		{"argmax", []float32{3, 2, 1, 2, 3}, ops.AxisDirectionIncreasing, 0},
		{"argmax", []float32{3, 2, 1, 2, 3}, ops.AxisDirectionDecreasing, 4},
		{"argmin", []float32{1, 2, 3, 2, 1}, ops.AxisDirectionIncreasing, 0},
		{"argmin", []float32{1, 2, 3, 2, 1}, ops.AxisDirectionDecreasing, 4},
	}
	for _, c := range dirs {
		in := argF32Tensor([]uint32{5}, c.v...)
		for _, strat := range append([]string{""}, ops.ArgStrategies...) {
			desc := argDesc(c.kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{1}), []uint32{0}, c.dir)
			if got := argRunArgKernel(t, d, desc, in, strat, rng); len(got) != 1 || got[0] != c.want {
				t.Errorf("%s(%v) %v (%q): got %v, want %d", c.kind, c.v, c.dir, strat, got, c.want)
			}
		}
	}
}

// argRunArgKernel is argRunArg with a forced strategy ("" = the planner's).
func argRunArgKernel(t *testing.T, d *dml.Device, desc ops.Desc, in *tensor.Tensor, strat string, rng *rand.Rand) []uint64 {
	t.Helper()
	if strat == "" {
		return argRunArg(t, d, desc, in, rng)
	}
	op, err := d.CreateOperatorWithKernel(desc, strat)
	if err != nil {
		t.Fatalf("CreateOperatorWithKernel(%s): %v", strat, err)
	}
	if op.Strategy() != strat {
		t.Fatalf("forced %q, plan says %q", strat, op.Strategy())
	}
	return argRunArg(t, d, &testutil.ForcedPlan{Desc: desc, Kernel: strat}, in, rng)
}

// TestArgReferenceRules pins the CPU oracle to semantics.md by hand-worked
// cases (the GPU is then checked against the oracle).
func TestArgReferenceRules(t *testing.T) {
	nan := float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	cases := []struct {
		name string
		kind string
		v    []float32
		dir  ops.AxisDirection
		want uint64
	}{
		{"nan inside is skipped", "argmax", []float32{1, nan, 3}, 0, 2},
		{"nan inside is skipped (min)", "argmin", []float32{1, nan, 3}, 0, 0},
		{"nan first wins argmax", "argmax", []float32{nan, 1, 2}, 0, 0},
		{"nan first wins argmin", "argmin", []float32{nan, 1, 2}, 0, 0},
		{"nan first wins decreasing", "argmax", []float32{nan, 5, 5}, 1, 0},
		{"all nan", "argmax", []float32{nan, nan, nan}, 1, 0},
		{"nan then values", "argmin", []float32{2, nan, nan, 1, nan}, 1, 3},
		{"-0 ties +0 first", "argmax", []float32{negz, 0, -1}, 0, 0},
		{"-0 ties +0 last", "argmax", []float32{negz, 0, -1}, 1, 1},
		{"+0 ties -0 min last", "argmin", []float32{0, negz, 1}, 1, 1},
		{"inf", "argmax", []float32{inf, nan, inf}, 1, 2},
		{"-inf min", "argmin", []float32{-inf, -inf, 0}, 0, 0},
	}
	for _, c := range cases {
		in := argF32Tensor([]uint32{uint32(len(c.v))}, c.v...)
		desc := argDesc(c.kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{1}), []uint32{0}, c.dir)
		out := tensor.New(tensor.UInt32, 1)
		if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{out}); err != nil {
			t.Fatal(err)
		}
		if got := out.Uint64s()[0]; got != c.want {
			t.Errorf("%s: %s(%v) = %d, want %d", c.name, c.kind, c.v, got, c.want)
		}
	}

	// Rule 1 across non-adjacent axes (fdwr's example): input [2,3,4,5],
	// axes {3,1} (unordered, and a duplicate): the index runs over the
	// [_,3,_,5] block row-major.
	sizes := []uint32{2, 3, 4, 5}
	vals := make([]float64, 120)
	for i := range vals {
		vals[i] = -float64(i)
	}
	in := tensor.FromFloat64As(tensor.Float32, sizes, vals)
	// Make element (n=1, a=2, h=3, b=4) the maximum of its block.
	in.SetFloat64([]uint32{1, 2, 3, 4}, 1000)
	desc := argDesc("argmax", in.Desc, tensor.NewDesc(tensor.UInt64, []uint32{2, 1, 4, 1}), []uint32{3, 1, 3}, 0)
	out := tensor.New(tensor.UInt64, 2, 1, 4, 1)
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{out}); err != nil {
		t.Fatal(err)
	}
	if got := out.Uint64At(1, 0, 3, 0); got != 2*5+4 {
		t.Errorf("block index: got %d, want 14", got)
	}
	if got := out.Uint64At(0, 0, 0, 0); got != 0 {
		t.Errorf("block index of a decreasing block: got %d, want 0", got)
	}
}

// ---- random tensors ----

// argLayout returns strides for sizes: a random memory order (C, Fortran or
// a permutation), optional padding, and for inputs optional broadcast.
func argLayout(rng *rand.Rand, sizes []uint32, mode string) []uint32 {
	r := len(sizes)
	order := make([]int, r) // order[0] = the fastest dimension
	for i := range order {
		order[i] = r - 1 - i
	}
	switch mode {
	case "packed":
		return nil
	case "fortran":
		for i := range order {
			order[i] = i
		}
	case "permuted", "broadcast", "padded":
		if mode != "padded" || rng.Intn(2) == 0 {
			rng.Shuffle(r, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
	}
	strides := make([]uint32, r)
	next := uint32(1)
	for _, d := range order {
		strides[d] = next
		pad := uint32(0)
		if mode == "padded" || rng.Intn(3) == 0 && mode != "fortran" {
			pad = uint32(rng.Intn(3))
		}
		next = next*sizes[d] + pad
	}
	if mode == "broadcast" {
		n := 0
		for d := range sizes {
			if sizes[d] > 1 && rng.Intn(2) == 0 {
				strides[d] = 0
				n++
			}
		}
		if n == 0 {
			for d := range sizes {
				if sizes[d] > 1 {
					strides[d] = 0
					break
				}
			}
		}
	}
	return strides
}

// argSpecial returns the bits of an adversarial value of dt.
func argSpecial(rng *rand.Rand, dt tensor.DataType) uint64 {
	switch dt {
	case tensor.Float32:
		v := []uint64{0x7fc00000, 0xffc00000, 0x7f800001, 0x80000000, 0, 0x7f800000, 0xff800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 1}
		return v[rng.Intn(len(v))]
	case tensor.Float16:
		v := []uint64{0x7e00, 0xfe00, 0x7c01, 0x8000, 0, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 1}
		return v[rng.Intn(len(v))]
	}
	bits := 8 * dt.Size()
	mask := uint64(1)<<bits - 1
	if bits == 64 {
		mask = ^uint64(0)
	}
	var v []uint64
	if dt.IsSigned() {
		v = []uint64{1 << (bits - 1), (1<<(bits-1) - 1), 0, mask, 1, mask - 1}
	} else {
		v = []uint64{0, mask, 1, mask - 1, 1 << (bits - 1), 1<<(bits-1) - 1}
	}
	return v[rng.Intn(len(v))] & mask
}

// argFill sets every logical element of t from the value mode.
func argFill(rng *rand.Rand, t *tensor.Tensor, mode string) {
	dt := t.Desc.DataType
	rng.Read(t.Data) // garbage between strided elements
	tensor.ForEachIndex(t.Desc.Sizes, func(c []uint32) {
		switch mode {
		case "ties":
			v := float64(rng.Intn(3))
			if dt.IsFloat() && v == 0 && rng.Intn(2) == 0 {
				v = math.Copysign(0, -1)
			}
			t.SetFloat64(c, v)
		case "special":
			if rng.Intn(4) == 0 {
				t.SetFloat64(c, float64(rng.Intn(3)))
			} else {
				t.SetBits(c, argSpecial(rng, dt))
			}
		case "nan":
			if dt.IsFloat() && rng.Intn(2) == 0 {
				t.SetBits(c, argNanBits(dt))
			} else {
				t.SetFloat64(c, float64(rng.Intn(5)))
			}
		default: // random bits
			t.SetBits(c, rng.Uint64())
		}
	})
}

var argValueModes = []string{"ties", "special", "nan", "random"}
var argLayoutModes = []string{"packed", "fortran", "padded", "permuted", "broadcast"}

// argRandomCase builds one random operator and input.
type argCase struct {
	desc ops.Desc
	in   *tensor.Tensor
	what string
}

func argRandomCase(rng *rand.Rand, maxElems int) argCase {
	dt := tensor.AllTypes[rng.Intn(len(tensor.AllTypes))]
	sizes, axes := argRandomShape(rng, maxElems)
	lay := argLayoutModes[rng.Intn(len(argLayoutModes))]
	in := argInput(dt, sizes, argLayout(rng, sizes, lay))
	vm := argValueModes[rng.Intn(len(argValueModes))]
	argFill(rng, in, vm)
	return argDrawCase(rng, "", in, axes, vm, "packed", "padded", "permuted")
}

// argRandomShape draws a rank of 1 to 8, sizes of at most maxElems
// elements in all, and axes (duplicates, any order, or none).
func argRandomShape(rng *rand.Rand, maxElems int) (sizes, axes []uint32) {
	rank := 1 + rng.Intn(8)
	sizes = make([]uint32, rank)
	total := 1
	for i := range sizes {
		sizes[i] = 1
	}
	for tries := 0; tries < 4*rank; tries++ {
		i := rng.Intn(rank)
		f := uint32(2 + rng.Intn(6))
		if total*int(f) <= maxElems {
			sizes[i] *= f
			total *= int(f)
		}
	}
	for n := rng.Intn(rank + 2); n > 0; n-- { // duplicates and any order
		axes = append(axes, uint32(rng.Intn(rank)))
	}
	if len(axes) == 0 && rng.Intn(2) == 0 {
		axes = []uint32{uint32(rng.Intn(rank))}
	}
	return sizes, axes
}

// argInput is an input tensor of dt and sizes with strides (nil: packed),
// its bytes zero.
func argInput(dt tensor.DataType, sizes, strides []uint32) *tensor.Tensor {
	desc := tensor.NewStridedDesc(dt, sizes, strides)
	return &tensor.Tensor{Desc: desc, Data: make([]byte, desc.TotalTensorSizeInBytes)}
}

var argIndexTypes = []tensor.DataType{tensor.UInt32, tensor.Int32, tensor.UInt64, tensor.Int64}

// argDrawCase completes a random case reducing in (filled with values)
// over axes: it draws the operator kind, the direction, the index type and
// one of outLayouts, and describes the case, after label, by all of them.
func argDrawCase(rng *rand.Rand, label string, in *tensor.Tensor, axes []uint32, values string, outLayouts ...string) argCase {
	kind := argKinds[rng.Intn(len(argKinds))]
	dir := ops.AxisDirection(rng.Intn(2))
	ot := argIndexTypes[rng.Intn(len(argIndexTypes))]
	os := argOutSizes(in.Desc.Sizes, axes)
	out := tensor.NewStridedDesc(ot, os, argLayout(rng, os, outLayouts[rng.Intn(len(outLayouts))]))
	what := fmt.Sprintf("%s%s %v sizes %v strides %v axes %v dir %d values %s -> %v strides %v",
		label, kind, in.Desc.DataType, in.Desc.Sizes, in.Desc.Strides, axes, dir, values, ot, out.Strides)
	return argCase{desc: argDesc(kind, in.Desc, out, axes, dir), in: in, what: what}
}

// drawCases calls draw(i) for i = 0, 1, ... at least n times, then keeps
// going, up to 4n, until covered reports that every path the test is about
// ran its required number of times. How many random cases reach a path
// varies with the seed; the required coverage must not. It returns how many
// cases were drawn.
func drawCases(n int, covered func() bool, draw func(i int)) int {
	i := 0
	for ; i < 4*n && (i < n || !covered()); i++ {
		draw(i)
	}
	return i
}

// shortSampled reports whether case i of a sweep runs: one in every of
// them, and every case only in a long run (testutil.Long: VKDML_LONG=1,
// without -short; make test-long). make test runs ops three times
// (subgroup sizes 8, 4 and 16), and the whole grids of the five longest
// GPU sweeps cost minutes of every CI run at each width (at size 8, 406 s
// of a loaded machine against about 70 s for the sample); callers offset
// i by the type's position so that the cases a run skips for one type
// run for the next, and every kind, layout and kernel still runs at
// every width.
func shortSampled(i, every int) bool {
	return testutil.Long() || i%every == 0
}

func argCheckCase(t *testing.T, d *dml.Device, c argCase, strat string, rng *rand.Rand) {
	t.Helper()
	desc := c.desc
	if strat != "" {
		desc = &testutil.ForcedPlan{Desc: desc, Kernel: strat}
	}
	res, err := testutil.RunPoisoned(d, desc, []*tensor.Tensor{c.in}, rng)
	if err != nil {
		t.Fatalf("%s [%q]: %v", c.what, strat, err)
	}
	if diff := testutil.DiffTensors(res.Expected[0], res.Outputs[0], 8); diff != "" {
		t.Fatalf("%s [%s]: GPU differs from the reference:\n%s", c.what, res.Strategy, diff)
	}
}

// TestArgRandom: random types, ranks 1-8, axis subsets (duplicates,
// unordered, none), both directions, all index types, every input argLayout
// and strided outputs, heavy ties and adversarial values; on the chosen
// strategy and on each forced one.
func TestArgRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := testutil.CaseCount(100, 30)
	strats := append([]string{""}, ops.ArgStrategies...)
	for i := 0; i < n; i++ {
		maxElems := 512
		if i%10 == 0 {
			maxElems = 6000
		}
		c := argRandomCase(rng, maxElems)
		argCheckCase(t, d, c, strats[i%len(strats)], rng)
	}
}

// TestArgAdversarialRows: long rows with NaN at position 0, only NaN, NaN
// everywhere but one, ±0 ties, min/max at every position class, for every
// strategy (so lanes, subgroups and split-K segments all see them).
func TestArgAdversarialRows(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	types := tensor.AllTypes
	n := 700
	for _, dt := range types {
		for pattern := 0; pattern < 6; pattern++ {
			rows := uint32(3)
			in := tensor.New(dt, rows, uint32(n))
			argFill(rng, in, "ties")
			tensor.ForEachIndex(in.Desc.Sizes, func(c []uint32) { argAdversarial(rng, in, c, c[1], uint32(n), pattern, false) })
			for _, kind := range []string{"argmax", "argmin"} {
				for dir := ops.AxisDirection(0); dir < 2; dir++ {
					desc := argDesc(kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{rows, 1}), []uint32{1}, dir)
					c := argCase{desc: desc, in: in, what: fmt.Sprintf("%v pattern %d %s dir %d", dt, pattern, kind, dir)}
					argCheckCase(t, d, c, ops.ArgStrategies[(pattern+int(dir))%3], rng)
				}
			}
		}
	}
}

// argAdversarial sets element c of t, at position j of its block of n, for
// one of the adversarial patterns: 0 a special value first (with nanFirst,
// NaN for floats), 1 all NaN or all equal, 2 NaN everywhere but a few
// positions, 3 ±0 only, 4 specials, 5 the extreme at the last position.
func argAdversarial(rng *rand.Rand, t *tensor.Tensor, c []uint32, j, n uint32, pattern int, nanFirst bool) {
	dt := t.Desc.DataType
	switch pattern {
	case 0:
		if j == 0 {
			t.SetBits(c, argSpecial(rng, dt))
			if nanFirst && dt.IsFloat() {
				t.SetBits(c, argNanBits(dt))
			}
		}
	case 1:
		if dt.IsFloat() {
			t.SetBits(c, argNanBits(dt))
		} else {
			t.SetFloat64(c, 1)
		}
	case 2:
		if dt.IsFloat() && rng.Intn(50) != 0 {
			t.SetBits(c, argNanBits(dt))
		}
	case 3:
		if dt.IsFloat() {
			t.SetBits(c, uint64(rng.Intn(2))<<(8*dt.Size()-1))
		} else {
			t.SetFloat64(c, 0)
		}
	case 4:
		t.SetBits(c, argSpecial(rng, dt))
	case 5:
		t.SetFloat64(c, 1)
		if j == n-1 {
			t.SetFloat64(c, 2)
		}
	}
}

func argNanBits(dt tensor.DataType) uint64 {
	if dt == tensor.Float16 {
		return 0x7e00
	}
	return 0x7fc00000
}

// argAllFallbacks disables every optional feature the argmax kernels use.
var argAllFallbacks = caps.Features{ShaderInt64: true, StorageBuffer8Bit: true, StorageBuffer16Bit: true, SubgroupArithmetic: true,
	ShaderInt16: true, ShaderInt8: true, ShaderFloat16: true, SubgroupExtendedTypes: true}

// TestArgFallbacks forces each fallback (no 8/16-bit storage, no
// shaderInt64, no subgroup arithmetic, no 16/8-bit types, no float16) alone
// and all together, and runs random cases on every strategy.
func TestArgFallbacks(t *testing.T) {
	configs := map[string]caps.Features{
		"no8bit":     {StorageBuffer8Bit: true},
		"no16bit":    {StorageBuffer16Bit: true},
		"noInt64":    {ShaderInt64: true},
		"noSubgroup": {SubgroupArithmetic: true},
		"noFloat16":  {ShaderFloat16: true, ShaderInt16: true, ShaderInt8: true, SubgroupExtendedTypes: true},
		"all":        argAllFallbacks,
	}
	names := []string{"no8bit", "no16bit", "noInt64", "noSubgroup", "noFloat16", "all"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: configs[name]})
			rng := testutil.Rand(t)
			n := testutil.CaseCount(14, 6)
			for i := 0; i < n; i++ {
				c := argRandomCase(rng, 1500)
				argCheckCase(t, d, c, ops.ArgStrategies[i%3], rng)
			}
		})
	}
}

// TestArgNoAxes: AxisCount = 0 with equal sizes is accepted and every
// output is 0 (semantics.md rule 2), through strided outputs too.
func TestArgNoAxes(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := tensor.New(tensor.Float16, 3, 5)
	argFill(rng, in, "special")
	for _, ot := range []tensor.DataType{tensor.UInt32, tensor.Int64} {
		out := tensor.NewStridedDesc(ot, []uint32{3, 5}, []uint32{12, 2})
		for _, kind := range argKinds {
			got := argRunArg(t, d, argDesc(kind, in.Desc, out, nil, 1), in, rng)
			for i, v := range got {
				if v != 0 {
					t.Fatalf("%s %v: output %d is %d, want 0", kind, ot, i, v)
				}
			}
		}
	}
}
