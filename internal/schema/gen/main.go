// gen writes, from internal/schema, the per-desc code that mirrors
// DirectML's desc structs outside Go: the C structs and operator-type enum
// in capi/vkdml.h and the Python ctypes structs in python/vkdml/_capi.py
// (each between BEGIN/END GENERATED markers, the hand-written text around
// them kept), capi's C to Go conversion (capi/desc_gen.go), the field
// tables of vkdml.run's desc reader (python/vkdml/_schema.py) and the
// Windows DirectML COM structs (internal/dmlcom/descs_gen_windows.go).
//
//	go run ./internal/schema/gen          rewrite the files
//	go run ./internal/schema/gen -check   fail, naming them, when any is stale
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	check := flag.Bool("check", false, "verify the generated files instead of writing them")
	flag.Parse()
	root, err := moduleRoot()
	if err == nil {
		if *check {
			err = checkFiles(root)
		} else {
			err = writeFiles(root)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schema/gen:", err)
		os.Exit(1)
	}
}

// generator is the command that writes the files, as they name it.
const generator = "go run ./internal/schema/gen"

// target is one generated file: render returns its new contents from its
// current ones (nil when the whole file is generated).
type target struct {
	path   string
	render func(old []byte) ([]byte, error)
}

var targets = []target{
	{"capi/vkdml.h", renderRegions(cMarkers, cOperatorTypes, cStructs)},
	{"capi/desc_gen.go", func([]byte) ([]byte, error) { return renderCapiGo() }},
	{"python/vkdml/_capi.py", renderRegions(pyMarkers, pyOperatorTypes, pyStructs)},
	{"python/vkdml/_schema.py", func([]byte) ([]byte, error) { return renderPySchema() }},
	{"internal/dmlcom/descs_gen_windows.go", func([]byte) ([]byte, error) { return renderCOM() }},
}

// rendered returns each target's path and new contents under root, and
// whether it differs from the file there.
func rendered(root string) (paths []string, contents [][]byte, stale []bool, err error) {
	for _, t := range targets {
		p := filepath.Join(root, filepath.FromSlash(t.path))
		old, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, err
		}
		b, err := t.render(old)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", t.path, err)
		}
		paths, contents, stale = append(paths, p), append(contents, b), append(stale, !bytes.Equal(old, b))
	}
	return paths, contents, stale, nil
}

func writeFiles(root string) error {
	paths, contents, stale, err := rendered(root)
	if err != nil {
		return err
	}
	for i, p := range paths {
		if stale[i] {
			if err := os.WriteFile(p, contents[i], 0o644); err != nil {
				return err
			}
			fmt.Println("wrote", p)
		}
	}
	return nil
}

// checkFiles fails naming every file that generating would change.
func checkFiles(root string) error {
	paths, _, stale, err := rendered(root)
	if err != nil {
		return err
	}
	var bad []string
	for i, p := range paths {
		if stale[i] {
			rel, _ := filepath.Rel(root, p)
			bad = append(bad, filepath.ToSlash(rel))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("stale: %s (internal/schema changed, or they were edited by hand); run %s", strings.Join(bad, ", "), generator)
	}
	return nil
}

// moduleRoot is the folder holding go.mod, from the working folder up (go
// generate runs in internal/schema, go run usually at the root).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// region is one generated stretch of a hand-written file.
type region struct {
	name string
	text string // the generated lines, each ending in a newline
}

// markers are how a hand-written file marks its generated regions: the
// region called name lies between a line holding begin and the next
// holding end, each with name in place of its %s.
type markers struct{ begin, end string }

// renderRegions renders a hand-written file whose generated regions,
// marked as m says, are the vkdml_operator_type values ("operator types",
// from types) and the desc structs ("descs", from structs).
func renderRegions(m markers, types, structs func() string) func(old []byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		return replaceRegions(old, m, region{"operator types", types()}, region{"descs", structs()})
	}
}

// replaceRegions puts each region's text between its marker lines in old
// (m), both kept.
func replaceRegions(old []byte, m markers, regions ...region) ([]byte, error) {
	s := string(old)
	for _, r := range regions {
		b, e := fmt.Sprintf(m.begin, r.name), fmt.Sprintf(m.end, r.name)
		i := strings.Index(s, b)
		if i < 0 {
			return nil, fmt.Errorf("no marker line %q", b)
		}
		i += len(b)
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return nil, fmt.Errorf("marker %q ends the file", b)
		}
		i += nl + 1
		j := strings.Index(s[i:], e)
		if j < 0 {
			return nil, fmt.Errorf("no marker line %q after %q", e, b)
		}
		j += i
		for j > i && s[j-1] != '\n' { // the end marker's line starts at j
			j--
		}
		s = s[:i] + r.text + s[j:]
	}
	return []byte(s), nil
}
