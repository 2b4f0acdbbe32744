package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// FuzzArgs feeds arbitrary argument lists to `vkdml run`, `bench`,
// `parity`, `version` and `help`: every one must end in a clean exit code with no panic, and any
// error must be a sentence on stderr. The device is replaced by an error,
// so only parsing and validation run.
func FuzzArgs(f *testing.F) {
	dir := f.TempDir()
	in := filepath.Join(dir, "in.npy")
	if err := tensor.WriteNpyFile(in, tensor.FromFloat32([]uint32{3, 3}, []float32{1, 2, 3, 3, 0, 4, 2, 5, 2})); err != nil {
		f.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, []byte("\x93NUMPY\x01\x00garbage"), 0o644)
	saved := createDevice
	createDevice = func(dml.DeviceOptions) (*dml.Device, error) { return nil, errors.New("no device in fuzzing") }
	f.Cleanup(func() { createDevice = saved })

	for _, s := range []string{
		"run identity IN OUT",
		"run argmax --axes 1 IN OUT",
		"run argmin --axes 0,1 --direction decreasing --index-type int64 IN OUT",
		"run argmax --axes=9 IN OUT",
		"run argmax --axes 1,1 --index-type float IN OUT",
		"run maxpool --window 2,2 --strides 2,2 IN OUT",
		"run maxpool --window 2,2 --dilations 0,1 --indices IDX IN OUT",
		"run maxpool --window 3 --start-padding 1,1 --end-padding x IN OUT",
		"run argmax --axes 1 BAD OUT",
		"run argmax --axes -1,-2 IN OUT",
		"run maxpool --window 2 --padding 1 --ceil-mode --indices IDX IN OUT",
		"run maxpool --window 3 --padding 1 --start-padding 0 IN OUT",
		"run identity IN IN",
		"bench --op copy --shape 4 --kernel all",
		"bench --op maxpool --shape 1,1,4,4 --window 2 --kernel vec2x2 --plot OUT.svg",
		"parity --corpus IN --json",
		"--version",
		"version --",
		"run -h",
		"run",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) > 0 && (args[0] == "demo" || args[0] == "devices") {
			return // these open the real device
		}
		out := t.TempDir()
		for i, a := range args {
			switch a {
			case "IN":
				args[i] = in
			case "BAD":
				args[i] = bad
			case "OUT", "IDX":
				args[i] = filepath.Join(out, strings.ToLower(a)+".npy")
			}
		}
		code, _, stderr := vkdml(args...)
		if code < 0 || code > 2 {
			t.Fatalf("exit code %d", code)
		}
		if strings.Contains(stderr, "internal error") || strings.Contains(stderr, "goroutine ") {
			t.Fatalf("vkdml %q crashed: %s", args, stderr)
		}
		if code != 0 && strings.TrimSpace(stderr) == "" {
			t.Fatalf("vkdml %q failed silently", args)
		}
		// With no device nothing can succeed in writing outputs.
		if left, _ := os.ReadDir(out); len(left) != 0 && code != 0 {
			t.Fatalf("vkdml %q failed but left %v", args, left)
		}
	})
}
