// The device-free rule tests of every operator: what Validate, Plan and
// Reference accept and refuse, with the HRESULT and the field named.

package ops_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// argRule is a desc and what validating it must give: level 0 means the
// device's (CreateOperator); code nil means accepted.
type argRule struct {
	name  string
	desc  ops.Desc
	level ops.FeatureLevel
	code  error
	field string
}

// argRejectCases: one desc breaking each ARGMAX/ARGMIN/REDUCE rule.
func argRejectCases() []argRule {
	f32 := func(sizes ...uint32) tensor.Desc { return tensor.NewDesc(tensor.Float32, sizes) }
	u32 := func(sizes ...uint32) tensor.Desc { return tensor.NewDesc(tensor.UInt32, sizes) }
	in := f32(2, 3, 4)
	broadcast := tensor.NewStridedDesc(tensor.UInt8, []uint32{1<<31 + 1}, []uint32{0})
	owned := u32(1, 3, 4)
	owned.Flags = tensor.FlagOwnedByDML
	small := f32(2, 3, 4)
	small.TotalTensorSizeInBytes = 16
	outBroadcast := tensor.NewStridedDesc(tensor.UInt32, []uint32{1, 3, 4}, []uint32{12, 0, 1})
	return []argRule{
		{"rank 9", &ops.ArgMax{Input: f32(1, 1, 1, 1, 1, 1, 1, 1, 2), Output: u32(1, 1, 1, 1, 1, 1, 1, 1, 1), Axes: []uint32{8}}, 0, hresult.E_INVALIDARG, "InputTensor.DimensionCount"},
		{"input size 0", &ops.ArgMax{Input: tensor.Desc{DataType: tensor.Float32, Sizes: []uint32{0}, TotalTensorSizeInBytes: 4}, Output: u32(1), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "InputTensor.Sizes[0]"},
		{"input too small", &ops.ArgMin{Input: small, Output: u32(1, 3, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "InputTensor.TotalTensorSizeInBytes"},
		{"float64 input", &ops.ArgMax{Input: tensor.NewDesc(tensor.Float64, []uint32{4}), Output: u32(1), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"output rank", &ops.ArgMax{Input: in, Output: u32(1, 3), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.DimensionCount"},
		{"axis out of range", &ops.ArgMax{Input: in, Output: u32(1, 3, 4), Axes: []uint32{0, 3}}, 0, hresult.E_INVALIDARG, "Axes[1]"},
		{"reduced size not 1", &ops.ArgMin{Input: in, Output: u32(2, 3, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[0]"},
		{"kept size differs", &ops.ArgMin{Input: in, Output: u32(1, 1, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[1]"},
		{"no axes, reduced output", &ops.ArgMax{Input: in, Output: u32(1, 3, 4)}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[0]"},
		{"float output", &ops.ArgMax{Input: in, Output: f32(1, 3, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.DataType"},
		{"uint16 output", &ops.ArgMax{Input: in, Output: tensor.NewDesc(tensor.UInt16, []uint32{1, 3, 4}), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.DataType"},
		{"output broadcast", &ops.ArgMax{Input: in, Output: outBroadcast, Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Strides"},
		{"output owned by DML", &ops.ArgMax{Input: in, Output: owned, Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Flags"},
		{"direction", &ops.ArgMax{Input: in, Output: u32(1, 3, 4), Axes: []uint32{0}, AxisDirection: 2}, 0, hresult.E_INVALIDARG, "AxisDirection"},
		{"int32 index of a 2^31+1 block", &ops.ArgMax{Input: broadcast, Output: tensor.NewDesc(tensor.Int32, []uint32{1}), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.DataType"},
		{"reduce function unknown", &ops.Reduce{Function: 12, Input: in, Output: u32(1, 3, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "Function"},
		{"reduce max output type", &ops.Reduce{Function: ops.ReduceFunctionMax, Input: in, Output: u32(1, 3, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.DataType"},
		{"reduce max sizes", &ops.Reduce{Function: ops.ReduceFunctionMax, Input: in, Output: in, Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[0]"},
		{"reduce float sum sizes", &ops.Reduce{Function: ops.ReduceFunctionSum, Input: in, Output: f32(2, 1, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[0]"},
		{"reduce average kept size", &ops.Reduce{Function: ops.ReduceFunctionAverage, Input: in, Output: f32(1, 1, 4), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "OutputTensor.Sizes[1]"},
		{"reduce sum of int8", &ops.Reduce{Function: ops.ReduceFunctionSum, Input: tensor.NewDesc(tensor.Int8, []uint32{4}), Output: tensor.NewDesc(tensor.Int8, []uint32{1}), Axes: []uint32{0}}, 0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"reduce axis", &ops.Reduce{Function: ops.ReduceFunctionArgMin, Input: in, Output: u32(1, 3, 4), Axes: []uint32{5}}, 0, hresult.E_INVALIDARG, "Axes[0]"},
		// Feature-level tables.
		{"argmax below FL 3.0", &ops.ArgMax{Input: in, Output: u32(1, 3, 4), Axes: []uint32{0}}, ops.FeatureLevel2_1, hresult.DXGI_ERROR_UNSUPPORTED, "OperatorType"},
		{"int64 input at FL 3.0", &ops.ArgMax{Input: tensor.NewDesc(tensor.Int64, []uint32{4}), Output: u32(1), Axes: []uint32{0}}, ops.FeatureLevel3_0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"reduce 3D at FL 2.1", &ops.Reduce{Function: ops.ReduceFunctionArgMax, Input: in, Output: u32(1, 3, 4), Axes: []uint32{0}}, ops.FeatureLevel2_1, hresult.E_INVALIDARG, "InputTensor.DimensionCount"},
		{"reduce int32 input at FL 1.0", &ops.Reduce{Function: ops.ReduceFunctionArgMax, Input: tensor.NewDesc(tensor.Int32, []uint32{1, 1, 2, 2}), Output: u32(1, 1, 1, 2), Axes: []uint32{2}}, ops.FeatureLevel1_0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"reduce int64 output at FL 2.1", &ops.Reduce{Function: ops.ReduceFunctionArgMax, Input: tensor.NewDesc(tensor.Int8, []uint32{1, 1, 2, 2}), Output: tensor.NewDesc(tensor.Int64, []uint32{1, 1, 1, 2}), Axes: []uint32{2}}, ops.FeatureLevel2_1, hresult.E_INVALIDARG, "OutputTensor.DataType"},
		{"reduce uint64 input at FL 4.0", &ops.Reduce{Function: ops.ReduceFunctionArgMax, Input: tensor.NewDesc(tensor.UInt64, []uint32{4}), Output: u32(1), Axes: []uint32{0}}, ops.FeatureLevel4_0, hresult.E_INVALIDARG, "InputTensor.DataType"},
	}
}

// argAcceptCases: what is accepted: the lower levels' own tables, a UINT32
// index for a 2^32-1 block, duplicates, REDUCE at FL 1.0 on 4D FLOAT16.
func argAcceptCases() []argRule {
	f32 := func(sizes ...uint32) tensor.Desc { return tensor.NewDesc(tensor.Float32, sizes) }
	u32 := func(sizes ...uint32) tensor.Desc { return tensor.NewDesc(tensor.UInt32, sizes) }
	in := f32(2, 3, 4)
	return []argRule{
		{"uint32 index of a 2^32-1 block", &ops.ArgMin{Input: tensor.NewStridedDesc(tensor.UInt8, []uint32{1<<32 - 1}, []uint32{0}), Output: u32(1), Axes: []uint32{0}}, 0, nil, ""},
		{"int32 index of a 2^31 block", &ops.ArgMin{Input: tensor.NewStridedDesc(tensor.UInt8, []uint32{1 << 31}, []uint32{0}), Output: tensor.NewDesc(tensor.Int32, []uint32{1}), Axes: []uint32{0}}, 0, nil, ""},
		{"duplicate axes", &ops.ArgMax{Input: in, Output: u32(1, 3, 1), Axes: []uint32{2, 0, 2, 0}}, 0, nil, ""},
		// DirectML 1.15.4 on the rig accepts a repeated axis for the value
		// functions too (parity --live: SUM of FLOAT32 over {1,1} and
		// {0,0,1}, MAX of INT32 over {0,0,1}, MULTIPLY of INT32 over {0,0}).
		{"reduce float sum duplicate axes", &ops.Reduce{Function: ops.ReduceFunctionSum, Input: in, Output: f32(1, 3, 1), Axes: []uint32{2, 0, 2, 0}}, 0, nil, ""},
		{"reduce int multiply duplicate axes", &ops.Reduce{Function: ops.ReduceFunctionMultiply, Input: tensor.NewDesc(tensor.Int32, []uint32{3, 3}), Output: tensor.NewDesc(tensor.Int32, []uint32{1, 3}), Axes: []uint32{0, 0}}, 0, nil, ""},
		{"reduce FL 1.0", &ops.Reduce{Function: ops.ReduceFunctionArgMin, Input: tensor.NewDesc(tensor.Float16, []uint32{1, 2, 2, 2}), Output: u32(1, 2, 1, 2), Axes: []uint32{2}}, ops.FeatureLevel1_0, nil, ""},
		{"argmax FL 3.0", &ops.ArgMax{Input: tensor.NewDesc(tensor.Int8, []uint32{3}), Output: tensor.NewDesc(tensor.Int64, []uint32{1}), Axes: []uint32{0}}, ops.FeatureLevel3_0, nil, ""},
	}
}

// checkRefusal fails t unless err is c's HRESULT naming c's field.
func checkRefusal(t *testing.T, c argRule, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", c.name)
		return
	}
	var he *hresult.Error
	if !errors.Is(err, c.code) || !errors.As(err, &he) || he.Field != c.field || !strings.Contains(err.Error(), c.field) {
		t.Errorf("%s: got %v (field %q); want %v naming %s", c.name, err, fieldOf(he), c.code, c.field)
	}
}

func fieldOf(e *hresult.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}

// TestArgRules runs the validation tables without a device (cgo-free): on
// a lavapipe-like context, validating and planning as CreateOperator does.
func TestArgRules(t *testing.T) {
	for _, c := range argRejectCases() {
		ctx := descfuzz.Lavapipe()
		if c.level != 0 {
			ctx.FeatureLevel = c.level
		}
		err := c.desc.Validate(ctx)
		if err == nil {
			_, err = c.desc.Plan(ctx)
		}
		checkRefusal(t, c, err)
	}
	for _, c := range argAcceptCases() {
		if err := validateAndPlan(c); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// goodPool2 returns a valid MAX_POOLING2 over [2,3,6,6] with UINT32
// indices: 2x2 window, stride 2.
func goodPool2() *ops.MaxPooling2 {
	idx := tensor.NewDesc(tensor.UInt32, []uint32{2, 3, 3, 3})
	return &ops.MaxPooling2{
		Input:         tensor.NewDesc(tensor.Float32, []uint32{2, 3, 6, 6}),
		Output:        tensor.NewDesc(tensor.Float32, []uint32{2, 3, 3, 3}),
		OutputIndices: &idx,
		Strides:       []uint32{2, 2}, WindowSize: []uint32{2, 2},
		StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1},
	}
}

// poolRule is a desc breaking one max-pooling rule and the error it must
// give.
type poolRule struct {
	name  string
	desc  ops.Desc
	code  hresult.HRESULT
	field string
}

// poolRejectCases: one desc breaking each MAX_POOLING{,1,2} rule.
func poolRejectCases() []poolRule {
	type tc = poolRule
	var cases []tc
	add := func(name, field string, code hresult.HRESULT, f func(m *ops.MaxPooling2)) {
		m := goodPool2()
		f(m)
		cases = append(cases, tc{name, m, code, field})
	}
	inv := hresult.E_INVALIDARG
	add("input rank 3", "InputTensor.DimensionCount", inv, func(m *ops.MaxPooling2) {
		m.Input = tensor.NewDesc(tensor.Float32, []uint32{3, 6, 6})
	})
	add("input rank 6", "InputTensor.DimensionCount", inv, func(m *ops.MaxPooling2) {
		m.Input = tensor.NewDesc(tensor.Float32, []uint32{1, 2, 3, 6, 6, 6})
	})
	add("output rank", "OutputTensor.DimensionCount", inv, func(m *ops.MaxPooling2) {
		m.Output = tensor.NewDesc(tensor.Float32, []uint32{2, 3, 1, 3, 3})
	})
	add("output type", "OutputTensor.DataType", inv, func(m *ops.MaxPooling2) {
		m.Output = tensor.NewDesc(tensor.Float16, m.Output.Sizes)
	})
	add("FLOAT64 input", "InputTensor.DataType", inv, func(m *ops.MaxPooling2) {
		m.Input = tensor.NewDesc(tensor.Float64, m.Input.Sizes)
		m.Output = tensor.NewDesc(tensor.Float64, m.Output.Sizes)
	})
	add("input size 0", "InputTensor.Sizes[2]", inv, func(m *ops.MaxPooling2) { m.Input.Sizes[2] = 0 })
	add("output size 0", "OutputTensor.Sizes[3]", inv, func(m *ops.MaxPooling2) { m.Output.Sizes[3] = 0 })
	add("input total too small", "InputTensor.TotalTensorSizeInBytes", inv, func(m *ops.MaxPooling2) { m.Input.TotalTensorSizeInBytes -= 4 })
	add("output owned by DML", "OutputTensor.Flags", inv, func(m *ops.MaxPooling2) { m.Output.Flags = tensor.FlagOwnedByDML })
	add("output aliasing", "OutputTensor.Strides", inv, func(m *ops.MaxPooling2) {
		m.Output = tensor.NewStridedDesc(tensor.Float32, m.Output.Sizes, []uint32{27, 9, 1, 1})
	})
	add("DimensionCount", "DimensionCount", inv, func(m *ops.MaxPooling2) { m.WindowSize = []uint32{1, 2, 2} })
	add("DimensionCount 0", "DimensionCount", inv, func(m *ops.MaxPooling2) { m.WindowSize = nil })
	add("Strides length", "Strides", inv, func(m *ops.MaxPooling2) { m.Strides = []uint32{2} })
	add("StartPadding length", "StartPadding", inv, func(m *ops.MaxPooling2) { m.StartPadding = []uint32{0, 0, 0} })
	add("EndPadding length", "EndPadding", inv, func(m *ops.MaxPooling2) { m.EndPadding = nil })
	add("Dilations length", "Dilations", inv, func(m *ops.MaxPooling2) { m.Dilations = []uint32{1} })
	add("Dilations absent", "Dilations", inv, func(m *ops.MaxPooling2) { m.Dilations = nil })
	add("stride 0", "Strides[1]", inv, func(m *ops.MaxPooling2) { m.Strides[1] = 0 })
	add("window 0", "WindowSize[0]", inv, func(m *ops.MaxPooling2) { m.WindowSize[0] = 0 })
	add("dilation 0", "Dilations[1]", inv, func(m *ops.MaxPooling2) { m.Dilations[1] = 0 })
	add("batch differs", "OutputTensor.Sizes[0]", inv, func(m *ops.MaxPooling2) {
		m.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 3, 3, 3})
	})
	add("channels differ", "OutputTensor.Sizes[1]", inv, func(m *ops.MaxPooling2) {
		m.Output = tensor.NewDesc(tensor.Float32, []uint32{2, 4, 3, 3})
	})
	add("INT32 indices", "OutputIndicesTensor.DataType", inv, func(m *ops.MaxPooling2) {
		d := tensor.NewDesc(tensor.Int32, m.Output.Sizes)
		m.OutputIndices = &d
	})
	add("INT64 indices", "OutputIndicesTensor.DataType", inv, func(m *ops.MaxPooling2) {
		d := tensor.NewDesc(tensor.Int64, m.Output.Sizes)
		m.OutputIndices = &d
	})
	add("indices sizes", "OutputIndicesTensor.Sizes[3]", inv, func(m *ops.MaxPooling2) {
		d := tensor.NewDesc(tensor.UInt32, []uint32{2, 3, 3, 4})
		m.OutputIndices = &d
	})
	add("indices rank", "OutputIndicesTensor.DimensionCount", inv, func(m *ops.MaxPooling2) {
		d := tensor.NewDesc(tensor.UInt32, []uint32{2, 3, 1, 3, 3})
		m.OutputIndices = &d
	})
	add("indices aliasing", "OutputIndicesTensor.Strides", inv, func(m *ops.MaxPooling2) {
		d := tensor.NewStridedDesc(tensor.UInt32, m.Output.Sizes, []uint32{9, 0, 3, 1})
		m.OutputIndices = &d
	})
	add("coordinates beyond 2^30", "StartPadding[0]", hresult.DXGI_ERROR_UNSUPPORTED, func(m *ops.MaxPooling2) { m.StartPadding[0] = 1 << 30 })
	add("dilated window beyond 2^30", "WindowSize[1]", hresult.DXGI_ERROR_UNSUPPORTED, func(m *ops.MaxPooling2) { m.Dilations[1] = 1 << 30 })
	// MAX_POOLING and MAX_POOLING1 share the rules.
	cases = append(cases,
		tc{"MAX_POOLING stride 0", &ops.MaxPooling{Input: goodPool2().Input, Output: goodPool2().Output,
			Strides: []uint32{0, 1}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}, inv, "Strides[0]"},
		tc{"MAX_POOLING DimensionCount", &ops.MaxPooling{Input: goodPool2().Input, Output: goodPool2().Output,
			Strides: []uint32{1, 1}, WindowSize: []uint32{2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}, inv, "DimensionCount"},
		tc{"MAX_POOLING1 indices type", &ops.MaxPooling1{Input: goodPool2().Input, Output: goodPool2().Output,
			OutputIndices: func() *tensor.Desc { d := tensor.NewDesc(tensor.UInt16, goodPool2().Output.Sizes); return &d }(),
			Strides:       []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}, inv, "OutputIndicesTensor.DataType"},
		tc{"MAX_POOLING1 EndPadding", &ops.MaxPooling1{Input: goodPool2().Input, Output: goodPool2().Output,
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0}}, inv, "EndPadding"},
	)

	return cases
}

// TestReduceDispatch: REDUCE runs ARGMAX and ARGMIN through the arg
// reduction (the same plan as the standalone operators, REDUCE's type
// tables aside), plans every float function, MULTIPLY's tree kernel
// included, and refuses undefined functions as invalid, in Validate,
// Plan and Reference alike.
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
	// Undefined functions are checked with a well-formed desc, whose
	// output keeps the input's type, so that only the function is left
	// to refuse; the float functions are accepted, MULTIPLY on its own
	// kernels (rule 42's tree).
	outF := tensor.NewDesc(tensor.Float32, []uint32{2, 3, 1})
	for _, f := range []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionSumSquare, ops.ReduceFunctionMultiply} {
		p := validPlan(t, ctx, &ops.Reduce{Function: f, Input: in, Output: outF, Axes: []uint32{2}}, fmt.Sprint(f))
		if fmul := strings.HasPrefix(p.Kernels[0].Variant, "reduce_fmul"); fmul != (f == ops.ReduceFunctionMultiply) {
			t.Errorf("%v plans %s", f, p.Kernels[0].Variant)
		}
	}
	for f, code := range map[ops.ReduceFunction]error{
		12: hresult.E_INVALIDARG, 1 << 31: hresult.E_INVALIDARG,
	} {
		r := &ops.Reduce{Function: f, Input: in, Output: outF, Axes: []uint32{2}}
		_, perr := r.Plan(ctx)
		rerr := r.Reference([]*tensor.Tensor{tensor.New(tensor.Float32, 2, 3, 64)}, []*tensor.Tensor{tensor.New(tensor.Float32, 2, 3, 1)})
		for what, err := range map[string]error{"Validate": r.Validate(ctx), "Plan": perr, "Reference": rerr} {
			var he *hresult.Error
			if !errors.Is(err, code) || !errors.As(err, &he) || he.Field != "Function" {
				t.Errorf("%v: %s returned %v, want %v on Function", f, what, err, code)
			}
		}
	}
}

// TestPoolRules runs poolRejectCases without a device (cgo-free): on a
// lavapipe-like context, validating and planning as CreateOperator does.
func TestPoolRules(t *testing.T) {
	ctx := descfuzz.Lavapipe()
	if p, err := goodPool2().Plan(ctx); err != nil || ops.CheckPlan(ctx, goodPool2(), p) != nil {
		t.Fatalf("the valid desc fails: %v", err)
	}
	for _, c := range poolRejectCases() {
		err := c.desc.Validate(ctx)
		if err == nil {
			_, err = c.desc.Plan(ctx)
		}
		he, ok := err.(*hresult.Error)
		if !ok || he.Code != c.code || he.Field != c.field || he.Rule == "" {
			t.Errorf("%s: got %v, want %v on %q with a rule", c.name, err, c.code.Name(), c.field)
		}
	}
}

// goodUnpool is a valid MAX_UNPOOLING of FLOAT32 [2,3,2,2] with UINT32
// indices into [2,3,4,4].
func goodUnpool() *ops.MaxUnpooling {
	return &ops.MaxUnpooling{
		Input:   tensor.NewDesc(tensor.Float32, []uint32{2, 3, 2, 2}),
		Indices: tensor.NewDesc(tensor.UInt32, []uint32{2, 3, 2, 2}),
		Output:  tensor.NewDesc(tensor.Float32, []uint32{2, 3, 4, 4}),
	}
}

// unpoolRule is a desc breaking one MAX_UNPOOLING rule and the error it
// must give.
type unpoolRule struct {
	name  string
	desc  *ops.MaxUnpooling
	ctx   *ops.Context // nil: descfuzz.Lavapipe()
	code  hresult.HRESULT
	field string
}

// unpoolRejectCases: one desc breaking each rule (semantics.md rule 22 and
// the buffer-tensor rules).
func unpoolRejectCases() []unpoolRule {
	var cases []unpoolRule
	add := func(name, field string, code hresult.HRESULT, ctx *ops.Context, f func(m *ops.MaxUnpooling)) {
		m := goodUnpool()
		f(m)
		cases = append(cases, unpoolRule{name, m, ctx, code, field})
	}
	inv := hresult.E_INVALIDARG
	at := func(l ops.FeatureLevel) *ops.Context {
		ctx := descfuzz.Lavapipe()
		ctx.FeatureLevel = l
		return ctx
	}
	nd := tensor.NewDesc
	add("input rank 3", "InputTensor.DimensionCount", inv, nil, func(m *ops.MaxUnpooling) { m.Input = nd(tensor.Float32, []uint32{3, 2, 2}) })
	add("input rank 5", "InputTensor.DimensionCount", inv, nil, func(m *ops.MaxUnpooling) { m.Input = nd(tensor.Float32, []uint32{1, 2, 3, 2, 2}) })
	add("indices rank 5", "IndicesTensor.DimensionCount", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.UInt32, []uint32{1, 2, 3, 2, 2}) })
	add("output rank 3", "OutputTensor.DimensionCount", inv, nil, func(m *ops.MaxUnpooling) { m.Output = nd(tensor.Float32, []uint32{6, 4, 4}) })
	add("output type differs", "OutputTensor.DataType", inv, nil, func(m *ops.MaxUnpooling) { m.Output = nd(tensor.Float16, m.Output.Sizes) })
	add("FLOAT64 values", "InputTensor.DataType", inv, nil, func(m *ops.MaxUnpooling) {
		m.Input, m.Output = nd(tensor.Float64, m.Input.Sizes), nd(tensor.Float64, m.Output.Sizes)
	})
	add("INT32 indices", "IndicesTensor.DataType", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.Int32, m.Indices.Sizes) })
	add("INT64 indices", "IndicesTensor.DataType", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.Int64, m.Indices.Sizes) })
	add("FLOAT32 indices", "IndicesTensor.DataType", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.Float32, m.Indices.Sizes) })
	add("indices sizes differ", "IndicesTensor.Sizes[3]", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.UInt32, []uint32{2, 3, 2, 1}) })
	add("indices batch differs", "IndicesTensor.Sizes[0]", inv, nil, func(m *ops.MaxUnpooling) { m.Indices = nd(tensor.UInt32, []uint32{1, 3, 2, 2}) })
	add("input size 0", "InputTensor.Sizes[2]", inv, nil, func(m *ops.MaxUnpooling) { m.Input.Sizes[2] = 0 })
	add("output size 0", "OutputTensor.Sizes[1]", inv, nil, func(m *ops.MaxUnpooling) { m.Output.Sizes[1] = 0 })
	add("indices total too small", "IndicesTensor.TotalTensorSizeInBytes", inv, nil, func(m *ops.MaxUnpooling) { m.Indices.TotalTensorSizeInBytes -= 4 })
	add("output owned by DML", "OutputTensor.Flags", inv, nil, func(m *ops.MaxUnpooling) { m.Output.Flags = tensor.FlagOwnedByDML })
	add("output aliasing", "OutputTensor.Strides", inv, nil, func(m *ops.MaxUnpooling) {
		m.Output = tensor.NewStridedDesc(tensor.Float32, m.Output.Sizes, []uint32{48, 16, 4, 0})
	})
	add("INT8 before FL 5.0", "InputTensor.DataType", inv, at(ops.FeatureLevel4_1), func(m *ops.MaxUnpooling) {
		m.Input, m.Output = nd(tensor.Int8, m.Input.Sizes), nd(tensor.Int8, m.Output.Sizes)
	})
	add("UINT64 indices before FL 5.0", "IndicesTensor.DataType", inv, at(ops.FeatureLevel4_1), func(m *ops.MaxUnpooling) {
		m.Indices = nd(tensor.UInt64, m.Indices.Sizes)
	})
	add("feature level 1.0", "", hresult.DXGI_ERROR_UNSUPPORTED, at(ops.FeatureLevel1_0), func(*ops.MaxUnpooling) {})
	return cases
}

// TestMaxUnpoolRules: each rule's failure carries its HRESULT and names
// its field, without a device; the valid desc, and its output of any
// sizes (rule 22), validate.
func TestMaxUnpoolRules(t *testing.T) {
	if err := goodUnpool().Validate(descfuzz.Lavapipe()); err != nil {
		t.Fatalf("the valid desc fails: %v", err)
	}
	for _, sizes := range [][]uint32{{1, 1, 1, 1}, {2, 3, 3, 3}, {5, 1, 7, 2}, {1, 1, 1, 100}} {
		m := goodUnpool()
		m.Output = tensor.NewDesc(tensor.Float32, sizes)
		if err := m.Validate(descfuzz.Lavapipe()); err != nil {
			t.Errorf("output %v: %v", sizes, err)
		}
	}
	for _, c := range unpoolRejectCases() {
		t.Run(c.name, func(t *testing.T) {
			ctx := c.ctx
			if ctx == nil {
				ctx = descfuzz.Lavapipe()
			}
			err := c.desc.Validate(ctx)
			var he *hresult.Error
			if !errors.As(err, &he) {
				t.Fatalf("got %v, want an *hresult.Error", err)
			}
			if he.Code != c.code || he.Field != c.field || he.Rule == "" {
				t.Fatalf("got %v (field %q), want %v on %q", err, he.Field, c.code.Name(), c.field)
			}
		})
	}
}

// TestMaxUnpoolPlanRefusals: a forced strategy it does not have, and a
// (batch, channel) plane of a tensor or of the temporary that one binding
// cannot cover (semantics.md, MAX_UNPOOLING's binding limit), are refused
// naming the tensor.
func TestMaxUnpoolPlanRefusals(t *testing.T) {
	ctx := descfuzz.Lavapipe()
	ctx.Kernel = "direct"
	if _, err := goodUnpool().Plan(ctx); !errors.Is(err, hresult.E_INVALIDARG) || !strings.Contains(err.Error(), "Kernel") {
		t.Errorf("forced kernel direct: %v", err)
	}
	for _, c := range []struct {
		name, field string
		m           func(m *ops.MaxUnpooling)
	}{
		{"input", "InputTensor", func(m *ops.MaxUnpooling) {
			m.Input = tensor.NewDesc(tensor.Float32, []uint32{1, 1, 8, 8})
			m.Indices = tensor.NewDesc(tensor.UInt32, []uint32{1, 1, 8, 8})
			m.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 1, 1, 1})
		}},
		{"indices", "IndicesTensor", func(m *ops.MaxUnpooling) {
			m.Input = tensor.NewDesc(tensor.UInt8, []uint32{1, 1, 6, 6})
			m.Indices = tensor.NewDesc(tensor.UInt64, []uint32{1, 1, 6, 6})
			m.Output = tensor.NewDesc(tensor.UInt8, []uint32{1, 1, 1, 1})
		}},
		{"output", "OutputTensor", func(m *ops.MaxUnpooling) {
			m.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 1, 9, 9})
		}},
		{"temporary", "OutputTensor.Sizes", func(m *ops.MaxUnpooling) {
			m.Input, m.Output = tensor.NewDesc(tensor.UInt8, m.Input.Sizes), tensor.NewDesc(tensor.UInt8, []uint32{1, 1, 8, 8})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := goodUnpool()
			c.m(m)
			ctx := descfuzz.Lavapipe()
			ctx.BindingWindowCap = 256 // 232 bytes of elements per binding
			if err := m.Validate(ctx); err != nil {
				t.Fatal(err)
			}
			_, err := m.Plan(ctx)
			var he *hresult.Error
			if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || he.Field != c.field {
				t.Fatalf("got %v, want DXGI_ERROR_UNSUPPORTED on %s", err, c.field)
			}
		})
	}
}

// TestMaxUnpoolWindowedPlans: tensors larger than a binding whose planes
// fit one are cut into chunks of planes (whole batches, else channels of
// one batch), one clear step per output chunk and a scatter and a gather
// step per (output chunk, input chunk) pair; every plan passes CheckPlan.
func TestMaxUnpoolWindowedPlans(t *testing.T) {
	for _, c := range []struct {
		name     string
		cap      uint64
		in, out  []uint32
		strategy string
	}{
		{"fits whole", 0, []uint32{2, 3, 2, 2}, []uint32{2, 3, 4, 4}, "scatter"},
		// 488 bytes of elements per binding: an output batch is 576, a plane
		// 144 (3 a step); the input (288) fits whole.
		{"output by channels, input whole", 512, []uint32{2, 4, 3, 3}, []uint32{2, 4, 6, 6}, "scatter-windows(4x1)"},
		// 1000 bytes per binding, 192 a batch: 5 batches a step.
		{"both by batches", 1024, []uint32{8, 3, 4, 4}, []uint32{8, 3, 4, 4}, "scatter-windows(2x2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &ops.MaxUnpooling{Input: tensor.NewDesc(tensor.Float32, c.in), Indices: tensor.NewDesc(tensor.UInt32, c.in),
				Output: tensor.NewDesc(tensor.Float32, c.out)}
			ctx := descfuzz.Lavapipe()
			ctx.BindingWindowCap = c.cap
			p, err := m.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p.Strategy != c.strategy {
				t.Errorf("strategy %s, want %s", p.Strategy, c.strategy)
			}
			if err := ops.CheckPlan(ctx, m, p); err != nil {
				t.Error(err)
			}
		})
	}
}

// unpoolFact is one case measured on the real DirectML 1.15.4.
type unpoolFact struct {
	name    string
	in      []float32
	inSizes []uint32
	idx     []uint64
	idxType tensor.DataType
	out     []uint32 // output sizes
	want    []float32
}

// unpoolFacts are semantics.md rules 17-22 as DirectML was seen to apply
// them, but for the UINT64 indices of 2^32 or more, which DirectML reads
// by their low words and vkdml, on purpose, as past the end (rule 19).
func unpoolFacts() []unpoolFact {
	return []unpoolFact{
		{"2x2 into 4x4, untouched elements 0", []float32{1, 2, 3, 4}, []uint32{1, 1, 2, 2}, []uint64{5, 7, 13, 15}, tensor.UInt32,
			[]uint32{1, 1, 4, 4}, []float32{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}},
		{"flat over N: both batches' index 0 write element 0, the second wins", []float32{7, 8}, []uint32{2, 1, 1, 1}, []uint64{0, 0}, tensor.UInt32,
			[]uint32{2, 1, 1, 2}, []float32{8, 0, 0, 0}},
		{"flat over C", []float32{1, 2, 3}, []uint32{1, 3, 1, 1}, []uint64{5, 4, 3}, tensor.UInt32,
			[]uint32{1, 3, 1, 2}, []float32{0, 0, 0, 3, 2, 1}},
		{"out of range skipped, 4e9 included", []float32{1, 2, 3, 4}, []uint32{1, 1, 2, 2}, []uint64{4, 4000000000, 0, 3}, tensor.UInt32,
			[]uint32{1, 1, 2, 2}, []float32{3, 0, 0, 4}},
		{"UINT64 of 2^32 or more past the end (vkdml's rule 19; DirectML wraps)", []float32{1, 2, 3, 4}, []uint32{1, 1, 2, 2}, []uint64{1 << 32, 1<<32 + 1, 1, 1<<63 + 2}, tensor.UInt64,
			[]uint32{1, 1, 2, 2}, []float32{0, 3, 0, 0}},
		{"duplicates: the last in row-major order wins", []float32{1, 2, 3, 4}, []uint32{1, 1, 2, 2}, []uint64{2, 2, 0, 2}, tensor.UInt32,
			[]uint32{1, 1, 3, 3}, []float32{3, 0, 4, 0, 0, 0, 0, 0, 0}},
		{"2x2 into 1x1", []float32{1, 2, 3, 4}, []uint32{1, 1, 2, 2}, []uint64{0, 1, 0, 2}, tensor.UInt32,
			[]uint32{1, 1, 1, 1}, []float32{3}},
	}
}

func (f unpoolFact) tensors() (*ops.MaxUnpooling, []*tensor.Tensor) {
	in := tensor.FromFloat64As(tensor.Float32, f.inSizes, f64s(f.in))
	idx := tensor.FromUint64As(f.idxType, f.inSizes, f.idx)
	return &ops.MaxUnpooling{Input: in.Desc, Indices: idx.Desc, Output: tensor.NewDesc(tensor.Float32, f.out)}, []*tensor.Tensor{in, idx}
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestMaxUnpoolReferenceFacts checks the CPU reference against what
// DirectML was seen to do.
func TestMaxUnpoolReferenceFacts(t *testing.T) {
	for _, f := range unpoolFacts() {
		t.Run(f.name, func(t *testing.T) {
			desc, ins := f.tensors()
			if err := desc.Validate(descfuzz.Lavapipe()); err != nil {
				t.Fatal(err)
			}
			out := tensor.New(tensor.Float32, f.out...)
			if err := desc.Reference(ins, []*tensor.Tensor{out}); err != nil {
				t.Fatal(err)
			}
			if got := out.Float64s(); !slices.Equal(got, f64s(f.want)) {
				t.Errorf("got %v, want %v", got, f.want)
			}
		})
	}
}
