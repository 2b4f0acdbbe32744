package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/conformance"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// The command's tests run the vkdml binary: $VKDML_BIN when set (a
// prebuilt binary, as on the GPU machine, which has no Go), else one built
// here with `go build` once per test process.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  string
	buildDir  string
)

// vkdmlBin returns the binary the CLI tests run, or fails (skips outside
// CI) with what is missing.
func vkdmlBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VKDML_BIN"); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			t.Fatalf("VKDML_BIN=%s: not a binary: %v", p, err)
		}
		return p
	}
	buildOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			buildErr = "no go command to build vkdml and VKDML_BIN is not set (set it to a prebuilt vkdml binary)"
			return
		}
		if buildDir, err = os.MkdirTemp("", "vkdml-cli-test-"); err != nil {
			buildErr = err.Error()
			return
		}
		builtBin = filepath.Join(buildDir, "vkdml")
		if out, err := exec.Command(goBin, "build", "-o", builtBin, "github.com/vkdml/vkdml/cmd/vkdml").CombinedOutput(); err != nil {
			buildErr = "go build: " + err.Error() + "\n" + string(out)
		}
	})
	if buildErr != "" {
		if testutil.InCI() {
			t.Fatalf("CI=true: %s", buildErr)
		}
		t.Skip(buildErr)
	}
	return builtBin
}

// onnxData returns ONNX's node test folder ($VKDML_ONNX_DATA, else
// Debian's libonnx-testdata), skipping the test when it is missing and
// failing it under CI=true.
func onnxData(t *testing.T) string {
	t.Helper()
	dir := conformance.DataDir()
	if _, err := conformance.Cases(dir); err != nil {
		if testutil.InCI() {
			t.Fatalf("CI=true and ONNX's test data is missing (make deps installs libonnx-testdata; elsewhere set %s to a copy): %v", conformance.DataDirEnv, err)
		}
		t.Skipf("ONNX test data not installed (apt-get install libonnx-testdata, or set %s): %v", conformance.DataDirEnv, err)
	}
	return dir
}

// npyHeader builds a version 1.0 .npy header for the dict text.
func npyHeader(dict string) []byte {
	h := dict
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(h)), byte(len(h)>>8))
	return append(b, h...)
}

// runBin runs the binary with a time limit and returns its exit error,
// stdout and stderr.
func runBin(t *testing.T, bin string, args ...string) (error, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err, stdout.String(), stderr.String()
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("vkdml %s hung", strings.Join(args, " "))
	}
	return nil, "", ""
}

// cliFiles are the inputs and odd paths the bad-input table refers to.
type cliFiles struct {
	src, aux string
	fifo     bool              // aux holds "fifo" (Windows has no FIFOs)
	npy      map[string]string // bad and good .npy inputs by key
}

func makeCLIFiles(t *testing.T) *cliFiles {
	f := &cliFiles{src: t.TempDir(), aux: t.TempDir(), npy: map[string]string{}}
	write := func(name string, b []byte) string {
		p := filepath.Join(f.src, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good4 := filepath.Join(f.src, "good4.npy")
	if err := tensor.WriteNpyFile(good4, tensor.FromFloat32([]uint32{1, 1, 4, 4}, make([]float32, 16))); err != nil {
		t.Fatal(err)
	}
	goodBytes, _ := os.ReadFile(good4)
	good2 := filepath.Join(f.src, "good2.npy")
	if err := tensor.WriteNpyFile(good2, tensor.FromFloat32([]uint32{3, 3}, make([]float32, 9))); err != nil {
		t.Fatal(err)
	}
	f.npy = map[string]string{
		"good4":        good4,
		"good2":        good2,
		"truncated":    write("truncated.npy", goodBytes[:len(goodBytes)-10]),
		"lying":        write("lying.npy", append(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 64, 64), }"), make([]byte, 64)...)),
		"huge":         write("huge.npy", append(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }"), make([]byte, 64)...)),
		"f8":           write("f8.npy", append(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"), make([]byte, 32)...)),
		"complex":      write("complex.npy", append(npyHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 2), }"), make([]byte, 32)...)),
		"magic":        write("magic.npy", append([]byte("PK\x03\x04"), goodBytes[4:]...)),
		"header-short": write("headershort.npy", goodBytes[:20]),
		"zero-dim":     write("zerodim.npy", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }")),
		"rank3":        write("rank3.npy", append(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4, 4), }"), make([]byte, 64)...)),
	}
	f.fifo = testutil.Mkfifo(t, filepath.Join(f.aux, "fifo"))
	if testutil.SymlinksWork {
		if err := os.Symlink(filepath.Join(f.aux, "nothing-here"), filepath.Join(f.aux, "dangling")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(f.src, filepath.Join(f.aux, "srclink")); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"good2", "good4"} {
		if err := os.Link(f.npy[k], filepath.Join(f.aux, "hard-"+k+".npy")); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(f.aux, "folder.npy"), 0o755)
	return f
}

// resolve replaces a placeholder argument of the table by its path.
func (f *cliFiles) resolve(a, in, dir string) string {
	switch a {
	case "IN":
		return in
	case "OUT":
		return filepath.Join(dir, "out.npy")
	case "EXTRA":
		return filepath.Join(dir, "extra.npy")
	case "MISSING": // fails after the device ran and out.npy was staged: it must not appear
		return filepath.Join(dir, "missing", "out.npy")
	case "NODIR":
		return filepath.Join(dir, "no-such-folder", "out.npy")
	case "IN-VIA-LINK": // the input through a symlinked folder
		return filepath.Join(f.aux, "srclink", filepath.Base(in))
	case "IN-HARDLINK":
		return filepath.Join(f.aux, "hard-"+strings.TrimSuffix(filepath.Base(in), ".npy")+".npy")
	case "OUT-VIA-LINK": // OUT through a symlink to its folder
		link := filepath.Join(f.aux, "outlink-"+filepath.Base(dir))
		os.Symlink(dir, link)
		return filepath.Join(link, "out.npy")
	case "FIFO", "DANGLING", "folder.npy":
		return filepath.Join(f.aux, strings.ToLower(a))
	case "DEVNULL":
		return os.DevNull
	case "PLOT-NODIR":
		return filepath.Join(dir, "no-such-folder", "x.svg")
	case "CORPUS-NODIR":
		return filepath.Join(dir, "no-corpus")
	}
	return a
}

// cliBadCases are the CLI's bad inputs: each must exit non-zero, say want
// on stderr, leave no file behind and change no input.
var cliBadCases = []struct {
	name string
	args []string // placeholders: see cliFiles.resolve
	in   string   // a key of cliFiles.npy, or a path
	want string   // must occur in stderr
}{
	{"npy truncated data", []string{"run", "argmax", "--axes", "1", "IN", "OUT"}, "truncated", "truncated"},
	{"npy header lies about the shape", []string{"run", "maxpool", "--window", "2", "IN", "OUT"}, "lying", "truncated: shape"},
	{"npy huge shape", []string{"run", "argmax", "--axes", "0", "IN", "OUT"}, "huge", "more than DirectML's limit"},
	{"npy FLOAT64", []string{"run", "identity", "IN", "OUT"}, "f8", "FLOAT64"},
	{"npy complex dtype", []string{"run", "argmin", "--axes", "0", "IN", "OUT"}, "complex", "unsupported dtype"},
	{"npy bad magic", []string{"run", "identity", "IN", "OUT"}, "magic", "magic"},
	{"npy truncated header", []string{"run", "identity", "IN", "OUT"}, "header-short", "truncated"},
	{"npy zero dimension", []string{"run", "identity", "IN", "OUT"}, "zero-dim", "size of 0"},
	{"missing input file", []string{"run", "identity", "IN", "OUT"}, "/nonexistent-vkdml/nope.npy", "no such file"},
	{"maxpool rank-3 input", []string{"run", "maxpool", "--window", "2", "IN", "OUT"}, "rank3", "4D"},
	{"flag axes not a number", []string{"run", "argmax", "--axes", "x", "IN", "OUT"}, "good2", "not an integer"},
	{"flag axes out of range", []string{"run", "argmax", "--axes", "2", "IN", "OUT"}, "good2", "out of range"},
	{"flag negative axis out of range", []string{"run", "argmax", "--axes", "-3", "IN", "OUT"}, "good2", "axes are -2..1"},
	{"flag axes empty", []string{"run", "argmin", "--axes", "", "IN", "OUT"}, "good2", "--axes is required"},
	{"flag direction", []string{"run", "argmax", "--axes", "0", "--direction", "sideways", "IN", "OUT"}, "good2", "--direction"},
	{"flag index type", []string{"run", "argmin", "--axes", "0", "--index-type", "float32", "IN", "OUT"}, "good2", "--index-type"},
	{"flag maxpool signed index type", []string{"run", "maxpool", "--window", "2", "--index-type", "int64", "IN", "OUT"}, "good4", "DirectML's MAX_POOLING2"},
	{"flag unknown", []string{"run", "argmax", "--axes", "0", "--bogus", "IN", "OUT"}, "good2", "bogus"},
	{"flag window zero (validation)", []string{"run", "maxpool", "--window", "0,2", "--output-size", "2,2", "IN", "OUT"}, "good4", "WindowSize[0]"},
	{"flag dilations zero", []string{"run", "maxpool", "--window", "2", "--dilations", "0", "IN", "OUT"}, "good4", "Dilations[0]: must be at least 1"},
	{"flag list length", []string{"run", "maxpool", "--window", "2", "--strides", "1,2,3", "IN", "OUT"}, "good4", "--strides has 3 values"},
	{"flag list malformed", []string{"run", "maxpool", "--window", "2,x", "IN", "OUT"}, "good4", "not a list of unsigned integers"},
	{"flag window larger than the input", []string{"run", "maxpool", "--window", "9", "IN", "OUT"}, "good4", "output would be empty"},
	{"flag padding with start-padding", []string{"run", "maxpool", "--window", "2", "--padding", "1", "--start-padding", "1", "IN", "OUT"}, "good4", "--padding sets both sides"},
	{"flag ceil-mode with output-size", []string{"run", "maxpool", "--window", "2", "--ceil-mode", "--output-size", "2", "IN", "OUT"}, "good4", "--ceil-mode chooses"},
	{"too many positional arguments", []string{"run", "identity", "IN", "OUT", "EXTRA"}, "good2", "want IN.npy OUT.npy"},
	{"unknown operator", []string{"run", "conv", "IN", "OUT"}, "good2", "unknown operator"},
	{"output and indices the same file", []string{"run", "maxpool", "--window", "2", "--indices", "OUT", "IN", "OUT"}, "good4", "named twice"},
	{"indices aliases the output through a symlinked folder", []string{"run", "maxpool", "--window", "2", "--indices", "OUT-VIA-LINK", "IN", "OUT"}, "good4", "named twice"},
	{"indices directory missing", []string{"run", "maxpool", "--window", "2", "--indices", "MISSING", "IN", "OUT"}, "good4", "no such file"},
	{"output folder missing", []string{"run", "identity", "IN", "NODIR"}, "good2", "no such file"},
	{"output is the input", []string{"run", "identity", "IN", "IN"}, "good2", "is the input file"},
	{"output is the input through a symlinked folder", []string{"run", "argmax", "--axes", "0", "IN", "IN-VIA-LINK"}, "good2", "is the input file"},
	{"output is a hard link to the input", []string{"run", "identity", "IN", "IN-HARDLINK"}, "good2", "is the input file"},
	{"indices is the input", []string{"run", "maxpool", "--window", "2", "--indices", "IN", "IN", "OUT"}, "good4", "is the input file"},
	{"output is a FIFO", []string{"run", "identity", "IN", "FIFO"}, "good2", "FIFO"},
	{"output is /dev/null", []string{"run", "identity", "IN", "DEVNULL"}, "good2", "character device"},
	{"indices is /dev/null", []string{"run", "maxpool", "--window", "2", "--indices", "DEVNULL", "IN", "OUT"}, "good4", "character device"},
	{"output is a folder", []string{"run", "identity", "IN", "folder.npy"}, "good2", "a folder"},
	{"output is a dangling symlink", []string{"run", "identity", "IN", "DANGLING"}, "good2", "symbolic link to a missing file"},
	{"devices: no such device index", []string{"devices", "--device", "99"}, "", "no such device"},
	{"devices: no device of that name", []string{"devices", "--device", "no-such-gpu-name"}, "", "matches the name of no usable device"},
	{"bench: plot folder missing", []string{"bench", "--op", "copy", "--shape", "4", "--plot", "PLOT-NODIR"}, "", "--plot"},
	{"bench: unknown kernel", []string{"bench", "--op", "argmax", "--shape", "4", "--axes", "0", "--kernel", "warp"}, "", "not a strategy of argmax"},
	{"bench: unknown op", []string{"bench", "--op", "conv", "--shape", "4"}, "", "--op must be one of"},
	{"parity: corpus folder missing", []string{"parity", "--corpus", "CORPUS-NODIR"}, "", "no corpus.json there"},
	{"conformance: data folder missing", []string{"conformance", "--data", "CORPUS-NODIR"}, "", "no ONNX node test data sets"},
}

// TestBadInputCLI runs the command with bad files, flags and output paths:
// each must exit non-zero with a message naming the problem, without a Go
// panic, leave no output file (nor a temporary one) behind and change no
// input.
func TestBadInputCLI(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips, or fails under CI, without a device
	bin := vkdmlBin(t)
	f := makeCLIFiles(t)
	before := map[string][]byte{}
	for _, p := range f.npy {
		before[p], _ = os.ReadFile(p)
	}
	for _, c := range cliBadCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if slices.Contains(c.args, "FIFO") && !f.fifo {
				t.Skip("no FIFOs on this system")
			}
			if !testutil.SymlinksWork && slices.ContainsFunc(c.args, func(a string) bool { return strings.HasSuffix(a, "-VIA-LINK") || a == "DANGLING" }) {
				t.Skip(testutil.NoSymlinks)
			}
			dir := t.TempDir()
			in := c.in
			if p, ok := f.npy[in]; ok {
				in = p
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = f.resolve(a, in, dir)
			}
			if args[0] != "devices" && args[0] != "bench" {
				args = append(args, "--debug")
			}
			err, stdout, msg := runBin(t, bin, args...)
			if err == nil {
				t.Fatalf("vkdml %s succeeded; want an error", strings.Join(args, " "))
			}
			if strings.Contains(msg, "internal error") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("a panic reached the user:\n%s", msg)
			}
			if !testutil.SaysMissing(msg, c.want) {
				t.Fatalf("stderr does not say %q:\n%s", c.want, msg)
			}
			for _, r := range msg {
				if r >= 0x80 { // shows as "Â·" or "Â " on a Latin-1 terminal
					t.Errorf("non-ASCII %q in the message: %q", r, msg)
					break
				}
			}
			if strings.Contains(msg, "vkdml "+args[0]+": "+args[0]+":") {
				t.Errorf("doubled prefix: %q", msg)
			}
			if args[0] == "bench" && strings.Contains(stdout, "device:") {
				t.Errorf("bench measured before refusing: %s", stdout)
			}
			left, _ := os.ReadDir(dir)
			for _, e := range left {
				t.Errorf("left behind on error: %s", e.Name())
			}
			for p, b := range before {
				if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
					t.Fatalf("input %s was changed", p)
				}
			}
			if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("%s is no longer a device", os.DevNull)
			}
			t.Logf("exit %v: %s", err, strings.TrimSpace(msg))
		})
	}
	if len(apiCases)+len(cliBadCases) < 30 {
		t.Errorf("only %d kinds of bad input", len(apiCases)+len(cliBadCases))
	}
}

// TestCLIOutputs: a new output gets 0666 minus the umask, a 255-byte name
// works, and an existing output is replaced whole.
func TestCLIOutputs(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{})
	bin := vkdmlBin(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	if err := tensor.WriteNpyFile(in, tensor.FromFloat32([]uint32{1, 1, 4, 4}, make([]float32, 16))); err != nil {
		t.Fatal(err)
	}
	old := testutil.SetUmask(t, 0o022)
	defer testutil.SetUmask(t, old)
	long := filepath.Join(dir, strings.Repeat("o", 251)+".npy")
	idx := filepath.Join(dir, strings.Repeat("i", 240)+".npy")
	for round := 0; round < 2; round++ { // the second round replaces the files
		if err, _, msg := runBin(t, bin, "run", "maxpool", "--window", "2", "--padding", "1", "--ceil-mode", "--indices", idx, in, long, "--debug"); err != nil {
			t.Fatalf("round %d: %v: %s", round, err, msg)
		}
		for _, p := range []string{long, idx} {
			fi, err := os.Stat(p)
			if err != nil || fi.Mode().Perm() != 0o644 {
				t.Fatalf("%s: %v %v; want mode 0644 under umask 022", filepath.Base(p)[:8], err, fi)
			}
			if _, err := tensor.ReadNpyFile(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("files in the folder: %v", ents)
	}
}

// TestCLISignalLeavesNoTemporaries sends SIGTERM to `vkdml run` at
// increasing delays: however far it got, no temporary file stays, and an
// output that exists is whole.
func TestCLISignalLeavesNoTemporaries(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 32 MiB files")
	}
	testutil.SkipWithoutSIGTERM(t)
	testutil.OpenDML(t, dml.DeviceOptions{})
	bin := vkdmlBin(t)
	src := t.TempDir()
	in := filepath.Join(src, "in.npy")
	if err := tensor.WriteNpyFile(in, tensor.FromFloat32([]uint32{8 << 20}, make([]float32, 8<<20))); err != nil {
		t.Fatal(err)
	}
	var kills, duringWrite int
	for delay := 50 * time.Millisecond; delay < 20*time.Second; delay = delay * 3 / 2 {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.npy")
		cmd := exec.Command(bin, "run", "identity", in, out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(delay):
			cmd.Process.Signal(syscall.SIGTERM)
			kills++
			err = <-done
		}
		if strings.Contains(stderr.String(), "the outputs were not written") {
			duringWrite++ // the handler ran: the signal came while the output was staged
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != "out.npy" {
				t.Errorf("after SIGTERM at %v: %s left behind (%v: %s)", delay, e.Name(), err, stderr.String())
			}
		}
		if _, serr := os.Stat(out); serr == nil {
			if _, rerr := tensor.ReadNpyFile(out); rerr != nil {
				t.Errorf("after SIGTERM at %v the output is not whole: %v", delay, rerr)
			}
		}
		if err == nil {
			break // it finished before the signal: longer delays test nothing new
		}
	}
	t.Logf("%d runs stopped by SIGTERM, %d of them while the output was being written", kills, duringWrite)
}
