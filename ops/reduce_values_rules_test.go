// The device-free rule tests of REDUCE's value functions: the reference
// against hand-worked examples, and what Validate accepts and refuses at
// each feature level.

package ops_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// reduceExample is one block of raw element bits and the function's
// result: the (DirectML's, measured) rules and hand-worked
// wrap-around.
type reduceExample struct {
	name string
	fn   ops.ReduceFunction
	dt   tensor.DataType
	v    []uint64
	want uint64
}

func (c reduceExample) input() *tensor.Tensor {
	in := tensor.New(c.dt, uint32(len(c.v)))
	for i, b := range c.v {
		in.SetBits([]uint32{uint32(i)}, b)
	}
	return in
}

const (
	f32NaN, f32NaNNeg, f32One, f32Three = 0x7fc00000, 0xffc00000, 0x3f800000, 0x40400000
	f32NegZero, f32Inf, f32NegInf       = 0x80000000, 0x7f800000, 0xff800000
	f16NaN, f16One                      = 0x7e00, 0x3c00
)

var (
	rMax, rMin, rSum = ops.ReduceFunctionMax, ops.ReduceFunctionMin, ops.ReduceFunctionSum
	rMul, rL1, rSq   = ops.ReduceFunctionMultiply, ops.ReduceFunctionL1, ops.ReduceFunctionSumSquare
)

var reduceExamples = []reduceExample{
	{"NaN first is ignored", rMax, tensor.Float32, []uint64{f32NaN, f32One, f32Three}, f32Three},
	{"NaN inside is ignored", rMax, tensor.Float32, []uint64{f32One, f32NaN, f32Three}, f32Three},
	{"NaN last is ignored", rMax, tensor.Float32, []uint64{f32One, f32Three, f32NaN}, f32Three},
	{"NaN first is ignored (MIN)", rMin, tensor.Float32, []uint64{f32NaN, f32Three, f32One}, f32One},
	{"NaN last is ignored (MIN)", rMin, tensor.Float32, []uint64{f32Three, f32One, f32NaN}, f32One},
	{"MAX(-0, +0) = +0", rMax, tensor.Float32, []uint64{f32NegZero, 0}, 0},
	{"MAX(+0, -0) = -0", rMax, tensor.Float32, []uint64{0, f32NegZero}, f32NegZero},
	{"MIN(-0, +0) = +0", rMin, tensor.Float32, []uint64{f32NegZero, 0}, 0},
	{"MIN(+0, -0) = -0", rMin, tensor.Float32, []uint64{0, f32NegZero}, f32NegZero},
	{"-inf is a value", rMax, tensor.Float32, []uint64{f32NegInf, f32NegInf}, f32NegInf},
	{"+inf is a value (MIN)", rMin, tensor.Float32, []uint64{f32Inf, f32NaN, f32Inf}, f32Inf},
	{"all NaN gives -inf (measured)", rMax, tensor.Float32, []uint64{f32NaN, f32NaNNeg}, f32NegInf},
	{"all NaN gives +inf (MIN, measured)", rMin, tensor.Float32, []uint64{f32NaNNeg, f32NaN}, f32Inf},
	{"all NaN gives -inf (FLOAT16, measured)", rMax, tensor.Float16, []uint64{f16NaN}, 0xfc00},
	{"FLOAT16 NaN is ignored", rMax, tensor.Float16, []uint64{f16NaN, f16One}, f16One},
	{"INT8 extremes", rMax, tensor.Int8, []uint64{0x80, 0x7f, 0}, 0x7f},
	{"INT16 -1 < 1", rMin, tensor.Int16, []uint64{1, 0xffff}, 0xffff},
	{"INT64 MAX", rMax, tensor.Int64, []uint64{^uint64(4), ^uint64(6)}, ^uint64(4)},
	{"UINT64 MIN", rMin, tensor.UInt64, []uint64{^uint64(0), 0, 1 << 63}, 0},
	{"SUM INT32 wraps", rSum, tensor.Int32, []uint64{2147483647, 1}, 0x80000000},
	{"SUM UINT32 wraps", rSum, tensor.UInt32, []uint64{4294967295, 2}, 1},
	{"SUM INT64 wraps", rSum, tensor.Int64, []uint64{1 << 62, 1 << 62}, 1 << 63},
	{"SUM INT64 negative", rSum, tensor.Int64, []uint64{^uint64(0), ^uint64(0)}, ^uint64(1)},
	{"MULTIPLY INT32 wraps", rMul, tensor.Int32, []uint64{65536, 65536, 3}, 0},
	{"MULTIPLY UINT64 wraps", rMul, tensor.UInt64, []uint64{1<<32 + 1, 1<<32 + 1}, 1<<33 + 1},
	{"MULTIPLY INT64 signs", rMul, tensor.Int64, []uint64{^uint64(2), 5}, ^uint64(14)},
	{"L1 INT32", rL1, tensor.Int32, []uint64{0xfffffffd, 4}, 7},
	{"L1 |INT32_MIN| wraps (unmeasured)", rL1, tensor.Int32, []uint64{0x80000000}, 0x80000000},
	{"L1 |INT64_MIN| + 1 (unmeasured)", rL1, tensor.Int64, []uint64{1 << 63, 1}, 1<<63 + 1},
	{"L1 UINT32 is the sum", rL1, tensor.UInt32, []uint64{0xfffffffd, 4}, 1},
	{"SUM_SQUARE INT32", rSq, tensor.Int32, []uint64{0xfffffffd, 4}, 25},
	{"SUM_SQUARE INT32 wraps (unmeasured)", rSq, tensor.Int32, []uint64{65536, 3}, 9},
	{"SUM_SQUARE INT64 3e9", rSq, tensor.Int64, []uint64{3000000000}, 9000000000000000000},
	{"SUM_SQUARE UINT64 wraps", rSq, tensor.UInt64, []uint64{1 << 32, 2}, 4},
}

// TestReduceValueReference pins the CPU oracle to the rules by the
// examples (the GPU is then checked against the oracle).
func TestReduceValueReference(t *testing.T) {
	for _, c := range reduceExamples {
		in := c.input()
		desc := &ops.Reduce{Function: c.fn, Input: in.Desc, Output: tensor.NewDesc(c.dt, []uint32{1}), Axes: []uint32{0}}
		out := tensor.New(c.dt, 1)
		if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{out}); err != nil {
			t.Fatal(err)
		}
		if got := out.Bits(0); got != c.want {
			t.Errorf("%s: %v(%#x) = %#x, want %#x", c.name, c.fn, c.v, got, c.want)
		}
	}
}

// TestReduceValueValidate: each function's types at each feature level
// (E_INVALIDARG outside DirectML's tables), equal input and output types,
// the rank at levels before 3.0, and DXGI_ERROR_UNSUPPORTED for what
// DirectML has and vkdml does not yet (MULTIPLY of floats).
func TestReduceValueValidate(t *testing.T) {
	bad, unsup := hresult.E_INVALIDARG, hresult.DXGI_ERROR_UNSUPPORTED
	cases := []struct {
		fn   ops.ReduceFunction
		lvl  ops.FeatureLevel
		dt   tensor.DataType
		rank int
		out  tensor.DataType // 0: dt
		want error
	}{
		{rMax, ops.FeatureLevel5_0, tensor.Int64, 3, 0, nil},
		{rMin, ops.FeatureLevel5_0, tensor.UInt8, 8, 0, nil},
		{rSum, ops.FeatureLevel5_0, tensor.UInt64, 2, 0, nil},
		{rSq, ops.FeatureLevel5_0, tensor.Int32, 1, 0, nil},
		{rSum, ops.FeatureLevel5_0, tensor.Int8, 2, 0, bad},
		{rL1, ops.FeatureLevel5_0, tensor.Int16, 2, 0, bad},
		{rSum, ops.FeatureLevel5_0, tensor.Float32, 2, 0, nil}, // exact (issue 32)
		{rMul, ops.FeatureLevel5_0, tensor.Float16, 2, 0, unsup},
		{ops.ReduceFunctionAverage, ops.FeatureLevel5_0, tensor.Int32, 2, 0, bad}, // measured
		{ops.ReduceFunctionAverage, ops.FeatureLevel5_0, tensor.Float16, 2, 0, nil},
		{ops.ReduceFunctionLogSumExp, ops.FeatureLevel5_0, tensor.UInt64, 2, 0, bad},
		{ops.ReduceFunctionL2, ops.FeatureLevel5_0, tensor.Float16, 2, tensor.Float32, bad},
		{rMax, ops.FeatureLevel5_0, tensor.Int32, 2, tensor.Int64, bad},
		{rSum, ops.FeatureLevel5_0, tensor.UInt32, 2, tensor.Int32, bad},
		{rMax, ops.FeatureLevel4_1, tensor.Int64, 2, 0, bad},
		{rMax, ops.FeatureLevel3_0, tensor.Int8, 5, 0, nil},
		{rSum, ops.FeatureLevel3_0, tensor.Int32, 2, 0, nil},
		{rSum, ops.FeatureLevel4_1, tensor.Int64, 2, 0, bad},
		{rL1, ops.FeatureLevel4_1, tensor.Int32, 2, 0, bad},
		{rMul, ops.FeatureLevel2_1, tensor.UInt32, 4, 0, nil},
		{rMax, ops.FeatureLevel2_1, tensor.Int32, 3, 0, bad},
		{rMax, ops.FeatureLevel2_1, tensor.Int8, 4, 0, bad},
		{rMax, ops.FeatureLevel1_0, tensor.Float16, 4, 0, nil},
		{rMax, ops.FeatureLevel1_0, tensor.Int32, 4, 0, bad},
	}
	for _, c := range cases {
		sizes := make([]uint32, c.rank)
		for i := range sizes {
			sizes[i] = uint32(2 + i%3)
		}
		out := c.out
		if out == 0 {
			out = c.dt
		}
		desc := &ops.Reduce{Function: c.fn, Input: tensor.NewDesc(c.dt, sizes), Output: tensor.NewDesc(out, argOutSizes(sizes, []uint32{0})), Axes: []uint32{0}}
		err := desc.Validate(&ops.Context{FeatureLevel: c.lvl})
		what := fmt.Sprintf("%v %v rank %d -> %v at %v", c.fn, c.dt, c.rank, out, c.lvl)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v, want accepted", what, err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: %v, want %v", what, err, c.want)
		}
	}
}
