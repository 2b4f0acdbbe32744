package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
)

func TestBenchJSONAndPlot(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "bench.svg")
	for _, args := range [][]string{
		{"bench", "--op", "argmax", "--shape", "64,256", "--shape", "256,256", "--axes", "1", "--repeat", "3", "--warmup", "1", "--json", "--plot", plot},
		{"bench", "--op", "maxpool", "--shape", "1,2,16,16", "--window", "2", "--strides", "2", "--indices", "--repeat", "2", "--json"},
		{"bench", "--op", "argmin", "--shape", "300", "--axes", "0", "--kernel", "thread", "--repeat", "2", "--json"},
	} {
		code, out, stderr := vkdml(args...)
		if code != 0 {
			if strings.Contains(stderr, "no usable Vulkan device") {
				testutil.NoDevice(t, stderrError(stderr))
			}
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			for _, k := range []string{"op", "shape", "dtype", "kernel", "median_ms", "wall_median_ms", "gbps"} {
				if _, ok := r[k]; !ok {
					t.Fatalf("%v: key %q missing in %s", args, k, l)
				}
			}
			if r["median_ms"].(float64) <= 0 || r["gbps"].(float64) <= 0 {
				t.Fatalf("non-positive timing: %s", l)
			}
		}
	}
	if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
		t.Fatalf("plot not written: %v", err)
	}
	code, out, _ := vkdml("bench", "--op", "argmax", "--shape", "100", "--axes", "0", "--kernel", "thread", "--repeat", "2")
	if code != 0 || !strings.Contains(out, "thread") || !strings.Contains(out, "%copy") {
		t.Fatalf("table output: %d\n%s", code, out)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench"}, "--op must be one of"},
		{[]string{"bench", "--op", "argmax"}, "--shape is required"},
		{[]string{"bench", "--op", "argmax", "--shape", "4,0", "--axes", "0"}, "size of 0"},
		{[]string{"bench", "--op", "argmax", "--shape", "4", "--axes", "3"}, "out of range"},
		{[]string{"bench", "--op", "maxpool", "--shape", "4,4"}, "--window is required"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--dtype", "float64"}, "--dtype"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--plot", "x.gif"}, "--plot"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--repeat", "0"}, "--repeat"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--steps", "--format", "csv"}, "--steps"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--steps", "--plot", "x.svg"}, "--steps"},
		{[]string{"bench", "--op", "submit", "--steps"}, "--steps"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.msg)
		}
	}
}

// TestBenchSteps: --steps times each of the plan's dispatches: JSON's
// step_ms has one median a dispatch of the plan, and the table lists them
// under the case by kernel.
func TestBenchSteps(t *testing.T) {
	args := []string{"bench", "--op", "topk", "--shape", "1,200000", "--k", "1", "--kernel", "lane", "--repeat", "2", "--warmup", "0", "--steps"}
	code, out, stderr := vkdml(append(args, "--json")...)
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		StepMS []float64 `json:"step_ms"`
		Plan   struct {
			Dispatches []struct {
				Kernel string `json:"kernel"`
			} `json:"dispatches"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Plan.Dispatches) < 2 || len(r.StepMS) != len(r.Plan.Dispatches) {
		t.Fatalf("step_ms %v for %d dispatches; want one each, and several", r.StepMS, len(r.Plan.Dispatches))
	}
	code, out, stderr = vkdml(args...)
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, stderr)
	}
	for i, d := range r.Plan.Dispatches {
		if !strings.Contains(out, fmt.Sprintf("step %-3d %s", i, d.Kernel)) {
			t.Fatalf("table lacks step %d (%s):\n%s", i, d.Kernel, out)
		}
	}
	// Without --steps, no step times.
	code, out, _ = vkdml("bench", "--op", "topk", "--shape", "1,200000", "--k", "1", "--kernel", "lane", "--repeat", "1", "--warmup", "0", "--json")
	if code != 0 || strings.Contains(out, "step_ms") {
		t.Fatalf("without --steps: exit %d, %s", code, out)
	}
}

// TestBenchAllKernelsAndRecords: --kernel all measures every strategy;
// each JSON record stands alone, and no progress bar (\r) is written to a
// stderr that is not a terminal.
func TestBenchAllKernelsAndRecords(t *testing.T) {
	code, out, stderr := vkdml("bench", "--op", "maxpool", "--shape", "1,2,8,8", "--window", "2", "--strides", "2", "--kernel", "all", "--repeat", "2", "--warmup", "0", "--json")
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("a progress bar went to a non-terminal: %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one record per strategy (direct, vec2x2), got %d:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"schema_version", "vkdml_version", "device", "driver", "params", "kernel_requested", "p25_ms", "gbps_low", "gbps_high", "copy_gbps"} {
			if _, ok := r[k]; !ok {
				t.Errorf("key %q missing: %s", k, l)
			}
		}
		if p := r["params"].(map[string]any); p["window"] == nil || p["strides"] == nil {
			t.Errorf("params lack the window: %v", p)
		}
	}
}

// TestParityOutsideTheRepository: from a folder outside the repository,
// parity without --corpus says how to name it, and with --corpus, --golden
// and --json prints the comparison as JSON. The corpus is every eighth
// case of the repository's, 16-bit ones among them (the whole corpus runs
// in tests/parity and CI's parity stages; under Wine it took minutes here).
func TestParityOutsideTheRepository(t *testing.T) {
	repoCorpus, err := filepath.Abs("../../tests/parity")
	if err != nil {
		t.Fatal(err)
	}
	corpus := subsetCorpus(t, repoCorpus, 8)
	wd, _ := os.Getwd()
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, _, stderr := vkdml("parity")
	if code != 2 || !strings.Contains(stderr, "--corpus DIR") || strings.Contains(stderr, "parity: parity:") {
		t.Fatalf("no corpus: exit %d, %q", code, stderr)
	}
	testutil.OpenDML(t, dml.DeviceOptions{})
	code, out, stderr := vkdml("parity", "--corpus", corpus, "--golden", filepath.Join(repoCorpus, "golden"), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		SchemaVersion int  `json:"schema_version"`
		Equal         int  `json:"equal"`
		Passed        bool `json:"passed"`
		Cases         []struct {
			Case, Verdict string
		} `json:"cases"`
		SixteenBit struct {
			Equal int `json:"equal"`
		} `json:"sixteen_bit"`
		Groups []struct {
			Type, Family string
			Equal        int `json:"equal"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if rep.SchemaVersion != 1 || !rep.Passed || rep.Equal == 0 || len(rep.Cases) < rep.Equal {
		t.Fatalf("report: %+v", rep)
	}
	sum := 0
	for _, g := range rep.Groups {
		sum += g.Equal
	}
	if rep.SixteenBit.Equal == 0 || sum != rep.Equal {
		t.Errorf("16-bit equal %d; the groups' equal cases add up to %d, want %d", rep.SixteenBit.Equal, sum, rep.Equal)
	}
}

// subsetCorpus writes a corpus of every step-th case of the corpus in dir
// (corpus.json, their inputs and known-differences.json) to a temporary
// folder and returns it; the goldens stay in dir (parity --golden).
func subsetCorpus(t *testing.T, dir string, step int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]json.RawMessage
	var cases []json.RawMessage
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(c["cases"], &cases); err != nil {
		t.Fatal(err)
	}
	sub := t.TempDir()
	inputs, err := os.ReadDir(filepath.Join(dir, "inputs"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []json.RawMessage
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err == nil {
			err = os.WriteFile(to, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(sub, "inputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(cases); i += step {
		var name struct{ Name string }
		if err := json.Unmarshal(cases[i], &name); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, cases[i])
		for _, e := range inputs { // NAME.npy and NAME.indices.npy
			if n := e.Name(); strings.TrimSuffix(strings.TrimSuffix(n, ".npy"), ".indices") == name.Name {
				copyFile(filepath.Join(dir, "inputs", n), filepath.Join(sub, "inputs", n))
			}
		}
	}
	if c["cases"], err = json.Marshal(kept); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "corpus.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(filepath.Join(dir, "known-differences.json"), filepath.Join(sub, "known-differences.json"))
	return sub
}
