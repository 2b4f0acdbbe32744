package dml

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
)

// CommandList is the counterpart of a D3D12 compute command list: it is
// created open, records dispatches and barriers, is closed, executed, and
// can be executed again without re-recording once the previous execution
// has been waited for. It is not safe for concurrent use, but a misuse from
// two goroutines is refused rather than sent to the GPU: a second Execute
// of a pending list returns an error wrapping ErrPending.
type CommandList struct {
	d *Device
	l *gpu.CommandList

	mu       sync.Mutex // serializes the list's state changes
	open     bool
	pending  bool
	released bool
	profile  bool
	// profileSteps: operators recorded while it is set take a timestamp
	// after each of their plan's dispatches too (SetStepProfiling).
	profileSteps bool
	// marks are the timestamp indices of each recorded dispatchable: its
	// start, then its end, or with profileSteps an operator's end of each
	// dispatch (the last of which is its end).
	marks [][]int
	// executedMarks are the marks of the recording last executed: the
	// timestamps the host layer returns are that execution's, and the list
	// may have been reset and recorded again since.
	executedMarks [][]int
	// What the recorded commands use, checked again at Execute: a resource
	// or operator released since recording must never reach the GPU.
	resources []*Resource
	operators []*CompiledOperator
}

// CreateCommandList returns an open, empty list.
func (d *Device) CreateCommandList() (*CommandList, error) {
	const call = "CreateCommandList"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	l, err := d.gpu.NewCommandList()
	if err != nil {
		return nil, d.wrap(call, err)
	}
	cl := &CommandList{d: d, l: l}
	if err := cl.reset(call); err != nil {
		l.Destroy()
		return nil, err
	}
	return cl, nil
}

// use guards a call on l and locks it: l must come from CreateCommandList,
// be unreleased, and its device open (and not lost unless anyLost). The
// returned function unlocks.
func (l *CommandList) use(call string, anyLost bool) (func(), error) {
	if l == nil || l.d == nil || l.l == nil {
		return nop, lifeErr(call, "commandList", "is nil or a zero value; use CreateCommandList", ErrNotCreated)
	}
	enter := l.d.enter
	if anyLost {
		enter = l.d.enterAny
	}
	leave, err := enter(call)
	if err != nil {
		return nop, err
	}
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		leave()
		return nop, lifeErr(call, "commandList", "was released", ErrReleased)
	}
	return func() { l.mu.Unlock(); leave() }, nil
}

// SetProfiling makes later RecordDispatch calls record GPU timestamps around
// each dispatchable; DispatchTimes reads them after execution. It does
// nothing on a released list.
func (l *CommandList) SetProfiling(on bool) {
	leave, err := l.use("CommandList.SetProfiling", true)
	if err != nil {
		return
	}
	defer leave()
	l.profile = on
	if !on {
		l.profileSteps = false
	}
}

// SetStepProfiling makes later RecordDispatch calls of operators also
// record a GPU timestamp after each of the operator's dispatches (the
// steps of its plan, as `vkdml plan` lists them); StepTimes reads them
// after execution. On, it turns profiling on too (SetProfiling); off, it
// leaves profiling as it is. The extra timestamps are what lets a step's
// time be told apart, and may cost a GPU a little overlap between
// dispatches. It does nothing on a released list.
func (l *CommandList) SetStepProfiling(on bool) {
	leave, err := l.use("CommandList.SetStepProfiling", true)
	if err != nil {
		return
	}
	defer leave()
	l.profileSteps = on
	if on {
		l.profile = true
	}
}

// Reset discards what was recorded and opens the list again. A pending
// list must be waited for first.
func (l *CommandList) Reset() error {
	const call = "CommandList.Reset"
	leave, err := l.use(call, false)
	if err != nil {
		return err
	}
	defer leave()
	return l.reset(call)
}

func (l *CommandList) reset(call string) error {
	if l.pending {
		return lifeErr(call, "commandList", "is still executing; Wait for it first", ErrPending)
	}
	if err := l.l.Begin(); err != nil {
		return l.d.wrap(call, err)
	}
	l.open, l.marks, l.resources, l.operators = true, nil, nil, nil
	return nil
}

func (l *CommandList) mustBeOpen(call string) error {
	if !l.open {
		return &hresult.Error{Code: hresult.E_FAIL, Op: call, Rule: "the command list is closed; Reset it to record again"}
	}
	return nil
}

// useOpen is use for a call that records: the list must also be open.
func (l *CommandList) useOpen(call string) (func(), error) {
	leave, err := l.use(call, false)
	return guardThen(leave, err, func() error { return l.mustBeOpen(call) })
}

// ResourceBarrierUAV orders every earlier dispatch's writes before every
// later dispatch (a UAV barrier on all resources). DirectML's RecordDispatch
// inserts none: put one between dispatches where one reads what another
// wrote.
func (l *CommandList) ResourceBarrierUAV() error {
	const call = "CommandList.ResourceBarrierUAV"
	leave, err := l.useOpen(call)
	if err != nil {
		return err
	}
	defer leave()
	return l.d.wrap(call, l.l.Barrier())
}

// Close ends recording.
func (l *CommandList) Close() error {
	const call = "CommandList.Close"
	leave, err := l.useOpen(call)
	if err != nil {
		return err
	}
	defer leave()
	if err := l.l.End(); err != nil {
		return l.d.wrap(call, err)
	}
	l.open = false
	return nil
}

// Execute submits the closed list to the device's queue. It is refused
// while an earlier execution has not been waited for, and when a resource
// or compiled operator the list recorded has been released since.
func (l *CommandList) Execute() error {
	const call = "ExecuteCommandLists"
	leave, err := l.use(call, false)
	if err != nil {
		return err
	}
	defer leave()
	if l.open {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Rule: "the command list is still open; Close it first"}
	}
	if l.pending {
		return lifeErr(call, "commandList", "is still executing: Wait for it before executing it again", ErrPending)
	}
	for _, r := range l.resources {
		if r.released.Load() {
			return lifeErr(call, "commandList", "a resource it recorded was released since; record the list again", ErrReleased)
		}
	}
	for _, c := range l.operators {
		if c.released.Load() {
			return lifeErr(call, "commandList", fmt.Sprintf("the compiled operator (%s) it recorded was released since; record the list again", c.op.kind), ErrReleased)
		}
	}
	if err := l.l.Submit(); err != nil {
		return l.d.wrap(call, err)
	}
	l.pending, l.executedMarks = true, l.marks
	return nil
}

// Wait blocks until the last execution has completed (it returns at once
// when none is pending).
func (l *CommandList) Wait() error {
	const call = "CommandList.Wait"
	leave, err := l.use(call, true)
	if err != nil {
		return err
	}
	defer leave()
	err = l.l.Wait()
	// The host layer keeps a list that timed out pending, and refuses to
	// submit it again; only a completed wait clears dml's own flag.
	if err == nil || !errors.Is(err, gpu.ErrDeviceLost) && !isTimeout(err) {
		l.pending = false
	}
	return l.d.wrap(call, err)
}

// isPending reports whether an execution has not been waited for (a Wait
// that timed out leaves it so).
func (l *CommandList) isPending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// DispatchTimes returns the GPU time of each dispatchable recorded while
// profiling was on, from the last completed execution (none before an
// execution has completed).
func (l *CommandList) DispatchTimes() ([]time.Duration, error) {
	steps, err := l.executedTimes("CommandList.DispatchTimes")
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(steps))
	for i, st := range steps {
		for _, t := range st {
			out[i] += t
		}
	}
	return out, nil
}

// StepTimes returns, for each dispatchable recorded while profiling was
// on, the GPU time of each of its dispatches where step profiling was on
// when an operator was recorded (its plan's steps, in order, none for a
// plan of none: each from the end of the one before, so a step's barrier
// counts in its time), else one time, the whole dispatchable's (an
// initializer's always); from the last completed execution (none before
// an execution has completed).
func (l *CommandList) StepTimes() ([][]time.Duration, error) {
	return l.executedTimes("CommandList.StepTimes")
}

// executedTimes is the times between consecutive marks of each
// dispatchable of the last completed execution.
func (l *CommandList) executedTimes(call string) ([][]time.Duration, error) {
	leave, err := l.use(call, true)
	if err != nil {
		return nil, err
	}
	defer leave()
	ts, err := l.l.Timestamps()
	if err != nil {
		return nil, l.d.wrap(call, err)
	}
	var out [][]time.Duration
	for _, m := range l.executedMarks {
		st := make([]time.Duration, 0, len(m)-1)
		for i := 1; i < len(m); i++ {
			if m[i-1] < 0 || m[i] < 0 || m[i] >= len(ts) {
				return nil, &hresult.Error{Code: hresult.DXGI_ERROR_UNSUPPORTED, Op: call, Rule: "the device has no timestamps on its compute queue"}
			}
			st = append(st, time.Duration(ts[m[i]]-ts[m[i-1]]))
		}
		out = append(out, st)
	}
	return out, nil
}

// Release frees the list without waiting: a pending execution keeps the
// list's Vulkan objects, and what it uses, until it is seen to complete.
// Release is idempotent and does nothing after the device was closed;
// later calls on l return an error wrapping ErrReleased.
func (l *CommandList) Release() {
	if l == nil || l.d == nil || l.l == nil {
		return
	}
	leave, err := l.d.enterAny("CommandList.Release")
	if err != nil {
		l.mu.Lock()
		l.released = true
		l.mu.Unlock()
		return
	}
	defer leave()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return
	}
	l.released = true
	l.l.Destroy()
}

// CommandRecorder is IDMLCommandRecorder. It is stateless and safe for
// concurrent use.
type CommandRecorder struct{ d *Device }

// CreateCommandRecorder returns a recorder.
func (d *Device) CreateCommandRecorder() (*CommandRecorder, error) {
	leave, err := d.enter("CreateCommandRecorder")
	if err != nil {
		return nil, err
	}
	defer leave()
	return &CommandRecorder{d: d}, nil
}

// newRecording is a new command list and a recorder for the calls that
// record and run work of their own; the caller releases the list.
func (d *Device) newRecording() (*CommandList, *CommandRecorder, error) {
	list, err := d.CreateCommandList()
	if err != nil {
		return nil, nil, err
	}
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		list.Release()
		return nil, nil, err
	}
	return list, rec, nil
}

// RecordDispatch records disp with the bindings in table into list. Like
// DirectML's, it inserts no barrier before or after; unlike DirectML's, it
// returns an error where DirectML would remove the device. The table may be
// reset or reused as soon as this returns.
func (r *CommandRecorder) RecordDispatch(list *CommandList, disp Dispatchable, table *BindingTable) error {
	const call = "IDMLCommandRecorder::RecordDispatch"
	if list == nil || disp == nil || table == nil {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Rule: "command list, dispatchable and binding table must not be nil"}
	}
	if r == nil || r.d == nil {
		return lifeErr(call, "recorder", "is nil or a zero value; use CreateCommandRecorder", ErrNotCreated)
	}
	if table.d == nil {
		return lifeErr(call, "bindingTable", "is a zero value; use CreateBindingTable", ErrNotCreated)
	}
	if list.d != nil && list.d != r.d || table.d != r.d {
		return lifeErr(call, "", "command list, binding table and recorder must belong to one device", ErrForeignDevice)
	}
	leave, err := list.use(call, false)
	if err != nil {
		return err
	}
	defer leave()
	if err := list.mustBeOpen(call); err != nil {
		return err
	}
	if err := checkDispatchable(r.d, call, "dispatchable", disp); err != nil {
		return err
	}
	if table.disp != disp {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "bindingTable", Rule: "was created or reset for another dispatchable"}
	}
	if err := checkBound(table); err != nil {
		return hresult.WithOp(call, err)
	}
	var mark []int // the timestamps' indices (profiling)
	if list.profile {
		i, err := list.l.Timestamp()
		if err != nil {
			return r.d.wrap(call, err)
		}
		mark = []int{i}
	}
	stepped := false // step profiling: the dispatches' marks end the operator
	switch x := disp.(type) {
	case *CompiledOperator:
		var steps *[]int
		if list.profileSteps { // (SetStepProfiling set profile too; SetProfiling(false) clears both)
			steps, stepped = &mark, true
		}
		err = r.recordOperator(list, x, table, steps)
	case *OperatorInitializer:
		err = r.recordInitializer(list, x, table)
	default:
		err = hresult.InvalidArg("dispatchable", "%T is not a vkdml dispatchable", disp)
	}
	if err != nil {
		return hresult.WithOp(call, r.d.wrap(call, err))
	}
	list.remember(disp, table)
	if list.profile {
		// The end, where no step's timestamp ends the dispatchable (an
		// operator of no dispatches, step profiled, has its start alone:
		// no step times, 0 in all).
		if !stepped {
			end, err := list.l.Timestamp()
			if err != nil {
				return r.d.wrap(call, err)
			}
			mark = append(mark, end)
		}
		list.marks = append(list.marks, mark)
	}
	return nil
}

func (r *CommandRecorder) recordInitializer(list *CommandList, in *OperatorInitializer, t *BindingTable) error {
	targets := in.targets()
	// The outputs (persistent resources) must be bound where a target has
	// one; the inputs where a target has DML_TENSOR_FLAG_OWNED_BY_DML
	// inputs to copy into it (a plan's own persistent range, such as a
	// split's ticket, needs none).
	needsOutputs, needsInputs := false, false
	for _, c := range targets {
		needsOutputs = needsOutputs || c.props.PersistentResourceSize > 0
		for _, o := range c.owned {
			needsInputs = needsInputs || o >= 0
		}
	}
	if needsInputs && (t.inputs == nil || t.outputs == nil) {
		return hresult.InvalidArg("bindings", "the initializer's inputs and outputs must be bound (its targets have DML_TENSOR_FLAG_OWNED_BY_DML inputs)")
	}
	if needsOutputs && t.outputs == nil {
		return hresult.InvalidArg("bindings", "the initializer's outputs must be bound (its targets have persistent resources)")
	}
	if err := t.checkInitializerBindings(targets); err != nil {
		return err
	}
	// Claim every target before recording anything, atomically per
	// target, so that two goroutines initializing one operator cannot both
	// pass; a failure below gives the claims back.
	claimed := 0
	defer func() {
		if claimed >= 0 {
			for _, c := range targets[:claimed] {
				c.initialized.Store(false)
			}
		}
	}()
	for i, c := range targets {
		if !c.initialized.CompareAndSwap(false, true) {
			return hresult.InvalidArg(fmt.Sprintf("operators[%d]", i), "is already initialized: an operator must be initialized exactly once")
		}
		claimed = i + 1
	}
	for i, c := range targets {
		if c.props.PersistentResourceSize == 0 {
			continue
		}
		out, _ := t.outputs[i].(*BufferBinding)
		if out == nil {
			return hresult.InvalidArg(fmt.Sprintf("outputs[%d]", i), "operator %d needs a persistent resource of %d bytes bound here", i, c.props.PersistentResourceSize)
		}
		// The plan's own range (a split's ticket, ops.argTicketBytes)
		// starts at 0: its kernels expect it zero before the first
		// execution, and keep it so after each.
		if n := (c.op.plan.PersistentSize + 3) &^ 3; n > 0 {
			if err := list.l.Fill(gpu.Range{Buffer: out.Buffer.buf, Offset: out.Offset, Size: n}, 0); err != nil {
				return err
			}
		}
		var arr BufferArrayBinding
		if t.inputs != nil {
			arr, _ = t.inputs[i].(BufferArrayBinding)
		}
		for j, o := range c.owned {
			if o < 0 {
				continue
			}
			if arr == nil {
				return hresult.InvalidArg(fmt.Sprintf("inputs[%d]", i), "operator %d's DML_TENSOR_FLAG_OWNED_BY_DML inputs must be bound", i)
			}
			src, size := arr[j], c.op.inputs[j].TotalTensorSizeInBytes
			if src.Buffer == out.Buffer && src.Offset < out.Offset+out.SizeInBytes && out.Offset < src.Offset+size {
				return hresult.InvalidArg(fmt.Sprintf("inputs[%d][%d]", i, j), "aliases the persistent resource it initializes")
			}
			err := list.l.Copy(gpu.Range{Buffer: out.Buffer.buf, Offset: out.Offset + uint64(o), Size: size},
				gpu.Range{Buffer: src.Buffer.buf, Offset: src.Offset, Size: size})
			if err != nil {
				return err
			}
		}
	}
	claimed = -1 // keep the claims: the initialization is recorded
	return nil
}

// recordOperator records c's plan; with steps, a timestamp after each
// dispatch, its index appended to *steps.
func (r *CommandRecorder) recordOperator(list *CommandList, c *CompiledOperator, t *BindingTable, steps *[]int) error {
	if !c.initialized.Load() {
		return hresult.InvalidArg("dispatchable", "the %s operator has not been initialized: record an OperatorInitializer for it first", c.op.kind)
	}
	op := c.op
	if t.inputs == nil && len(op.inputs) > 0 {
		return hresult.InvalidArg("inputs", "not bound (BindInputs)")
	}
	if t.outputs == nil && len(op.outputs) > 0 {
		return hresult.InvalidArg("outputs", "not bound (BindOutputs)")
	}
	ins := make([]*BufferBinding, len(op.inputs))
	for i, td := range op.inputs {
		ins[i], _ = t.inputs[i].(*BufferBinding)
		if td != nil && c.owned[i] < 0 && ins[i] == nil {
			return hresult.InvalidArg(fmt.Sprintf("inputs[%d]", i), "the operator's input tensor %d is not bound", i)
		}
	}
	outs := make([]*BufferBinding, len(op.outputs))
	for i, td := range op.outputs {
		outs[i], _ = t.outputs[i].(*BufferBinding)
		if td != nil && outs[i] == nil {
			return hresult.InvalidArg(fmt.Sprintf("outputs[%d]", i), "the operator's output tensor %d is not bound", i)
		}
	}
	props := c.props
	if props.TemporaryResourceSize > 0 && t.temporary == nil {
		return hresult.InvalidArg("temporary", "the operator needs a temporary resource of %d bytes (BindTemporaryResource)", props.TemporaryResourceSize)
	}
	if props.PersistentResourceSize > 0 && t.persistent == nil {
		return hresult.InvalidArg("persistent", "the operator needs its persistent resource of %d bytes (BindPersistentResource)", props.PersistentResourceSize)
	}
	if err := checkHazards(c, ins, outs, t); err != nil {
		return err
	}

	var err error
	for i, s := range op.plan.Steps {
		if s.Barrier && i > 0 {
			if err := list.l.Barrier(); err != nil {
				return err
			}
		}
		ranges := make([]gpu.Range, len(s.Bindings))
		for j, sl := range s.Bindings {
			ranges[j] = resolve(c, sl, ins, outs, t)
		}
		if s.Indirect != nil {
			err = list.l.DispatchIndirect(c.kernels[s.Kernel], ranges, s.Params, resolve(c, *s.Indirect, ins, outs, t))
		} else {
			err = list.l.Dispatch(c.kernels[s.Kernel], ranges, s.Params, s.Groups)
		}
		if err != nil {
			return err
		}
		if steps != nil {
			ts, err := list.l.Timestamp()
			if err != nil {
				return fmt.Errorf("step profiling, after dispatch %d of the plan's %d: %w", i+1, len(op.plan.Steps), err)
			}
			*steps = append(*steps, ts)
		}
	}
	return nil
}

// resolve turns a plan slot into a byte range of a GPU buffer.
func resolve(c *CompiledOperator, sl ops.Slot, ins, outs []*BufferBinding, t *BindingTable) gpu.Range {
	var b *BufferBinding
	var base, total uint64
	switch sl.Kind {
	case ops.SlotInput:
		if o := c.owned[sl.Index]; o >= 0 {
			b, base = t.persistent, uint64(o)
		} else {
			b = ins[sl.Index]
		}
		total = c.op.inputs[sl.Index].TotalTensorSizeInBytes
	case ops.SlotOutput:
		b, total = outs[sl.Index], c.op.outputs[sl.Index].TotalTensorSizeInBytes
	case ops.SlotTemporary:
		b, total = t.temporary, c.props.TemporaryResourceSize
	case ops.SlotPersistent:
		b, total = t.persistent, c.op.plan.PersistentSize
	case ops.SlotTable:
		// The device's own buffer, bound whole from its start: the
		// kernels index a table from there, and ops.CheckPlan refuses a
		// table slot with an offset or a part of the table.
		tab := ops.Table(sl.Index)
		return gpu.Range{Buffer: c.tables[tab], Size: tab.Size()}
	}
	size := sl.Size
	if size == 0 {
		size = total - sl.Offset
	}
	return gpu.Range{Buffer: b.Buffer.buf, Offset: b.Offset + base + sl.Offset, Size: size}
}

// checkHazards applies DirectML's binding hazard rules: an input never
// overlaps an output (vkdml's operators do not run in place), the temporary
// resource overlaps nothing, and the persistent resource overlaps no output.
func checkHazards(c *CompiledOperator, ins, outs []*BufferBinding, t *BindingTable) error {
	var inAreas, outAreas []area
	for i, b := range ins {
		if b != nil {
			inAreas = append(inAreas, area{b.Buffer, b.Offset, b.Offset + c.op.inputs[i].TotalTensorSizeInBytes, i})
		}
	}
	for i, b := range outs {
		if b != nil {
			outAreas = append(outAreas, area{b.Buffer, b.Offset, b.Offset + c.op.outputs[i].TotalTensorSizeInBytes, i})
		}
	}
	for _, in := range inAreas {
		for _, out := range outAreas {
			if in.overlaps(out) {
				return hresult.InvalidArg(fmt.Sprintf("inputs[%d]", in.index), "bytes [%d,%d) overlap outputs[%d] [%d,%d): %s does not run in place", in.lo, in.hi, out.index, out.lo, out.hi, c.op.kind)
			}
		}
	}
	var temp, pers *area
	if b := t.temporary; b != nil && c.props.TemporaryResourceSize > 0 {
		temp = &area{b.Buffer, b.Offset, b.Offset + c.props.TemporaryResourceSize, 0}
	}
	if b := t.persistent; b != nil && c.props.PersistentResourceSize > 0 {
		pers = &area{b.Buffer, b.Offset, b.Offset + c.props.PersistentResourceSize, 0}
	}
	if temp != nil {
		for _, a := range append(append([]area(nil), inAreas...), outAreas...) {
			if temp.overlaps(a) {
				return hresult.InvalidArg("temporary", "bytes [%d,%d) overlap a bound input or output [%d,%d)", temp.lo, temp.hi, a.lo, a.hi)
			}
		}
		if pers != nil && temp.overlaps(*pers) {
			return hresult.InvalidArg("temporary", "overlaps the persistent resource")
		}
	}
	if pers != nil {
		for _, a := range outAreas {
			if pers.overlaps(a) {
				return hresult.InvalidArg("persistent", "bytes [%d,%d) overlap outputs[%d]", pers.lo, pers.hi, a.index)
			}
		}
	}
	return nil
}

// checkBound refuses a recording whose table binds a resource released
// since it was bound.
func checkBound(t *BindingTable) error {
	var err error
	t.eachResource(func(field string, r *Resource) {
		if err == nil && r.released.Load() {
			err = lifeErr("", field, "was released after it was bound", ErrReleased)
		}
	})
	return err
}

// eachResource calls f for every resource t binds, with its binding name.
func (t *BindingTable) eachResource(f func(field string, r *Resource)) {
	visit := func(kind string, list []Binding) {
		for i, b := range list {
			switch x := b.(type) {
			case *BufferBinding:
				if x != nil && x.Buffer != nil {
					f(fmt.Sprintf("%s[%d].Buffer", kind, i), x.Buffer)
				}
			case BufferArrayBinding:
				for j := range x {
					if x[j].Buffer != nil {
						f(fmt.Sprintf("%s[%d][%d].Buffer", kind, i, j), x[j].Buffer)
					}
				}
			}
		}
	}
	visit("inputs", t.inputs)
	visit("outputs", t.outputs)
	if t.temporary != nil && t.temporary.Buffer != nil {
		f("temporary.Buffer", t.temporary.Buffer)
	}
	if t.persistent != nil && t.persistent.Buffer != nil {
		f("persistent.Buffer", t.persistent.Buffer)
	}
}

// remember notes what a recorded dispatch uses, for Execute's checks.
func (l *CommandList) remember(disp Dispatchable, t *BindingTable) {
	t.eachResource(func(_ string, r *Resource) { l.resources = append(l.resources, r) })
	switch x := disp.(type) {
	case *CompiledOperator:
		l.operators = append(l.operators, x)
	case *OperatorInitializer:
		l.operators = append(l.operators, x.targets()...)
	}
}

// isTimeout reports whether err is the host layer's wait timeout.
func isTimeout(err error) bool { return errors.Is(err, gpu.ErrTimeout) }

// checkInitializerBindings applies the bind-time rules again to an
// initializer's bindings: the initializer may have been Reset to other
// operators since they were bound.
func (t *BindingTable) checkInitializerBindings(targets []*CompiledOperator) error {
	for _, b := range []struct {
		what string
		list []Binding
	}{{"inputs", t.inputs}, {"outputs", t.outputs}} {
		if b.list != nil && len(b.list) != len(targets) {
			return hresult.InvalidArg(b.what, "%d bindings for an initializer of %d operators: it was Reset since; bind again", len(b.list), len(targets))
		}
	}
	for i, c := range targets {
		if t.inputs != nil {
			if err := t.checkInitializerInput(fmt.Sprintf("inputs[%d]", i), c, t.inputs[i]); err != nil {
				return err
			}
		}
		if t.outputs == nil {
			continue
		}
		if out, _ := t.outputs[i].(*BufferBinding); out != nil {
			if err := checkBuffer(t.d, fmt.Sprintf("outputs[%d]", i), out, nil, c.props.PersistentResourceSize, PersistentBufferAlignment); err != nil {
				return err
			}
		}
	}
	return nil
}
