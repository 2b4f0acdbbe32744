package main

import (
	"os"
	"syscall"
)

// terminatingSignals are the signals that end a Go program on Linux unless
// it catches them (the runtime's sigtab_linux_generic.go): writeOutputs
// catches each one not ignored at start so that it can undo the write
// first. See the comment at the top of output.go for the list's reasons.
var terminatingSignals = []os.Signal{
	syscall.SIGHUP,  // the runtime exits
	syscall.SIGINT,  // the runtime exits
	syscall.SIGTERM, // the runtime exits
	syscall.SIGQUIT, // the runtime dumps every goroutine and exits
	syscall.SIGABRT, // the runtime dumps every goroutine and exits
	syscall.SIGPIPE, // the runtime dies of it when a write to fd 1 or 2 fails with EPIPE
	// Faults: a real one is a panic or a crash and never reaches a
	// channel; one sent by kill(2) makes the runtime dump and exit.
	syscall.SIGILL,
	syscall.SIGTRAP,
	syscall.SIGBUS,
	syscall.SIGFPE,
	syscall.SIGSEGV,
	syscall.SIGSTKFLT,
	syscall.SIGSYS,
}
