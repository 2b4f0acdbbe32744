package dml

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// Run executes desc once on host tensors: it creates, compiles and
// initializes the operator, uploads the inputs and the outputs' current
// bytes (so that bytes the output strides do not address keep their
// values), records, executes, waits, and reads the outputs back into
// outputs[i].Data. inputs and outputs follow desc.Inputs() and
// desc.Outputs(); nil stands for an absent optional tensor.
func (d *Device) Run(desc ops.Desc, inputs, outputs []*tensor.Tensor) error {
	op, err := d.CreateOperator(desc)
	if err != nil {
		return err
	}
	return d.RunOperator(op, inputs, outputs)
}

// Compute is Run with fresh zeroed outputs shaped as desc says.
func (d *Device) Compute(desc ops.Desc, inputs ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	outs := make([]*tensor.Tensor, len(desc.Outputs()))
	for i, td := range desc.Outputs() {
		if td != nil {
			outs[i] = &tensor.Tensor{Desc: td.Clone(), Data: make([]byte, td.TotalTensorSizeInBytes)}
		}
	}
	return outs, d.Run(desc, inputs, outs)
}

// checkHost checks that host tensors match the operator's descs.
func checkHost(what string, want []*tensor.Desc, have []*tensor.Tensor) error {
	if len(have) != len(want) {
		return hresult.InvalidArg(what, "%d tensors for an operator with %d", len(have), len(want))
	}
	for i, td := range want {
		field := fmt.Sprintf("%s[%d]", what, i)
		t := have[i]
		switch {
		case td == nil && t != nil:
			return hresult.InvalidArg(field, "the optional tensor is absent from the desc; pass nil")
		case td != nil && t == nil:
			return hresult.InvalidArg(field, "missing")
		case td == nil:
			continue
		}
		if t.Desc.DataType != td.DataType || !equalU32(t.Desc.Sizes, td.Sizes) || !equalU32(t.Desc.EffectiveStrides(), td.EffectiveStrides()) {
			return hresult.InvalidArg(field, "host tensor %v does not match the desc's %v", t.Desc, *td)
		}
		if uint64(len(t.Data)) < td.TotalTensorSizeInBytes {
			return hresult.InvalidArg(field+".Data", "%d bytes, fewer than TotalTensorSizeInBytes %d", len(t.Data), td.TotalTensorSizeInBytes)
		}
	}
	return nil
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RunOperator is Run for an operator already created.
func (d *Device) RunOperator(op *Operator, inputs, outputs []*tensor.Tensor) (err error) {
	call := "Run(" + op.kind + ")"
	if err := checkHost("inputs", op.inputs, inputs); err != nil {
		return hresult.WithOp(call, err)
	}
	if err := checkHost("outputs", op.outputs, outputs); err != nil {
		return hresult.WithOp(call, err)
	}
	cop, err := d.CompileOperator(op, ExecutionFlagNone)
	if err != nil {
		return err
	}
	defer cop.Release()
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		return err
	}
	var resources []*Resource
	defer func() {
		for _, r := range resources {
			r.Release()
		}
	}()
	upload := func(t *tensor.Tensor) (*BufferBinding, error) {
		size := t.Desc.TotalTensorSizeInBytes
		r, err := d.CreateBuffer(size)
		if err != nil {
			return nil, err
		}
		resources = append(resources, r)
		if err := r.Write(0, t.Data[:size]); err != nil {
			return nil, err
		}
		return &BufferBinding{Buffer: r, SizeInBytes: size}, nil
	}
	scratch := func(size uint64) (*BufferBinding, error) {
		if size == 0 {
			return nil, nil
		}
		r, err := d.CreateBuffer(size)
		if err != nil {
			return nil, err
		}
		resources = append(resources, r)
		return &BufferBinding{Buffer: r, SizeInBytes: size}, nil
	}

	props := cop.BindingProperties()
	persistent, err := scratch(props.PersistentResourceSize)
	if err != nil {
		return err
	}
	temporary, err := scratch(props.TemporaryResourceSize)
	if err != nil {
		return err
	}
	execIn := make([]Binding, len(inputs))
	initIn := make(BufferArrayBinding, len(inputs))
	owned := false
	for i, t := range inputs {
		if t == nil {
			continue
		}
		b, err := upload(t)
		if err != nil {
			return err
		}
		if cop.owned[i] >= 0 {
			initIn[i], owned = *b, true
		} else {
			execIn[i] = b
		}
	}
	execOut := make([]Binding, len(outputs))
	outBind := make([]*BufferBinding, len(outputs))
	for i, t := range outputs {
		if t == nil {
			continue
		}
		b, err := upload(t)
		if err != nil {
			return err
		}
		execOut[i], outBind[i] = b, b
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

	initTable, err := d.CreateBindingTable(init)
	if err != nil {
		return err
	}
	if owned {
		if err := initTable.BindInputs(initIn); err != nil {
			return err
		}
	}
	if persistent != nil {
		if err := initTable.BindOutputs(persistent); err != nil {
			return err
		}
	}
	if err := rec.RecordDispatch(list, init, initTable); err != nil {
		return err
	}
	if err := list.ResourceBarrierUAV(); err != nil {
		return err
	}
	table, err := d.CreateBindingTable(cop)
	if err != nil {
		return err
	}
	if err := table.BindInputs(execIn...); err != nil {
		return err
	}
	if err := table.BindOutputs(execOut...); err != nil {
		return err
	}
	if err := table.BindTemporaryResource(temporary); err != nil {
		return err
	}
	if err := table.BindPersistentResource(persistent); err != nil {
		return err
	}
	if err := rec.RecordDispatch(list, cop, table); err != nil {
		return err
	}
	if err := list.Close(); err != nil {
		return err
	}
	if err := list.Execute(); err != nil {
		return err
	}
	if err := list.Wait(); err != nil {
		return err
	}
	for i, t := range outputs {
		if t != nil {
			if err := outBind[i].Buffer.Read(0, t.Data[:t.Desc.TotalTensorSizeInBytes]); err != nil {
				return err
			}
		}
	}
	return nil
}
