//go:build !windows

package main

import "time"

// wallStart starts a host wall-time measurement for bench; see
// wallclock_windows.go for why it is not simply time.Now there.
func wallStart() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}
