package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestParityCase: a case file compared from the command line gives its
// verdict in the text and the JSON, and the exit status follows it; a
// doctored expected output is caught at its coordinates with its block.
func TestParityCase(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{})
	dir := t.TempDir()
	equal := writeCaseFile(t, dir, caseDesc, paritytest.Golden, "")
	doctored := writeCaseFile(t, dir, caseDesc, []uint32{1, 1, 1}, "doctored")

	code, out, stderr := vkdml("parity", "--case", equal)
	if code != 0 || !strings.Contains(out, "verdict:  equal") {
		t.Fatalf("equal: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = vkdml("parity", "--case", doctored, "--json")
	var rec struct {
		Verdict     string
		Differences []struct {
			Coordinates []uint32
			Expected    string
			VKDML       string `json:"vkdml"`
			Source      struct {
				Kind       string
				Start, End []int64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	// Input {{0, 5, 2}, {3, 1, 4}}: column 1's argmax is 0, not 1.
	if code != 1 || rec.Verdict != "differ unexplained" || len(rec.Differences) != 1 {
		t.Fatalf("doctored: exit %d, %+v", code, rec)
	}
	d := rec.Differences[0]
	if d.Coordinates[1] != 1 || d.Expected != "1" || d.VKDML != "0" || d.Source.Kind != "block" ||
		d.Source.Start[0] != 0 || d.Source.End[0] != 2 || d.Source.Start[1] != 1 || d.Source.End[1] != 2 {
		t.Errorf("difference %+v", d)
	}

	// Without expected: vkdml's outcome, nothing compared, exit 0.
	b, _ := json.Marshal(map[string]any{"desc": caseDesc, "inputs": []string{"case.x.npy"}})
	alone := filepath.Join(dir, "alone.json")
	os.WriteFile(alone, b, 0o644)
	if code, out, stderr := vkdml("parity", "--case", alone); code != 0 || !strings.Contains(out, "not compared") {
		t.Errorf("no expected: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestParityCaseRefusals: flags that go without --case, a case file with
// a stray key, a misspelled desc field, a missing .npy and an expected
// output of the wrong size are each refused naming what is wrong.
func TestParityCaseRefusals(t *testing.T) {
	dir := t.TempDir()
	good := writeCaseFile(t, dir, caseDesc, paritytest.Golden, "")
	write := func(name string, v any) string {
		b, _ := json.Marshal(v)
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	misspelled := map[string]any{}
	for k, v := range caseDesc {
		misspelled[k] = v
	}
	misspelled["Axs"] = misspelled["Axes"]
	delete(misspelled, "Axes")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"parity", "--case", good, "--corpus", dir}, 2, "--corpus goes without it"},
		{[]string{"parity", "--case", good, "--live"}, 2, "--live goes without it"},
		{[]string{"parity", "--case", write("stray.json", map[string]any{"desc": caseDesc, "inputs": []string{"case.x.npy"}, "expectd": []string{"case.y.npy"}})}, 1, `unknown field "expectd"`},
		{[]string{"parity", "--case", write("axs.json", map[string]any{"desc": misspelled, "inputs": []string{"case.x.npy"}})}, 1, "Axs"},
		{[]string{"parity", "--case", write("missing.json", map[string]any{"desc": caseDesc, "inputs": []string{"nope.npy"}})}, 1, "inputs[0] nope.npy"},
		{[]string{"parity", "--case", write("short.json", map[string]any{"desc": caseDesc, "inputs": []string{"case.x.npy"}, "expected": []string{"case.x.npy"}})}, 1, "expected[0] case.x.npy"},
		{[]string{"parity", "--case", filepath.Join(dir, "absent.json")}, 1, "absent.json"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}

// TestParityCaseReduceFloatBound: a REDUCE SUM of FLOAT32 whose expected
// output differs from vkdml's within docs/semantics.md rule 44's bound is
// "within bound" with exit status 0; beyond it "outside bound", exit 1.
func TestParityCaseReduceFloatBound(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{})
	dir := t.TempDir()
	desc := map[string]any{
		"Type":         "DML_OPERATOR_REDUCE",
		"Function":     "DML_REDUCE_FUNCTION_SUM",
		"InputTensor":  map[string]any{"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "Sizes": []int{1, 4}, "TotalTensorSizeInBytes": 16},
		"OutputTensor": map[string]any{"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "Sizes": []int{1, 1}, "TotalTensorSizeInBytes": 4},
		"Axes":         []int{1},
	}
	// vkdml's exact sum is 2; a left-to-right FLOAT32 scan gives 1, within
	// γ_3·(2e8 + 2) + ulp(2); 100 is not.
	if err := os.WriteFile(filepath.Join(dir, "x.npy"), paritytest.Float32Npy([]float32{1e8, 1, -1e8, 1}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		expected float32
		verdict  string
		code     int
	}{{2, "equal", 0}, {1, "within bound", 0}, {100, "outside bound", 1}} {
		name := fmt.Sprintf("sum%g", c.expected)
		os.WriteFile(filepath.Join(dir, name+".npy"), paritytest.Float32Npy([]float32{c.expected}), 0o644)
		b, _ := json.Marshal(map[string]any{"desc": desc, "inputs": []string{"x.npy"}, "expected": []string{name + ".npy"}})
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, b, 0o644)
		code, out, stderr := vkdml("parity", "--case", path)
		if code != c.code || !strings.Contains(out, "verdict:  "+c.verdict+"\n") {
			t.Errorf("expected %g: exit %d, want %d and %q\n%s\n%s", c.expected, code, c.code, c.verdict, out, stderr)
		}
	}
}
