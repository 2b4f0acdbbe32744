package shaders

import "fmt"

// MaxPoolVec2x2Name is the vectorised 2x2 stride-2 max-pooling kernel
// (maxpool_vec.comp) for elem "f32", "u32" or "i32"; idxBits is 0 (no
// indices), 32 or 64.
func MaxPoolVec2x2Name(elem string, idxBits int) string {
	ix := "noidx"
	if idxBits != 0 {
		ix = fmt.Sprintf("idx%d", idxBits)
	}
	return name("maxpool_vec2x2", elem, ix)
}

func maxPoolVecVariants() []Variant {
	var out []Variant
	for _, t := range []struct {
		name string
		dml  int
	}{{"f32", 1}, {"u32", 3}, {"i32", 6}} {
		for _, ib := range []int{0, 32, 64} {
			out = append(out, Variant{
				Name:    MaxPoolVec2x2Name(t.name, ib),
				Source:  "maxpool_vec.comp",
				Defines: []string{fmt.Sprintf("ELEM_TYPE=%d", t.dml), fmt.Sprintf("IDX_BITS=%d", ib)},
			})
		}
	}
	return out
}
