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

	"github.com/vkdml/vkdml/internal/safefile"
)

// Deadline is how long a refusal may take; a reader that blocks on a
// FIFO or reads /dev/zero never finishes, and one that checks first
// answers in microseconds.
const Deadline = 10 * time.Second

// Hostile is a kind of path that is not a regular file, and what the
// refusal must say about it.
type Hostile struct {
	Name string // for the subtest: fifo, zero, urandom, folder
	Want string // a substring of the error: "not a regular file (a FIFO)"
	dev  string // the device a symbolic link made by At points to
}

// Hostiles lists, on Unix, a FIFO, the character devices /dev/zero and
// /dev/urandom where they exist, and a folder; on Windows a folder.
func Hostiles() []Hostile {
	var hs []Hostile
	if runtime.GOOS == "windows" {
		// Under Wine, os.Stat finds the host's /dev/zero, but a link to
		// it made by os.Symlink is a Windows link no open follows: a
		// folder is the one non-file kind Windows tests can make.
		return append(hs, Hostile{Name: "folder", Want: "not a regular file (a directory)"})
	}
	hs = append(hs, Hostile{Name: "fifo", Want: "not a regular file (a FIFO)"})
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err == nil {
			hs = append(hs, Hostile{Name: strings.TrimPrefix(dev, "/dev/"), Want: "not a regular file (a character device)", dev: dev})
		}
	}
	return append(hs, Hostile{Name: "folder", Want: "not a regular file (a directory)"})
}

// At makes path (which must not exist) an h: a FIFO, a symbolic link to
// the device, or a folder; and returns path.
func (h Hostile) At(t testing.TB, path string) string {
	t.Helper()
	var err error
	switch {
	case h.Name == "fifo":
		if err = mkfifo(path); err == nil {
			t.Cleanup(func() { unblockFIFO(path) })
		}
	case h.dev != "":
		err = os.Symlink(h.dev, path)
	default:
		err = os.Mkdir(path, 0o755)
	}
	if err != nil {
		t.Fatalf("making %s %s: %v", h.Name, path, err)
	}
	return path
}

// Path makes an h called base in a fresh temporary folder.
func (h Hostile) Path(t testing.TB, base string) string {
	t.Helper()
	return h.At(t, filepath.Join(t.TempDir(), base))
}

// RefusesEach runs a subtest per Hostile kind: it makes one called base
// in a fresh folder, calls read with its path, and checks that read
// returns within Deadline an error that names the path and says what it
// is.
func RefusesEach(t *testing.T, base string, read func(path string) error) {
	t.Helper()
	for _, h := range Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			path := h.Path(t, base)
			Refused(t, base, Within(t, base, func() error { return read(path) }), path, h.Want)
		})
	}
}

// RefusesOversize makes a sparse file called base one byte over limit
// and checks that read refuses it, naming the path and the limit.
func RefusesOversize(t *testing.T, base string, limit int64, read func(path string) error) {
	t.Helper()
	path := Sparse(t, base, limit+1)
	Refused(t, base, Within(t, base, func() error { return read(path) }), path, "over the limit of "+safefile.Size(limit))
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
	return SparseAt(t, filepath.Join(t.TempDir(), base), size)
}

// SparseAt makes path a sparse file of size bytes (replacing a file
// there) and returns path.
func SparseAt(t testing.TB, path string, size int64) string {
	t.Helper()
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

// Refused checks that err (or an error message) names path and says want.
func Refused(t testing.TB, what string, err any, path, want string) {
	t.Helper()
	var msg string
	switch e := err.(type) {
	case nil:
		t.Errorf("%s %s: no error", what, path)
		return
	case error:
		msg = e.Error()
	case string:
		msg = e
	}
	if !strings.Contains(msg, path) || !strings.Contains(msg, want) {
		t.Errorf("%s %s: error %q does not name the path and say %q", what, path, msg, want)
	}
}
