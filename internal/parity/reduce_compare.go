package parity

import (
	"fmt"
	"slices"

	"github.com/vkdml/vkdml/tensor"
)

// reduceFloatFunctions are the REDUCE functions whose FLOAT32 and FLOAT16
// answers are compared within rule 44's bound rather than bit for bit.
var reduceFloatFunctions = []string{"SUM", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MULTIPLY", "SUM_SQUARE"}

// isReduceFloat reports whether c is a REDUCE of a floating-point function
// on FLOAT32 or FLOAT16 (docs/semantics.md rules 39-44).
func (c *Case) isReduceFloat() bool {
	return c.Operator == "REDUCE" && slices.Contains(reduceFloatFunctions, c.ReduceFunction) &&
		(c.Input.DataType == "FLOAT32" || c.Input.DataType == "FLOAT16") && c.Output.DataType == c.Input.DataType
}

// reduceBoundResult is the comparison of a float REDUCE's output within
// rule 44's bound: Verdict is Equal (every element the same bits, or a NaN
// on both sides), WithinBound or OutsideBound; Detail says which elements
// and by how much. ok is false where the bound cannot be applied (no
// input, a layout the comparison does not address, bytes between the
// output's elements that differ): the case is then compared bit for bit.
type reduceBoundResult struct {
	Verdict, Detail string
	ok              bool
}

// compareReduceFloat classifies each logical output element of a float
// REDUCE with CheckReduceFloat, given the input buffer and both outcomes'
// output buffers; comps is compareOutputs' bitwise comparison.
func compareReduceFloat(c *Case, inputs [][]byte, golden, vk *Outcome, comps []OutputComparison) (reduceBoundResult, error) {
	in, errIn := c.Input.Desc()
	out, errOut := c.Output.Desc()
	if errIn != nil || errOut != nil || len(inputs) < 1 || len(comps) != 1 || len(golden.Outputs) != 1 || len(vk.Outputs) != 1 ||
		len(in.Sizes) != len(out.Sizes) || uint64(len(inputs[0])) < in.SpanBytes() {
		return reduceBoundResult{}, nil
	}
	reduced := make([]bool, len(in.Sizes))
	for _, a := range c.Axes {
		if int(a) >= len(reduced) {
			return reduceBoundResult{}, nil
		}
		reduced[a] = true
	}
	for i := range in.Sizes {
		if !reduced[i] && in.Sizes[i] != out.Sizes[i] || reduced[i] && out.Sizes[i] != 1 {
			return reduceBoundResult{}, nil
		}
	}
	es := uint64(out.DataType.Size())
	elements := golden.elementsOnly(0)
	expected, got := golden.Outputs[0], vk.Outputs[0]
	if uint64(len(got)) < out.SpanBytes() || (elements && uint64(len(expected)) != out.ElementCount()*es) ||
		(!elements && uint64(len(expected)) < out.SpanBytes()) {
		return reduceBoundResult{}, nil
	}
	input := &tensor.Tensor{Desc: in, Data: inputs[0]}
	// The block's box: the output's coordinates on the kept axes, every
	// coordinate on the reduced ones.
	blockSizes := make([]uint32, len(in.Sizes))
	for i := range blockSizes {
		blockSizes[i] = 1
		if reduced[i] {
			blockSizes[i] = in.Sizes[i]
		}
	}
	var (
		pos, bitDiffer, within, outside uint64
		worst                           float64 // the largest Diff/Bound of an element within bound
		worstText, firstOutside         string
		checkErr                        error
		block                           []float64
		at                              = make([]uint32, len(in.Sizes))
	)
	tensor.ForEachIndex(out.Sizes, func(oc []uint32) {
		off := out.Offset(oc) * es
		e := expected[off : off+es]
		if elements {
			e = expected[pos*es : (pos+1)*es]
		}
		pos++
		g := got[off : off+es]
		if string(e) == string(g) || checkErr != nil {
			return
		}
		bitDiffer++
		block = block[:0]
		tensor.ForEachIndex(blockSizes, func(bc []uint32) {
			for i := range at {
				at[i] = oc[i] + bc[i]
			}
			block = append(block, input.Float64At(at...))
		})
		dm, vv := elemFloat64(out.DataType, e), elemFloat64(out.DataType, g)
		check, err := CheckReduceFloat(c.ReduceFunction, c.Input.DataType, block, vv, dm)
		if err != nil {
			checkErr = err
			return
		}
		text := fmt.Sprintf("at %v: DirectML %s, vkdml %s, |difference| %g, bound %g (block of %d)",
			oc, formatElem(out.DataType, e), formatElem(out.DataType, g), check.Diff, check.Bound, len(block))
		switch check.Verdict {
		case WithinBound:
			within++
			r := check.Diff / check.Bound
			if check.Saturated {
				r, text = -1, text+": DirectML's FLOAT16 conversion saturates"
			}
			if worstText == "" || r > worst {
				worst, worstText = r, text
			}
		case OutsideBound:
			outside++
			if firstOutside == "" {
				firstOutside = text
			}
		}
	})
	if checkErr != nil {
		return reduceBoundResult{}, checkErr
	}
	if bitDiffer != comps[0].Differing { // bytes between the elements differ
		return reduceBoundResult{}, nil
	}
	n := out.ElementCount()
	switch {
	case outside > 0:
		return reduceBoundResult{Verdict: OutsideBound, ok: true,
			Detail: fmt.Sprintf("output 0: %d of %d elements outside semantics.md rule 44's bound (%d within it); first %s", outside, n, within, firstOutside)}, nil
	case within > 0:
		return reduceBoundResult{Verdict: WithinBound, ok: true,
			Detail: fmt.Sprintf("output 0: %d of %d elements differ within semantics.md rule 44's bound; the closest to it %s", within, n, worstText)}, nil
	}
	// Only NaNs of other signs or payloads differ (rule 43).
	return reduceBoundResult{Verdict: Equal, ok: true}, nil
}

// elemFloat64 is one FLOAT32 or FLOAT16 element's value (little-endian).
func elemFloat64(dt tensor.DataType, b []byte) float64 {
	t := &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}
	return t.Float64At(0)
}
