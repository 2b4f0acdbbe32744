package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// helpCommands are every command line whose -h the command answers.
func helpCommands() [][]string {
	cmds := [][]string{nil, {"run"}, {"bench"}, {"bench", "--op", "argmax"}, {"bench", "--op", "maxpool"}}
	for _, c := range commands() {
		if c.name != "run" && c.name != "bench" {
			cmds = append(cmds, []string{c.name})
		}
	}
	for _, n := range operators.Names() {
		cmds = append(cmds, []string{"run", n})
	}
	return cmds
}

// TestHelpOnStdout: -h, -help and --help, for vkdml and every command,
// print the usage on stdout and exit 0, with nothing on stderr; a bad flag
// still prints the error and the usage on stderr and exits 2, nothing on
// stdout.
func TestHelpOnStdout(t *testing.T) {
	for _, cmd := range helpCommands() {
		for _, h := range []string{"-h", "-help", "--help"} {
			args := append(slices.Clone(cmd), h)
			code, stdout, stderr := vkdml(args...)
			if code != 0 || !strings.Contains(stdout, "Usage") || stderr != "" {
				t.Errorf("vkdml %s: exit %d, stdout %.60q, stderr %.200q; want exit 0, the usage on stdout, nothing on stderr",
					strings.Join(args, " "), code, stdout, stderr)
			}
		}
		if len(cmd) == 0 {
			continue
		}
		args := append(slices.Clone(cmd), "--no-such-flag")
		code, stdout, stderr := vkdml(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("vkdml %s: exit %d, stdout %.60q, stderr %.200q; want exit 2, the error on stderr only",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
	if code, stdout, stderr := vkdml(); code != 2 || stdout != "" || !strings.Contains(stderr, "Usage") {
		t.Errorf("vkdml alone: exit %d, stdout %q, stderr %q; want exit 2 and the usage on stderr", code, stdout, stderr)
	}
}

// helpExample is one example of `vkdml run OP -h`: the command line and
// the tensors it shows, as printed.
type helpExample struct {
	args                []string // after "vkdml"
	input, output, idxs string
}

// parseHelpExamples reads the examples paragraph of a run help text:
//
//	vkdml run OP FLAGS... IN.npy OUT.npy
//	  IN  [...]
//	  OUT [...]
//	  IDX [...]
func parseHelpExamples(t *testing.T, help string) []helpExample {
	t.Helper()
	var exs []helpExample
	lines := strings.Split(help, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "vkdml run ") || !strings.HasSuffix(l, " OUT.npy") {
			continue
		}
		e := helpExample{args: strings.Fields(l)[1:]}
		for i+1 < len(lines) {
			f := strings.Fields(lines[i+1])
			if len(f) < 2 {
				break
			}
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i+1]), f[0]))
			switch f[0] {
			case "IN":
				e.input = rest
			case "OUT":
				e.output = rest
			case "IDX":
				e.idxs = rest
			default:
				rest = ""
			}
			if rest == "" {
				break
			}
			i++
		}
		if e.input == "" || e.output == "" {
			t.Fatalf("example %q lacks its IN or OUT line", l)
		}
		exs = append(exs, e)
	}
	return exs
}

// parseNested reads a nested list as the help writes it ("[[1, NaN],
// [-0, -FLT_MAX]]") into its sizes and row-major values.
func parseNested(s string) ([]uint32, []float64, error) {
	r := strings.NewReplacer("[", " [ ", "]", " ] ", ",", " ")
	toks := strings.Fields(r.Replace(s))
	var vals []float64
	var sizes []int // per depth; -1 until a list of that depth closes
	leaf := -1      // the depth numbers are at
	pos := 0
	// list parses the list at toks[pos], at depth d.
	var list func(d int) error
	list = func(d int) error {
		if pos >= len(toks) || toks[pos] != "[" {
			return fmt.Errorf("%q: want [ at token %d", s, pos)
		}
		pos++
		n := 0
		for ; pos < len(toks) && toks[pos] != "]"; n++ {
			if toks[pos] == "[" {
				if err := list(d + 1); err != nil {
					return err
				}
				continue
			}
			v, err := parseHelpNumber(toks[pos])
			if err != nil {
				return fmt.Errorf("%q: %v", s, err)
			}
			if leaf == -1 {
				leaf = d
			}
			if leaf != d {
				return fmt.Errorf("%q: numbers at depths %d and %d", s, leaf, d)
			}
			vals = append(vals, v)
			pos++
		}
		if pos >= len(toks) {
			return fmt.Errorf("%q: unclosed [", s)
		}
		pos++
		for len(sizes) <= d {
			sizes = append(sizes, -1)
		}
		if sizes[d] != -1 && sizes[d] != n {
			return fmt.Errorf("%q: lists of %d and %d elements at depth %d", s, sizes[d], n, d)
		}
		sizes[d] = n
		return nil
	}
	if err := list(0); err != nil {
		return nil, nil, err
	}
	if pos != len(toks) {
		return nil, nil, fmt.Errorf("%q: text after the list", s)
	}
	if leaf != len(sizes)-1 {
		return nil, nil, fmt.Errorf("%q: numbers are not all in the innermost lists", s)
	}
	out := make([]uint32, len(sizes))
	for i, n := range sizes {
		out[i] = uint32(n)
	}
	return out, vals, nil
}

func parseHelpNumber(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "-FLT_MAX":
		return -math.MaxFloat32, nil
	}
	return strconv.ParseFloat(s, 64)
}

// sameNumber compares as the help means: NaN equals NaN, -0 is not +0.
func sameNumber(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// TestHelpExamplesHold runs every example that `vkdml run OP -h` prints,
// exactly as printed, and compares the outputs with the ones it shows:
// the rules the help states (ARGMAX/ARGMIN's NaN rule, ties and
// --direction, row-major indices over the reduced axes, max pooling's
// all-padding windows, ties and NaN, flat indices, --ceil-mode) are held
// to what the program does.
func TestHelpExamplesHold(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips (or fails under CI) without a device
	dir := t.TempDir()
	files := map[string]string{
		"IN.npy": filepath.Join(dir, "in.npy"), "OUT.npy": filepath.Join(dir, "out.npy"), "IDX.npy": filepath.Join(dir, "idx.npy"),
	}
	ran := map[string]int{}
	sawNaN := false
	for _, name := range operators.Names() {
		code, help, stderr := vkdml("run", name, "-h")
		if code != 0 {
			t.Fatalf("vkdml run %s -h: exit %d: %s", name, code, stderr)
		}
		for _, e := range parseHelpExamples(t, help) {
			sizes, vals, err := parseNested(e.input)
			if err != nil {
				t.Fatal(err)
			}
			in := make([]float32, len(vals))
			for i, v := range vals {
				in[i] = float32(v)
				sawNaN = sawNaN || (name == "argmax" && math.IsNaN(v))
			}
			for _, p := range files {
				os.Remove(p)
			}
			if err := tensor.WriteNpyFile(files["IN.npy"], tensor.FromFloat32(sizes, in)); err != nil {
				t.Fatal(err)
			}
			args := slices.Clone(e.args)
			for i, a := range args {
				if p, ok := files[a]; ok {
					args[i] = p
				}
			}
			shown := "vkdml " + strings.Join(e.args, " ") + " on IN " + e.input
			code, _, stderr := vkdml(append(args, "--debug")...)
			if code != 0 {
				t.Errorf("%s: exit %d: %s", shown, code, stderr)
				continue
			}
			checkHelpOutput(t, shown+": OUT", files["OUT.npy"], e.output)
			if e.idxs != "" {
				checkHelpOutput(t, shown+": IDX", files["IDX.npy"], e.idxs)
			}
			ran[name]++
		}
	}
	for _, name := range []string{"argmax", "argmin", "maxpool"} {
		if ran[name] < 3 {
			t.Errorf("vkdml run %s -h shows %d examples; its rules need at least 3", name, ran[name])
		}
	}
	if !sawNaN {
		t.Errorf("vkdml run argmax -h shows no example with a NaN, though it states the NaN rule")
	}
}

func checkHelpOutput(t *testing.T, what, path, want string) {
	t.Helper()
	wantSizes, wantVals, err := parseNested(want)
	if err != nil {
		t.Fatal(err)
	}
	got := readNpy(t, path)
	gotVals := got.Float64s()
	same := slices.Equal(got.Desc.Sizes, wantSizes) && len(gotVals) == len(wantVals)
	for i := 0; same && i < len(gotVals); i++ {
		same = sameNumber(gotVals[i], wantVals[i])
	}
	if !same {
		t.Errorf("%s: the help shows %s, the program wrote %v %v", what, want, got.Desc.Sizes, gotVals)
	}
}

func TestParseNested(t *testing.T) {
	sizes, vals, err := parseNested("[[1, NaN, -0], [-FLT_MAX, 2.5, 3]]")
	if err != nil || !slices.Equal(sizes, []uint32{2, 3}) || len(vals) != 6 || !math.IsNaN(vals[1]) || !math.Signbit(vals[2]) || vals[3] != -math.MaxFloat32 {
		t.Fatalf("got %v %v %v", sizes, vals, err)
	}
	for _, bad := range []string{"[1, [2]]", "[[1], [2, 3]]", "[1, 2", "[1] 2", "[x]"} {
		if _, _, err := parseNested(bad); err == nil {
			t.Errorf("parseNested(%q) accepted it", bad)
		}
	}
}

// TestWithoutCgo: vkdml is cgo through and through (the Vulkan binding);
// a build without cgo must stop at one line that says so, not at a page
// of undefined names.
func TestWithoutCgo(t *testing.T) {
	goBin := testutil.GoCommand(t, "builds the command")
	cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("CGO_ENABLED=0 go build succeeded")
	}
	var errLines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "# ") { // the package heading go build prints
			errLines = append(errLines, l)
		}
	}
	if len(errLines) != 1 || !strings.Contains(errLines[0], "vkdml_needs_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler") {
		t.Fatalf("CGO_ENABLED=0 go build printed:\n%s\nwant one line naming vkdml_needs_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler", out)
	}
}

// TestConformanceHelpListsMappedTypes: `vkdml conformance -h` names every
// ONNX node type the operator table maps (it named ArgMax, ArgMin and
// MaxPool only, long after Reduce* and TopK ran).
func TestConformanceHelpListsMappedTypes(t *testing.T) {
	_, stdout, _ := vkdml("conformance", "-h")
	words := strings.FieldsFunc(stdout, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	for _, op := range operators.Table {
		for _, ty := range op.ONNXTypes {
			if !slices.Contains(words, ty) {
				t.Errorf("vkdml conformance -h does not name %s (operator %s):\n%s", ty, op.Name, stdout)
			}
		}
	}
}
