package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// outputDir makes a folder holding old.a and old.b with known contents.
func outputDir(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	a, b = filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("old "+filepath.Base(p)), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dir, a, b
}

// checkUntouched fails unless dir holds exactly the old files of outputDir.
func checkUntouched(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a.npy b.npy" {
		t.Fatalf("folder holds %v; want only a.npy b.npy", names)
	}
	for _, n := range names {
		got, _ := os.ReadFile(filepath.Join(dir, n))
		if string(got) != "old "+n {
			t.Fatalf("%s was changed: %q", n, got)
		}
	}
}

func twoTensors() []*tensor.Tensor {
	return []*tensor.Tensor{tensor.FromFloat32([]uint32{2}, []float32{1, 2}), tensor.FromFloat32([]uint32{3}, []float32{3, 4, 5})}
}

// TestWriteOutputsPanicUndoes: a panic after some outputs are staged, or
// during the commit, leaves the old files and no temporary one.
func TestWriteOutputsPanicUndoes(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func()
	}{
		{"after the first output is staged", func() {
			stagedHook = func(i int) { panic("staging") }
		}},
		{"during the commit, after one rename", func() {
			n := 0
			renameFile = func(from, to string) error {
				if n++; n == 2 { // the first output is in place
					panic("committing")
				}
				return os.Rename(from, to)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, a, b := outputDir(t)
			c.setup()
			defer func() { stagedHook, renameFile = nil, os.Rename }()
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("the panic did not reach the caller")
					}
				}()
				writeOutputs(nil, []string{a, b}, twoTensors())
			}()
			checkUntouched(t, dir)
		})
	}
}

func TestWriteOutputsAllOrNothing(t *testing.T) {
	dir, a, b := outputDir(t)
	good := tensor.New(tensor.Float32, 2)
	bad := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{4}), Data: make([]byte, 3)} // too short
	if err := writeOutputs(nil, []string{a, b}, []*tensor.Tensor{good, bad}); err == nil {
		t.Fatal("a bad tensor was written")
	}
	checkUntouched(t, dir)
}

// TestWriteOutputsRenameFails fails each rename of the commit in turn: the
// files replaced before it must get their old contents back.
func TestWriteOutputsRenameFails(t *testing.T) {
	for failAt := 1; failAt <= 4; failAt++ {
		dir, a, b := outputDir(t)
		calls := 0
		renameFile = func(from, to string) error {
			calls++
			if calls == failAt {
				return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EIO}
			}
			return os.Rename(from, to)
		}
		err := writeOutputs(nil, []string{a, b}, twoTensors())
		renameFile = os.Rename
		if calls < failAt {
			break // fewer renames than failAt: the commit needed none of the backup renames
		}
		if err == nil || !strings.Contains(err.Error(), "no output was changed") {
			t.Fatalf("rename %d failed; writeOutputs said %v", failAt, err)
		}
		checkUntouched(t, dir)
	}
}

func TestWriteOutputsCommits(t *testing.T) {
	dir, a, b := outputDir(t)
	if err := writeOutputs(nil, []string{a, b}, twoTensors()); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{a, b} {
		got, err := tensor.ReadNpyFile(p)
		if err != nil || !bytes.Equal(got.Data, twoTensors()[i].Data) {
			t.Fatalf("%s: %v %v", p, got, err)
		}
		if fi, _ := os.Stat(p); testutil.UnixModes && fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v; a replaced file keeps its mode 0640", p, fi.Mode())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestWriteOutputsMode: new files are 0666 minus the umask.
func TestWriteOutputsMode(t *testing.T) {
	for _, c := range []struct{ umask, want int }{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		old := testutil.SetUmask(t, c.umask)
		p := filepath.Join(t.TempDir(), "new.npy")
		err := writeOutputs(nil, []string{p}, twoTensors()[:1])
		testutil.SetUmask(t, old)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); int(fi.Mode().Perm()) != c.want {
			t.Errorf("umask %#o: mode %v, want %#o", c.umask, fi.Mode(), c.want)
		}
	}
}

// TestWriteOutputsLongNames: every legal name (up to 255 bytes) works,
// since the temporary names are short.
func TestWriteOutputsLongNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{200, 240, 245, 249, 250, 255} {
		p := filepath.Join(dir, strings.Repeat("x", n-4)+".npy")
		if err := writeOutputs(nil, []string{p}, twoTensors()[:1]); err != nil {
			t.Errorf("a %d-byte name: %v", n, err)
		}
		if err := writeOutputs(nil, []string{p}, twoTensors()[1:]); err != nil { // replacing it too
			t.Errorf("replacing a %d-byte name: %v", n, err)
		}
	}
}

// TestWriteOutputsRefused: paths that cannot be written all-or-none are
// refused with a reason, and nothing changes.
func TestWriteOutputsRefused(t *testing.T) {
	dir, a, b := outputDir(t)
	link := filepath.Join(t.TempDir(), "dirlink")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "..", filepath.Base(dir)+"-hard.npy")
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(hard)
	fifo := filepath.Join(t.TempDir(), "fifo")
	haveFIFO := testutil.Mkfifo(t, fifo)
	dangling := filepath.Join(t.TempDir(), "dangling")
	os.Symlink(filepath.Join(dir, "nothing-here"), dangling)
	newA := filepath.Join(dir, "new.npy")
	type refusal struct {
		name   string
		inputs []string
		paths  []string
		want   string
	}
	cases := []refusal{
		{"output is the input", []string{a}, []string{a}, "is the input file"},
		{"output is the input through a symlinked folder", []string{a}, []string{filepath.Join(link, "a.npy")}, "is the input file"},
		{"output is the input through a hard link", []string{a}, []string{hard}, "is the input file"},
		{"indices is the output", nil, []string{a, a}, "named twice"},
		{"indices is the output through a symlinked folder", nil, []string{a, filepath.Join(link, "a.npy")}, "named twice"},
		{"new indices is the new output through a symlinked folder", nil, []string{newA, filepath.Join(link, "new.npy")}, "named twice"},
		{"new indices is the new output, written differently", nil, []string{newA, filepath.Join(dir, ".", "new.npy")}, "named twice"},
		{"indices is the output through a hard link", nil, []string{a, hard}, "named twice"},
		{"/dev/null", nil, []string{b, os.DevNull}, "character device"},
		{"folder", nil, []string{b, dir}, "a folder"},
		{"dangling symlink", nil, []string{b, dangling}, "symbolic link to a missing file"},
		{"missing folder", nil, []string{b, filepath.Join(dir, "no", "x.npy")}, "no such file"},
		{"empty name", nil, []string{b, ""}, "empty"},
	}
	if haveFIFO {
		cases = append(cases, refusal{"FIFO", nil, []string{b, fifo}, "FIFO"})
	}
	for _, c := range cases {
		if !testutil.SymlinksWork && strings.Contains(c.name, "symlink") {
			t.Logf("%s: skipped (%s)", c.name, testutil.NoSymlinks)
			continue
		}
		err := writeOutputs(c.inputs, c.paths, twoTensors()[:len(c.paths)])
		if err == nil || !testutil.SaysMissing(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		}
		checkUntouched(t, dir)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v", os.DevNull, err)
	}
}

// TestWriteOutputsFollowsSymlink: an output that is a symbolic link to a
// file replaces the file, and the link stays.
func TestWriteOutputsFollowsSymlink(t *testing.T) {
	if !testutil.SymlinksWork {
		t.Skip(testutil.NoSymlinks)
	}
	dir, a, _ := outputDir(t)
	link := filepath.Join(t.TempDir(), "link.npy")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if err := writeOutputs(nil, []string{link}, twoTensors()[:1]); err != nil {
		t.Fatal(err)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if got, err := tensor.ReadNpyFile(a); err != nil || len(got.Data) != 8 {
		t.Fatalf("the file the link names was not written: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("left behind: %v", ents)
	}
}
