package dml

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/lru"
	"github.com/vkdml/vkdml/internal/panicerr"
	"github.com/vkdml/vkdml/internal/testhook"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// ExecutionFlags is DML_EXECUTION_FLAGS.
type ExecutionFlags uint32

const (
	// ExecutionFlagNone is DML_EXECUTION_FLAG_NONE.
	ExecutionFlagNone ExecutionFlags = 0
	// ExecutionFlagAllowHalfPrecisionComputation permits FLOAT16 math; vkdml's
	// operators compare values exactly and never need it, so it changes
	// nothing.
	ExecutionFlagAllowHalfPrecisionComputation ExecutionFlags = 0x1
	// ExecutionFlagDisableMetaCommands: vkdml has no meta commands, so every
	// operator already runs as compute shaders.
	ExecutionFlagDisableMetaCommands ExecutionFlags = 0x2
	// ExecutionFlagDescriptorsVolatile (late binding) is not supported:
	// vkdml writes descriptors at RecordDispatch.
	ExecutionFlagDescriptorsVolatile ExecutionFlags = 0x4
)

// BindingProperties is DML_BINDING_PROPERTIES.
type BindingProperties struct {
	RequiredDescriptorCount uint32 // descriptors a DirectML heap would need (vkdml manages its own)
	TemporaryResourceSize   uint64 // bytes of scratch to bind with BindTemporaryResource; 0 for none
	PersistentResourceSize  uint64 // bytes to bind with BindPersistentResource (and as the initializer's output); 0 for none
}

// Alignment of temporary and persistent bindings, and the minimum alignment
// of every tensor binding (DirectML's constants).
const (
	TemporaryBufferAlignment     = 256                                 // DML_TEMPORARY_BUFFER_ALIGNMENT
	PersistentBufferAlignment    = 256                                 // DML_PERSISTENT_BUFFER_ALIGNMENT
	MinimumBufferTensorAlignment = tensor.MinimumBufferTensorAlignment // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16)
)

// Dispatchable is IDMLDispatchable: a compiled operator or an initializer.
type Dispatchable interface {
	BindingProperties() BindingProperties
	// inputCount and outputCount are the binding counts BindInputs and
	// BindOutputs must match.
	inputCount() int
	outputCount() int
}

// Operator is IDMLOperator: a validated operator desc. It cannot be
// executed; compile it first.
type Operator struct {
	d       *Device
	desc    OperatorDesc
	kind    string
	plan    *Plan
	inputs  []*tensor.Desc // snapshots: later changes to the desc don't reach us
	outputs []*tensor.Desc
}

// CreateOperator validates desc completely (every DirectML rule, at the
// device's feature level) and returns the operator.
func (d *Device) CreateOperator(desc OperatorDesc) (*Operator, error) {
	return d.CreateOperatorWithKernel(desc, "")
}

// CreateOperatorWithKernel is CreateOperator with a forced kernel strategy,
// for benchmarks that compare variants; "" lets vkdml choose.
func (d *Device) CreateOperatorWithKernel(desc OperatorDesc, kernel string) (*Operator, error) {
	call := "CreateOperator"
	if isNil(desc) {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "desc", Rule: "must not be nil"}
	}
	call += "(" + desc.OperatorType() + ")"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	return d.createOperator(call, desc, kernel)
}

// createOperator is CreateOperatorWithKernel inside the device guard.
func (d *Device) createOperator(call string, desc OperatorDesc, kernel string) (*Operator, error) {
	ctx := d.context()
	ctx.Kernel = kernel
	plan, err := validateAndPlan(ctx, desc)
	if err != nil {
		return nil, d.wrap(call, err)
	}
	if l, ok := desc.(ops.Linter); ok {
		for _, m := range l.Lint() {
			d.debugf("[vkdml DEBUG] %s: %s", call, m)
		}
	}
	return &Operator{d: d, desc: desc, kind: desc.OperatorType(), plan: plan, inputs: tensor.CloneDescs(desc.Inputs()), outputs: tensor.CloneDescs(desc.Outputs())}, nil
}

// validateAndPlan validates desc on ctx and plans it, the plan checked
// against the device's rules: CreateOperator's work, and PlanOperator's.
// A panic in a validator or planner (a bug in vkdml) becomes an
// E_UNEXPECTED error, so that it does not take the caller's process down.
func validateAndPlan(ctx *PlanContext, desc OperatorDesc) (_ *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicerr.Error("", r)
		}
	}()
	if err := desc.Validate(ctx); err != nil {
		return nil, err
	}
	if testhook.BeforePlan != nil {
		testhook.BeforePlan(desc)
	}
	plan, err := desc.Plan(ctx)
	if err != nil {
		return nil, err
	}
	if err := ops.CheckPlan(ctx, desc, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// PlanContext is what operators are validated and planned against: a
// device's feature level, Features, limits and type, with an optional
// forced kernel, binding-window cap and Tuning. Device.Context gives an
// open device's; one filled from a device profile plans with no device
// open (PlanOperator).
type PlanContext = ops.Context

// Plan is how an operator runs on a device: the strategy the planner
// chose, its kernels (a shader variant with its specialization constants),
// its dispatches in order with the tensor windows each binds, and the sizes
// of its temporary and persistent resources.
type Plan = ops.Plan

// PlanOperator validates and plans desc for the device ctx describes (a
// profile's, with no device open), forcing kernel ("" lets vkdml
// choose), as CreateOperatorWithKernel would on that device: the same
// plan, or the same error. The plan is the caller's to read.
func PlanOperator(ctx *PlanContext, desc OperatorDesc, kernel string) (*Plan, error) {
	call := "CreateOperator"
	if isNil(desc) {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "desc", Rule: "must not be nil"}
	}
	call += "(" + desc.OperatorType() + ")"
	c := *ctx
	c.Kernel = kernel
	plan, err := validateAndPlan(&c, desc)
	if err != nil {
		return nil, wrapError(call, err)
	}
	return plan, nil
}

// Context is what the device validates and plans operators against: its
// feature level, features, limits, type and tuning (a copy).
func (d *Device) Context() *PlanContext {
	return d.context()
}

// Type is the operator's DirectML type name, e.g. "ARGMAX" ("" for a nil
// or zero Operator).
func (o *Operator) Type() string {
	if o == nil {
		return ""
	}
	return o.kind
}

// Desc returns the operator's desc.
func (o *Operator) Desc() OperatorDesc {
	if o == nil {
		return nil
	}
	return o.desc
}

// Strategy names the kernel shape the planner chose.
func (o *Operator) Strategy() string {
	if o == nil || o.plan == nil {
		return ""
	}
	return o.plan.Strategy
}

// CompiledOperator is IDMLCompiledOperator. It is safe for concurrent use.
type CompiledOperator struct {
	op      *Operator
	kernels []*gpu.Kernel
	// kernelUses are the device's kernel cache entries of kernels, ended
	// by release.
	kernelUses []*lru.Entry[*gpu.Kernel]
	props      BindingProperties
	// tables are the device's buffers of the tables the plan binds
	// (tables.go), indexed by ops.Table.
	tables map[ops.Table]*gpu.Buffer
	// owned[i] is the persistent-resource offset of input i when it is
	// DML_TENSOR_FLAG_OWNED_BY_DML (copied there at initialization), or -1.
	owned       []int64
	initialized atomic.Bool
	released    atomic.Bool
	releaseOnce sync.Once
}

// CompileOperator builds the operator's pipelines.
func (d *Device) CompileOperator(op *Operator, flags ExecutionFlags) (*CompiledOperator, error) {
	call := "CompileOperator"
	if op == nil {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "op", Rule: "must not be nil"}
	}
	if op.d == nil || op.plan == nil {
		return nil, lifeErr(call, "op", "is a zero value; use CreateOperator", ErrNotCreated)
	}
	call += "(" + op.kind + ")"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	if op.d != d {
		return nil, lifeErr(call, "op", "was created by another device", ErrForeignDevice)
	}
	return d.compileOperator(call, op, flags)
}

// compileOperator is CompileOperator inside the device guard.
func (d *Device) compileOperator(call string, op *Operator, flags ExecutionFlags) (*CompiledOperator, error) {
	known := ExecutionFlagAllowHalfPrecisionComputation | ExecutionFlagDisableMetaCommands | ExecutionFlagDescriptorsVolatile
	if flags&^known != 0 {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "flags", Rule: fmt.Sprintf("unknown DML_EXECUTION_FLAGS %#x", uint32(flags&^known))}
	}
	if flags&ExecutionFlagDescriptorsVolatile != 0 {
		return nil, &hresult.Error{Code: hresult.DXGI_ERROR_UNSUPPORTED, Op: call, Field: "flags", Rule: "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE is not supported: vkdml writes descriptors at RecordDispatch"}
	}
	c := &CompiledOperator{op: op}
	for i, k := range op.plan.Kernels {
		e, err := d.kernel(k)
		if err != nil {
			c.release()
			return nil, d.wrap(call, fmt.Errorf("kernel %d: %w", i, err))
		}
		c.kernelUses = append(c.kernelUses, e)
		c.kernels = append(c.kernels, e.Value)
	}
	for _, t := range op.plan.Tables() {
		b, err := d.table(t)
		if err != nil {
			c.release()
			return nil, d.wrap(call, err)
		}
		if c.tables == nil {
			c.tables = map[ops.Table]*gpu.Buffer{}
		}
		c.tables[t] = b
	}
	var descriptors uint32
	for _, s := range op.plan.Steps {
		descriptors += uint32(len(s.Bindings))
	}
	persistent, ok := alignUp(op.plan.PersistentSize, PersistentBufferAlignment)
	c.owned = make([]int64, len(op.inputs))
	for i, t := range op.inputs {
		c.owned[i] = -1
		if ok && t != nil && t.Flags&tensor.FlagOwnedByDML != 0 {
			c.owned[i] = int64(persistent)
			var size uint64
			size, ok = alignUp(t.TotalTensorSizeInBytes, PersistentBufferAlignment)
			ok = ok && persistent+size >= persistent && persistent+size <= math.MaxInt64
			persistent += size
		}
	}
	if !ok {
		c.release()
		return nil, &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: "PersistentResourceSize",
			Rule: "the persistent resource (DML_TENSOR_FLAG_OWNED_BY_DML inputs' TotalTensorSizeInBytes, each rounded up to 256) exceeds 2^63 bytes"}
	}
	c.props = BindingProperties{
		RequiredDescriptorCount: max(descriptors, 1),
		TemporaryResourceSize:   op.plan.TemporarySize,
		PersistentResourceSize:  persistent,
	}
	return c, nil
}

// alignUp rounds v up to a multiple of a; false when that overflows.
func alignUp(v, a uint64) (uint64, bool) {
	if v > math.MaxUint64-(a-1) {
		return 0, false
	}
	return (v + a - 1) / a * a, true
}

// BindingProperties returns what the operator needs bound (zero for a nil
// CompiledOperator).
func (c *CompiledOperator) BindingProperties() BindingProperties {
	if c == nil {
		return BindingProperties{}
	}
	return c.props
}
func (c *CompiledOperator) inputCount() int  { return len(c.op.inputs) }
func (c *CompiledOperator) outputCount() int { return len(c.op.outputs) }

// Operator returns the operator that was compiled.
func (c *CompiledOperator) Operator() *Operator {
	if c == nil {
		return nil
	}
	return c.op
}

// Release ends c's use of its pipelines (shared through the device's
// kernel cache: a pipeline is destroyed once no operator uses it and the
// cache has pushed it out); the GPU must be done with them. Release
// is idempotent and does nothing after the device was closed; later uses
// of c return an error wrapping ErrReleased.
func (c *CompiledOperator) Release() {
	if c == nil || c.op == nil || c.op.d == nil {
		return
	}
	leave, err := c.op.d.enterAny("CompiledOperator.Release")
	if err != nil {
		c.released.Store(true)
		return
	}
	defer leave()
	c.release()
}

// release is Release inside the device guard.
func (c *CompiledOperator) release() {
	c.releaseOnce.Do(func() {
		c.released.Store(true)
		for _, e := range c.kernelUses {
			c.op.d.kernels.Done(e)
		}
		c.kernels, c.kernelUses = nil, nil
	})
}

// checkDispatchable refuses a dispatchable that is nil, a zero value,
// released, of another device, or (for an initializer) targets a released
// operator; field names the argument.
func checkDispatchable(d *Device, call, field string, disp Dispatchable) error {
	switch x := disp.(type) {
	case nil:
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field, Rule: "must not be nil"}
	case *CompiledOperator:
		if x == nil || x.op == nil || x.op.d == nil {
			return lifeErr(call, field, "is nil or a zero value; use CompileOperator", ErrNotCreated)
		}
		if x.op.d != d {
			return lifeErr(call, field, "was created by another device", ErrForeignDevice)
		}
		if x.released.Load() {
			return lifeErr(call, field, "the compiled operator was released", ErrReleased)
		}
	case *OperatorInitializer:
		if x == nil || x.d == nil {
			return lifeErr(call, field, "is nil or a zero value; use CreateOperatorInitializer", ErrNotCreated)
		}
		if x.d != d {
			return lifeErr(call, field, "was created by another device", ErrForeignDevice)
		}
		for i, c := range x.targets() {
			if c.released.Load() {
				return lifeErr(call, fmt.Sprintf("%s.operators[%d]", field, i), "the compiled operator was released", ErrReleased)
			}
		}
	}
	return nil
}

// OperatorInitializer is IDMLOperatorInitializer: it initializes compiled
// operators, exactly once each, before they can execute. Initialization
// copies DML_TENSOR_FLAG_OWNED_BY_DML inputs into the persistent resource.
type OperatorInitializer struct {
	d   *Device
	mu  sync.Mutex
	ops []*CompiledOperator
}

// CreateOperatorInitializer returns an initializer for ops (possibly none,
// in which case executing it does nothing).
func (d *Device) CreateOperatorInitializer(ops ...*CompiledOperator) (*OperatorInitializer, error) {
	const call = "CreateOperatorInitializer"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	in := &OperatorInitializer{d: d}
	if err := in.set(call, ops); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *OperatorInitializer) set(call string, ops []*CompiledOperator) error {
	for i, c := range ops {
		if c == nil {
			return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: fmt.Sprintf("operators[%d]", i), Rule: "must not be nil"}
		}
		if err := checkDispatchable(in.d, call, fmt.Sprintf("operators[%d]", i), c); err != nil {
			return err
		}
		for j := 0; j < i; j++ {
			if ops[j] == c {
				return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: fmt.Sprintf("operators[%d]", i), Rule: "appears twice"}
			}
		}
	}
	in.mu.Lock()
	in.ops = append([]*CompiledOperator(nil), ops...)
	in.mu.Unlock()
	return nil
}

// Reset retargets the initializer. Like DirectML's, it is not thread-safe.
func (in *OperatorInitializer) Reset(ops ...*CompiledOperator) error {
	const call = "IDMLOperatorInitializer::Reset"
	if in == nil || in.d == nil {
		return lifeErr(call, "initializer", "is nil or a zero value; use CreateOperatorInitializer", ErrNotCreated)
	}
	leave, err := in.d.enter(call)
	if err != nil {
		return err
	}
	defer leave()
	return in.set(call, ops)
}

func (in *OperatorInitializer) targets() []*CompiledOperator {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.ops
}

// BindingProperties: an initializer needs one descriptor per owned input
// and never a persistent resource.
func (in *OperatorInitializer) BindingProperties() BindingProperties {
	var n uint32
	for _, c := range in.targets() {
		for _, o := range c.owned {
			if o >= 0 {
				n++
			}
		}
	}
	return BindingProperties{RequiredDescriptorCount: max(n, 1)}
}

// An initializer's inputs are one BUFFER_ARRAY per target operator; its
// outputs are each target's persistent resource.
func (in *OperatorInitializer) inputCount() int  { return len(in.targets()) }
func (in *OperatorInitializer) outputCount() int { return len(in.targets()) }
