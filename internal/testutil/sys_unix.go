//go:build unix

package testutil

import (
	"strings"
	"syscall"
	"testing"
)

// SetUmask sets the process's umask and returns the old one.
func SetUmask(t testing.TB, mask int) int { return syscall.Umask(mask) }

// Mkfifo makes a FIFO at path and reports whether the platform has them.
func Mkfifo(t testing.TB, path string) bool {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}

// SkipWithoutSIGTERM does nothing: Process.Signal sends SIGTERM here.
func SkipWithoutSIGTERM(t testing.TB) {}

// SymlinksWork: os.Symlink makes links that the file system follows.
const SymlinksWork = true

// NoSymlinks is why a symbolic-link case is skipped; empty where they work.
const NoSymlinks = ""

// UnixModes: files have the permission bits os.Chmod set.
const UnixModes = true

// SaysMissing reports whether msg contains want.
func SaysMissing(msg, want string) bool { return strings.Contains(msg, want) }
