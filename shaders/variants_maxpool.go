package shaders

import "fmt"

// MaxPoolName is the MAX_POOLING/1/2 kernel (maxpool.comp) for elements of
// elemBits bits (8, 16, 32 or 64); native picks 8/16-bit storage buffers
// over 32-bit words with atomic sub-word stores (it matters only below 32
// bits); idxBits is 0 (no indices), 32 or 64. The element's kind is the
// specialization constant MaxPoolSpecKind (see ElemKind).
func MaxPoolName(elemBits int, native bool, idxBits int) string {
	storage := ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	return name("maxpool", fmt.Sprintf("b%d%s", elemBits, storage), idxName(idxBits))
}

// MaxPoolSpecKind is the ID of maxpool.comp's KIND specialization
// constant, its last; IDs 0-29 are the workgroup size and the shape.
const MaxPoolSpecKind = 30

// idxName names an index width: "noidx", "idx32" or "idx64".
func idxName(idxBits int) string {
	if idxBits == 0 {
		return "noidx"
	}
	return fmt.Sprintf("idx%d", idxBits)
}

func maxPoolVariants() []Variant {
	var out []Variant
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			for _, ib := range []int{0, 32, 64} {
				// Push constants: the bindings' base offsets, then total,
				// plane0 and three element offsets, then with indices
				// the indices' five strides.
				bindings, params := 2, uint32(5*4)
				if ib != 0 {
					bindings, params = 3, 10*4
				}
				out = append(out, Variant{
					Name:   MaxPoolName(bits, native, ib),
					Source: "maxpool.comp",
					Defines: []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
						fmt.Sprintf("IDX_BITS=%d", ib)},
					Bindings: bindings, ParamBytes: params, SpecConstants: MaxPoolSpecKind + 1,
				})
			}
		}
	}
	return out
}
