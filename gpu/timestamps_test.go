package gpu_test

import (
	"testing"
	"time"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestTimestampsBeforeSubmission asks for the timestamps of a list whose
// timestamps were recorded but never executed (first recording, and a
// second recording with more timestamps than the completed one): there
// are no results yet, and Timestamps must say so rather than wait on
// queries the GPU never wrote (vkGetQueryPoolResults with WAIT_BIT waits
// forever on them).
func TestTimestampsBeforeSubmission(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	if d.Limits.TimestampValidBits == 0 {
		t.Skip("the compute queue has no timestamps")
	}
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Destroy()
	record := func(n int) {
		t.Helper()
		if err := l.Begin(); err != nil {
			t.Fatal(err)
		}
		for range n {
			if _, err := l.Timestamp(); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
	}
	timestamps := func(what string) []float64 {
		t.Helper()
		type result struct {
			ts  []float64
			err error
		}
		done := make(chan result, 1)
		go func() {
			ts, err := l.Timestamps()
			done <- result{ts, err}
		}()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("%s: %v", what, r.err)
			}
			return r.ts
		case <-time.After(time.Minute): // a hang guard, not a timing
			t.Fatalf("%s: Timestamps waits for queries that were never executed", what)
		}
		return nil
	}
	record(2)
	if ts := timestamps("recorded, not submitted"); len(ts) != 0 {
		t.Fatalf("recorded, not submitted: %v; want none", ts)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if ts := timestamps("after a run"); len(ts) != 2 || ts[1] < ts[0] {
		t.Fatalf("after a run: %v; want 2 in order", ts)
	}
	record(4)
	if ts := timestamps("re-recorded with more, not submitted"); len(ts) != 2 {
		t.Fatalf("re-recorded, not submitted: %v; want the completed run's 2", ts)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if ts := timestamps("after the second run"); len(ts) != 4 {
		t.Fatalf("after the second run: %v; want 4", ts)
	}
}
