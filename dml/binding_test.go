package dml_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// writeCorrupt flips bytes in the middle of a file and returns its size.
func writeCorrupt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for i := len(b) / 2; i < len(b)/2+16 && i < len(b); i++ {
		b[i] ^= 0xFF
	}
	return len(b), os.WriteFile(path, b, 0o644)
}

// fixture is a compiled FLOAT32[64] identity with an initializer that has
// been recorded, and buffers to bind.
type fixture struct {
	d     *dml.Device
	cop   *dml.CompiledOperator
	list  *dml.CommandList
	rec   *dml.CommandRecorder
	table *dml.BindingTable
	buf   *dml.Resource // 4 KiB
	desc  *dml.ElementWiseIdentity
}

func newFixture(t *testing.T, in tensor.Desc) *fixture {
	t.Helper()
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	f := &fixture{d: d, desc: &dml.ElementWiseIdentity{Input: in, Output: tensor.NewDesc(in.DataType, in.Sizes)}}
	op, err := d.CreateOperator(f.desc)
	if err != nil {
		t.Fatal(err)
	}
	if f.cop, err = d.CompileOperator(op, dml.ExecutionFlagNone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.cop.Release)
	if f.list, err = d.CreateCommandList(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.list.Release)
	f.rec, _ = d.CreateCommandRecorder()
	if f.buf, err = d.CreateBuffer(4096); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.buf.Release)
	if f.table, err = d.CreateBindingTable(f.cop); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) initialize(t *testing.T) {
	t.Helper()
	init, err := f.d.CreateOperatorInitializer(f.cop)
	if err != nil {
		t.Fatal(err)
	}
	it, _ := f.d.CreateBindingTable(init)
	if err := f.rec.RecordDispatch(f.list, init, it); err != nil {
		t.Fatal(err)
	}
	if err := f.list.ResourceBarrierUAV(); err != nil {
		t.Fatal(err)
	}
}

func TestBindingRules(t *testing.T) {
	in := tensor.NewDesc(tensor.Float32, []uint32{64}) // 256 bytes
	f := newFixture(t, in)
	buf := f.buf
	ok := func(off uint64) *dml.BufferBinding {
		return &dml.BufferBinding{Buffer: buf, Offset: off, SizeInBytes: 256}
	}
	cases := []struct {
		name  string
		err   error
		field string
	}{
		{"too few inputs", f.table.BindInputs(nil, nil), "count"},
		{"too many outputs", f.table.BindOutputs(ok(0), ok(256)), "count"},
		{"offset not 16-aligned", f.table.BindInputs(ok(8)), "Offset"},
		{"size below TotalTensorSizeInBytes", f.table.BindInputs(&dml.BufferBinding{Buffer: buf, SizeInBytes: 252}), "SizeInBytes"},
		{"range past the buffer", f.table.BindInputs(ok(4096 - 128)), "outside"},
		{"nil buffer", f.table.BindOutputs(&dml.BufferBinding{SizeInBytes: 256}), "Buffer"},
		{"array binding on an operator", f.table.BindInputs(dml.BufferArrayBinding{}), "must be a DML_BINDING_TYPE_BUFFER binding"},
		{"temporary not needed but too small is fine; misaligned is not", f.table.BindTemporaryResource(&dml.BufferBinding{Buffer: buf, Offset: 16}), "Offset"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		wantHR(t, c.err, hresult.E_INVALIDARG, c.field)
	}

	// GuaranteedBaseOffsetAlignment raises the offset alignment.
	aligned := tensor.NewDesc(tensor.Float32, []uint32{64})
	aligned.GuaranteedBaseOffsetAlignment = 64
	g := newFixture(t, aligned)
	wantHR(t, g.table.BindInputs(&dml.BufferBinding{Buffer: g.buf, Offset: 16, SizeInBytes: 256}), hresult.E_INVALIDARG, "multiple of 64")
	if err := g.table.BindInputs(&dml.BufferBinding{Buffer: g.buf, Offset: 128, SizeInBytes: 256}); err != nil {
		t.Fatal(err)
	}
}

func TestRecordDispatchRules(t *testing.T) {
	in := tensor.NewDesc(tensor.Float32, []uint32{64})
	f := newFixture(t, in)
	b := func(off uint64) *dml.BufferBinding {
		return &dml.BufferBinding{Buffer: f.buf, Offset: off, SizeInBytes: 256}
	}

	// Not initialized yet.
	f.table.BindInputs(b(0))
	f.table.BindOutputs(b(256))
	wantHR(t, f.rec.RecordDispatch(f.list, f.cop, f.table), hresult.E_INVALIDARG, "initialized")
	f.initialize(t)

	// Initializing twice is an error.
	init, _ := f.d.CreateOperatorInitializer(f.cop)
	it, _ := f.d.CreateBindingTable(init)
	wantHR(t, f.rec.RecordDispatch(f.list, init, it), hresult.E_INVALIDARG, "exactly once")

	// A table made for another dispatchable.
	wantHR(t, f.rec.RecordDispatch(f.list, f.cop, it), hresult.E_INVALIDARG, "another dispatchable")

	// Input overlapping the output.
	f.table.BindInputs(b(0))
	f.table.BindOutputs(b(128))
	wantHR(t, f.rec.RecordDispatch(f.list, f.cop, f.table), hresult.E_INVALIDARG, "overlap")

	// Missing output binding.
	f.table.Reset(f.cop)
	f.table.BindInputs(b(0))
	wantHR(t, f.rec.RecordDispatch(f.list, f.cop, f.table), hresult.E_INVALIDARG, "outputs")

	// A good dispatch still records after all of that, and runs.
	f.table.BindOutputs(b(512))
	if err := f.rec.RecordDispatch(f.list, f.cop, f.table); err != nil {
		t.Fatal(err)
	}
	wantHR(t, f.list.Execute(), hresult.E_INVALIDARG, "Close")
	if err := f.list.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.rec.RecordDispatch(f.list, f.cop, f.table); !errIs(err, hresult.E_FAIL) {
		t.Fatalf("recording into a closed list: %v", err)
	}
	if err := f.list.Execute(); err != nil {
		t.Fatal(err)
	}
	if err := f.list.Wait(); err != nil {
		t.Fatal(err)
	}
}

func errIs(err error, code hresult.HRESULT) bool { return err != nil && hresult.Code(err) == code }

func TestCompileFlags(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{8})
	op, err := d.CreateOperator(&dml.ElementWiseIdentity{Input: in, Output: in.Clone()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.CompileOperator(op, 0x80)
	wantHR(t, err, hresult.E_INVALIDARG, "flags")
	_, err = d.CompileOperator(op, dml.ExecutionFlagDescriptorsVolatile)
	wantHR(t, err, hresult.DXGI_ERROR_UNSUPPORTED, "DESCRIPTORS_VOLATILE")
	c, err := d.CompileOperator(op, dml.ExecutionFlagAllowHalfPrecisionComputation|dml.ExecutionFlagDisableMetaCommands)
	if err != nil {
		t.Fatal(err)
	}
	c.Release()
	_, err = d.CreateOperator(nil)
	wantHR(t, err, hresult.E_INVALIDARG, "desc")
}

// TestOwnedByDML runs an identity whose input is DML_TENSOR_FLAG_OWNED_BY_DML:
// the initializer copies it into the persistent resource, and execution
// must not bind it.
func TestOwnedByDML(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	vals := []float32{3, 1, 4, 1, 5, 9, 2, 6}
	in := tensor.FromFloat32([]uint32{8}, vals)
	in.Desc.Flags = tensor.FlagOwnedByDML
	desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{8})}
	op, err := d.CreateOperator(desc)
	if err != nil {
		t.Fatal(err)
	}
	cop, err := d.CompileOperator(op, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cop.Release()
	if p := cop.BindingProperties().PersistentResourceSize; p < 32 {
		t.Fatalf("PersistentResourceSize %d", p)
	}
	outs, err := d.Compute(desc, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range outs[0].Float64s() {
		if float32(v) != vals[i] {
			t.Fatalf("element %d = %v", i, v)
		}
	}
	// Binding the owned input at execution is an error.
	table, _ := d.CreateBindingTable(cop)
	buf, _ := d.CreateBuffer(256)
	defer buf.Release()
	wantHR(t, table.BindInputs(dml.WholeBuffer(buf)), hresult.E_INVALIDARG, "OWNED_BY_DML")
	// And the initializer must get it.
	init, _ := d.CreateOperatorInitializer(cop)
	it, _ := d.CreateBindingTable(init)
	wantHR(t, it.BindInputs(nil), hresult.E_INVALIDARG, "OWNED_BY_DML")
	wantHR(t, it.BindInputs(dml.BufferArrayBinding{{}}), hresult.E_INVALIDARG, "OWNED_BY_DML")
	// Two operators' persistent resources must not overlap.
	cop2, _ := d.CompileOperator(op, 0)
	defer cop2.Release()
	init2, _ := d.CreateOperatorInitializer(cop, cop2)
	it2, _ := d.CreateBindingTable(init2)
	p := cop.BindingProperties().PersistentResourceSize
	big, _ := d.CreateBuffer(4 * p)
	defer big.Release()
	wantHR(t, it2.BindOutputs(&dml.BufferBinding{Buffer: big, SizeInBytes: p}, &dml.BufferBinding{Buffer: big, SizeInBytes: p}), hresult.E_INVALIDARG, "overlaps")
	if err := it2.BindOutputs(&dml.BufferBinding{Buffer: big, SizeInBytes: p}, &dml.BufferBinding{Buffer: big, Offset: 2 * p, SizeInBytes: p}); err != nil {
		t.Fatal(err)
	}
	_, err = d.CreateOperatorInitializer(cop, cop)
	wantHR(t, err, hresult.E_INVALIDARG, "twice")
}

func TestResubmitAndProfile(t *testing.T) {
	in := tensor.NewDesc(tensor.UInt32, []uint32{64})
	f := newFixture(t, in)
	f.initialize(t)
	f.list.SetProfiling(true)
	f.table.BindInputs(&dml.BufferBinding{Buffer: f.buf, SizeInBytes: 256})
	f.table.BindOutputs(&dml.BufferBinding{Buffer: f.buf, Offset: 1024, SizeInBytes: 256})
	if err := f.rec.RecordDispatch(f.list, f.cop, f.table); err != nil {
		t.Fatal(err)
	}
	if err := f.list.Close(); err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 256)
	for round := range 3 {
		for i := range src {
			src[i] = byte(i*3 + round)
		}
		f.buf.Write(0, src)
		f.buf.Fill(1024, 256, 0xFFFFFFFF)
		if err := f.list.Execute(); err != nil {
			t.Fatal(err)
		}
		// A second Execute before Wait is refused.
		if err := f.list.Execute(); err == nil {
			t.Fatal("Execute of a pending list succeeded")
		}
		if err := f.list.Wait(); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 256)
		f.buf.Read(1024, got)
		if string(got) != string(src) {
			t.Fatalf("round %d: output differs", round)
		}
		times, err := f.list.DispatchTimes()
		if err != nil {
			t.Fatal(err)
		}
		if len(times) != 1 || times[0] <= 0 {
			t.Fatalf("dispatch times %v", times)
		}
	}
}

func TestCreateReleaseLoop(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.FromFloat32([]uint32{3, 5}, make([]float32, 15))
	desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: in.Desc.Clone()}
	for i := range 25 {
		if _, err := d.Compute(desc, in); err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
	}
	if n := d.GPU().Allocated(); n != 0 {
		t.Fatalf("%d bytes of device memory still held", n)
	}
	// Close (in cleanup) reports any Vulkan object left behind through the
	// validation layer.
}

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

// TestInitializerPlanPersistent: an operator whose plan keeps its own
// state in the persistent resource (a GPU plan of a whole-tensor ARGMAX,
// whose first pass combines through a ticket) has no OWNED_BY_DML input,
// so its initializer needs the persistent resource bound (the outputs) and
// no inputs, and zeroes the plan's range of it, whatever it held.
func TestInitializerPlanPersistent(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{150000})
	desc := &testutil.ForcedPlan{DeviceType: caps.DeviceTypeDiscreteGPU,
		Desc: &dml.ArgMax{Input: in, Output: tensor.NewDesc(tensor.UInt32, []uint32{1}), Axes: []uint32{0}}}
	op, err := d.CreateOperator(desc)
	if err != nil {
		t.Fatal(err)
	}
	cop, err := d.CompileOperator(op, dml.ExecutionFlagNone)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cop.Release)
	size := cop.BindingProperties().PersistentResourceSize
	if size == 0 {
		t.Fatalf("the GPU plan %q keeps nothing in the persistent resource", op.Strategy())
	}
	pers, err := d.CreateBuffer(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pers.Release)
	if err := pers.Write(0, bytes.Repeat([]byte{0xA5}, int(size))); err != nil {
		t.Fatal(err)
	}
	list, err := d.CreateCommandList()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(list.Release)
	rec, _ := d.CreateCommandRecorder()
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		t.Fatal(err)
	}
	it, _ := d.CreateBindingTable(init)
	wantHR(t, rec.RecordDispatch(list, init, it), hresult.E_INVALIDARG, "outputs must be bound", "persistent")
	if err := it.BindOutputs(&dml.BufferBinding{Buffer: pers, SizeInBytes: size}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{func() error { return rec.RecordDispatch(list, init, it) }, list.Close, list.Execute, list.Wait} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]byte, 4)
	if err := pers.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, make([]byte, 4)) {
		t.Errorf("the plan's persistent word after initialization: % x, want zeros", got)
	}
}
