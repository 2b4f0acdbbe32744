package shaders

import "fmt"

// MaxPoolVec2x2Name is the vectorised 2x2 stride-2 max-pooling kernel
// (maxpool_vec.comp) for 32-bit elements; idxBits is 0 (no indices), 32 or
// 64. The element's kind is the specialization constant KIND (see
// ElemKind).
func MaxPoolVec2x2Name(idxBits int) string {
	return name("maxpool_vec2x2", idxName(idxBits))
}

func maxPoolVecVariants() []Variant {
	var out []Variant
	for _, ib := range []int{0, 32, 64} {
		bindings := 2
		if ib != 0 {
			bindings = 3
		}
		out = append(out, Variant{
			Name:     MaxPoolVec2x2Name(ib),
			Source:   "maxpool_vec.comp",
			Defines:  []string{fmt.Sprintf("IDX_BITS=%d", ib)},
			Bindings: bindings,
			// The input and output heights and widths; the element kind.
			Spec: []string{SpecWorkgroupSize, "IH", "IW", "OH", "OW", "KIND"},
			// Groups of 4 outputs, and groups per invocation.
			Push: []string{"quads", "per"},
		})
	}
	return out
}
