package tests

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// API misuse by object lifetime: released resources, operators and lists, closed devices, objects of another
// device, zero values. Every case runs on a device of its own (some close
// it) and must return an error that carries E_INVALIDARG, errors.Is-able
// as its dml sentinel, naming the argument and the rule; none may panic,
// hang or write a byte of a live buffer.

// lifeEnv is one misuse case's world.
type lifeEnv struct {
	t     *testing.T
	d     *dml.Device
	other *dml.Device // a second device, opened on demand
	rec   *dml.CommandRecorder
	// victim is a live buffer filled with arenaPattern: after the case, it
	// must still hold it (a released or foreign binding must not land in it).
	victim *dml.Resource
}

func (e *lifeEnv) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("setup: %v", err)
	}
}

func (e *lifeEnv) buffer(d *dml.Device, size uint64) *dml.Resource {
	e.t.Helper()
	r, err := d.CreateBuffer(size)
	e.must(err)
	return r
}

// otherDevice is a second device; its objects are foreign to e.d.
func (e *lifeEnv) otherDevice() *dml.Device {
	e.t.Helper()
	if e.other == nil {
		e.other = testutil.CreateDML(e.t, dml.DeviceOptions{})
	}
	return e.other
}

// compiled compiles and initializes desc on d.
func (e *lifeEnv) compiled(d *dml.Device, desc dml.OperatorDesc) *dml.CompiledOperator {
	e.t.Helper()
	cop, err := testutil.Compile(d, desc, "")
	e.must(err)
	if cop.BindingProperties().PersistentResourceSize > 0 {
		return cop // the case initializes it
	}
	rec, _ := d.CreateCommandRecorder()
	e.must(testutil.Initialize(d, rec, cop))
	return cop
}

// ownedInitTable is a table for the initializer of argDescSmall with an
// OWNED_BY_DML input, and the operator (not initialized).
func (e *lifeEnv) ownedInitTable() (*dml.BindingTable, *dml.CompiledOperator) {
	e.t.Helper()
	cop := e.compiled(e.d, ownedArgDesc())
	init, err := e.d.CreateOperatorInitializer(cop)
	e.must(err)
	tb, err := e.d.CreateBindingTable(init)
	e.must(err)
	return tb, cop
}

// ownedArgDesc is argDescSmall with an OWNED_BY_DML input: its operator
// has a persistent resource, and its initializer an input.
func ownedArgDesc() *dml.ArgMax {
	desc := argDescSmall()
	desc.Input.Flags = tensor.FlagOwnedByDML
	return desc
}

// argTable is a table for argDescTemp (FLOAT32 [2,256] -> UINT32 [2,1],
// with a temporary resource) on d, and the operator.
func (e *lifeEnv) argTable(d *dml.Device) (*dml.BindingTable, *dml.CompiledOperator) {
	e.t.Helper()
	cop := e.compiled(d, argDescTemp())
	tb, err := d.CreateBindingTable(cop)
	e.must(err)
	return tb, cop
}

// recorded is a closed list with one argmax dispatch whose input, output
// and temporary are in, out, temp.
func (e *lifeEnv) recorded(in, out, temp *dml.Resource) (*dml.CommandList, *dml.CompiledOperator) {
	e.t.Helper()
	cop := e.compiled(e.d, argDescTemp())
	l, err := testutil.Record(e.d, e.rec, testutil.Dispatch{Dispatchable: cop, Bind: func(tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(dml.WholeBuffer(in)), tb.BindOutputs(dml.WholeBuffer(out)), tb.BindTemporaryResource(dml.WholeBuffer(temp)))
	}})
	e.must(err)
	return l, cop
}

// released is a buffer of size bytes, released.
func (e *lifeEnv) released(size uint64) *dml.Resource {
	r := e.buffer(e.d, size)
	r.Release()
	return r
}

// closedDevice closes e.d and returns it.
func (e *lifeEnv) closedDevice() *dml.Device {
	e.d.Close()
	return e.d
}

type lifeCase struct {
	name     string
	sentinel error  // errors.Is target besides E_INVALIDARG (nil: none)
	field    string // must occur in the error's Field
	rule     string // must occur in the message
	run      func(e *lifeEnv) error
}

var (
	released = dml.ErrReleased
	closed   = dml.ErrDeviceClosed
	foreign  = dml.ErrForeignDevice
	zero     = dml.ErrNotCreated
	pending  = dml.ErrPending
)

// bindSlot is one of the four places of an operator's binding table a
// DML_BUFFER_BINDING goes: the Field an error there names, a size that
// fits argDescTemp's operator there, and the call that binds it.
type bindSlot struct {
	where, field string
	size         func(cop *dml.CompiledOperator) uint64
	bind         func(tb *dml.BindingTable, b *dml.BufferBinding) error
}

var bindSlots = []bindSlot{
	{"an input", "bindings[0].Buffer", func(*dml.CompiledOperator) uint64 { return 2048 },
		func(tb *dml.BindingTable, b *dml.BufferBinding) error { return tb.BindInputs(b) }},
	{"an output", "bindings[0].Buffer", func(*dml.CompiledOperator) uint64 { return 8 },
		func(tb *dml.BindingTable, b *dml.BufferBinding) error { return tb.BindOutputs(b) }},
	{"the temporary resource", "binding.Buffer", func(cop *dml.CompiledOperator) uint64 { return cop.BindingProperties().TemporaryResourceSize },
		(*dml.BindingTable).BindTemporaryResource},
	{"the persistent resource", "binding.Buffer", func(*dml.CompiledOperator) uint64 { return 256 },
		(*dml.BindingTable).BindPersistentResource},
}

// slotCases bind binding(e, cop, slot) in each of the bindSlots of a
// table for argDescTemp's operator cop; each case is named what + " as " +
// the slot, and wants the slot's field named.
func slotCases(what string, sentinel error, rule string, binding func(e *lifeEnv, cop *dml.CompiledOperator, s bindSlot) *dml.BufferBinding) []lifeCase {
	cases := make([]lifeCase, len(bindSlots))
	for i, s := range bindSlots {
		cases[i] = lifeCase{what + " as " + s.where, sentinel, s.field, rule, func(e *lifeEnv) error {
			tb, cop := e.argTable(e.d)
			return s.bind(tb, binding(e, cop, s))
		}}
	}
	return cases
}

// bindCases binds a bad resource r(e) in each of the four places a
// DML_BUFFER_BINDING goes, and at an initializer's input and output.
func bindCases(what string, sentinel error, rule string, r func(e *lifeEnv) *dml.Resource) []lifeCase {
	cases := slotCases(what, sentinel, rule, func(e *lifeEnv, cop *dml.CompiledOperator, s bindSlot) *dml.BufferBinding {
		return &dml.BufferBinding{Buffer: r(e), SizeInBytes: s.size(cop)}
	})
	return append(cases,
		lifeCase{what + " as an initializer's OWNED_BY_DML input", sentinel, "bindings[0][0].Buffer", rule, func(e *lifeEnv) error {
			tb, _ := e.ownedInitTable()
			return tb.BindInputs(dml.BufferArrayBinding{{Buffer: r(e), SizeInBytes: 2048}})
		}},
		lifeCase{what + " as an initializer's output (persistent resource)", sentinel, "bindings[0].Buffer", rule, func(e *lifeEnv) error {
			tb, cop := e.ownedInitTable()
			return tb.BindOutputs(&dml.BufferBinding{Buffer: r(e), SizeInBytes: cop.BindingProperties().PersistentResourceSize})
		}},
	)
}

// closedCases are calls on every kind of object after Device.Close.
var closedCases = []lifeCase{
	{"CreateBuffer after Close", closed, "device", "closed", func(e *lifeEnv) error { _, err := e.closedDevice().CreateBuffer(256); return err }},
	{"CreateOperator after Close", closed, "device", "closed", func(e *lifeEnv) error { _, err := e.closedDevice().CreateOperator(argDescSmall()); return err }},
	{"Compute after Close", closed, "device", "closed", func(e *lifeEnv) error {
		_, err := e.closedDevice().Compute(argDescSmall(), tensor.New(tensor.Float32, 4, 8))
		return err
	}},
	{"CreateCommandList after Close", closed, "device", "closed", func(e *lifeEnv) error { _, err := e.closedDevice().CreateCommandList(); return err }},
	{"FeatureLevels after Close", closed, "device", "closed", func(e *lifeEnv) error {
		_, err := e.closedDevice().FeatureLevels([]dml.FeatureLevel{dml.FeatureLevel1_0})
		return err
	}},
	{"Resource.Write after Close", closed, "device", "closed", func(e *lifeEnv) error {
		r := e.buffer(e.d, 256)
		e.closedDevice()
		return r.Write(0, []byte{1, 2, 3, 4})
	}},
	{"Resource.Read after Close", closed, "device", "closed", func(e *lifeEnv) error {
		r := e.buffer(e.d, 256)
		e.closedDevice()
		return r.Read(0, make([]byte, 4))
	}},
	{"Resource.Fill after Close", closed, "device", "closed", func(e *lifeEnv) error {
		r := e.buffer(e.d, 256)
		e.closedDevice()
		return r.Fill(0, 256, 7)
	}},
	{"Resource.Release after Close, then Write", closed, "device", "closed", func(e *lifeEnv) error {
		r := e.buffer(e.d, 256)
		e.closedDevice()
		r.Release()
		r.Release()
		return r.Write(0, []byte{1})
	}},
	{"CommandList.Release after Close, then Execute", closed, "device", "closed", func(e *lifeEnv) error {
		l, _ := e.d.CreateCommandList()
		e.closedDevice()
		l.Release()
		return l.Execute()
	}},
	{"CompiledOperator.Release after Close, then a table for it", closed, "device", "closed", func(e *lifeEnv) error {
		cop := e.compiled(e.d, argDescSmall())
		e.closedDevice()
		cop.Release()
		cop.Release()
		_, err := e.d.CreateBindingTable(cop)
		return err
	}},
	{"BindInputs after Close", closed, "device", "closed", func(e *lifeEnv) error {
		tb, _ := e.argTable(e.d)
		in := e.buffer(e.d, 2048)
		e.closedDevice()
		return tb.BindInputs(dml.WholeBuffer(in))
	}},
	{"RecordDispatch after Close", closed, "device", "closed", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		l, _ := e.d.CreateCommandList()
		e.closedDevice()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"Execute a recorded list after Close", closed, "device", "closed", func(e *lifeEnv) error {
		l, _ := e.recorded(e.buffer(e.d, 2048), e.buffer(e.d, 256), e.buffer(e.d, 64<<10))
		e.closedDevice()
		return l.Execute()
	}},
	{"CreateBuffer after the gpu device underneath was closed", closed, "", "closed", func(e *lifeEnv) error {
		e.d.GPU().Close()
		_, err := e.d.CreateBuffer(256)
		return err
	}},
	{"Resource.Write after the gpu device underneath was closed", closed, "", "closed", func(e *lifeEnv) error {
		r := e.buffer(e.d, 256)
		e.d.GPU().Close()
		return r.Write(0, []byte{1, 2, 3, 4})
	}},
	{"Compute after the gpu device underneath was closed", closed, "", "closed", func(e *lifeEnv) error {
		e.d.GPU().Close()
		_, err := e.d.Compute(argDescSmall(), tensor.New(tensor.Float32, 4, 8))
		return err
	}},
	{"GetDeviceRemovedReason after Close", closed, "device", "closed", func(e *lifeEnv) error { return e.closedDevice().GetDeviceRemovedReason() }},
}

// releasedCases are calls on released objects, and released objects as
// arguments.
var releasedCases = []lifeCase{
	{"Write after Release", released, "resource", "released", func(e *lifeEnv) error { return e.released(256).Write(0, []byte{1, 2, 3, 4}) }},
	{"Write after Release with the memory reused", released, "resource", "released", func(e *lifeEnv) error {
		r := e.released(256)
		e.victim = e.buffer(e.d, 256) // likely the same memory
		e.must(e.victim.Fill(0, 256, arenaPattern))
		return r.Write(0, bytes.Repeat([]byte{0xFF}, 256))
	}},
	{"Read after Release", released, "resource", "released", func(e *lifeEnv) error { return e.released(256).Read(0, make([]byte, 4)) }},
	{"Fill after Release", released, "resource", "released", func(e *lifeEnv) error { return e.released(256).Fill(0, 256, 1) }},
	{"Fill(size, 0) after Release", released, "resource", "released", func(e *lifeEnv) error { return e.released(256).Fill(256, 0, 1) }},
	{"Release twice, then Read", released, "resource", "released", func(e *lifeEnv) error {
		r := e.released(256)
		r.Release()
		return r.Read(0, make([]byte, 1))
	}},
	{"input released after binding, before recording", released, "inputs[0].Buffer", "released after it was bound", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		in := e.buffer(e.d, 2048)
		e.must(tb.BindInputs(dml.WholeBuffer(in)))
		e.must(tb.BindOutputs(dml.WholeBuffer(e.buffer(e.d, 256))))
		e.must(tb.BindTemporaryResource(dml.WholeBuffer(e.buffer(e.d, 64<<10))))
		in.Release()
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"output released after binding, memory reused", released, "outputs[0].Buffer", "released after it was bound", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		out := e.buffer(e.d, 256)
		e.must(tb.BindInputs(dml.WholeBuffer(e.buffer(e.d, 2048))))
		e.must(tb.BindOutputs(dml.WholeBuffer(out)))
		e.must(tb.BindTemporaryResource(dml.WholeBuffer(e.buffer(e.d, 64<<10))))
		out.Release()
		e.victim = e.buffer(e.d, 256)
		e.must(e.victim.Fill(0, 256, arenaPattern))
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"temporary released after binding", released, "temporary.Buffer", "released after it was bound", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		temp := e.buffer(e.d, 64<<10)
		e.must(tb.BindInputs(dml.WholeBuffer(e.buffer(e.d, 2048))))
		e.must(tb.BindOutputs(dml.WholeBuffer(e.buffer(e.d, 256))))
		e.must(tb.BindTemporaryResource(dml.WholeBuffer(temp)))
		temp.Release()
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"output released after recording, before Execute", released, "commandList", "resource it recorded was released", func(e *lifeEnv) error {
		out := e.buffer(e.d, 256)
		l, _ := e.recorded(e.buffer(e.d, 2048), out, e.buffer(e.d, 64<<10))
		out.Release()
		e.victim = e.buffer(e.d, 256)
		e.must(e.victim.Fill(0, 256, arenaPattern))
		return l.Execute()
	}},
	{"compiled operator released after recording, before Execute", released, "commandList", "compiled operator (ARGMAX) it recorded was released", func(e *lifeEnv) error {
		l, cop := e.recorded(e.buffer(e.d, 2048), e.buffer(e.d, 256), e.buffer(e.d, 64<<10))
		cop.Release()
		return l.Execute()
	}},
	{"RecordDispatch with a released compiled operator", released, "dispatchable", "released", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		cop.Release()
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"CreateBindingTable for a released compiled operator", released, "Dispatchable", "released", func(e *lifeEnv) error {
		cop := e.compiled(e.d, argDescSmall())
		cop.Release()
		_, err := e.d.CreateBindingTable(cop)
		return err
	}},
	{"Bind on a table whose operator was released", released, "bindingTable.Dispatchable", "released", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		cop.Release()
		return tb.BindInputs(dml.WholeBuffer(e.buffer(e.d, 2048)))
	}},
	{"CreateOperatorInitializer with a released operator", released, "operators[0]", "released", func(e *lifeEnv) error {
		op, _ := e.d.CreateOperator(argDescSmall())
		cop, _ := e.d.CompileOperator(op, 0)
		cop.Release()
		_, err := e.d.CreateOperatorInitializer(cop)
		return err
	}},
	{"initializer whose target was released since", released, "operators[0]", "released", func(e *lifeEnv) error {
		op, _ := e.d.CreateOperator(argDescSmall())
		cop, _ := e.d.CompileOperator(op, 0)
		init, _ := e.d.CreateOperatorInitializer(cop)
		tb, _ := e.d.CreateBindingTable(init)
		cop.Release()
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, init, tb)
	}},
	{"CommandList.Execute after Release", released, "commandList", "released", func(e *lifeEnv) error {
		l, _ := e.recorded(e.buffer(e.d, 2048), e.buffer(e.d, 256), e.buffer(e.d, 64<<10))
		l.Release()
		l.Release()
		return l.Execute()
	}},
	{"RecordDispatch into a released list", released, "commandList", "released", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		l, _ := e.d.CreateCommandList()
		l.Release()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
}

// listCalls call one CommandList method each, by its name.
var listCalls = map[string]func(l *dml.CommandList) error{
	"Close":              (*dml.CommandList).Close,
	"Reset":              (*dml.CommandList).Reset,
	"Wait":               (*dml.CommandList).Wait,
	"ResourceBarrierUAV": (*dml.CommandList).ResourceBarrierUAV,
	"DispatchTimes":      func(l *dml.CommandList) error { _, err := l.DispatchTimes(); return err },
}

// unusableListCases call each of methods on a new command list that spoil
// made unusable (by closing the device or releasing the list); each case
// is named "CommandList.<method> <after>".
func unusableListCases(after string, sentinel error, field, rule string, spoil func(e *lifeEnv, l *dml.CommandList), methods ...string) []lifeCase {
	cases := make([]lifeCase, len(methods))
	for i, m := range methods {
		call := listCalls[m]
		cases[i] = lifeCase{"CommandList." + m + " " + after, sentinel, field, rule, func(e *lifeEnv) error {
			l, _ := e.d.CreateCommandList()
			spoil(e, l)
			return call(l)
		}}
	}
	return cases
}

// foreignCases pass an object of another device.
var foreignCases = []lifeCase{
	{"CompileOperator of another device's operator", foreign, "op", "another device", func(e *lifeEnv) error {
		op, _ := e.otherDevice().CreateOperator(argDescSmall())
		_, err := e.d.CompileOperator(op, 0)
		return err
	}},
	{"CreateBindingTable for another device's operator", foreign, "Dispatchable", "another device", func(e *lifeEnv) error {
		_, err := e.d.CreateBindingTable(e.compiled(e.otherDevice(), argDescSmall()))
		return err
	}},
	{"Reset a table to another device's operator", foreign, "Dispatchable", "another device", func(e *lifeEnv) error {
		tb, _ := e.argTable(e.d)
		return tb.Reset(e.compiled(e.otherDevice(), argDescSmall()))
	}},
	{"CreateOperatorInitializer with another device's operator", foreign, "operators[0]", "another device", func(e *lifeEnv) error {
		op, _ := e.otherDevice().CreateOperator(argDescSmall())
		cop, _ := e.other.CompileOperator(op, 0)
		_, err := e.d.CreateOperatorInitializer(cop)
		return err
	}},
	{"RecordDispatch into another device's list", foreign, "", "one device", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		l, _ := e.otherDevice().CreateCommandList()
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"RecordDispatch with another device's recorder", foreign, "", "one device", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		rec, _ := e.otherDevice().CreateCommandRecorder()
		l, _ := e.d.CreateCommandList()
		return rec.RecordDispatch(l, cop, tb)
	}},
}

// zeroCases use zero values and nil pointers where a created object belongs.
var zeroCases = []lifeCase{
	{"zero BindingTable BindInputs", zero, "bindingTable", "zero value", func(e *lifeEnv) error {
		return (&dml.BindingTable{}).BindInputs(dml.WholeBuffer(e.buffer(e.d, 256)))
	}},
	{"zero BindingTable BindOutputs", zero, "bindingTable", "zero value", func(e *lifeEnv) error { return (&dml.BindingTable{}).BindOutputs(nil) }},
	{"zero BindingTable BindTemporaryResource", zero, "bindingTable", "zero value", func(e *lifeEnv) error {
		return (&dml.BindingTable{}).BindTemporaryResource(nil)
	}},
	{"zero BindingTable BindPersistentResource", zero, "bindingTable", "zero value", func(e *lifeEnv) error {
		return (&dml.BindingTable{}).BindPersistentResource(nil)
	}},
	{"zero BindingTable Reset", zero, "bindingTable", "zero value", func(e *lifeEnv) error { return (&dml.BindingTable{}).Reset(nil) }},
	{"nil BindingTable BindInputs", zero, "bindingTable", "nil", func(e *lifeEnv) error { var tb *dml.BindingTable; return tb.BindInputs() }},
	{"zero BindingTable in RecordDispatch", zero, "bindingTable", "zero value", func(e *lifeEnv) error {
		_, cop := e.argTable(e.d)
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, cop, &dml.BindingTable{})
	}},
	{"WholeBuffer of a zero Resource", zero, "bindings[0].Buffer", "zero value", func(e *lifeEnv) error {
		tb, _ := e.argTable(e.d)
		return tb.BindInputs(dml.WholeBuffer(&dml.Resource{}))
	}},
	{"zero Resource Write", zero, "resource", "zero value", func(e *lifeEnv) error { return (&dml.Resource{}).Write(0, []byte{1}) }},
	{"zero Resource Read", zero, "resource", "zero value", func(e *lifeEnv) error { return (&dml.Resource{}).Read(0, []byte{1}) }},
	{"nil Resource Fill", zero, "resource", "nil", func(e *lifeEnv) error { var r *dml.Resource; return r.Fill(0, 4, 0) }},
	{"zero Resource bound", zero, "bindings[0].Buffer", "zero value", func(e *lifeEnv) error {
		tb, _ := e.argTable(e.d)
		return tb.BindInputs(&dml.BufferBinding{Buffer: &dml.Resource{}, SizeInBytes: 2048})
	}},
	{"zero CommandList Close", zero, "commandList", "zero value", func(e *lifeEnv) error { return (&dml.CommandList{}).Close() }},
	{"zero CommandList Execute", zero, "commandList", "zero value", func(e *lifeEnv) error { return (&dml.CommandList{}).Execute() }},
	{"zero CommandList in RecordDispatch", zero, "commandList", "zero value", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		return e.rec.RecordDispatch(&dml.CommandList{}, cop, tb)
	}},
	{"zero CompiledOperator for a table", zero, "Dispatchable", "zero value", func(e *lifeEnv) error {
		_, err := e.d.CreateBindingTable(&dml.CompiledOperator{})
		return err
	}},
	{"nil CompiledOperator for a table", zero, "Dispatchable", "nil", func(e *lifeEnv) error {
		var cop *dml.CompiledOperator
		_, err := e.d.CreateBindingTable(cop)
		return err
	}},
	{"zero Operator compiled", zero, "op", "zero value", func(e *lifeEnv) error { _, err := e.d.CompileOperator(&dml.Operator{}, 0); return err }},
	{"zero OperatorInitializer for a table", zero, "Dispatchable", "zero value", func(e *lifeEnv) error {
		_, err := e.d.CreateBindingTable(&dml.OperatorInitializer{})
		return err
	}},
	{"zero Device CreateBuffer", zero, "device", "zero value", func(e *lifeEnv) error { _, err := (&dml.Device{}).CreateBuffer(4); return err }},
	{"nil Device Compute", zero, "device", "nil", func(e *lifeEnv) error {
		var d *dml.Device
		_, err := d.Compute(argDescSmall(), tensor.New(tensor.Float32, 4, 8))
		return err
	}},
	{"zero Device Close", zero, "device", "zero value", func(e *lifeEnv) error { return (&dml.Device{}).Close() }},
	{"zero CommandRecorder", zero, "recorder", "zero value", func(e *lifeEnv) error {
		tb, cop := e.argTable(e.d)
		l, _ := e.d.CreateCommandList()
		return (&dml.CommandRecorder{}).RecordDispatch(l, cop, tb)
	}},
}

// staleCases record bindings made for an initializer's earlier targets.
var staleCases = []lifeCase{
	{"initializer Reset to more operators after binding", nil, "inputs", "was Reset since", func(e *lifeEnv) error {
		a, b := e.compiled(e.d, ownedArgDesc()), e.compiled(e.d, ownedArgDesc())
		init, _ := e.d.CreateOperatorInitializer(a)
		tb, _ := e.d.CreateBindingTable(init)
		e.must(tb.BindInputs(dml.BufferArrayBinding{{Buffer: e.buffer(e.d, 2048), SizeInBytes: 128}}))
		e.must(tb.BindOutputs(dml.WholeBuffer(e.buffer(e.d, a.BindingProperties().PersistentResourceSize))))
		e.must(init.Reset(a, b))
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, init, tb)
	}},
	{"initializer Reset to an operator with other inputs after binding", nil, "inputs[0]", "OWNED_BY_DML", func(e *lifeEnv) error {
		a := e.compiled(e.d, ownedArgDesc())
		b := e.compiled(e.d, argDescSmall())
		init, _ := e.d.CreateOperatorInitializer(a)
		tb, _ := e.d.CreateBindingTable(init)
		e.must(tb.BindInputs(dml.BufferArrayBinding{{Buffer: e.buffer(e.d, 2048), SizeInBytes: 128}}))
		e.must(init.Reset(b))
		l, _ := e.d.CreateCommandList()
		return e.rec.RecordDispatch(l, init, tb)
	}},
}

// pendingCases resubmit or reset a list that has not been waited for.
var pendingCases = []lifeCase{
	{"Execute a pending list again", pending, "commandList", "still executing", func(e *lifeEnv) error {
		l, _ := e.recorded(e.buffer(e.d, 2048), e.buffer(e.d, 256), e.buffer(e.d, 64<<10))
		e.must(l.Execute())
		defer l.Wait()
		return l.Execute()
	}},
	{"Reset a pending list", pending, "commandList", "still executing", func(e *lifeEnv) error {
		l, _ := e.recorded(e.buffer(e.d, 2048), e.buffer(e.d, 256), e.buffer(e.d, 64<<10))
		e.must(l.Execute())
		defer l.Wait()
		return l.Reset()
	}},
}

func allLifeCases() []lifeCase {
	var all []lifeCase
	all = append(all, bindCases("released buffer", released, "released", func(e *lifeEnv) *dml.Resource { return e.released(64 << 10) })...)
	all = append(all, bindCases("another device's buffer", foreign, "another device", func(e *lifeEnv) *dml.Resource { return e.buffer(e.otherDevice(), 64<<10) })...)
	all = append(all, closedCases...)
	all = append(all, unusableListCases("after device Close", closed, "device", "closed", func(e *lifeEnv, _ *dml.CommandList) { e.closedDevice() },
		"Close", "Reset", "Wait")...)
	all = append(all, releasedCases...)
	all = append(all, unusableListCases("after Release", released, "commandList", "released", func(_ *lifeEnv, l *dml.CommandList) { l.Release() },
		"Close", "Reset", "ResourceBarrierUAV", "Wait", "DispatchTimes")...)
	all = append(all, foreignCases...)
	all = append(all, zeroCases...)
	all = append(all, slotCases("WholeBuffer(nil)", nil, "is nil", func(*lifeEnv, *dml.CompiledOperator, bindSlot) *dml.BufferBinding { return dml.WholeBuffer(nil) })...)
	all = append(all, staleCases...)
	return append(all, pendingCases...)
}

// TestMisuseLifetime runs every lifetime misuse on a fresh device.
func TestMisuseLifetime(t *testing.T) {
	cases := allLifeCases()
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := testutil.CreateDML(t, dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug})
			rec, _ := d.CreateCommandRecorder()
			e := &lifeEnv{t: t, d: d, rec: rec}
			defer func() {
				d.Close() // objects the case left behind are reported here; not the point
				if e.other != nil {
					e.other.Close()
				}
			}()
			err := runGuarded(t, func() error { return c.run(e) })
			checkLifeErr(t, err, c)
			if e.victim != nil {
				checkArena(t, e.victim, 256, "a live buffer was written through a released one")
			}
			// Close is idempotent, on every path.
			if err := errors.Join(d.Close(), d.Close()); err != nil && !strings.Contains(err.Error(), "validation") {
				t.Fatalf("second Close: %v", err)
			}
		})
	}
	if len(cases) < 70 {
		t.Errorf("only %d lifetime cases", len(cases))
	}
}

func checkLifeErr(t *testing.T, err error, c lifeCase) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want E_INVALIDARG wrapping %v", c.sentinel)
	}
	if !errors.Is(err, hresult.E_INVALIDARG) || c.sentinel != nil && !errors.Is(err, c.sentinel) {
		t.Fatalf("want E_INVALIDARG and %v; got %v", c.sentinel, err)
	}
	var he *hresult.Error
	if !errors.As(err, &he) {
		t.Fatalf("not an *hresult.Error: %v", err)
	}
	if !strings.Contains(he.Field, c.field) || !strings.Contains(err.Error(), c.rule) || he.Op == "" {
		t.Fatalf("want call, field %q and rule %q; got op %q field %q: %v", c.field, c.rule, he.Op, he.Field, err)
	}
	t.Log(err)
}
