package dml_test

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// lseHalf is FLOAT16 LOG_SUM_EXP over the rows of [rows, n], whose plan
// binds ops.TableExpHalf.
func lseHalf(rows, n uint32) *dml.Reduce {
	return &dml.Reduce{Function: ops.ReduceFunctionLogSumExp, Input: tensor.NewDesc(tensor.Float16, []uint32{rows, n}),
		Output: tensor.NewDesc(tensor.Float16, []uint32{rows, 1}), Axes: []uint32{1}}
}

// TestDeviceTables: a device makes no table until it compiles a plan
// that binds one (FLOAT16 MAX and SUM do not, FLOAT16 LOG_SUM_EXP does), then
// one buffer holding the table's bytes, which every later operator shares;
// releasing the compiled operator that made it, while a list that uses
// it executes, leaves the table to the others; after Close every call
// fails with ErrDeviceClosed.
func TestDeviceTables(t *testing.T) {
	rng := testutil.Rand(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{ComputeCacheSize: -1})
	// MAX's pipeline builds in a third of SUM's float first pass (about
	// 0.3 s against 1 s on lavapipe): -short takes MAX alone.
	fns := []ops.ReduceFunction{ops.ReduceFunctionMax}
	if !testing.Short() {
		fns = append(fns, ops.ReduceFunctionSum)
	}
	for _, fn := range fns {
		other := &dml.Reduce{Function: fn, Input: tensor.NewDesc(tensor.Float16, []uint32{2, 4}),
			Output: tensor.NewDesc(tensor.Float16, []uint32{2, 1}), Axes: []uint32{1}}
		computeChecked(t, d, other, randomInputFrom(rng, other.Input))
		if n := len(dml.Tables(d)); n != 0 {
			t.Fatalf("FLOAT16 %v made %d tables", fn, n)
		}
	}

	// An operator compiled by hand, run through a list that is still
	// executing when the operator is released.
	desc := lseHalf(4, 16)
	in := lseHalfInput(rng, desc.Input)
	cop, err := tryCompile(d, desc)
	if err != nil {
		t.Fatal(err)
	}
	tabs := dml.Tables(d)
	b := tabs[ops.TableExpHalf]
	if len(tabs) != 1 || b == nil {
		t.Fatalf("after compiling FLOAT16 LOG_SUM_EXP: tables %v", tabs)
	}
	got := make([]byte, ops.TableExpHalfBytes)
	if err := b.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, ops.TableExpHalf.Bytes()) {
		t.Fatal("the device's table differs from ops.TableExpHalf.Bytes")
	}
	if err := runReleased(d, cop, in); err != nil {
		t.Fatal(err)
	}

	// A later operator shares the table, and stays exact.
	computeChecked(t, d, desc, lseHalfInput(rng, desc.Input))
	if tabs := dml.Tables(d); len(tabs) != 1 || tabs[ops.TableExpHalf] != b {
		t.Fatalf("after more operators: tables %v, was %p", tabs, b)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Compute(desc, in); !errors.Is(err, dml.ErrDeviceClosed) {
		t.Fatalf("Compute after Close: %v", err)
	}
}

// lseHalfInput is random FLOAT16 of magnitude below 8: finite terms.
func lseHalfInput(rng *rand.Rand, d tensor.Desc) *tensor.Tensor {
	in := &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)}
	tensor.ForEachIndex(d.Sizes, func(c []uint32) { in.SetBits(c, uint64(rng.Intn(1<<16))&0xc7ff) })
	return in
}

// runReleased runs cop over in through a command list, releases cop while
// the list may still execute, and checks the output against the
// reference once the list is done.
func runReleased(d *dml.Device, cop *dml.CompiledOperator, in *tensor.Tensor) error {
	desc := cop.Operator().Desc().(*dml.Reduce)
	inBuf, err := d.CreateBuffer(in.Desc.TotalTensorSizeInBytes)
	if err != nil {
		return err
	}
	defer inBuf.Release()
	outBuf, err := d.CreateBuffer(desc.Output.TotalTensorSizeInBytes)
	if err != nil {
		return err
	}
	defer outBuf.Release()
	if err := inBuf.Write(0, in.Data); err != nil {
		return err
	}
	list, err := d.CreateCommandList()
	if err != nil {
		return err
	}
	defer list.Release()
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		return err
	}
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		return err
	}
	it, err := d.CreateBindingTable(init)
	if err != nil {
		return err
	}
	table, err := d.CreateBindingTable(cop)
	if err != nil {
		return err
	}
	table.BindInputs(&dml.BufferBinding{Buffer: inBuf, SizeInBytes: in.Desc.TotalTensorSizeInBytes})
	table.BindOutputs(&dml.BufferBinding{Buffer: outBuf, SizeInBytes: desc.Output.TotalTensorSizeInBytes})
	for _, step := range []func() error{
		func() error { return rec.RecordDispatch(list, init, it) },
		list.ResourceBarrierUAV,
		func() error { return rec.RecordDispatch(list, cop, table) },
		list.Close,
		list.Execute,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	cop.Release()
	if err := list.Wait(); err != nil {
		return err
	}
	out := &tensor.Tensor{Desc: desc.Output.Clone(), Data: make([]byte, desc.Output.TotalTensorSizeInBytes)}
	if err := outBuf.Read(0, out.Data); err != nil {
		return err
	}
	want := &tensor.Tensor{Desc: desc.Output.Clone(), Data: make([]byte, len(out.Data))}
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{want}); err != nil {
		return err
	}
	if !bytes.Equal(want.Data, out.Data) {
		return errors.New("output after the operator's release:\n" + testutil.DiffTensors(want, out, 4))
	}
	return nil
}
