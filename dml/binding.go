package dml

import (
	"fmt"
	"slices"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// Binding is DML_BINDING_DESC: a *BufferBinding (DML_BINDING_TYPE_BUFFER),
// a BufferArrayBinding (DML_BINDING_TYPE_BUFFER_ARRAY), or nil
// (DML_BINDING_TYPE_NONE).
type Binding interface{ isBinding() }

// BufferBinding is DML_BUFFER_BINDING: a range of a buffer.
type BufferBinding struct {
	Buffer      *Resource // the buffer; nil is refused (bind a nil Binding for NONE)
	Offset      uint64    // bytes from the buffer's start; a multiple of the tensor's alignment
	SizeInBytes uint64    // at least the tensor's TotalTensorSizeInBytes (or the resource size)
}

// BufferArrayBinding is DML_BUFFER_ARRAY_BINDING: an initializer's inputs
// for one target operator, one entry per input (a nil Buffer binds none).
type BufferArrayBinding []BufferBinding

func (*BufferBinding) isBinding()     {}
func (BufferArrayBinding) isBinding() {}

// WholeBuffer binds all of r. WholeBuffer(nil) is a binding with no
// buffer, which every Bind method refuses.
func WholeBuffer(r *Resource) *BufferBinding {
	if r == nil {
		return &BufferBinding{}
	}
	return &BufferBinding{Buffer: r, SizeInBytes: r.Size()}
}

// BindingTable is IDMLBindingTable. It is not safe for concurrent use.
type BindingTable struct {
	d          *Device
	disp       Dispatchable
	inputs     []Binding
	outputs    []Binding
	temporary  *BufferBinding
	persistent *BufferBinding
}

// CreateBindingTable returns an empty table for disp.
func (d *Device) CreateBindingTable(disp Dispatchable) (*BindingTable, error) {
	const call = "CreateBindingTable"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	t := &BindingTable{d: d}
	if err := t.reset(call, disp); err != nil {
		return nil, err
	}
	return t, nil
}

// Reset clears every binding and retargets the table at disp. It does not
// affect dispatches already recorded.
func (t *BindingTable) Reset(disp Dispatchable) error {
	const call = "IDMLBindingTable::Reset"
	if t == nil || t.d == nil {
		return lifeErr(call, "bindingTable", "is nil or a zero value; use CreateBindingTable", ErrNotCreated)
	}
	leave, err := t.d.enter(call)
	if err != nil {
		return err
	}
	defer leave()
	return t.reset(call, disp)
}

func (t *BindingTable) reset(call string, disp Dispatchable) error {
	if err := checkDispatchable(t.d, call, "Dispatchable", disp); err != nil {
		return err
	}
	*t = BindingTable{d: t.d, disp: disp}
	return nil
}

// use guards a Bind call: the table must come from CreateBindingTable, its
// device be open and its dispatchable unreleased.
func (t *BindingTable) use(call string) (func(), error) {
	if t == nil || t.d == nil || t.disp == nil {
		return nop, lifeErr(call, "bindingTable", "is nil or a zero value; use CreateBindingTable", ErrNotCreated)
	}
	leave, err := t.d.enter(call)
	return guardThen(leave, err, func() error { return checkDispatchable(t.d, call, "bindingTable.Dispatchable", t.disp) })
}

// checkResource refuses a bound resource that is a zero value, released or
// of another device than d.
func checkResource(d *Device, field string, r *Resource) error {
	switch {
	case r.d == nil || r.buf == nil:
		return lifeErr("", field, "is a zero value; use CreateBuffer", ErrNotCreated)
	case r.d != d:
		return lifeErr("", field, "belongs to another device than the binding table", ErrForeignDevice)
	case r.released.Load():
		return lifeErr("", field, "was released", ErrReleased)
	}
	return nil
}

// checkBuffer applies DML_BUFFER_BINDING's rules to b for tensor td (nil
// for temporary and persistent resources, which need need bytes at an
// alignment of align).
func checkBuffer(d *Device, field string, b *BufferBinding, td *tensor.Desc, need, align uint64) error {
	if b.Buffer == nil {
		return hresult.InvalidArg(field+".Buffer", "is nil; bind nil (DML_BINDING_TYPE_NONE) to bind nothing")
	}
	if err := checkResource(d, field+".Buffer", b.Buffer); err != nil {
		return err
	}
	if td != nil {
		need = td.TotalTensorSizeInBytes
		align = MinimumBufferTensorAlignment
		if g := uint64(td.GuaranteedBaseOffsetAlignment); g > align {
			align = g
		}
	}
	if b.Offset%align != 0 {
		return hresult.InvalidArg(field+".Offset", "%d is not a multiple of %d (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or GuaranteedBaseOffsetAlignment)", b.Offset, align)
	}
	if b.SizeInBytes < need {
		what := "TotalTensorSizeInBytes"
		if td == nil {
			what = "the required resource size"
		}
		return hresult.InvalidArg(field+".SizeInBytes", "%d is less than %s %d", b.SizeInBytes, what, need)
	}
	if size := b.Buffer.Size(); b.Offset > size || b.SizeInBytes > size-b.Offset {
		return hresult.InvalidArg(field, "the range of %d bytes at offset %d lies outside the %d-byte buffer", b.SizeInBytes, b.Offset, size)
	}
	return nil
}

// BindInputs binds the dispatchable's inputs. The count must equal the
// number of inputs, optional ones included (where DirectML would remove the
// device, vkdml returns E_INVALIDARG).
func (t *BindingTable) BindInputs(bindings ...Binding) error {
	const call = "IDMLBindingTable::BindInputs"
	leave, err := t.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if len(bindings) == 0 {
		t.inputs = nil // (0, nullptr) unbinds all
		return nil
	}
	if err := t.checkCount(call, "inputs", len(bindings), t.disp.inputCount()); err != nil {
		return err
	}
	for i, b := range bindings {
		field := fmt.Sprintf("bindings[%d]", i)
		var err error
		switch x := t.disp.(type) {
		case *CompiledOperator:
			err = t.checkOperatorInput(field, x, i, b)
		case *OperatorInitializer:
			err = t.checkInitializerInput(field, x.targets()[i], b)
		}
		if err != nil {
			return hresult.WithOp(call, err)
		}
	}
	t.inputs = copyBindings(bindings)
	return nil
}

func (t *BindingTable) checkCount(call, what string, got, want int) error {
	if got != want {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "count", Rule: fmt.Sprintf("%d bindings for %d %s: the count must match exactly, optional tensors included (bind nil for NONE)", got, want, what)}
	}
	return nil
}

func (t *BindingTable) checkOperatorInput(field string, c *CompiledOperator, i int, b Binding) error {
	td := c.op.inputs[i]
	if b == nil {
		return nil // checked at RecordDispatch: required tensors must be bound
	}
	bb, ok := b.(*BufferBinding)
	if !ok {
		return hresult.InvalidArg(field, "an operator's input must be a DML_BINDING_TYPE_BUFFER binding")
	}
	if bb == nil {
		return nil
	}
	if td == nil {
		return hresult.InvalidArg(field, "the optional tensor is absent from the operator desc; bind nil")
	}
	if td.Flags&tensor.FlagOwnedByDML != 0 {
		return hresult.InvalidArg(field, "the tensor has DML_TENSOR_FLAG_OWNED_BY_DML: bind it at initialization, not at execution")
	}
	return checkBuffer(t.d, field, bb, td, 0, 0)
}

func (t *BindingTable) checkInitializerInput(field string, c *CompiledOperator, b Binding) error {
	if b == nil {
		for i, o := range c.owned {
			if o >= 0 {
				return hresult.InvalidArg(field, "operator's input %d has DML_TENSOR_FLAG_OWNED_BY_DML and must be bound at initialization", i)
			}
		}
		return nil
	}
	arr, ok := b.(BufferArrayBinding)
	if !ok {
		return hresult.InvalidArg(field, "an initializer's input must be a DML_BINDING_TYPE_BUFFER_ARRAY binding")
	}
	if len(arr) != len(c.op.inputs) {
		return hresult.InvalidArg(field, "%d buffers for an operator with %d inputs", len(arr), len(c.op.inputs))
	}
	for j := range arr {
		f := fmt.Sprintf("%s[%d]", field, j)
		owned := c.owned[j] >= 0
		switch {
		case arr[j].Buffer == nil && owned:
			return hresult.InvalidArg(f, "input %d has DML_TENSOR_FLAG_OWNED_BY_DML and must be bound at initialization", j)
		case arr[j].Buffer != nil && !owned:
			return hresult.InvalidArg(f, "input %d is not DML_TENSOR_FLAG_OWNED_BY_DML: bind it at execution, not initialization", j)
		case owned:
			if err := checkBuffer(t.d, f, &arr[j], c.op.inputs[j], 0, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// BindOutputs binds the dispatchable's outputs (for an initializer: each
// target's persistent resource). The writable areas of two outputs must
// not overlap.
func (t *BindingTable) BindOutputs(bindings ...Binding) error {
	const call = "IDMLBindingTable::BindOutputs"
	leave, err := t.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if len(bindings) == 0 {
		t.outputs = nil
		return nil
	}
	if err := t.checkCount(call, "outputs", len(bindings), t.disp.outputCount()); err != nil {
		return err
	}
	for i, b := range bindings {
		field := fmt.Sprintf("bindings[%d]", i)
		if b == nil {
			continue
		}
		bb, ok := b.(*BufferBinding)
		if !ok {
			return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field, Rule: "an output must be a DML_BINDING_TYPE_BUFFER binding"}
		}
		if bb == nil {
			continue
		}
		var err error
		switch x := t.disp.(type) {
		case *CompiledOperator:
			td := x.op.outputs[i]
			if td == nil {
				err = hresult.InvalidArg(field, "the optional output is absent from the operator desc; bind nil")
			} else {
				err = checkBuffer(t.d, field, bb, td, 0, 0)
			}
		case *OperatorInitializer:
			err = checkBuffer(t.d, field, bb, nil, x.targets()[i].props.PersistentResourceSize, PersistentBufferAlignment)
		}
		if err != nil {
			return hresult.WithOp(call, err)
		}
	}
	areas := t.writableAreas(bindings)
	for i := range areas {
		for j := i + 1; j < len(areas); j++ {
			if areas[i].overlaps(areas[j]) {
				return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: fmt.Sprintf("bindings[%d]", areas[j].index),
					Rule: fmt.Sprintf("its writable area [%d,%d) overlaps that of bindings[%d] [%d,%d) in the same buffer", areas[j].lo, areas[j].hi, areas[i].index, areas[i].lo, areas[i].hi)}
			}
		}
	}
	t.outputs = copyBindings(bindings)
	return nil
}

// BindTemporaryResource binds the scratch buffer (nil when none is needed).
func (t *BindingTable) BindTemporaryResource(b *BufferBinding) error {
	const call = "IDMLBindingTable::BindTemporaryResource"
	leave, err := t.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if b != nil {
		need := t.disp.BindingProperties().TemporaryResourceSize
		if err := checkBuffer(t.d, "binding", b, nil, need, TemporaryBufferAlignment); err != nil {
			return hresult.WithOp(call, err)
		}
	}
	t.temporary = copyBuffer(b)
	return nil
}

// BindPersistentResource binds the operator's persistent resource (nil when
// none is needed).
func (t *BindingTable) BindPersistentResource(b *BufferBinding) error {
	const call = "IDMLBindingTable::BindPersistentResource"
	leave, err := t.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if b != nil {
		if _, ok := t.disp.(*OperatorInitializer); ok {
			return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Rule: "an initializer has no persistent resource; bind the operators' persistent resources as its outputs"}
		}
		need := t.disp.BindingProperties().PersistentResourceSize
		if err := checkBuffer(t.d, "binding", b, nil, need, PersistentBufferAlignment); err != nil {
			return hresult.WithOp(call, err)
		}
	}
	t.persistent = copyBuffer(b)
	return nil
}

// copyBindings copies what the caller bound, as DirectML copies bindings
// into its descriptor heap: a change to the caller's BufferBinding (or
// array) after the Bind call must not reach the table past its checks.
func copyBindings(bindings []Binding) []Binding {
	out := make([]Binding, len(bindings))
	for i, b := range bindings {
		switch x := b.(type) {
		case *BufferBinding:
			out[i] = copyBuffer(x)
		case BufferArrayBinding:
			out[i] = slices.Clone(x)
		default:
			out[i] = b
		}
	}
	return out
}

// copyBuffer copies one BufferBinding (nil stays nil).
func copyBuffer(b *BufferBinding) *BufferBinding {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// area is a byte range of one buffer.
type area struct {
	buf    *Resource
	lo, hi uint64
	index  int
}

func (a area) overlaps(b area) bool { return a.buf == b.buf && a.lo < b.hi && b.lo < a.hi }

// writableAreas are [Offset, Offset+TotalTensorSizeInBytes) of each bound
// output (for an initializer, the persistent resources' sizes).
func (t *BindingTable) writableAreas(bindings []Binding) []area {
	var out []area
	for i, b := range bindings {
		bb, _ := b.(*BufferBinding)
		if bb == nil || bb.Buffer == nil {
			continue
		}
		var size uint64
		switch x := t.disp.(type) {
		case *CompiledOperator:
			size = x.op.outputs[i].TotalTensorSizeInBytes
		case *OperatorInitializer:
			size = x.targets()[i].props.PersistentResourceSize
		}
		out = append(out, area{bb.Buffer, bb.Offset, bb.Offset + size, i})
	}
	return out
}
