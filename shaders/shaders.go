// Package shaders holds vkdml's GLSL compute kernels and their SPIR-V.
//
// Every kernel variant (element type, index width, storage path, kernel
// shape) is one GLSL source compiled with a set of defines. The table below
// names each variant; `make shaders` (go generate) compiles it with glslc into
// spv/NAME.spv, which is committed and embedded, so building vkdml needs no
// shader compiler. `make check-shaders` recompiles into a temporary folder,
// fails when a committed file differs (stale), is missing or is not in the
// table, and runs spirv-val on each.
package shaders

import (
	"embed"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

//go:generate go run gen.go

// TargetEnv is the Vulkan version the SPIR-V is compiled and validated for:
// vkdml's floor.
const TargetEnv = "vulkan1.1"

// Variant is one compiled kernel.
type Variant struct {
	Name    string   // file name without .spv, and the key ops use
	Source  string   // GLSL file in this folder
	Defines []string // "NAME=VALUE", passed to glslc as -D
}

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

// Lookup returns the variant called name.
func Lookup(name string) (Variant, bool) {
	v, ok := byName[name]
	return v, ok
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

// Names lists every variant, sorted.
func Names() []string {
	out := make([]string, 0, len(Variants))
	for _, v := range Variants {
		out = append(out, v.Name)
	}
	sort.Strings(out)
	return out
}

// SPIR-V capabilities that depend on optional device features.
const (
	CapFloat16                  = 9
	CapInt64                    = 11
	CapInt16                    = 22
	CapInt8                     = 39
	CapGroupNonUniform          = 61
	CapGroupNonUniformVote      = 62
	CapGroupNonUniformArith     = 63
	CapGroupNonUniformBallot    = 64
	CapGroupNonUniformShuffle   = 65
	CapStorageBuffer16BitAccess = 4433
	CapStorageBuffer8BitAccess  = 4448
	CapInt64Atomics             = 12
)

// Capabilities returns the OpCapability operands of a SPIR-V module, so the
// host can refuse a variant whose capabilities the device has not enabled.
func Capabilities(module []byte) ([]uint32, error) {
	if len(module) < 20 || len(module)%4 != 0 || binary.LittleEndian.Uint32(module) != 0x07230203 {
		return nil, fmt.Errorf("shaders: not a little-endian SPIR-V module")
	}
	var caps []uint32
	for i := 20; i+4 <= len(module); {
		word := binary.LittleEndian.Uint32(module[i:])
		n, op := int(word>>16), word&0xffff
		if n == 0 || i+4*n > len(module) {
			return nil, fmt.Errorf("shaders: malformed SPIR-V instruction at byte %d", i)
		}
		if op == 17 && n == 2 { // OpCapability
			caps = append(caps, binary.LittleEndian.Uint32(module[i+4:]))
		}
		i += 4 * n
	}
	return caps, nil
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
