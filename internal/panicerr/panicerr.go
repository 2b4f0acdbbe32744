// Package panicerr turns a panic recovered at one of vkdml's API
// boundaries (libvkdml's exports, dml's planning) into the error the
// caller gets: E_UNEXPECTED, with the panic's value on one line and no Go
// stack, so that a bug in vkdml reaches a C, Python or Go caller as an
// HRESULT rather than as a crash or a trace. With VKDML_TRACEBACK=1 in the
// environment (as for the vkdml command) the stack also goes to stderr,
// for whoever reports the bug.
package panicerr

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/vkdml/vkdml/hresult"
)

// Error is the E_UNEXPECTED error of call ("" leaves Op for the caller
// to set) for the recovered panic value r. Call it in the deferred
// function that recovered, so that the stack VKDML_TRACEBACK prints is
// the panicking one.
func Error(call string, r any) *hresult.Error {
	if os.Getenv("VKDML_TRACEBACK") == "1" {
		fmt.Fprintf(os.Stderr, "vkdml: internal error: %v\n%s", r, debug.Stack())
	}
	return &hresult.Error{Code: hresult.E_UNEXPECTED, Op: call,
		Rule: "internal error (a bug in vkdml; please report it, with VKDML_TRACEBACK=1's stack): " + strings.Join(strings.Fields(fmt.Sprint(r)), " ")}
}
