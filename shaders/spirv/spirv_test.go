package spirv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
)

// asm assembles instructions (opcode, operands...) after a module header.
func asm(instrs ...[]uint32) []byte {
	words := []uint32{magic, 0x00010300, 0, 100, 0}
	for _, in := range instrs {
		words = append(words, uint32(len(in))<<16|in[0])
		words = append(words, in[1:]...)
	}
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

func in(op uint32, operands ...uint32) []uint32 { return append([]uint32{op}, operands...) }

// handModule declares: capabilities Shader and Int64; spec IDs 3, 0 and 3
// again; a push-constant block {uint @0; uvec2 @8; uint[3] stride 4 @16}
// (28 bytes); storage buffers at bindings 1, 0 and 1 again (an aliasing
// view).
func handModule(extra ...[]uint32) []byte {
	const (
		tUint, tVec2, tLen, tArr, tPush, tPtrPush, vPush = 1, 2, 3, 4, 5, 6, 7
		tBuf, tPtrBuf, vBuf0, vBuf1, vBuf1b, sA, sB      = 8, 9, 10, 11, 12, 13, 14
	)
	instrs := [][]uint32{
		in(opCapability, uint32(CapShader)),
		in(opCapability, uint32(CapInt64)),
		in(opDecorate, sA, decSpecID, 3),
		in(opDecorate, sB, decSpecID, 0),
		in(opDecorate, sA, decSpecID, 3),
		in(opDecorate, tArr, decArrayStride, 4),
		in(opMemberDecorate, tPush, 0, decOffset, 0),
		in(opMemberDecorate, tPush, 1, decOffset, 8),
		in(opMemberDecorate, tPush, 2, decOffset, 16),
		in(opDecorate, vBuf0, decBinding, 1),
		in(opDecorate, vBuf0, decDescriptorSet, 0),
		in(opDecorate, vBuf1, decBinding, 0),
		in(opDecorate, vBuf1, decDescriptorSet, 0),
		in(opDecorate, vBuf1b, decBinding, 1),
		in(opDecorate, vBuf1b, decDescriptorSet, 0),
		in(opTypeInt, tUint, 32, 0),
		in(opTypeVector, tVec2, tUint, 2),
		in(opConstant, tUint, tLen, 3),
		in(opTypeArray, tArr, tUint, tLen),
		in(opTypeStruct, tPush, tUint, tVec2, tArr),
		in(opTypePointer, tPtrPush, classPushConstant, tPush),
		in(opVariable, tPtrPush, vPush, classPushConstant),
		in(opTypeStruct, tBuf, tUint),
		in(opTypePointer, tPtrBuf, classStorageBuffer, tBuf),
		in(opVariable, tPtrBuf, vBuf0, classStorageBuffer),
		in(opVariable, tPtrBuf, vBuf1, classStorageBuffer),
		in(opVariable, tPtrBuf, vBuf1b, classStorageBuffer),
	}
	return asm(append(instrs, extra...)...)
}

func TestParseHandBuiltModule(t *testing.T) {
	m, err := Parse(handModule())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Capabilities, []Capability{CapShader, CapInt64}) || !m.Has(CapInt64) || m.Has(CapInt8) {
		t.Errorf("capabilities %v", m.Capabilities)
	}
	if !slices.Equal(m.SpecIDs, []uint32{0, 3}) {
		t.Errorf("spec IDs %v, want [0 3]", m.SpecIDs)
	}
	if m.PushConstantBytes != 28 {
		t.Errorf("push-constant block %d bytes, want 28", m.PushConstantBytes)
	}
	if !slices.Equal(m.Bindings, []uint32{0, 1}) {
		t.Errorf("bindings %v, want [0 1]", m.Bindings)
	}
	caps, err := Capabilities(handModule())
	if err != nil || !slices.Equal(caps, m.Capabilities) {
		t.Errorf("Capabilities = %v, %v", caps, err)
	}
}

func TestParseNoPushConstants(t *testing.T) {
	m, err := Parse(asm(in(opCapability, uint32(CapShader))))
	if err != nil || m.PushConstantBytes != 0 || len(m.Bindings) != 0 || len(m.SpecIDs) != 0 {
		t.Fatalf("%+v, %v", m, err)
	}
}

func TestParseRejects(t *testing.T) {
	header := asm()
	truncated := append(asm(), 0, 0, 0xff, 0xff) // a 65535-word instruction
	zeroLength := append(asm(), 0, 0, 0, 0)
	for name, code := range map[string][]byte{
		"nil":                        nil,
		"short":                      header[:16],
		"not words":                  append(asm(), 1),
		"bad magic":                  append([]byte{0x03, 0x02, 0x23, 0x08}, header[4:]...),
		"big endian":                 {0x07, 0x23, 0x02, 0x03, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0},
		"truncated":                  truncated,
		"zero length":                zeroLength,
		"text":                       []byte("not a SPIR-V module at all"),
		"capability without operand": asm(in(opCapability)),
	} {
		_, err := Parse(code)
		_, errCaps := Capabilities(code)
		if name == "capability without operand" {
			err = errCaps // Parse skips it; Capabilities must not
		}
		if !errors.Is(err, ErrMalformed) || !errors.Is(errCaps, ErrMalformed) {
			t.Errorf("%s: Parse %v, Capabilities %v; want ErrMalformed", name, err, errCaps)
		}
	}
}

func TestParseRejectsUnaccountableLayouts(t *testing.T) {
	const tPtr, tStruct, tUint, v = 50, 51, 52, 53
	for name, extra := range map[string][][]uint32{
		"member without Offset": {
			in(opTypeInt, tUint, 32, 0),
			in(opTypeStruct, tStruct, tUint),
			in(opTypePointer, tPtr, classPushConstant, tStruct),
			in(opVariable, tPtr, v, classPushConstant),
		},
		"unknown member type": {
			in(opMemberDecorate, tStruct, 0, decOffset, 0),
			in(opTypeStruct, tStruct, 99),
			in(opTypePointer, tPtr, classPushConstant, tStruct),
			in(opVariable, tPtr, v, classPushConstant),
		},
		"buffer without binding": {
			in(opTypeInt, tUint, 32, 0),
			in(opTypeStruct, tStruct, tUint),
			in(opTypePointer, tPtr, classStorageBuffer, tStruct),
			in(opVariable, tPtr, v, classStorageBuffer),
		},
	} {
		if _, err := Parse(asm(extra...)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// TestWorkgroupBytes: the shared variables' natural sizes add up, a
// vector padded to its power-of-two alignment in an array and in a
// struct; a shared array whose length is a specialization constant is
// refused (its size is not known before the pipeline).
func TestWorkgroupBytes(t *testing.T) {
	const (
		tUint, tBool, tVec2, tVec3, n3, n2, tArr3, tArrV3, tS = 60, 61, 62, 63, 64, 65, 66, 67, 68
		pArr, pBool, pS, pArrV3, vA, vB, vC, vD, vE           = 70, 71, 72, 73, 74, 75, 76, 77, 78
		nSpec, tArrSpec, pArrSpec, vSpec                      = 80, 81, 82, 83
	)
	types := [][]uint32{
		in(opTypeInt, tUint, 32, 0),
		in(opTypeBool, tBool),
		in(opTypeVector, tVec2, tUint, 2),
		in(opTypeVector, tVec3, tUint, 3),
		in(opConstant, tUint, n3, 3),
		in(opConstant, tUint, n2, 2),
		in(opTypeArray, tArr3, tUint, n3),  // 12
		in(opTypeArray, tArrV3, tVec3, n2), // 2 x 16
		in(opTypeStruct, tS, tUint, tVec2), // 4, pad to 8, 8: 16
		in(opTypePointer, pArr, classWorkgroup, tArr3),
		in(opTypePointer, pBool, classWorkgroup, tBool),
		in(opTypePointer, pS, classWorkgroup, tS),
		in(opTypePointer, pArrV3, classWorkgroup, tArrV3),
		in(opVariable, pArr, vA, classWorkgroup),
		in(opVariable, pBool, vB, classWorkgroup),
		in(opVariable, pS, vC, classWorkgroup),
		in(opVariable, pArrV3, vD, classWorkgroup),
		in(opVariable, pArr, vE, classWorkgroup),
	}
	m, err := Parse(handModule(types...))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint32(12 + 4 + 16 + 32 + 12); m.WorkgroupBytes != want {
		t.Errorf("WorkgroupBytes %d, want %d", m.WorkgroupBytes, want)
	}
	if m, err := Parse(handModule()); err != nil || m.WorkgroupBytes != 0 {
		t.Errorf("no shared variables: %d, %v", m.WorkgroupBytes, err)
	}
	spec := append(types[:1:1],
		in(50 /* OpSpecConstant */, tUint, nSpec, 64),
		in(opTypeArray, tArrSpec, tUint, nSpec),
		in(opTypePointer, pArrSpec, classWorkgroup, tArrSpec),
		in(opVariable, pArrSpec, vSpec, classWorkgroup))
	if _, err := Parse(handModule(spec...)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "specialization constant") {
		t.Errorf("a shared array of a specialization constant's length: %v, want ErrMalformed naming it", err)
	}
}

// TestWorkgroupBytesLayouts: 16- and 64-bit scalars, a matrix, a struct
// in an array (its stride its size rounded to its alignment) and a 64-bit
// length constant; then malformed modules whose sizes would wrap 32 bits
// (a struct of two 2 GiB arrays, a vector of 0x30000000 components), which
// must fail rather than pass as small (or, the vector, hang).
func TestWorkgroupBytesLayouts(t *testing.T) {
	const (
		tU16, tU64, tF32, tVec4, tMat4, tSt, n2, n3L, tArrSt, tArrU16 = 60, 61, 62, 63, 64, 65, 66, 67, 68, 69
		pMat, pArrSt, pArrU16, vA, vB, vC                             = 70, 71, 72, 73, 74, 75
	)
	types := [][]uint32{
		in(opTypeInt, tU16, 16, 0),
		in(opTypeInt, tU64, 64, 0),
		in(opTypeFloat, tF32, 32),
		in(opTypeVector, tVec4, tF32, 4),
		in(opTypeMatrix, tMat4, tVec4, 4), // 64, align 16
		in(opTypeStruct, tSt, tU16, tU64), // 2, pad to 8, 8: 16, align 8
		in(opConstant, tU16, n2, 2),
		in(opConstant, tU64, n3L, 3, 0),     // a 64-bit 3
		in(opTypeArray, tArrSt, tSt, n2),    // 2 x 16
		in(opTypeArray, tArrU16, tU16, n3L), // 3 x 2
		in(opTypePointer, pMat, classWorkgroup, tMat4),
		in(opTypePointer, pArrSt, classWorkgroup, tArrSt),
		in(opTypePointer, pArrU16, classWorkgroup, tArrU16),
		in(opVariable, pMat, vA, classWorkgroup),
		in(opVariable, pArrSt, vB, classWorkgroup),
		in(opVariable, pArrU16, vC, classWorkgroup),
	}
	m, err := Parse(handModule(types...))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint32(64 + 32 + 6); m.WorkgroupBytes != want {
		t.Errorf("WorkgroupBytes %d, want %d", m.WorkgroupBytes, want)
	}

	const (
		tU32, nHalf, tHalf, tBig, pBig, vBig = 80, 81, 82, 83, 84, 85
		tHuge, pHuge, vHuge                  = 86, 87, 88
	)
	big := [][]uint32{
		in(opTypeInt, tU32, 32, 0),
		in(opConstant, tU32, nHalf, 1<<29),         // 2 GiB of words
		in(opTypeArray, tHalf, tU32, nHalf),        // 2 GiB
		in(opTypeStruct, tBig, tHalf, tHalf, tU32), // 4 GiB + 4
		in(opTypePointer, pBig, classWorkgroup, tBig),
		in(opVariable, pBig, vBig, classWorkgroup),
	}
	if m, err := Parse(handModule(big...)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a shared struct of 4 GiB + 4 bytes: WorkgroupBytes %v, err %v, want ErrMalformed", m, err)
	}
	huge := [][]uint32{
		in(opTypeInt, tU32, 32, 0),
		in(opTypeVector, tHuge, tU32, 0x30000000),
		in(opTypePointer, pHuge, classWorkgroup, tHuge),
		in(opVariable, pHuge, vHuge, classWorkgroup),
	}
	if m, err := Parse(handModule(huge...)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a shared vector of 0x30000000 components: %v, err %v, want ErrMalformed", m, err)
	}
}

func TestCapabilityString(t *testing.T) {
	if s := CapStorageBuffer8BitAccess.String(); s != "StorageBuffer8BitAccess" {
		t.Errorf("got %q", s)
	}
	if s := Capability(5000).String(); s != "Capability(5000)" {
		t.Errorf("got %q", s)
	}
}

// TestCapabilityFeature: each feature-governed capability follows its flag
// alone; the others are left to the caller (known false).
func TestCapabilityFeature(t *testing.T) {
	flags := []struct {
		c    Capability
		name string
		set  func(f *caps.Features)
	}{
		{CapInt64, "shaderInt64", func(f *caps.Features) { f.ShaderInt64 = true }},
		{CapInt16, "shaderInt16", func(f *caps.Features) { f.ShaderInt16 = true }},
		{CapInt8, "shaderInt8", func(f *caps.Features) { f.ShaderInt8 = true }},
		{CapFloat16, "shaderFloat16", func(f *caps.Features) { f.ShaderFloat16 = true }},
		{CapStorageBuffer8BitAccess, "storageBuffer8BitAccess", func(f *caps.Features) { f.StorageBuffer8Bit = true }},
		{CapStorageBuffer16BitAccess, "storageBuffer16BitAccess", func(f *caps.Features) { f.StorageBuffer16Bit = true }},
		{CapGroupNonUniformArithmetic, "subgroup arithmetic", func(f *caps.Features) { f.SubgroupArithmetic = true }},
	}
	for _, c := range flags {
		var f caps.Features
		if name, ok, known := c.c.Feature(f); !known || ok || !strings.Contains(name, c.name) {
			t.Errorf("%v without its flag: %q, ok %v, known %v", c.c, name, ok, known)
		}
		c.set(&f)
		if _, ok, known := c.c.Feature(f); !known || !ok {
			t.Errorf("%v with its flag: ok %v, known %v", c.c, ok, known)
		}
	}
	all := caps.Features{ShaderInt64: true, ShaderInt16: true, ShaderInt8: true, ShaderFloat16: true, StorageBuffer8Bit: true,
		StorageBuffer16Bit: true, SubgroupArithmetic: true, SubgroupSizeControl: true, ComputeFullSubgroups: true, SubgroupExtendedTypes: true}
	if _, ok, known := CapInt64Atomics.Feature(all); !known || ok {
		t.Errorf("Int64Atomics: ok %v, known %v; vkdml never enables it", ok, known)
	}
	for _, c := range []Capability{CapShader, CapGroupNonUniform, CapGroupNonUniformVote, CapGroupNonUniformBallot, CapGroupNonUniformShuffle, 5000} {
		if _, _, known := c.Feature(all); known {
			t.Errorf("%v: known; no feature flag governs it", c)
		}
	}
}

// str encodes a literal string: bytes in little-endian words, ended by a
// zero byte.
func str(s string) []uint32 { return literalWords(s) }

// named adds to handModule: names for spec constant 3 and for the push
// block's first and third members (the uvec2 at byte 8 is unnamed), and a
// workgroup-size composite whose x component is spec constant 0.
func named() [][]uint32 {
	const tPush, sA, sB, wgSize, one = 5, 13, 14, 20, 21
	return [][]uint32{
		append(in(opName, sA), str("IH")...),
		append(in(opMemberName, tPush, 0), str("total")...),
		append(in(opMemberName, tPush, 2), str("sizes")...),
		in(opDecorate, wgSize, decBuiltIn, builtInWorkgroupSize),
		in(opSpecConstantComp, 1, wgSize, sB, one, one),
	}
}

func TestParseNames(t *testing.T) {
	m, err := Parse(handModule(named()...))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.SpecNames) != 2 || m.SpecNames[3] != "IH" || m.SpecNames[0] != LocalSizeX {
		t.Errorf("spec names %v, want 0: %s, 3: IH", m.SpecNames, LocalSizeX)
	}
	want := []string{"total", "", "", "", "sizes[0]", "sizes[1]", "sizes[2]"}
	if !slices.Equal(m.PushWords, want) {
		t.Errorf("push words %q, want %q", m.PushWords, want)
	}
	bare, err := Parse(handModule())
	if err != nil || len(bare.SpecNames) != 0 || bare.PushWords != nil {
		t.Errorf("a module without names: spec names %v, push words %q, %v", bare.SpecNames, bare.PushWords, err)
	}
}

// TestStripSource: the source text, file names and line information go,
// the names and everything else stay, in order.
func TestStripSource(t *testing.T) {
	const file = 30
	debug := [][]uint32{
		append(in(opString, file), str("maxpool.comp")...),
		append(in(opSource, 2, 450, file), str("#version 450")...),
		append(in(opSourceExtension), str("GL_GOOGLE_include_directive")...),
		append(in(opModuleProcessed), str("entry-point main")...),
		in(opLine, file, 12, 1),
		in(opNoLine),
	}
	withDebug := handModule(append(debug, named()...)...)
	stripped, err := StripSource(withDebug)
	if err != nil {
		t.Fatal(err)
	}
	if want := handModule(named()...); !slices.Equal(stripped, want) {
		t.Errorf("stripped module of %d bytes differs from the module without debug instructions (%d bytes)", len(stripped), len(want))
	}
	if _, err := StripSource([]byte("not SPIR-V")); !errors.Is(err, ErrMalformed) {
		t.Errorf("StripSource of text: %v", err)
	}
}

// TestFloatControls: AddFloatControls32 declares the capabilities, the
// extension and the 32-bit modes on the entry point (RoundingModeRTE only
// when asked), refuses a module that has them, and StripFloatControls
// gives back the module unchanged.
func TestFloatControls(t *testing.T) {
	for _, rte := range []bool{false, true} {
		if _, err := AddFloatControls32(handModule(), rte); err == nil {
			t.Error("a module without an entry point: no error")
		}
		code := handModule(in(opEntryPoint, append([]uint32{5, 99}, str("main")...)...)) // GLCompute %99 "main"
		added, err := AddFloatControls32(code, rte)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(added)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Has(CapDenormPreserve) || !m.Has(CapSignedZeroInfNanPreserve) || m.Has(CapRoundingModeRTE) != rte {
			t.Errorf("rte %v: capabilities %v", rte, m.Capabilities)
		}
		words, _ := wordsOf(added)
		modes, rteModes, ext := 0, 0, false
		_ = eachInstruction(words, func(op uint32, a []uint32) error {
			if op == opExecutionMode && len(a) == 3 && a[2] == 32 && (a[1] == modeDenormPreserve || a[1] == modeSignedZeroInfNanPreserve) {
				modes++
			}
			if op == opExecutionMode && len(a) == 3 && a[2] == 32 && a[1] == modeRoundingModeRTE {
				rteModes++
			}
			ext = ext || op == opExtension && literalString(a) == floatControlsExtension
			return nil
		})
		if modes != 2 || !ext || (rteModes == 1) != rte {
			t.Errorf("rte %v: %d float-controls modes, %d RTE modes, extension declared %v; want 2, %v and true", rte, modes, rteModes, ext, rte)
		}
		if _, err := AddFloatControls32(added, rte); err == nil {
			t.Error("adding the float controls twice: no error")
		}
		back, err := StripFloatControls(added)
		if err != nil || !bytes.Equal(back, code) {
			t.Errorf("rte %v: stripped: %v, equal to the original %v", rte, err, bytes.Equal(back, code))
		}
	}
}
