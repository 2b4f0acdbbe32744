// Package faultload runs a test in a child process over the
// fault-injecting Vulkan loader (gpu/testdata/faultloader.c), which reports
// the GPU as busy while a file exists and tracks what pending submissions
// use, so that tests can time out any wait on the GPU and see whether
// vkdml destroys what the GPU may still be using.
package faultload

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Child reports whether this process is the child Run started.
func Child() bool { return os.Getenv("VKDML_FAULT_CHILD") != "" }

// Source is the loader's C source.
func Source() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "gpu", "testdata", "faultloader.c")
}

// Run builds the loader and runs test name (a top-level test of the
// calling package) in a child process over it; the loader is chosen once
// per process. It skips where the loader cannot be built (fails under
// CI=true) or the child skips (no Vulkan device), and fails unless the
// child passes.
func Run(t *testing.T, name string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		// Built with -l:libvulkan.so.1 and calling through it with dlsym:
		// ELF and glibc's dynamic linker.
		t.Skip("the fault-injecting loader wraps libvulkan.so.1: Linux only")
	}
	ci := os.Getenv("CI") == "true"
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libvkfault.so")
	build := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-o", lib, Source(),
		"-Wl,--no-as-needed", "-l:libvulkan.so.1", "-ldl", "-lpthread")
	if out, err := build.CombinedOutput(); err != nil {
		if ci {
			t.Fatalf("building the fault-injecting loader: %v\n%s", err, out)
		}
		t.Skipf("cannot build the fault-injecting loader: %v\n%s", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "VKDML_FAULT_CHILD=1", "VKDML_VULKAN_LIBRARY="+lib,
		"VKDML_FAULT_HANG_FILE="+filepath.Join(dir, "hang"), "VKDML_FAULT_REPORT="+filepath.Join(dir, "report"))
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- SKIP: "+name) {
		t.Skipf("child skipped:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// Hang makes the GPU hang: every fence wait times out until Unhang.
func Hang(t testing.TB) { HangAfter(t, 0) }

// HangAfter lets the next n fence waits through and hangs the one after,
// so that a test can time out the nth wait (from 0) of a call.
func HangAfter(t testing.TB, n int) {
	t.Helper()
	if err := os.WriteFile(os.Getenv("VKDML_FAULT_HANG_FILE"), []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Unhang lets the GPU finish: waits see the real state again.
func Unhang(t testing.TB) {
	t.Helper()
	if err := os.Remove(os.Getenv("VKDML_FAULT_HANG_FILE")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}

// Report returns the loader's error lines ("error: ...", each naming a
// call made while a submission that uses its object was executing, or an
// unbounded wait during a hang) and its live lines (one per destroyed
// device: "live: buffers=0 memory=0 ..."), and empties the report.
func Report(t testing.TB) (errs, live []string) {
	t.Helper()
	path := os.Getenv("VKDML_FAULT_REPORT")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "error: "):
			errs = append(errs, l)
		case strings.HasPrefix(l, "live: "):
			live = append(live, l)
		}
	}
	return errs, live
}

// CheckClean fails t where the loader reported an error since the last
// Report, or a device destroyed with objects still alive.
func CheckClean(t testing.TB, what string) {
	t.Helper()
	errs, live := Report(t)
	if len(errs) > 0 {
		t.Errorf("%s: the loader reported:\n%s", what, strings.Join(errs, "\n"))
	}
	for _, l := range live {
		for _, f := range strings.Fields(l)[1:] {
			if !strings.HasSuffix(f, "=0") {
				t.Errorf("%s: a device was destroyed with objects alive: %s", what, l)
				break
			}
		}
	}
}
