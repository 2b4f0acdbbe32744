package ops_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// h100Context plans for the shipped h100 profile: the NVIDIA H100's
// recorded limits and features, 132 SMs of 2,048 resident lanes.
func h100Context(t *testing.T) *ops.Context {
	p, err := profiles.Lookup("h100")
	if err != nil {
		t.Fatal(err)
	}
	return &ops.Context{FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], Features: p.Features, Limits: p.Limits, DeviceType: p.Type}
}

// argDispatchFacts are one ARGMAX dispatch's facts (ops.Facts) with its
// kernel's variant and grid.
type argDispatchFacts struct {
	variant string
	wg      uint32
	groups  [3]uint32
	ops.DispatchFacts
}

func (f argDispatchFacts) String() string {
	return fmt.Sprintf("%s wg=%d groups=%v lanes=%d empty=%d serial=%d bytes/lane=%d", f.variant, f.wg, f.groups,
		f.Lanes, f.EmptyLanes, f.SerialPartials, f.BytesPerLaneInFlight)
}

// argPlanFacts is ops.Facts of every dispatch of p on ctx.
func argPlanFacts(t *testing.T, ctx *ops.Context, p *ops.Plan) []argDispatchFacts {
	pf, err := ops.Facts(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []argDispatchFacts
	for i, s := range p.Steps {
		k := p.Kernels[s.Kernel]
		out = append(out, argDispatchFacts{variant: k.Variant, wg: k.Spec[0], groups: s.Groups, DispatchFacts: pf.Dispatches[i]})
	}
	return out
}

// argFactCase is a case of the GPU comparison's table.
type argFactCase struct {
	name    string
	dt      tensor.DataType
	sizes   []uint32
	axes    []uint32
	strides []uint32 // nil: packed
}

// argFactCases are the ARGMAX cases of the H100 table: whole tensors, rows
// and columns of every width, short and long rows.
func argFactCases() []argFactCase {
	cs := []argFactCase{
		{"64M whole", tensor.Float32, []uint32{1 << 26}, []uint32{0}, nil},
		{"256M whole", tensor.Float32, []uint32{1 << 28}, []uint32{0}, nil},
		{"64M f16 whole", tensor.Float16, []uint32{1 << 26}, []uint32{0}, nil},
		{"65536x1000 ax1", tensor.Float32, []uint32{65536, 1000}, []uint32{1}, nil},
		{"32x1000 ax1", tensor.Float32, []uint32{32, 1000}, []uint32{1}, nil},
		{"64x512x512 ax1,2", tensor.Float32, []uint32{64, 512, 512}, []uint32{1, 2}, nil},
		{"16384x4096 ax0", tensor.Float32, []uint32{16384, 4096}, []uint32{0}, nil},
		{"1024x64x1024 ax1", tensor.Float32, []uint32{1024, 64, 1024}, []uint32{1}, nil},
		{"8x32000 ax1", tensor.Float32, []uint32{8, 32000}, []uint32{1}, nil},
		{"128x256000 ax1", tensor.Float32, []uint32{128, 256000}, []uint32{1}, nil},
	}
	for _, dt := range tensor.AllTypes {
		for _, ax := range []uint32{1, 0} {
			cs = append(cs, argFactCase{fmt.Sprintf("4096x16384 %v ax%d", dt, ax), dt, []uint32{4096, 16384}, []uint32{ax}, nil})
		}
	}
	return append(cs,
		argFactCase{"64M+1 whole", tensor.Float32, []uint32{1<<26 + 1}, []uint32{0}, nil},
		argFactCase{"4097x16383 ax1", tensor.Float32, []uint32{4097, 16383}, []uint32{1}, nil},
		argFactCase{"4097x16383 ax0", tensor.Float32, []uint32{4097, 16383}, []uint32{0}, nil},
		argFactCase{"4097x16383 INT8 ax0", tensor.Int8, []uint32{4097, 16383}, []uint32{0}, nil},
		argFactCase{"4097x16383 FLOAT16 ax1", tensor.Float16, []uint32{4097, 16383}, []uint32{1}, nil},
		argFactCase{"63x1031x1025 ax1", tensor.Float32, []uint32{63, 1031, 1025}, []uint32{1}, nil},
		argFactCase{"4096x16384 transposed ax1", tensor.Float32, []uint32{4096, 16384}, []uint32{1}, []uint32{1, 4096}},
	)
}

func (c argFactCase) desc() ops.Desc {
	out := make([]uint32, len(c.sizes))
	for i := range out {
		out[i] = c.sizes[i]
	}
	for _, a := range c.axes {
		out[a] = 1
	}
	return &ops.ArgMax{Input: tensor.NewStridedDesc(c.dt, c.sizes, c.strides), Output: tensor.NewStridedDesc(tensor.UInt32, out, nil), Axes: c.axes}
}

// argCaseFacts sums a case's plan: its dispatches' facts, and per case the
// most serial partials, the largest share of empty lanes and the smallest
// bytes in flight among its first-pass dispatches (min(lanes, resident
// lanes) x bytes per lane).
type argCaseFacts struct {
	strategy  string
	dispatch  []argDispatchFacts
	serial    uint64
	emptyFrac float64
	inFlight  uint64
}

// validPlan validates desc on ctx and plans it, failing t (naming the case
// what) on an error.
func validPlan(t *testing.T, ctx *ops.Context, desc ops.Desc, what string) *ops.Plan {
	t.Helper()
	if err := desc.Validate(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return p
}

func argFactsOf(t *testing.T, ctx *ops.Context, c argFactCase) argCaseFacts {
	d := c.desc()
	p := validPlan(t, ctx, d, c.name)
	r := argCaseFacts{strategy: p.Strategy, dispatch: argPlanFacts(t, ctx, p), inFlight: ^uint64(0)}
	resident := ctx.Limits.ResidentLanes()
	for _, f := range r.dispatch {
		r.serial = max(r.serial, f.SerialPartials)
		r.emptyFrac = max(r.emptyFrac, float64(f.EmptyLanes)/float64(f.Lanes))
		if !strings.HasPrefix(f.variant, "argmax_combine") {
			r.inFlight = min(r.inFlight, f.BytesInFlight(resident))
		}
	}
	return r
}

// TestArgPlanFactsH100 plans the ARGMAX cases of the H100 table and of
// scripts/gpu_compare.py on the h100 profile and holds every dispatch to
// the goals: at most 64 partials combined serially by one invocation, at
// most 1% of lanes empty, and, in every case that moves 64 MiB or more,
// at least 2 MiB in flight in each first pass.
func TestArgPlanFactsH100(t *testing.T) {
	ctx := h100Context(t)
	for _, c := range argFactCases() {
		r := argFactsOf(t, ctx, c)
		t.Logf("%-26s %-8s serial=%-5d empty=%5.1f%% inflight=%7d KiB", c.name, r.strategy, r.serial, 100*r.emptyFrac, r.inFlight>>10)
		for _, f := range r.dispatch[:min(len(r.dispatch), 3)] {
			t.Logf("    %v", f)
		}
		if r.serial > 64 {
			t.Errorf("%s: a dispatch combines %d partials in one invocation's loop, more than 64", c.name, r.serial)
		}
		if r.emptyFrac > 0.01 {
			t.Errorf("%s: %.1f%% of a dispatch's lanes touch nothing, more than 1%%", c.name, 100*r.emptyFrac)
		}
		if bytes := c.desc().Inputs()[0].TotalTensorSizeInBytes; bytes >= 64<<20 && r.inFlight < 2<<20 {
			t.Errorf("%s: %d KiB in flight while moving %d MiB, want at least 2 MiB", c.name, r.inFlight>>10, bytes>>20)
		}
	}
}

// TestArgColSplitH100 holds the column split on the h100 profile to its
// rule (reduce_segments.go colSplitLen): rounded down, no split where the
// outputs alone have 90% of the target in flight, partials written and
// read within 5% of the bytes read unless that leaves a 64 MiB reduction
// under 2 MiB in flight, and tiny columns whole.
func TestArgColSplitH100(t *testing.T) {
	ctx := h100Context(t)
	for _, c := range []struct {
		dt    tensor.DataType
		shape []uint32
		axis  uint32
		nseg  uint32 // 1: not split
	}{
		// 131,072 lanes of 32 bytes hold 97% of 132 × 32 KiB: whole
		// (rounded up, the old rule cut it in 2 and wrote 32 MiB of
		// partials).
		{tensor.Float32, []uint32{1024, 64, 1024}, 1, 1},
		{tensor.Float32, []uint32{4096, 16384}, 0, 8},  // 8.25 rounded down
		{tensor.Float16, []uint32{4096, 16384}, 0, 12}, // 16 capped by the partials
		{tensor.Int8, []uint32{4096, 16384}, 0, 2},     // argmax_col8y.comp: 32 lanes an output group, 4 MiB in flight
		{tensor.Float32, []uint32{16384, 4096}, 0, 33}, // 33.0
		{tensor.Float32, []uint32{9, 3}, 0, 1},         // tiny
		{tensor.Int8, []uint32{4096, 4096}, 0, 6},      // 16 MiB: the cap, no floor
	} {
		out := slices.Clone(c.shape)
		out[c.axis] = 1
		desc := &ops.ArgMax{Input: tensor.NewDesc(c.dt, c.shape), Output: tensor.NewDesc(tensor.Int64, out), Axes: []uint32{c.axis}}
		what := fmt.Sprintf("%v %v axis %d", c.dt, c.shape, c.axis)
		p := validPlan(t, ctx, desc, what)
		f := argPlanFacts(t, ctx, p)
		nseg := uint32(1)
		if len(p.Steps) > 1 { // the combine's partials over the outputs
			nseg = uint32(f[1].Units * uint64(c.shape[c.axis]) / f[0].Units)
		}
		if nseg != c.nseg {
			t.Errorf("%s: %d segments (%d dispatches), want %d", what, nseg, len(p.Steps), c.nseg)
		}
		var partials uint64
		for _, d := range f {
			partials += d.PartialBytes
		}
		in := desc.Input.TotalTensorSizeInBytes
		inFlight := f[0].BytesInFlight(ctx.Limits.ResidentLanes())
		if partials*20 > in && !(in >= 64<<20 && inFlight <= 2<<20+2<<20/8) {
			t.Errorf("%s: %d KiB of partials for %d KiB read, over 5%%, with %d KiB in flight", what, partials>>10, in>>10, inFlight>>10)
		}
		if in >= 64<<20 && inFlight < 2<<20 {
			t.Errorf("%s: %d KiB in flight", what, inFlight>>10)
		}
	}
}

// poolFactCase is a max pooling case of scripts/gpu_compare.py: a 2D
// window of size w, stride s, padding p and dilation d, with UINT32
// indices.
type poolFactCase struct {
	name       string
	dt         tensor.DataType
	shape      []uint32
	w, s, p, d uint32
}

func (c poolFactCase) desc() ops.Desc {
	out := slices.Clone(c.shape)
	for i := 2; i < 4; i++ {
		out[i] = (c.shape[i]+2*c.p-c.d*(c.w-1)-1)/c.s + 1
	}
	two := func(v uint32) []uint32 { return []uint32{v, v} }
	idx := tensor.NewDesc(tensor.UInt32, out)
	return &ops.MaxPooling2{Input: tensor.NewDesc(c.dt, c.shape), Output: tensor.NewDesc(c.dt, out), OutputIndices: &idx,
		Strides: two(c.s), WindowSize: two(c.w), StartPadding: two(c.p), EndPadding: two(c.p), Dilations: two(c.d)}
}

// TestPoolPlanFactsH100 plans the max pooling cases of
// scripts/gpu_compare.py on the h100 profile and holds each dispatch to
// at most 1% of lanes empty and, where it moves 64 MiB or more, at least
// 2 MiB in flight.
func TestPoolPlanFactsH100(t *testing.T) {
	ctx := h100Context(t)
	for _, c := range []poolFactCase{
		{"3x3 s2 p1 [32,64,112,112]", tensor.Float32, []uint32{32, 64, 112, 112}, 3, 2, 1, 1},
		{"3x3 s1 p1 d2 [8,64,128,128]", tensor.Float32, []uint32{8, 64, 128, 128}, 3, 1, 1, 2},
		{"2x2 s2 [16,64,512,512]", tensor.Float32, []uint32{16, 64, 512, 512}, 2, 2, 0, 1},
		{"2x2 s2 [16,64,512,512] FLOAT16", tensor.Float16, []uint32{16, 64, 512, 512}, 2, 2, 0, 1},
		{"3x3 s2 p1 [7,61,111,113]", tensor.Float32, []uint32{7, 61, 111, 113}, 3, 2, 1, 1},
	} {
		d := c.desc()
		p := validPlan(t, ctx, d, c.name)
		for _, f := range argPlanFacts(t, ctx, p) {
			inFlight := f.BytesInFlight(ctx.Limits.ResidentLanes())
			t.Logf("%-32s %s in flight %d KiB", c.name, f, inFlight>>10)
			if f.EmptyLanes*100 > f.Lanes {
				t.Errorf("%s: %d of %d lanes touch nothing, more than 1%%", c.name, f.EmptyLanes, f.Lanes)
			}
			if moved := f.BytesRead + f.BytesWritten; moved >= 64<<20 && inFlight < 2<<20 {
				t.Errorf("%s: %d KiB in flight while moving %d MiB, want at least 2 MiB", c.name, inFlight>>10, moved>>20)
			}
		}
	}
}

// TestReducePartialBytes: a first pass counts partials only where it
// writes them (OUT_MODE 2) for a combine to read; REDUCE's values (OUT_MODE
// 3) are its outputs, as ARGMAX's indices are, so a one-pass REDUCE plan
// has none (argWritesPartials once counted them, and vkdml plan --check
// failed REDUCE MAX of [16384,8] over axis 1 for 12.5% of partials), and a
// split plan counts the partials its first pass writes and its combine
// reads, of 16 bytes, or 48 for the float functions' exact sums.
func TestReducePartialBytes(t *testing.T) {
	ctx := h100Context(t)
	for _, c := range []struct {
		fn    ops.ReduceFunction
		dt    tensor.DataType
		shape []uint32
		axis  uint32
		split bool
	}{
		{ops.ReduceFunctionMax, tensor.Float32, []uint32{16384, 8}, 1, false},
		{ops.ReduceFunctionSum, tensor.Int32, []uint32{16384, 8}, 1, false},
		{ops.ReduceFunctionSum, tensor.Float32, []uint32{16384, 8}, 1, false},
		{ops.ReduceFunctionArgMax, tensor.Float32, []uint32{16384, 8}, 1, false},
		{ops.ReduceFunctionSum, tensor.Int32, []uint32{4096, 16384}, 0, true},
		{ops.ReduceFunctionSum, tensor.Float32, []uint32{4096, 16384}, 0, true},
	} {
		out := slices.Clone(c.shape)
		out[c.axis] = 1
		od := tensor.NewDesc(c.dt, out)
		if c.fn == ops.ReduceFunctionArgMax {
			od = tensor.NewDesc(tensor.UInt32, out)
		}
		desc := &ops.Reduce{Function: c.fn, Input: tensor.NewDesc(c.dt, c.shape), Output: od, Axes: []uint32{c.axis}}
		what := fmt.Sprintf("%v %v %v axis %d", c.fn, c.dt, c.shape, c.axis)
		p := validPlan(t, ctx, desc, what)
		f := argPlanFacts(t, ctx, p)
		switch {
		case (len(f) > 1) != c.split || p.PersistentSize != 0:
			t.Errorf("%s: %d dispatches, persistent %d B; want split %v without a ticket", what, len(f), p.PersistentSize, c.split)
		case !c.split && f[0].PartialBytes != 0:
			t.Errorf("%s: one pass counts %d bytes of partials, writing %d bytes of outputs", what, f[0].PartialBytes, f[0].BytesWritten)
		case c.split && (f[0].PartialBytes != f[0].BytesWritten || f[1].PartialBytes != f[1].BytesRead || f[0].PartialBytes != f[1].PartialBytes):
			t.Errorf("%s: first pass %v, combine %v; want the partials written and read counted", what, f[0], f[1])
		}
	}
}
