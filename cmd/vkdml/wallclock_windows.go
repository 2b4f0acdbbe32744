package main

import (
	"syscall"
	"time"
	"unsafe"
)

// Go's monotonic clock on Windows reads the interrupt time, which advances
// once per timer tick (up to 15.6 ms), so a sub-millisecond Execute + Wait
// would time as 0 or as a whole tick. bench's wall times come from
// QueryPerformanceCounter instead, which counts at a fixed rate of at
// least 1 MHz.
var (
	kernel32   = syscall.NewLazyDLL("kernel32.dll")
	qpc        = kernel32.NewProc("QueryPerformanceCounter")
	qpf        = kernel32.NewProc("QueryPerformanceFrequency")
	qpcPerSec  int64
	qpcMissing bool
)

func init() {
	if qpf.Find() != nil || qpc.Find() != nil {
		qpcMissing = true
		return
	}
	if r, _, _ := qpf.Call(uintptr(unsafe.Pointer(&qpcPerSec))); r == 0 || qpcPerSec <= 0 {
		qpcMissing = true
	}
}

func qpcNow() int64 {
	var n int64
	qpc.Call(uintptr(unsafe.Pointer(&n)))
	return n
}

// wallStart starts a host wall-time measurement; the function it returns
// gives the time since.
func wallStart() func() time.Duration {
	if qpcMissing {
		start := time.Now()
		return func() time.Duration { return time.Since(start) }
	}
	start := qpcNow()
	return func() time.Duration {
		ticks := qpcNow() - start
		return time.Duration(ticks/qpcPerSec)*time.Second + time.Duration(ticks%qpcPerSec*int64(time.Second)/qpcPerSec)
	}
}
