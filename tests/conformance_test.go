package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// conformanceSkips are the data sets that must be skipped, by name
// prefix, and what their reason must say.
var conformanceSkips = []struct{ prefix, reason string }{
	{"test_maxpool_with_argmax_2d_precomputed_strides", "storage_order"},
	{"test_reduce_log_sum_exp_", "DOUBLE (FLOAT64)"}, // all 8 of libonnx-testdata 1.12
}

// TestONNXConformance runs every data set of an ONNX type vkdml maps
// (123 in libonnx-testdata 1.12: ArgMax/ArgMin/MaxPool/MaxUnpool/TopK and
// the Reduce* operators) through the public API with the validation layer
// on: all must pass (the float sums within ONNX's tolerance) but those of
// conformanceSkips, which must be skipped with their reason.
func TestONNXConformance(t *testing.T) {
	dir := conformanceData(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	cases, err := conformance.Cases(dir)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := conformance.Run(d, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	floatSums := []string{"test_reduce_l1_", "test_reduce_l2_", "test_reduce_log_sum", "test_reduce_mean_", "test_reduce_sum_", "test_reduce_sum_square_"}
	passed := map[string]int{}
	for _, r := range rs {
		want := conformance.Pass
		reason := ""
		for _, s := range conformanceSkips {
			if strings.HasPrefix(r.Case, s.prefix) {
				want, reason = conformance.Skip, s.reason
			}
		}
		switch {
		case r.Status == conformance.NotMapped:
		case r.Status != want || !strings.Contains(r.Reason, reason):
			t.Errorf("%s: %s (%s), want %s with a reason naming %q", r.Case, r.Status, r.Reason, want, reason)
		case r.Status == conformance.Skip:
			t.Logf("%s: skip: %s", r.Case, r.Reason)
		default:
			for _, p := range floatSums {
				if strings.HasPrefix(r.Case, p) {
					passed[p]++
				}
			}
		}
	}
	sum := conformance.Summarize(rs)
	t.Log(sum)
	if sum.Total != len(cases) || sum.Total < 123 || sum.Skipped != 9 {
		t.Errorf("want all %d data sets run (at least libonnx-testdata 1.12's 123), 9 of them skipped, got %+v", len(cases), sum)
	}
	// Each float reduction of issue 32 is run, not mapped away.
	for _, p := range floatSums {
		if passed[p] < 5 {
			t.Errorf("%d %s* data sets passed, want at least 5", passed[p], p)
		}
	}
}

// TestTestBinsCopiesEveryConformanceSet: scripts/test-bins.sh copies
// ONNX's data sets for the GPU machine by folder globs; each data set the
// suite runs, and test_globalmaxpool, must match one, or the conformance
// tests fail there for want of data.
func TestTestBinsCopiesEveryConformanceSet(t *testing.T) {
	dir := conformanceData(t)
	script, err := os.ReadFile(filepath.Join("..", "scripts", "test-bins.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var globs []string
	for _, m := range regexp.MustCompile(`"\$ONNX"/(\S+)`).FindAllSubmatch(script, -1) {
		globs = append(globs, string(m[1]))
	}
	cases, err := conformance.Cases(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(cases, filepath.Join(dir, "test_globalmaxpool")) {
		if !slices.ContainsFunc(globs, func(g string) bool { ok, _ := filepath.Match(g, filepath.Base(c)); return ok }) {
			t.Errorf("scripts/test-bins.sh copies %s by none of %v", filepath.Base(c), globs)
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

// TestConformanceCLI runs `vkdml conformance` on a few data sets (a pass
// of each comparison, each kind of skip; TestONNXConformance runs them all)
// and checks the table and the exit code, and that a missing data folder
// is an error.
func TestConformanceCLI(t *testing.T) {
	dir := conformanceData(t)
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips, or fails under CI, without a device
	bin := vkdmlBin(t)
	few := t.TempDir()
	for _, c := range []string{"test_maxpool_2d_ceil", "test_maxpool_with_argmax_2d_precomputed_strides", "test_reduce_sum_empty_axes_input_noop_example",
		"test_reduce_l2_do_not_keepdims_random", "test_reduce_log_sum_exp_keepdims_example"} {
		copyDir(t, filepath.Join(dir, c), filepath.Join(few, c))
	}
	out, err := exec.Command(bin, "conformance", "--debug", "--data", few).CombinedOutput()
	if err != nil {
		t.Fatalf("vkdml conformance: %v\n%s", err, out)
	}
	for _, want := range []string{"CASE", "RESULT", "REASON", "test_maxpool_2d_ceil", "PASS", "SKIP", "storage_order",
		"test_reduce_sum_empty_axes_input_noop_example", "within ONNX's rtol 0.001, atol 1e-07", "DOUBLE (FLOAT64)", "3 passed, 0 failed, 2 skipped"} {
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
