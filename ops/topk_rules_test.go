// TOP_K's device-free rule tests: validation, the strategies' refusals,
// and the reference on DirectML's measured cases.

package ops_test

import (
	"math"
	"slices"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

func topKRuleDesc(dt, idx tensor.DataType, in []uint32, axis, k uint32) *ops.TopK1 {
	out := slices.Clone(in)
	out[axis] = k
	return &ops.TopK1{Input: tensor.NewDesc(dt, in), OutputValue: tensor.NewDesc(dt, out), OutputIndex: tensor.NewDesc(idx, out), Axis: axis, K: k,
		AxisDirection: ops.AxisDirectionDecreasing}
}

// topKRuleCases: descs breaking each TOP_K rule, and descs at each rule's
// edge that must pass (code nil).
func topKRuleCases() []argRule {
	f32, u32 := tensor.Float32, tensor.UInt32
	d := func(mod func(o *ops.TopK1)) *ops.TopK1 {
		o := topKRuleDesc(f32, u32, []uint32{2, 5}, 1, 3)
		mod(o)
		return o
	}
	old := func(o *ops.TopK1) *ops.TopK {
		return &ops.TopK{Input: o.Input, OutputValue: o.OutputValue, OutputIndex: o.OutputIndex, Axis: o.Axis, K: o.K}
	}
	return []argRule{
		{"K larger than the axis", topKRuleDesc(f32, u32, []uint32{2, 5}, 1, 6), 0, hresult.E_INVALIDARG, "K"},
		{"K = 0", topKRuleDesc(f32, u32, []uint32{2, 5}, 1, 0), 0, hresult.E_INVALIDARG, "K"},
		{"axis out of range", d(func(o *ops.TopK1) { o.Axis = 2 }), 0, hresult.E_INVALIDARG, "Axis"},
		{"INT32 indices", topKRuleDesc(f32, tensor.Int32, []uint32{2, 5}, 1, 3), 0, hresult.E_INVALIDARG, "OutputIndexTensor.DataType"},
		{"INT64 indices", topKRuleDesc(f32, tensor.Int64, []uint32{2, 5}, 1, 3), 0, hresult.E_INVALIDARG, "OutputIndexTensor.DataType"},
		{"FLOAT64 input", topKRuleDesc(tensor.Float64, u32, []uint32{2, 5}, 1, 3), 0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"values type", d(func(o *ops.TopK1) {
			o.OutputValue.DataType = tensor.Float16
			o.OutputValue = tensor.NewDesc(tensor.Float16, o.OutputValue.Sizes)
		}), 0, hresult.E_INVALIDARG, "OutputValueTensor.DataType"},
		{"values axis size", d(func(o *ops.TopK1) { o.OutputValue = tensor.NewDesc(f32, []uint32{2, 4}) }), 0, hresult.E_INVALIDARG, "OutputValueTensor.Sizes[1]"},
		{"indices other size", d(func(o *ops.TopK1) { o.OutputIndex = tensor.NewDesc(u32, []uint32{3, 3}) }), 0, hresult.E_INVALIDARG, "OutputIndexTensor.Sizes[0]"},
		{"indices rank", d(func(o *ops.TopK1) { o.OutputIndex = tensor.NewDesc(u32, []uint32{2, 3, 1}) }), 0, hresult.E_INVALIDARG, "OutputIndexTensor.DimensionCount"},
		{"direction", d(func(o *ops.TopK1) { o.AxisDirection = 2 }), 0, hresult.E_INVALIDARG, "AxisDirection"},
		{"rank 9", topKRuleDesc(f32, u32, []uint32{1, 1, 1, 1, 1, 1, 1, 1, 2}, 8, 1), 0, hresult.E_INVALIDARG, "InputTensor.DimensionCount"},
		// Feature levels.
		{"TOP_K1 at 2.0", d(func(*ops.TopK1) {}), ops.FeatureLevel2_0, hresult.DXGI_ERROR_UNSUPPORTED, ""},
		{"2D at 3.0", d(func(*ops.TopK1) {}), ops.FeatureLevel3_0, hresult.E_INVALIDARG, "InputTensor.DimensionCount"},
		{"INT8 TOP_K at 1.0", old(topKRuleDesc(tensor.Int8, u32, []uint32{1, 1, 2, 5}, 3, 3)), ops.FeatureLevel1_0, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"INT64 at 4.1", topKRuleDesc(tensor.Int64, u32, []uint32{2, 5}, 1, 3), ops.FeatureLevel4_1, hresult.E_INVALIDARG, "InputTensor.DataType"},
		{"UINT64 indices at 4.1", topKRuleDesc(f32, tensor.UInt64, []uint32{2, 5}, 1, 3), ops.FeatureLevel4_1, hresult.E_INVALIDARG, "OutputIndexTensor.DataType"},
		// Accepted at the edges.
		{"K = the axis size", topKRuleDesc(f32, u32, []uint32{2, 5}, 1, 5), 0, nil, ""},
		{"TOP_K FLOAT16 4D at 1.0", old(topKRuleDesc(tensor.Float16, u32, []uint32{1, 2, 3, 5}, 3, 1)), ops.FeatureLevel1_0, nil, ""},
		{"INT8 4D at 2.1", topKRuleDesc(tensor.Int8, u32, []uint32{1, 2, 3, 5}, 0, 1), ops.FeatureLevel2_1, nil, ""},
		{"1D at 3.1", topKRuleDesc(tensor.UInt16, u32, []uint32{7}, 0, 7), ops.FeatureLevel3_1, nil, ""},
		{"UINT64 values and indices at 5.0", topKRuleDesc(tensor.UInt64, tensor.UInt64, []uint32{2, 5}, 0, 2), ops.FeatureLevel5_0, nil, ""},
		{"8D", topKRuleDesc(f32, u32, []uint32{1, 2, 1, 2, 1, 2, 1, 9}, 7, 4), 0, nil, ""},
	}
}

// validateAndPlan validates c's desc on a lavapipe-like context at c's
// level and, at the device's level (0), plans it and checks the plan, as
// CreateOperator does.
func validateAndPlan(c argRule) error {
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
	return err
}

// TestTopKRules validates (and, at the device's level, plans and checks)
// every case on a lavapipe-like context.
func TestTopKRules(t *testing.T) {
	for _, c := range topKRuleCases() {
		err := validateAndPlan(c)
		if c.code == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if c.field == "" {
			if err == nil || hresult.Code(err) != hresult.Code(c.code) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.code)
			}
			continue
		}
		checkRefusal(t, c, err)
	}
}

// TestTopKStrategyRefusals: an unknown strategy is E_INVALIDARG on
// Kernel; a list strategy forced with K above 16 is unsupported, filter
// above 1024, radix above 2048, maxima beyond its bounds (K above 256,
// or 64-bit rows).
func TestTopKStrategyRefusals(t *testing.T) {
	for _, c := range []struct {
		kernel string
		code   error
		k      uint32
	}{{"bogus", hresult.E_INVALIDARG, 17}, {ops.TopKStrategyThread, hresult.DXGI_ERROR_UNSUPPORTED, 17},
		{ops.TopKStrategyLane, hresult.DXGI_ERROR_UNSUPPORTED, 17}, {ops.TopKStrategyFilter, hresult.DXGI_ERROR_UNSUPPORTED, 1025},
		{ops.TopKStrategyRadix, hresult.DXGI_ERROR_UNSUPPORTED, 2049}, {ops.TopKStrategyMaxima, hresult.DXGI_ERROR_UNSUPPORTED, 257}} {
		ctx := descfuzz.Lavapipe()
		ctx.Kernel = c.kernel
		_, err := topKRuleDesc(tensor.Float32, tensor.UInt32, []uint32{4, 2000}, 1, c.k).Plan(ctx)
		checkRefusal(t, argRule{name: "kernel " + c.kernel, code: c.code, field: "Kernel"}, err)
	}
	// Radix ranks with at least 64 lanes: a device of 32 refuses it
	// forced and plans another strategy by default.
	narrow := descfuzz.Lavapipe()
	narrow.Limits.MaxComputeWorkGroupInvocations = 32
	long := topKRuleDesc(tensor.Float32, tensor.UInt32, []uint32{4, 5000}, 1, 100)
	if p, err := long.Plan(narrow); err != nil || p.Strategy == ops.TopKStrategyRadix {
		t.Errorf("32-lane device, default: %v (plan %v)", err, p)
	}
	narrow.Kernel = ops.TopKStrategyRadix
	_, err := long.Plan(narrow)
	checkRefusal(t, argRule{name: "radix on 32 lanes", code: hresult.DXGI_ERROR_UNSUPPORTED, field: "Kernel"}, err)
	wide := topKRuleDesc(tensor.Int64, tensor.UInt32, []uint32{4, 5000}, 1, 16)
	narrow = descfuzz.Lavapipe()
	narrow.Kernel = ops.TopKStrategyMaxima
	_, err = wide.Plan(narrow)
	checkRefusal(t, argRule{name: "maxima on INT64", code: hresult.DXGI_ERROR_UNSUPPORTED, field: "Kernel"}, err)
	for _, k := range ops.TopKStrategies {
		ctx := descfuzz.Lavapipe()
		ctx.Kernel = k
		// (Maxima needs K groups of at least a vector: 64 positions.)
		small := topKRuleDesc(tensor.Float32, tensor.UInt32, []uint32{4, 100}, 1, 16)
		p, err := small.Plan(ctx)
		if err == nil {
			err = ops.CheckPlan(ctx, small, p)
		}
		if err != nil || p.Strategy != k {
			t.Errorf("forced %s: %v (plan %v)", k, err, p)
		}
	}
}

// TestTopKReferenceMeasured pins the reference to DirectML's measured
// cases (issue 31) and to the rules where vkdml differs from DirectML
// (semantics.md rules 33 and 38-39): values' bits and indices.
func TestTopKReferenceMeasured(t *testing.T) {
	nan := float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	payload := math.Float32frombits(0x7fc00123)
	cases := []struct {
		name  string
		v     []float32
		k     uint32
		dir   ops.AxisDirection
		vals  []uint32 // bits
		index []uint64
	}{
		{"ties to the lower index, decreasing", []float32{3, 1, 3, 2, 3}, 2, ops.AxisDirectionDecreasing, []uint32{0x40400000, 0x40400000}, []uint64{0, 2}},
		{"ties to the lower index, increasing", []float32{3, 1, 3, 1, 3}, 3, ops.AxisDirectionIncreasing, []uint32{0x3f800000, 0x3f800000, 0x40400000}, []uint64{1, 3, 0}},
		{"NaN skipped, decreasing", []float32{1, nan, 3, 2}, 2, ops.AxisDirectionDecreasing, []uint32{0x40400000, 0x40000000}, []uint64{2, 3}},
		{"NaN first skipped", []float32{nan, 1, 3, 2}, 2, ops.AxisDirectionDecreasing, []uint32{0x40400000, 0x40000000}, []uint64{2, 3}},
		{"NaN skipped, increasing", []float32{nan, 1, 3, 2}, 2, ops.AxisDirectionIncreasing, []uint32{0x3f800000, 0x40000000}, []uint64{1, 3}},
		{"DirectML's defect case", []float32{1, nan, 3, 2}, 2, ops.AxisDirectionIncreasing, []uint32{0x3f800000, 0x40000000}, []uint64{0, 3}},
		{"K past the numbers: lowest-indexed NaN, bits kept", []float32{payload, 2, nan, 1}, 3, ops.AxisDirectionDecreasing, []uint32{0x40000000, 0x3f800000, 0x7fc00123}, []uint64{1, 3, 0}},
		{"signed zeros tie, bits kept", []float32{0, negz, -1, negz}, 3, ops.AxisDirectionIncreasing, []uint32{0xbf800000, 0, 0x80000000}, []uint64{2, 0, 1}},
		{"full sort", []float32{2, 0, 1}, 3, ops.AxisDirectionDecreasing, []uint32{0x40000000, 0x3f800000, 0}, []uint64{0, 2, 1}},
	}
	for _, c := range cases {
		in := tensor.FromFloat32([]uint32{uint32(len(c.v))}, c.v)
		desc := topKRuleDesc(tensor.Float32, tensor.UInt32, []uint32{uint32(len(c.v))}, 0, c.k)
		desc.AxisDirection = c.dir
		vals, idx := tensor.New(tensor.Float32, c.k), tensor.New(tensor.UInt32, c.k)
		if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{vals, idx}); err != nil {
			t.Fatal(err)
		}
		var bits []uint32
		for i := range c.k {
			bits = append(bits, uint32(vals.Bits(i)))
		}
		if !slices.Equal(bits, c.vals) || !slices.Equal(idx.Uint64s(), c.index) {
			t.Errorf("%s: values %#x indices %v; want %#x %v", c.name, bits, idx.Uint64s(), c.vals, c.index)
		}
	}
}
