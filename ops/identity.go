package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// ElementWiseIdentity is DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC without a
// ScaleBias: a bit-exact strided copy from Input to Output. It is vkdml's
// smoke operator and the copy kernel benchmarks measure bandwidth against.
type ElementWiseIdentity struct {
	Input  tensor.Desc
	Output tensor.Desc
}

// OperatorType is "ELEMENT_WISE_IDENTITY".
func (*ElementWiseIdentity) OperatorType() string { return "ELEMENT_WISE_IDENTITY" }

// Inputs is [InputTensor].
func (o *ElementWiseIdentity) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputTensor].
func (o *ElementWiseIdentity) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// identityMaxRank is the rank limit of element-wise operators from FL 3.0.
const identityMaxRank = 8

// Validate checks the tensors: same type, rank and sizes.
func (o *ElementWiseIdentity) Validate(ctx *Context) error {
	if err := ValidateTensor("InputTensor", &o.Input, 1, identityMaxRank, false); err != nil {
		return err
	}
	if err := ValidateTensor("OutputTensor", &o.Output, 1, identityMaxRank, true); err != nil {
		return err
	}
	if err := CheckType("InputTensor", o.Input.DataType, tensor.AllTypes); err != nil {
		return err
	}
	if err := checkSameType(&o.Input, &o.Output); err != nil {
		return err
	}
	if o.Output.Rank() != o.Input.Rank() {
		return hresult.InvalidArg("OutputTensor.DimensionCount", "%d must equal InputTensor.DimensionCount %d", o.Output.Rank(), o.Input.Rank())
	}
	for i := range o.Input.Sizes {
		if o.Output.Sizes[i] != o.Input.Sizes[i] {
			return hresult.InvalidArg("OutputTensor.Sizes", "%v must equal InputTensor.Sizes %v", o.Output.Sizes, o.Input.Sizes)
		}
	}
	return nil
}

// identityWorkgroup is the copy kernels' workgroup size where the device
// allows it (identityWG).
const identityWorkgroup = 256

// identityWG is the copy kernels' workgroup size on ctx's device:
// identityWorkgroup, or the device's limit below it (Vulkan requires only
// 128 invocations); both kernels are grid-stride loops, right at any size.
func identityWG(ctx *Context) uint32 {
	return max(min(identityWorkgroup, ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0]), 1)
}

// vec4PerInvocation is how many 16-byte vectors one invocation of the
// packed copy moves per grid step, so that each has enough independent
// loads in flight.
const vec4PerInvocation = 4

// Plan picks the packed 16-byte copy, in as many binding windows as the
// tensors need, when both tensors are packed; else the strided copy, which
// binds whole tensors.
func (o *ElementWiseIdentity) Plan(ctx *Context) (*Plan, error) {
	bytes := o.Input.ElementCount() * uint64(o.Input.DataType.Size())
	vec4OK := o.Input.IsPacked() && o.Output.IsPacked() && bytes%16 == 0
	switch ctx.Kernel {
	case "", "strided":
	case "vec4":
		if !vec4OK {
			return nil, hresult.InvalidArg("Kernel", "the vec4 copy needs packed input and output of a multiple of 16 bytes")
		}
	default:
		return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of ELEMENT_WISE_IDENTITY (strategies: vec4, strided)", ctx.Kernel)
	}
	if vec4OK && ctx.Kernel != "strided" {
		return o.planVec4(ctx, bytes/16)
	}
	// The strided copy binds whole tensors: each must fit one binding by
	// layout.go's window rule.
	budget := windowBudget(ctx, 4)
	for i, d := range []*tensor.Desc{&o.Input, &o.Output} {
		if d.TotalTensorSizeInBytes > budget {
			return nil, hresult.Unsupported([]string{"InputTensor", "OutputTensor"}[i]+".TotalTensorSizeInBytes",
				"%d bytes exceed what one binding covers (%d of maxStorageBufferRange %d)", d.TotalTensorSizeInBytes, budget, ctx.Limits.MaxStorageBufferRange)
		}
	}
	bits := 8 * o.Input.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	total := o.Input.ElementCount()
	variant := shaders.CopyName(bits, native)
	wg := identityWG(ctx)
	k, err := kernelOf(shaders.NewSpec(variant).Set(shaders.SpecWorkgroupSize, wg))
	if err != nil {
		return nil, err
	}
	push := shaders.NewPush(variant).Set("rank", uint32(o.Input.Rank())).Set("total", uint32(total))
	setArray(push, "sizes", 8, o.Input.Sizes)
	setArray(push, "in_strides", 8, o.Input.EffectiveStrides())
	setArray(push, "out_strides", 8, o.Output.EffectiveStrides())
	params, err := pushBytes(push)
	if err != nil {
		return nil, err
	}
	return &Plan{
		Strategy: "strided",
		Kernels:  []Kernel{k},
		Steps: []Step{{
			Kernel:   0,
			Bindings: []Slot{In(0), Out(0)},
			Params:   params,
			Groups:   gridFor(ctx, total, wg),
		}},
	}, nil
}

// planVec4 copies n 16-byte vectors of packed tensors, in windows that
// each fit one binding by layout.go's window rule, so that a tensor of the
// whole binding range (or more) is copied too.
func (o *ElementWiseIdentity) planVec4(ctx *Context, n uint64) (*Plan, error) {
	per := windowBudget(ctx, 16) / 16
	if per == 0 {
		return nil, hresult.Unsupported("InputTensor", "a binding range of %d bytes cannot hold one 16-byte vector", ctx.Limits.MaxStorageBufferRange)
	}
	if steps := (n + per - 1) / per; steps > maxPlanSteps {
		return nil, errTooManySteps("InputTensor.Sizes", steps, per*16)
	}
	wg := identityWG(ctx)
	k, err := kernelOf(shaders.NewSpec(shaders.CopyVec4Name).Set(shaders.SpecWorkgroupSize, wg))
	if err != nil {
		return nil, err
	}
	plan := &Plan{Strategy: "vec4", Kernels: []Kernel{k}}
	for lo := uint64(0); lo < n; lo += per {
		hi := min(n, lo+per)
		in, _ := windowSlot(SlotInput, 0, lo, hi, 16, 16, o.Input.TotalTensorSizeInBytes)
		out, _ := windowSlot(SlotOutput, 0, lo, hi, 16, 16, o.Output.TotalTensorSizeInBytes)
		params, err := pushBytes(shaders.NewPush(shaders.CopyVec4Name).Set("count", uint32(hi-lo)))
		if err != nil {
			return nil, err
		}
		plan.Steps = append(plan.Steps, Step{
			Bindings: []Slot{in, out},
			Params:   params,
			Groups:   gridFor(ctx, (hi-lo+vec4PerInvocation-1)/vec4PerInvocation, wg),
		})
	}
	return plan, nil
}

// setArray sets the n words of push's uint array called name, name[0] to
// name[n-1], to v and zeros after it (copy.comp's fixed 8 dimensions); a v
// longer than n sets name[n], which push refuses as undeclared.
func setArray(push *shaders.Values, name string, n int, v []uint32) {
	for i := range max(n, len(v)) {
		x := uint32(0)
		if i < len(v) {
			x = v[i]
		}
		push.Set(fmt.Sprintf("%s[%d]", name, i), x)
	}
}

// Reference copies every logical element's bits.
func (o *ElementWiseIdentity) Reference(inputs, outputs []*tensor.Tensor) error {
	in, out := inputs[0], outputs[0]
	tensor.ForEachIndex(o.Input.Sizes, func(c []uint32) {
		out.SetBits(c, in.Bits(c...))
	})
	return nil
}
