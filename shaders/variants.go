package shaders

import "fmt"

// Variants is the table of every kernel variant vkdml embeds. An operator
// adds its rows here, next to its GLSL source.
var Variants = concat(
	copyVariants(),
	maxPoolVariants(),
	maxPoolGridVariants(),
	argmaxVariants(),
	argmaxVecVariants(),
	reduceFloatVariants(),
	maxPoolVecVariants(),
	maxUnpoolVariants(),
	topKVariants(),
)

// b2i is 1 for true: a define's value.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func concat[T any](lists ...[]T) []T {
	var out []T
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// numbered is the names prefix0..prefix(n-1): GLSL constants one per
// dimension slot, e.g. DS0..DS7.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// elements is the names of the words of a uint array member of n
// elements, name[0]..name[n-1], as spirv.Module.PushWords gives them.
func elements(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s[%d]", name, i)
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

// copyPush is copy.comp's push words after the base offsets: the rank,
// the element count, and the sizes and both strides of 8 dimensions.
var copyPush = concat([]string{"rank", "total"}, elements("sizes", 8), elements("in_strides", 8), elements("out_strides", 8))

func copyVariants() []Variant {
	out := []Variant{{Name: CopyVec4Name, Source: "copy_vec4.comp", Bindings: 2,
		Spec: []string{SpecWorkgroupSize}, Push: []string{"count"}}}
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
				Bindings: 2, Spec: []string{SpecWorkgroupSize}, Push: copyPush,
			})
		}
	}
	return out
}
