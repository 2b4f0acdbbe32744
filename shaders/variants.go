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
	out := []Variant{{Name: CopyVec4Name, Source: "copy_vec4.comp"}}
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			n := 0
			if native {
				n = 1
			}
			out = append(out, Variant{
				Name:    CopyName(bits, native),
				Source:  "copy.comp",
				Defines: []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", n)},
			})
		}
	}
	return out
}
