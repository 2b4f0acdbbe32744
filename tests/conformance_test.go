package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/conformance"
	"github.com/vkdml/vkdml/internal/testutil"
)

// conformanceData returns ONNX's node test folder (see onnxData).
func conformanceData(t *testing.T) string {
	t.Helper()
	return onnxData(t)
}

// TestONNXConformance runs all 65 ArgMax/ArgMin/MaxPool/MaxUnpool/ReduceMax/
// ReduceMin data sets through the public API with the validation layer on:
// 64 must pass exactly and the one with storage_order=1 must be skipped,
// with the reason.
func TestONNXConformance(t *testing.T) {
	dir := conformanceData(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rs, err := conformance.Run(d, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		switch r.Status {
		case conformance.Fail:
			t.Errorf("%s: FAIL: %s", r.Case, r.Reason)
		case conformance.Skip:
			t.Logf("%s: skip: %s", r.Case, r.Reason)
		}
	}
	sum := conformance.Summarize(rs)
	t.Log(sum)
	if sum.Total != 68 || sum.Passed != 67 || sum.Skipped != 1 {
		t.Errorf("want 67 passed and 1 skipped of 68 data sets, got %+v", sum)
	}
	for _, r := range rs {
		if r.Status == conformance.Skip && (r.Case != "test_maxpool_with_argmax_2d_precomputed_strides" || !strings.Contains(r.Reason, "storage_order")) {
			t.Errorf("unexpected skip %s: %s", r.Case, r.Reason)
		}
	}
}

// TestONNXConformanceCanFail gives an ArgMax data set ArgMin's expected
// output: the suite must report the case failed, naming the elements.
func TestONNXConformanceCanFail(t *testing.T) {
	dir := conformanceData(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	bad := filepath.Join(t.TempDir(), "test_argmax_keepdims_example")
	copyDir(t, filepath.Join(dir, "test_argmax_keepdims_example"), bad)
	wrong, err := os.ReadFile(filepath.Join(dir, "test_argmin_keepdims_example", "test_data_set_0", "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "test_data_set_0", "output_0.pb"), wrong, 0o644); err != nil {
		t.Fatal(err)
	}
	r := conformance.RunCase(d, bad)
	if r.Status != conformance.Fail || !strings.Contains(r.Reason, "differ") {
		t.Fatalf("want a failure naming differing elements, got %+v", r)
	}
	t.Logf("%s: %s", r.Status, r.Reason)
}

// TestConformanceCLI runs `vkdml conformance` and checks the table and the
// exit code, and that a missing data folder is an error.
func TestConformanceCLI(t *testing.T) {
	dir := conformanceData(t)
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips, or fails under CI, without a device
	bin := vkdmlBin(t)
	out, err := exec.Command(bin, "conformance", "--debug", "--data", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("vkdml conformance: %v\n%s", err, out)
	}
	for _, want := range []string{"CASE", "RESULT", "REASON", "test_maxpool_2d_ceil", "PASS", "SKIP", "storage_order", "67 passed, 0 failed, 1 skipped"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.Command(bin, "conformance", "--data", t.TempDir()).CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("no ONNX node test data sets")) {
		t.Errorf("an empty data folder: err %v, output %s", err, out)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestONNXConformanceReportsWhatItCannotMap: a data set under a folder
// name of its own runs; a folder without a model and one of an operator
// vkdml does not map are listed as not mapped with the reason, not left
// out unsaid.
func TestONNXConformanceReportsWhatItCannotMap(t *testing.T) {
	dir := conformanceData(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	mine := t.TempDir()
	copyDir(t, filepath.Join(dir, "test_argmax_keepdims_example"), filepath.Join(mine, "my_argmax"))
	copyDir(t, filepath.Join(dir, "test_globalmaxpool"), filepath.Join(mine, "test_globalmaxpool"))
	if err := os.Mkdir(filepath.Join(mine, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	rs, err := conformance.Run(d, mine, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]conformance.Result{}
	for _, r := range rs {
		got[r.Case] = r
	}
	if r := got["my_argmax"]; r.Status != conformance.Pass {
		t.Errorf("my_argmax: %+v, want it run and passed", r)
	}
	if r := got["test_globalmaxpool"]; r.Status != conformance.NotMapped || r.ONNXOp != "GlobalMaxPool" || !strings.Contains(r.Reason, "not an operator vkdml maps") {
		t.Errorf("test_globalmaxpool: %+v, want not mapped naming GlobalMaxPool", r)
	}
	if r := got["notes"]; r.Status != conformance.NotMapped || !strings.Contains(r.Reason, "no model.onnx") {
		t.Errorf("notes: %+v, want not mapped for having no model.onnx", r)
	}
	if sum := conformance.Summarize(rs); sum.Total != 1 || sum.Passed != 1 || sum.NotMapped != 2 || !strings.Contains(sum.String(), "2 folders not mapped") {
		t.Errorf("summary %+v %q", sum, sum)
	}
}
