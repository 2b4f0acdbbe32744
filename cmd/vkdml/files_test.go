package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// fileSurface is one way a file reaches vkdml: a flag, an argument, an
// environment variable or a file of a corpus.
type fileSurface struct {
	name string
	// target prepares what the command needs besides the file and returns
	// where the file goes (absent: the test puts it there), the command
	// line, and the environment variable that names the file ("" none).
	target func(t *testing.T) (path string, args []string, env string)
	limit  int64 // the file's bound; 0: set by its content (a .npy header)
}

// validNpy writes a small .npy into a fresh folder and returns its path.
func validNpy(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.npy")
	if err := tensor.WriteNpyFile(path, &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{4}), Data: make([]byte, 16)}); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSurfaces() []fileSurface {
	planArgs := []string{"plan", "--op", "argmax", "--axes", "0", "--shape", "16"}
	out := func(t *testing.T) string { return filepath.Join(t.TempDir(), "out.npy") }
	surfaces := []fileSurface{
		{"plan --profile", func(t *testing.T) (string, []string, string) {
			path := filepath.Join(t.TempDir(), "device.json")
			return path, append(planArgs, "--profile", path), ""
		}, profiles.MaxFileSize},
		{"plan $VKDML_TUNING", func(t *testing.T) (string, []string, string) {
			return filepath.Join(t.TempDir(), "tuning.json"), append(planArgs, "--profile", "mali-g78"), "VKDML_TUNING"
		}, dml.MaxTuningFileSize},
		{"run $VKDML_TUNING", func(t *testing.T) (string, []string, string) {
			return filepath.Join(t.TempDir(), "tuning.json"), []string{"run", "identity", validNpy(t), out(t)}, "VKDML_TUNING"
		}, dml.MaxTuningFileSize},
		{"run IN.npy", func(t *testing.T) (string, []string, string) {
			path := filepath.Join(t.TempDir(), "in.npy")
			return path, []string{"run", "identity", path, out(t)}, ""
		}, 0},
	}
	limits := map[string]int64{parity.ManifestFile: parity.MaxManifestSize, parity.KnownFile: parity.MaxKnownSize,
		filepath.Join(parity.GoldenDir, parity.ResultsFile): parity.MaxResultsSize}
	for _, file := range paritytest.Files() {
		surfaces = append(surfaces, fileSurface{"parity " + filepath.Base(file), func(t *testing.T) (string, []string, string) {
			dir := paritytest.Corpus(t)
			path := filepath.Join(dir, file)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			return path, []string{"parity", "--corpus", dir}, ""
		}, limits[file]})
	}
	return surfaces
}

// TestFilesNotRegular: every file vkdml reads (each flag and argument that
// names one, $VKDML_TUNING under two commands, each file of a parity
// corpus), as a FIFO, /dev/zero, /dev/urandom or a folder, or over its
// bound, fails the command at once with the path and the reason:
// no hang on the FIFO, no reading /dev/zero until memory runs out.
func TestFilesNotRegular(t *testing.T) {
	if code, _, stderr := vkdml("parity", "--corpus", paritytest.Corpus(t)); code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") || strings.Contains(stderr, "no Vulkan") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("parity on the intact corpus: exit %d: %s", code, stderr)
	}
	for _, s := range fileSurfaces() {
		type kind struct{ name, want string }
		kinds := []kind{}
		hostiles := safefiletest.Hostiles()
		for _, h := range hostiles {
			kinds = append(kinds, kind{h.Name, h.Want})
		}
		if s.limit > 0 {
			kinds = append(kinds, kind{"oversize", "over the limit of " + safefile.Size(s.limit)})
		}
		for i, k := range kinds {
			t.Run(s.name+"/"+k.name, func(t *testing.T) {
				path, args, env := s.target(t)
				if i < len(hostiles) {
					hostiles[i].At(t, path)
				} else {
					safefiletest.SparseAt(t, path, s.limit+1)
				}
				if env != "" {
					t.Setenv(env, path)
				}
				var code int
				var stderr string
				safefiletest.Within(t, fmt.Sprint("vkdml ", args), func() error {
					code, _, stderr = vkdml(args...)
					return nil
				})
				if code == 0 || strings.Contains(stderr, "goroutine ") {
					t.Errorf("vkdml %v: exit %d, want an error; stderr %q", args, code, stderr)
				}
				safefiletest.Refused(t, fmt.Sprint("vkdml ", args), stderr, path, k.want)
			})
		}
	}
}

// TestParitySizes: `vkdml parity` on a case whose output's
// TotalTensorSizeInBytes no device holds answers E_OUTOFMEMORY for that
// case, naming the field and the size, where it crashed with "makeslice:
// len out of range" (10^15) or died out of memory (2^62).
func TestParitySizes(t *testing.T) {
	for _, size := range []uint64{1e15, 1 << 62} {
		dir := paritytest.Corpus(t)
		paritytest.SetCase(t, dir, func(c *parity.Case) { c.Output.TotalTensorSizeInBytes = size })
		code, stdout, stderr := vkdml("parity", "--corpus", dir)
		if strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		want := paritytest.CaseName + ": DirectML returned S_OK (0x00000000), vkdml E_OUTOFMEMORY (0x8007000E) at Run: "
		if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, fmt.Sprintf("outputs[0].TotalTensorSizeInBytes: %d bytes exceed", size)) {
			t.Errorf("output size %d: exit %d, want 1 with %q and the field\nstdout:\n%s\nstderr:\n%s", size, code, want, stdout, stderr)
		}
	}
}

// TestParityGoldenOutputCount: a golden that lists more outputs than the
// operator has fails `vkdml parity`, naming the case, where it compared
// "equal".
func TestParityGoldenOutputCount(t *testing.T) {
	dir := paritytest.Corpus(t)
	out0 := parity.OutputFile(paritytest.CaseName, 0)
	paritytest.SetResults(t, dir, func(r *parity.Result) { r.Outputs = append(r.Outputs, out0) })
	code, stdout, stderr := vkdml("parity", "--corpus", dir)
	if strings.Contains(stderr, "no usable Vulkan device") {
		testutil.NoDevice(t, stderrError(stderr))
	}
	if want := "case " + paritytest.CaseName + ": results.json lists 2 output file(s) for S_OK; want 1"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q\nstdout:\n%s", code, stderr, want, stdout)
	}
}
