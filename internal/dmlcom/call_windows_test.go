//go:build windows

package dmlcom

import (
	"syscall"
	"testing"
	"unsafe"
)

// fakeObject is a COM object in Go memory whose vtable slot 3 is fn.
func fakeObject(fn uintptr) com {
	vtbl := []uintptr{0, 0, 0, fn}
	return com(unsafe.Pointer(&struct{ vtbl *uintptr }{&vtbl[0]}))
}

// growStack uses about kib KiB of the goroutine's stack, which makes the
// runtime move a smaller stack to a larger one.
//
//go:noinline
func growStack(kib int) byte {
	var pad [1024]byte
	if kib <= 1 {
		return pad[0]
	}
	return growStack(kib-1) + pad[kib%len(pad)]
}

// TestCallPointerArgumentsSurviveStackMoves calls a method that, as
// DirectML may, runs long enough for the caller's stack to move (here it
// grows the stack itself, as a Go callback can) before it writes its
// out-parameter. The write must reach the caller's variable: call keeps
// such variables off the stack (uintptrescapes).
func TestCallPointerArgumentsSurviveStackMoves(t *testing.T) {
	const want = 0x1234_5678_9abc_def0
	writeOut := syscall.NewCallback(func(this, out uintptr) uintptr {
		growStack(256)
		*(*uint64)(unsafe.Add(nil, out)) = want
		return 0
	})
	o := fakeObject(writeOut)
	got := make(chan uint64)
	go func() { // a new goroutine's stack is small: growStack moves it
		var out uint64
		call(o, 3, uintptr(unsafe.Pointer(&out)))
		got <- out
	}()
	if v := <-got; v != want {
		t.Errorf("the out-parameter after the call is %#x, want %#x: the callee wrote to where the variable was before the stack moved", v, want)
	}
}
