package tests

import (
	"strings"
	"testing"
)

// setUmask skips the test: Windows has no umask (a new file's access comes
// from its folder's ACL).
func setUmask(t *testing.T, mask int) int {
	t.Skip("Windows has no umask")
	return 0
}

// mkfifo reports that Windows has no FIFOs in the file system (named pipes
// live under \\.\pipe\, never beside an output), so no case needs one.
func mkfifo(t *testing.T, path string) bool { return false }

// skipWithoutSIGTERM skips the test: on Windows Process.Signal can only
// kill, which no handler sees.
func skipWithoutSIGTERM(t *testing.T) {
	t.Skip("Windows cannot send SIGTERM to a process")
}

// symlinksWork: Windows makes symbolic links only in Developer Mode or as
// administrator, and under Wine 8 a link to a folder does not resolve, so
// the symbolic-link cases run on Linux only.
const symlinksWork = false

const noSymlinks = "symbolic links are not dependable on Windows (Developer Mode) or under Wine"

// saysMissing reports whether msg contains want; where want is Linux's
// "no such file", Windows's words for a missing file or folder do too
// ("cannot find the path specified", or Wine's "Path not found").
func saysMissing(msg, want string) bool {
	if want == "no such file" {
		return strings.Contains(msg, "cannot find") || strings.Contains(msg, "not found")
	}
	return strings.Contains(msg, want)
}
