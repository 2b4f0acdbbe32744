package shaders

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/vkdml/vkdml/shaders/spirv"
)

// ErrUnknownVariant is wrapped by the errors about a name that is not in
// the variant table.
var ErrUnknownVariant = errors.New("shaders: no such variant")

// ErrContract is wrapped by the errors about a planned kernel, a table row
// or a planner's by-name values that do not agree with the module
// (CheckKernel, CheckVariant, Values).
var ErrContract = errors.New("shaders: kernel does not match its module")

// modules holds every variant's module, parsed once, on first use, and
// what CheckVariant says of its row.
var modules = sync.OnceValue(func() map[string]moduleInfo {
	out := make(map[string]moduleInfo, len(Variants))
	for _, v := range Variants {
		code, err := SPIRV(v.Name)
		var m *spirv.Module
		if err == nil {
			m, err = spirv.Parse(code)
		}
		if err != nil {
			err = fmt.Errorf("shaders: variant %s: %w", v.Name, err)
		}
		mi := moduleInfo{m: m, err: err}
		if err == nil {
			mi.names = checkNames(v, m)
		}
		out[v.Name] = mi
	}
	return out
})

type moduleInfo struct {
	m     *spirv.Module
	err   error
	names error // checkNames of the row and the module
}

// Info returns what the module of the variant called name declares: its
// SPIR-V capabilities, specialization-constant IDs, push-constant block
// size and storage-buffer bindings. Modules are parsed once per process;
// the result is shared and must not be modified.
func Info(name string) (*spirv.Module, error) {
	mi, ok := modules()[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownVariant, name)
	}
	return mi.m, mi.err
}

// CheckKernel reports whether a kernel a plan builds from the variant called
// name keeps the contract: the variant's row names what its module names
// (CheckVariant, run once per row); the kernel binds buffers
// 0..bindings-1, exactly the bindings the module uses, as uniform texel
// buffers those the row's TexelBindings name and as storage buffers the
// rest; its push-constant range, one base offset word per binding and
// then paramBytes, is the module's push-constant block; and it passes exactly the specialization
// constants the row declares, so a value for every ID the module reads.
// The values' order is the planners' to keep, which they do by filling
// them by name (NewSpec, NewPush). The planners' plan check calls it for
// every kernel it emits; the errors wrap ErrContract (or
// ErrUnknownVariant).
func CheckKernel(name string, bindings int, paramBytes uint32, spec int) error {
	m, err := Info(name)
	if err != nil {
		return err
	}
	if err := modules()[name].names; err != nil {
		return err
	}
	v := byName[name]
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrContract, name}, args...)...)
	}
	var want, wantTexel []uint32
	for i := range max(bindings, 0) {
		if slices.Contains(v.TexelBindings, i) {
			wantTexel = append(wantTexel, uint32(i))
		} else {
			want = append(want, uint32(i))
		}
	}
	if !slices.Equal(m.Bindings, want) || !slices.Equal(m.TexelBindings, wantTexel) {
		return fail("the plan binds %d buffers, texel buffers %v of the variant's row among them; the module uses storage buffers %v and texel buffers %v",
			bindings, v.TexelBindings, m.Bindings, m.TexelBindings)
	}
	if push := 4*uint32(bindings) + paramBytes; push != m.PushConstantBytes {
		return fail("the plan pushes %d bytes (%d base offsets and %d parameter bytes), the module's push-constant block is %d bytes",
			push, bindings, paramBytes, m.PushConstantBytes)
	}
	if n := len(m.SpecIDs); n > 0 && int(m.SpecIDs[n-1]) >= spec {
		return fail("the plan passes %d specialization constants, the module reads constant ID %d", spec, m.SpecIDs[n-1])
	}
	if spec != len(v.Spec) {
		return fail("the plan passes %d specialization constants, the variant declares %d", spec, len(v.Spec))
	}
	return nil
}
