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
		{"reduce function sum", &ops.Reduce{Function: ops.ReduceFunctionSum, Input: in, Output: in, Axes: []uint32{0}}, 0, hresult.DXGI_ERROR_UNSUPPORTED, "Function"},
		{"reduce function max", &ops.Reduce{Function: ops.ReduceFunctionMax, Input: in, Output: f32(1, 3, 4), Axes: []uint32{0}}, 0, hresult.DXGI_ERROR_UNSUPPORTED, "Function"},
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
		ctx := descfuzz.Lavapipe()
		if c.level != 0 {
			ctx.FeatureLevel = c.level
		}
		err := c.desc.Validate(ctx)
		if err == nil && c.level == 0 {
			var p *ops.Plan
			if p, err = c.desc.Plan(ctx); err == nil {
				err = ops.CheckPlan(ctx, c.desc, p)
			}
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
