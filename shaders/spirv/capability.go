package spirv

import (
	"fmt"

	"github.com/vkdml/vkdml/caps"
)

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
	CapSampledBuffer             Capability = 46
	CapGroupNonUniform           Capability = 61
	CapGroupNonUniformVote       Capability = 62
	CapGroupNonUniformArithmetic Capability = 63
	CapGroupNonUniformBallot     Capability = 64
	CapGroupNonUniformShuffle    Capability = 65
	CapStorageBuffer16BitAccess  Capability = 4433
	CapStorageBuffer8BitAccess   Capability = 4448
	CapDenormPreserve            Capability = 4464
	CapSignedZeroInfNanPreserve  Capability = 4466
	CapRoundingModeRTE           Capability = 4467
)

var capabilityNames = map[Capability]string{
	CapShader:                    "Shader",
	CapFloat16:                   "Float16",
	CapInt64:                     "Int64",
	CapInt64Atomics:              "Int64Atomics",
	CapInt16:                     "Int16",
	CapInt8:                      "Int8",
	CapSampledBuffer:             "SampledBuffer",
	CapGroupNonUniform:           "GroupNonUniform",
	CapGroupNonUniformVote:       "GroupNonUniformVote",
	CapGroupNonUniformArithmetic: "GroupNonUniformArithmetic",
	CapGroupNonUniformBallot:     "GroupNonUniformBallot",
	CapGroupNonUniformShuffle:    "GroupNonUniformShuffle",
	CapStorageBuffer16BitAccess:  "StorageBuffer16BitAccess",
	CapStorageBuffer8BitAccess:   "StorageBuffer8BitAccess",
	CapDenormPreserve:            "DenormPreserve",
	CapSignedZeroInfNanPreserve:  "SignedZeroInfNanPreserve",
	CapRoundingModeRTE:           "RoundingModeRTE",
}

// String is the capability's name in the SPIR-V specification, or its
// number.
func (c Capability) String() string {
	if n, ok := capabilityNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Capability(%d)", uint32(c))
}

// Feature names the device feature (caps.Features) that a module declaring
// c needs, and reports whether f has it; known is false for a capability
// no feature flag governs (Shader, the subgroup operation classes other
// than arithmetic, and capabilities vkdml does not use), which the caller
// judges itself. The gpu package refuses kernels with it and ops.CheckPlan
// checks plans with it, so the two agree on what each capability needs.
func (c Capability) Feature(f caps.Features) (feature string, ok, known bool) {
	switch c {
	case CapInt64:
		return "shaderInt64", f.ShaderInt64, true
	case CapInt16:
		return "shaderInt16", f.ShaderInt16, true
	case CapInt8:
		return "shaderInt8", f.ShaderInt8, true
	case CapFloat16:
		return "shaderFloat16", f.ShaderFloat16, true
	case CapStorageBuffer8BitAccess:
		return "storageBuffer8BitAccess", f.StorageBuffer8Bit, true
	case CapStorageBuffer16BitAccess:
		return "storageBuffer16BitAccess", f.StorageBuffer16Bit, true
	case CapGroupNonUniformArithmetic:
		return "subgroup arithmetic in compute shaders", f.SubgroupArithmetic, true
	case CapDenormPreserve: // vkdml's kernels ask it of 32-bit floats only
		return "shaderDenormPreserveFloat32", f.DenormPreserveFloat32, true
	case CapSignedZeroInfNanPreserve:
		return "shaderSignedZeroInfNanPreserveFloat32", f.SignedZeroInfNanPreserveFloat32, true
	case CapRoundingModeRTE:
		return "shaderRoundingModeRTEFloat32", f.RoundingModeRTEFloat32, true
	case CapInt64Atomics:
		return "shaderBufferInt64Atomics", false, true // vkdml never enables it
	}
	return "", false, false
}
