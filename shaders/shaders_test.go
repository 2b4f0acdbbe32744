package shaders

import "testing"

func TestEveryVariantIsEmbedded(t *testing.T) {
	if len(Variants) == 0 {
		t.Fatal("empty variant table")
	}
	for _, v := range Variants {
		code, err := SPIRV(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		caps, err := Capabilities(code)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(caps) == 0 || caps[0] != 1 { // Capability Shader comes first
			t.Fatalf("%s: capabilities %v", v.Name, caps)
		}
	}
	if _, err := SPIRV("no_such_variant"); err == nil {
		t.Fatal("unknown variant found")
	}
}

func TestCapabilitiesOfFallbacks(t *testing.T) {
	// The sub-word copy variants must not need 8/16-bit storage; the
	// native ones must.
	has := func(name string, c uint32) bool {
		code, err := SPIRV(name)
		if err != nil {
			t.Fatal(err)
		}
		caps, _ := Capabilities(code)
		for _, x := range caps {
			if x == c {
				return true
			}
		}
		return false
	}
	if has(CopyName(8, false), CapStorageBuffer8BitAccess) || has(CopyName(16, false), CapStorageBuffer16BitAccess) {
		t.Fatal("a words variant needs small storage")
	}
	if !has(CopyName(8, true), CapStorageBuffer8BitAccess) || !has(CopyName(16, true), CapStorageBuffer16BitAccess) {
		t.Fatal("a native variant does not use small storage")
	}
}

func TestCapabilitiesRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("not spir-v at all!!!"), {0x03, 0x02, 0x23, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}} {
		if _, err := Capabilities(b); err == nil {
			t.Fatalf("accepted % x", b)
		}
	}
}
