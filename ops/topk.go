package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// TopK is DML_TOP_K_OPERATOR_DESC (feature level 1.0): along Axis, the K
// largest elements of each sequence sorted descending, their values in
// OutputValue and their indices (counted from the start of the axis) in
// OutputIndex. It is TopK1 with AxisDirection DECREASING. See
// semantics.md rules 31-37 for the order, tie, NaN, signed-zero and K
// rules vkdml follows.
type TopK struct {
	Input       tensor.Desc
	OutputValue tensor.Desc
	OutputIndex tensor.Desc
	Axis        uint32
	K           uint32
}

// TopK1 is DML_TOP_K1_OPERATOR_DESC (feature level 2.1): TopK with a
// direction. DECREASING selects the K largest, sorted descending;
// INCREASING the K smallest, sorted ascending.
type TopK1 struct {
	Input         tensor.Desc
	OutputValue   tensor.Desc
	OutputIndex   tensor.Desc
	Axis          uint32
	K             uint32
	AxisDirection AxisDirection
}

// OperatorType is "TOP_K".
func (*TopK) OperatorType() string { return "TOP_K" }

// OperatorType is "TOP_K1".
func (*TopK1) OperatorType() string { return "TOP_K1" }

// Inputs is [InputTensor].
func (o *TopK) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputValueTensor, OutputIndexTensor].
func (o *TopK) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.OutputValue, &o.OutputIndex} }

// Inputs is [InputTensor].
func (o *TopK1) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs is [OutputValueTensor, OutputIndexTensor].
func (o *TopK1) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.OutputValue, &o.OutputIndex} }

// topKOp is what the two descs have in common.
type topKOp struct {
	typ         string
	level       FeatureLevel // the level the desc was introduced at
	in, vals    *tensor.Desc
	idx         *tensor.Desc
	axis, k     uint32
	dir         AxisDirection
	hasDirField bool
}

func (o *TopK) op() *topKOp {
	return &topKOp{typ: "TOP_K", level: FeatureLevel1_0, in: &o.Input, vals: &o.OutputValue, idx: &o.OutputIndex,
		axis: o.Axis, k: o.K, dir: AxisDirectionDecreasing}
}

func (o *TopK1) op() *topKOp {
	return &topKOp{typ: "TOP_K1", level: FeatureLevel2_1, in: &o.Input, vals: &o.OutputValue, idx: &o.OutputIndex,
		axis: o.Axis, k: o.K, dir: o.AxisDirection, hasDirField: true}
}

// Validate applies DirectML's rules and semantics.md rules 31 and 37.
func (o *TopK) Validate(ctx *Context) error { return o.op().validate(ctx) }

// Validate applies DirectML's rules and semantics.md rules 31 and 37.
func (o *TopK1) Validate(ctx *Context) error { return o.op().validate(ctx) }

// Plan chooses the kernels and steps (topk_plan.go).
func (o *TopK) Plan(ctx *Context) (*Plan, error) { return o.op().plan(ctx) }

// Plan chooses the kernels and steps (topk_plan.go).
func (o *TopK1) Plan(ctx *Context) (*Plan, error) { return o.op().plan(ctx) }

// Reference selects on the CPU (topk_ref.go).
func (o *TopK) Reference(inputs, outputs []*tensor.Tensor) error {
	return o.op().reference(inputs, outputs)
}

// Reference selects on the CPU (topk_ref.go).
func (o *TopK1) Reference(inputs, outputs []*tensor.Tensor) error {
	return o.op().reference(inputs, outputs)
}

// topKTypes returns the value and index types of feature level l
// (DirectML's TOP_K and TOP_K1 pages): FLOAT32 and FLOAT16 with UINT32
// indices at 1.0 (TOP_K); from 2.1 the 8-, 16- and 32-bit integers too;
// from 5.0 INT64 and UINT64 values and UINT64 indices.
func topKTypes(l FeatureLevel) (values, indices []tensor.DataType) {
	switch {
	case l >= FeatureLevel5_0:
		return append(append([]tensor.DataType(nil), argInputTypes30...), tensor.Int64, tensor.UInt64),
			[]tensor.DataType{tensor.UInt32, tensor.UInt64}
	case l >= FeatureLevel2_1:
		return argInputTypes30, []tensor.DataType{tensor.UInt32}
	}
	return []tensor.DataType{tensor.Float32, tensor.Float16}, []tensor.DataType{tensor.UInt32}
}

// topKRanks is the rank range at feature level l: 4D only before 3.1
// (DirectML's pages), 1 to 8 dimensions from 3.1.
func topKRanks(l FeatureLevel) (lo, hi int) {
	if l >= FeatureLevel3_1 {
		return 1, 8
	}
	return 4, 4
}

// validate applies every rule of DirectML's pages and semantics.md rules
// 31 and 37: the types and ranks of the feature level, one rank for all
// three tensors, the outputs' sizes the input's but K along Axis, K at
// most the axis size (K equal to it is a full sort, which DirectML
// accepts although its page says "less than"), K = 0 refused.
func (t *topKOp) validate(ctx *Context) error {
	if err := requireLevel(ctx, t.typ, t.level); err != nil {
		return err
	}
	level := ctx.FeatureLevel
	if level == 0 {
		level = FeatureLevels[len(FeatureLevels)-1]
	}
	if t.hasDirField && t.dir != AxisDirectionIncreasing && t.dir != AxisDirectionDecreasing {
		return hresult.InvalidArg("AxisDirection", "%d is not a DML_AXIS_DIRECTION (INCREASING = 0, DECREASING = 1)", uint32(t.dir))
	}
	lo, hi := topKRanks(level)
	if err := ValidateTensor("InputTensor", t.in, lo, hi, false); err != nil {
		return err
	}
	rank := t.in.Rank()
	if t.axis >= uint32(rank) {
		return hresult.InvalidArg("Axis", "%d is not in [0, InputTensor.DimensionCount-1] = [0,%d]", t.axis, rank-1)
	}
	n := t.in.Sizes[t.axis]
	switch {
	case t.k == 0:
		// DirectML's pages give no lower bound, and K = 0 makes outputs
		// with a size of 0, which no tensor may have; vkdml names K
		// (semantics.md rule 37).
		return hresult.InvalidArg("K", "must be at least 1")
	case t.k > n:
		return hresult.InvalidArg("K", "%d is larger than InputTensor.Sizes[%d] = %d, the length of the axis it selects from", t.k, t.axis, n)
	}
	outputs := []struct {
		field string
		d     *tensor.Desc
	}{{"OutputValueTensor", t.vals}, {"OutputIndexTensor", t.idx}}
	for _, c := range outputs {
		if err := ValidateTensor(c.field, c.d, lo, hi, true); err != nil {
			return err
		}
	}
	values, indices := topKTypes(level)
	if CheckType("InputTensor", t.in.DataType, values) != nil {
		return hresult.InvalidArg("InputTensor.DataType", "%v is not supported by %s at feature level %v (supported: %v)", t.in.DataType, t.typ, level, values)
	}
	if t.vals.DataType != t.in.DataType {
		return hresult.InvalidArg("OutputValueTensor.DataType", "%v must equal InputTensor.DataType %v", t.vals.DataType, t.in.DataType)
	}
	if CheckType("OutputIndexTensor", t.idx.DataType, indices) != nil {
		return hresult.InvalidArg("OutputIndexTensor.DataType", "%v is not supported by %s at feature level %v (supported: %v; DirectML refuses signed indices)", t.idx.DataType, t.typ, level, indices)
	}
	for _, c := range outputs {
		if c.d.Rank() != rank {
			return hresult.InvalidArg(c.field+".DimensionCount", "%d must equal InputTensor.DimensionCount %d", c.d.Rank(), rank)
		}
		for i := 0; i < rank; i++ {
			want := t.in.Sizes[i]
			if uint32(i) == t.axis {
				want = t.k
			}
			if c.d.Sizes[i] == want {
				continue
			}
			if uint32(i) == t.axis {
				return hresult.InvalidArg(fmt.Sprintf("%s.Sizes[%d]", c.field, i), "is %d; along Axis %d it must be K = %d", c.d.Sizes[i], i, t.k)
			}
			return hresult.InvalidArg(fmt.Sprintf("%s.Sizes[%d]", c.field, i), "is %d but must equal InputTensor.Sizes[%d] = %d", c.d.Sizes[i], i, want)
		}
	}
	return nil
}
