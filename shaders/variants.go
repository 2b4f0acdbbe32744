package shaders

import "fmt"

// Variants is the table of every kernel variant vkdml embeds. An operator
// adds its rows here, next to its GLSL source.
var Variants = concat(
	copyVariants(),
	maxPoolVariants(),
	argmaxVariants(),
	argmaxVecVariants(),
	maxPoolVecVariants(),
)

// b2i is 1 for true: a define's value.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func concat(lists ...[]Variant) []Variant {
	var out []Variant
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// CopyName is the copy kernel for elements of elemBits bits; native picks
// 8/16-bit storage buffers over 32-bit words with atomic sub-word stores.
func CopyName(elemBits int, native bool) string {
	storage := "words"
	if native || elemBits >= 32 {
		storage = ""
	}
	return name("copy", fmt.Sprintf("b%d", elemBits), storage)
}

// CopyVec4Name is the packed 16-byte-vector copy.
const CopyVec4Name = "copy_vec4"

func copyVariants() []Variant {
	// Push constants: the two bindings' base offsets, then copy_vec4's
	// vector count, or copy's rank, element count, and sizes and both
	// strides of 8 dimensions.
	out := []Variant{{Name: CopyVec4Name, Source: "copy_vec4.comp", Bindings: 2, ParamBytes: 4, SpecConstants: 1}}
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			out = append(out, Variant{
				Name:     CopyName(bits, native),
				Source:   "copy.comp",
				Defines:  []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native))},
				Bindings: 2, ParamBytes: (2 + 3*8) * 4, SpecConstants: 1,
			})
		}
	}
	return out
}
