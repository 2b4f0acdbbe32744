package dml_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// gpuTuning is the discrete-GPU class's tuning, every knob, for a device
// whose own class (lavapipe's CPU) never plans a ticket (argTicketOutputs
// 0): through DeviceOptions.Tuning it makes Compute's cached operators GPU
// plans.
func gpuTuning() dml.Tuning {
	tu := dml.Tuning{}
	for k, v := range ops.TuningOf(&ops.Context{DeviceType: caps.DeviceTypeDiscreteGPU}) {
		tu[k] = fmt.Sprint(v)
	}
	return tu
}

// ticketDescs are ARGMAX descs whose GPU plans combine through a ticket in
// the persistent resource: a whole tensor (the last workgroup combines)
// and 8 rows (a lane an output).
func ticketDescs() []*dml.ArgMax {
	whole := &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{150000}), Output: tensor.NewDesc(tensor.UInt32, []uint32{1}), Axes: []uint32{0}}
	return []*dml.ArgMax{whole, rowArgMax(8, 32000)}
}

// heldTicket holds desc's cached operator (dml.PrepareCached) and fails
// unless it is cached with a persistent resource.
func heldTicket(t *testing.T, d *dml.Device, desc dml.OperatorDesc) (*dml.CompiledOperator, *dml.Resource, func()) {
	t.Helper()
	cop, pers, done, err := dml.PrepareCached(d, desc)
	if err != nil {
		t.Fatal(err)
	}
	if pers == nil {
		done()
		t.Fatalf("%v: Compute's cache holds no persistent resource for it (the GPU tuning plans a ticket there)", desc.(*dml.ArgMax).Input.Sizes)
	}
	return cop, pers, done
}

// checkOutput compares Compute's outputs for desc with the CPU reference.
func checkOutput(desc *dml.ArgMax, in *tensor.Tensor, outs []*tensor.Tensor) error {
	want := &tensor.Tensor{Desc: outs[0].Desc.Clone(), Data: make([]byte, len(outs[0].Data))}
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{want}); err != nil {
		return err
	}
	if !bytes.Equal(want.Data, outs[0].Data) {
		return fmt.Errorf("%v:\n%s", desc.Input.Sizes, testutil.DiffTensors(want, outs[0], 4))
	}
	return nil
}

// TestComputeCacheTicket: Compute caches an operator with a persistent
// resource (a GPU plan's ticket) with that resource, initialized by its
// first run: later calls take the same compiled operator and buffer (no
// compile, no initializer), and stay exact over new inputs, which they
// would not if a run left the ticket drawn.
func TestComputeCacheTicket(t *testing.T) {
	rng := testutil.Rand(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{Tuning: gpuTuning()})
	runs := 6
	if testing.Short() {
		runs = 3
	}
	for i, desc := range ticketDescs() {
		computeChecked(t, d, desc, randomInputFrom(rng, desc.Input))
		if n := d.CachedOperators(); n != i+1 {
			t.Fatalf("%v: %d cached operators, want %d", desc.Input.Sizes, n, i+1)
		}
		cop, pers, done := heldTicket(t, d, desc)
		done()
		for range runs {
			computeChecked(t, d, desc, randomInputFrom(rng, desc.Input))
		}
		cop2, pers2, done := heldTicket(t, d, desc)
		done()
		if cop2 != cop || pers2 != pers {
			t.Fatalf("%v: Compute compiled the operator again", desc.Input.Sizes)
		}
	}
}

// TestConcurrentComputeTicket runs Compute from 8 goroutines over both
// ticket descs on a cache of 1, so that the goroutines take turns on one
// entry's ticket and entries are evicted while others run them; every
// result must stay exact. Run it under -race.
func TestConcurrentComputeTicket(t *testing.T) {
	rng := testutil.Rand(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{Tuning: gpuTuning(), ComputeCacheSize: 1})
	descs := ticketDescs()
	const goroutines, rounds = 8, 3
	inputs := make([][]*tensor.Tensor, goroutines)
	for g := range inputs {
		for r := range rounds {
			inputs[g] = append(inputs[g], randomInputFrom(rng, descs[(g+r)%2].Input))
		}
	}
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			for r, in := range inputs[g] {
				desc := descs[(g+r)%2]
				outs, err := d.Compute(desc, in)
				if err == nil {
					err = checkOutput(desc, in, outs)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range goroutines {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	_, _, done := heldTicket(t, d, descs[0])
	done()
	if n := d.CachedOperators(); n != 1 {
		t.Fatalf("%d cached operators with ComputeCacheSize 1", n)
	}
}

// TestComputeTicketEvictAndClose: a call of a ticket desc waits while
// another holds its entry; an entry evicted in use keeps its persistent
// resource until its user is done, then frees it; closing the device
// while calls run, one entry held and another cached, fails them with
// ErrDeviceClosed or lets them finish exactly, and the held entry's done
// after Close is harmless.
func TestComputeTicketEvictAndClose(t *testing.T) {
	rng := testutil.Rand(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{Tuning: gpuTuning(), ComputeCacheSize: 1})
	a, b := ticketDescs()[0], ticketDescs()[1]
	inA, inB := randomInputFrom(rng, a.Input), randomInputFrom(rng, b.Input)
	computeChecked(t, d, a, inA)
	_, pers, done := heldTicket(t, d, a)
	waited := make(chan error, 1)
	go func() {
		outs, err := d.Compute(a, inA)
		if err == nil {
			err = checkOutput(a, inA, outs)
		}
		waited <- err
	}()
	computeChecked(t, d, b, inB) // evicts a, in use
	select {
	case err := <-waited:
		t.Fatalf("a Compute of the held entry ran meanwhile (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	word := make([]byte, 4)
	if err := pers.Read(0, word); err != nil || !bytes.Equal(word, make([]byte, 4)) {
		t.Fatalf("the evicted entry's ticket while in use: % x, %v; want zeros", word, err)
	}
	done()
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if err := pers.Read(0, word); !errors.Is(err, dml.ErrReleased) {
		t.Fatalf("the evicted entry's persistent resource after its last user: %v, want ErrReleased", err)
	}

	// Calls that compile while Close runs leave their pipelines to it,
	// which a debug device reports: this part closes one without debug.
	d = testutil.CreateDML(t, dml.DeviceOptions{Tuning: gpuTuning()})
	computeChecked(t, d, a, inA)
	_, _, done = heldTicket(t, d, b)
	calls := make(chan error, 4)
	for g := range 4 {
		go func() {
			desc, in := a, inA
			if g%2 == 1 {
				desc, in = b, inB
			}
			outs, err := d.Compute(desc, in)
			if err == nil {
				err = checkOutput(desc, in, outs)
			}
			calls <- err
		}()
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	done()
	for range 4 {
		if err := <-calls; err != nil && !errors.Is(err, dml.ErrDeviceClosed) {
			t.Fatalf("a Compute across Close: %v; want exact outputs or ErrDeviceClosed", err)
		}
	}
	if _, err := d.Compute(b, inB); !errors.Is(err, dml.ErrDeviceClosed) {
		t.Fatalf("Compute after Close: %v, want ErrDeviceClosed", err)
	}
}
