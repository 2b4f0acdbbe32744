package shaders

import "github.com/vkdml/vkdml/shaders/spirv"

// SPIR-V capabilities that depend on optional device features.
//
// Deprecated: use the spirv.Cap* constants; these go with the capability
// check in dml.
const (
	CapFloat16                  = uint32(spirv.CapFloat16)
	CapInt64                    = uint32(spirv.CapInt64)
	CapInt16                    = uint32(spirv.CapInt16)
	CapInt8                     = uint32(spirv.CapInt8)
	CapGroupNonUniformArith     = uint32(spirv.CapGroupNonUniformArithmetic)
	CapStorageBuffer16BitAccess = uint32(spirv.CapStorageBuffer16BitAccess)
	CapStorageBuffer8BitAccess  = uint32(spirv.CapStorageBuffer8BitAccess)
)

// Capabilities returns the OpCapability operands of a SPIR-V module.
//
// Deprecated: use spirv.Capabilities or Info.
func Capabilities(module []byte) ([]uint32, error) {
	caps, err := spirv.Capabilities(module)
	out := make([]uint32, len(caps))
	for i, c := range caps {
		out[i] = uint32(c)
	}
	return out, err
}
