package tests

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// TestSharedCompiledOperator runs one compiled operator from many
// goroutines, each with its own buffers, binding table and command list,
// as DirectML's thread-safety rules allow. Run it under -race.
func TestSharedCompiledOperator(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	const n = 256
	desc := &dml.ElementWiseIdentity{Input: tensor.NewDesc(tensor.UInt32, []uint32{n}), Output: tensor.NewDesc(tensor.UInt32, []uint32{n})}
	cop := testutil.CompileInitialized(t, d, desc, "")
	defer cop.Release()
	rec, _ := d.CreateCommandRecorder()
	testutil.InParallel(t, 8, func(g int) error { return worker(d, cop, rec, g) })
}

// worker copies rounds of its own bytes through the shared identity, input
// and output in two halves of one buffer of its own.
func worker(d *dml.Device, cop *dml.CompiledOperator, rec *dml.CommandRecorder, g int) error {
	const n = 256
	buf, err := d.CreateBuffer(2 * 4 * n)
	if err != nil {
		return err
	}
	defer buf.Release()
	list, err := testutil.Record(d, rec, testutil.Dispatch{Dispatchable: cop, Bind: func(table *dml.BindingTable) error {
		return errors.Join(table.BindInputs(&dml.BufferBinding{Buffer: buf, SizeInBytes: 4 * n}),
			table.BindOutputs(&dml.BufferBinding{Buffer: buf, Offset: 4 * n, SizeInBytes: 4 * n}))
	}})
	if err != nil {
		return err
	}
	defer list.Release()
	src := make([]byte, 4*n)
	got := make([]byte, 4*n)
	for round := range 10 {
		for i := range src {
			src[i] = byte(g*31 + round*7 + i)
		}
		if err := buf.Write(0, src); err != nil {
			return err
		}
		if err := list.Execute(); err != nil {
			return err
		}
		if err := list.Wait(); err != nil {
			return err
		}
		if err := buf.Read(4*n, got); err != nil {
			return err
		}
		if string(got) != string(src) {
			return fmt.Errorf("goroutine %d round %d: wrong output", g, round)
		}
	}
	return nil
}

// TestSharedCompiledArgMaxMaxPool shares compiled ARGMAX (split-K, with a
// temporary resource), ARGMIN and MAX_POOLING2 (with indices) operators
// between goroutines. Each goroutine has its own buffers (a temporary
// resource included), binding table and command list, runs several rounds
// of its own random inputs through the shared operator, and compares every
// output with the CPU reference exactly. Run it under -race.
func TestSharedCompiledArgMaxMaxPool(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	seed := testutil.Rand(t).Int63()
	idx := tensor.NewDesc(tensor.UInt64, []uint32{2, 3, 8, 8})
	descs := []struct {
		kernel string
		desc   dml.OperatorDesc
	}{
		{dml.ArgStrategySplitK, &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{3, 700}), Output: tensor.NewDesc(tensor.UInt32, []uint32{3, 1}), Axes: []uint32{1}, AxisDirection: dml.AxisDirectionDecreasing}},
		{"", &dml.ArgMin{Input: tensor.NewStridedDesc(tensor.Int8, []uint32{16, 9}, []uint32{1, 16}), Output: tensor.NewDesc(tensor.Int64, []uint32{1, 9}), Axes: []uint32{0}}},
		{"", &dml.MaxPooling2{Input: tensor.NewDesc(tensor.Float16, []uint32{2, 3, 17, 16}), Output: tensor.NewDesc(tensor.Float16, []uint32{2, 3, 8, 8}), OutputIndices: &idx,
			Strides: []uint32{2, 2}, WindowSize: []uint32{3, 2}, StartPadding: []uint32{1, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}},
	}
	for _, c := range descs {
		t.Run(c.desc.OperatorType(), func(t *testing.T) {
			cop := testutil.CompileInitialized(t, d, c.desc, c.kernel)
			defer cop.Release()
			if c.kernel == dml.ArgStrategySplitK && cop.BindingProperties().TemporaryResourceSize == 0 {
				t.Fatalf("split-K plan without a temporary resource: the goroutines would not each bind one")
			}
			rec, _ := d.CreateCommandRecorder()
			testutil.InParallel(t, 8, func(g int) error {
				return sharedWorker(d, cop, rec, c.desc, rand.New(rand.NewSource(seed+int64(g))), g)
			})
		})
	}
}

// sharedWorker runs rounds of random inputs through a shared compiled
// operator with its own resources and checks them against the reference.
func sharedWorker(d *dml.Device, cop *dml.CompiledOperator, rec *dml.CommandRecorder, desc dml.OperatorDesc, rng *rand.Rand, g int) error {
	var res []*dml.Resource
	defer func() {
		for _, r := range res {
			r.Release()
		}
	}()
	alloc := func(size uint64) (*dml.BufferBinding, error) {
		r, err := d.CreateBuffer(size)
		if err != nil {
			return nil, err
		}
		res = append(res, r)
		return &dml.BufferBinding{Buffer: r, SizeInBytes: size}, nil
	}
	inD := desc.Inputs()[0]
	in, err := alloc(inD.TotalTensorSizeInBytes)
	if err != nil {
		return err
	}
	var outs []dml.Binding
	var outB []*dml.BufferBinding
	for _, od := range desc.Outputs() {
		if od == nil {
			outs = append(outs, nil)
			outB = append(outB, nil)
			continue
		}
		b, err := alloc(od.TotalTensorSizeInBytes)
		if err != nil {
			return err
		}
		outs, outB = append(outs, b), append(outB, b)
	}
	var temp *dml.BufferBinding
	if n := cop.BindingProperties().TemporaryResourceSize; n > 0 {
		if temp, err = alloc(n); err != nil {
			return err
		}
	}
	list, err := testutil.Record(d, rec, testutil.Dispatch{Dispatchable: cop, Bind: func(table *dml.BindingTable) error {
		return errors.Join(table.BindInputs(in), table.BindOutputs(outs...), table.BindTemporaryResource(temp))
	}})
	if err != nil {
		return err
	}
	defer list.Release()
	host := &tensor.Tensor{Desc: inD.Clone(), Data: make([]byte, inD.TotalTensorSizeInBytes)}
	for round := range 20 {
		tensor.ForEachIndex(inD.Sizes, func(c []uint32) { host.SetBits(c, testutil.RandomBits(rng, inD.DataType)) })
		if err := in.Buffer.Write(0, host.Data); err != nil {
			return err
		}
		for _, b := range outB { // poison: an element the kernel misses shows
			if b != nil {
				if err := b.Buffer.Fill(0, b.SizeInBytes, 0x7FBADBAD^uint32(round)); err != nil {
					return err
				}
			}
		}
		if err := errors.Join(list.Execute(), list.Wait()); err != nil {
			return err
		}
		want := make([]*tensor.Tensor, len(outB))
		got := make([]*tensor.Tensor, len(outB))
		for i, od := range desc.Outputs() {
			if od == nil {
				continue
			}
			got[i] = &tensor.Tensor{Desc: od.Clone(), Data: make([]byte, od.TotalTensorSizeInBytes)}
			if err := outB[i].Buffer.Read(0, got[i].Data); err != nil {
				return err
			}
			want[i] = &tensor.Tensor{Desc: od.Clone(), Data: append([]byte(nil), got[i].Data...)}
		}
		if err := desc.Reference([]*tensor.Tensor{host}, want); err != nil {
			return err
		}
		for i := range want {
			if want[i] != nil {
				if diff := testutil.DiffTensors(want[i], got[i], 4); diff != "" {
					return fmt.Errorf("%s goroutine %d round %d output %d:\n%s", desc.OperatorType(), g, round, i, diff)
				}
			}
		}
	}
	return nil
}

// TestConcurrentInitializeOnce races two goroutines initializing one
// compiled operator: in every trial exactly one
// RecordDispatch is accepted and the other is refused with "exactly once".
// Half the trials use an OWNED_BY_DML input, whose initialization copies.
func TestConcurrentInitializeOnce(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rec, _ := d.CreateCommandRecorder()
	src, err := d.CreateBuffer(256)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	for trial := range 100 {
		desc := &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 8}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 1}), Axes: []uint32{1}}
		owned := trial%2 == 1
		if owned {
			desc.Input.Flags = tensor.FlagOwnedByDML
		}
		cop, err := testutil.Compile(d, desc, "")
		if err != nil {
			t.Fatal(err)
		}
		record := make([]func() error, 2)
		for g := range 2 {
			init, _ := d.CreateOperatorInitializer(cop)
			table, _ := d.CreateBindingTable(init)
			list, _ := d.CreateCommandList()
			if owned {
				persistent, _ := d.CreateBuffer(cop.BindingProperties().PersistentResourceSize)
				defer persistent.Release()
				table.BindInputs(dml.BufferArrayBinding{{Buffer: src, SizeInBytes: 128}})
				table.BindOutputs(dml.WholeBuffer(persistent))
			}
			record[g] = func() error {
				defer list.Release()
				return rec.RecordDispatch(list, init, table)
			}
		}
		errs := testutil.StartTogether(2, func(g int) error { return record[g]() })()
		cop.Release()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, hresult.E_INVALIDARG) || !strings.Contains(err.Error(), "exactly once"):
				t.Fatalf("trial %d: unexpected error %v", trial, err)
			}
		}
		if ok != 1 {
			t.Fatalf("trial %d: %d of 2 concurrent initializations accepted; want exactly 1 (%v)", trial, ok, errs)
		}
	}
}

// TestConcurrentExecuteOneList submits one recorded list from 8 goroutines
// at once: lists are not safe for concurrent use, but
// exactly one submission may reach the GPU; the others are refused with
// ErrPending until the list is waited for.
func TestConcurrentExecuteOneList(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rec, _ := d.CreateCommandRecorder()
	desc := &dml.ElementWiseIdentity{Input: tensor.NewDesc(tensor.UInt32, []uint32{1024}), Output: tensor.NewDesc(tensor.UInt32, []uint32{1024})}
	cop, err := testutil.Compile(d, desc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cop.Release()
	init, _ := d.CreateOperatorInitializer(cop)
	buf, _ := d.CreateBuffer(8192)
	defer buf.Release()
	list, err := testutil.Record(d, rec, testutil.Dispatch{Dispatchable: init}, testutil.Dispatch{Dispatchable: cop, Bind: func(table *dml.BindingTable) error {
		return errors.Join(table.BindInputs(&dml.BufferBinding{Buffer: buf, SizeInBytes: 4096}),
			table.BindOutputs(&dml.BufferBinding{Buffer: buf, Offset: 4096, SizeInBytes: 4096}))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer list.Release()
	for round := range 20 {
		n := 0
		for g, err := range testutil.StartTogether(8, func(int) error { return list.Execute() })() {
			switch {
			case err == nil:
				n++
			case !errors.Is(err, dml.ErrPending) || !errors.Is(err, hresult.E_INVALIDARG):
				t.Errorf("round %d goroutine %d: %v", round, g, err)
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d of 8 concurrent Execute calls were submitted; want 1", round, n)
		}
		if err := list.Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCloseWhileComputing closes the device while goroutines run Compute
// (sharing one cached operator): every call either succeeds or fails with
// ErrDeviceClosed; none crashes, and Close waits for calls under way.
func TestCloseWhileComputing(t *testing.T) {
	d := testutil.CreateDML(t, dml.DeviceOptions{})
	desc := &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{16, 64}), Output: tensor.NewDesc(tensor.UInt32, []uint32{16, 1}), Axes: []uint32{1}}
	in := tensor.New(tensor.Float32, 16, 64)
	wait := testutil.StartTogether(4, func(int) error {
		for {
			if _, err := d.Compute(desc, in); err != nil {
				return err
			}
		}
	})
	if _, err := d.Compute(desc, in); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, err := range wait() {
		if !errors.Is(err, dml.ErrDeviceClosed) {
			t.Errorf("a Compute racing Close failed with %v; want ErrDeviceClosed", err)
		}
	}
}
