package ops_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestReduceDispatch: REDUCE runs ARGMAX and ARGMIN through the arg
// reduction (the same plan as the standalone operators, REDUCE's type
// tables aside), refuses the other defined functions as unsupported and
// undefined ones as invalid, in Validate, Plan and Reference alike.
func TestReduceDispatch(t *testing.T) {
	ctx := descfuzz.Lavapipe()
	in, out := tensor.NewDesc(tensor.Float32, []uint32{2, 3, 64}), tensor.NewDesc(tensor.UInt32, []uint32{2, 3, 1})
	for _, f := range []ops.ReduceFunction{ops.ReduceFunctionArgMax, ops.ReduceFunctionArgMin} {
		r := &ops.Reduce{Function: f, Input: in, Output: out, Axes: []uint32{2}}
		got := validPlan(t, ctx, r, fmt.Sprint(f))
		var std ops.Desc = &ops.ArgMax{Input: in, Output: out, Axes: []uint32{2}}
		if f == ops.ReduceFunctionArgMin {
			std = &ops.ArgMin{Input: in, Output: out, Axes: []uint32{2}}
		}
		want, _ := std.Plan(ctx)
		if got.Strategy != want.Strategy || got.Kernels[0].Variant != want.Kernels[0].Variant || len(got.Steps) != len(want.Steps) {
			t.Errorf("%v plans %s/%s, the standalone operator %s/%s", f, got.Strategy, got.Kernels[0].Variant, want.Strategy, want.Kernels[0].Variant)
		}
	}
	for f, code := range map[ops.ReduceFunction]error{
		ops.ReduceFunctionSum: hresult.DXGI_ERROR_UNSUPPORTED, ops.ReduceFunctionSumSquare: hresult.DXGI_ERROR_UNSUPPORTED,
		12: hresult.E_INVALIDARG, 1 << 31: hresult.E_INVALIDARG,
	} {
		r := &ops.Reduce{Function: f, Input: in, Output: out, Axes: []uint32{2}}
		_, perr := r.Plan(ctx)
		rerr := r.Reference([]*tensor.Tensor{tensor.New(tensor.Float32, 2, 3, 64)}, []*tensor.Tensor{tensor.New(tensor.UInt32, 2, 3, 1)})
		for what, err := range map[string]error{"Validate": r.Validate(ctx), "Plan": perr, "Reference": rerr} {
			var he *hresult.Error
			if !errors.Is(err, code) || !errors.As(err, &he) || he.Field != "Function" {
				t.Errorf("%v: %s returned %v, want %v on Function", f, what, err, code)
			}
		}
	}
}
