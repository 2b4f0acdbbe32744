// Package safefiletest gives tests the paths a careless or hostile user
// hands vkdml where a file belongs (a FIFO, /dev/zero, /dev/urandom, a
// folder, a sparse file over a bound), and a deadline, so that a reader
// that would block or read forever fails its test instead of hanging it.
package safefiletest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Deadline is how long a refusal may take; a reader that blocks on a
// FIFO or reads /dev/zero never finishes, and one that checks first
// answers in microseconds.
const Deadline = 10 * time.Second

// Hostile is a path that is not a regular file and what the refusal
// must say about it.
type Hostile struct {
	Name string // for the subtest
	Path string
	Want string // a substring of the error: "not a regular file (a FIFO)"
}

// HostileFiles returns a FIFO (made in a fresh temporary folder, on Unix),
// the character devices /dev/zero and /dev/urandom where they exist, and a
// folder. Where base is not empty, the FIFO and the folder are named base
// (a reader may look for a fixed file name); they are then made in
// separate folders, returned as Hostile.Path's folder.
func HostileFiles(t testing.TB, base string) []Hostile {
	t.Helper()
	if base == "" {
		base = "file"
	}
	var hs []Hostile
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(t.TempDir(), base)
		if err := mkfifo(fifo); err != nil {
			t.Fatalf("mkfifo %s: %v", fifo, err)
		}
		t.Cleanup(func() { unblockFIFO(fifo) })
		hs = append(hs, Hostile{"fifo", fifo, "not a regular file (a FIFO)"})
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err == nil {
			hs = append(hs, Hostile{strings.TrimPrefix(dev, "/dev/"), dev, "not a regular file (a character device)"})
		}
	}
	dir := filepath.Join(t.TempDir(), base)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return append(hs, Hostile{"folder", dir, "not a regular file (a directory)"})
}

// unblockFIFO opens a FIFO for writing without blocking and closes it, so
// that a reader blocked opening it (a test that failed its deadline) gets
// EOF and its goroutine ends.
func unblockFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// Sparse makes a sparse file of size bytes in a fresh temporary folder,
// named base, without writing its bytes.
func Sparse(t testing.TB, base string, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), base)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return path
}

// Within runs f and returns its error, failing the test (and returning a
// nil error) when f has not returned within Deadline.
func Within(t testing.TB, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Deadline):
		t.Fatalf("%s: no answer after %v: the reader blocked or is reading without bound", what, Deadline)
		return nil
	}
}

// Refused checks that err refuses h: it names h.Path and says what h is.
func Refused(t testing.TB, what string, err error, h Hostile) {
	t.Helper()
	if err == nil {
		t.Errorf("%s %s: no error", what, h.Path)
		return
	}
	if msg := err.Error(); !strings.Contains(msg, h.Path) || !strings.Contains(msg, h.Want) {
		t.Errorf("%s %s: error %q does not name the path and say %q", what, h.Path, msg, h.Want)
	}
}
