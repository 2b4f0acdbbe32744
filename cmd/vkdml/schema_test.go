// The JSON Schema modules reach package net (their loaders fetch by URL),
// whose cgo resolver does not compile against glibc's headers, which
// scripts/cross-android.sh vets android/arm64 with when there is no NDK:
// the schemas are checked on every other target.

//go:build !android

package main

// The JSON Schemas of the command's JSON outputs and the parity formats,
// docs/schema/NAME.schema.json, are generated here from the Go types that
// write them (github.com/invopop/jsonschema: json tags, omitempty fields
// optional, every other one required, no unknown keys), and real outputs
// are validated against them (github.com/santhosh-tekuri/jsonschema).
// The types of the outputs live in this package main, which no generator
// program can import; so this test is the generator:
//
//	go test ./cmd/vkdml -run TestJSONSchemasUpToDate -update-schemas

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/conformance"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/profiles"
)

var updateSchemas = flag.Bool("update-schemas", false, "rewrite docs/schema/*.schema.json from the Go types")

// schemaDir is docs/schema from this package's folder.
const schemaDir = "../../docs/schema"

// devicesDoc is devicesJSON with its devices' type: the entries are
// deviceReports with snake_case keys (snakeJSON).
type devicesDoc struct {
	SchemaVersion int                `json:"schema_version"`
	VkdmlVersion  string             `json:"vkdml_version"`
	Default       int                `json:"default"`
	Devices       []dml.DeviceReport `json:"devices"`
}

// jsonSchemas are the schemas, by file name, and the types they describe.
var jsonSchemas = []struct {
	name, title string
	v           any
	snake       bool // keys become snake_case, as snakeJSON writes them
}{
	{"case", "vkdml parity --case CASE.json: one case of your own", &parity.CaseFile{}, false},
	{"corpus", "a parity corpus's corpus.json", &parity.Corpus{}, false},
	{"results", "a parity corpus's golden/results.json", &parity.Results{}, false},
	{"known-differences", "a parity corpus's known-differences.json", &parity.KnownDifferences{}, false},
	{"parity", "vkdml parity --json", &parityReport{}, false},
	{"parity-case", "vkdml parity --case CASE.json --json", &parityCaseReport{}, false},
	{"bench", "one line of vkdml bench --json", &benchRecord{}, false},
	{"plan", "one line of vkdml plan --json", &planRecord{}, false},
	{"devices", "vkdml devices --json", &devicesDoc{}, true},
	{"conformance", "vkdml conformance --json", &conformanceReport{}, false},
}

// generateSchema is the schema of v, indented, with a trailing newline.
func generateSchema(t *testing.T, name, title string, v any, snake bool) []byte {
	t.Helper()
	r := &jsonschema.Reflector{}
	// The parity package's doc comments become descriptions (the
	// import path is base joined with the folder, this package's).
	if err := r.AddGoComments("github.com/vkdml/vkdml/cmd/vkdml", "../../internal/parity"); err != nil {
		t.Fatal(err)
	}
	// AddGoComments keys a comment by path.Join(base, filepath.Dir(file)),
	// which on Windows keeps filepath.Dir's backslashes:
	// "github.com/vkdml/vkdml/cmd/vkdml/..\..\internal\parity.Corpus", a
	// package no type is in, so the schemas lost every description there
	// (make test-windows). No import path or identifier holds a backslash:
	// make the keys the ones Unix gives.
	for k, v := range r.CommentMap {
		if strings.Contains(k, `\`) {
			delete(r.CommentMap, k)
			r.CommentMap[path.Clean(strings.ReplaceAll(k, `\`, "/"))] = v
		}
	}
	if snake {
		r.KeyNamer = profiles.SnakeCase
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://github.com/vkdml/vkdml/docs/schema/" + name + ".schema.json")
	s.Title = title
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestJSONSchemasUpToDate(t *testing.T) {
	for _, s := range jsonSchemas {
		want := generateSchema(t, s.name, s.title, s.v, s.snake)
		path := filepath.Join(schemaDir, s.name+".schema.json")
		if *updateSchemas {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the Go types give (%v); run go test ./cmd/vkdml -run TestJSONSchemasUpToDate -update-schemas", path, err)
		}
	}
}

// compileSchema compiles docs/schema/NAME.schema.json.
func compileSchema(t *testing.T, name string) *validator.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(schemaDir, name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := validator.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// validateJSON validates each JSON document of out (one, or JSON Lines
// with lines) against schema name.
func validateJSON(t *testing.T, name, out string, lines bool) {
	t.Helper()
	s := compileSchema(t, name)
	docs := []string{out}
	if lines {
		docs = strings.Split(strings.TrimSpace(out), "\n")
	}
	for _, d := range docs {
		inst, err := validator.UnmarshalJSON(strings.NewReader(d))
		if err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", name, err, d)
		}
		if err := s.Validate(inst); err != nil {
			t.Errorf("%s does not validate:\n%v\n%s", name, err, clipOutput(d))
		}
	}
}

func clipOutput(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// TestSchemaRefusesWhatTheTypesDoNot checks that the schemas can fail: an
// unknown key, a missing required key and a wrong type are each refused.
func TestSchemaRefusesWhatTheTypesDoNot(t *testing.T) {
	s := compileSchema(t, "case")
	for _, doc := range []string{
		`{"desc": {}, "inputs": ["x.npy"], "expectd": ["y.npy"]}`,
		`{"inputs": ["x.npy"]}`,
		`{"desc": {}, "inputs": "x.npy"}`,
	} {
		inst, err := validator.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(inst) == nil {
			t.Errorf("case schema accepts %s", doc)
		}
	}
}

// TestParityFilesValidate validates the shipped corpus's files and the
// parity --case files of python/tests/test_compare.py's kind.
func TestParityFilesValidate(t *testing.T) {
	for name, path := range map[string]string{
		"corpus":            "../../tests/parity/corpus.json",
		"results":           "../../tests/parity/golden/results.json",
		"known-differences": "../../tests/parity/known-differences.json",
		"case":              writeCaseFile(t, t.TempDir(), caseDesc, []uint32{1, 0, 1}, ""),
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		validateJSON(t, name, string(b), false)
	}
}

// TestJSONOutputsValidate runs every JSON output of the command and
// validates it against its schema.
func TestJSONOutputsValidate(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{})
	corpus := paritytest.Corpus(t)
	dir := t.TempDir()
	equal := writeCaseFile(t, dir, caseDesc, paritytest.Golden, "")
	doctored := writeCaseFile(t, dir, caseDesc, []uint32{0, 0, 1}, "doctored")
	runs := []struct {
		schema string
		lines  bool
		args   []string
	}{
		{"devices", false, []string{"devices", "--json"}},
		{"plan", true, []string{"plan", "--op", "maxpool", "--shape", "1,2,16,16", "--window", "2", "--strides", "2", "--indices", "--json"}},
		{"plan", true, []string{"plan", "--op", "argmax", "--shape", "64,256", "--shape", "4096", "--axes", "-1", "--json", "--check"}},
		{"bench", true, []string{"bench", "--op", "argmax", "--shape", "64,256", "--axes", "1", "--repeat", "2", "--warmup", "1", "--json"}},
		{"bench", true, []string{"bench", "--op", "submit", "--repeat", "2", "--json"}},
		{"parity", false, []string{"parity", "--corpus", corpus, "--json"}},
		{"parity-case", false, []string{"parity", "--case", equal, "--json"}},
		{"parity-case", false, []string{"parity", "--case", doctored, "--json"}},
	}
	if data := conformance.DataDir(); dirExists(data) {
		// A pass of each comparison, each kind of skip and a folder not
		// mapped: the whole suite takes seconds (tests/ runs it).
		few := t.TempDir()
		for _, c := range []string{"test_argmax_default_axis_example", "test_reduce_sum_keepdims_example", "test_reduce_log_sum_exp_keepdims_example",
			"test_maxpool_with_argmax_2d_precomputed_strides", "test_globalmaxpool"} {
			if err := os.CopyFS(filepath.Join(few, c), os.DirFS(filepath.Join(data, c))); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, struct {
			schema string
			lines  bool
			args   []string
		}{"conformance", false, []string{"conformance", "--data", few, "--json"}})
	} else {
		t.Logf("conformance --json not validated: no ONNX data in %s", data)
	}
	// plan --check fails a plan whose ops were not counted, as where
	// opsUncounted: its output is validated all the same.
	uncounted := opsUncounted()
	for _, c := range runs {
		code, out, stderr := vkdml(c.args...)
		if uncounted != nil && c.schema == "plan" && code == 1 && strings.Contains(out, "ops_per_byte: not counted") {
			t.Logf("%v: exit 1, the ops not counted (%v)", c.args, uncounted)
		} else if code != 0 && !(code == 1 && strings.Contains(stderr, "differs")) {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		validateJSON(t, c.schema, out, c.lines)
	}
}
