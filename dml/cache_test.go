package dml_test

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// rowArgMax is ARGMAX over the rows of a FLOAT32 [rows, cols] tensor.
func rowArgMax(rows, cols uint32) *dml.ArgMax {
	return &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{rows, cols}), Output: tensor.NewDesc(tensor.UInt32, []uint32{rows, 1}), Axes: []uint32{1}}
}

// computeChecked runs Compute and compares with the CPU reference.
func computeChecked(t *testing.T, d *dml.Device, desc dml.OperatorDesc, in *tensor.Tensor) {
	t.Helper()
	outs, err := d.Compute(desc, in)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]*tensor.Tensor, len(outs))
	for i, o := range outs {
		if o != nil {
			want[i] = &tensor.Tensor{Desc: o.Desc.Clone(), Data: make([]byte, len(o.Data))}
		}
	}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		t.Fatal(err)
	}
	for i := range outs {
		if outs[i] != nil && !bytes.Equal(outs[i].Data, want[i].Data) {
			t.Fatalf("%s output %d:\n%s", desc.OperatorType(), i, testutil.DiffTensors(want[i], outs[i], 4))
		}
	}
}

func randomInput(t *testing.T, d tensor.Desc) *tensor.Tensor {
	return randomInputFrom(testutil.Rand(t), d)
}

// randomInputFrom is a tensor of d with random bits from rng.
func randomInputFrom(rng *rand.Rand, d tensor.Desc) *tensor.Tensor {
	in := &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)}
	tensor.ForEachIndex(d.Sizes, func(c []uint32) { in.SetBits(c, testutil.RandomBits(rng, d.DataType)) })
	return in
}

// wrapped is a caller's own desc type: never cached, since its key could
// miss state in unexported fields.
type wrapped struct{ *dml.ArgMax }

// TestComputeCache: Compute keeps one compiled operator per desc (equal
// descs share it), at most ComputeCacheSize of them, none when the size is
// negative, and never one that needs per-call initialization; results stay
// exact throughout.
func TestComputeCache(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	a, b := rowArgMax(8, 100), rowArgMax(8, 101)
	inA, inB := randomInput(t, a.Input), randomInput(t, b.Input)
	computeChecked(t, d, a, inA)
	computeChecked(t, d, a, inA)
	computeChecked(t, d, rowArgMax(8, 100), inA) // an equal desc, another pointer
	if n := d.CachedOperators(); n != 1 {
		t.Fatalf("%d cached operators after one desc; want 1", n)
	}
	computeChecked(t, d, b, inB)
	if n := d.CachedOperators(); n != 2 {
		t.Fatalf("%d cached operators after two descs; want 2", n)
	}
	a.AxisDirection = dml.AxisDirectionDecreasing // a changed desc is another key
	computeChecked(t, d, a, inA)
	if n := d.CachedOperators(); n != 3 {
		t.Fatalf("%d cached operators after a changed desc; want 3", n)
	}
	owned := rowArgMax(8, 100)
	owned.Input.Flags = tensor.FlagOwnedByDML // initialization copies the input
	computeChecked(t, d, owned, inA)
	computeChecked(t, d, wrapped{rowArgMax(8, 100)}, inA)
	if n := d.CachedOperators(); n != 3 {
		t.Fatalf("%d cached operators; an OWNED_BY_DML input or a foreign desc type must not be cached", n)
	}

	small := testutil.OpenDML(t, dml.DeviceOptions{ComputeCacheSize: 2})
	for round := range 2 {
		for cols := uint32(50); cols < 54; cols++ {
			desc := rowArgMax(3, cols)
			computeChecked(t, small, desc, randomInput(t, desc.Input))
			if n := small.CachedOperators(); n > 2 {
				t.Fatalf("round %d: %d cached operators with ComputeCacheSize 2", round, n)
			}
		}
	}
	off := testutil.OpenDML(t, dml.DeviceOptions{ComputeCacheSize: -1})
	computeChecked(t, off, b, inB)
	computeChecked(t, off, b, inB)
	if n := off.CachedOperators(); n != 0 {
		t.Fatalf("%d cached operators with the cache off", n)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close with cached operators: %v", err)
	}
	if _, err := d.Compute(b, inB); !errors.Is(err, dml.ErrDeviceClosed) {
		t.Fatalf("Compute after Close: %v", err)
	}
}

// BenchmarkCompute compares one Compute of a desc the device has not seen
// (the cache off: validate, plan, create pipelines, run) with a repeated
// Compute of one desc (the cache on), and with executing a pre-recorded
// command list, the floor. The on-disk pipeline cache is off, as on a
// first run.
func BenchmarkCompute(b *testing.B) {
	desc := rowArgMax(64, 256)
	in := tensor.New(tensor.Float32, 64, 256)
	open := func(b *testing.B, cacheSize int) *dml.Device {
		d, err := dml.CreateDevice(dml.DeviceOptions{PipelineCacheDir: "off", ComputeCacheSize: cacheSize})
		if err != nil {
			testutil.NoDevice(b, err)
		}
		b.Cleanup(func() { d.Close() })
		return d
	}
	b.Run("first", func(b *testing.B) {
		d := open(b, -1)
		for b.Loop() {
			if _, err := d.Compute(desc, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("repeat", func(b *testing.B) {
		d := open(b, 0)
		if _, err := d.Compute(desc, in); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := d.Compute(desc, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prerecorded", func(b *testing.B) {
		d := open(b, 0)
		list, write, read := prerecorded(b, d, desc)
		out := make([]byte, desc.Output.TotalTensorSizeInBytes)
		for b.Loop() {
			if err := errors.Join(write(in.Data), list.Execute(), list.Wait(), read(out)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// prerecorded compiles, initializes, binds and records desc (one input,
// one output) once, and returns the closed list with functions that write
// the input and read the output.
func prerecorded(b *testing.B, d *dml.Device, desc *dml.ArgMax) (*dml.CommandList, func([]byte) error, func([]byte) error) {
	cop, err := testutil.Compile(d, desc, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cop.Release)
	rec, _ := d.CreateCommandRecorder()
	init, _ := d.CreateOperatorInitializer(cop)
	it, _ := d.CreateBindingTable(init)
	list, _ := d.CreateCommandList()
	b.Cleanup(list.Release)
	in, _ := d.CreateBuffer(desc.Input.TotalTensorSizeInBytes)
	out, _ := d.CreateBuffer(desc.Output.TotalTensorSizeInBytes)
	b.Cleanup(in.Release)
	b.Cleanup(out.Release)
	table, _ := d.CreateBindingTable(cop)
	var temp *dml.BufferBinding
	if size := cop.BindingProperties().TemporaryResourceSize; size > 0 {
		r, _ := d.CreateBuffer(size)
		b.Cleanup(r.Release)
		temp = dml.WholeBuffer(r)
	}
	err = errors.Join(table.BindInputs(dml.WholeBuffer(in)), table.BindOutputs(dml.WholeBuffer(out)), table.BindTemporaryResource(temp),
		rec.RecordDispatch(list, init, it), list.ResourceBarrierUAV(), rec.RecordDispatch(list, cop, table), list.Close())
	if err != nil {
		b.Fatal(err)
	}
	return list, func(p []byte) error { return in.Write(0, p) }, func(p []byte) error { return out.Read(0, p) }
}

// TestConcurrentComputeCache runs Compute from 6 goroutines over 5 descs on
// a cache of 2, so that entries are evicted while other goroutines still
// run them; every result must stay exact. Run it under -race.
func TestConcurrentComputeCache(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{ComputeCacheSize: 2})
	descs := make([]*dml.ArgMax, 5)
	inputs := make([]*tensor.Tensor, 5)
	for i := range descs {
		descs[i] = rowArgMax(4, uint32(60+i))
		inputs[i] = randomInput(t, descs[i].Input)
	}
	done := make(chan error, 6)
	for g := range 6 {
		go func() {
			for round := range 12 {
				i := (g + round) % len(descs)
				outs, err := d.Compute(descs[i], inputs[i])
				if err != nil {
					done <- err
					return
				}
				want := &tensor.Tensor{Desc: outs[0].Desc.Clone(), Data: make([]byte, len(outs[0].Data))}
				if err := descs[i].Reference([]*tensor.Tensor{inputs[i]}, []*tensor.Tensor{want}); err != nil {
					done <- err
					return
				}
				if !bytes.Equal(want.Data, outs[0].Data) {
					done <- errors.New(testutil.DiffTensors(want, outs[0], 4))
					return
				}
			}
			done <- nil
		}()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := d.CachedOperators(); n > 2 {
		t.Fatalf("%d cached operators with ComputeCacheSize 2", n)
	}
}
