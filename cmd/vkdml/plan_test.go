package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/opcount"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// planJSON runs vkdml plan --json with args and decodes its records.
func planJSON(t *testing.T, args ...string) []planRecord {
	t.Helper()
	code, stdout, stderr := vkdml(append([]string{"plan", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("vkdml plan %s: exit %d, %s", strings.Join(args, " "), code, stderr)
	}
	var recs []planRecord
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r planRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v in %q", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

// opsUncounted is why vkdml plan leaves ops_per_byte null here, where that
// is expected, or nil: it counts with spirv-opt and spirv-dis, which a
// Windows program under Wine cannot start (make test-windows skips the
// tests that need the counts, as it skips internal/opcount's); on Windows
// itself the Vulkan SDK's would do. Elsewhere the tools are required.
func opsUncounted() error {
	if runtime.GOOS != "windows" {
		return nil
	}
	return opcount.Available()
}

// TestPlanProfileFacts: a plan for the h100 profile names the profile,
// gives every dispatch its kernel, grid, constants and push words by name,
// and facts that agree with each other and with the profile.
func TestPlanProfileFacts(t *testing.T) {
	recs := planJSON(t, "--op", "argmax", "--axes", "1", "--shape", "65536,1000", "--shape", "64,2048", "--profile", "h100")
	uncounted := opsUncounted()
	if uncounted != nil {
		t.Logf("ops_per_byte must be null: %v", uncounted)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records for two shapes", len(recs))
	}
	for _, r := range recs {
		if p := r.Profile; p == nil || p.Name != "h100" || p.ComputeUnits != 132 || p.ResidentLanes != 132*2048 || p.SubgroupSize != 32 {
			t.Errorf("profile %+v", r.Profile)
		}
		if r.OperatorType != "ARGMAX" || r.Tuning["exactGrid"] == nil || len(r.Dispatches) == 0 {
			t.Errorf("record %+v", r)
		}
		var lanes, read uint64
		for _, d := range r.Dispatches {
			wg := d.Spec["local_size_x"]
			if d.Workgroup != [3]uint32{wg, 1, 1} || wg == 0 || d.Push["o_count"] == 0 {
				t.Errorf("dispatch %s: workgroup %v, spec %v, push %v", d.Kernel, d.Workgroup, d.Spec, d.Push)
			}
			if want := uint64(d.Groups[0]) * uint64(d.Groups[1]) * uint64(d.Groups[2]) * uint64(wg); d.Lanes != want {
				t.Errorf("dispatch %s: %d lanes, groups × workgroup %d", d.Kernel, d.Lanes, want)
			}
			if want := min(d.Lanes, 132*2048) * d.BytesPerLaneInFlight; d.BytesInFlight != want {
				t.Errorf("dispatch %s: bytes in flight %d, want %d", d.Kernel, d.BytesInFlight, want)
			}
			lanes += d.Lanes
			read += d.BytesRead
		}
		var partials uint64
		for _, d := range r.Dispatches {
			partials += d.PartialBytes
			if uncounted == nil && (d.OpsPerByte == nil || *d.OpsPerByte <= 0) || uncounted != nil && d.OpsPerByte != nil {
				t.Errorf("dispatch %s: ops_per_byte %v", d.Kernel, d.OpsPerByte)
			}
		}
		if r.PartialBytes != partials || len(r.Dispatches) > 1 && partials == 0 {
			t.Errorf("partial_bytes %d, dispatches' sum %d, %d dispatches", r.PartialBytes, partials, len(r.Dispatches))
		}
		if r.Lanes != lanes || r.BytesRead != read || r.BytesRead < uint64(r.Shape[0])*uint64(r.Shape[1])*4 {
			t.Errorf("totals: lanes %d (sum %d), read %d (sum %d)", r.Lanes, lanes, r.BytesRead, read)
		}
	}
	// The default is the selected device (lavapipe here): its own profile.
	r := planJSON(t, "--op", "maxpool", "--window", "2", "--strides", "2", "--shape", "1,1,8,8")[0]
	if r.Profile.Type != "cpu" || !strings.HasPrefix(r.Profile.Name, "device ") || r.Dispatches[0].Kernel == "" {
		t.Errorf("default profile %+v", r.Profile)
	}
}

// TestPlanCheckBytes: --check fails a dispatch over the ops-per-byte
// budget, a plan whose partials cost more than 5% of its inputs, and a plan
// whose ops could not be counted; it passes one within all three.
func TestPlanCheckBytes(t *testing.T) {
	ratio := func(x float64) *float64 { return &x }
	within := planRecord{InputBytes: 100 << 20, PartialBytes: 5 << 20, Dispatches: []planDispatch{
		{Kernel: "a", OpsPerByte: ratio(checkMaxOpsPerByte), BudgetPerByte: checkMaxOpsPerByte},
		{Kernel: "b", OpsPerByte: ratio(31), BudgetPerByte: 32}}}
	if c := within.check(); !c.Pass {
		t.Errorf("a plan within the goals fails: %v", c.Failures)
	}
	for _, c := range []struct {
		what string
		edit func(r *planRecord)
		goal string
	}{
		{"a dispatch over budget", func(r *planRecord) { r.Dispatches[0].OpsPerByte = ratio(checkMaxOpsPerByte + 0.01) }, "ops_per_byte: dispatch 0 (a) costs 4.01 SPIR-V ops per byte moved, over 4"},
		{"an exp kernel over its budget", func(r *planRecord) { r.Dispatches[1].OpsPerByte = ratio(32.01) }, "ops_per_byte: dispatch 1 (b) costs 32.01 SPIR-V ops per byte moved, over 32"},
		{"partials over 5%", func(r *planRecord) { r.PartialBytes++ }, "partial_bytes: "},
		{"ops not counted", func(r *planRecord) { r.countErr = errors.New("no spirv-opt") }, "ops_per_byte: not counted: no spirv-opt"},
	} {
		r := within
		r.Dispatches = append([]planDispatch(nil), within.Dispatches...)
		c.edit(&r)
		got := r.check()
		if got.Pass || len(got.Failures) != 1 || !strings.HasPrefix(got.Failures[0], c.goal) {
			t.Errorf("%s: %v, want one failure starting %q", c.what, got.Failures, c.goal)
		}
	}
}

// TestPlanTable: the table form has a heading, a row per dispatch and its
// named values.
func TestPlanTable(t *testing.T) {
	code, stdout, stderr := vkdml("plan", "--op", "argmax", "--axes", "0", "--shape", "1048576", "--profile", "mali-g78")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"argmax FLOAT32 [1048576] on mali-g78 (Mali-G78 MP20, integrated-gpu, subgroup 16, 20 compute units x 1024 lanes)",
		"kernel", "in flight", "serial", "0 spec: ", "local_size_x=", "0 push: ", "o_count=1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

// TestPlanErrors: bad flags are usage errors naming them; a desc vkdml
// refuses gives CreateOperator's error.
func TestPlanErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"plan", "--op", "argmax", "--axes", "1", "--shape", "4,4", "--tune", "rowWG=256"}, 2, `unknown knob "rowWG"`},
		{[]string{"plan", "--op", "argmax", "--axes", "1", "--shape", "4,4", "--tune", "exactGrid=2"}, 2, `exactGrid="2"`},
		{[]string{"plan", "--op", "argmax", "--axes", "1", "--shape", "4,4", "--profile", "h200"}, 2, "neither a shipped profile"},
		{[]string{"plan", "--op", "argmax", "--axes", "1", "--shape", "4,4", "--kernel", "fast"}, 2, `--kernel "fast" is not a strategy`},
		{[]string{"plan", "--op", "argmax", "--axes", "1"}, 2, "--shape is required"},
	} {
		code, stdout, stderr := vkdml(c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.msg)
		}
	}
	// A desc validation refuses (its output keeps the reduced axis at 4):
	// the profile's plan fails as the device's CreateOperator does.
	desc := &ops.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 4}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 4}), Axes: []uint32{1}}
	d := testutil.CreateDML(t, dml.DeviceOptions{})
	_, devErr := d.CreateOperator(desc)
	p, _ := profiles.Lookup("h100")
	ctx := &ops.Context{FeatureLevel: dml.MaxFeatureLevel, Features: p.Features, Limits: p.Limits, DeviceType: p.Type}
	_, planErr := dml.PlanOperator(ctx, desc, "")
	if devErr == nil || planErr == nil || devErr.Error() != planErr.Error() {
		t.Errorf("CreateOperator: %v\nPlanOperator: %v\nwant the same error", devErr, planErr)
	}
}

// TestPlanTune: --tune and $VKDML_TUNING reach the plan and its JSON. The
// knob is exactGrid and the plan the copy of 2^28 elements (1 GiB): on the
// h100 profile 65,536 workgroups in x, and without it 65,535 × 2
// (GridGroups' cap); the copy kernel's grid is the plan least likely to
// change.
func TestPlanTune(t *testing.T) {
	args := []string{"--op", "copy", "--shape", "268435456", "--profile", "h100"}
	groups := func(r planRecord) [3]uint32 { return r.Dispatches[0].Groups }
	exact := planJSON(t, args...)[0]
	capped := planJSON(t, append(args, "--tune", "exactGrid=false")...)[0]
	if groups(exact) != [3]uint32{65536, 1, 1} || groups(capped) != [3]uint32{65535, 2, 1} || capped.Tuning["exactGrid"] != false {
		t.Errorf("groups %v, with exactGrid=false %v (tuning %v)", groups(exact), groups(capped), capped.Tuning["exactGrid"])
	}
	file := filepath.Join(t.TempDir(), "tuning.json")
	os.WriteFile(file, []byte(`{"exactGrid": false}`), 0o666)
	t.Setenv("VKDML_TUNING", file)
	if r := planJSON(t, args...)[0]; groups(r) != [3]uint32{65535, 2, 1} {
		t.Errorf("$VKDML_TUNING: groups %v", groups(r))
	}
	if r := planJSON(t, append(args, "--tune", "exactGrid=true")...)[0]; groups(r) != [3]uint32{65536, 1, 1} {
		t.Errorf("--tune over $VKDML_TUNING: groups %v", groups(r))
	}
}

// TestTuneRanges: every knob at 0, negative and its maximum + 1
// (testutil.BadTuning) is refused by --tune as a usage error and by a
// $VKDML_TUNING file, each naming the knob, the value and its range; each
// knob at each end of its range plans the 2x2 stride-2 FLOAT32 pool
// (whose planner once divided by poolVecWG*poolVecGroups).
func TestTuneRanges(t *testing.T) {
	args := []string{"plan", "--op", "maxpool", "--shape", "2,3,16,16", "--window", "2,2", "--strides", "2,2", "--profile", "h100"}
	file := filepath.Join(t.TempDir(), "tuning.json")
	for _, b := range testutil.BadTuning() {
		t.Setenv("VKDML_TUNING", "")
		code, stdout, stderr := vkdml(append(args, "--tune", b.Key+"="+b.Value)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, b.Want) || strings.Contains(stderr, "goroutine ") {
			t.Errorf("--tune %s=%s: exit %d, stderr %q; want exit 2 and %q", b.Key, b.Value, code, stderr, b.Want)
		}
		if err := os.WriteFile(file, []byte(fmt.Sprintf(`{%q: %s}`, b.Key, b.JSON)), 0o666); err != nil {
			t.Fatal(err)
		}
		t.Setenv("VKDML_TUNING", file)
		code, stdout, stderr = vkdml(args...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, b.Want) || !strings.Contains(stderr, "VKDML_TUNING") {
			t.Errorf("$VKDML_TUNING {%q: %s}: exit %d, stderr %q; want an error naming $VKDML_TUNING and %q", b.Key, b.JSON, code, stderr, b.Want)
		}
	}
	t.Setenv("VKDML_TUNING", "")
	for _, k := range ops.TuningKeys() {
		r, ok := ops.TuningRange(k)
		if !ok {
			continue
		}
		for _, v := range []uint64{r.Min, r.Max} {
			if code, _, stderr := vkdml(append(args, "--tune", fmt.Sprintf("%s=%d", k, v))...); code != 0 {
				t.Errorf("--tune %s=%d: exit %d: %s", k, v, code, stderr)
			}
		}
	}
}

// goalsFile records which cases of scripts/gpu_compare.py miss which goals
// of `vkdml plan --check` on the h100 profile today.
const goalsFile = "testdata/h100_goals.txt"

// TestH100Goals plans every case of scripts/gpu_compare.py (which holds
// the GPU speed table's cases) on the h100 profile and judges it by the
// goals: serial_partials <= 64, ops_per_byte <= 4, empty lanes <= 1%,
// partials <= 5% of the inputs, bytes_in_flight >= 2 MiB where 64 MiB or
// more move. The cases that miss a goal today are in
// testdata/h100_goals.txt with the goals they miss: a case missing a goal
// the file does not list fails, and so does a listed miss that is fixed,
// so the file only shrinks. VKDML_UPDATE_GOALS=1 rewrites it.
func TestH100Goals(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to list scripts/gpu_compare.py's cases")
	}
	out, err := exec.Command(py, "../../scripts/gpu_compare.py", "--list").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("gpu_compare.py --list: %v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	got := map[string][]string{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		label, args, ok := strings.Cut(line, "vkdml bench ")
		if !ok {
			t.Fatalf("gpu_compare.py --list line %q", line)
		}
		label = strings.TrimSpace(label)
		order = append(order, label)
		for _, f := range h100Misses(t, label, strings.Fields(args), got) {
			t.Logf("%s: %s", label, f)
		}
	}
	t.Logf("h100 goals: %d of %d cases pass, %d miss one or more", len(order)-len(got), len(order), len(got))
	if os.Getenv("VKDML_UPDATE_GOALS") == "1" {
		writeGoals(t, goalsFile, "# Cases of scripts/gpu_compare.py whose plans on the h100 profile miss a goal\n"+
			"# of `vkdml plan --check`, and the goals they miss (TestH100Goals).\n"+
			"# Remove a line when a change makes its case pass; never add one.\n", order, got)
		return
	}
	checkGoals(t, goalsFile, order, got, "scripts/gpu_compare.py")
}

// h100Misses plans `vkdml plan --profile h100 --check` with the operator
// flags args, adds the goals it misses to got[label] (each once) and
// returns the check's failure lines; a plan that does not run is an error.
func h100Misses(t *testing.T, label string, args []string, got map[string][]string) []string {
	t.Helper()
	code, stdout, stderr := vkdml(append([]string{"plan", "--profile", "h100", "--check", "--json"}, args...)...)
	if code != 0 && code != 1 {
		t.Errorf("%s: exit %d: %s", label, code, stderr)
		return nil
	}
	var r planRecord
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Check == nil {
		t.Errorf("%s: %v in %q", label, err, stdout)
		return nil
	}
	for _, f := range r.Check.Failures {
		goal, _, _ := strings.Cut(f, ":")
		if !contains(got[label], goal) {
			got[label] = append(got[label], goal)
		}
	}
	return r.Check.Failures
}

// checkGoals compares the goals each case of order misses (got) with
// file's record: a miss the file does not list fails, and so does a
// listed miss that is met, or a listed case that from no longer has.
func checkGoals(t *testing.T, file string, order []string, got map[string][]string, from string) {
	t.Helper()
	known := readGoals(t, file)
	for _, l := range order {
		g, k := got[l], known[l]
		for _, x := range g {
			if !contains(k, x) {
				t.Errorf("%s now misses %s (not in %s: a plan change made it worse)", l, x, file)
			}
		}
		for _, x := range k {
			if !contains(g, x) {
				t.Errorf("%s meets %s now: remove it from %s (VKDML_UPDATE_GOALS=1 rewrites the file)", l, x, file)
			}
		}
		delete(known, l)
	}
	for l := range known {
		t.Errorf("%s lists %q, which %s no longer has", file, l, from)
	}
}

// writeGoals rewrites file with the cases of order that miss a goal.
func writeGoals(t *testing.T, file, header string, order []string, got map[string][]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header)
	for _, l := range order {
		if g := got[l]; len(g) > 0 {
			sort.Strings(g)
			b.WriteString(l + " | " + strings.Join(g, ", ") + "\n")
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
}

// topKGridFile records which plans of TestH100TopKGrid miss which goals.
const topKGridFile = "testdata/h100_topk_grid.txt"

// TestH100TopKGrid plans TOP_K on the h100 profile over a grid wider
// than the GPU comparison's cases: one type of each element size
// (FLOAT32, FLOAT16, INT8, INT64; the kinds of a size share their
// kernels), rows from MoE routing's 65536x64 to one row of 10^6, and K
// from 1 to 2048 (none past the row), judged by the goals of
// TestH100Goals. The misses of today are in testdata/h100_topk_grid.txt,
// which only shrinks: a new miss fails, and so does a listed one that is
// met. VKDML_UPDATE_GOALS=1 rewrites it.
func TestH100TopKGrid(t *testing.T) {
	shapes := [][2]uint32{{8, 32000}, {128, 256000}, {65536, 64}, {1024, 1000}, {32, 50000}, {1, 1000000}}
	ks := []uint32{1, 2, 5, 17, 33, 64, 100, 256, 512, 1000, 2048}
	got := map[string][]string{}
	var order []string
	for _, dt := range []string{"float32", "float16", "int8", "int64"} {
		for _, s := range shapes {
			for _, k := range ks {
				if k > s[1] {
					continue
				}
				label := fmt.Sprintf("topk %s %dx%d K=%d", strings.ToUpper(dt), s[0], s[1], k)
				order = append(order, label)
				h100Misses(t, label, []string{"--op", "topk", "--dtype", dt, "--shape", fmt.Sprintf("%d,%d", s[0], s[1]), "--k", fmt.Sprint(k)}, got)
			}
		}
	}
	t.Logf("h100 TOP_K grid: %d of %d plans pass, %d miss one or more", len(order)-len(got), len(order), len(got))
	if os.Getenv("VKDML_UPDATE_GOALS") == "1" {
		writeGoals(t, topKGridFile, "# TOP_K plans of TestH100TopKGrid on the h100 profile that miss a goal of\n"+
			"# `vkdml plan --check`, and the goals they miss. Remove a line when a change\n# makes its plan pass; never add one.\n", order, got)
		return
	}
	checkGoals(t, topKGridFile, order, got, "the grid")
}

func readGoals(t *testing.T, file string) map[string][]string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, goals, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("%s: line %q is not LABEL | GOALS", file, line)
		}
		m[label] = strings.Split(goals, ", ")
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestBenchPlanAndTuning: bench's JSON names the tuning and the plan that
// ran, --tune reaches them, and a bad knob is a usage error.
func TestBenchPlanAndTuning(t *testing.T) {
	code, stdout, stderr := vkdml("bench", "--op", "argmax", "--axes", "0", "--shape", "64,256", "--repeat", "1", "--warmup", "0",
		"--json", "--tune", "exactGrid=true")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r benchRecord
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Tuning["exactGrid"] != true || r.Plan == nil || r.Plan.Strategy != r.Kernel || len(r.Plan.Dispatches) == 0 || r.Plan.Bytes != r.Bytes {
		t.Errorf("tuning %v, plan %+v (kernel %s)", r.Tuning, r.Plan, r.Kernel)
	}
	code, stdout, stderr = vkdml("bench", "--op", "argmax", "--axes", "0", "--shape", "64,256", "--tune", "nope=1")
	if code != 2 || stdout != "" || !strings.Contains(stderr, `unknown knob "nope"`) {
		t.Errorf("bad knob: exit %d, %q, %q", code, stdout, stderr)
	}
}

// TestSweepDryRun plans every point of scripts/gpu_compare.py's tuning
// sweep on the h100 profile (the sweep's bench flags, its --kernel and
// --tune): a knob, strategy or flag the sweep names that vkdml no longer
// has fails here rather than on the GPU machine; and the planned sweep fits
// its --sweep-time. It also checks the sweep's pick on made-up records.
func TestSweepDryRun(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to run scripts/gpu_compare.py")
	}
	out, err := exec.Command(py, "../../scripts/gpu_compare.py", "--sweep", "--dry-run").CombinedOutput()
	if err != nil {
		t.Fatalf("gpu_compare.py --sweep --dry-run: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	points := 0
	for _, line := range lines {
		if strings.HasPrefix(line, "#") {
			var n int
			var est, limit float64
			if _, err := fmt.Sscanf(line, "# %d points, about %f s (--sweep-time %f s)", &n, &est, &limit); err != nil || n != points || est > limit {
				t.Errorf("summary %q: %d points listed, estimate over the sweep time, or unreadable (%v)", line, points, err)
			}
			continue
		}
		points++
		_, cmd, ok := strings.Cut(line, "vkdml bench ")
		if !ok {
			t.Fatalf("line %q has no command", line)
		}
		var args []string
		f := strings.Fields(cmd)
		for i := 0; i < len(f); i++ {
			switch f[i] {
			case "--json":
			case "--repeat", "--warmup":
				i++
			default:
				args = append(args, f[i])
			}
		}
		code, _, stderr := vkdml(append([]string{"plan", "--profile", "h100"}, args...)...)
		if code != 0 {
			t.Errorf("sweep point %q: vkdml plan: exit %d: %s", line, code, stderr)
		}
	}
	if points < 10 {
		t.Errorf("the sweep plans %d points", points)
	}
	// The pick: the tuning point of least summed regret over the class's
	// shapes, among points under vkdml's own strategy.
	script := `
import sys, json
sys.path.insert(0, "../../scripts")
import gpu_compare as g
def rec(shape, ms, tune, kernel=""):
    return {"shape": shape, "dtype": "FLOAT32", "median_ms": ms, "kernel": kernel or "vec-row",
            "sweep": {"class": "c", "kernel": kernel, "tune": tune}}
recs = [rec([1], 1.0, ["a=1"]), rec([2], 4.0, ["a=1"]), rec([1], 1.25, ["a=2"]), rec([2], 2.0, ["a=2"]),
        rec([1], 0.5, [], kernel="thread"), rec([2], 9.0, [], kernel="thread")]
picked, lines = g.pick_tuning(recs)
print(json.dumps(picked))
`
	out, err = exec.Command(py, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("pick_tuning: %v: %s", err, out)
	}
	// Regret over the best of each shape (0.5 forced, 2.0): a=1 costs
	// 1/0.5 + 4/2 = 4, a=2 costs 1.25/0.5 + 2/2 = 3.5.
	if got := strings.TrimSpace(string(out)); got != `{"a": 2}` {
		t.Errorf("pick_tuning picked %s", got)
	}
}

// TestDevicesJSONIsProfile: what `vkdml devices --json` prints is a
// profile: planning for it is planning for the device.
func TestDevicesJSONIsProfile(t *testing.T) {
	code, stdout, stderr := vkdml("devices", "--json")
	if code != 0 {
		t.Fatalf("devices: exit %d: %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "devices.json")
	if err := os.WriteFile(file, []byte(stdout), 0o666); err != nil {
		t.Fatal(err)
	}
	args := []string{"--op", "argmax", "--axes", "1", "--shape", "300,4096"}
	fromFile := planJSON(t, append(args, "--profile", file)...)[0]
	fromDevice := planJSON(t, args...)[0]
	if fromFile.Profile.Device != fromDevice.Profile.Device || fromFile.Profile.SubgroupSize != fromDevice.Profile.SubgroupSize {
		t.Errorf("profile from devices --json %+v, the device %+v", fromFile.Profile, fromDevice.Profile)
	}
	a, _ := json.Marshal(fromFile.Dispatches)
	b, _ := json.Marshal(fromDevice.Dispatches)
	if string(a) != string(b) {
		t.Errorf("plans differ:\n file   %s\n device %s", a, b)
	}
}
