package dml_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// compileDesc creates and compiles desc on d; the test releases it.
func compileDesc(t *testing.T, d *dml.Device, desc dml.OperatorDesc) *dml.CompiledOperator {
	t.Helper()
	c, err := tryCompile(d, desc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Release)
	return c
}

func tryCompile(d *dml.Device, desc dml.OperatorDesc) (*dml.CompiledOperator, error) {
	op, err := d.CreateOperator(desc)
	if err != nil {
		return nil, err
	}
	return d.CompileOperator(op, dml.ExecutionFlagNone)
}

// TestKernelCacheShared: compiled operators of equal descs, compiled one
// after another or at once from several goroutines, share their
// pipelines; one released leaves the other's intact and running; a
// pipeline no operator uses stays until KernelCacheSize others were used
// after it.
func TestKernelCacheShared(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	identity := func(n uint32) *dml.ElementWiseIdentity {
		return &dml.ElementWiseIdentity{Input: tensor.NewDesc(tensor.Float32, []uint32{n}), Output: tensor.NewDesc(tensor.Float32, []uint32{n})}
	}
	first := compileDesc(t, d, identity(64))
	var wg sync.WaitGroup
	more := make([]*dml.CompiledOperator, 4)
	errs := make([]error, len(more))
	for i := range more {
		wg.Add(1)
		go func() {
			defer wg.Done()
			more[i], errs[i] = tryCompile(d, identity(64))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(more[i].Release)
	}
	want := dml.CompiledKernels(first)
	for i, c := range more {
		got := dml.CompiledKernels(c)
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("operator %d: %d kernels, the first %d", i+1, len(got), len(want))
		}
		for k := range got {
			if got[k] != want[k] {
				t.Errorf("operator %d: kernel %d is a pipeline of its own, not the first operator's", i+1, k)
			}
		}
	}
	// The first released, the others still run on the shared pipeline.
	first.Release()
	for _, c := range more[:3] {
		c.Release()
	}
	last := more[3]
	in := []byte{}
	for i := range 64 {
		in = append(in, byte(i), 1, 2, 3)
	}
	out := runIdentity(t, d, last, in)
	if !bytes.Equal(out, in) {
		t.Fatalf("the operator left after the others were released: got % x, want % x", out[:16], in[:16])
	}
	// KernelCacheSize other pipelines push an unused one out: compiling
	// its desc again builds it afresh.
	last.Release()
	held := compileDesc(t, d, identity(64))
	again := dml.CompiledKernels(held)[0]
	if again != want[0] {
		t.Errorf("a pipeline no operator used was rebuilt right away; want it kept")
	}
	held.Release() // unused again while the others below go through
	for n := range uint32(dml.KernelCacheSize) {
		// Sizes are specialization constants of ARGMAX's kernels.
		compileDesc(t, d, rowArgMax(1, 64+n)).Release()
	}
	if got := dml.CompiledKernels(compileDesc(t, d, identity(64)))[0]; got == again {
		t.Errorf("a pipeline stayed cached after %d others were used: want at most %d kept", dml.KernelCacheSize, dml.KernelCacheSize)
	}
}

// runIdentity runs c, an ELEMENT_WISE_IDENTITY of len(in)/4 FLOAT32
// elements, on in and returns its output.
func runIdentity(t *testing.T, d *dml.Device, c *dml.CompiledOperator, in []byte) []byte {
	t.Helper()
	n := uint64(len(in))
	buf, err := d.CreateBuffer(2 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	if err := buf.Write(0, in); err != nil {
		t.Fatal(err)
	}
	list, err := d.CreateCommandList()
	if err != nil {
		t.Fatal(err)
	}
	defer list.Release()
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		t.Fatal(err)
	}
	init, err := d.CreateOperatorInitializer(c)
	if err != nil {
		t.Fatal(err)
	}
	it, err := d.CreateBindingTable(init)
	if err != nil {
		t.Fatal(err)
	}
	table, err := d.CreateBindingTable(c)
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return rec.RecordDispatch(list, init, it) },
		list.ResourceBarrierUAV,
		func() error { return table.BindInputs(&dml.BufferBinding{Buffer: buf, SizeInBytes: n}) },
		func() error { return table.BindOutputs(&dml.BufferBinding{Buffer: buf, Offset: n, SizeInBytes: n}) },
		func() error { return rec.RecordDispatch(list, c, table) },
		list.Close, list.Execute, list.Wait,
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	out := make([]byte, n)
	if err := buf.Read(n, out); err != nil {
		t.Fatal(err)
	}
	return out
}
