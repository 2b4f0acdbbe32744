package dml_test

import (
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// TestBindingsAreCopied: a binding table keeps what was bound, as
// DirectML copies bindings into its descriptor heap. Changing the caller's
// BufferBinding afterwards must not move the output past the checks that
// BindOutputs made (here onto the input, which it would overwrite).
func TestBindingsAreCopied(t *testing.T) {
	f := newFixture(t, tensor.NewDesc(tensor.UInt32, []uint32{64}))
	f.initialize(t)
	in := &dml.BufferBinding{Buffer: f.buf, SizeInBytes: 256}
	out := &dml.BufferBinding{Buffer: f.buf, Offset: 1024, SizeInBytes: 256}
	if err := f.table.BindInputs(in); err != nil {
		t.Fatal(err)
	}
	if err := f.table.BindOutputs(out); err != nil {
		t.Fatal(err)
	}
	out.Offset = 0 // after the checks: would write onto the input
	in.Offset = 2048
	if err := f.rec.RecordDispatch(f.list, f.cop, f.table); err != nil {
		t.Fatal(err)
	}
	if err := f.list.Close(); err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 256)
	for i := range src {
		src[i] = byte(i*5 + 1)
	}
	f.buf.Fill(0, 4096, 0)
	f.buf.Write(0, src)
	if err := f.list.Execute(); err != nil {
		t.Fatal(err)
	}
	if err := f.list.Wait(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 256)
	f.buf.Read(1024, got)
	if string(got) != string(src) {
		t.Fatalf("the output at the bound offset 1024 is not the input copied: the changed bindings were used")
	}
}
