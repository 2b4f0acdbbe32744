package shaders

import "fmt"

// maxPoolTypes maps the element type names MaxPoolName accepts to their
// DML_TENSOR_DATA_TYPE values and widths in bits.
var maxPoolTypes = []struct {
	name string
	dml  int
	bits int
}{
	{"f32", 1, 32}, {"f16", 2, 16}, {"u32", 3, 32}, {"u16", 4, 16}, {"u8", 5, 8},
	{"i32", 6, 32}, {"i16", 7, 16}, {"i8", 8, 8}, {"u64", 10, 64}, {"i64", 11, 64},
}

// MaxPoolName is the max-pooling kernel for elements of type elem ("f32",
// "f16", "u32", "u16", "u8", "i32", "i16", "i8", "u64", "i64"); native picks
// 8/16-bit storage buffers over 32-bit words with atomic sub-word stores
// (it only matters for 8- and 16-bit types); idxBits is 0 (no indices), 32
// or 64.
func MaxPoolName(elem string, native bool, idxBits int) string {
	storage := ""
	for _, t := range maxPoolTypes {
		if t.name == elem && t.bits < 32 && !native {
			storage = "words"
		}
	}
	ix := "noidx"
	if idxBits != 0 {
		ix = fmt.Sprintf("idx%d", idxBits)
	}
	return name("maxpool", elem, storage, ix)
}

func maxPoolVariants() []Variant {
	var out []Variant
	for _, t := range maxPoolTypes {
		natives := []bool{false}
		if t.bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			n := 0
			if native {
				n = 1
			}
			for _, ib := range []int{0, 32, 64} {
				out = append(out, Variant{
					Name:   MaxPoolName(t.name, native, ib),
					Source: "maxpool.comp",
					Defines: []string{fmt.Sprintf("ELEM_TYPE=%d", t.dml), fmt.Sprintf("NATIVE=%d", n),
						fmt.Sprintf("IDX_BITS=%d", ib)},
				})
			}
		}
	}
	return out
}
