// Package spirv reads the few facts vkdml needs from a SPIR-V module: the
// capabilities it declares, its specialization-constant IDs, the size of
// its push-constant block and the storage-buffer bindings it uses. Both
// sides of the Go↔GLSL contract are checked against them: the planners'
// kernels (shaders.CheckKernel) and the device's features (package gpu
// refuses a module whose capabilities the device lacks).
//
// It is a reader for modules glslc produces for vkdml's compute kernels,
// not a validator: instructions it does not need are skipped, and a module
// it cannot account for (a push-constant member of a type it does not know,
// an instruction running past the end) is an error rather than a guess.
package spirv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// ErrMalformed is wrapped by every error about bytes that are not a
// well-formed little-endian SPIR-V module.
var ErrMalformed = errors.New("spirv: malformed module")

// Module is what Parse reads from a module.
type Module struct {
	// Capabilities are the OpCapability operands, in module order.
	Capabilities []Capability
	// SpecIDs are the SpecId decorations, sorted, without repeats.
	SpecIDs []uint32
	// PushConstantBytes is the size of the push-constant block: the end
	// of its last member (0 when the module has none).
	PushConstantBytes uint32
	// Bindings are the binding numbers of the storage buffers in
	// descriptor set 0, sorted, without repeats (aliasing views of one
	// binding count once).
	Bindings []uint32
}

// Has reports whether the module declares capability c.
func (m *Module) Has(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// Opcodes, decorations and storage classes (SPIR-V specification,
// section 3).
const (
	opCapability       = 17
	opTypeInt          = 21
	opTypeFloat        = 22
	opTypeVector       = 23
	opTypeArray        = 28
	opTypeRuntimeArray = 29
	opTypeStruct       = 30
	opTypePointer      = 32
	opConstant         = 43
	opVariable         = 59
	opDecorate         = 71
	opMemberDecorate   = 72

	decSpecID        = 1
	decArrayStride   = 6
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35

	classUniform       = 2
	classPushConstant  = 9
	classStorageBuffer = 12
)

const magic = 0x07230203

// module is the parse state: the ids and decorations Parse needs to
// account for the push-constant block and the bindings.
type module struct {
	size     map[uint32]uint32    // scalar and vector types: bytes
	array    map[uint32][2]uint32 // array type: element type, length constant
	stride   map[uint32]uint32    // ArrayStride decorations
	constant map[uint32]uint32    // 32-bit OpConstant values
	members  map[uint32][]uint32  // struct type: member types
	offsets  map[[2]uint32]uint32 // (struct, member): Offset decoration
	pointee  map[uint32]uint32    // pointer type: pointee type
	binding  map[uint32]uint32    // variable: Binding decoration
	set      map[uint32]uint32    // variable: DescriptorSet decoration
	buffers  []uint32             // storage-buffer variables
	push     uint32               // the push-constant variable's pointer type
}

// Parse reads a module. Every error wraps ErrMalformed.
func Parse(code []byte) (*Module, error) {
	words, err := wordsOf(code)
	if err != nil {
		return nil, err
	}
	st := &module{
		size: map[uint32]uint32{}, array: map[uint32][2]uint32{}, stride: map[uint32]uint32{},
		constant: map[uint32]uint32{}, members: map[uint32][]uint32{}, offsets: map[[2]uint32]uint32{},
		pointee: map[uint32]uint32{}, binding: map[uint32]uint32{}, set: map[uint32]uint32{},
	}
	m := &Module{}
	err = eachInstruction(words, func(op uint32, a []uint32) error {
		switch {
		case op == opCapability && len(a) == 1:
			m.Capabilities = append(m.Capabilities, Capability(a[0]))
		case op == opDecorate && len(a) >= 3:
			st.decorate(m, a)
		case op == opMemberDecorate && len(a) >= 4 && a[2] == decOffset:
			st.offsets[[2]uint32{a[0], a[1]}] = a[3]
		default:
			st.declare(op, a)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(m.SpecIDs)
	m.SpecIDs = slices.Compact(m.SpecIDs)
	for _, v := range st.buffers {
		b, ok := st.binding[v]
		if !ok || st.set[v] != 0 {
			return nil, fmt.Errorf("%w: storage buffer %%%d has no binding in descriptor set 0", ErrMalformed, v)
		}
		m.Bindings = append(m.Bindings, b)
	}
	slices.Sort(m.Bindings)
	m.Bindings = slices.Compact(m.Bindings)
	if st.push != 0 {
		if m.PushConstantBytes, err = st.sizeOf(st.pointee[st.push], 0); err != nil {
			return nil, fmt.Errorf("push-constant block: %w", err)
		}
	}
	return m, nil
}

func (st *module) decorate(m *Module, a []uint32) {
	switch a[1] {
	case decSpecID:
		m.SpecIDs = append(m.SpecIDs, a[2])
	case decBinding:
		st.binding[a[0]] = a[2]
	case decDescriptorSet:
		st.set[a[0]] = a[2]
	case decArrayStride:
		st.stride[a[0]] = a[2]
	}
}

// declare records the types, constants and variables the sizes and the
// bindings are computed from.
func (st *module) declare(op uint32, a []uint32) {
	switch {
	case (op == opTypeInt || op == opTypeFloat) && len(a) >= 2:
		st.size[a[0]] = a[1] / 8
	case op == opTypeVector && len(a) == 3:
		if s, ok := st.size[a[1]]; ok {
			st.size[a[0]] = s * a[2]
		}
	case op == opTypeArray && len(a) == 3:
		st.array[a[0]] = [2]uint32{a[1], a[2]}
	case op == opTypeStruct && len(a) >= 1:
		st.members[a[0]] = a[1:]
	case op == opTypePointer && len(a) == 3:
		st.pointee[a[0]] = a[2]
	case op == opConstant && len(a) == 3:
		st.constant[a[1]] = a[2]
	case op == opVariable && len(a) >= 3:
		switch a[2] {
		case classPushConstant:
			st.push = a[0]
		case classStorageBuffer, classUniform:
			st.buffers = append(st.buffers, a[1])
		}
	}
}

// sizeOf is the size in bytes of type t as laid out by its Offset and
// ArrayStride decorations.
func (st *module) sizeOf(t uint32, depth int) (uint32, error) {
	if depth > 16 {
		return 0, fmt.Errorf("%w: types nested too deeply", ErrMalformed)
	}
	if s, ok := st.size[t]; ok {
		return s, nil
	}
	if arr, ok := st.array[t]; ok {
		n, okN := st.constant[arr[1]]
		stride, okS := st.stride[t]
		if !okN || !okS {
			return 0, fmt.Errorf("%w: array type %%%d has no constant length or no ArrayStride", ErrMalformed, t)
		}
		return n * stride, nil
	}
	members, ok := st.members[t]
	if !ok {
		return 0, fmt.Errorf("%w: type %%%d is not a scalar, vector, array or struct", ErrMalformed, t)
	}
	var end uint32
	for i, mt := range members {
		off, ok := st.offsets[[2]uint32{t, uint32(i)}]
		if !ok {
			return 0, fmt.Errorf("%w: member %d of struct %%%d has no Offset", ErrMalformed, i, t)
		}
		s, err := st.sizeOf(mt, depth+1)
		if err != nil {
			return 0, err
		}
		end = max(end, off+s)
	}
	return end, nil
}

// wordsOf checks the header and returns the module as words.
func wordsOf(code []byte) ([]uint32, error) {
	if len(code) < 20 || len(code)%4 != 0 || binary.LittleEndian.Uint32(code) != magic {
		return nil, fmt.Errorf("%w: not a little-endian SPIR-V module (%d bytes)", ErrMalformed, len(code))
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	return words, nil
}

// eachInstruction calls f with each instruction's opcode and operands.
func eachInstruction(words []uint32, f func(op uint32, operands []uint32) error) error {
	for i := 5; i < len(words); {
		n, op := int(words[i]>>16), words[i]&0xffff
		if n == 0 || i+n > len(words) {
			return fmt.Errorf("%w: instruction at word %d runs past the end", ErrMalformed, i)
		}
		if err := f(op, words[i+1:i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// Capabilities returns only the OpCapability operands of a module, which
// come first in it, without reading the rest.
func Capabilities(code []byte) ([]Capability, error) {
	words, err := wordsOf(code)
	if err != nil {
		return nil, err
	}
	var caps []Capability
	done := errors.New("past the capabilities")
	err = eachInstruction(words, func(op uint32, a []uint32) error {
		if op != opCapability {
			return done
		}
		if len(a) != 1 {
			return fmt.Errorf("%w: OpCapability with %d operands", ErrMalformed, len(a))
		}
		caps = append(caps, Capability(a[0]))
		return nil
	})
	if err != nil && !errors.Is(err, done) {
		return nil, err
	}
	return caps, nil
}
