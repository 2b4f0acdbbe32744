package ops_test

import (
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

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

// TestMaxPoolBindingOrder: MAX_POOLING1/2 outputs are [Output, Indices],
// nil when the indices are absent.
func TestMaxPoolBindingOrder(t *testing.T) {
	m := goodPool2()
	if outs := m.Outputs(); len(outs) != 2 || outs[0] != &m.Output || outs[1] != m.OutputIndices {
		t.Errorf("MAX_POOLING2 outputs %v", outs)
	}
	m1 := &ops.MaxPooling1{}
	if outs := m1.Outputs(); len(outs) != 2 || outs[1] != nil {
		t.Errorf("MAX_POOLING1 without indices: outputs %v", outs)
	}
	if outs := (&ops.MaxPooling{}).Outputs(); len(outs) != 1 {
		t.Errorf("MAX_POOLING outputs %v", outs)
	}
}
