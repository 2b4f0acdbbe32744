package main

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// device is what a vkdml_device handle refers to.
type device struct {
	dev *dml.Device
	mu  sync.Mutex
	// live counts the operators being created or alive on the device
	// (one-shot vkdml_run operators included), so that the device cannot
	// be closed under them; closed is set once it is.
	live   int
	closed bool
	// runs caches vkdml_run's operators by desc; they count in live.
	runs runCache
}

// acquire registers one more operator on d, unless d is closed.
func (d *device) acquire(call string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return invalidArg(call, "device", "was destroyed")
	}
	d.live++
	return nil
}

func (d *device) releaseOne() {
	d.mu.Lock()
	d.live--
	d.mu.Unlock()
}

// preparedOp is what a vkdml_operator handle refers to: a compiled,
// initialized operator with one device buffer per tensor, its bindings and
// a closed command list that runs it, recorded once.
type preparedOp struct {
	dev     *device
	kind    string
	inputs  []*tensor.Desc
	outputs []*tensor.Desc

	// mu serializes runs: they share the buffers and the command list.
	mu       sync.Mutex
	released bool
	cop      *dml.CompiledOperator
	inBufs   []*dml.Resource
	outBufs  []*dml.Resource
	owned    []*dml.Resource // every resource, for release
	list     *dml.CommandList
}

// prepare validates, compiles and initializes desc on d.
func prepare(call string, d *device, desc ops.Desc) (_ *preparedOp, err error) {
	if err := d.acquire(call); err != nil {
		return nil, err
	}
	p := &preparedOp{dev: d, kind: desc.OperatorType(), inputs: tensor.CloneDescs(desc.Inputs()), outputs: tensor.CloneDescs(desc.Outputs())}
	defer func() {
		if err != nil {
			p.release()
		}
	}()
	op, err := d.dev.CreateOperator(desc)
	if err != nil {
		return nil, err
	}
	if p.cop, err = d.dev.CompileOperator(op, dml.ExecutionFlagNone); err != nil {
		return nil, err
	}
	props := p.cop.BindingProperties()
	if err := p.checkFits(call, props); err != nil {
		return nil, err
	}
	persistent, err := p.buffer(props.PersistentResourceSize)
	if err != nil {
		return nil, err
	}
	temporary, err := p.buffer(props.TemporaryResourceSize)
	if err != nil {
		return nil, err
	}
	if err := p.initialize(persistent); err != nil {
		return nil, err
	}
	execIn, err := p.tensorBuffers(p.inputs, &p.inBufs)
	if err != nil {
		return nil, err
	}
	execOut, err := p.tensorBuffers(p.outputs, &p.outBufs)
	if err != nil {
		return nil, err
	}
	table, err := d.dev.CreateBindingTable(p.cop)
	if err != nil {
		return nil, err
	}
	if err := table.BindInputs(execIn...); err != nil {
		return nil, err
	}
	if err := table.BindOutputs(execOut...); err != nil {
		return nil, err
	}
	if err := table.BindTemporaryResource(temporary); err != nil {
		return nil, err
	}
	if err := table.BindPersistentResource(persistent); err != nil {
		return nil, err
	}
	if p.list, err = d.dev.CreateCommandList(); err != nil {
		return nil, err
	}
	rec, err := d.dev.CreateCommandRecorder()
	if err != nil {
		return nil, err
	}
	if err := rec.RecordDispatch(p.list, p.cop, table); err != nil {
		return nil, err
	}
	return p, p.list.Close()
}

// checkFits refuses, with E_OUTOFMEMORY naming the largest tensor, an
// operator whose buffers together exceed the device's largest
// device-local heap, before any is allocated: each buffer alone may pass
// CreateBuffer's check while their sum could only fail part-way, or drive
// a CPU driver (lavapipe's heap is host memory) into the kernel's OOM
// killer.
func (p *preparedOp) checkFits(call string, props dml.BindingProperties) error {
	heap := largestDeviceHeap(p.dev.dev)
	if heap == 0 {
		return nil
	}
	total := saturatingAdd(props.PersistentResourceSize, props.TemporaryResourceSize)
	field, largest := "", uint64(0)
	for _, group := range []struct {
		name  string
		descs []*tensor.Desc
	}{{"InputTensor", p.inputs}, {"OutputTensor", p.outputs}} {
		for i, td := range group.descs {
			if td == nil {
				continue
			}
			total = saturatingAdd(total, td.TotalTensorSizeInBytes)
			if td.TotalTensorSizeInBytes > largest {
				field, largest = fmt.Sprintf("%s[%d]", group.name, i), td.TotalTensorSizeInBytes
			}
		}
	}
	if total <= heap {
		return nil
	}
	return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: field,
		Rule: fmt.Sprintf("the operator's tensors and resources need %d bytes of device memory (this one %d); the device's largest heap has %d", total, largest, heap)}
}

// largestDeviceHeap is the size of the device's largest device-local
// memory heap, or 0 when it reports none.
func largestDeviceHeap(d *dml.Device) uint64 {
	info := d.GPU().Info
	if info == nil {
		return 0
	}
	var best uint64
	for _, t := range info.MemoryTypes {
		if t.Flags&gpu.MemoryDeviceLocal != 0 && t.HeapSize > best {
			best = t.HeapSize
		}
	}
	return best
}

func saturatingAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// buffer allocates a device buffer of size bytes, or returns nil for 0.
func (p *preparedOp) buffer(size uint64) (*dml.BufferBinding, error) {
	if size == 0 {
		return nil, nil
	}
	r, err := p.dev.dev.CreateBuffer(size)
	if err != nil {
		return nil, err
	}
	p.owned = append(p.owned, r)
	return dml.WholeBuffer(r), nil
}

// tensorBuffers allocates one buffer per present tensor, recording them in
// *bufs, and returns the bindings (nil for an absent tensor).
func (p *preparedOp) tensorBuffers(descs []*tensor.Desc, bufs *[]*dml.Resource) ([]dml.Binding, error) {
	bindings := make([]dml.Binding, len(descs))
	*bufs = make([]*dml.Resource, len(descs))
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
// before the first execution); libvkdml has no owned inputs, so it binds
// only the persistent resource.
func (p *preparedOp) initialize(persistent *dml.BufferBinding) error {
	d := p.dev.dev
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
	list, err := d.CreateCommandList()
	if err != nil {
		return err
	}
	defer list.Release()
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		return err
	}
	if err := rec.RecordDispatch(list, init, table); err != nil {
		return err
	}
	if err := list.Close(); err != nil {
		return err
	}
	if err := list.Execute(); err != nil {
		return err
	}
	return list.Wait()
}

// releaseLocked is release under the operator's lock, for an operator
// another thread may still be running.
func (p *preparedOp) releaseLocked() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release()
}

// release frees everything; the operator must not be running (mu held or
// never shared).
func (p *preparedOp) release() {
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
	p.dev.releaseOne()
}

// hostBuffer is one vkdml_buffer, as a Go slice over C memory (nil for an
// absent tensor). It is used only during the call that received it.
type hostBuffer []byte

// checkHost checks the host buffers against the operator's tensors.
func checkHost(call, what string, descs []*tensor.Desc, bufs []hostBuffer) error {
	if len(bufs) != len(descs) {
		return invalidArg(call, strings.TrimSuffix(what, "s")+"_count", "is %d; the operator has %d %s", len(bufs), len(descs), what)
	}
	for i, td := range descs {
		field := fmt.Sprintf("%s[%d]", what, i)
		switch {
		case td == nil && bufs[i] != nil:
			return invalidArg(call, field+".data", "must be NULL: the desc has no tensor here")
		case td != nil && bufs[i] == nil:
			return invalidArg(call, field+".data", "is NULL, but the desc has a tensor %s here", describe(td))
		case td == nil:
			continue
		}
		if need := minimumBytes(td); uint64(len(bufs[i])) < need {
			return invalidArg(call, field+".size_in_bytes", "is %d, fewer than the %d bytes tensor %s addresses", len(bufs[i]), need, describe(td))
		}
	}
	return nil
}

// run uploads the inputs, executes and reads the outputs back.
func (p *preparedOp) run(ins, outs []hostBuffer) error {
	call := "vkdml_operator_run(" + p.kind + ")"
	if err := checkHost(call, "inputs", p.inputs, ins); err != nil {
		return err
	}
	if err := checkHost(call, "outputs", p.outputs, outs); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return invalidArg(call, "op", "was destroyed")
	}
	for i, b := range ins {
		if b != nil {
			if err := p.inBufs[i].Write(0, b[:min(uint64(len(b)), p.inputs[i].TotalTensorSizeInBytes)]); err != nil {
				return err
			}
		}
	}
	for i, b := range outs {
		// A strided output may skip bytes; they must come back unchanged.
		if b != nil && !p.outputs[i].IsPacked() {
			if err := p.outBufs[i].Write(0, b[:min(uint64(len(b)), p.outputs[i].TotalTensorSizeInBytes)]); err != nil {
				return err
			}
		}
	}
	if err := p.list.Execute(); err != nil {
		return err
	}
	if err := p.list.Wait(); err != nil {
		return err
	}
	for i, b := range outs {
		if b != nil {
			if err := p.outBufs[i].Read(0, b[:readBackBytes(p.outputs[i], len(b))]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readBackBytes is how much of an output's host buffer (n bytes) a run
// writes. Semantics rule 6: bytes no element occupies keep their contents.
// A packed tensor's elements are its first minimumBytes, so nothing past
// them is copied back (the device buffer's spare bytes, up to
// TotalTensorSizeInBytes, hold no caller data). A strided tensor's gaps
// were uploaded before the run and come back unchanged.
func readBackBytes(td *tensor.Desc, n int) uint64 {
	limit := td.TotalTensorSizeInBytes
	if td.IsPacked() {
		limit = minimumBytes(td)
	}
	return min(uint64(n), limit)
}

// featureLevels answers vkdml_device_feature_levels.
func (d *device) featureLevels(requested []uint32) (uint32, error) {
	levels := make([]dml.FeatureLevel, len(requested))
	for i, l := range requested {
		levels[i] = dml.FeatureLevel(l)
	}
	best, err := d.dev.FeatureLevels(levels)
	return uint32(best), err
}

// close closes the device unless operators remain (those vkdml_run cached
// are released first).
func (d *device) close(call string) error {
	d.runs.clear()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return invalidArg(call, "device", "was destroyed")
	}
	if d.live > 0 {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "device",
			Rule: fmt.Sprintf("%d operators created on it still exist; destroy them first", d.live)}
	}
	d.closed = true
	return d.dev.Close()
}
