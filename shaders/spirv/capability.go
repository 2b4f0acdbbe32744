package spirv

import "fmt"

// Capability is a SPIR-V capability (an OpCapability operand).
type Capability uint32

// The capabilities vkdml's kernels declare or could declare; the values are
// the SPIR-V specification's (section 3.31).
const (
	CapShader                    Capability = 1
	CapFloat16                   Capability = 9
	CapInt64                     Capability = 11
	CapInt64Atomics              Capability = 12
	CapInt16                     Capability = 22
	CapInt8                      Capability = 39
	CapGroupNonUniform           Capability = 61
	CapGroupNonUniformVote       Capability = 62
	CapGroupNonUniformArithmetic Capability = 63
	CapGroupNonUniformBallot     Capability = 64
	CapGroupNonUniformShuffle    Capability = 65
	CapStorageBuffer16BitAccess  Capability = 4433
	CapStorageBuffer8BitAccess   Capability = 4448
)

var capabilityNames = map[Capability]string{
	CapShader:                    "Shader",
	CapFloat16:                   "Float16",
	CapInt64:                     "Int64",
	CapInt64Atomics:              "Int64Atomics",
	CapInt16:                     "Int16",
	CapInt8:                      "Int8",
	CapGroupNonUniform:           "GroupNonUniform",
	CapGroupNonUniformVote:       "GroupNonUniformVote",
	CapGroupNonUniformArithmetic: "GroupNonUniformArithmetic",
	CapGroupNonUniformBallot:     "GroupNonUniformBallot",
	CapGroupNonUniformShuffle:    "GroupNonUniformShuffle",
	CapStorageBuffer16BitAccess:  "StorageBuffer16BitAccess",
	CapStorageBuffer8BitAccess:   "StorageBuffer8BitAccess",
}

// String is the capability's name in the SPIR-V specification, or its
// number.
func (c Capability) String() string {
	if n, ok := capabilityNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Capability(%d)", uint32(c))
}
