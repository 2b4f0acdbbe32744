package tests

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// TestMisuseRandomSequences drives the dml API with random sequences of
// calls over two devices: creating, binding, recording, executing,
// releasing and closing in any order, objects of either device passed to
// the other, released and zero objects reused. Any call may fail, but only
// with an *hresult.Error; none may panic or hang (the variants beyond
// what the fixed tables try).
func TestMisuseRandomSequences(t *testing.T) {
	rng := testutil.Rand(t)
	succeeded := map[string]int{}
	for seq := range 40 {
		w := newChaos(t, rng)
		steps := make([]string, 0, 40)
		err := runGuarded(t, func() error {
			for i := range 50 {
				w.late = i >= 30
				name, err := w.step()
				steps = append(steps, name)
				if err == nil {
					succeeded[name]++
				} else {
					var he *hresult.Error
					if !errors.As(err, &he) {
						return fmt.Errorf("%s: not an HRESULT error: %v", name, err)
					}
				}
			}
			return nil
		})
		w.close()
		if err != nil {
			t.Fatalf("sequence %d %v: %v", seq, steps, err)
		}
	}
	t.Logf("calls that succeeded: %v", succeeded)
	for _, must := range []string{"CompileOperator", "CreateBindingTable", "CreateOperatorInitializer", "BindOutputs", "Wait", "Compute"} {
		if succeeded[must] == 0 {
			t.Errorf("no %s succeeded: the sequences do not reach the states they should", must)
		}
	}
}

// chaos is the world of one random sequence: per device, the objects
// made so far (released ones stay in the lists, to be reused).
type chaos struct {
	t       *testing.T
	rng     *rand.Rand
	devs    []*dml.Device
	records []*dml.CommandRecorder
	objs    []*chaosObjects // per device
	k       int             // the device of the current step
	late    bool            // Device.Close only late in a sequence, so that the rest gets exercised
}

type chaosObjects struct {
	bufs   []*dml.Resource
	cops   []*dml.CompiledOperator
	inits  []*dml.OperatorInitializer
	tables []*dml.BindingTable
	lists  []*dml.CommandList
}

func newChaos(t *testing.T, rng *rand.Rand) *chaos {
	w := &chaos{t: t, rng: rng}
	for range 2 {
		d := testutil.CreateDML(t, dml.DeviceOptions{ComputeCacheSize: 1})
		w.devs = append(w.devs, d)
		rec, _ := d.CreateCommandRecorder()
		w.records = append(w.records, rec)
		w.objs = append(w.objs, w.warmUp(d, rec))
	}
	return w
}

// warmUp gives a device's pools objects in every state a random step can
// hardly reach by itself: an initialized operator, a fully bound table,
// a closed list ready to execute and one still pending.
func (w *chaos) warmUp(d *dml.Device, rec *dml.CommandRecorder) *chaosObjects {
	t := w.t
	o := &chaosObjects{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("warm-up: %v", err)
		}
	}
	cop, err := testutil.Compile(d, argDescTemp(), dml.ArgStrategySplitK)
	must(err)
	init, _ := d.CreateOperatorInitializer(cop)
	it, _ := d.CreateBindingTable(init)
	var bufs []*dml.Resource
	for _, size := range []uint64{2048, 256, cop.BindingProperties().TemporaryResourceSize} {
		b, err := d.CreateBuffer(size)
		must(err)
		bufs = append(bufs, b)
	}
	table, _ := d.CreateBindingTable(cop)
	must(errors.Join(table.BindInputs(dml.WholeBuffer(bufs[0])), table.BindOutputs(dml.WholeBuffer(bufs[1])), table.BindTemporaryResource(dml.WholeBuffer(bufs[2]))))
	ready, _ := d.CreateCommandList()
	must(errors.Join(rec.RecordDispatch(ready, init, it), ready.ResourceBarrierUAV(), rec.RecordDispatch(ready, cop, table), ready.Close()))
	pending, _ := d.CreateCommandList()
	must(errors.Join(rec.RecordDispatch(pending, cop, table), pending.Close(), ready.Execute(), ready.Wait(), pending.Execute()))
	o.bufs, o.cops, o.inits = bufs, []*dml.CompiledOperator{cop}, []*dml.OperatorInitializer{init}
	o.tables, o.lists = []*dml.BindingTable{it, table}, []*dml.CommandList{ready, pending}
	return o
}

func (w *chaos) close() {
	for _, d := range w.devs {
		d.Close()
	}
}

// of returns the current device's objects, or (one time in eight) the
// other device's, so that foreign objects get passed too.
func (w *chaos) of() *chaosObjects {
	if w.rng.Intn(8) == 0 {
		return w.objs[1-w.k]
	}
	return w.objs[w.k]
}

// pick returns a random element of list, or (sometimes) the zero value.
func pick[T any](rng *rand.Rand, list []T) T {
	var zero T
	if len(list) == 0 || rng.Intn(16) == 0 {
		return zero
	}
	return list[rng.Intn(len(list))]
}

func (w *chaos) dev() *dml.Device { return w.devs[w.k] }

func (w *chaos) binding() *dml.BufferBinding {
	switch w.rng.Intn(10) {
	case 0:
		return nil
	case 1:
		return dml.WholeBuffer(nil)
	case 2:
		return &dml.BufferBinding{Buffer: &dml.Resource{}, SizeInBytes: 4096}
	}
	b := pick(w.rng, w.of().bufs)
	if w.rng.Intn(3) > 0 {
		return dml.WholeBuffer(b)
	}
	sizes := []uint64{0, 16, 128, 4096, 1 << 16, ^uint64(0)}
	return &dml.BufferBinding{Buffer: b, Offset: []uint64{0, 16, 256, ^uint64(0) - 15}[w.rng.Intn(4)], SizeInBytes: sizes[w.rng.Intn(len(sizes))]}
}

func (w *chaos) dispatchable() dml.Dispatchable {
	switch w.rng.Intn(8) {
	case 0, 1, 2:
		return pick(w.rng, w.of().inits)
	case 3:
		return &dml.CompiledOperator{}
	}
	return pick(w.rng, w.of().cops)
}

func (w *chaos) table() *dml.BindingTable {
	if tb := pick(w.rng, w.of().tables); tb != nil {
		return tb
	}
	return &dml.BindingTable{}
}

func (w *chaos) list() *dml.CommandList {
	if l := pick(w.rng, w.of().lists); l != nil {
		return l
	}
	return &dml.CommandList{}
}

// step makes one random call and returns its name and error.
func (w *chaos) step() (string, error) {
	w.k = w.rng.Intn(len(w.devs))
	return chaosSteps[w.rng.Intn(len(chaosSteps))](w, w.objs[w.k])
}

// chaosSteps are the kinds of call a step makes, equally likely; o holds
// the objects of the step's device, where what a call creates goes.
var chaosSteps = []func(w *chaos, o *chaosObjects) (string, error){
	func(w *chaos, o *chaosObjects) (string, error) {
		b, err := w.dev().CreateBuffer([]uint64{0, 4, 4096, 1 << 16, 1 << 16, 1 << 16, 1 << 62}[w.rng.Intn(7)])
		if b != nil {
			o.bufs = append(o.bufs, b)
		}
		return "CreateBuffer", err
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		desc := argDescTemp()
		if w.rng.Intn(2) == 0 {
			desc = argDescSmall()
			if w.rng.Intn(2) == 0 {
				desc.Input.Flags = tensor.FlagOwnedByDML
			}
		}
		op, err := w.dev().CreateOperator(desc)
		if err != nil {
			return "CreateOperator", err
		}
		c, err := w.dev().CompileOperator(op, 0)
		if c != nil {
			o.cops = append(o.cops, c)
		}
		return "CompileOperator", err
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		in, err := w.dev().CreateOperatorInitializer(pick(w.rng, w.of().cops))
		if in != nil {
			o.inits = append(o.inits, in)
		}
		return "CreateOperatorInitializer", err
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		tb, err := w.dev().CreateBindingTable(w.dispatchable())
		if tb != nil {
			o.tables = append(o.tables, tb)
		}
		return "CreateBindingTable", err
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		l, err := w.dev().CreateCommandList()
		if l != nil {
			o.lists = append(o.lists, l)
		}
		return "CreateCommandList", err
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		if w.rng.Intn(3) == 0 {
			return "BindInputs(array)", w.table().BindInputs(dml.BufferArrayBinding{*w.nonNil(w.binding())})
		}
		return "BindInputs", w.table().BindInputs(w.binding())
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		return "BindOutputs", w.table().BindOutputs(w.binding())
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		if w.rng.Intn(2) == 0 {
			return "BindTemporaryResource", w.table().BindTemporaryResource(w.binding())
		}
		return "BindPersistentResource", w.table().BindPersistentResource(w.binding())
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		return "RecordDispatch", w.records[w.k].RecordDispatch(w.list(), w.dispatchable(), w.table())
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		l := w.list()
		switch w.rng.Intn(5) {
		case 0:
			return "Close", l.Close()
		case 1:
			return "Execute", l.Execute()
		case 2:
			return "Wait", l.Wait()
		case 3:
			return "Reset", l.Reset()
		}
		return "ResourceBarrierUAV", l.ResourceBarrierUAV()
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		b := pick(w.rng, w.of().bufs)
		off := []uint64{0, 4, 4092, 4096, ^uint64(0) - 3}[w.rng.Intn(5)]
		switch w.rng.Intn(3) {
		case 0:
			return "Write", b.Write(off, make([]byte, w.rng.Intn(64)))
		case 1:
			return "Read", b.Read(off, make([]byte, w.rng.Intn(64)))
		}
		return "Fill", b.Fill(off, []uint64{0, 4, 4096, ^uint64(0) - 3}[w.rng.Intn(4)], 7)
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		return maybeRelease(w, w.of().bufs, "Resource.Release")
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		return maybeRelease(w, w.of().cops, "CompiledOperator.Release")
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		return maybeRelease(w, w.of().lists, "CommandList.Release")
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		if w.late && w.rng.Intn(3) == 0 {
			return "Device.Close", w.dev().Close()
		}
		return "GetDeviceRemovedReason", w.dev().GetDeviceRemovedReason()
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		in := pick(w.rng, w.of().inits)
		if in == nil {
			in = &dml.OperatorInitializer{}
		}
		return "Initializer.Reset", in.Reset(pick(w.rng, w.of().cops))
	},
	func(w *chaos, o *chaosObjects) (string, error) {
		_, err := w.dev().Compute(argDescSmall(), tensor.New(tensor.Float32, 4, 8))
		return "Compute", err
	},
}

// maybeRelease releases, one time in three, an object picked from list (a
// nil one included); the step is named name.
func maybeRelease[T interface{ Release() }](w *chaos, list []T, name string) (string, error) {
	if w.rng.Intn(3) == 0 {
		pick(w.rng, list).Release()
	}
	return name, nil
}

func (w *chaos) nonNil(b *dml.BufferBinding) *dml.BufferBinding {
	if b == nil {
		return &dml.BufferBinding{}
	}
	return b
}
