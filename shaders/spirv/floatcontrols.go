package spirv

import (
	"encoding/binary"
	"fmt"
)

// The float controls (SPV_KHR_float_controls, core in SPIR-V 1.4).
const (
	opExtension     = 10
	opEntryPoint    = 15
	opExecutionMode = 16

	modeDenormPreserve           = 4459
	modeSignedZeroInfNanPreserve = 4461
	modeRoundingModeRTE          = 4462
	floatControlsExtension       = "SPV_KHR_float_controls"
)

// AddFloatControls32 returns the module with its entry point asking that
// 32-bit denormals be kept and ±0, ±inf and NaN be respected
// (DenormPreserve and SignedZeroInfNanPreserve for 32-bit floats, their
// capabilities and SPV_KHR_float_controls) and, with rte, that 32-bit
// float arithmetic round to nearest even (RoundingModeRTE: without it
// Vulkan lets a correctly rounded OpFMul round in an
// implementation-defined mode). shaders' generator adds them after glslc
// has optimised the module: SPIRV-Tools 2023.1's optimiser leaves a
// module that declares SPV_KHR_float_controls unoptimised (every local
// stays in memory). No mode changes an instruction.
func AddFloatControls32(code []byte, rte bool) ([]byte, error) {
	m, err := Parse(code)
	if err != nil {
		return nil, err
	}
	if m.Has(CapDenormPreserve) || m.Has(CapRoundingModeRTE) {
		return nil, fmt.Errorf("spirv: the module declares the float controls already")
	}
	added, entries := false, 0
	out, err := rewrite(code, func(op uint32, a []uint32, emit func(uint32, ...uint32)) error {
		// The capabilities and the extension go before the first
		// instruction past the capabilities; the modes right after the
		// entry point.
		if !added && op != opCapability {
			emit(opCapability, uint32(CapDenormPreserve))
			emit(opCapability, uint32(CapSignedZeroInfNanPreserve))
			if rte {
				emit(opCapability, uint32(CapRoundingModeRTE))
			}
			emit(opExtension, literalWords(floatControlsExtension)...)
			added = true
		}
		emit(op, a...)
		if op == opEntryPoint && len(a) >= 2 {
			emit(opExecutionMode, a[1], modeDenormPreserve, 32)
			emit(opExecutionMode, a[1], modeSignedZeroInfNanPreserve, 32)
			if rte {
				emit(opExecutionMode, a[1], modeRoundingModeRTE, 32)
			}
			entries++
		}
		return nil
	})
	if err == nil && entries != 1 {
		err = fmt.Errorf("spirv: %d entry points, want 1", entries)
	}
	return out, err
}

// StripFloatControls returns the module without AddFloatControls32's
// instructions (internal/opcount optimises a kernel again, which
// SPIRV-Tools 2023.1 declines with the extension declared).
func StripFloatControls(code []byte) ([]byte, error) {
	return rewrite(code, func(op uint32, a []uint32, emit func(uint32, ...uint32)) error {
		switch {
		case op == opCapability && (Capability(a[0]) == CapDenormPreserve || Capability(a[0]) == CapSignedZeroInfNanPreserve || Capability(a[0]) == CapRoundingModeRTE),
			op == opExtension && literalString(a) == floatControlsExtension,
			op == opExecutionMode && len(a) >= 2 && (a[1] == modeDenormPreserve || a[1] == modeSignedZeroInfNanPreserve || a[1] == modeRoundingModeRTE):
			return nil
		}
		emit(op, a...)
		return nil
	})
}

// literalWords is s as a SPIR-V literal string: UTF-8, NUL-terminated,
// padded to whole words.
func literalWords(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}
