package parity

import (
	"testing"
	"time"
)

// TestWatchdog: expire runs once the time is up and stop has not come, and
// never after stop or with no time limit.
func TestWatchdog(t *testing.T) {
	for _, c := range []struct {
		name       string
		d          time.Duration
		stopFirst  bool
		wantExpire bool
	}{
		{"late", time.Millisecond, false, true},
		{"stopped", time.Hour, true, false},
		{"no limit", 0, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			expired := make(chan struct{})
			stop := Watchdog(c.d, func() { close(expired) })
			if c.stopFirst {
				stop()
			}
			select {
			case <-expired:
				if !c.wantExpire {
					t.Fatal("expire ran")
				}
			case <-time.After(100 * time.Millisecond):
				if c.wantExpire {
					t.Fatal("expire did not run")
				}
			}
			if !c.stopFirst {
				stop()
			}
		})
	}
}
