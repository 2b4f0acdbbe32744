package dml_test

import (
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// TestDispatchTimesFollowTheExecution: DispatchTimes reports the last
// completed execution only: nothing before one (the timestamps were never
// written), and that execution's dispatches after the list was reset and
// recorded again, until the new recording has run.
func TestDispatchTimesFollowTheExecution(t *testing.T) {
	f := newFixture(t, tensor.NewDesc(tensor.UInt32, []uint32{64}))
	f.initialize(t)
	f.list.SetProfiling(true)
	f.table.BindInputs(&dml.BufferBinding{Buffer: f.buf, SizeInBytes: 256})
	f.table.BindOutputs(&dml.BufferBinding{Buffer: f.buf, Offset: 1024, SizeInBytes: 256})
	record := func(n int) {
		t.Helper()
		for range n {
			if err := f.rec.RecordDispatch(f.list, f.cop, f.table); err != nil {
				t.Fatal(err)
			}
			if err := f.list.ResourceBarrierUAV(); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.list.Close(); err != nil {
			t.Fatal(err)
		}
	}
	times := func(what string, want int) {
		t.Helper()
		got, err := f.list.DispatchTimes()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(got) != want {
			t.Fatalf("%s: %d times %v, want %d", what, len(got), got, want)
		}
	}
	run := func() {
		t.Helper()
		if err := f.list.Execute(); err != nil {
			t.Fatal(err)
		}
		if err := f.list.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	record(1)
	times("recorded, never executed", 0)
	run()
	times("executed", 1) // the initializer was recorded before profiling
	if err := f.list.Reset(); err != nil {
		t.Fatal(err)
	}
	record(3)
	times("recorded again, not executed", 1)
	run()
	times("executed again", 3)
}
