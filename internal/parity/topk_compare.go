package parity

import (
	"github.com/vkdml/vkdml/tensor"
)

// TopKIncreasingNaNReason explains a TOP_K1 INCREASING difference on an
// input that holds a NaN (semantics.md rule 38).
const TopKIncreasingNaNReason = "semantics.md rule 38: DirectML 1.15.4's TOP_K1 with INCREASING misorders a sequence that holds a NaN (measured: [1,NaN,3,2] K=1 gives [2] at [3], K=2 [2,3] at [3,2], K=3 [2,3,NaN] at [3,2,1]; [1,3,2,NaN] K=2 gives [NaN,1] at [3,0]; FLOAT16 alike), while [NaN,1,3,2] and every DECREASING case come out right; vkdml follows rules 33-36 in both directions: the smallest numbers first, NaN after every number"

// TopKNaNChoiceReason explains a TOP_K difference confined to which NaNs
// fill the places past the numbers (semantics.md rule 36).
const TopKNaNChoiceReason = "semantics.md rule 36: when K exceeds the count of numbers in a sequence, DirectML's choice among its NaNs is an artefact of its kernel (measured: [NaN,2,NaN,1] K=3 DECREASING gives indices [1,3,2]; an all-NaN row INCREASING K=2 gives [3,2]); vkdml takes the lowest-indexed NaNs. Every number and its place agree; only NaN places differ"

// topKNaN returns the reason that explains a TOP_K difference by
// semantics.md rule 36 or 38, or "": the case is TOP_K1 INCREASING over an
// input holding a NaN (rule 38); or every element the outputs disagree on
// is a NaN on both sides, only its index differing (rule 36).
func topKNaN(c *Case, golden, vk *Outcome) string {
	if c.Family() != FamilyTopK || c.OutputIndices == nil || golden.HR.Failed() || vk.HR.Failed() ||
		len(golden.Outputs) != 2 || len(vk.Outputs) != 2 {
		return ""
	}
	dir, err := c.Direction()
	if err == nil && c.Operator == "TOP_K1" && dir == 0 && len(vk.Inputs) > 0 && holdsNaN(&c.Input, vk.Inputs[0]) {
		return TopKIncreasingNaNReason
	}
	if onlyNaNPlacesDiffer(c, golden, vk) {
		return TopKNaNChoiceReason
	}
	return ""
}

// holdsNaN reports whether a float tensor's logical elements in data hold
// a NaN.
func holdsNaN(t *Tensor, data []byte) bool {
	d, err := t.Desc()
	if err != nil || !d.DataType.IsFloat() || uint64(len(data)) < d.TotalTensorSizeInBytes {
		return false
	}
	x := &tensor.Tensor{Desc: d, Data: data}
	found := false
	tensor.ForEachIndex(d.Sizes, func(c []uint32) { found = found || isNaNBits(d.DataType, x.Bits(c...)) })
	return found
}

// onlyNaNPlacesDiffer reports whether the values and indices of a TOP_K
// case differ only at places whose value is a NaN on both sides.
func onlyNaNPlacesDiffer(c *Case, golden, vk *Outcome) bool {
	vd, err1 := c.Output.Desc()
	xd, err2 := c.OutputIndices.Desc()
	if err1 != nil || err2 != nil || !vd.DataType.IsFloat() {
		return false
	}
	for _, o := range []*Outcome{golden, vk} {
		if uint64(len(o.Outputs[0])) < vd.TotalTensorSizeInBytes || uint64(len(o.Outputs[1])) < xd.TotalTensorSizeInBytes {
			return false
		}
	}
	gv, kv := &tensor.Tensor{Desc: vd, Data: golden.Outputs[0]}, &tensor.Tensor{Desc: vd, Data: vk.Outputs[0]}
	gx, kx := &tensor.Tensor{Desc: xd, Data: golden.Outputs[1]}, &tensor.Tensor{Desc: xd, Data: vk.Outputs[1]}
	ok, differs := true, false
	tensor.ForEachIndex(vd.Sizes, func(p []uint32) {
		a, b := gv.Bits(p...), kv.Bits(p...)
		if a == b && gx.Bits(p...) == kx.Bits(p...) {
			return
		}
		differs = true
		ok = ok && isNaNBits(vd.DataType, a) && isNaNBits(vd.DataType, b)
	})
	return ok && differs
}

// isNaNBits reports whether raw FLOAT32 or FLOAT16 bits are a NaN.
func isNaNBits(dt tensor.DataType, b uint64) bool {
	if dt == tensor.Float16 {
		return b&0x7fff > 0x7c00
	}
	return dt == tensor.Float32 && b&0x7fffffff > 0x7f800000
}
