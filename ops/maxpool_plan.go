package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// maxPoolWorkgroup is the pooling kernel's workgroup size.
const maxPoolWorkgroup = 128

// maxPoolMaxSteps bounds the dispatches of one pooling operator: a plan
// that needs more is refused (E_OUTOFMEMORY) rather than built.
const maxPoolMaxSteps = 1 << 16

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

// window is the word-aligned byte window of a tensor covering elements
// [lo, hi), and the element offset of lo inside it.
func window(d *tensor.Desc, kind SlotKind, index int, lo, hi uint64) (Slot, uint32) {
	es := uint64(d.DataType.Size())
	off := lo * es &^ 3
	end := min((hi*es+3)&^3, d.TotalTensorSizeInBytes)
	return Slot{Kind: kind, Index: index, Offset: off, Size: end - off}, uint32((lo*es - off) / es)
}

func (m *maxPool) plan(ctx *Context) (*Plan, error) {
	if ctx.Kernel != "" && ctx.Kernel != "direct" && ctx.Kernel != MaxPoolStrategyVec2x2 {
		return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: direct, %s; the split strategies are chosen when a tensor does not fit one binding)", ctx.Kernel, m.op, MaxPoolStrategyVec2x2)
	}
	dims := m.in.Rank() - 2
	inS := spatial3(func(i int) uint32 { return m.in.Sizes[2+i] }, dims, 1)
	outS := spatial3(func(i int) uint32 { return m.out.Sizes[2+i] }, dims, 1)
	win := spatial3(func(i int) uint32 { return m.window[i] }, dims, 1)
	str := spatial3(func(i int) uint32 { return m.strides[i] }, dims, 1)
	// A window of 1 has no second tap, so its dilation is irrelevant; 1 keeps
	// the kernel's arithmetic in range whatever the caller gave.
	dil := spatial3(func(i int) uint32 {
		if m.window[i] == 1 {
			return 1
		}
		return m.dilation(i)
	}, dims, 1)
	pad := spatial3(func(i int) uint32 { return m.start[i] }, dims, 0)

	// The kernel's coordinates are 32-bit signed: refuse shapes whose
	// windows reach beyond ±2^30 (no real network comes close).
	axes := []string{"D", "H", "W"}[3-dims:]
	for a := 0; a < 3; a++ {
		i := a - (3 - dims) // the desc's axis
		if i < 0 {
			continue
		}
		checks := []struct {
			field string
			v     uint64
		}{
			{fmt.Sprintf("InputTensor.Sizes[%d]", 2+i), uint64(inS[a])},
			{fmt.Sprintf("StartPadding[%d]", i), uint64(pad[a])},
			{fmt.Sprintf("Strides[%d]", i), uint64(outS[a]-1) * uint64(str[a])},
			{fmt.Sprintf("WindowSize[%d]", i), uint64(win[a]-1) * uint64(dil[a])},
		}
		for _, c := range checks {
			if c.v >= maxPoolCoordLimit {
				return nil, hresult.Unsupported(c.field, "the %s axis reaches coordinate %d; vkdml's pooling kernel supports spatial coordinates below 2^30", axes[i], c.v)
			}
		}
	}

	kind := shaders.ElemKind(m.in.DataType.IsFloat(), m.in.DataType.IsSigned())
	bits := 8 * m.in.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	idxBits := 0
	if m.idx != nil {
		idxBits = 8 * m.idx.DataType.Size()
	}
	tensors := []*tensor.Desc{m.in, m.out}
	slots := []struct {
		kind  SlotKind
		index int
	}{{SlotInput, 0}, {SlotOutput, 0}}
	if m.idx != nil {
		tensors = append(tensors, m.idx)
		slots = append(slots, struct {
			kind  SlotKind
			index int
		}{SlotOutput, 1})
	}

	// One binding covers a tensor when it fits maxStorageBufferRange, with
	// room for the host's alignment of the descriptor offset. Otherwise the
	// planes (n, c) are split over several steps, each binding windows of
	// the tensors: whole batches when one batch fits, else runs of channels.
	limit := uint64(ctx.Limits.MaxStorageBufferRange)
	if ctx.BindingWindowCap > 0 {
		limit = min(limit, ctx.BindingWindowCap)
	}
	slack := max(ctx.Limits.MinStorageBufferOffsetAlignment, 4) + 8
	if limit > slack {
		limit -= slack
	} else {
		limit = 0
	}
	N, C := m.in.Sizes[0], m.in.Sizes[1]
	fitsWhole := true
	for _, d := range tensors {
		if d.TotalTensorSizeInBytes > limit {
			fitsWhole = false
		}
	}
	// perStep returns how many units (batches, or channels of one batch)
	// fit one step, 0 for none: a run of k units of stride s spans
	// (k−1)·s + rest elements.
	perStep := func(units uint32, rest func(d *tensor.Desc) (lo, hi uint64), stride func(d *tensor.Desc) uint64) uint32 {
		k := uint64(units)
		for _, d := range tensors {
			es := uint64(d.DataType.Size())
			lo, hi := rest(d)
			bytes := (hi-lo)*es + 8
			if bytes > limit {
				return 0
			}
			if s := stride(d) * es; s > 0 {
				k = min(k, (limit-bytes)/s+1)
			}
		}
		return uint32(k)
	}
	type chunk struct{ n0, n1, c0, c1 uint32 }
	var chunks []chunk
	var cstep uint32
	// Count the steps before making them: a batch count near 2^32 or wide
	// batch strides would otherwise ask for billions (issue 12).
	tooMany := func(steps uint64, field string) error {
		if steps <= maxPoolMaxSteps {
			return nil
		}
		return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Field: field, Rule: fmt.Sprintf(
			"covering the tensors with bindings of at most %d bytes would take %d dispatches, more than vkdml's limit of %d per operator", limit, steps, maxPoolMaxSteps)}
	}
	strategy := "direct"
	switch {
	case fitsWhole:
		chunks = []chunk{{0, N, 0, C}}
		cstep = C
	case ctx.Kernel == "direct":
		return nil, hresult.Unsupported("Kernel", "the direct strategy needs every tensor to fit one binding of %d bytes", ctx.Limits.MaxStorageBufferRange)
	default:
		kn := perStep(N, func(d *tensor.Desc) (uint64, uint64) { return span(d, 0, 1, 0, C) },
			func(d *tensor.Desc) uint64 { return uint64(d.EffectiveStrides()[0]) })
		if kn > 0 {
			if err := tooMany((uint64(N)+uint64(kn)-1)/uint64(kn), "InputTensor.Sizes[0]"); err != nil {
				return nil, err
			}
			strategy = fmt.Sprintf("split-n(%d)", kn)
			cstep = C
			for n := uint64(0); n < uint64(N); n += uint64(kn) {
				chunks = append(chunks, chunk{uint32(n), uint32(min(uint64(N), n+uint64(kn))), 0, C})
			}
			break
		}
		kc := perStep(C, func(d *tensor.Desc) (uint64, uint64) { return span(d, 0, 1, 0, 1) },
			func(d *tensor.Desc) uint64 { return uint64(d.EffectiveStrides()[1]) })
		if kc == 0 {
			for i, d := range tensors {
				lo, hi := span(d, 0, 1, 0, 1)
				if (hi-lo)*uint64(d.DataType.Size())+8 > limit {
					name := []string{"InputTensor", "OutputTensor", "OutputIndicesTensor"}[i]
					return nil, hresult.Unsupported(name+".Strides", "one (batch, channel) plane of %v spans %d bytes, more than one storage binding can cover (maxStorageBufferRange %d); vkdml splits pooling over planes only",
						*d, (hi-lo)*uint64(d.DataType.Size()), ctx.Limits.MaxStorageBufferRange)
				}
			}
		}
		if err := tooMany(uint64(N)*((uint64(C)+uint64(kc)-1)/uint64(kc)), "InputTensor.Sizes[1]"); err != nil {
			return nil, err
		}
		strategy = fmt.Sprintf("split-c(%d)", kc)
		cstep = kc
		for n := uint64(0); n < uint64(N); n++ {
			for c := uint64(0); c < uint64(C); c += uint64(kc) {
				chunks = append(chunks, chunk{uint32(n), uint32(n + 1), uint32(c), uint32(min(uint64(C), c+uint64(kc)))})
			}
		}
	}

	if fitsWhole && (ctx.Kernel == "" || ctx.Kernel == MaxPoolStrategyVec2x2) && m.vec2x2OK() {
		return m.planVec2x2(ctx, kind, idxBits, len(tensors)), nil
	}

	var idxStrides [5]uint32
	if m.idx != nil {
		idxStrides = strides5(m.idx)
	}
	inSt, outSt := strides5(m.in), strides5(m.out)
	// Specialization constants, in maxpool.comp's constant_id order: the
	// workgroup size, then the shape (D, H, W), then strides (N, C, D, H, W)
	// and the planes per batch of a step, and last the element kind
	// (shaders.MaxPoolSpecKind). The indices' strides go in push constants.
	spec := []uint32{maxPoolWorkgroup,
		inS[0], inS[1], inS[2], outS[0], outS[1], outS[2],
		win[0], win[1], win[2], str[0], str[1], str[2], dil[0], dil[1], dil[2], pad[0], pad[1], pad[2],
		inSt[0], inSt[1], inSt[2], inSt[3], inSt[4],
		outSt[0], outSt[1], outSt[2], outSt[3], outSt[4],
		cstep, kind,
	}
	perPlane := uint64(outS[0]) * uint64(outS[1]) * uint64(outS[2])
	paramBytes := uint32(5 * 4)
	if m.idx != nil {
		paramBytes += 5 * 4
	}
	plan := &Plan{
		Strategy: strategy,
		Kernels: []Kernel{{
			Variant:    shaders.MaxPoolName(bits, native, idxBits),
			Bindings:   len(tensors),
			ParamBytes: paramBytes,
			Spec:       spec,
		}},
	}
	for _, ch := range chunks {
		var bind []Slot
		var e0 [3]uint32
		for i, d := range tensors {
			if len(chunks) == 1 {
				bind = append(bind, Slot{Kind: slots[i].kind, Index: slots[i].index})
				continue
			}
			lo, hi := span(d, ch.n0, ch.n1, ch.c0, ch.c1)
			sl, e := window(d, slots[i].kind, slots[i].index, lo, hi)
			bind = append(bind, sl)
			e0[i] = e
		}
		total := uint64(ch.n1-ch.n0) * uint64(ch.c1-ch.c0) * perPlane
		params := Params{}.U32(uint32(total), ch.n0*C+ch.c0, e0[0], e0[1], e0[2])
		if m.idx != nil {
			params = params.U32(idxStrides[:]...)
		}
		plan.Steps = append(plan.Steps, Step{
			Kernel:   0,
			Bindings: bind,
			Params:   params,
			Groups:   GridGroups(total, maxPoolWorkgroup, ctx.Limits),
		})
	}
	return plan, nil
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
func (m *maxPool) vec2x2OK() bool {
	if len(m.in.Sizes) != 4 || m.in.DataType.Size() != 4 || !isPacked(m.in) || !isPacked(m.out) {
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

func (m *maxPool) planVec2x2(ctx *Context, kind uint32, idxBits, bindings int) *Plan {
	wg, groups := uint32(64), uint64(1<<16)
	if ctx.DeviceType == caps.DeviceTypeCPU {
		// lavapipe: per-workgroup overhead dominates and long loops are
		// cheap; a few hundred workgroups of a few lanes each, every one
		// streaming through its own part of the tensors.
		wg, groups = maxPoolVecCPUWG, 256
	}
	wg = min(wg, ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0])
	quads := uint64(m.out.Sizes[0]) * uint64(m.out.Sizes[1]) * uint64(m.out.Sizes[2]) * uint64(m.out.Sizes[3]) / 4
	// Quads per invocation: at most maxPoolVecIters (lavapipe stops a
	// shader after 65535 loop iterations; GPUs have watchdogs).
	per := max((quads+uint64(wg)*groups-1)/(uint64(wg)*groups), 1)
	per = min(per, maxPoolVecIters)
	params := Params{}.U32(uint32(quads), uint32(per))
	pb := uint32(8)
	ng := (quads + per*uint64(wg) - 1) / (per * uint64(wg))
	return &Plan{
		Strategy: MaxPoolStrategyVec2x2,
		Kernels: []Kernel{{
			Variant:    shaders.MaxPoolVec2x2Name(idxBits),
			Bindings:   bindings,
			ParamBytes: pb,
			Spec:       []uint32{wg, m.in.Sizes[2], m.in.Sizes[3], m.out.Sizes[2], m.out.Sizes[3], kind},
		}},
		Steps: []Step{{Kernel: 0, Bindings: maxPoolWholeSlots(m.idx != nil), Params: params, Groups: GridGroups(ng, 1, ctx.Limits)}},
	}
}

// maxPoolVecIters bounds the quads one invocation of maxpool_vec.comp
// computes.
const maxPoolVecIters = 16384

var maxPoolVecCPUWG uint32 = 8

func maxPoolWholeSlots(idx bool) []Slot {
	s := []Slot{{Kind: SlotInput}, {Kind: SlotOutput}}
	if idx {
		s = append(s, Slot{Kind: SlotOutput, Index: 1})
	}
	return s
}
