package ops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestCheckPlanRefuses breaks a good plan one rule at a time: CheckPlan
// must refuse each with E_FAIL wrapping ErrBadPlan and say what broke.
func TestCheckPlanRefuses(t *testing.T) {
	ctx := descfuzz.Lavapipe()
	desc := &ops.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 4096}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 1}), Axes: []uint32{1}}
	good := func() *ops.Plan {
		p, err := desc.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ops.CheckPlan(ctx, desc, p); err != nil {
			t.Fatalf("the good plan: %v", err)
		}
		return p
	}
	cases := []struct {
		name, want string
		ctx        func(c *ops.Context)
		edit       func(p *ops.Plan)
	}{
		{"unknown variant", "no such variant", nil, func(p *ops.Plan) { p.Kernels[0].Variant = "argmax_nope" }},
		{"param bytes", "push", nil, func(p *ops.Plan) { p.Kernels[0].ParamBytes += 4 }},
		{"spec count", "specialization", nil, func(p *ops.Plan) { p.Kernels[0].Spec = p.Kernels[0].Spec[:3] }},
		{"workgroup 0", "workgroup size", nil, func(p *ops.Plan) { p.Kernels[0].Spec[0] = 0 }},
		{"capability", "subgroup arithmetic", func(c *ops.Context) { c.Features.SubgroupArithmetic = false }, nil},
		{"step params", "parameter bytes", nil, func(p *ops.Plan) { p.Steps[0].Params = p.Steps[0].Params[:4] }},
		{"step kernel", "kernel 7", nil, func(p *ops.Plan) { p.Steps[0].Kernel = 7 }},
		{"groups 0", "groups", nil, func(p *ops.Plan) { p.Steps[0].Groups[1] = 0 }},
		{"window outside", "inside", nil, func(p *ops.Plan) { p.Steps[0].Bindings[0].Offset = 65536; p.Steps[0].Bindings[0].Size = 4 }},
		{"window unaligned", "word-aligned", nil, func(p *ops.Plan) { p.Steps[0].Bindings[0].Offset = 2 }},
		{"over the range", "binding range", func(c *ops.Context) { c.BindingWindowCap = 1024 }, nil},
		{"no temporary", "no temporary", nil, func(p *ops.Plan) { p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTemporary} }},
		{"no steps", "no step", nil, func(p *ops.Plan) { p.Steps = nil }},
	}
	for _, c := range cases {
		p := good()
		cctx := *ctx
		if c.ctx != nil {
			c.ctx(&cctx)
		}
		if c.edit != nil {
			c.edit(p)
		}
		err := ops.CheckPlan(&cctx, desc, p)
		var he *hresult.Error
		if !errors.Is(err, ops.ErrBadPlan) || !errors.As(err, &he) || he.Code != hresult.E_FAIL || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want E_FAIL wrapping ErrBadPlan mentioning %q", c.name, err, c.want)
		}
	}
}
