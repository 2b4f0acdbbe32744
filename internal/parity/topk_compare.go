package parity

import (
	"fmt"
	"slices"

	"github.com/vkdml/vkdml/tensor"
)

// TopKNaNRowReason explains a TOP_K or TOP_K1 difference confined to
// sequences whose input holds a NaN (semantics.md rule 38).
const TopKNaNRowReason = "semantics.md rule 38: DirectML 1.15.4's TOP_K and TOP_K1 misorder a sequence that holds a NaN anywhere but first, in both directions and for every K (measured: INCREASING [1,NaN,3,2] K=2 gives [2,3] at [3,2]; DECREASING [82.25,11.39,-17.45,NaN] K=1 gives [NaN] at [3], [1,NaN,3,2] K=3 [3,2,NaN] at [2,3,1]; on long rows tied maxima out of index order or skipped; FLOAT16 alike), while sequences without a NaN come out right; vkdml follows rules 33-36 in both directions: numbers in order, ties by index, NaN after every number"

// TopKNaNChoiceReason explains a TOP_K difference confined to which NaNs
// fill the places past the numbers (semantics.md rule 36).
const TopKNaNChoiceReason = "semantics.md rule 36: when K exceeds the count of numbers in a sequence, DirectML's choice among its NaNs is an artefact of its kernel (measured: [NaN,2,NaN,1] K=3 DECREASING gives indices [1,3,2]; an all-NaN row INCREASING K=2 gives [3,2]); vkdml takes the lowest-indexed NaNs. Every number and its place agree; only NaN places differ"

// topKNaN returns the reason that explains a TOP_K difference by
// semantics.md rule 36 or 38, or "": every element the outputs disagree
// on is a NaN on both sides, only its index differing (rule 36); or every
// sequence they disagree on holds a NaN in the input, in either direction
// (rule 38). A difference in a sequence without a NaN stays unexplained,
// whatever the other sequences hold.
func topKNaN(c *Case, golden, vk *Outcome) string {
	if c.Family() != FamilyTopK || c.OutputIndices == nil || golden.HR.Failed() || vk.HR.Failed() ||
		len(golden.Outputs) != 2 || len(vk.Outputs) != 2 {
		return ""
	}
	if onlyNaNPlacesDiffer(c, golden, vk) {
		return TopKNaNChoiceReason
	}
	if len(vk.Inputs) > 0 && differingSequencesHoldNaN(c, golden, vk, vk.Inputs[0]) {
		return TopKNaNRowReason
	}
	return ""
}

// topKOutputs are a TOP_K case's value and index outputs on both sides,
// or ok false when their descs or sizes do not fit.
func topKOutputs(c *Case, golden, vk *Outcome) (gv, kv, gx, kx *tensor.Tensor, ok bool) {
	vd, err1 := c.Output.Desc()
	xd, err2 := c.OutputIndices.Desc()
	if err1 != nil || err2 != nil || !vd.DataType.IsFloat() {
		return nil, nil, nil, nil, false
	}
	for _, o := range []*Outcome{golden, vk} {
		if uint64(len(o.Outputs[0])) < vd.TotalTensorSizeInBytes || uint64(len(o.Outputs[1])) < xd.TotalTensorSizeInBytes {
			return nil, nil, nil, nil, false
		}
	}
	return &tensor.Tensor{Desc: vd, Data: golden.Outputs[0]}, &tensor.Tensor{Desc: vd, Data: vk.Outputs[0]},
		&tensor.Tensor{Desc: xd, Data: golden.Outputs[1]}, &tensor.Tensor{Desc: xd, Data: vk.Outputs[1]}, true
}

// forEachTopKDifference calls f with each output place where the values
// or indices of golden and vk differ, and their value bits; ok is false
// when the outputs cannot be read.
func forEachTopKDifference(c *Case, golden, vk *Outcome, f func(p []uint32, a, b uint64)) (ok bool) {
	gv, kv, gx, kx, ok := topKOutputs(c, golden, vk)
	if !ok {
		return false
	}
	tensor.ForEachIndex(gv.Desc.Sizes, func(p []uint32) {
		a, b := gv.Bits(p...), kv.Bits(p...)
		if a != b || gx.Bits(p...) != kx.Bits(p...) {
			f(p, a, b)
		}
	})
	return true
}

// differingSequencesHoldNaN reports whether at least one output place
// differs and the input sequence along Axis through each such place holds
// a NaN.
func differingSequencesHoldNaN(c *Case, golden, vk *Outcome, input []byte) bool {
	d, err := c.Input.Desc()
	axis, _ := c.TopKParams()
	if err != nil || !d.DataType.IsFloat() || uint64(len(input)) < d.TotalTensorSizeInBytes || int(axis) >= len(d.Sizes) {
		return false
	}
	x := &tensor.Tensor{Desc: d, Data: input}
	seen := map[string]bool{} // sequence (its place with the axis at 0) -> holds a NaN
	all, differs := true, false
	ok := forEachTopKDifference(c, golden, vk, func(p []uint32, _, _ uint64) {
		differs = true
		q := slices.Clone(p)
		q[axis] = 0
		key := fmt.Sprint(q)
		nan, done := seen[key]
		if !done {
			for j := uint32(0); j < d.Sizes[axis] && !nan; j++ {
				q[axis] = j
				nan = isNaNBits(d.DataType, x.Bits(q...))
			}
			seen[key] = nan
		}
		all = all && nan
	})
	return ok && differs && all
}

// onlyNaNPlacesDiffer reports whether the values and indices of a TOP_K
// case differ only at places whose value is a NaN on both sides.
func onlyNaNPlacesDiffer(c *Case, golden, vk *Outcome) bool {
	dt, _ := tensor.ParseDataType(c.Output.DataType)
	all, differs := true, false
	ok := forEachTopKDifference(c, golden, vk, func(_ []uint32, a, b uint64) {
		differs = true
		all = all && isNaNBits(dt, a) && isNaNBits(dt, b)
	})
	return ok && differs && all
}

// isNaNBits reports whether raw FLOAT32 or FLOAT16 bits are a NaN.
func isNaNBits(dt tensor.DataType, b uint64) bool {
	if dt == tensor.Float16 {
		return b&0x7fff > 0x7c00
	}
	return dt == tensor.Float32 && b&0x7fffffff > 0x7f800000
}
