package testutil

import (
	"strings"
	"testing"
)

// SetUmask skips the test: Windows has no umask (a new file's access comes
// from its folder's ACL).
func SetUmask(t testing.TB, mask int) int {
	t.Skip("Windows has no umask")
	return 0
}

// Mkfifo reports that Windows has no FIFOs in the file system (named pipes
// live under \\.\pipe\, never beside an output), so no case needs one.
func Mkfifo(t testing.TB, path string) bool { return false }

// SkipWithoutSIGTERM skips the test: on Windows Process.Signal can only
// kill, which no handler sees.
func SkipWithoutSIGTERM(t testing.TB) {
	t.Skip("Windows cannot send SIGTERM to a process")
}

// SymlinksWork: Windows makes symbolic links only in Developer Mode or as
// administrator, and under Wine 8 a link to a folder does not resolve, so
// the symbolic-link cases run on Linux only.
const SymlinksWork = false

// NoSymlinks is why a symbolic-link case is skipped.
const NoSymlinks = "symbolic links are not dependable on Windows (Developer Mode) or under Wine"

// UnixModes: Windows keeps only a read-only flag, which Go shows as 0444
// or 0666.
const UnixModes = false

// SaysMissing reports whether msg contains want; where want is Linux's
// "no such file", Windows's words for a missing file or folder do too
// ("cannot find the path specified", or Wine's "Path not found").
func SaysMissing(msg, want string) bool {
	if want == "no such file" {
		return strings.Contains(msg, "cannot find") || strings.Contains(msg, "not found")
	}
	return strings.Contains(msg, want)
}
