package ops

import (
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
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

// Plan is clear → scatter → gather (maxunpool.comp), each pass one step
// binding whole tensors. An index may name any output element and a
// winner any input element, so no pass can be cut into windows of its
// tensors: every tensor, and the temporary, must fit one binding
// (semantics.md, MAX_UNPOOLING's binding limit).
func (o *MaxUnpooling) Plan(ctx *Context) (*Plan, error) {
	if ctx.Kernel != "" && ctx.Kernel != MaxUnpoolStrategy {
		return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of MAX_UNPOOLING (strategies: %s)", ctx.Kernel, MaxUnpoolStrategy)
	}
	outCount := o.Output.ElementCount()
	temp := maxUnpoolWinnerBytes * outCount
	if err := o.checkBindings(ctx, temp); err != nil {
		return nil, err
	}
	clear, scatter, gather, err := o.kernels(ctx)
	if err != nil {
		return nil, err
	}
	inCount := o.Input.ElementCount()
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
		TemporarySize: temp,
		Steps: []Step{
			{Kernel: 0, Bindings: []Slot{winners}, Params: p0, Groups: gridFor(ctx, outCount, maxUnpoolWorkgroup)},
			{Kernel: 1, Bindings: []Slot{In(1), winners}, Params: p1, Groups: gridFor(ctx, inCount, maxUnpoolWorkgroup), Barrier: true},
			{Kernel: 2, Bindings: []Slot{In(0), winners, Out(0)}, Params: p2, Groups: gridFor(ctx, outCount, maxUnpoolWorkgroup), Barrier: true},
		},
	}, nil
}

// checkBindings refuses tensors, or a temporary of temp bytes, that one
// binding cannot cover (layout.go's window rule).
func (o *MaxUnpooling) checkBindings(ctx *Context, temp uint64) error {
	budget := windowBudget(ctx, 4)
	for _, t := range []struct {
		field string
		bytes uint64
	}{
		{"InputTensor.TotalTensorSizeInBytes", o.Input.TotalTensorSizeInBytes},
		{"IndicesTensor.TotalTensorSizeInBytes", o.Indices.TotalTensorSizeInBytes},
		{"OutputTensor.TotalTensorSizeInBytes", o.Output.TotalTensorSizeInBytes},
	} {
		if t.bytes > budget {
			return hresult.Unsupported(t.field, "%d bytes exceed what one binding covers (%d of maxStorageBufferRange %d); MAX_UNPOOLING binds every tensor whole (semantics.md, MAX_UNPOOLING's binding limit)",
				t.bytes, budget, ctx.Limits.MaxStorageBufferRange)
		}
	}
	if temp > budget {
		return hresult.Unsupported("OutputTensor.Sizes", "MAX_UNPOOLING's temporary of %d bytes (4 per output element) exceeds what one binding covers (%d of maxStorageBufferRange %d; semantics.md, MAX_UNPOOLING's binding limit)",
			temp, budget, ctx.Limits.MaxStorageBufferRange)
	}
	return nil
}

// kernels are the three passes' kernels: the scatter pass by index width,
// the gather pass by element width and storage path, with the input's,
// the indices' and the output's sizes and strides by name.
func (o *MaxUnpooling) kernels(ctx *Context) (clear, scatter, gather Kernel, err error) {
	clear, err = kernelOf(shaders.NewSpec(shaders.MaxUnpoolClearName).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup))
	if err != nil {
		return
	}
	sv := shaders.NewSpec(shaders.MaxUnpoolScatterName(8*o.Indices.DataType.Size())).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup)
	setNCHW(sv, "I", o.Input.Sizes, false)
	setNCHW(sv, "IDX_S", o.Indices.EffectiveStrides(), true)
	if scatter, err = kernelOf(sv); err != nil {
		return
	}
	bits := 8 * o.Input.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	gv := shaders.NewSpec(shaders.MaxUnpoolGatherName(bits, native)).Set(shaders.SpecWorkgroupSize, maxUnpoolWorkgroup)
	setNCHW(gv, "I", o.Input.Sizes, false)
	setNCHW(gv, "IN_S", o.Input.EffectiveStrides(), true)
	setNCHW(gv, "O", o.Output.Sizes, false)
	setNCHW(gv, "OUT_S", o.Output.EffectiveStrides(), true)
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
