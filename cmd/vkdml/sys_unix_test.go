//go:build unix

package main

import (
	"strings"
	"syscall"
	"testing"
)

// setUmask sets the process's umask and returns the old one.
func setUmask(t *testing.T, mask int) int { return syscall.Umask(mask) }

// mkfifo makes a FIFO at path and reports whether the platform has them.
func mkfifo(t *testing.T, path string) bool {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}

// unixModes: files have the permission bits os.Chmod set.
const unixModes = true

// symlinksWork: os.Symlink makes links that the file system follows.
const symlinksWork = true

const noSymlinks = ""

// saysMissing reports whether msg contains want.
func saysMissing(msg, want string) bool { return strings.Contains(msg, want) }
