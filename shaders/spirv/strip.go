package spirv

import "encoding/binary"

// Debug instructions StripSource removes (SPIR-V specification, section
// 3.49.2): the source text and file names, line information, and the
// record of the compiler's passes.
const (
	opSourceContinued = 2
	opSource          = 3
	opSourceExtension = 4
	opString          = 7
	opLine            = 8
	opNoLine          = 317
	opModuleProcessed = 330
)

// StripSource returns a module without its source text, file names, line
// information and processing records, keeping OpName and OpMemberName:
// what glslc -g adds beyond the names the contract check reads
// (shaders.CheckKernel). The instructions it keeps are unchanged, so the
// code is exactly that of the module compiled without -g.
func StripSource(code []byte) ([]byte, error) {
	return rewrite(code, func(op uint32, a []uint32, emit func(uint32, ...uint32)) error {
		switch op {
		case opSourceContinued, opSource, opSourceExtension, opString, opLine, opNoLine, opModuleProcessed:
			return nil
		}
		emit(op, a...)
		return nil
	})
}

// rewrite returns the module with its header and, in place of each
// instruction, what f emits for it.
func rewrite(code []byte, f func(op uint32, a []uint32, emit func(op uint32, a ...uint32)) error) ([]byte, error) {
	words, err := wordsOf(code)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(code)+64)
	for _, w := range words[:5] { // the header
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	emit := func(op uint32, a ...uint32) {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(a)+1)<<16|op)
		for _, w := range a {
			out = binary.LittleEndian.AppendUint32(out, w)
		}
	}
	if err := eachInstruction(words, func(op uint32, a []uint32) error { return f(op, a, emit) }); err != nil {
		return nil, err
	}
	return out, nil
}
