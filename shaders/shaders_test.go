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

// TestVariantContracts proves the Go side of the Go↔GLSL contract, the
// numbers each table row declares, against the compiled module: bindings
// 0..Bindings-1 and nothing else; a push-constant block of one base offset
// word per binding plus ParamBytes; specialization constants with IDs
// below SpecConstants, the last of them read (so the count is the
// source's), and ID 0 (the workgroup size) always.
func TestVariantContracts(t *testing.T) {
	for _, v := range Variants {
		m, err := Info(v.Name)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		var want []uint32
		for b := range v.Bindings {
			want = append(want, uint32(b))
		}
		if !slices.Equal(m.Bindings, want) {
			t.Errorf("%s: module bindings %v, table says %d", v.Name, m.Bindings, v.Bindings)
		}
		if push := 4*uint32(v.Bindings) + v.ParamBytes; m.PushConstantBytes != push {
			t.Errorf("%s: push-constant block %d bytes, table says %d (%d bindings + %d)", v.Name, m.PushConstantBytes, push, v.Bindings, v.ParamBytes)
		}
		ids := m.SpecIDs
		if len(ids) == 0 || ids[0] != 0 || int(ids[len(ids)-1]) != v.SpecConstants-1 {
			t.Errorf("%s: specialization-constant IDs %v, table says 0..%d", v.Name, ids, v.SpecConstants-1)
		}
		if err := CheckKernel(v.Name, v.Bindings, v.ParamBytes, v.SpecConstants); err != nil {
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
		{MaxPoolName(64, false, 0), 2, 28, MaxPoolSpecKind + 1},
		{MaxPoolName(8, false, 64), 3, 52, 31},
		{MaxPoolVec2x2Name(32), 3, 20, MaxPoolVec2x2SpecKind + 1},
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
	name := MaxPoolName(32, false, 32) // 3 bindings, 40 parameter bytes, 31 constants
	if err := CheckKernel(name, 3, 40, 31); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bindings int
		params   uint32
		spec     int
		says     string
	}{
		{2, 44, 31, "binds 2"},
		{4, 36, 31, "binds 4"},
		{3, 36, 31, "pushes 48 bytes"},
		{3, 44, 31, "pushes 56 bytes"},
		{3, 40, 30, "reads constant ID 30"},
		{3, 40, 32, "declares 31"},
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

// TestVariantCapabilities: each module declares only the capabilities its
// defines call for, so the fallbacks really run on devices without the
// optional features: 8/16-bit storage only with NATIVE=1, subgroup
// operations only with SUBGROUP=1, Int64 only for the 32-byte-load
// ARGMAX variants, and never Int8, Int16 or Float16.
func TestVariantCapabilities(t *testing.T) {
	int64Variants := []string{ArgMaxVecRow64, ArgMaxVecRow64SG, ArgMaxVecRow64SG1, ArgMaxVecCol8W64}
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
		if slices.Contains(int64Variants, v.Name) {
			allowed[spirv.CapInt64] = true
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

func TestElemKind(t *testing.T) {
	if ElemKind(true, true) != KindFloat || ElemKind(false, true) != KindSigned || ElemKind(false, false) != KindUnsigned {
		t.Fatal("ElemKind")
	}
}
