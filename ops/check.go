package ops

import (
	"errors"
	"fmt"
	"slices"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// ErrBadPlan is wrapped by CheckPlan's errors: a planner produced a plan
// that breaks its kernels' contract or the device's limits. It is a bug in
// vkdml, never in the caller's desc.
var ErrBadPlan = errors.New("ops: the plan breaks its kernels' or the device's rules")

// CheckPlan holds a plan to its desc, its kernels and the device before
// anything reaches a GPU; dml.Device.CreateOperator and the desc fuzzer
// call it on every plan. It checks that:
//
//   - every kernel exists and agrees with its variant's row and SPIR-V
//     module, parsed once (shaders.CheckKernel: the row's constant and
//     push-word names are the module's, position by position; bindings,
//     push-constant size, the row's number of specialization constants),
//     needs no capability the context lacks, and fits the device's
//     workgroup, shared-memory, push-constant and subgroup limits (the values' order is
//     kept by filling them by name: kernelOf, pushBytes);
//   - every step names a kernel, passes its bindings and parameter bytes,
//     and dispatches between 1 and maxComputeWorkGroupCount groups per
//     axis (an indirect step at most that many: its 12-byte arguments lie
//     in the temporary resource at a multiple of 16 bytes, written before
//     a barrier);
//   - every binding refers to a tensor, temporary or persistent resource
//     or table that exists, starts at a multiple of 4 bytes, lies inside it, and
//     makes a descriptor within maxStorageBufferRange (and the context's
//     BindingWindowCap) by layout.go's window rule.
//
// The error is an *hresult.Error with E_FAIL wrapping ErrBadPlan.
func CheckPlan(ctx *Context, desc Desc, p *Plan) error {
	if err := checkPlan(ctx, desc, p); err != nil {
		return &hresult.Error{Code: hresult.E_FAIL, Field: desc.OperatorType(), Rule: "internal error: " + err.Error(), Err: ErrBadPlan}
	}
	return nil
}

func checkPlan(ctx *Context, desc Desc, p *Plan) error {
	if p == nil || len(p.Kernels) == 0 || len(p.Steps) == 0 {
		return errors.New("the plan has no kernel or no step")
	}
	for i, k := range p.Kernels {
		if err := checkKernel(ctx, k); err != nil {
			return fmt.Errorf("kernel %d (%s): %w", i, k.Variant, err)
		}
	}
	for i, s := range p.Steps {
		if s.Indirect != nil && i == 0 {
			return errors.New("step 0 is indirect: no earlier step writes its arguments")
		}
		if err := checkStep(ctx, desc, p, s); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// checkKernel holds one kernel to its module and the device.
func checkKernel(ctx *Context, k Kernel) error {
	if err := shaders.CheckKernel(k.Variant, k.Bindings, k.ParamBytes, len(k.Spec)); err != nil {
		return err
	}
	m, err := shaders.Info(k.Variant)
	if err != nil {
		return err
	}
	if v, _ := shaders.Lookup(k.Variant); !slices.Equal(k.TexelBindings, v.TexelBindings) {
		return fmt.Errorf("texel bindings %v, the variant's row says %v", k.TexelBindings, v.TexelBindings)
	}
	if len(k.TexelBindings) > 0 && !texelFits(ctx.Limits) {
		return fmt.Errorf("texel bindings %v where maxTexelBufferElements %d (16-byte texels) cannot hold a window of maxStorageBufferRange %d", k.TexelBindings, ctx.Limits.MaxTexelBufferElements, ctx.Limits.MaxStorageBufferRange)
	}
	for _, c := range m.Capabilities {
		// Only the feature flags are the plan's to check: gpu holds the
		// subgroup operation classes and unknown capabilities to the
		// device when it creates the kernel.
		if feature, ok, known := c.Feature(ctx.Features); known && !ok {
			return fmt.Errorf("its module needs capability %v, and the device lacks %s", c, feature)
		}
	}
	lim := ctx.Limits
	if len(k.Spec) == 0 || k.Spec[0] == 0 || k.Spec[0] > lim.MaxComputeWorkGroupInvocations || k.Spec[0] > lim.MaxComputeWorkGroupSize[0] {
		return fmt.Errorf("workgroup size (spec constant 0) %v is not in [1, %d]", k.Spec, min(lim.MaxComputeWorkGroupInvocations, lim.MaxComputeWorkGroupSize[0]))
	}
	if over := sharedOver(ctx, k.Variant); over != "" {
		return errors.New(over)
	}
	if push := 4*uint32(k.Bindings) + k.ParamBytes; push > lim.MaxPushConstantsSize {
		return fmt.Errorf("%d push-constant bytes, over maxPushConstantsSize %d", push, lim.MaxPushConstantsSize)
	}
	if uint32(k.Bindings) > lim.MaxPerStageStorageBuffers {
		return fmt.Errorf("%d storage buffers, over maxPerStageDescriptorStorageBuffers %d", k.Bindings, lim.MaxPerStageStorageBuffers)
	}
	if k.SubgroupSize != 0 && (!ctx.Features.SubgroupSizeControl || k.SubgroupSize < lim.MinSubgroupSize || k.SubgroupSize > lim.MaxSubgroupSize) {
		return fmt.Errorf("required subgroup size %d without subgroupSizeControl in [%d, %d]", k.SubgroupSize, lim.MinSubgroupSize, lim.MaxSubgroupSize)
	}
	if k.FullSubgroups && !ctx.Features.ComputeFullSubgroups {
		return errors.New("full subgroups without computeFullSubgroups")
	}
	return nil
}

// sharedOver says how the module of variant declares more shared memory
// than the device's maxComputeSharedMemorySize, or "" where it fits (or
// the context, hand-built, gives no limit: every device reports at least
// Vulkan's 16384).
func sharedOver(ctx *Context, variant string) string {
	lim := ctx.Limits.MaxComputeSharedMemorySize
	m, err := shaders.Info(variant)
	if lim == 0 || err != nil || m.WorkgroupBytes <= lim {
		return ""
	}
	return fmt.Sprintf("kernel %s declares %d bytes of shared memory, over maxComputeSharedMemorySize %d", variant, m.WorkgroupBytes, lim)
}

// checkStep holds one step to its kernel, its resources and the device.
func checkStep(ctx *Context, desc Desc, p *Plan, s Step) error {
	if s.Kernel < 0 || s.Kernel >= len(p.Kernels) {
		return fmt.Errorf("kernel %d of %d", s.Kernel, len(p.Kernels))
	}
	k := p.Kernels[s.Kernel]
	if len(s.Bindings) != k.Bindings || uint32(len(s.Params)) != k.ParamBytes {
		return fmt.Errorf("%d bindings and %d parameter bytes for kernel %s (%d, %d)", len(s.Bindings), len(s.Params), k.Variant, k.Bindings, k.ParamBytes)
	}
	for g := range 3 {
		if s.Groups[g] == 0 || s.Groups[g] > ctx.Limits.MaxComputeWorkGroupCount[g] {
			return fmt.Errorf("groups %v outside [1, maxComputeWorkGroupCount %v]", s.Groups, ctx.Limits.MaxComputeWorkGroupCount)
		}
	}
	if a := s.Indirect; a != nil {
		// A multiple of 16 never crosses the gpu layer's allocation
		// boundaries (multiples of 256) within a temporary resource
		// bound at a multiple of 256 (DML_TEMPORARY_BUFFER_ALIGNMENT).
		if a.Kind != SlotTemporary || a.Size != 12 || a.Offset%16 != 0 || a.Offset > p.TemporarySize || p.TemporarySize-a.Offset < 12 {
			return fmt.Errorf("indirect arguments %v [%d,+%d): not 12 bytes at a multiple of 16 inside the %d-byte temporary resource", a.Kind, a.Offset, a.Size, p.TemporarySize)
		}
		if !s.Barrier {
			return errors.New("an indirect step without a barrier before it: its arguments are an earlier step's writes")
		}
	}
	rng := bindingRange(ctx)
	for j, sl := range s.Bindings {
		total, ok := slotTotal(desc, p, sl)
		if !ok {
			return fmt.Errorf("binding %d: no %v %d", j, sl.Kind, sl.Index)
		}
		if sl.Kind == SlotTable && (sl.Offset != 0 || sl.Size != 0 && sl.Size != total) {
			// The kernels index a table from its start (argmax.comp and
			// reduce_half_col.comp leave base_tab out).
			return fmt.Errorf("binding %d: window [%d,+%d) of table %v: a table is bound whole (Offset 0, Size 0 or its %d bytes)", j, sl.Offset, sl.Size, Table(sl.Index), total)
		}
		n := sl.Size
		if n == 0 {
			n = total - min(sl.Offset, total)
		}
		if sl.Offset%4 != 0 || sl.Offset > total || n > total-sl.Offset {
			return fmt.Errorf("binding %d: window [%d,+%d) is not word-aligned inside the %d-byte %v", j, sl.Offset, n, total, sl.Kind)
		}
		if desc := windowDescriptor(ctx, n); desc > rng {
			return fmt.Errorf("binding %d: a window of %d bytes makes a descriptor of up to %d bytes, over the %d-byte binding range", j, n, desc, rng)
		}
	}
	return nil
}

// slotTotal is the size of the resource a slot refers to, and whether it
// exists.
func slotTotal(desc Desc, p *Plan, sl Slot) (uint64, bool) {
	var list []*tensor.Desc
	switch sl.Kind {
	case SlotInput:
		list = desc.Inputs()
	case SlotOutput:
		list = desc.Outputs()
	case SlotTemporary:
		return p.TemporarySize, p.TemporarySize > 0
	case SlotPersistent:
		return p.PersistentSize, p.PersistentSize > 0
	case SlotTable:
		t := Table(sl.Index)
		return t.Size(), sl.Index >= 0 && t.Size() > 0
	default:
		return 0, false
	}
	if sl.Index < 0 || sl.Index >= len(list) || list[sl.Index] == nil {
		return 0, false
	}
	return list[sl.Index].TotalTensorSizeInBytes, true
}
