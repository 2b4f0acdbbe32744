package shaders

import "fmt"

// MaxPoolVec2x2Name is the vectorised 2x2 stride-2 max-pooling kernel
// (maxpool_vec.comp) for 32-bit elements; idxBits is 0 (no indices), 32 or
// 64. The element's kind is the specialization constant
// MaxPoolVec2x2SpecKind (see ElemKind).
func MaxPoolVec2x2Name(idxBits int) string {
	return name("maxpool_vec2x2", idxName(idxBits))
}

// MaxPoolVec2x2SpecKind is the ID of maxpool_vec.comp's KIND
// specialization constant, its last; IDs 0-4 are the workgroup size and
// the input and output heights and widths.
const MaxPoolVec2x2SpecKind = 5

func maxPoolVecVariants() []Variant {
	var out []Variant
	for _, ib := range []int{0, 32, 64} {
		// Push constants: the bindings' base offsets, then quads and per.
		bindings := 2
		if ib != 0 {
			bindings = 3
		}
		out = append(out, Variant{
			Name:     MaxPoolVec2x2Name(ib),
			Source:   "maxpool_vec.comp",
			Defines:  []string{fmt.Sprintf("IDX_BITS=%d", ib)},
			Bindings: bindings, ParamBytes: 2 * 4, SpecConstants: MaxPoolVec2x2SpecKind + 1,
		})
	}
	return out
}
