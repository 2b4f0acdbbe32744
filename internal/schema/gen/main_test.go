package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/schema"
)

// repoRoot is the module root, from this package's folder.
const repoRoot = "../../.."

// TestGeneratedFilesAreCurrent is -check: every generated file is what
// internal/schema gives.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	if err := checkFiles(repoRoot); err != nil {
		t.Fatal(err)
	}
}

// copyTargets copies the generated files into a new root.
func copyTargets(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, tg := range targets {
		b, err := os.ReadFile(filepath.Join(repoRoot, tg.path))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, tg.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// edit replaces old with new in root's file path, which must hold old.
func edit(t *testing.T, root, path, old, new string) {
	t.Helper()
	p := filepath.Join(root, path)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckNamesHandEdits: -check names a file whose generated part was
// edited, and accepts edits to the hand-written text around it.
func TestCheckNamesHandEdits(t *testing.T) {
	root := copyTargets(t)
	edit(t, root, "capi/vkdml.h", "#define VKDML_ABI_VERSION 1u", "#define VKDML_ABI_VERSION 1u /* hand-written */")
	if err := checkFiles(root); err != nil {
		t.Fatalf("an edit outside the generated regions: %v", err)
	}
	edit(t, root, "capi/vkdml.h", "    const uint32_t *dilations;\n", "")
	edit(t, root, "python/vkdml/_capi.py", "ArgMinDesc = ArgMaxDesc\n", "")
	if err := os.Remove(filepath.Join(root, "capi/desc_gen.go")); err != nil {
		t.Fatal(err)
	}
	err := checkFiles(root)
	if err == nil {
		t.Fatal("-check passed edited generated files")
	}
	for _, p := range []string{"capi/vkdml.h", "python/vkdml/_capi.py", "capi/desc_gen.go"} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("-check does not name %s: %v", p, err)
		}
	}
	if strings.Contains(err.Error(), "dmlcom") {
		t.Errorf("-check names an untouched file: %v", err)
	}
}

// TestCheckFollowsTheSchema: a field added to the schema makes every
// generated file stale.
func TestCheckFollowsTheSchema(t *testing.T) {
	d, _ := schema.Lookup("MAX_POOLING2")
	saved := d.Fields
	defer func() { d.Fields = saved }()
	d.Fields = append(append([]schema.Field(nil), saved...),
		schema.Field{Name: "OutputPadding", Kind: schema.Attribute, Type: schema.UIntArray, Count: "DimensionCount"})
	err := checkFiles(repoRoot)
	if err == nil {
		t.Fatal("-check passed after a schema change")
	}
	for _, tg := range targets {
		if !strings.Contains(err.Error(), tg.path) {
			t.Errorf("-check does not name %s: %v", tg.path, err)
		}
	}
}

// TestMissingMarkers: a hand-written file without its markers is an error,
// not a file written without its generated part.
func TestMissingMarkers(t *testing.T) {
	root := copyTargets(t)
	edit(t, root, "python/vkdml/_capi.py", "# END GENERATED: descs\n", "")
	if err := checkFiles(root); err == nil || !strings.Contains(err.Error(), "END GENERATED: descs") {
		t.Errorf("a missing end marker: %v", err)
	}
}
