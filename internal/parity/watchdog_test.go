package parity

import (
	"testing"
	"time"
)

// watchdogExpires arms a Watchdog for d, stops it at once when stopFirst,
// and reports whether expire ran within wait.
func watchdogExpires(d time.Duration, stopFirst bool, wait time.Duration) bool {
	expired := make(chan struct{})
	stop := Watchdog(d, func() { close(expired) })
	if stopFirst {
		stop()
	}
	defer stop()
	select {
	case <-expired:
		return true
	case <-time.After(wait):
		return false
	}
}

// TestWatchdog: expire runs once the time is up and stop has not come, and
// never after stop or with no time limit. The 1ms watchdog gets a minute,
// a hang guard, not a timing: on a loaded machine the process can stall
// past a short wait, whose timer then fires with the watchdog's and may
// win the select. Those that must not expire get 100ms, which a late
// expiry could only pass.
func TestWatchdog(t *testing.T) {
	if !watchdogExpires(time.Millisecond, false, time.Minute) {
		t.Error("1ms, not stopped: expire did not run")
	}
	if watchdogExpires(time.Hour, true, 100*time.Millisecond) {
		t.Error("stopped: expire ran")
	}
	if watchdogExpires(0, false, 100*time.Millisecond) {
		t.Error("no limit: expire ran")
	}
}
