//go:build cgo

package ops_test

import (
	"fmt"
	"math"
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

// semantics.md rule 7a: with the global window (WindowSize equal to the
// input's spatial sizes, both paddings 0, every dilation 1), no indices
// output and an output extent of 1 on every spatial axis, DirectML runs a
// reduction from −∞, so a window of only NaN and −∞ gives −∞; with an
// indices output, a padding, a dilation or another extent it keeps rule
// 9's −FLT_MAX or −65504. These tests run such descs, and the controls, on
// every max pooling kernel a plan can pick.

// floatPatterns are the bit patterns of a float type the adversarial
// planes are built from.
type floatPatterns struct {
	negInf, posInf, lowest, negZero uint64
	nans                            []uint64 // quiet, negative with a payload, signalling
}

func patternsOf(dt tensor.DataType) floatPatterns {
	if dt == tensor.Float16 {
		return floatPatterns{negInf: 0xfc00, posInf: 0x7c00, lowest: 0xfbff, negZero: 0x8000, nans: []uint64{0x7e00, 0xfe01, 0x7c01}}
	}
	return floatPatterns{negInf: 0xff800000, posInf: 0x7f800000, lowest: fltMaxBits, negZero: 0x80000000, nans: []uint64{0x7fc00000, 0xffc00001, 0x7f800001}}
}

// noWinner returns n taps of only NaN and −∞, at least one of each when
// n > 1, in an order drawn from rng.
func (p floatPatterns) noWinner(rng *rand.Rand, n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		if rng.Intn(2) == 0 {
			v[i] = p.negInf
		} else {
			v[i] = p.nans[rng.Intn(len(p.nans))]
		}
	}
	if n > 1 {
		v[0], v[n-1] = p.negInf, p.nans[rng.Intn(len(p.nans))]
		rng.Shuffle(n, func(i, j int) { v[i], v[j] = v[j], v[i] })
	}
	return v
}

// adversarialPlanes returns one plane of n taps per pattern: only −∞,
// NaN and −∞ mixed, only NaN, NaN and −∞ around one lowest finite value,
// ±0 ties with −0 first and with +0 first, +∞ among NaN, and ordinary
// values with a NaN.
func adversarialPlanes(rng *rand.Rand, dt tensor.DataType, n int) [][]uint64 {
	p := patternsOf(dt)
	allNegInf := slices.Repeat([]uint64{p.negInf}, n)
	allNaN := make([]uint64, n)
	for i := range allNaN {
		allNaN[i] = p.nans[i%len(p.nans)]
	}
	around := func(vals ...uint64) []uint64 {
		v := p.noWinner(rng, n)
		at := rng.Perm(n)[:min(len(vals), n)]
		slices.Sort(at)
		for i, a := range at {
			v[a] = vals[i]
		}
		return v
	}
	ordinary := make([]uint64, n)
	for i := range ordinary {
		ordinary[i] = tensor.FromFloat64As(dt, []uint32{1}, []float64{float64(rng.Intn(200) - 100)}).Bits(0)
	}
	ordinary[rng.Intn(n)] = p.nans[0]
	return [][]uint64{allNegInf, p.noWinner(rng, n), allNaN, around(p.lowest), around(p.negZero, 0, p.negZero),
		around(0, p.negZero), around(p.posInf), ordinary}
}

// globalMaxBits is rule 7a's reduction of one (n, c) plane of in: the
// best starts at −∞ and a tap replaces it only when strictly greater (NaN
// never does), so ±0 ties keep the first zero (rule 11a).
func globalMaxBits(in *tensor.Tensor, n, c uint32) uint64 {
	best, bits := math.Inf(-1), patternsOf(in.Desc.DataType).negInf
	tensor.ForEachIndex(in.Desc.Sizes[2:], func(s []uint32) {
		co := append([]uint32{n, c}, s...)
		if v := in.Float64At(co...); v > best {
			best, bits = v, in.Bits(co...)
		}
	})
	return bits
}

// fillPlanes writes plane p's taps (row-major) into every (n, c) plane of
// t with n·C + c = p mod len(planes), and returns t.
func fillPlanes(t *tensor.Tensor, planes [][]uint64) *tensor.Tensor {
	sizes := t.Desc.Sizes
	tensor.ForEachIndex(sizes, func(co []uint32) {
		var tap int
		for i := 2; i < len(sizes); i++ {
			tap = tap*int(sizes[i]) + int(co[i])
		}
		p := (int(co[0])*int(sizes[1]) + int(co[1])) % len(planes)
		t.SetBits(co, planes[p][tap])
	})
	return t
}

// globalDesc is a max pooling of in into out with window win, strides
// str, paddings sp/ep and dilations dil (nil: 1), through op (MAX_POOLING,
// MAX_POOLING1 or MAX_POOLING2) and with indices of type it
// (tensor.Unknown: none).
func globalDesc(op string, in, out tensor.Desc, it tensor.DataType, win, str, sp, ep, dil []uint32) ops.Desc {
	var idx *tensor.Desc
	if it != tensor.Unknown {
		d := tensor.NewDesc(it, out.Sizes)
		idx = &d
	}
	switch {
	case op == "MAX_POOLING2" || dil != nil:
		if dil == nil {
			dil = slices.Repeat([]uint32{1}, len(win))
		}
		return &ops.MaxPooling2{Input: in, Output: out, OutputIndices: idx, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep, Dilations: dil}
	case op == "MAX_POOLING1" || idx != nil:
		return &ops.MaxPooling1{Input: in, Output: out, OutputIndices: idx, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
	}
	return &ops.MaxPooling{Input: in, Output: out, Strides: str, WindowSize: win, StartPadding: sp, EndPadding: ep}
}

// globalRunner plans a desc as one of the max pooling kernels: want is
// the prefix its kernels' variant must have, and split whether its plan
// must bind windows of planes (split-n or split-c).
type globalRunner struct {
	name  string
	want  string
	split bool
	wrap  func(d *dml.Device, desc ops.Desc) ops.Desc
}

// globalRunners are every kernel a plan can pick for a max pooling:
// maxpool.comp with and without PRELOAD, whole or split over planes;
// maxpool_grid.comp with and without PRELOAD, in one dispatch or split
// over dispatches in y and z, and split over planes; and the planner's
// answer to a forced vec2x2, which never runs maxpool_vec.comp here.
func globalRunners() []globalRunner {
	noPreload := ops.Tuning{"poolPreloadTaps": "0"}
	grid := ops.Tuning{"poolGrid": "true", "poolGridMinLanes": "1"}
	split := func(d *dml.Device, desc ops.Desc) ops.Desc {
		plane, _, _ := poolSpans(desc)
		return limited{Desc: desc, rangeBytes: uint32(plane + max(d.GPU().Limits.MinStorageBufferOffsetAlignment, 4) + 8)}
	}
	forced := func(kernel string, devType caps.DeviceType, tu ops.Tuning) func(*dml.Device, ops.Desc) ops.Desc {
		return func(_ *dml.Device, desc ops.Desc) ops.Desc {
			return &testutil.ForcedPlan{Desc: desc, Kernel: kernel, DeviceType: devType, Tuning: tu}
		}
	}
	gpu := caps.DeviceTypeDiscreteGPU
	return []globalRunner{
		{"direct", "maxpool_b", false, forced("direct", caps.DeviceTypeOther, nil)},
		{"direct-no-preload", "maxpool_b", false, forced("direct", caps.DeviceTypeOther, noPreload)},
		{"direct-split", "maxpool_b", true, split},
		{"vec2x2 forced", "maxpool_b", false, forced(ops.MaxPoolStrategyVec2x2, caps.DeviceTypeOther, nil)},
		{"grid", "maxpool_grid_", false, forced("", gpu, grid)},
		{"grid-no-preload", "maxpool_grid_", false, forced("", gpu, grid.With(noPreload))},
		{"grid-yz-dispatches", "maxpool_grid_", false, func(_ *dml.Device, desc ops.Desc) ops.Desc { return &asGridGPU{Desc: desc, maxYZ: 1} }},
		{"grid-split", "maxpool_grid_", true, func(d *dml.Device, desc ops.Desc) ops.Desc {
			return split(d, &testutil.ForcedPlan{Desc: desc, DeviceType: gpu, Tuning: grid})
		}},
	}
}

// negInfStarts plans desc on d and reports whether its kernels start the
// best at −∞ (KIND's shaders.MaxPoolNegInfStart bit), failing t when the
// plan's kernels are not r's or do not agree.
func (r globalRunner) negInfStarts(t *testing.T, d *dml.Device, desc ops.Desc) bool {
	t.Helper()
	ctx := testutil.PlanContext(d)
	if err := desc.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.split && !strings.HasPrefix(p.Strategy, "split-") {
		t.Fatalf("plan %s, want a split over planes", p.Strategy)
	}
	var starts []bool
	for _, k := range p.Kernels {
		if !strings.HasPrefix(k.Variant, r.want) {
			t.Fatalf("plan %s runs %s, want %s*", p.Strategy, k.Variant, r.want)
		}
		v, err := shaders.Lookup(k.Variant)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(v.Spec, "KIND")
		if i < 0 {
			t.Fatalf("%s declares no KIND", k.Variant)
		}
		starts = append(starts, k.Spec[i]&shaders.MaxPoolNegInfStart != 0)
	}
	if len(starts) == 0 || slices.Contains(starts, !starts[0]) {
		t.Fatalf("kernels' −∞ starts %v", starts)
	}
	return starts[0]
}

// runGlobal runs desc on in with every runner: its kernels must start at
// −∞ exactly when wantNegInf, its outputs must equal the CPU reference's,
// and check sees each runner's values.
func runGlobal(t *testing.T, d *dml.Device, rng *rand.Rand, desc ops.Desc, in *tensor.Tensor, wantNegInf bool, check func(t *testing.T, out *tensor.Tensor)) {
	t.Helper()
	for _, r := range globalRunners() {
		if r.split && in.Desc.Sizes[0]*in.Desc.Sizes[1] < 2 {
			continue // one plane: nothing to split
		}
		t.Run(r.name, func(t *testing.T) {
			w := r.wrap(d, desc)
			if got := r.negInfStarts(t, d, w); got != wantNegInf {
				t.Fatalf("kernels start at −∞: %v, want %v", got, wantNegInf)
			}
			res := testutil.CheckOperator(t, d, w, []*tensor.Tensor{in}, rng)
			check(t, res.Outputs[0])
		})
	}
}

// planeBits are the output bits of each (n, c) plane's first output.
func planeBits(out *tensor.Tensor) []uint64 {
	var bits []uint64
	zeros := make([]uint32, len(out.Desc.Sizes)-2)
	for n := uint32(0); n < out.Desc.Sizes[0]; n++ {
		for c := uint32(0); c < out.Desc.Sizes[1]; c++ {
			bits = append(bits, out.Bits(append([]uint32{n, c}, zeros...)...))
		}
	}
	return bits
}

// globalShape is an input's spatial sizes and the strides to pool it
// with (any: the one window covers the input).
type globalShape struct {
	in, strides []uint32
}

// globalShapes: windows of 4 taps (PRELOAD), 35 (no PRELOAD), one tap
// (1x1: DirectML's reduction too), an axis of 1, and 5D.
var globalShapes = []globalShape{
	{[]uint32{2, 2}, []uint32{1, 1}},
	{[]uint32{5, 7}, []uint32{3, 5}},
	{[]uint32{1, 1}, []uint32{1, 1}},
	{[]uint32{1, 6}, []uint32{2, 1}},
	{[]uint32{2, 3, 2}, []uint32{1, 2, 3}},
}

// TestMaxPoolGlobalNoWinner: the global window at extent 1 without
// indices, through MAX_POOLING, MAX_POOLING1 and MAX_POOLING2, on
// FLOAT32 and FLOAT16 planes of only −∞, of NaN and −∞, of only NaN
// (−∞ on every kernel), and around a lowest finite value, ±0 ties, +∞
// and ordinary values (their own maximum; a ±0 tie its first zero).
func TestMaxPoolGlobalNoWinner(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		p := patternsOf(dt)
		for si, sh := range globalShapes {
			for oi, op := range []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"} {
				taps := 1
				for _, s := range sh.in {
					taps *= int(s)
				}
				planes := adversarialPlanes(rng, dt, taps)
				if taps == 1 { // a window of one tap: each pattern's own tap
					planes = [][]uint64{{p.negInf}, {p.nans[1]}, {p.nans[2]}, {p.lowest}, {p.negZero}, {0}, {p.posInf}, {p.nans[0]}}
				}
				n := uint32(1 + (si+oi)%2)
				inSizes := append([]uint32{n, uint32(len(planes))}, sh.in...)
				outSizes := append([]uint32{n, uint32(len(planes))}, slices.Repeat([]uint32{1}, len(sh.in))...)
				in := fillPlanes(tensor.New(dt, inSizes...), planes)
				zero := make([]uint32, len(sh.in))
				desc := globalDesc(op, in.Desc, tensor.NewDesc(dt, outSizes), tensor.Unknown, sh.in, sh.strides, zero, zero, nil)
				var want []uint64
				for i := uint32(0); i < n*uint32(len(planes)); i++ {
					want = append(want, globalMaxBits(in, i/uint32(len(planes)), i%uint32(len(planes))))
				}
				for i, b := range want {
					// Planes 0-2 have no winner, and the 1x1 window's NaN plane.
					if i%len(planes) < 3 && b != p.negInf {
						t.Fatalf("the oracle gives %#x for plane %d, want −∞", b, i)
					}
				}
				t.Run(fmt.Sprintf("%v/%s/in%v", dt, op, inSizes), func(t *testing.T) {
					runGlobal(t, d, rng, desc, in, true, func(t *testing.T, out *tensor.Tensor) {
						if got := planeBits(out); !slices.Equal(got, want) {
							t.Errorf("bits %#x, want %#x", got, want)
						}
					})
				})
			}
		}
	}
}

// TestMaxPoolGlobalControls: the same planes where one condition of rule
// 7a fails keep rule 9's lowest finite value in the windows without a
// winner: an indices output (UINT32, UINT64), an end padding, a dilation
// of 2 (also on an axis whose window is 1), an extent of 2 on one axis,
// and a window one smaller than the input.
func TestMaxPoolGlobalControls(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in2 := []uint32{3, 4}
	zero := []uint32{0, 0}
	type control struct {
		name          string
		in            []uint32
		op            string
		it            tensor.DataType
		out, win, str []uint32
		sp, ep, dil   []uint32
	}
	controls := []control{
		{"indices UINT32", in2, "MAX_POOLING1", tensor.UInt32, []uint32{1, 1}, in2, []uint32{1, 1}, zero, zero, nil},
		{"indices UINT64", in2, "MAX_POOLING2", tensor.UInt64, []uint32{1, 1}, in2, []uint32{2, 1}, zero, zero, []uint32{1, 1}},
		{"end padding", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 1}, in2, []uint32{2, 2}, zero, []uint32{0, 1}, nil},
		{"dilation 2", in2, "MAX_POOLING2", tensor.Unknown, []uint32{1, 1}, in2, []uint32{1, 1}, zero, zero, []uint32{2, 1}},
		{"dilation 2 on a window of 1", []uint32{1, 4}, "MAX_POOLING2", tensor.Unknown, []uint32{1, 1}, []uint32{1, 4}, []uint32{1, 1}, zero, zero, []uint32{2, 1}},
		{"extent 1x2", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 2}, in2, []uint32{1, 1}, zero, zero, nil},
		{"window smaller than the input", in2, "MAX_POOLING", tensor.Unknown, []uint32{1, 1}, []uint32{3, 3}, []uint32{1, 1}, zero, zero, nil},
	}
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		p := patternsOf(dt)
		for _, c := range controls {
			taps := int(c.in[0] * c.in[1])
			planes := adversarialPlanes(rng, dt, taps)[:3] // no winner in any window
			inSizes := append([]uint32{2, 3}, c.in...)
			in := fillPlanes(tensor.New(dt, inSizes...), planes)
			desc := globalDesc(c.op, in.Desc, tensor.NewDesc(dt, append([]uint32{2, 3}, c.out...)), c.it, c.win, c.str, c.sp, c.ep, c.dil)
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				runGlobal(t, d, rng, desc, in, false, func(t *testing.T, out *tensor.Tensor) {
					tensor.ForEachIndex(out.Desc.Sizes, func(co []uint32) {
						if b := out.Bits(co...); b != p.lowest {
							t.Fatalf("at %v: bits %#x, want the lowest finite value %#x", co, b, p.lowest)
						}
					})
				})
			})
		}
	}
}

// TestMaxPoolGlobalIntegers: the global window at extent 1 without
// indices on every integer type keeps its kernels' start (the type's
// minimum, which DirectML's reduction starts from too): a plane of only
// the minimum gives the minimum, others their maximum.
func TestMaxPoolGlobalIntegers(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range tensor.AllTypes {
		if dt.IsFloat() {
			continue
		}
		t.Run(dt.String(), func(t *testing.T) {
			minBits := ops.LowestFinite(dt)
			in := tensor.New(dt, 2, 3, 2, 3)
			var want []uint64
			for n := uint32(0); n < 2; n++ {
				for c := uint32(0); c < 3; c++ {
					best := minBits
					tensor.ForEachIndex([]uint32{2, 3}, func(s []uint32) {
						co := []uint32{n, c, s[0], s[1]}
						b := minBits
						if (n*3+c)%3 != 0 {
							b = special(rng, dt)
						}
						in.SetBits(co, b)
					})
					if (n*3+c)%3 != 0 {
						best = maxIntBits(in, n, c)
					}
					want = append(want, best)
				}
			}
			desc := globalDesc("MAX_POOLING", in.Desc, tensor.NewDesc(dt, []uint32{2, 3, 1, 1}), tensor.Unknown, []uint32{2, 3}, []uint32{1, 1}, []uint32{0, 0}, []uint32{0, 0}, nil)
			runGlobal(t, d, rng, desc, in, false, func(t *testing.T, out *tensor.Tensor) {
				if got := planeBits(out); !slices.Equal(got, want) {
					t.Errorf("bits %#x, want %#x", got, want)
				}
			})
		})
	}
}

// maxIntBits is the bits of the largest element of plane (n, c) of an
// integer tensor.
func maxIntBits(in *tensor.Tensor, n, c uint32) uint64 {
	var bits, u uint64
	var i int64
	first := true
	tensor.ForEachIndex(in.Desc.Sizes[2:], func(s []uint32) {
		co := append([]uint32{n, c}, s...)
		if in.Desc.DataType.IsSigned() {
			if v := in.Int64At(co...); first || v > i {
				i, bits = v, in.Bits(co...)
			}
		} else if v := in.Uint64At(co...); first || v > u {
			u, bits = v, in.Bits(co...)
		}
		first = false
	})
	return bits
}

// TestMaxPoolGlobalRandom: random global windows at extent 1 without
// indices (2 or 3 spatial axes, sizes 1-6, 1-3 batches and channels, any
// strides, strided layouts, MAX_POOLING, MAX_POOLING1 or MAX_POOLING2)
// over fresh FLOAT32 and FLOAT16 inputs whose planes are drawn from
// windows without a winner, rule 9's special values and mixes of both,
// on every kernel, against the reduction from −∞.
func TestMaxPoolGlobalRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	n := 12
	if testing.Short() {
		n = 5
	}
	for i := 0; i < n; i++ {
		dt := []tensor.DataType{tensor.Float32, tensor.Float16}[i%2]
		p := patternsOf(dt)
		dims := 2 + rng.Intn(2)
		inSizes := []uint32{uint32(1 + rng.Intn(3)), uint32(1 + rng.Intn(3))}
		var str []uint32
		for j := 0; j < dims; j++ {
			inSizes = append(inSizes, uint32(1+rng.Intn(6-2*(dims-2))))
			str = append(str, uint32(1+rng.Intn(4)))
		}
		outSizes := append(slices.Clone(inSizes[:2]), slices.Repeat([]uint32{1}, dims)...)
		inSt, inLayout := layoutStrides(rng, inSizes, true)
		outSt, outLayout := layoutStrides(rng, outSizes, false)
		in := &tensor.Tensor{Desc: tensor.NewStridedDesc(dt, inSizes, inSt)}
		in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
		rng.Read(in.Data)
		taps := 1
		for _, s := range inSizes[2:] {
			taps *= int(s)
		}
		planes := make([][]uint64, inSizes[0]*inSizes[1])
		for k := range planes {
			switch rng.Intn(3) {
			case 0:
				planes[k] = p.noWinner(rng, taps)
			case 1:
				planes[k] = make([]uint64, taps)
				for j := range planes[k] {
					planes[k][j] = special(rng, dt)
				}
			default:
				planes[k] = p.noWinner(rng, taps)
				planes[k][rng.Intn(taps)] = special(rng, dt)
			}
		}
		fillPlanes(in, planes)
		zero := make([]uint32, dims)
		op := []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"}[rng.Intn(3)]
		desc := globalDesc(op, in.Desc, tensor.NewStridedDesc(dt, outSizes, outSt), tensor.Unknown, inSizes[2:], str, zero, zero, nil)
		var want []uint64
		for k := uint32(0); k < inSizes[0]*inSizes[1]; k++ {
			want = append(want, globalMaxBits(in, k/inSizes[1], k%inSizes[1]))
		}
		t.Run(fmt.Sprintf("%d/%v/%s/in%v/str%v/%s-%s", i, dt, op, inSizes, str, inLayout, outLayout), func(t *testing.T) {
			runGlobal(t, d, rng, desc, in, true, func(t *testing.T, out *tensor.Tensor) {
				if got := planeBits(out); !slices.Equal(got, want) {
					t.Errorf("bits %#x, want %#x", got, want)
				}
			})
		})
	}
}
