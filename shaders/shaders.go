// Package shaders holds vkdml's GLSL compute kernels and their SPIR-V.
//
// Every kernel variant (element width, index width, storage path, kernel
// shape) is one GLSL source compiled with a set of defines; what the
// element's bits mean (unsigned, signed, float) is a specialization
// constant, so one variant serves every type of a width. Every kernel
// shares elem.glsl: the storage declarations, element loads and stores on
// both storage paths, 64-bit values as two words, and the one
// order-preserving key. The table (Variants) names each variant; `make
// shaders` (go generate) compiles it with glslc into spv/NAME.spv, which is
// committed and embedded, so building vkdml needs no shader compiler. `make
// check-shaders` recompiles into a temporary folder, fails when a committed
// file differs (stale), is missing or is not in the table, and runs
// spirv-val on each.
//
// The Go↔GLSL contract is named: each table row declares its kernel's
// bindings, and its specialization constants and push-constant words by
// name, in constant_id and block order. The modules keep their GLSL names
// (OpName), so CheckVariant holds a row's names, position by position, to
// its module, parsed once (Info, package spirv); the planners fill the
// values by name (NewSpec, NewPush), and CheckKernel holds a planned kernel
// to its row and its module.
package shaders

import (
	"embed"
	"fmt"
	"strings"
)

//go:generate go run gen.go

// TargetEnv is the Vulkan version the SPIR-V is compiled and validated for:
// vkdml's floor.
const TargetEnv = "vulkan1.1"

// Variant is one compiled kernel and the contract a plan that runs it keeps
// with its module: how many storage buffers it binds, and by name, in
// order, the specialization constants it takes and the push-constant words
// that follow the bindings' base offsets. CheckVariant holds the names to
// the compiled module; CheckKernel holds a planned kernel to both.
type Variant struct {
	Name    string   // file name without .spv, and the key ops use
	Source  string   // GLSL file in this folder
	Defines []string // "NAME=VALUE", passed to glslc as -D

	// Bindings is the buffers, bindings 0..Bindings-1 of set 0: storage
	// buffers, but for TexelBindings; the push-constant block opens with
	// their base offsets (base_*).
	Bindings int
	// TexelBindings are the bindings (ascending, each below Bindings)
	// that are uniform texel buffers of R32G32B32A32_UINT texels
	// (usamplerBuffer) over a range of a buffer rather than storage
	// buffers (gpu.KernelDesc.TexelBindings).
	TexelBindings []int
	// Spec names the specialization constants: Spec[i] is the GLSL name of
	// constant_id i, Spec[0] is SpecWorkgroupSize.
	Spec []string
	// Push names the 32-bit push-constant words after the base offsets, in
	// block order: a uint member by its GLSL name, element i of a uint
	// array as name[i].
	Push []string
	// FloatControls32: the module asks that 32-bit denormals be kept and
	// ±0, ±inf and NaN be respected (spirv.AddFloatControls32, added to
	// the module glslc optimised), so that it runs only on devices that
	// report both (caps.Features).
	FloatControls32 bool
	// RoundingRTE32, with FloatControls32: the module also asks that
	// 32-bit float arithmetic round to nearest even (RoundingModeRTE), so
	// that it runs only on devices that report
	// shaderRoundingModeRTEFloat32 too.
	RoundingRTE32 bool
}

// ParamBytes is the push-constant bytes after the base offsets: 4 per
// word of Push.
func (v Variant) ParamBytes() uint32 { return 4 * uint32(len(v.Push)) }

//go:embed spv
var spv embed.FS

var byName = func() map[string]Variant {
	m := make(map[string]Variant, len(Variants))
	for _, v := range Variants {
		if _, dup := m[v.Name]; dup {
			panic("shaders: duplicate variant " + v.Name)
		}
		m[v.Name] = v
	}
	return m
}()

// Lookup returns the table row of the variant called name.
func Lookup(name string) (Variant, error) {
	v, ok := byName[name]
	if !ok {
		return Variant{}, fmt.Errorf("%w: %q", ErrUnknownVariant, name)
	}
	return v, nil
}

// SPIRV returns the embedded module of the variant called name.
func SPIRV(name string) ([]byte, error) {
	if _, ok := byName[name]; !ok {
		return nil, fmt.Errorf("shaders: no variant %q", name)
	}
	b, err := spv.ReadFile("spv/" + name + ".spv")
	if err != nil {
		return nil, fmt.Errorf("shaders: variant %q has no compiled module (run make shaders): %w", name, err)
	}
	return b, nil
}

// name joins parts with underscores, skipping empty ones.
func name(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "_")
}
