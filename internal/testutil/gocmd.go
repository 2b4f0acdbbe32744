package testutil

import (
	"os/exec"
	"testing"
)

// GoCommand returns the path of the go command for a test that runs it
// (what says what for, as the skip's reason), skipping the test under
// go test -short or when there is no go command.
func GoCommand(t testing.TB, what string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(what)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	return goBin
}
