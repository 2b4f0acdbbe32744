package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	version "github.com/vkdml/vkdml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// vkdml runs the command in-process and returns its exit code and output.
func vkdml(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "Usage"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"devices", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"devices", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"run"}, 2, "name an operator"},
		{[]string{"run", "nosuchop"}, 2, `unknown operator "nosuchop"`},
		{[]string{"run", "identity", "only-one.npy"}, 2, "want IN.npy OUT.npy"},
		{[]string{"run", "identity", "/nonexistent/in.npy", "out.npy"}, 1, "/nonexistent/in.npy"},
		{[]string{"version", "x"}, 2, "unexpected argument"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("vkdml %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr, c.code, c.msg)
		}
		if strings.Contains(stderr, "goroutine ") {
			t.Errorf("vkdml %v printed a Go trace", c.args)
		}
	}
	if code, out, _ := vkdml("help"); code != 0 || !strings.Contains(out, "devices") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestDevicesJSON(t *testing.T) {
	code, out, stderr := vkdml("devices", "--json")
	if code != 0 {
		testutil.NoDevice(t, stderrError(stderr))
	}
	var doc struct {
		SchemaVersion int              `json:"schema_version"`
		VkdmlVersion  string           `json:"vkdml_version"`
		Devices       []map[string]any `json:"devices"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.SchemaVersion != 1 || doc.VkdmlVersion == "" {
		t.Fatalf("schema_version %d, vkdml_version %q", doc.SchemaVersion, doc.VkdmlVersion)
	}
	devs := doc.Devices
	if len(devs) == 0 {
		testutil.NoDevice(t, stderrError("no devices listed"))
	}
	defaults := 0
	for _, d := range devs {
		if d["default"] == true {
			defaults++
			limits := d["limits"].(map[string]any)
			if limits["max_storage_buffer_range"].(float64) <= 0 || limits["subgroup_size"].(float64) <= 0 {
				t.Fatalf("limits missing: %v", limits)
			}
			if d["feature_level"] != "6_4" || len(d["data_types"].([]any)) != 10 {
				t.Fatalf("feature level or types: %v %v", d["feature_level"], d["data_types"])
			}
		}
	}
	if defaults != 1 {
		t.Fatalf("%d defaults", defaults)
	}
	code, out, _ = vkdml("devices")
	if code != 0 || !strings.Contains(out, "maxStorageBufferRange") || !strings.Contains(out, "*") {
		t.Fatalf("devices: %d\n%s", code, out)
	}
}

type stderrError string

func (s stderrError) Error() string { return string(s) }

func TestDemo(t *testing.T) {
	code, out, stderr := vkdml("demo", "--debug")
	if code != 0 {
		if strings.Contains(stderr, "no Vulkan") || strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "device: ") || !strings.Contains(out, "examples match") {
		t.Fatalf("demo output:\n%s", out)
	}
}

// TestRunIdentityFortran writes a Fortran-order file and gets it back in C
// order through `vkdml run identity`.
func TestRunIdentityFortran(t *testing.T) {
	dir := t.TempDir()
	sizes := []uint32{2, 3}
	in := &tensor.Tensor{Desc: tensor.NewStridedDesc(tensor.Int16, sizes, []uint32{1, 2})}
	in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
	v := int64(0)
	tensor.ForEachIndex(sizes, func(c []uint32) { in.SetInt64(c, v*-7); v++ })
	inPath, outPath := filepath.Join(dir, "in.npy"), filepath.Join(dir, "out.npy")
	if err := tensor.WriteNpyFile(inPath, in); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := vkdml("run", "identity", inPath, outPath, "--debug")
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out, err := tensor.ReadNpyFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Desc.IsPacked() || len(out.Desc.Sizes) != 2 {
		t.Fatalf("output desc %v", out.Desc)
	}
	got, want := out.Int64s(), in.Int64s()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: %d != %d", i, got[i], want[i])
		}
	}
}

// buildVkdml builds vkdml into a temporary folder, or skips the test
// (fails it under CI=true) when there is no go command.
func buildVkdml(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		if testutil.InCI() {
			t.Fatalf("CI=true: no go command and VKDML_BIN is not set")
		}
		t.Skip("no go command; set VKDML_BIN to a vkdml binary")
	}
	bin := filepath.Join(t.TempDir(), "vkdml")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestNoLoader runs the binary with a loader name that does not exist: it
// must say so and exit 1, not crash.
func TestNoLoader(t *testing.T) {
	bin := os.Getenv("VKDML_BIN") // a prebuilt binary (machines without Go)
	if bin == "" {
		if testing.Short() {
			t.Skip("builds the binary")
		}
		bin = buildVkdml(t)
	}
	cmd := exec.Command(bin, "demo")
	cmd.Env = append(os.Environ(), "VKDML_VULKAN_LIBRARY=libvkdml-no-such-loader.so.1")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "no Vulkan loader") || strings.Contains(string(out), "goroutine") {
		t.Fatalf("exit %v, output %q", err, out)
	}
}

// TestVersion: --version and version print the same, the repository's
// VERSION file's release with at most build metadata after it; the
// metadata comes from the build info's VCS stamp.
func TestVersion(t *testing.T) {
	_, a, _ := vkdml("version")
	_, b, _ := vkdml("--version")
	if a == "" || a != b || !strings.HasPrefix(a, "vkdml ") {
		t.Fatalf("version %q, --version %q", a, b)
	}
	file, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimPrefix(strings.TrimSpace(a), "vkdml ")
	if release, _, _ := strings.Cut(got, "+"); release != strings.TrimSpace(string(file)) {
		t.Errorf("vkdml version printed %q; VERSION holds %q", got, file)
	}
	if err := version.CheckVersion(got); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, ""},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}, "g0123456789ab.dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456"}}}, "g0123456"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
	} {
		if got := buildMetadata(&c.bi); got != c.want {
			t.Errorf("buildMetadata(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}
