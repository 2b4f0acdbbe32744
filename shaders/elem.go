package shaders

// Element kinds: the values of the KIND specialization constant of the
// kernels that compare elements (elem.glsl's KIND_*), and of the kind bits
// of ARGMAX's FLAGS constant. One variant per element width serves every
// kind of that width.
const (
	KindUnsigned uint32 = 0 // unsigned integers
	KindSigned   uint32 = 1 // two's-complement integers
	KindFloat    uint32 = 2 // IEEE 754 binary32 and binary16, compared as bit patterns
)

// ElemKind is the kind of an element type that is a float, a signed
// integer, or (neither) an unsigned integer.
func ElemKind(float, signed bool) uint32 {
	switch {
	case float:
		return KindFloat
	case signed:
		return KindSigned
	}
	return KindUnsigned
}
