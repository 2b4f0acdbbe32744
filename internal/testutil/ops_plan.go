package testutil

import (
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
)

// PlanContext is the context d's operators validate and plan against, as
// dml.Device builds it, so that a test's Plan is the one that runs (set
// BindingWindowCap as the device was opened with).
func PlanContext(d *dml.Device) *ops.Context {
	return &ops.Context{FeatureLevel: d.FeatureLevel(), Features: d.GPU().Features, Limits: d.GPU().Limits, DeviceType: d.GPU().Info.Type}
}

// GPUPlan validates and plans desc as on a discrete GPU with d's features
// and limits (the GPU choices lavapipe's own plans do not make), with the
// strategy kernel ("": the planner's), failing t (naming the case what)
// on an error; it returns the context too.
func GPUPlan(t testing.TB, d *dml.Device, desc ops.Desc, kernel, what string) (*ops.Context, *ops.Plan) {
	t.Helper()
	ctx := PlanContext(d)
	ctx.DeviceType = caps.DeviceTypeDiscreteGPU
	ctx.Kernel = kernel
	if err := desc.Validate(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		t.Fatalf("%s: GPU plan: %v", what, err)
	}
	return ctx, p
}

// OnCPU reports whether d is a CPU implementation (lavapipe).
func OnCPU(d *dml.Device) bool { return d.GPU().Info.Type == caps.DeviceTypeCPU }

// WindowDevices opens one device per binding-window cap on first use
// (dml.DeviceOptions.BindingWindowCap, the planners' one test seam), closed
// when the test ends.
func WindowDevices(t testing.TB) func(bytes uint64) *dml.Device {
	devs := map[uint64]*dml.Device{}
	return func(bytes uint64) *dml.Device {
		if d, ok := devs[bytes]; ok {
			return d
		}
		d := OpenDML(t, dml.DeviceOptions{BindingWindowCap: bytes})
		devs[bytes] = d
		return d
	}
}

// WindowCapSlack is what ops' window rule (layout.go) adds to the bytes a
// binding spans, on lavapipe (offset alignment 16).
const WindowCapSlack = 4 + 4 + 16

// SmallestWindowCap returns the first of caps (ascending) whose window,
// less WindowCapSlack, holds plane bytes but not total bytes, or 0 when
// none does: the cap under which tensors of total bytes take the windowed
// plans while one (batch, channel) plane of plane bytes still fits.
func SmallestWindowCap(caps []uint64, plane, total uint64) uint64 {
	for _, c := range caps {
		if c-WindowCapSlack >= plane && c-WindowCapSlack < total {
			return c
		}
	}
	return 0
}
