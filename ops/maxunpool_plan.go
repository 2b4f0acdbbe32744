package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// MaxUnpoolStrategy is MAX_UNPOOLING's one strategy: maxunpool.comp's
// clear, scatter and gather passes over a temporary of one winner word
// per output element.
const MaxUnpoolStrategy = "scatter"

// maxUnpoolWorkgroup is the workgroup size of the three passes.
const maxUnpoolWorkgroup = 128

// maxUnpoolWinnerBytes is the temporary's bytes per output element: one
// 32-bit winner word (1 + an input position, which is below 2^32 − 1).
const maxUnpoolWinnerBytes = 4

// Plan is clear → scatter → gather (maxunpool.comp). When every tensor and
// the temporary fit one binding, each pass is one step binding them whole.
// Otherwise the input side (input, indices) and the output side (output,
// winners) are cut into chunks of whole (n, c) planes that fit a binding,
// and the passes run per output chunk (clear) and per (output chunk, input
// chunk) pair (scatter, gather): an index may name any output element and
// a winner any input element, so every pair meets once.
func (o *MaxUnpooling) Plan(ctx *Context) (*Plan, error) {
	if ctx.Kernel != "" && ctx.Kernel != MaxUnpoolStrategy {
		return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of MAX_UNPOOLING (strategies: %s)", ctx.Kernel, MaxUnpoolStrategy)
	}
	budget := windowBudget(ctx, 4)
	ins, outs := o.sides()
	inCut, err := unpoolChunks(ctx, ins, budget)
	if err != nil {
		return nil, err
	}
	outCut, err := unpoolChunks(ctx, outs, budget)
	if err != nil {
		return nil, err
	}
	if inCut.whole && outCut.whole {
		return o.planWhole(ctx)
	}
	nO, nI := uint64(len(outCut.chunks)), uint64(len(inCut.chunks))
	if steps := nO + 2*nO*nI; steps > maxPlanSteps {
		return nil, errTooManySteps("OutputTensor.Sizes", steps, budget)
	}
	return o.planWindowed(ctx, inCut, outCut)
}

// sides are the tensors of the input side (input, indices) and of the
// output side (output, and the winners as a packed UINT32 tensor of the
// output's sizes), with their slots.
func (o *MaxUnpooling) sides() (ins, outs []poolTensor) {
	winners := tensor.NewDesc(tensor.UInt32, o.Output.Sizes)
	ins = []poolTensor{{&o.Input, SlotInput, 0, "InputTensor"}, {&o.Indices, SlotInput, 1, "IndicesTensor"}}
	outs = []poolTensor{{&o.Output, SlotOutput, 0, "OutputTensor"}, {&winners, SlotTemporary, 0, "OutputTensor.Sizes"}}
	return ins, outs
}

// unpoolChunks covers the planes of one side's tensors (all of one logical
// shape) with chunks that fit the window budget (cutPlanes): the whole
// tensors, else runs of whole batches, else runs of channels of one batch.
// A plane that fits no binding is refused naming the tensor, and so is a
// cut into more than maxPlanSteps chunks.
func unpoolChunks(ctx *Context, ts []poolTensor, budget uint64) (*planeCut, error) {
	sizes := ts[0].d.Sizes
	cut := cutPlanes(sizes[0], sizes[1], planeTensors(ts), budget)
	switch {
	case cut.wide >= 0:
		t := ts[cut.wide]
		return nil, hresult.Unsupported(t.field, "one (batch, channel) plane of %v spans %d bytes, more than one storage binding can cover (%d of maxStorageBufferRange %d); MAX_UNPOOLING cuts its tensors into whole planes only (semantics.md, MAX_UNPOOLING's binding limit)",
			*t.d, t.planes().planeBytes(), budget, ctx.Limits.MaxStorageBufferRange)
	case cut.steps > maxPlanSteps:
		return nil, errTooManySteps(fmt.Sprintf("%s.Sizes[%d]", ts[0].field, cut.axis), cut.steps, budget)
	}
	return &cut, nil
}

// chunkPositions are a chunk's first row-major position and its element
// count: its planes are consecutive, so its positions are too.
func chunkPositions(ch planeChunk, sizes []uint32) (first, count uint64) {
	hw := uint64(sizes[2]) * uint64(sizes[3])
	first = (uint64(ch.n0)*uint64(sizes[1]) + uint64(ch.c0)) * hw
	return first, uint64(ch.n1-ch.n0) * uint64(ch.c1-ch.c0) * hw
}

// chunkSlot is the binding window of tensor t over chunk ch, and the
// element offset of the chunk's first element in it.
func chunkSlot(t poolTensor, ch planeChunk, total uint64) (Slot, uint32) {
	lo, hi := span(t.d, ch.n0, ch.n1, ch.c0, ch.c1)
	sl, first := windowSlot(t.kind, t.index, lo, hi, uint64(t.d.DataType.Size()), 4, total)
	return sl, uint32(lo - first)
}

// planWhole is one step per pass, every tensor bound whole.
func (o *MaxUnpooling) planWhole(ctx *Context) (*Plan, error) {
	outCount, inCount := o.Output.ElementCount(), o.Input.ElementCount()
	clear, scatter, gather, err := o.kernels(ctx, nil, nil)
	if err != nil {
		return nil, err
	}
	p0, err := pushBytes(shaders.NewPush(clear.Variant).Set("count", uint32(outCount)))
	if err != nil {
		return nil, err
	}
	p1, err := pushBytes(shaders.NewPush(scatter.Variant).Set("total", uint32(inCount)).Set("out_total", uint32(outCount)))
	if err != nil {
		return nil, err
	}
	p2, err := pushBytes(shaders.NewPush(gather.Variant).Set("total", uint32(outCount)))
	if err != nil {
		return nil, err
	}
	winners := Slot{Kind: SlotTemporary}
	return &Plan{
		Strategy:      MaxUnpoolStrategy,
		Kernels:       []Kernel{clear, scatter, gather},
		TemporarySize: maxUnpoolWinnerBytes * outCount,
		Steps: []Step{
			{Kernel: 0, Bindings: []Slot{winners}, Params: p0, Groups: gridFor(ctx, outCount, maxUnpoolWorkgroup)},
			{Kernel: 1, Bindings: []Slot{In(1), winners}, Params: p1, Groups: gridFor(ctx, inCount, maxUnpoolWorkgroup), Barrier: true},
			{Kernel: 2, Bindings: []Slot{In(0), winners, Out(0)}, Params: p2, Groups: gridFor(ctx, outCount, maxUnpoolWorkgroup), Barrier: true},
		},
	}, nil
}

// planWindowed clears each output chunk's winners, then scatters and
// gathers every (output chunk, input chunk) pair. Every scatter and gather
// step waits for the one before: steps of one pass share winner words and
// output words.
func (o *MaxUnpooling) planWindowed(ctx *Context, inCut, outCut *planeCut) (*Plan, error) {
	clear, scatter, gather, err := o.kernels(ctx, inCut, outCut)
	if err != nil {
		return nil, err
	}
	ins, outs := o.sides()
	temp := maxUnpoolWinnerBytes * o.Output.ElementCount()
	plan := &Plan{
		Strategy:      fmt.Sprintf("%s-windows(%dx%d)", MaxUnpoolStrategy, len(outCut.chunks), len(inCut.chunks)),
		Kernels:       []Kernel{clear, scatter, gather},
		TemporarySize: temp,
	}
	step := func(k int, bind []Slot, push *shaders.Values, items uint64) error {
		params, err := pushBytes(push)
		if err != nil {
			return err
		}
		plan.Steps = append(plan.Steps, Step{Kernel: k, Bindings: bind, Params: params, Groups: gridFor(ctx, items, maxUnpoolWorkgroup), Barrier: k != 0})
		return nil
	}
	for _, oc := range outCut.chunks {
		win, _ := chunkSlot(outs[1], oc, temp)
		_, count := chunkPositions(oc, o.Output.Sizes)
		if err := step(0, []Slot{win}, shaders.NewPush(clear.Variant).Set("count", uint32(count)), count); err != nil {
			return nil, err
		}
	}
	for _, oc := range outCut.chunks {
		win, _ := chunkSlot(outs[1], oc, temp)
		oFirst, oCount := chunkPositions(oc, o.Output.Sizes)
		for _, ic := range inCut.chunks {
			idx, idxE0 := chunkSlot(ins[1], ic, o.Indices.TotalTensorSizeInBytes)
			pFirst, pCount := chunkPositions(ic, o.Input.Sizes)
			push := shaders.NewPush(scatter.Variant).Set("total", uint32(pCount)).Set("p0", uint32(pFirst)).
				Set("idx_e0", idxE0).Set("out_lo", uint32(oFirst)).Set("out_count", uint32(oCount))
			if err := step(1, []Slot{idx, win}, push, pCount); err != nil {
				return nil, err
			}
		}
	}
	for _, oc := range outCut.chunks {
		win, _ := chunkSlot(outs[1], oc, temp)
		out, outE0 := chunkSlot(outs[0], oc, o.Output.TotalTensorSizeInBytes)
		_, oCount := chunkPositions(oc, o.Output.Sizes)
		for i, ic := range inCut.chunks {
			in, inE0 := chunkSlot(ins[0], ic, o.Input.TotalTensorSizeInBytes)
			pFirst, pCount := chunkPositions(ic, o.Input.Sizes)
			push := shaders.NewPush(gather.Variant).Set("total", uint32(oCount)).Set("in_e0", inE0).Set("out_e0", outE0).
				Set("p_lo", uint32(pFirst)).Set("p_count", uint32(pCount)).Set("zeros", b2u(i == 0))
			if err := step(2, []Slot{in, win, out}, push, oCount); err != nil {
				return nil, err
			}
		}
	}
	return plan, nil
}

// kernels are the three passes' kernels: the scatter pass by index width,
// the gather pass by element width and storage path, with the input's,
// the indices' and the output's sizes and strides by name; with cuts (the
// windowed plan), the chunked variants with the planes per batch of an
// input chunk and of an output chunk.
func (o *MaxUnpooling) kernels(ctx *Context, inCut, outCut *planeCut) (clear, scatter, gather Kernel, err error) {
	clear, err = kernelOf(shaders.NewSpec(shaders.MaxUnpoolClearName).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup))
	if err != nil {
		return
	}
	windowed := inCut != nil
	sv := shaders.NewSpec(shaders.MaxUnpoolScatterName(8*o.Indices.DataType.Size(), windowed)).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup)
	setNCHW(sv, "I", o.Input.Sizes, false)
	setNCHW(sv, "IDX_S", o.Indices.EffectiveStrides(), true)
	if windowed {
		sv.Set("ICSTEP", inCut.cstep)
	}
	if scatter, err = kernelOf(sv); err != nil {
		return
	}
	bits := 8 * o.Input.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	gv := shaders.NewSpec(shaders.MaxUnpoolGatherName(bits, native, windowed)).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup)
	setNCHW(gv, "I", o.Input.Sizes, false)
	setNCHW(gv, "IN_S", o.Input.EffectiveStrides(), true)
	setNCHW(gv, "O", o.Output.Sizes, false)
	setNCHW(gv, "OUT_S", o.Output.EffectiveStrides(), true)
	if windowed {
		gv.Set("ICSTEP", inCut.cstep).Set("OCSTEP", outCut.cstep)
	}
	gather, err = kernelOf(gv)
	return
}

// setNCHW sets the constants prefix+axis of a 4D tensor's values v (sizes
// or strides), axis N, C, H, W; withN false leaves N out (a size the
// kernels never need: the outermost coordinate takes the rest).
func setNCHW(spec *shaders.Values, prefix string, v []uint32, withN bool) {
	for i, axis := range []string{"N", "C", "H", "W"} {
		if i == 0 && !withN {
			continue
		}
		spec.Set(prefix+axis, v[i])
	}
}
