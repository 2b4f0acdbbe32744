package main

import (
	"os"
	"syscall"
)

// terminatingSignals are the signals Go delivers on Windows: Ctrl+C or
// Ctrl+Break (SIGINT), and the console being closed, the user logging off
// or the system shutting down (SIGTERM). writeOutputs catches them so that
// it can undo the write first; Windows has no kill(2), so no other signal
// can arrive.
var terminatingSignals = []os.Signal{
	syscall.SIGINT,
	syscall.SIGTERM,
}
