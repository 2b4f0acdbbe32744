package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/gen"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/parity/vk"
	"github.com/vkdml/vkdml/internal/testutil"
)

// fakeDirectML answers each case with vkdml's own outcome on its device,
// but for the cases named in flip, whose first output byte it changes; it
// reports INT64 as unsupported.
type fakeDirectML struct {
	dev  *dml.Device
	flip map[string]bool
	ran  []parity.Case
}

func (f *fakeDirectML) Info(r *parity.Results) {
	r.Producer, r.Adapter, r.FeatureLevel = "fake DirectML", "fake adapter", "6_4"
	r.TypeSupport = map[string]bool{}
	for _, dt := range []string{"FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "UINT64", "INT64"} {
		r.TypeSupport[dt] = dt != "INT64"
	}
}

func (f *fakeDirectML) Run(c *parity.Case, inputs [][]byte) (*parity.Outcome, error) {
	f.ran = append(f.ran, *c)
	o, err := vk.RunBuffers(f.dev, c, inputs)
	if err != nil || !f.flip[c.Name] || len(o.Outputs) == 0 {
		return o, err
	}
	out := append([]byte(nil), o.Outputs[0]...)
	out[0] ^= 0x5a
	o.Outputs = append([][]byte{out}, o.Outputs[1:]...)
	return o, nil
}

func (f *fakeDirectML) Close() {}

// TestParityLiveLoop: random cases of the supported types only, each run
// through both sides; a difference fails the run, is counted and saved as
// a corpus with DirectML's result as golden, which `vkdml parity` replays
// to the same difference.
func TestParityLiveLoop(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake DirectML replaces the Linux openLive")
	}
	fake := &fakeDirectML{}
	saved := openLive
	t.Cleanup(func() { openLive = saved })
	var flipped string
	openLive = func(o *liveOptions) (*liveRig, error) {
		// vkdml's device binds and allocates in the live run's small
		// windows and parts; the fake DirectML's does not, so that a
		// large case the windows broke would differ.
		if o.dev.BindingWindowCap != gen.LiveBindingWindow || o.dev.MaxAllocation != gen.LiveMaxAllocation {
			t.Errorf("--random opened vkdml's device with window cap %d and allocation %d", o.dev.BindingWindowCap, o.dev.MaxAllocation)
		}
		d := testutil.CreateDML(t, o.dev)
		fake.dev = testutil.OpenDML(t, dml.DeviceOptions{})
		fake.flip = map[string]bool{flipped: true}
		return &liveRig{dml: fake, vk: d, header: []string{"parity --live: fake header"}}, nil
	}
	out := filepath.Join(t.TempDir(), "diffs")

	code, stdout, stderr := vkdml("parity", "--live", "--random", "24", "--seed", "5", "--out", out)
	if code != 0 || !strings.Contains(stdout, "fake header") || !strings.Contains(stdout, "random cases, seed 5") {
		t.Fatalf("all equal: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(fake.ran) != 24 {
		t.Fatalf("DirectML ran %d cases, want 24", len(fake.ran))
	}
	large := 0
	for _, c := range fake.ran {
		if c.Input.TotalTensorSizeInBytes > gen.LiveBindingWindow {
			large++
		}
	}
	if large == 0 || !strings.Contains(stdout, "windowed and split paths") {
		t.Errorf("no case of seed 5 exceeds the %d-byte binding window, or the header does not say so:\n%s", gen.LiveBindingWindow, stdout)
	}
	for _, c := range fake.ran {
		for _, x := range []*parity.Tensor{&c.Input, c.Indices, &c.Output, c.OutputIndices} {
			if x != nil && x.DataType == "INT64" {
				t.Errorf("case %s uses INT64, which the DirectML device does not support", c.Name)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--out was written with no difference")
	}

	// The same cases again, one of them differing.
	var ok string
	for _, c := range fake.ran {
		if c.Expect == "S_OK" {
			ok = c.Name
		}
	}
	flipped = ok
	fake.ran = nil
	code, stdout, stderr = vkdml("parity", "--live", "--random", "24", "--seed", "5", "--out", out)
	if code != 1 || !strings.Contains(stdout, "1 differ") || !strings.Contains(stdout, "1 differing cases saved in "+out) {
		t.Fatalf("one difference: exit %d\n%s\n%s", code, stdout, stderr)
	}
	replay := testutil.CreateDML(t, dml.DeviceOptions{})
	replay.Close()
	code, stdout, stderr = vkdml("parity", "--corpus", out)
	if code != 1 || !strings.Contains(stdout, flipped) || !strings.Contains(stdout, "1 differ") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestParityLiveUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"parity", "--random", "3"}, "--random goes with --live"},
		{[]string{"parity", "--live", "--random", "3", "--corpus", "x"}, "replaces --corpus"},
		{[]string{"parity", "--live", "--json"}, "--json and --golden go without it"},
		{[]string{"parity", "--live", "--seed", "3"}, "--seed goes with --random"},
		{[]string{"parity", "--live", "--random", "3", "--skip-no-answer"}, "--skip-no-answer goes with a corpus"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
	if runtime.GOOS != "windows" {
		code, _, stderr := vkdml("parity", "--live", "--random", "3")
		if code != 1 || !strings.Contains(stderr, "needs Windows") {
			t.Errorf("--live off Windows: exit %d, %q", code, stderr)
		}
	}
}

// TestParityLiveSkipNoAnswer: with --skip-no-answer, DirectML is not given
// a corpus case its goldens record as no answer; that case passes as a
// known difference when known-differences.json lists it and fails the run
// when it does not. Without the flag DirectML gets every case.
func TestParityLiveSkipNoAnswer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake DirectML replaces the Linux openLive")
	}
	dir := t.TempDir()
	set, err := gen.Random(3, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	stuck := set.Corpus.Cases[1].Name
	golden := filepath.Join(dir, parity.GoldenDir)
	os.MkdirAll(golden, 0o755)
	res := parity.Results{Producer: "test", Cases: []parity.Result{{Name: stuck, NoAnswer: true, Message: "no answer within 20s"}}}
	if err := res.Save(golden); err != nil {
		t.Fatal(err)
	}
	fake := &fakeDirectML{}
	saved := openLive
	t.Cleanup(func() { openLive = saved })
	openLive = func(o *liveOptions) (*liveRig, error) {
		d := testutil.CreateDML(t, o.dev)
		fake.dev = d
		return &liveRig{dml: fake, vk: d}, nil
	}
	ran := func() map[string]bool {
		m := map[string]bool{}
		for _, c := range fake.ran {
			m[c.Name] = true
		}
		fake.ran = nil
		return m
	}

	code, stdout, stderr := vkdml("parity", "--live", "--corpus", dir)
	if code != 0 || !ran()[stuck] {
		t.Fatalf("without --skip-no-answer: exit %d, DirectML ran %s: %v\n%s\n%s", code, stuck, false, stdout, stderr)
	}
	code, stdout, stderr = vkdml("parity", "--live", "--corpus", dir, "--skip-no-answer")
	if r := ran(); code != 1 || r[stuck] || len(r) != 3 || !strings.Contains(stdout, "not run (--skip-no-answer)") {
		t.Fatalf("unexplained no answer: exit %d, DirectML ran %v\n%s\n%s", code, r, stdout, stderr)
	}
	known := parity.KnownDifferences{Differences: []parity.KnownDifference{{Case: stuck, Reason: "hangs the test's driver"}}}
	b, _ := json.Marshal(known)
	if err := os.WriteFile(filepath.Join(dir, parity.KnownFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = vkdml("parity", "--live", "--corpus", dir, "--skip-no-answer")
	if r := ran(); code != 0 || r[stuck] || !strings.Contains(stdout, "1 known difference") {
		t.Fatalf("explained no answer: exit %d, DirectML ran %v\n%s\n%s", code, r, stdout, stderr)
	}
	// A corpus without goldens (PARITY_LIVE_CORPUS on a fresh one): every
	// case goes to DirectML.
	if err := os.RemoveAll(golden); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = vkdml("parity", "--live", "--corpus", dir, "--skip-no-answer")
	if r := ran(); code != 0 || len(r) != 4 || !strings.Contains(stdout, "no goldens") {
		t.Fatalf("no goldens: exit %d, DirectML ran %v\n%s\n%s", code, r, stdout, stderr)
	}
}

// TestParityLiveRunsUncappedWhereWindowsCannotCover: an ARGMAX over the
// outer axis of two rows of 4.8 MiB each cannot be covered by --random's
// 4 MiB windows (each block's two elements lie a row apart); vkdml's
// DXGI_ERROR_UNSUPPORTED there is the forced window's, not the device's,
// so the case runs again without it and compares equal.
func TestParityLiveRunsUncappedWhereWindowsCannotCover(t *testing.T) {
	dir := t.TempDir()
	const n = 1_200_000
	c := parity.Case{Name: "two_long_rows", Covers: []string{"test"}, Operator: "ARGMAX", Expect: "S_OK", Axes: []uint32{0},
		Input:  parity.Tensor{DataType: "FLOAT32", Sizes: []uint32{2, n}, TotalTensorSizeInBytes: 8 * n},
		Output: parity.Tensor{DataType: "UINT32", Sizes: []uint32{1, n}, TotalTensorSizeInBytes: 4 * n}}
	if err := (&parity.Corpus{Cases: []parity.Case{c}}).Save(dir); err != nil {
		t.Fatal(err)
	}
	in := make([]float32, 2*n)
	for i := range in {
		in[i] = float32(i % 7)
	}
	if err := os.MkdirAll(filepath.Join(dir, parity.InputsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, parity.InputFile(c.Name)), paritytest.Float32Npy(in), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &fakeDirectML{dev: testutil.OpenDML(t, dml.DeviceOptions{})}
	saved := openLive
	t.Cleanup(func() { openLive = saved })
	openLive = func(o *liveOptions) (*liveRig, error) {
		return &liveRig{dml: fake, vk: testutil.CreateDML(t, o.dev)}, nil
	}
	o := &liveOptions{corpus: dir, caseTimeout: time.Minute, verbose: true,
		dev: dml.DeviceOptions{BindingWindowCap: gen.LiveBindingWindow, MaxAllocation: gen.LiveMaxAllocation}}
	var stdout, stderr strings.Builder
	if err := runParityLive(o, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "run without the forced windows") {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
}
