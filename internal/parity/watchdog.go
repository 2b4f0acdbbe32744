package parity

import (
	"sync"
	"time"
)

// Watchdog calls expire, which must exit the process, in another goroutine
// if the returned stop is not called within d (0 or less: never). A stop
// that comes too late blocks until expire has exited, so a case's results
// are never written twice. vkdml parity --live and the Windows runner
// (dmlrunner) both guard each DirectML case with it.
func Watchdog(d time.Duration, expire func()) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	t := time.AfterFunc(d, func() {
		mu.Lock() // held until the process exits
		if !stopped {
			expire()
		}
		mu.Unlock()
	})
	return func() {
		t.Stop()
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
