package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// headerFunctions are the functions vkdml.h declares: every prototype is
// marked VKDML_API.
func headerFunctions(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("vkdml.h")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^VKDML_API [^(;]*?\b(vkdml_\w+)\(`).FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	// A prototype without the mark would be missing from vkdml.dll.
	unmarked := regexp.MustCompile(`(?m)^(?:const )?(?:uint32_t|char|VKDML_HRESULT|void)\b[^(;]*\b(vkdml_\w+)\(`).FindAllSubmatch(src, -1)
	for _, m := range unmarked {
		t.Errorf("vkdml.h declares %s without VKDML_API", m[1])
	}
	if len(names) == 0 {
		t.Fatal("found no VKDML_API prototypes in vkdml.h")
	}
	slices.Sort(names)
	return names
}

// TestExportListsMatchHeader: the two lists of exported symbols, the
// Windows import library's .def and the ELF version script, name exactly
// vkdml.h's functions, so that a function added to the header is exported
// on both and nothing else is.
func TestExportListsMatchHeader(t *testing.T) {
	want := headerFunctions(t)

	def, err := os.ReadFile("vkdml.def")
	if err != nil {
		t.Fatal(err)
	}
	var defNames []string
	inExports := false
	for _, line := range strings.Split(string(def), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, ';'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "":
		case line == "EXPORTS":
			inExports = true
		case strings.HasPrefix(line, "LIBRARY"):
			if line != "LIBRARY vkdml.dll" {
				t.Errorf("vkdml.def: %q, want LIBRARY vkdml.dll", line)
			}
		case inExports:
			defNames = append(defNames, strings.Fields(line)[0])
		default:
			t.Errorf("vkdml.def: unexpected line %q", line)
		}
	}
	slices.Sort(defNames)
	if !slices.Equal(defNames, want) {
		t.Errorf("vkdml.def exports %v; vkdml.h declares %v", defNames, want)
	}

	script, err := os.ReadFile("exports.map")
	if err != nil {
		t.Fatal(err)
	}
	global := regexp.MustCompile(`(?s)global:(.*?)local:`).FindSubmatch(script)
	if global == nil {
		t.Fatal("exports.map has no global: ... local: section")
	}
	var mapNames []string
	for _, f := range strings.FieldsFunc(string(global[1]), func(r rune) bool { return r == ';' || r == ' ' || r == '\n' || r == '\t' }) {
		mapNames = append(mapNames, f)
	}
	slices.Sort(mapNames)
	if !slices.Equal(mapNames, want) {
		t.Errorf("exports.map exports %v; vkdml.h declares %v", mapNames, want)
	}
}
