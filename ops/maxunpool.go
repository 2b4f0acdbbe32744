package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// MaxUnpooling is DML_MAX_UNPOOLING_OPERATOR_DESC: the inverse of max
// pooling with indices. Every input element is written to the output
// element its index names, the index being flat over the whole logical
// output (N and C included, semantics.md rule 17); every other output
// element is 0 (rule 18). Out-of-range indices write nothing (rule 19); of
// several input elements with one index the last in row-major order wins
// (rule 20). The output's sizes are the caller's: DirectML checks none of
// them against the input (rule 21).
type MaxUnpooling struct {
	Input   tensor.Desc
	Indices tensor.Desc
	Output  tensor.Desc
}

// maxUnpoolLevel is the feature level MAX_UNPOOLING needs: DirectML's
// feature-level history lists it under 2.0 (its desc page says 3.0, but
// names no rule that differs; dml-semantics.md §2.1).
const maxUnpoolLevel = FeatureLevel2_0

// maxUnpoolRank is the one rank all three tensors have.
const maxUnpoolRank = 4

// OperatorType is "MAX_UNPOOLING".
func (*MaxUnpooling) OperatorType() string { return "MAX_UNPOOLING" }

// Inputs is [InputTensor, IndicesTensor].
func (o *MaxUnpooling) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input, &o.Indices} }

// Outputs is [OutputTensor].
func (o *MaxUnpooling) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// maxUnpoolTypes returns the value and index types of feature level l
// (dml-semantics.md §2.6): FLOAT32/FLOAT16 with UINT32 indices, and from
// FL 5.0 all ten types with UINT32 or UINT64 indices.
func maxUnpoolTypes(l FeatureLevel) (values, indices []tensor.DataType) {
	if l >= FeatureLevel5_0 {
		return tensor.AllTypes, []tensor.DataType{tensor.UInt32, tensor.UInt64}
	}
	return []tensor.DataType{tensor.Float32, tensor.Float16}, []tensor.DataType{tensor.UInt32}
}

// Validate applies dml-semantics.md §2.6 and semantics.md rules 21-22.
func (o *MaxUnpooling) Validate(ctx *Context) error {
	if err := requireLevel(ctx, "MAX_UNPOOLING", maxUnpoolLevel); err != nil {
		return err
	}
	if err := ValidateTensor("InputTensor", &o.Input, maxUnpoolRank, maxUnpoolRank, false); err != nil {
		return err
	}
	if err := ValidateTensor("IndicesTensor", &o.Indices, maxUnpoolRank, maxUnpoolRank, false); err != nil {
		return err
	}
	if err := ValidateTensor("OutputTensor", &o.Output, maxUnpoolRank, maxUnpoolRank, true); err != nil {
		return err
	}
	indices, err := checkValueTypes(ctx, &o.Input, &o.Output, maxUnpoolTypes)
	if err != nil {
		return err
	}
	if err := CheckType("IndicesTensor", o.Indices.DataType, indices); err != nil {
		return err
	}
	for i := range o.Input.Sizes {
		if o.Indices.Sizes[i] != o.Input.Sizes[i] {
			return hresult.InvalidArg(fmt.Sprintf("IndicesTensor.Sizes[%d]", i), "must equal InputTensor.Sizes[%d] = %d; got %d", i, o.Input.Sizes[i], o.Indices.Sizes[i])
		}
	}
	return nil
}

// Reference unpools on the CPU, from the rules: every output element 0,
// then the input elements in row-major order, each to the output element
// its index names when there is one (a later one overwrites an earlier).
func (o *MaxUnpooling) Reference(inputs, outputs []*tensor.Tensor) error {
	if len(inputs) != 2 || len(outputs) != 1 || inputs[0] == nil || inputs[1] == nil || outputs[0] == nil {
		return fmt.Errorf("maxunpool reference: want 2 inputs and 1 output")
	}
	in, idx, out := inputs[0], inputs[1], outputs[0]
	tensor.ForEachIndex(out.Desc.Sizes, func(c []uint32) { out.SetBits(c, 0) })
	total := out.Desc.ElementCount()
	oc := make([]uint32, len(out.Desc.Sizes))
	tensor.ForEachIndex(in.Desc.Sizes, func(c []uint32) {
		i := idx.Uint64At(c...)
		if i >= total {
			return
		}
		unflatten(i, out.Desc.Sizes, oc)
		out.SetBits(oc, in.Bits(c...))
	})
	return nil
}

// unflatten sets c to the coordinates of row-major position i of sizes.
func unflatten(i uint64, sizes, c []uint32) {
	for d := len(sizes) - 1; d >= 0; d-- {
		c[d] = uint32(i % uint64(sizes[d]))
		i /= uint64(sizes[d])
	}
}
