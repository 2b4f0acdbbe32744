package shaders

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/shaders/spirv"
)

func TestEveryVariantIsEmbedded(t *testing.T) {
	if len(Variants) == 0 {
		t.Fatal("empty variant table")
	}
	for _, v := range Variants {
		if _, err := SPIRV(v.Name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := SPIRV("no_such_variant"); err == nil {
		t.Fatal("unknown variant found")
	}
	if _, err := Info("no_such_variant"); !errors.Is(err, ErrUnknownVariant) {
		t.Fatalf("Info of an unknown variant: %v", err)
	}
}

// TestVariantContracts proves the Go side of the Go↔GLSL contract, what
// each table row declares, against the compiled module: bindings
// 0..Bindings-1 and nothing else; a push-constant block of one base offset
// word per binding plus 4 bytes per named push word; specialization
// constants with IDs below len(Spec), the last of them read (so the count
// is the source's), and ID 0 (the workgroup size) always; and the names,
// position by position (CheckVariant).
func TestVariantContracts(t *testing.T) {
	for _, v := range Variants {
		m, err := Info(v.Name)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		var want, wantTexel []uint32
		for b := range v.Bindings {
			if slices.Contains(v.TexelBindings, b) {
				wantTexel = append(wantTexel, uint32(b))
			} else {
				want = append(want, uint32(b))
			}
		}
		if !slices.Equal(m.Bindings, want) || !slices.Equal(m.TexelBindings, wantTexel) {
			t.Errorf("%s: module storage bindings %v and texel bindings %v, table says %d with texel bindings %v", v.Name, m.Bindings, m.TexelBindings, v.Bindings, v.TexelBindings)
		}
		if push := 4*uint32(v.Bindings) + v.ParamBytes(); m.PushConstantBytes != push {
			t.Errorf("%s: push-constant block %d bytes, table says %d (%d bindings + %d)", v.Name, m.PushConstantBytes, push, v.Bindings, v.ParamBytes())
		}
		ids := m.SpecIDs
		if len(ids) == 0 || ids[0] != 0 || int(ids[len(ids)-1]) != len(v.Spec)-1 {
			t.Errorf("%s: specialization-constant IDs %v, table says 0..%d", v.Name, ids, len(v.Spec)-1)
		}
		if err := CheckVariant(v); err != nil {
			t.Errorf("the table's own row: %v", err)
		}
		if err := CheckKernel(v.Name, v.Bindings, v.ParamBytes(), len(v.Spec)); err != nil {
			t.Errorf("the table's own kernel: %v", err)
		}
	}
}

// TestContractNumbers pins the numbers the planners rely on, so that a
// change to a kernel's interface shows up here by name as well as in the
// golden plans.
func TestContractNumbers(t *testing.T) {
	for _, c := range []struct {
		name     string
		bindings int
		push     uint32
		spec     int
	}{
		{CopyName(8, false), 2, 112, 1},
		{CopyVec4Name, 2, 12, 1},
		{ArgMaxName(16, true, ArgMaxGroupSG), 2, 48, 26},
		{ArgMaxCombineName, 2, 28, 26},
		{ArgMaxVecCol8W64, 2, 48, 26},
		{MaxPoolName(64, false, 0), 2, 28, 31},
		{MaxPoolName(8, false, 64), 3, 32, 36},
		{MaxPoolVec2x2Name(32), 3, 20, 6},
		{MaxPoolVec2x2Name(0), 2, 16, 6},
	} {
		m, err := Info(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Bindings) != c.bindings || m.PushConstantBytes != c.push || int(m.SpecIDs[len(m.SpecIDs)-1]) != c.spec-1 {
			t.Errorf("%s: bindings %v, push %d, spec IDs %v; want %d, %d, 0..%d", c.name, m.Bindings, m.PushConstantBytes, m.SpecIDs, c.bindings, c.push, c.spec-1)
		}
	}
}

func TestCheckKernelRefusesMismatches(t *testing.T) {
	name := MaxPoolName(32, false, 32) // 3 bindings, 20 parameter bytes, 36 constants
	if err := CheckKernel(name, 3, 20, 36); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bindings int
		params   uint32
		spec     int
		says     string
	}{
		{2, 24, 36, "binds 2"},
		{4, 16, 36, "binds 4"},
		{3, 16, 36, "pushes 28 bytes"},
		{3, 24, 36, "pushes 36 bytes"},
		{3, 20, 35, "reads constant ID 35"},
		{3, 20, 37, "declares 36"},
	} {
		err := CheckKernel(name, c.bindings, c.params, c.spec)
		if !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), name) {
			t.Errorf("%+v: %v; want ErrContract naming %s and saying %q", c, err, name, c.says)
		}
	}
	if err := CheckKernel("maxpool_f32_noidx", 2, 20, 30); !errors.Is(err, ErrUnknownVariant) {
		t.Errorf("a retired name: %v", err)
	}
}

// TestCheckVariantRefusesSwaps: a row whose names are right but in the
// wrong order (two specialization constants, two push words swapped) or
// wrong (a renamed word, an extra constant, a binding too few) is refused,
// naming the variant, the position and both names. Counts alone would
// pass every one of these but the last two.
func TestCheckVariantRefusesSwaps(t *testing.T) {
	pool, err := Lookup(MaxPoolName(32, false, 32))
	if err != nil {
		t.Fatal(err)
	}
	arg, err := Lookup(ArgMaxCombineName)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(names []string, a, b int) []string {
		out := slices.Clone(names)
		out[a], out[b] = out[b], out[a]
		return out
	}
	cases := []struct {
		name string
		row  Variant
		says []string
	}{
		{"IH and IW swapped", with(pool, func(v *Variant) { v.Spec = swap(v.Spec, 2, 3) }),
			[]string{"specialization constant 2", `declares "IW"`, `module has "IH"`}},
		{"o_begin and o_count swapped", with(arg, func(v *Variant) { v.Push = swap(v.Push, 0, 1) }),
			[]string{"push word 0 after the 2 base offsets", `declares "o_count"`, `module has "o_begin"`}},
		{"a renamed word", with(pool, func(v *Variant) { v.Push = append(slices.Clone(v.Push[:4]), "idx_e1") }),
			[]string{"push word 4", `declares "idx_e1"`, `module has "idx_e0"`}},
		{"an extra constant", with(arg, func(v *Variant) { v.Spec = append(slices.Clone(v.Spec), "DX0") }),
			[]string{"declares 27 specialization constants"}},
		{"a binding too few", with(pool, func(v *Variant) { v.Bindings = 2 }),
			[]string{"push word 0 after the 2 base offsets", `declares "total"`, `module has "base_idx"`}},
	}
	for _, c := range cases {
		err := CheckVariant(c.row)
		if !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), c.row.Name) {
			t.Errorf("%s: %v; want ErrContract naming %s", c.name, err, c.row.Name)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v; want it to say %q", c.name, err, s)
			}
		}
	}
}

// with is a copy of row v changed by edit.
func with(v Variant, edit func(v *Variant)) Variant {
	edit(&v)
	return v
}

// TestCheckVariantNeedsNames: a module without OpNames (compiled with -O
// alone) cannot be held to the names, and says so.
func TestCheckVariantNeedsNames(t *testing.T) {
	v, err := Lookup(CopyVec4Name)
	if err != nil {
		t.Fatal(err)
	}
	bare := &spirv.Module{SpecIDs: []uint32{0}, PushConstantBytes: 12, Bindings: []uint32{0, 1}}
	if err := checkNames(v, bare); !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), "does not name its push-constant words") {
		t.Errorf("push words without names: %v", err)
	}
	bare.PushWords = []string{"base_in", "base_out", "count"}
	if err := checkNames(v, bare); !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), "specialization constant 0: the module does not name it") {
		t.Errorf("spec constants without names: %v", err)
	}
	bare.SpecNames = map[uint32]string{0: spirv.LocalSizeX}
	if err := checkNames(v, bare); err != nil {
		t.Errorf("the named module: %v", err)
	}
}

// TestValuesByName: the planners' by-name fill puts each value in the
// row's position whatever order the names are set in, and refuses a name
// the row does not declare, a name set twice and a declared name left
// unset.
func TestValuesByName(t *testing.T) {
	name := MaxPoolVec2x2Name(0) // spec: local_size_x IH IW OH OW KIND; push: quads per
	spec, err := NewSpec(name).Set("KIND", 2).Set("OW", 4).Set("OH", 3).Set("IW", 8).Set("IH", 6).Set(SpecWorkgroupSize, 64).Words()
	if err != nil || !slices.Equal(spec, []uint32{64, 6, 8, 3, 4, 2}) {
		t.Errorf("spec %v, %v; want [64 6 8 3 4 2]", spec, err)
	}
	push, err := NewPush(name).Set("per", 0x01020304).Set("quads", 5).Bytes()
	if err != nil || !slices.Equal(push, []byte{5, 0, 0, 0, 4, 3, 2, 1}) {
		t.Errorf("push %v, %v", push, err)
	}
	full := func() *Values {
		return NewSpec(name).Set(SpecWorkgroupSize, 64).Set("IH", 6).Set("IW", 8).Set("OH", 3).Set("OW", 4)
	}
	for _, c := range []struct {
		what string
		vals *Values
		says string
	}{
		{"an undeclared name", full().Set("KIND", 2).Set("KD", 1), `specialization constant "KD", which the variant does not declare`},
		{"a name set twice", full().Set("IH", 7).Set("KIND", 2), `specialization constant "IH" twice`},
		{"a name left unset", full(), `leaves specialization constant 5, "KIND", unset`},
		{"an undeclared push word", NewPush(name).Set("quads", 1).Set("per", 1).Set("total", 1), `push word "total", which`},
		{"an unset push word", NewPush(name).Set("per", 1), `leaves push word 0, "quads", unset`},
	} {
		_, err := c.vals.Words()
		_, errBytes := c.vals.Bytes()
		if !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), c.says) || errBytes == nil {
			t.Errorf("%s: %v (Bytes: %v); want ErrContract naming %s and saying %q", c.what, err, errBytes, name, c.says)
		}
	}
	if _, err := NewSpec("maxpool_f32_noidx").Set("IH", 1).Words(); !errors.Is(err, ErrUnknownVariant) {
		t.Errorf("an unknown variant: %v", err)
	}
}

// TestVariantCapabilities: each module declares only the capabilities its
// defines call for, so the fallbacks really run on devices without the
// optional features: 8/16-bit storage only with NATIVE=1, subgroup
// operations only with SUBGROUP=1, Int64 only for the 32-byte-load
// ARGMAX variants, SampledBuffer only with texel bindings, the float
// controls only with FloatControls32, and never Int8, Int16 or Float16.
func TestVariantCapabilities(t *testing.T) {
	int64Variants := []string{ArgMaxVecRow64, ArgMaxVecRow64SG, ArgMaxVecRow64SG1, ArgMaxVecRow64Sub, ArgMaxVecCol8W64}
	for _, v := range Variants {
		m, err := Info(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		defined := func(d string) bool { return slices.Contains(v.Defines, d) }
		allowed := map[spirv.Capability]bool{spirv.CapShader: true}
		if defined("NATIVE=1") && defined("ELEM_BITS=8") {
			allowed[spirv.CapStorageBuffer8BitAccess] = true
		}
		if defined("NATIVE=1") && defined("ELEM_BITS=16") {
			allowed[spirv.CapStorageBuffer16BitAccess] = true
		}
		if defined("SUBGROUP=1") {
			allowed[spirv.CapGroupNonUniform] = true
			allowed[spirv.CapGroupNonUniformArithmetic] = true
		}
		// A _ticket variant (TICKET=1: the last workgroup combines) loads
		// as its base variant does.
		if slices.Contains(int64Variants, strings.TrimSuffix(v.Name, "_ticket")) || defined("HALF_FAST=1") || defined("HALF_VEC=1") {
			allowed[spirv.CapInt64] = true
		}
		if len(v.TexelBindings) > 0 {
			allowed[spirv.CapSampledBuffer] = true
		}
		if v.FloatControls32 {
			allowed[spirv.CapDenormPreserve] = true
			allowed[spirv.CapSignedZeroInfNanPreserve] = true
		}
		if v.RoundingRTE32 {
			if !v.FloatControls32 {
				t.Errorf("%s asks RoundingRTE32 without FloatControls32", v.Name)
			}
			allowed[spirv.CapRoundingModeRTE] = true
		}
		for _, c := range m.Capabilities {
			if !allowed[c] {
				t.Errorf("%s (%v) declares %v", v.Name, v.Defines, c)
			}
		}
		for c := range allowed {
			if !m.Has(c) {
				t.Errorf("%s (%v) does not declare %v: is the variant what its name says?", v.Name, v.Defines, c)
			}
		}
	}
}

// TestHWMulPrecise: MULTIPLY's native-multiply variants and the float
// functions' native-square first passes multiply with OpFMul, every one
// NoContraction (GLSL precise: never fused into a multiply-add, rules 41
// and 42), and their integer twins (and every other REDUCE_FLOAT kernel
// but FLOAT16's vector scan, HALF_FAST) with no float arithmetic at all.
func TestHWMulPrecise(t *testing.T) {
	hw := 0
	for _, v := range Variants {
		if v.Source != "reduce_fmul.comp" && !slices.Contains(v.Defines, "REDUCE_FLOAT=1") {
			continue
		}
		code, err := SPIRV(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spirv.Parse(code)
		if err != nil {
			t.Fatal(err)
		}
		native := slices.Contains(v.Defines, "HW_MUL=1")
		// HALF_FAST widens halves by multiplying normal FLOAT32s by
		// powers of two: exact under any rounding mode, so it needs no
		// float controls, but never fused either.
		halfFast := slices.Contains(v.Defines, "HALF_FAST=1")
		switch {
		case native && (m.FloatArithmetic == 0 || m.Contractible != 0 || !v.RoundingRTE32):
			t.Errorf("%s: %d float ops, %d without NoContraction, RoundingModeRTE %v; want some, 0, true", v.Name, m.FloatArithmetic, m.Contractible, v.RoundingRTE32)
		case halfFast && (m.FloatArithmetic == 0 || m.Contractible != 0):
			t.Errorf("%s: %d float ops, %d without NoContraction; want the exact power-of-two products, all NoContraction", v.Name, m.FloatArithmetic, m.Contractible)
		case halfFast:
		case !native && m.FloatArithmetic != 0:
			t.Errorf("%s: %d float ops, want the integer products only", v.Name, m.FloatArithmetic)
		}
		if native {
			hw++
		}
	}
	if hw == 0 {
		t.Error("no native-multiply variant")
	}
}

func TestElemKind(t *testing.T) {
	if ElemKind(true, true) != KindFloat || ElemKind(false, true) != KindSigned || ElemKind(false, false) != KindUnsigned {
		t.Fatal("ElemKind")
	}
}
