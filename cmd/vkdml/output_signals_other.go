//go:build unix && !linux

package main

import (
	"os"
	"syscall"
)

// terminatingSignals are the POSIX signals that end a Go program unless it
// catches them: writeOutputs catches each one not ignored at start so that
// it can undo the write first. See the comment at the top of output.go for
// the list's reasons; output_signals_linux.go adds Linux's SIGSTKFLT.
var terminatingSignals = []os.Signal{
	syscall.SIGHUP,
	syscall.SIGINT,
	syscall.SIGTERM,
	syscall.SIGQUIT,
	syscall.SIGABRT,
	syscall.SIGPIPE,
	syscall.SIGILL,
	syscall.SIGTRAP,
	syscall.SIGBUS,
	syscall.SIGFPE,
	syscall.SIGSEGV,
	syscall.SIGSYS,
}
