package testutil

import (
	"errors"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
)

// Compile creates desc's operator with the kernel strategy ("" lets the
// planner choose) and compiles it; the caller releases it.
func Compile(d *dml.Device, desc ops.Desc, kernel string) (*dml.CompiledOperator, error) {
	op, err := d.CreateOperatorWithKernel(desc, kernel)
	if err != nil {
		return nil, err
	}
	return d.CompileOperator(op, dml.ExecutionFlagNone)
}

// CompileInitialized is Compile and then Initialize, failing t on any
// error: an operator ready to bind and dispatch, which the caller releases.
func CompileInitialized(t testing.TB, d *dml.Device, desc ops.Desc, kernel string) *dml.CompiledOperator {
	t.Helper()
	cop, err := Compile(d, desc, kernel)
	if err != nil {
		t.Fatalf("compiling %s with kernel %q: %v", desc.OperatorType(), kernel, err)
	}
	rec, err := d.CreateCommandRecorder()
	if err == nil {
		err = Initialize(d, rec, cop)
	}
	if err != nil {
		cop.Release()
		t.Fatalf("initializing %s: %v", desc.OperatorType(), err)
	}
	return cop
}

// Initialize runs the initializer of cops, with nothing bound, in a command
// list of its own and waits for it: enough for operators with no
// OWNED_BY_DML input and no persistent resource.
func Initialize(d *dml.Device, rec *dml.CommandRecorder, cops ...*dml.CompiledOperator) error {
	init, err := d.CreateOperatorInitializer(cops...)
	if err != nil {
		return err
	}
	list, err := Record(d, rec, Dispatch{Dispatchable: init})
	if err != nil {
		return err
	}
	defer list.Release()
	return errors.Join(list.Execute(), list.Wait())
}

// Dispatch is one dispatch for Record: what runs, and what its binding
// table binds (nil: nothing).
type Dispatch struct {
	Dispatchable dml.Dispatchable
	Bind         func(table *dml.BindingTable) error
}

// Record records dispatches, in order and with a UAV barrier between each
// two, into a new command list, each with a binding table of its own, and
// closes the list: ready to execute. The caller releases it.
func Record(d *dml.Device, rec *dml.CommandRecorder, dispatches ...Dispatch) (*dml.CommandList, error) {
	list, err := d.CreateCommandList()
	if err != nil {
		return nil, err
	}
	for i, dp := range dispatches {
		if err := recordOne(d, rec, list, dp, i > 0); err != nil {
			list.Release()
			return nil, err
		}
	}
	if err := list.Close(); err != nil {
		list.Release()
		return nil, err
	}
	return list, nil
}

func recordOne(d *dml.Device, rec *dml.CommandRecorder, list *dml.CommandList, dp Dispatch, barrier bool) error {
	table, err := d.CreateBindingTable(dp.Dispatchable)
	if err != nil {
		return err
	}
	if dp.Bind != nil {
		if err := dp.Bind(table); err != nil {
			return err
		}
	}
	if barrier {
		if err := list.ResourceBarrierUAV(); err != nil {
			return err
		}
	}
	return rec.RecordDispatch(list, dp.Dispatchable, table)
}

// ForcedPlan wraps a desc so that the operator made from it is planned
// with Kernel as its strategy ("" leaves the planner's choice) and, unless
// DeviceType is DeviceTypeOther (the zero value), as for a device of that
// type instead of the device's own: lavapipe then runs the plans a
// discrete GPU gets; Tuning's knobs are set over the context's.
type ForcedPlan struct {
	ops.Desc
	Kernel     string
	DeviceType caps.DeviceType
	Tuning     ops.Tuning
}

// Plan plans the wrapped desc with the forced choices.
func (f *ForcedPlan) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	if f.Kernel != "" {
		c.Kernel = f.Kernel
	}
	if f.DeviceType != caps.DeviceTypeOther {
		c.DeviceType = f.DeviceType
	}
	if len(f.Tuning) > 0 {
		c.Tuning = c.Tuning.With(f.Tuning)
	}
	return f.Desc.Plan(&c)
}
