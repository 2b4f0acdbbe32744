package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// maxPoolWorkgroup is the pooling kernel's workgroup size.
const maxPoolWorkgroup = 128

// maxPoolCoordLimit bounds every spatial coordinate the kernel forms
// (input extents, padding, the last window's start and the dilated window
// span), so that its 32-bit signed arithmetic cannot overflow.
const maxPoolCoordLimit = 1 << 30

// spatial3 returns a spatial parameter in D, H, W order, with the identity
// value for D when the tensor is 4D.
func spatial3(v func(i int) uint32, dims int, ident uint32) [3]uint32 {
	out := [3]uint32{ident, ident, ident}
	for i := 0; i < dims; i++ {
		out[3-dims+i] = v(i)
	}
	return out
}

// strides5 returns a tensor's element strides as N, C, D, H, W (D stride 0
// for a 4D tensor).
func strides5(d *tensor.Desc) [5]uint32 {
	st := d.EffectiveStrides()
	if len(st) == 4 {
		return [5]uint32{st[0], st[1], 0, st[2], st[3]}
	}
	return [5]uint32{st[0], st[1], st[2], st[3], st[4]}
}

// span returns the element range [lo, hi) a tensor's elements with batch
// in [n0, n1) and channel in [c0, c1) occupy.
func span(d *tensor.Desc, n0, n1, c0, c1 uint32) (lo, hi uint64) {
	st := d.EffectiveStrides()
	lo = uint64(n0)*uint64(st[0]) + uint64(c0)*uint64(st[1])
	last := uint64(n1-1)*uint64(st[0]) + uint64(c1-1)*uint64(st[1])
	for i := 2; i < len(st); i++ {
		last += uint64(d.Sizes[i]-1) * uint64(st[i])
	}
	return lo, last + 1
}

// poolGeom is the spatial parameters in D, H, W order (identities for D on
// a 4D tensor).
type poolGeom struct {
	in, out, win, str, dil, pad [3]uint32
}

func (m *maxPool) geometry() poolGeom {
	dims := m.in.Rank() - 2
	return poolGeom{
		in:  spatial3(func(i int) uint32 { return m.in.Sizes[2+i] }, dims, 1),
		out: spatial3(func(i int) uint32 { return m.out.Sizes[2+i] }, dims, 1),
		win: spatial3(func(i int) uint32 { return m.window[i] }, dims, 1),
		str: spatial3(func(i int) uint32 { return m.strides[i] }, dims, 1),
		// A window of 1 has no second tap, so its dilation is irrelevant;
		// 1 keeps the kernel's arithmetic in range whatever the caller gave.
		dil: spatial3(func(i int) uint32 {
			if m.window[i] == 1 {
				return 1
			}
			return m.dilation(i)
		}, dims, 1),
		pad: spatial3(func(i int) uint32 { return m.start[i] }, dims, 0),
	}
}

// checkCoords refuses shapes whose windows reach beyond ±2^30: the
// kernel's coordinates are 32-bit signed (no real network comes close).
func (m *maxPool) checkCoords(g poolGeom) error {
	dims := m.in.Rank() - 2
	axes := []string{"D", "H", "W"}[3-dims:]
	for a := 3 - dims; a < 3; a++ {
		i := a - (3 - dims) // the desc's axis
		checks := []struct {
			field string
			v     uint64
		}{
			{fmt.Sprintf("InputTensor.Sizes[%d]", 2+i), uint64(g.in[a])},
			{fmt.Sprintf("StartPadding[%d]", i), uint64(g.pad[a])},
			{fmt.Sprintf("Strides[%d]", i), uint64(g.out[a]-1) * uint64(g.str[a])},
			{fmt.Sprintf("WindowSize[%d]", i), uint64(g.win[a]-1) * uint64(g.dil[a])},
		}
		for _, c := range checks {
			if c.v >= maxPoolCoordLimit {
				return hresult.Unsupported(c.field, "the %s axis reaches coordinate %d; vkdml's pooling kernel supports spatial coordinates below 2^30", axes[i], c.v)
			}
		}
	}
	return nil
}

// poolTensor is a tensor the pooling kernels bind, with its slot.
type poolTensor struct {
	d     *tensor.Desc
	kind  SlotKind
	index int
	field string
}

func (m *maxPool) boundTensors() []poolTensor {
	ts := []poolTensor{{m.in, SlotInput, 0, "InputTensor"}, {m.out, SlotOutput, 0, "OutputTensor"}}
	if m.idx != nil {
		ts = append(ts, poolTensor{m.idx, SlotOutput, 1, "OutputIndicesTensor"})
	}
	return ts
}

// planes is t as cutPlanes sees it.
func (t poolTensor) planes() planeTensor {
	st := t.d.EffectiveStrides()
	lo, hi := span(t.d, 0, 1, 0, 1)
	return planeTensor{es: uint64(t.d.DataType.Size()), nStride: uint64(st[0]), cStride: uint64(st[1]), plane: hi - lo, total: t.d.TotalTensorSizeInBytes}
}

// planeTensors is ts as cutPlanes sees them.
func planeTensors(ts []poolTensor) []planeTensor {
	out := make([]planeTensor, len(ts))
	for i, t := range ts {
		out[i] = t.planes()
	}
	return out
}

// planeSteps covers the (n, c) planes with steps (cutPlanes): the direct
// strategy binding whole tensors, else split-n(k) or split-c(k), each
// step binding windows of k batches or of k channels of one batch; a
// batch count near 2^32 or wide batch strides are refused, not built.
func (m *maxPool) planeSteps(ctx *Context, ts []poolTensor, budget uint64) (cut planeCut, strategy string, err error) {
	cut = cutPlanes(m.in.Sizes[0], m.in.Sizes[1], planeTensors(ts), budget)
	switch {
	case cut.whole:
		return cut, "direct", nil
	case ctx.Kernel == "direct":
		return cut, "", hresult.Unsupported("Kernel", "the direct strategy needs every tensor to fit one binding of %d bytes", ctx.Limits.MaxStorageBufferRange)
	case cut.wide >= 0:
		t := ts[cut.wide]
		return cut, "", hresult.Unsupported(t.field+".Strides", "one (batch, channel) plane of %v spans %d bytes, more than one storage binding can cover (maxStorageBufferRange %d); vkdml splits pooling over planes only",
			*t.d, t.planes().planeBytes(), ctx.Limits.MaxStorageBufferRange)
	case cut.steps > maxPlanSteps:
		return cut, "", errTooManySteps(fmt.Sprintf("InputTensor.Sizes[%d]", cut.axis), cut.steps, budget)
	}
	return cut, fmt.Sprintf("split-%c(%d)", "nc"[cut.axis], cut.per), nil
}

// plan is check the coordinates → cut the planes → the vectorised kernel
// when it applies, else the direct kernel's steps.
func (m *maxPool) plan(ctx *Context) (*Plan, error) {
	if ctx.Kernel != "" && ctx.Kernel != "direct" && ctx.Kernel != MaxPoolStrategyVec2x2 {
		return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: direct, %s; the split strategies are chosen when a tensor does not fit one binding)", ctx.Kernel, m.op, MaxPoolStrategyVec2x2)
	}
	g := m.geometry()
	if err := m.checkCoords(g); err != nil {
		return nil, err
	}
	kind := shaders.ElemKind(m.in.DataType.IsFloat(), m.in.DataType.IsSigned())
	idxBits := 0
	if m.idx != nil {
		idxBits = 8 * m.idx.DataType.Size()
	}
	ts := m.boundTensors()
	budget := windowBudget(ctx, 4)
	cut, strategy, err := m.planeSteps(ctx, ts, budget)
	if err != nil {
		return nil, err
	}
	if cut.whole && (ctx.Kernel == "" || ctx.Kernel == MaxPoolStrategyVec2x2) && m.vec2x2OK() {
		return m.planVec2x2(ctx, kind, idxBits)
	}
	if m.startsAtNegInf() {
		kind |= shaders.MaxPoolNegInfStart
	}
	return m.planDirect(ctx, g, ts, cut, strategy, kind, idxBits)
}

// planDirect emits maxpool.comp's steps, one per chunk of planes.
func (m *maxPool) planDirect(ctx *Context, g poolGeom, ts []poolTensor, cut planeCut, strategy string, kind uint32, idxBits int) (*Plan, error) {
	if t := ctx.tuning(); t.poolGrid || t.poolGridOuts > 1 {
		if plan, ok, err := m.planGrid(ctx, g, ts, cut, strategy, kind, idxBits); ok || err != nil {
			return plan, err
		}
	}
	bits := 8 * m.in.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	variant := shaders.MaxPoolName(bits, native, idxBits)
	taps := uint64(g.win[0]) * uint64(g.win[1]) * uint64(g.win[2])
	if taps <= min(uint64(ctx.tuning().poolPreloadTaps), shaders.MaxPoolPreloadTaps) {
		variant = shaders.MaxPoolPreloadName(bits, native, idxBits)
	}
	spec := m.directSpec(variant, g, cut.cstep, kind, maxPoolWorkgroup)
	if m.idx != nil {
		m.idxSpec(spec)
	}
	k, err := kernelOf(spec)
	if err != nil {
		return nil, err
	}
	perPlane := uint64(g.out[0]) * uint64(g.out[1]) * uint64(g.out[2])
	plan := &Plan{Strategy: strategy, Kernels: []Kernel{k}}
	C := m.in.Sizes[1]
	for _, ch := range cut.chunks {
		bind, e0 := m.chunkSlots(ts, cut, ch)
		total := uint64(ch.n1-ch.n0) * uint64(ch.c1-ch.c0) * perPlane
		push := shaders.NewPush(variant).Set("total", uint32(total)).Set("plane0", ch.n0*C+ch.c0).
			Set("in_e0", e0[0]).Set("out_e0", e0[1]).Set("idx_e0", e0[2])
		params, err := pushBytes(push)
		if err != nil {
			return nil, err
		}
		plan.Steps = append(plan.Steps, Step{
			Kernel:   0,
			Bindings: bind,
			Params:   params,
			Groups:   gridFor(ctx, total, maxPoolWorkgroup),
		})
	}
	return plan, nil
}

// poolAxes5 names the axes of strides5, as maxpool.comp's constant and
// push-word names spell them.
var poolAxes5 = [5]string{"N", "C", "D", "H", "W"}

// directSpec is maxpool.comp's specialization constants, by name: the
// workgroup size; the input and output shapes and the window, strides,
// dilations and start padding, each (D, H, W); the input and output
// strides (N, C, D, H, W); the planes per batch of a step; the element
// kind, with shaders.MaxPoolNegInfStart for rule 7a's global window. With
// indices, idxSpec adds the indices' strides.
func (m *maxPool) directSpec(variant string, g poolGeom, cstep, kind, wg uint32) *shaders.Values {
	spec := shaders.NewSpec(variant).Set(shaders.SpecWorkgroupSize, wg)
	for i, axis := range poolAxes5[2:] {
		spec.Set("I"+axis, g.in[i]).Set("O"+axis, g.out[i]).Set("K"+axis, g.win[i]).
			Set("S"+axis, g.str[i]).Set("D"+axis, g.dil[i]).Set("P"+axis, g.pad[i])
	}
	inSt, outSt := strides5(m.in), strides5(m.out)
	for i, axis := range poolAxes5 {
		spec.Set("IN_S"+axis, inSt[i]).Set("OUT_S"+axis, outSt[i])
	}
	return spec.Set("CSTEP", cstep).Set("KIND", kind)
}

// idxSpec sets the indices' strides (N, C, D, H, W), constants of
// maxpool.comp and maxpool_grid.comp with indices.
func (m *maxPool) idxSpec(spec *shaders.Values) {
	st := strides5(m.idx)
	for i, axis := range poolAxes5 {
		spec.Set("IDX_S"+axis, st[i])
	}
}

// MaxPoolStrategyVec2x2 is the vectorised kernel for 2x2 windows of stride
// 2 without padding on packed 4D tensors of 32-bit elements
// (maxpool_vec.comp): 4 outputs per invocation, 16-byte loads and stores.
// The planner picks it whenever it applies; forced on a layout it does not
// fit, the direct kernel runs (and Plan.Strategy says so).
const MaxPoolStrategyVec2x2 = "vec2x2"

// isPacked: the tensor's strides are the packed ones.
func isPacked(d *tensor.Desc) bool {
	st := d.EffectiveStrides()
	want := uint32(1)
	for i := len(d.Sizes) - 1; i >= 0; i-- {
		if d.Sizes[i] != 1 && st[i] != want {
			return false
		}
		want *= d.Sizes[i]
	}
	return true
}

// vec2x2OK: maxpool_vec.comp's conditions. Every window lies inside the
// input (no padding taps), rows start 16-byte aligned (input and output
// widths multiples of 4) and 4 adjacent outputs are whole 16-byte vectors.
// Its best always starts at the lowest finite value, so it refuses rule
// 7a's global window at extent 1 (which a 2x2 window on an input at least
// 4 wide never is; the test keeps it so should these conditions widen).
func (m *maxPool) vec2x2OK() bool {
	if len(m.in.Sizes) != 4 || m.in.DataType.Size() != 4 || !isPacked(m.in) || !isPacked(m.out) || m.startsAtNegInf() {
		return false
	}
	if m.idx != nil && !isPacked(m.idx) {
		return false
	}
	for i := 0; i < 2; i++ {
		if m.window[i] != 2 || m.strides[i] != 2 || m.start[i] != 0 || m.dilation(i) != 1 {
			return false
		}
		if 2*uint64(m.out.Sizes[2+i]) > uint64(m.in.Sizes[2+i]) {
			return false
		}
	}
	return m.in.Sizes[3]%4 == 0 && m.out.Sizes[3]%4 == 0
}

func (m *maxPool) planVec2x2(ctx *Context, kind uint32, idxBits int) (*Plan, error) {
	t := ctx.tuning()
	// The knobs' ranges (1 at least) keep wg and groups above 0 on every
	// surface; the max guards a hand-made Context's limits as well.
	wg := max(min(t.poolVecWG, ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0]), 1)
	groups := max(t.poolVecGroups, 1)
	quads := uint64(m.out.Sizes[0]) * uint64(m.out.Sizes[1]) * uint64(m.out.Sizes[2]) * uint64(m.out.Sizes[3]) / 4
	// Quads per invocation: at most maxPoolVecIters (lavapipe stops a
	// shader after 65535 loop iterations; GPUs have watchdogs).
	per := max((quads+uint64(wg)*groups-1)/(uint64(wg)*groups), 1)
	per = min(per, maxPoolVecIters)
	ng := (quads + per*uint64(wg) - 1) / (per * uint64(wg))
	variant := shaders.MaxPoolVec2x2Name(idxBits)
	k, err := kernelOf(shaders.NewSpec(variant).Set(shaders.SpecWorkgroupSize, wg).
		Set("IH", m.in.Sizes[2]).Set("IW", m.in.Sizes[3]).Set("OH", m.out.Sizes[2]).Set("OW", m.out.Sizes[3]).Set("KIND", kind))
	if err != nil {
		return nil, err
	}
	params, err := pushBytes(shaders.NewPush(variant).Set("quads", uint32(quads)).Set("per", uint32(per)))
	if err != nil {
		return nil, err
	}
	return &Plan{
		Strategy: MaxPoolStrategyVec2x2,
		Kernels:  []Kernel{k},
		Steps:    []Step{{Kernel: 0, Bindings: maxPoolWholeSlots(m.idx != nil), Params: params, Groups: gridFor(ctx, ng, 1)}},
	}, nil
}

// maxPoolVecIters bounds the quads one invocation of maxpool_vec.comp
// computes.
const maxPoolVecIters = 16384

func maxPoolWholeSlots(idx bool) []Slot {
	s := []Slot{{Kind: SlotInput}, {Kind: SlotOutput}}
	if idx {
		s = append(s, Slot{Kind: SlotOutput, Index: 1})
	}
	return s
}
