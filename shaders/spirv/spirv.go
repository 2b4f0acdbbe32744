// Package spirv reads the few facts vkdml needs from a SPIR-V module: the
// capabilities it declares, its specialization-constant IDs and names, the
// size and word names of its push-constant block and the storage-buffer
// bindings it uses. Both sides of the Go↔GLSL contract are checked against
// them: the planners' kernels (shaders.CheckKernel) and the device's
// features (package gpu refuses a module whose capabilities the device
// lacks).
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
	// SpecNames maps each SpecId to the OpName of its constant: the GLSL
	// name, where the module keeps debug names. The x component of the
	// workgroup size (GLSL's local_size_x_id), which GLSL does not name,
	// is LocalSizeX. A constant the module does not name is absent.
	SpecNames map[uint32]string
	// PushConstantBytes is the size of the push-constant block: the end
	// of its last member (0 when the module has none).
	PushConstantBytes uint32
	// PushWords names the push-constant block's 32-bit words in order,
	// from its OpMemberNames: a one-word member by its name, word i of a
	// longer member (an array) as name[i]; a word no named member covers
	// is "". Nil when the module does not name the block's members.
	PushWords []string
	// Bindings are the binding numbers of the storage buffers in
	// descriptor set 0, sorted, without repeats (aliasing views of one
	// binding count once).
	Bindings []uint32
	// TexelBindings are the binding numbers of the UniformConstant
	// variables in descriptor set 0 (vkdml declares only uniform texel
	// buffers there), sorted, without repeats.
	TexelBindings []uint32
	// WorkgroupBytes is the shared memory of the module's Workgroup
	// variables (GLSL's shared), each laid out naturally (a scalar or
	// vector at its size rounded up to a power of two, an array as its
	// length times its element's stride, a struct's members in order at
	// their alignments), for holding a kernel to the device's
	// maxComputeSharedMemorySize before a pipeline is created, which
	// the Vulkan specification leaves undefined beyond it.
	WorkgroupBytes uint32
	// FloatArithmetic counts the OpFAdd, OpFSub and OpFMul instructions,
	// and Contractible those of them without the NoContraction decoration
	// (GLSL's precise), which a driver may fuse into a multiply-add.
	FloatArithmetic, Contractible int
}

// Has reports whether the module declares capability c.
func (m *Module) Has(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// Opcodes, decorations and storage classes (SPIR-V specification,
// section 3).
const (
	opName             = 5
	opMemberName       = 6
	opCapability       = 17
	opTypeBool         = 20
	opTypeInt          = 21
	opTypeFloat        = 22
	opTypeVector       = 23
	opTypeMatrix       = 24
	opTypeArray        = 28
	opTypeRuntimeArray = 29
	opTypeStruct       = 30
	opTypePointer      = 32
	opConstant         = 43
	opSpecConstantComp = 51
	opVariable         = 59
	opDecorate         = 71
	opMemberDecorate   = 72
	opFAdd             = 129
	opFSub             = 131
	opFMul             = 133

	decSpecID        = 1
	decBuiltIn       = 11
	decArrayStride   = 6
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35
	decNoContraction = 42

	classUniformConst  = 0
	classUniform       = 2
	classWorkgroup     = 4
	classPushConstant  = 9
	classStorageBuffer = 12

	builtInWorkgroupSize = 25
)

// LocalSizeX is the name SpecNames gives the workgroup size's x
// component, after GLSL's local_size_x_id.
const LocalSizeX = "local_size_x"

const magic = 0x07230203

// module is the parse state: the ids and decorations Parse needs to
// account for the push-constant block and the bindings.
type module struct {
	size     map[uint32]uint32    // scalar and vector types: bytes
	array    map[uint32][2]uint32 // array type: element type, length constant
	matrix   map[uint32][2]uint32 // matrix type: column type, column count
	stride   map[uint32]uint32    // ArrayStride decorations
	constant map[uint32]uint32    // OpConstant values that fit 32 bits
	members  map[uint32][]uint32  // struct type: member types
	offsets  map[[2]uint32]uint32 // (struct, member): Offset decoration
	pointee  map[uint32]uint32    // pointer type: pointee type
	binding  map[uint32]uint32    // variable: Binding decoration
	set      map[uint32]uint32    // variable: DescriptorSet decoration
	buffers  []uint32             // storage-buffer variables
	texels   []uint32             // UniformConstant variables (texel buffers)
	push     uint32               // the push-constant variable's pointer type
	shared   []uint32             // Workgroup variables' pointer types

	specID      map[uint32]uint32    // constant: SpecId decoration
	name        map[uint32]string    // OpName
	memberName  map[[2]uint32]string // (struct, member): OpMemberName
	composite   map[uint32][]uint32  // spec-constant composite: constituents
	workgroupSz uint32               // the BuiltIn WorkgroupSize composite, 0 when none
}

// Parse reads a module. Every error wraps ErrMalformed.
func Parse(code []byte) (*Module, error) {
	words, err := wordsOf(code)
	if err != nil {
		return nil, err
	}
	st := &module{
		size: map[uint32]uint32{}, array: map[uint32][2]uint32{}, matrix: map[uint32][2]uint32{}, stride: map[uint32]uint32{},
		constant: map[uint32]uint32{}, members: map[uint32][]uint32{}, offsets: map[[2]uint32]uint32{},
		pointee: map[uint32]uint32{}, binding: map[uint32]uint32{}, set: map[uint32]uint32{},
		specID: map[uint32]uint32{}, name: map[uint32]string{}, memberName: map[[2]uint32]string{},
		composite: map[uint32][]uint32{},
	}
	m := &Module{}
	var floatResults []uint32
	noContraction := map[uint32]bool{}
	err = eachInstruction(words, func(op uint32, a []uint32) error {
		switch {
		case op == opDecorate && len(a) == 2 && a[1] == decNoContraction:
			noContraction[a[0]] = true
		case (op == opFAdd || op == opFSub || op == opFMul) && len(a) >= 2:
			floatResults = append(floatResults, a[1])
		case op == opCapability && len(a) == 1:
			m.Capabilities = append(m.Capabilities, Capability(a[0]))
		case op == opDecorate && len(a) >= 3:
			st.decorate(m, a)
		case op == opMemberDecorate && len(a) >= 4 && a[2] == decOffset:
			st.offsets[[2]uint32{a[0], a[1]}] = a[3]
		case op == opName && len(a) >= 2:
			st.name[a[0]] = literalString(a[1:])
		case op == opMemberName && len(a) >= 3:
			st.memberName[[2]uint32{a[0], a[1]}] = literalString(a[2:])
		default:
			st.declare(op, a)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.FloatArithmetic = len(floatResults)
	for _, id := range floatResults {
		if !noContraction[id] {
			m.Contractible++
		}
	}
	slices.Sort(m.SpecIDs)
	m.SpecIDs = slices.Compact(m.SpecIDs)
	m.SpecNames = st.specNames()
	if m.Bindings, err = st.bindingsOf(st.buffers, "storage buffer"); err != nil {
		return nil, err
	}
	if m.TexelBindings, err = st.bindingsOf(st.texels, "texel buffer"); err != nil {
		return nil, err
	}
	for _, ptr := range st.shared {
		size, _, err := st.naturalSize(st.pointee[ptr], 0)
		if err != nil {
			return nil, fmt.Errorf("shared variable: %w", err)
		}
		if uint64(m.WorkgroupBytes)+size > 1<<32-1 {
			return nil, fmt.Errorf("%w: shared variables of over 4 GiB", ErrMalformed)
		}
		m.WorkgroupBytes += uint32(size)
	}
	if st.push != 0 {
		block := st.pointee[st.push]
		if m.PushConstantBytes, err = st.sizeOf(block, 0); err != nil {
			return nil, fmt.Errorf("push-constant block: %w", err)
		}
		if m.PushWords, err = st.wordNames(block, m.PushConstantBytes); err != nil {
			return nil, fmt.Errorf("push-constant block: %w", err)
		}
	}
	return m, nil
}

// bindingsOf is the binding numbers of variables vars (what names them
// in an error), sorted, without repeats; each must be in descriptor set 0.
func (st *module) bindingsOf(vars []uint32, what string) ([]uint32, error) {
	var out []uint32
	for _, v := range vars {
		b, ok := st.binding[v]
		if !ok || st.set[v] != 0 {
			return nil, fmt.Errorf("%w: %s %%%d has no binding in descriptor set 0", ErrMalformed, what, v)
		}
		out = append(out, b)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// specNames maps SpecIds to their constants' names (Module.SpecNames).
func (st *module) specNames() map[uint32]string {
	out := map[uint32]string{}
	for c, id := range st.specID {
		if n, ok := st.name[c]; ok && n != "" {
			out[id] = n
		}
	}
	// GLSL's local_size_x_id makes an unnamed constant, the first
	// constituent of the workgroup-size composite.
	if parts := st.composite[st.workgroupSz]; len(parts) > 0 {
		if id, ok := st.specID[parts[0]]; ok && st.name[parts[0]] == "" {
			out[id] = LocalSizeX
		}
	}
	return out
}

// wordNames names the 32-bit words of struct type block, size bytes
// (Module.PushWords), or returns nil when it has no named member.
func (st *module) wordNames(block, size uint32) ([]string, error) {
	words := make([]string, (size+3)/4)
	named := false
	for i, mt := range st.members[block] {
		n, ok := st.memberName[[2]uint32{block, uint32(i)}]
		if !ok || n == "" {
			continue
		}
		named = true
		s, err := st.sizeOf(mt, 1)
		if err != nil {
			return nil, err
		}
		first, end := st.offsets[[2]uint32{block, uint32(i)}]/4, (st.offsets[[2]uint32{block, uint32(i)}]+s+3)/4
		for w := first; w < end; w++ {
			words[w] = n
			if end-first > 1 {
				words[w] = fmt.Sprintf("%s[%d]", n, w-first)
			}
		}
	}
	if !named {
		return nil, nil
	}
	return words, nil
}

// literalString decodes a SPIR-V literal string: UTF-8 bytes in
// little-endian words, ended by a zero byte.
func literalString(words []uint32) string {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}

func (st *module) decorate(m *Module, a []uint32) {
	switch a[1] {
	case decSpecID:
		m.SpecIDs = append(m.SpecIDs, a[2])
		st.specID[a[0]] = a[2]
	case decBuiltIn:
		if a[2] == builtInWorkgroupSize {
			st.workgroupSz = a[0]
		}
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
	case op == opTypeBool && len(a) == 1:
		// A bool has no size in SPIR-V; drivers keep it in a word.
		st.size[a[0]] = 4
	case op == opTypeVector && len(a) == 3:
		// SPIR-V vectors have 2, 3, 4, 8 or 16 components; a larger
		// count (a malformed module) is left unknown, so that no size
		// computed from it can wrap.
		if s, ok := st.size[a[1]]; ok && a[2] >= 2 && a[2] <= 16 {
			st.size[a[0]] = s * a[2]
		}
	case op == opTypeMatrix && len(a) == 3:
		st.matrix[a[0]] = [2]uint32{a[1], a[2]}
	case op == opTypeArray && len(a) == 3:
		st.array[a[0]] = [2]uint32{a[1], a[2]}
	case op == opTypeStruct && len(a) >= 1:
		st.members[a[0]] = a[1:]
	case op == opTypePointer && len(a) == 3:
		st.pointee[a[0]] = a[2]
	case op == opConstant && len(a) == 3:
		st.constant[a[1]] = a[2]
	case op == opConstant && len(a) == 4 && a[3] == 0:
		// A 64-bit constant (an array length glslang may emit so) whose
		// value fits 32 bits.
		st.constant[a[1]] = a[2]
	case op == opSpecConstantComp && len(a) >= 2:
		st.composite[a[1]] = a[2:]
	case op == opVariable && len(a) >= 3:
		switch a[2] {
		case classPushConstant:
			st.push = a[0]
		case classStorageBuffer, classUniform:
			st.buffers = append(st.buffers, a[1])
		case classUniformConst:
			st.texels = append(st.texels, a[1])
		case classWorkgroup:
			st.shared = append(st.shared, a[0])
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
		if n != 0 && stride > (1<<32-1)/n {
			return 0, fmt.Errorf("%w: array type %%%d of over 4 GiB", ErrMalformed, t)
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
		if off+s < off {
			return 0, fmt.Errorf("%w: member %d of struct %%%d ends past 4 GiB", ErrMalformed, i, t)
		}
		end = max(end, off+s)
	}
	return end, nil
}

// naturalSize is the size and alignment in bytes of type t laid out
// naturally (Module.WorkgroupBytes): Workgroup variables carry no Offset
// or ArrayStride decorations, so the layout is the driver's; this one
// pads as std430 does, which no driver's is expected to exceed by much.
// Sizes are 64-bit so that no struct or array of a malformed module wraps
// to a small one; Parse refuses a total over 4 GiB.
func (st *module) naturalSize(t uint32, depth int) (size, align uint64, err error) {
	const most = 1<<32 - 1
	if depth > 16 {
		return 0, 0, fmt.Errorf("%w: types nested too deeply", ErrMalformed)
	}
	if s, ok := st.size[t]; ok {
		align = 1
		for align < uint64(s) {
			align *= 2
		}
		return uint64(s), align, nil
	}
	// column is a matrix's column or an array's element: its stride
	// (size rounded up to its alignment) times n.
	column := func(elem, n uint32, what string) (uint64, uint64, error) {
		es, ea, err := st.naturalSize(elem, depth+1)
		if err != nil {
			return 0, 0, err
		}
		stride := (es + ea - 1) / ea * ea
		if stride > most || n != 0 && stride > most/uint64(n) {
			return 0, 0, fmt.Errorf("%w: shared %s type %%%d of over 4 GiB", ErrMalformed, what, t)
		}
		return uint64(n) * stride, ea, nil
	}
	if arr, ok := st.array[t]; ok {
		n, okN := st.constant[arr[1]]
		if !okN {
			return 0, 0, fmt.Errorf("%w: shared array type %%%d has no OpConstant length (a specialization constant's is not known before the pipeline is built)", ErrMalformed, t)
		}
		return column(arr[0], n, "array")
	}
	if mat, ok := st.matrix[t]; ok {
		return column(mat[0], mat[1], "matrix")
	}
	members, ok := st.members[t]
	if !ok {
		return 0, 0, fmt.Errorf("%w: type %%%d is not a scalar, vector, matrix, array or struct", ErrMalformed, t)
	}
	align = 1
	for _, mt := range members {
		s, a, err := st.naturalSize(mt, depth+1)
		if err != nil {
			return 0, 0, err
		}
		size = (size+a-1)/a*a + s
		align = max(align, a)
		if size > most {
			return 0, 0, fmt.Errorf("%w: shared struct type %%%d of over 4 GiB", ErrMalformed, t)
		}
	}
	return (size + align - 1) / align * align, align, nil
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
