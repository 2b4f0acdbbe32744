package shaders

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/shaders/spirv"
)

// SpecWorkgroupSize names specialization constant 0 in every row: the
// workgroup size, which common.glsl declares with local_size_x_id = 0 (the
// module's name for it, spirv.LocalSizeX).
const SpecWorkgroupSize = spirv.LocalSizeX

// Values fills, by name, the specialization constants or the push words
// that a variant's row declares, and gives them back in the row's order,
// the order the module reads them in. Setting a name the row does not
// declare, setting one twice or leaving one unset is an error wrapping
// ErrContract, which Words and Bytes return: a planner's slip is never a
// silent zero or a value in another constant's place.
type Values struct {
	variant string
	what    string // "specialization constant" or "push word"
	names   []string
	words   []uint32
	set     []bool
	err     error // the first error, reported by Words and Bytes
}

// NewSpec starts the specialization constants of the variant called
// variant (Variant.Spec).
func NewSpec(variant string) *Values {
	v, err := Lookup(variant)
	return newValues(variant, "specialization constant", v.Spec, err)
}

// NewPush starts one step's push words after the base offsets of the
// variant called variant (Variant.Push).
func NewPush(variant string) *Values {
	v, err := Lookup(variant)
	return newValues(variant, "push word", v.Push, err)
}

func newValues(variant, what string, names []string, err error) *Values {
	return &Values{variant: variant, what: what, names: names,
		words: make([]uint32, len(names)), set: make([]bool, len(names)), err: err}
}

// Variant is the name of the variant whose row b fills.
func (b *Values) Variant() string { return b.variant }

// Set gives the value x to the constant or word called name; it returns b
// for chaining, and records the first error for Words and Bytes.
func (b *Values) Set(name string, x uint32) *Values {
	if b.err != nil {
		return b
	}
	switch i := slices.Index(b.names, name); {
	case i < 0:
		b.err = fmt.Errorf("%w: %s: the planner sets %s %q, which the variant does not declare (it declares %s)",
			ErrContract, b.variant, b.what, name, strings.Join(b.names, " "))
	case b.set[i]:
		b.err = fmt.Errorf("%w: %s: the planner sets %s %q twice", ErrContract, b.variant, b.what, name)
	default:
		b.words[i], b.set[i] = x, true
	}
	return b
}

// Words returns the values in the row's order, or the first error: a name
// set that the row does not declare or set twice, or a declared name left
// unset.
func (b *Values) Words() ([]uint32, error) {
	if b.err != nil {
		return nil, b.err
	}
	for i, ok := range b.set {
		if !ok {
			return nil, fmt.Errorf("%w: %s: the planner leaves %s %d, %q, unset", ErrContract, b.variant, b.what, i, b.names[i])
		}
	}
	return b.words, nil
}

// Bytes returns Words as little-endian bytes: a step's push-constant
// parameters.
func (b *Values) Bytes() ([]byte, error) {
	words, err := b.Words()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 4*len(words))
	for _, w := range words {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out, nil
}

// CheckVariant holds a row's names to the module of the variant it names
// (v.Name), position by position: the push-constant block opens with one
// base offset word (base_*) per binding, then the words v.Push names, and
// nothing else; every specialization constant the module reads has the
// name v.Spec gives its ID, and the module reads the last one v.Spec
// declares. A mismatch is an error wrapping ErrContract that names the
// variant, the position and both names. CheckKernel runs it on each
// table row once; a test runs it on a row with two names swapped.
func CheckVariant(v Variant) error {
	m, err := Info(v.Name)
	if err != nil {
		return err
	}
	return checkNames(v, m)
}

func checkNames(v Variant, m *spirv.Module) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrContract, v.Name}, args...)...)
	}
	if m.PushConstantBytes > 0 && m.PushWords == nil {
		return fail("the module does not name its push-constant words (was it compiled without -g? run make shaders)")
	}
	words := m.PushWords
	for i := range v.Bindings {
		if w := nameAt(words, i); !strings.HasPrefix(w, "base_") {
			return fail("push word %d: the module has %s where binding %d's base offset (base_*) belongs", i, quoteName(w), i)
		}
	}
	params := words[min(v.Bindings, len(words)):]
	for i := range max(len(params), len(v.Push)) {
		if declared, module := nameAt(v.Push, i), nameAt(params, i); declared != module {
			return fail("push word %d after the %d base offsets: the variant declares %s, the module has %s",
				i, v.Bindings, quoteName(declared), quoteName(module))
		}
	}
	for _, id := range m.SpecIDs {
		module, ok := m.SpecNames[id]
		if !ok {
			return fail("specialization constant %d: the module does not name it (was it compiled without -g? run make shaders)", id)
		}
		if declared := nameAt(v.Spec, int(id)); declared != module {
			return fail("specialization constant %d: the variant declares %s, the module has %q", id, quoteName(declared), module)
		}
	}
	if n := len(m.SpecIDs); n == 0 || int(m.SpecIDs[n-1]) != len(v.Spec)-1 {
		return fail("the variant declares %d specialization constants, the module reads IDs %v", len(v.Spec), m.SpecIDs)
	}
	return nil
}

// nameAt is names[i], or "" past the end.
func nameAt(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}

// quoteName quotes a name; "" (past the end of a list, or a word no
// member covers) reads "none".
func quoteName(n string) string {
	if n == "" {
		return "none"
	}
	return strconv.Quote(n)
}
