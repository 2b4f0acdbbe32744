package parity

import (
	"testing"
	"time"
)

// watchdogExpires arms a Watchdog for d, stops it at once when stopFirst,
// and reports whether expire ran within 100ms.
func watchdogExpires(d time.Duration, stopFirst bool) bool {
	expired := make(chan struct{})
	stop := Watchdog(d, func() { close(expired) })
	if stopFirst {
		stop()
	}
	defer stop()
	select {
	case <-expired:
		return true
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

// TestWatchdog: expire runs once the time is up and stop has not come, and
// never after stop or with no time limit.
func TestWatchdog(t *testing.T) {
	if !watchdogExpires(time.Millisecond, false) {
		t.Error("1ms, not stopped: expire did not run")
	}
	if watchdogExpires(time.Hour, true) {
		t.Error("stopped: expire ran")
	}
	if watchdogExpires(0, false) {
		t.Error("no limit: expire ran")
	}
}
