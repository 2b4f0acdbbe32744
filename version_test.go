package vkdml

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReleaseIsTheABIsMajor: VERSION holds one release number whose major
// is vkdml.h's VKDML_ABI_VERSION, which the CMake package's compatibility
// rule (same major) and libvkdml's SONAME rely on.
func TestReleaseIsTheABIsMajor(t *testing.T) {
	raw, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != Release()+"\n" {
		t.Fatalf("VERSION is %q; want one line, the release number, and a newline", raw)
	}
	if err := CheckVersion(Release()); err != nil {
		t.Fatal(err)
	}
	header, err := os.ReadFile("capi/vkdml.h")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#define VKDML_ABI_VERSION (\d+)u$`).FindSubmatch(header)
	if m == nil {
		t.Fatal("capi/vkdml.h defines no VKDML_ABI_VERSION")
	}
	abi, _ := strconv.Atoi(string(m[1]))
	if major, _, _ := strings.Cut(Release(), "."); major != strconv.Itoa(abi) {
		t.Errorf("VERSION %s has major %s; vkdml.h's VKDML_ABI_VERSION is %d: a new ABI is a new major release",
			Release(), major, abi)
	}
}

func TestVersionCarriesBuildMetadata(t *testing.T) {
	if got := WithBuild(""); got != Release() {
		t.Errorf("WithBuild(\"\") = %q, want %q", got, Release())
	}
	if got := WithBuild("g0123abc.dirty"); got != Release()+"+g0123abc.dirty" {
		t.Errorf("WithBuild = %q", got)
	}
	for _, v := range []string{"1.0.0", "0.12.3+g0123abc", "1.0.0+g0123abc.dirty", "10.0.0"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("CheckVersion(%q) = %v; want nil", v, err)
		}
	}
	for _, v := range []string{"", "1.0", "v1.0.0", "01.0.0", "1.0.0-rc1", "1.0.0+", "1.0.0+g12..3", "1.0.0+g_1", "dev"} {
		if err := CheckVersion(v); err == nil {
			t.Errorf("CheckVersion(%q) = nil; want an error", v)
		}
	}
}
