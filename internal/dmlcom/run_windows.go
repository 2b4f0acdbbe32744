//go:build windows

package dmlcom

// One case through DirectML: create, compile and initialize the operator,
// lay its tensors out in one buffer, bind them, record and execute the
// command list, and read the outputs back.

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
)

// Run runs one case. A failed HRESULT becomes the outcome; only failures of
// the runner's own D3D12 plumbing are errors.
func (b *Device) Run(c *parity.Case, inputs [][]byte) (*parity.Outcome, error) {
	o, err := b.run(c, inputs)
	var he *hrError
	var se *sizeError
	switch {
	case errors.As(err, &he):
		o = &parity.Outcome{HR: he.hr, Stage: he.call, Message: he.Error()}
		err = nil
	case errors.As(err, &se):
		// As vkdml's side refuses outputs beyond the device or the host
		// (dml.Device.CheckFits) before filling them.
		o = &parity.Outcome{HR: hresult.E_OUTOFMEMORY, Stage: "Run", Message: se.Error()}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	// A removed device fails every later case: note it and start afresh.
	if r := hresult.HRESULT(uint32(call(b.dev, devGetDeviceRemovedReason))); r.Failed() {
		if !o.HR.Failed() {
			o = &parity.Outcome{HR: r, Stage: "GetDeviceRemovedReason", Message: "the device was removed while running this case"}
		}
		b.closeDevices()
		if err := b.open(); err != nil {
			return nil, fmt.Errorf("reopening the device after removal: %w", err)
		}
	}
	return o, nil
}

// run runs one case; the first failed call ends it with its error.
func (b *Device) run(c *parity.Case, inputs [][]byte) (*parity.Outcome, error) {
	r := &caseRun{b: b, c: c}
	defer r.release()
	if err := r.createOperator(); err != nil {
		return nil, err
	}
	if err := r.layOut(inputs); err != nil {
		return nil, err
	}
	if err := r.createBuffers(); err != nil {
		return nil, err
	}
	if err := r.upload(inputs); err != nil {
		return nil, err
	}
	if err := r.createBindingTables(); err != nil {
		return nil, err
	}
	list, err := r.record()
	if err != nil {
		return nil, err
	}
	if err := r.executeAndWait(list); err != nil {
		return nil, err
	}
	return r.readBack()
}

// caseRun is one case on the device: the C descs and bindings DirectML
// reads (kept alive until release), the COM objects it created (released
// in reverse order of creation) and where each tensor lies in the buffer.
type caseRun struct {
	b    *Device
	c    *parity.Case
	d    descs
	held []com

	op, compiled, initializer com // IDMLOperator, IDMLCompiledOperator, IDMLOperatorInitializer
	execProps, initProps      bindingProperties

	layout                        arenaLayout
	arena, uploadBuf, readbackBuf com // ID3D12Resource: default, upload and readback heaps

	heap                 com // the backend's shader-visible ID3D12DescriptorHeap
	initTable, execTable com // IDMLBindingTable
	inBind, outBind      []bindingDesc
}

// hold records o for release and returns it.
func (r *caseRun) hold(o com) com {
	r.held = append(r.held, o)
	return o
}

// release releases the COM objects of the case, the last created first,
// and only then lets its descs go.
func (r *caseRun) release() {
	for i := len(r.held) - 1; i >= 0; i-- {
		release(r.held[i])
	}
	r.held = nil
	runtime.KeepAlive(r.inBind)
	runtime.KeepAlive(r.outBind)
	runtime.KeepAlive(&r.d)
}

// createOperator creates the operator of the case, compiles it, creates its
// initializer and reads the binding properties of both.
func (r *caseRun) createOperator() error {
	opDesc, err := r.d.operator(r.c)
	if err != nil {
		return err
	}
	var op, cop, init unsafe.Pointer
	hr := call(r.b.dml, dmlCreateOperator, uintptr(unsafe.Pointer(opDesc)), uintptr(unsafe.Pointer(&iidDMLOperator)), uintptr(unsafe.Pointer(&op)))
	runtime.KeepAlive(&r.d)
	if err := check(hr, "CreateOperator"); err != nil {
		return err
	}
	r.op = r.hold(com(op))
	if err := check(call(r.b.dml, dmlCompileOperator, uintptr(op), 0, uintptr(unsafe.Pointer(&iidDMLCompiledOperator)), uintptr(unsafe.Pointer(&cop))), "CompileOperator"); err != nil {
		return err
	}
	r.compiled = r.hold(com(cop))
	if err := check(call(r.b.dml, dmlCreateOperatorInitializer, 1, uintptr(unsafe.Pointer(&cop)), uintptr(unsafe.Pointer(&iidDMLOperatorInitializer)), uintptr(unsafe.Pointer(&init))), "CreateOperatorInitializer"); err != nil {
		return err
	}
	r.initializer = r.hold(com(init))
	call(r.compiled, dispatchableGetBindingProperties, uintptr(unsafe.Pointer(&r.execProps)))
	call(r.initializer, dispatchableGetBindingProperties, uintptr(unsafe.Pointer(&r.initProps)))
	return nil
}

// layOut places the inputs, the outputs and the resources the operator
// and its initializer ask for, refusing (E_OUTOFMEMORY, naming the
// tensor) a layout beyond one host-mapped buffer before anything is
// allocated.
func (r *caseRun) layOut(inputs [][]byte) error {
	outs := r.c.OutputTensors()
	sizes := make([]uint64, len(outs))
	for i, t := range outs {
		sizes[i] = t.TotalTensorSizeInBytes
	}
	l, err := layOutArena(inputs, sizes, max(r.execProps.temporarySize, r.initProps.temporarySize), r.execProps.persistentSize)
	if err != nil {
		return err
	}
	r.layout = *l
	return nil
}

// createBuffers creates the buffer the operator runs on and the upload and
// readback buffers of its size.
func (r *caseRun) createBuffers() error {
	total := r.layout.total
	arena, err := r.b.buffer(heapTypeDefault, total, stateCopyDest, resourceFlagAllowUAV)
	if err != nil {
		return err
	}
	r.arena = r.hold(arena)
	uploadBuf, err := r.b.buffer(heapTypeUpload, total, stateGenericRead, 0)
	if err != nil {
		return err
	}
	r.uploadBuf = r.hold(uploadBuf)
	readbackBuf, err := r.b.buffer(heapTypeReadback, total, stateCopyDest, 0)
	if err != nil {
		return err
	}
	r.readbackBuf = r.hold(readbackBuf)
	return nil
}

// upload writes the inputs and the outputs' fill into the upload buffer.
func (r *caseRun) upload(inputs [][]byte) error {
	up, err := mapBuffer(r.uploadBuf, r.layout.total)
	if err != nil {
		return err
	}
	for i, in := range inputs {
		copy(up[r.layout.ins[i]:], in)
	}
	// Each output starts filled with parity.OutputFill, written in place:
	// no host copy of an output is made.
	for i, t := range r.c.OutputTensors() {
		fill(up[r.layout.outs[i]:r.layout.outs[i]+t.TotalTensorSizeInBytes], parity.OutputFill)
	}
	call(r.uploadBuf, resUnmap, 0, 0)
	return nil
}

// arenaBinding is a DML_BINDING_DESC of size bytes at off in the buffer.
func (r *caseRun) arenaBinding(off, size uint64) *bindingDesc {
	bb := &bufferBinding{buffer: unsafe.Pointer(r.arena), offset: off, size: size}
	bd := &bindingDesc{typ: dmlBindingBuffer, desc: unsafe.Pointer(bb)}
	r.d.keep = append(r.d.keep, bb, bd)
	return bd
}

// createBindingTables takes descriptors from the backend's heap, the
// initializer's first and then the operator's, and binds both. Cases run
// one at a time, each waiting for the GPU, so every case reuses the start
// of the one heap.
func (r *caseRun) createBindingTables() error {
	nInit, nExec := max(r.initProps.requiredDescriptorCount, 1), max(r.execProps.requiredDescriptorCount, 1)
	if err := r.b.ensureHeap(nInit + nExec); err != nil {
		return err
	}
	r.heap = r.b.heap
	cpu, gpu, inc := r.b.heapCPU, r.b.heapGPU, r.b.heapInc
	if err := r.bindInitializer(bindingTableDesc{dispatchable: unsafe.Pointer(r.initializer), cpu: cpu, gpu: gpu, size: nInit}); err != nil {
		return err
	}
	return r.bindOperator(bindingTableDesc{dispatchable: unsafe.Pointer(r.compiled), cpu: cpu + uint64(nInit)*inc, gpu: gpu + uint64(nInit)*inc, size: nExec})
}

// bindInitializer creates the initializer's binding table: its temporary
// resource, and the operator's persistent resource as its output.
func (r *caseRun) bindInitializer(itd bindingTableDesc) error {
	var table unsafe.Pointer
	if err := check(call(r.b.dml, dmlCreateBindingTable, uintptr(unsafe.Pointer(&itd)), uintptr(unsafe.Pointer(&iidDMLBindingTable)), uintptr(unsafe.Pointer(&table))), "CreateBindingTable (initializer)"); err != nil {
		return err
	}
	r.initTable = r.hold(com(table))
	if r.initProps.temporarySize > 0 {
		call(r.initTable, tableBindTemporary, uintptr(unsafe.Pointer(r.arenaBinding(r.layout.temp, r.initProps.temporarySize))))
	}
	if r.execProps.persistentSize > 0 {
		call(r.initTable, tableBindOutputs, 1, uintptr(unsafe.Pointer(r.arenaBinding(r.layout.persistent, r.execProps.persistentSize))))
	}
	return nil
}

// bindOperator creates the operator's binding table: input, outputs (every
// output slot, the unused ones bound to nothing), temporary and persistent
// resources.
func (r *caseRun) bindOperator(etd bindingTableDesc) error {
	var table unsafe.Pointer
	if err := check(call(r.b.dml, dmlCreateBindingTable, uintptr(unsafe.Pointer(&etd)), uintptr(unsafe.Pointer(&iidDMLBindingTable)), uintptr(unsafe.Pointer(&table))), "CreateBindingTable (operator)"); err != nil {
		return err
	}
	r.execTable = r.hold(com(table))
	r.inBind = make([]bindingDesc, len(r.layout.ins))
	for i, t := range r.c.InputTensors() {
		r.inBind[i] = *r.arenaBinding(r.layout.ins[i], t.TotalTensorSizeInBytes)
	}
	call(r.execTable, tableBindInputs, uintptr(len(r.inBind)), uintptr(unsafe.Pointer(&r.inBind[0])))
	r.outBind = make([]bindingDesc, outputSlots(r.c))
	for i, t := range r.c.OutputTensors() {
		r.outBind[i] = *r.arenaBinding(r.layout.outs[i], t.TotalTensorSizeInBytes)
	}
	call(r.execTable, tableBindOutputs, uintptr(len(r.outBind)), uintptr(unsafe.Pointer(&r.outBind[0])))
	if r.execProps.temporarySize > 0 {
		call(r.execTable, tableBindTemporary, uintptr(unsafe.Pointer(r.arenaBinding(r.layout.temp, r.execProps.temporarySize))))
	}
	if r.execProps.persistentSize > 0 {
		call(r.execTable, tableBindPersistent, uintptr(unsafe.Pointer(r.arenaBinding(r.layout.persistent, r.execProps.persistentSize))))
	}
	return nil
}

// record creates and closes a command list that uploads the buffer,
// initializes and executes the operator, and copies the buffer to the
// readback buffer.
func (r *caseRun) record() (com, error) {
	var alloc, list unsafe.Pointer
	if err := check(call(r.b.dev, devCreateCommandAllocator, listTypeDirect, uintptr(unsafe.Pointer(&iidD3D12CommandAllocator)), uintptr(unsafe.Pointer(&alloc))), "ID3D12Device::CreateCommandAllocator"); err != nil {
		return nil, err
	}
	r.hold(com(alloc))
	if err := check(call(r.b.dev, devCreateCommandList, 0, listTypeDirect, uintptr(alloc), 0, uintptr(unsafe.Pointer(&iidD3D12GraphicsCommandList)), uintptr(unsafe.Pointer(&list))), "ID3D12Device::CreateCommandList"); err != nil {
		return nil, err
	}
	l := r.hold(com(list))
	transition := func(before, after uint32) {
		br := resourceBarrier{typ: barrierTransition, resource: unsafe.Pointer(r.arena), subresource: 0xffffffff, stateBefore: before, stateAfter: after}
		call(l, listResourceBarrier, 1, uintptr(unsafe.Pointer(&br)))
	}
	uavBarrier := func() {
		br := resourceBarrier{typ: barrierUAV, resource: unsafe.Pointer(r.arena)}
		call(l, listResourceBarrier, 1, uintptr(unsafe.Pointer(&br)))
	}
	total := uintptr(r.layout.total)
	call(l, listCopyBufferRegion, uintptr(r.arena), 0, uintptr(r.uploadBuf), 0, total)
	transition(stateCopyDest, stateUnorderedAcess)
	heaps := []unsafe.Pointer{unsafe.Pointer(r.heap)}
	call(l, listSetDescriptorHeaps, 1, uintptr(unsafe.Pointer(&heaps[0])))
	call(r.b.recorder, recorderRecordDispatch, uintptr(list), uintptr(r.initializer), uintptr(r.initTable))
	uavBarrier()
	call(r.b.recorder, recorderRecordDispatch, uintptr(list), uintptr(r.compiled), uintptr(r.execTable))
	uavBarrier()
	transition(stateUnorderedAcess, stateCopySource)
	call(l, listCopyBufferRegion, uintptr(r.readbackBuf), 0, uintptr(r.arena), 0, total)
	if err := check(call(l, listClose), "ID3D12GraphicsCommandList::Close"); err != nil {
		return nil, err
	}
	return l, nil
}

// executeAndWait executes list on the queue, waits for it, and fails if
// DirectML removed its device meanwhile.
func (r *caseRun) executeAndWait(list com) error {
	b := r.b
	lists := []unsafe.Pointer{unsafe.Pointer(list)}
	call(b.queue, queueExecuteCommandLists, 1, uintptr(unsafe.Pointer(&lists[0])))
	b.fenceValue++
	if err := check(call(b.queue, queueSignal, uintptr(b.fence), uintptr(b.fenceValue)), "ID3D12CommandQueue::Signal"); err != nil {
		return err
	}
	if err := b.waitForFence(60 * time.Second); err != nil {
		return err
	}
	return check(call(b.dml, dmlGetDeviceRemovedReason), "IDMLDevice::GetDeviceRemovedReason")
}

// waitForFence waits until the fence reaches b.fenceValue, the device is
// removed, or timeout passes.
func (b *Device) waitForFence(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for uint64(call(b.fence, fenceGetCompletedValue)) < b.fenceValue {
		if r := hresult.HRESULT(uint32(call(b.dev, devGetDeviceRemovedReason))); r.Failed() {
			return &hrError{r, "waiting for the GPU"}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the GPU did not finish within %d s", int(timeout/time.Second))
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// readBack copies the outputs out of the readback buffer into the outcome.
func (r *caseRun) readBack() (*parity.Outcome, error) {
	back, err := mapBuffer(r.readbackBuf, r.layout.total)
	if err != nil {
		return nil, err
	}
	o := &parity.Outcome{HR: hresult.S_OK}
	for i, t := range r.c.OutputTensors() {
		o.Outputs = append(o.Outputs, append([]byte(nil), back[r.layout.outs[i]:r.layout.outs[i]+t.TotalTensorSizeInBytes]...))
	}
	call(r.readbackBuf, resUnmap, 0, 0)
	return o, nil
}
