package dml

import (
	"fmt"
	"sync"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// PrepareOptions configure Device.Prepare.
type PrepareOptions struct {
	// Kernel forces one of the operator's kernel strategies, as
	// CreateOperatorWithKernel does; "" lets the planner choose.
	Kernel string
	// Profiling records GPU timestamps around the dispatch
	// (CommandList.SetProfiling), for benchmarks.
	Profiling bool
	// StepProfiling also records a timestamp after each of the
	// operator's dispatches (CommandList.SetStepProfiling; it implies
	// Profiling), for benchmarks that time a plan's steps.
	StepProfiling bool
}

// Prepared is an operator made ready to run many times, as the C library,
// the Python package and benchmarks use one: created, compiled and
// initialized once, with a device buffer for each tensor, its temporary
// and persistent resources, and its dispatch recorded into a closed
// command list. A run writes the inputs, executes, waits and reads the
// outputs. Runs of one Prepared take turns; Prepared is safe for
// concurrent use.
type Prepared struct {
	d        *Device
	strategy string
	inputs   []*tensor.Desc
	outputs  []*tensor.Desc

	mu       sync.Mutex // runs share the buffers and the list
	released bool
	cop      *CompiledOperator
	inBufs   []*Resource
	outBufs  []*Resource
	owned    []*Resource
	list     *CommandList
}

// Prepare validates desc (as CreateOperator), compiles it, allocates its
// buffers (refusing with E_OUTOFMEMORY, before any is allocated, tensors
// that together exceed the device's memory), runs its initializer and
// records its dispatch.
func (d *Device) Prepare(desc OperatorDesc, opts PrepareOptions) (_ *Prepared, err error) {
	op, err := d.CreateOperatorWithKernel(desc, opts.Kernel)
	if err != nil {
		return nil, err
	}
	p := &Prepared{d: d, strategy: op.Strategy(), inputs: tensor.CloneDescs(desc.Inputs()),
		outputs: tensor.CloneDescs(desc.Outputs())}
	defer func() {
		if err != nil {
			p.release()
		}
	}()
	if p.cop, err = d.CompileOperator(op, ExecutionFlagNone); err != nil {
		return nil, err
	}
	if err := d.checkFits("Prepare("+desc.OperatorType()+")", p.cop, false); err != nil {
		return nil, err
	}
	props := p.cop.BindingProperties()
	persistent, err := p.buffer(props.PersistentResourceSize)
	if err != nil {
		return nil, err
	}
	temporary, err := p.buffer(props.TemporaryResourceSize)
	if err != nil {
		return nil, err
	}
	if err := p.initialize(persistent); err != nil {
		return nil, timedOut("Prepare("+desc.OperatorType()+")", "", "the initializer", err)
	}
	return p, p.record(persistent, temporary, opts)
}

// record binds every buffer and records the dispatch into a closed list.
func (p *Prepared) record(persistent, temporary *BufferBinding, opts PrepareOptions) error {
	d := p.d
	execIn, err := p.tensorBuffers(p.inputs, &p.inBufs)
	if err != nil {
		return err
	}
	execOut, err := p.tensorBuffers(p.outputs, &p.outBufs)
	if err != nil {
		return err
	}
	table, err := d.CreateBindingTable(p.cop)
	if err != nil {
		return err
	}
	if p.list, err = d.CreateCommandList(); err != nil {
		return err
	}
	p.list.SetProfiling(opts.Profiling)
	if opts.StepProfiling {
		p.list.SetStepProfiling(true)
	}
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		return err
	}
	for _, step := range []func() error{
		func() error { return table.BindInputs(execIn...) },
		func() error { return table.BindOutputs(execOut...) },
		func() error { return table.BindTemporaryResource(temporary) },
		func() error { return table.BindPersistentResource(persistent) },
		func() error { return rec.RecordDispatch(p.list, p.cop, table) },
		p.list.Close,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// buffer allocates a device buffer of size bytes, or returns nil for 0.
func (p *Prepared) buffer(size uint64) (*BufferBinding, error) {
	return p.d.ownedBuffer(&p.owned, size)
}

// tensorBuffers allocates one buffer per present tensor, recording them in
// *bufs, and returns the bindings (nil for an absent tensor).
func (p *Prepared) tensorBuffers(descs []*tensor.Desc, bufs *[]*Resource) ([]Binding, error) {
	bindings := make([]Binding, len(descs))
	*bufs = make([]*Resource, len(descs))
	for i, td := range descs {
		if td == nil {
			continue
		}
		b, err := p.buffer(td.TotalTensorSizeInBytes)
		if err != nil {
			return nil, err
		}
		bindings[i], (*bufs)[i] = b, b.Buffer
	}
	return bindings, nil
}

// initialize runs the operator's initializer once (DirectML requires it
// before the first execution); inputs are bound at every run, so it binds
// only the persistent resource.
func (p *Prepared) initialize(persistent *BufferBinding) error {
	d := p.d
	init, err := d.CreateOperatorInitializer(p.cop)
	if err != nil {
		return err
	}
	table, err := d.CreateBindingTable(init)
	if err != nil {
		return err
	}
	if persistent != nil {
		if err := table.BindOutputs(persistent); err != nil {
			return err
		}
	}
	list, rec, err := d.newRecording()
	if err != nil {
		return err
	}
	defer list.Release()
	for _, step := range []func() error{
		func() error { return rec.RecordDispatch(list, init, table) },
		list.Close, list.Execute, list.Wait,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Strategy names the kernel strategy the planner chose (or was forced to).
func (p *Prepared) Strategy() string { return p.strategy }

// Inputs and Outputs are the operator's tensors, in the desc's order (nil
// for an absent optional one).
func (p *Prepared) Inputs() []*tensor.Desc  { return p.inputs }
func (p *Prepared) Outputs() []*tensor.Desc { return p.outputs }

// InputBuffer and OutputBuffer are the device buffers the recorded
// dispatch reads and writes (nil for an absent tensor), for callers that
// fill or read them directly.
func (p *Prepared) InputBuffer(i int) *Resource  { return p.inBufs[i] }
func (p *Prepared) OutputBuffer(i int) *Resource { return p.outBufs[i] }

// List is the closed command list that runs the operator, for callers
// that execute it themselves (benchmarks reading its timestamps). Runs
// through it must not overlap Run.
func (p *Prepared) List() *CommandList { return p.list }

// Run writes inputs[i] to the operator's input buffers, executes, waits,
// and reads its outputs into outputs[i] (nil for an absent tensor; each
// slice at least the tensor's SpanBytes, as CheckHost says). Semantics
// rule 6: only the bytes of an output's elements change. A strided
// output's host bytes are uploaded first, so its gaps come back as they
// were; a packed output reads back only its elements, so the spare bytes
// of a host buffer larger than them keep their contents. A wait that times
// out (each is bounded, five minutes by default) fails the run, naming what timed out, and keeps
// the buffers; the next run first waits for the unfinished one.
func (p *Prepared) Run(inputs, outputs [][]byte) error {
	call := "Run(" + p.cop.op.kind + ")"
	if err := CheckHost(call, "inputs", p.inputs, inputs); err != nil {
		return err
	}
	if err := CheckHost(call, "outputs", p.outputs, outputs); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "Prepared", Rule: "was released"}
	}
	// A run whose wait timed out left the list pending: the GPU may still
	// read the buffers this run would write, so wait for it first (bounded
	// like every wait). Without this, no later run could execute the list.
	if p.list.isPending() {
		if err := p.list.Wait(); err != nil {
			return timedOut(call, "", "the wait for the previous run's execution", err)
		}
	}
	for i, b := range inputs {
		if b != nil {
			if err := p.inBufs[i].Write(0, b[:min(uint64(len(b)), p.inputs[i].TotalTensorSizeInBytes)]); err != nil {
				return timedOut(call, fmt.Sprintf("inputs[%d]", i), "the upload", err)
			}
		}
	}
	for i, b := range outputs {
		if b != nil && !p.outputs[i].IsPacked() {
			if err := p.outBufs[i].Write(0, b[:min(uint64(len(b)), p.outputs[i].TotalTensorSizeInBytes)]); err != nil {
				return timedOut(call, fmt.Sprintf("outputs[%d]", i), "the upload", err)
			}
		}
	}
	if err := p.list.Execute(); err != nil {
		return err
	}
	if err := p.list.Wait(); err != nil {
		return timedOut(call, "", "the execution", err)
	}
	for i, b := range outputs {
		if b != nil {
			if err := p.outBufs[i].Read(0, b[:readBackBytes(p.outputs[i], len(b))]); err != nil {
				return timedOut(call, fmt.Sprintf("outputs[%d]", i), "the readback", err)
			}
		}
	}
	return nil
}

// readBackBytes is how much of an output's host buffer (n bytes) a run
// writes: a packed tensor's elements are its first SpanBytes; a strided
// tensor's gaps were uploaded before the run and come back unchanged.
func readBackBytes(td *tensor.Desc, n int) uint64 {
	limit := td.TotalTensorSizeInBytes
	if td.IsPacked() {
		limit = td.SpanBytes()
	}
	return min(uint64(n), limit)
}

// CheckHost checks host buffers against an operator's tensors: one per
// tensor (nil exactly where the tensor is absent), each holding at least
// the tensor's SpanBytes. Errors are E_INVALIDARG naming what[i].
func CheckHost(call, what string, descs []*tensor.Desc, bufs [][]byte) error {
	invalid := func(field, format string, args ...any) error {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field, Rule: fmt.Sprintf(format, args...)}
	}
	if len(bufs) != len(descs) {
		return invalid(what[:len(what)-1]+"_count", "is %d; the operator has %d %s", len(bufs), len(descs), what)
	}
	for i, td := range descs {
		field := fmt.Sprintf("%s[%d]", what, i)
		switch {
		case td == nil && bufs[i] != nil:
			return invalid(field+".data", "must be NULL: the desc has no tensor here")
		case td != nil && bufs[i] == nil:
			return invalid(field+".data", "is NULL, but the desc has a tensor %v here", *td)
		case td == nil:
			continue
		}
		if need := td.SpanBytes(); uint64(len(bufs[i])) < need {
			return invalid(field+".size_in_bytes", "is %d, fewer than the %d bytes tensor %v addresses", len(bufs[i]), need, *td)
		}
	}
	return nil
}

// Release frees everything, after any run in progress; idempotent.
func (p *Prepared) Release() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release()
}

func (p *Prepared) release() {
	if p.released {
		return
	}
	p.released = true
	if p.list != nil {
		p.list.Release()
	}
	if p.cop != nil {
		p.cop.Release()
	}
	for _, r := range p.owned {
		r.Release()
	}
}
