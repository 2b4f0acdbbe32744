// Command capi is libvkdml, vkdml's C shared library: build it with
//
//	go build -buildmode=c-shared -o libvkdml.so ./capi
//
// and program against the hand-written header capi/vkdml.h (the header
// that go build writes next to the library is cgo's and is not the
// interface). The library wraps package dml: devices, operators created,
// compiled and initialized once and run many times on host buffers, and
// DirectML's HRESULTs with a thread-local message naming the field and the
// rule.
//
// No Go pointer reaches C: objects are integer handles into a table kept
// on the Go side, messages are copied into C memory, and host buffers are
// C memory that Go reads and writes only during the call.
package main

/*
#define VKDML_NO_PROTOTYPES
#include "vkdml.h"
#include <stdlib.h>
void vkdmlc_set_error(const char *msg, size_t n);
void vkdmlc_clear_error(void);
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/panicerr"
)

// main is never called: the package is built as a shared library.
func main() {}

// handleTable maps the integer handles C holds to Go objects, so that no
// Go pointer is ever stored in C memory, and so that an unknown or
// released handle is an error rather than a crash (cgo.Handle panics).
type handleTable struct {
	mu      sync.Mutex
	next    uint64
	objects map[uint64]any
}

var handles = handleTable{objects: map[uint64]any{}}

// add stores v and returns its handle, never 0.
func (t *handleTable) add(v any) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.objects[t.next] = v
	return t.next
}

func (t *handleTable) get(h uint64) any {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.objects[h]
}

func (t *handleTable) remove(h uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.objects, h)
}

// lookup returns the object of handle h as a T, or an E_INVALIDARG error
// naming field.
func lookup[T any](call, field string, h uint64, what string) (T, error) {
	v, ok := handles.get(h).(T)
	if !ok {
		var zero T
		return zero, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field,
			Rule: fmt.Sprintf("%d is not a live %s handle (never created, destroyed, or another kind of object)", h, what)}
	}
	return v, nil
}

// finish turns the result of an exported call into its HRESULT and sets
// the calling thread's message: cleared on success, the error's text on
// failure. Each export defers it, with recover, so that a panic (a bug in
// vkdml) becomes E_UNEXPECTED with a one-line message (panicerr) instead
// of killing the host process or handing it a Go stack.
func finish(call string, hr *C.VKDML_HRESULT, err *error) {
	if r := recover(); r != nil {
		*err = panicerr.Error(call, r)
	}
	if *err == nil {
		C.vkdmlc_clear_error()
		*hr = 0
		return
	}
	code, msg := outcome(call, *err)
	cs := C.CString(msg)
	C.vkdmlc_set_error(cs, C.size_t(len(msg)))
	C.free(unsafe.Pointer(cs))
	*hr = C.VKDML_HRESULT(int32(uint32(code)))
}

// outcome is the HRESULT and the message of an export that failed with
// err: the error's code (E_FAIL when it carries none) and its text, with
// the call and the code added where err is not an *hresult.Error.
func outcome(call string, err error) (hresult.HRESULT, string) {
	code := hresult.Code(err)
	if !code.Failed() {
		code = hresult.E_FAIL
	}
	msg := err.Error()
	var he *hresult.Error
	if !errors.As(err, &he) {
		msg = fmt.Sprintf("%s: %s [%s]", call, msg, code.Name())
	}
	return code, msg
}

// invalidArg is an E_INVALIDARG error of call for field.
func invalidArg(call, field, format string, args ...any) error {
	return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field, Rule: fmt.Sprintf(format, args...)}
}
