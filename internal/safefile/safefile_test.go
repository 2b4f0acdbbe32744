package safefile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	safefiletest.RefusesEach(t, "file", func(path string) error {
		_, err := safefile.ReadFile(path, 1<<20)
		if err != nil && !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("%v is not ErrNotRegular", err)
		}
		return err
	})
}

func TestReadFileBound(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact")
	if err := os.WriteFile(exact, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := safefile.ReadFile(exact, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFile at the bound: %q, %v", b, err)
	}
	_, err := safefile.ReadFile(exact, 9)
	if !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), exact) || !strings.Contains(err.Error(), "10 bytes, over the limit of 9 bytes") {
		t.Errorf("ReadFile over the bound: %v", err)
	}
	safefiletest.RefusesOversize(t, "big", 1<<40, func(path string) error {
		_, err := safefile.ReadFile(path, 1<<40)
		if !errors.Is(err, safefile.ErrTooLarge) {
			t.Errorf("%v is not ErrTooLarge", err)
		}
		return err
	})
	_, err = safefile.ReadFile(filepath.Join(dir, "absent"), 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestReadFileProc reads a file that reports size 0 yet holds data.
func TestReadFileProc(t *testing.T) {
	const path = "/proc/self/status"
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Skip("no /proc")
	}
	b, err := safefile.ReadFile(path, 1<<20)
	if err != nil || !strings.Contains(string(b), "Name:") {
		t.Errorf("ReadFile %s: %d bytes, %v", path, len(b), err)
	}
	if _, err := safefile.ReadFile(path, 16); !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), "grew past the limit of 16 bytes") {
		t.Errorf("ReadFile %s with a 16-byte bound: %v", path, err)
	}
}

func TestWriteFileKeepsTheOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := safefile.WriteFile(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("disk full")
	err := safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half of the n")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("WriteFile: %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old %q", b, "old")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the temporary file was left behind: %v", entries)
	}
	// Windows keeps no permission bits, only a read-only attribute: a
	// file chmodded to 0644 is writable, which os.Stat reports as 0666.
	want := fs.FileMode(0o644)
	if runtime.GOOS == "windows" {
		want = 0o666
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
		t.Errorf("mode %v, %v; want %v", fi.Mode(), err, want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 20: "64 MiB", 3 << 30: "3 GiB", 1536: "1536 bytes", 2048: "2 KiB", 9: "9 bytes"} {
		if got := safefile.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
