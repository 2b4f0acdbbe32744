package dml

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/lru"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// Run executes desc once on host tensors: it creates, compiles and
// initializes the operator, uploads the inputs and the outputs' current
// bytes (so that bytes the output strides do not address keep their
// values), records, executes, waits, and reads the outputs back into
// outputs[i].Data. inputs and outputs follow desc.Inputs() and
// desc.Outputs(); nil stands for an absent optional tensor.
//
// The compiled operator is cached by its desc (see
// DeviceOptions.ComputeCacheSize), so that running one desc again skips
// validation and pipeline creation. An operator with a persistent resource
// (a GPU plan whose combine draws a ticket there) keeps it in the cache,
// initialized by its first run; concurrent runs of such a desc take turns.
func (d *Device) Run(desc OperatorDesc, inputs, outputs []*tensor.Tensor) error {
	p, err := d.prepare("Run", desc)
	if err != nil {
		return err
	}
	defer p.done()
	return p.run("Run("+p.cop.op.kind+")", inputs, outputs)
}

// Compute is Run with fresh zeroed outputs shaped as desc says. The desc is
// validated, and the outputs' sizes compared with what the host and the
// device can hold (E_OUTOFMEMORY), before anything is allocated.
func (d *Device) Compute(desc OperatorDesc, inputs ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	p, err := d.prepare("Compute", desc)
	if err != nil {
		return nil, err
	}
	defer p.done()
	call := "Compute(" + p.cop.op.kind + ")"
	if err := checkHost("inputs", p.cop.op.inputs, inputs); err != nil {
		return nil, hresult.WithOp(call, err)
	}
	if err := d.checkFits(call, p.cop, true); err != nil {
		return nil, err
	}
	outs := make([]*tensor.Tensor, len(p.cop.op.outputs))
	for i, td := range p.cop.op.outputs {
		if td != nil {
			outs[i] = &tensor.Tensor{Desc: td.Clone(), Data: make([]byte, td.TotalTensorSizeInBytes)}
		}
	}
	return outs, p.run(call, inputs, outs)
}

// prepared is a compiled operator ready for one Run: from the cache, or
// compiled for this call (and then initialized by it).
type prepared struct {
	d          *Device
	cop        *CompiledOperator
	initialize bool
	// persistent is the cached operator's persistent resource, bound
	// instead of a fresh one; nil for a fresh one (or none).
	persistent *BufferBinding
	// recorded is set once the run recorded an initializer or submitted
	// work: a failure after it leaves the persistent resource unknown.
	recorded bool
	entry    *lru.Entry[*cachedOperator] // nil when compiled for this call
}

// run runs the operator on host tensors (runCompiled). For a cached
// operator with a persistent resource, a success marks it initialized, and
// a failure after recording evicts the entry: its ticket may be left drawn.
func (p *prepared) run(call string, inputs, outputs []*tensor.Tensor) error {
	err := p.d.runCompiled(call, p, inputs, outputs)
	if p.persistent == nil {
		return err
	}
	c := p.entry.Value
	switch {
	case err == nil:
		c.ready = true
	case p.recorded:
		c.broken = true
		p.d.cache.Evict(p.entry)
	}
	return err
}

// done ends the call's use of the operator.
func (p *prepared) done() {
	if p.entry == nil {
		p.cop.Release()
		return
	}
	if p.persistent != nil {
		p.entry.Value.runs.Unlock()
	}
	p.d.cache.Done(p.entry)
}

// prepare validates and compiles desc, or takes it from the cache; call
// is "Run" or "Compute". A cached operator with a persistent resource is
// returned holding the entry's turn (cachedOperator.runs).
func (d *Device) prepare(call string, desc OperatorDesc) (*prepared, error) {
	if isNil(desc) {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "desc", Rule: "must not be nil"}
	}
	leave, err := d.enter(call + "(" + desc.OperatorType() + ")")
	if err != nil {
		return nil, err
	}
	leave() // each call below guards itself; this one only keeps nil, zero and closed devices away from the cache
	key, cacheable := cacheKey(desc)
	cacheable = cacheable && d.cache.Limit() > 0
	if cacheable {
		for {
			e := d.cache.Acquire(key)
			if e == nil {
				break
			}
			if p := d.cached(e); p != nil {
				return p, nil
			}
		}
	}
	op, err := d.CreateOperator(desc)
	if err != nil {
		return nil, err
	}
	cop, err := d.CompileOperator(op, ExecutionFlagNone)
	if err != nil {
		return nil, err
	}
	if !cacheable || slices.ContainsFunc(cop.owned, func(o int64) bool { return o >= 0 }) {
		return &prepared{d: d, cop: cop, initialize: true}, nil
	}
	c := &cachedOperator{cop: cop}
	if size := cop.props.PersistentResourceSize; size > 0 {
		if c.persistent, err = d.CreateBuffer(size); err != nil {
			cop.Release()
			return nil, err
		}
	} else {
		// Initializing such an operator records no command (nothing to
		// copy), so it is initialized here, once, for every later user.
		cop.initialized.Store(true)
	}
	if p := d.cached(d.cache.Add(key, c)); p != nil {
		return p, nil
	}
	return d.prepare(call, desc) // another call's entry won the Add, and broke
}

// cached is the prepared run of cache entry e, which the caller acquired:
// for an operator with a persistent resource, once it is this call's turn.
// It is nil, e given back, when the run before left e broken.
func (d *Device) cached(e *lru.Entry[*cachedOperator]) *prepared {
	c := e.Value
	p := &prepared{d: d, cop: c.cop, entry: e}
	if c.persistent == nil {
		return p
	}
	c.runs.Lock()
	if c.broken {
		c.runs.Unlock()
		d.cache.Done(e)
		return nil
	}
	p.persistent = WholeBuffer(c.persistent)
	p.initialize = !c.ready
	return p
}

// CheckFits refuses, with E_OUTOFMEMORY naming the tensor and the limit,
// an operator whose tensors exceed the largest buffer the device can
// allocate or together its memory, or whose outputs exceed the host's
// memory: the checks Compute makes before it allocates outputs, for a
// caller that allocates an operator's host tensors itself (vkdml parity
// fills each output before the run).
func (d *Device) CheckFits(op *Operator) error {
	call := "CheckFits"
	if op == nil {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "op", Rule: "must not be nil"}
	}
	call += "(" + op.kind + ")"
	leave, err := d.enter(call)
	if err != nil {
		return err
	}
	defer leave()
	return d.checkTensorsFit(call, op, 0, true)
}

// checkFits refuses, with E_OUTOFMEMORY, tensors larger than the host
// (when host outputs are to be allocated) or the device can hold, before
// anything is allocated.
func (d *Device) checkFits(call string, c *CompiledOperator, hostOutputs bool) error {
	resources := c.props.TemporaryResourceSize + c.props.PersistentResourceSize
	if resources < c.props.TemporaryResourceSize {
		resources = math.MaxUint64
	}
	return d.checkTensorsFit(call, c.op, resources, hostOutputs)
}

// checkTensorsFit is checkFits for op's tensors and resources bytes of
// temporary and persistent resources.
func (d *Device) checkTensorsFit(call string, op *Operator, resources uint64, hostOutputs bool) error {
	var hostBytes, deviceBytes uint64
	add := func(sum *uint64, n uint64) {
		if *sum+n < *sum {
			*sum = math.MaxUint64
		} else {
			*sum += n
		}
	}
	limit := d.maxBuffer()
	check := func(field string, n uint64) error {
		if limit != 0 && n > limit {
			return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: field,
				Rule: fmt.Sprintf("%d bytes exceed the largest buffer the device can allocate (%d bytes)", n, limit)}
		}
		add(&deviceBytes, n)
		return nil
	}
	for i, td := range op.inputs {
		if td != nil {
			if err := check(fmt.Sprintf("inputs[%d].TotalTensorSizeInBytes", i), td.TotalTensorSizeInBytes); err != nil {
				return err
			}
		}
	}
	for i, td := range op.outputs {
		if td != nil {
			if err := check(fmt.Sprintf("outputs[%d].TotalTensorSizeInBytes", i), td.TotalTensorSizeInBytes); err != nil {
				return err
			}
			add(&hostBytes, td.TotalTensorSizeInBytes)
		}
	}
	add(&deviceBytes, resources)
	if heap := d.deviceMemory(); heap != 0 && deviceBytes > heap {
		return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: "desc",
			Rule: fmt.Sprintf("the operator's tensors and resources need %d bytes of device memory; the device has %d", deviceBytes, heap)}
	}
	if !hostOutputs {
		return nil
	}
	if hostBytes > math.MaxInt/2 {
		return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: "outputs",
			Rule: fmt.Sprintf("the outputs need %d bytes of host memory, more than a Go slice can hold", hostBytes)}
	}
	if ram := hostMemory(); ram != 0 && hostBytes > ram {
		return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: "outputs",
			Rule: fmt.Sprintf("the outputs need %d bytes of host memory; the machine has %d", hostBytes, ram)}
	}
	return nil
}

// maxBuffer is the largest buffer the device allocates: its largest
// device-local heap, since a buffer may span several allocations
// (DeviceOptions.MaxAllocation); where the device reports no such heap,
// the smaller of maxMemoryAllocationSize and maxBufferSize; 0 when it
// reports none of them.
func (d *Device) maxBuffer() uint64 {
	if m := d.deviceMemory(); m != 0 {
		return m
	}
	limit := d.gpu.Limits.MaxMemoryAllocationSize
	if b := d.gpu.Limits.MaxBufferSize; b != 0 && (limit == 0 || b < limit) {
		limit = b
	}
	return limit
}

// deviceMemory is the size of the largest device-local heap, or 0 when
// the device reports none.
func (d *Device) deviceMemory() uint64 {
	var best uint64
	if d.gpu.Info == nil {
		return 0
	}
	for _, t := range d.gpu.Info.MemoryTypes {
		if t.Flags&gpu.MemoryDeviceLocal != 0 && t.HeapSize > best {
			best = t.HeapSize
		}
	}
	return best
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
		if t.Desc.DataType != td.DataType || !slices.Equal(t.Desc.Sizes, td.Sizes) || !slices.Equal(t.Desc.EffectiveStrides(), td.EffectiveStrides()) {
			return hresult.InvalidArg(field, "host tensor %v does not match the desc's %v", t.Desc, *td)
		}
		if uint64(len(t.Data)) < td.TotalTensorSizeInBytes {
			return hresult.InvalidArg(field+".Data", "%d bytes, fewer than TotalTensorSizeInBytes %d", len(t.Data), td.TotalTensorSizeInBytes)
		}
	}
	return nil
}

// RunOperator is Run for an operator already created: it compiles the
// operator for this call alone (no cache).
func (d *Device) RunOperator(op *Operator, inputs, outputs []*tensor.Tensor) error {
	cop, err := d.CompileOperator(op, ExecutionFlagNone)
	if err != nil {
		return err
	}
	p := &prepared{d: d, cop: cop, initialize: true}
	defer p.done()
	return d.runCompiled("Run("+cop.op.kind+")", p, inputs, outputs)
}

// runScratch is the buffers one run allocates; release frees them.
type runScratch struct {
	d         *Device
	resources []*Resource
}

func (s *runScratch) release() {
	for _, r := range s.resources {
		r.Release()
	}
}

// upload copies the first size bytes of a host tensor into a new buffer.
// size is the operator's desc's TotalTensorSizeInBytes, which checkHost
// held Data to; the host tensor's own desc may declare another total.
// call and field name the tensor in a timeout.
func (s *runScratch) upload(call, field string, t *tensor.Tensor, size uint64) (*BufferBinding, error) {
	b, err := s.alloc(size)
	if err != nil {
		return nil, err
	}
	if err := b.Buffer.Write(0, t.Data[:size]); err != nil {
		return nil, timedOut(call, field, "the upload", err)
	}
	return b, nil
}

// alloc returns a new buffer of size bytes, or nil for 0.
func (s *runScratch) alloc(size uint64) (*BufferBinding, error) {
	return s.d.ownedBuffer(&s.resources, size)
}

// ownedBuffer creates a buffer of size bytes for a call that releases it
// itself, appending it to owned, and binds the whole of it; nil for 0.
func (d *Device) ownedBuffer(owned *[]*Resource, size uint64) (*BufferBinding, error) {
	if size == 0 {
		return nil, nil
	}
	r, err := d.CreateBuffer(size)
	if err != nil {
		return nil, err
	}
	*owned = append(*owned, r)
	return WholeBuffer(r), nil
}

// runCompiled runs p's operator once on host tensors, initializing it
// first when p.initialize is set, with p.persistent as its persistent
// resource (a fresh one when nil); call names the public call in errors.
//
// A wait that times out (gpu.SubmitTimeout) returns an error naming what
// timed out: a tensor's upload or readback, or the execution. Nothing the
// GPU may still use is freed then: the host layer keeps the buffers, the
// staging copies, the list and the pipelines a pending submission uses
// until a later call, WaitIdle or Close sees it finish.
func (d *Device) runCompiled(call string, p *prepared, inputs, outputs []*tensor.Tensor) error {
	cop, initialize := p.cop, p.initialize
	if err := checkHost("inputs", cop.op.inputs, inputs); err != nil {
		return hresult.WithOp(call, err)
	}
	if err := checkHost("outputs", cop.op.outputs, outputs); err != nil {
		return hresult.WithOp(call, err)
	}
	if err := d.checkFits(call, cop, false); err != nil {
		return err
	}
	s := &runScratch{d: d}
	defer s.release()
	b, err := s.bindHost(call, cop, p.persistent, inputs, outputs)
	if err != nil {
		return err
	}
	list, rec, err := d.newRecording()
	if err != nil {
		return err
	}
	defer list.Release()
	if initialize {
		p.recorded = true
		if err := recordInit(d, rec, list, cop, b.owned, b.initIn, b.persistent); err != nil {
			return err
		}
	}
	table, err := d.CreateBindingTable(cop)
	if err != nil {
		return err
	}
	err = errors.Join(table.BindInputs(b.execIn...), table.BindOutputs(b.execOut...),
		table.BindTemporaryResource(b.temporary), table.BindPersistentResource(b.persistent))
	if err != nil {
		return err
	}
	if err := rec.RecordDispatch(list, cop, table); err != nil {
		return err
	}
	if err := list.Close(); err != nil {
		return err
	}
	p.recorded = true
	if err := list.Execute(); err != nil {
		return err
	}
	if err := list.Wait(); err != nil {
		what := "the execution"
		if initialize {
			what = "the execution (initializer and dispatch)"
		}
		return timedOut(call, "", what, err)
	}
	for i, t := range outputs {
		if t != nil {
			if err := b.outBind[i].Buffer.Read(0, t.Data[:b.outBind[i].SizeInBytes]); err != nil {
				return timedOut(call, fmt.Sprintf("outputs[%d]", i), "the readback", err)
			}
		}
	}
	return nil
}

// timedOut returns err, when it is a wait that timed out, as call's error
// naming field (a tensor; "" for the whole dispatch) and what timed out,
// around the host layer's error, which says which wait and what it keeps.
// Any other error is returned unchanged.
func timedOut(call, field, what string, err error) error {
	if !isTimeout(err) {
		return err
	}
	var he *hresult.Error
	if errors.As(err, &he) && he.Err != nil {
		err = he.Err
	}
	return &hresult.Error{Code: hresult.E_FAIL, Op: call, Field: field, Rule: what + " timed out", Err: err}
}

// hostBindings are the buffers one run binds.
type hostBindings struct {
	execIn, execOut       []Binding
	initIn                BufferArrayBinding // OWNED_BY_DML inputs, bound at initialization
	owned                 bool               // initIn binds something
	outBind               []*BufferBinding
	temporary, persistent *BufferBinding
}

// bindHost uploads the host tensors (outputs too, so that bytes the output
// strides skip keep their values) and allocates the temporary resource,
// and the persistent one unless persistent is the cached operator's.
func (s *runScratch) bindHost(call string, cop *CompiledOperator, persistent *BufferBinding, inputs, outputs []*tensor.Tensor) (*hostBindings, error) {
	props := cop.BindingProperties()
	b := &hostBindings{execIn: make([]Binding, len(inputs)), initIn: make(BufferArrayBinding, len(inputs)),
		execOut: make([]Binding, len(outputs)), outBind: make([]*BufferBinding, len(outputs))}
	var err error
	if b.persistent = persistent; persistent == nil {
		if b.persistent, err = s.alloc(props.PersistentResourceSize); err != nil {
			return nil, err
		}
	}
	if b.temporary, err = s.alloc(props.TemporaryResourceSize); err != nil {
		return nil, err
	}
	err = s.uploadAll(call, "inputs", inputs, cop.op.inputs, func(i int, in *BufferBinding) {
		if cop.owned[i] >= 0 {
			b.initIn[i], b.owned = *in, true
		} else {
			b.execIn[i] = in
		}
	})
	if err != nil {
		return nil, err
	}
	err = s.uploadAll(call, "outputs", outputs, cop.op.outputs, func(i int, out *BufferBinding) {
		b.execOut[i], b.outBind[i] = out, out
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// uploadAll uploads each tensor of ts that is not nil (call's inputs or
// outputs, as what says, whose descs are descs) and hands bind its
// binding.
func (s *runScratch) uploadAll(call, what string, ts []*tensor.Tensor, descs []*tensor.Desc, bind func(i int, b *BufferBinding)) error {
	for i, t := range ts {
		if t == nil {
			continue
		}
		b, err := s.upload(call, fmt.Sprintf("%s[%d]", what, i), t, descs[i].TotalTensorSizeInBytes)
		if err != nil {
			return err
		}
		bind(i, b)
	}
	return nil
}

// recordInit records cop's initialization and a barrier after it.
func recordInit(d *Device, rec *CommandRecorder, list *CommandList, cop *CompiledOperator, owned bool, initIn BufferArrayBinding, persistent *BufferBinding) error {
	init, err := d.CreateOperatorInitializer(cop)
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
	return list.ResourceBarrierUAV()
}
