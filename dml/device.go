// Package dml is vkdml's DirectML-shaped API: the same objects, calls and
// rules as DirectML (device, operator, compiled operator, initializer,
// binding table, command recorder), as idiomatic Go, running on a Vulkan
// device.
//
// The usual sequence mirrors DirectML's:
//
//	dev, _ := dml.CreateDevice(dml.DeviceOptions{})
//	op, _ := dev.CreateOperator(&dml.ElementWiseIdentity{Input: in, Output: out})
//	cop, _ := dev.CompileOperator(op, dml.ExecutionFlagNone)
//	init, _ := dev.CreateOperatorInitializer(cop)
//	table, _ := dev.CreateBindingTable(cop)
//	table.BindInputs(...); table.BindOutputs(...)
//	list, _ := dev.CreateCommandList()
//	rec, _ := dev.CreateCommandRecorder()
//	rec.RecordDispatch(list, init, initTable)
//	list.ResourceBarrierUAV()
//	rec.RecordDispatch(list, cop, table)
//	list.Close(); list.Execute(); list.Wait()
//
// Device.Compute and Device.Run do all of that for host tensors in one
// call (see the Examples). They keep the compiled operator of each desc in
// a bounded cache (DeviceOptions.ComputeCacheSize, DefaultComputeCacheSize
// by default), so that repeating a desc costs a small fraction of the
// first call (BenchmarkCompute).
//
// Errors carry DirectML's HRESULT (see package hresult): test them with
// errors.Is(err, hresult.E_INVALIDARG) and reach the field and rule with
// errors.As. Where DirectML would remove the device (a wrong binding count,
// a binding too small), vkdml returns an error at bind or record time and the
// device stays usable; a real Vulkan device loss makes every later call
// return DXGI_ERROR_DEVICE_REMOVED. Where DirectML's behaviour is undefined
// (an object used after Release, after Device.Close, with another device's
// objects, or as a zero value), vkdml returns E_INVALIDARG wrapping
// ErrReleased, ErrDeviceClosed, ErrForeignDevice or ErrNotCreated; Release
// and Close are idempotent.
//
// Thread safety follows DirectML: Device, CommandRecorder and
// CompiledOperator are safe for concurrent use; a BindingTable and a
// CommandList are not (though a second Execute of a pending list is
// refused with ErrPending rather than submitted twice).
//
// The operators' exact semantics (index order, ties, NaN, padding, sizes,
// errors), where each rule comes from and where vkdml deliberately differs
// from DirectML, NumPy and PyTorch are in the repository's docs/semantics.md;
// docs/dml-semantics.md summarizes DirectML's own documentation.
package dml

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// CreateDeviceFlags is DML_CREATE_DEVICE_FLAGS.
type CreateDeviceFlags uint32

const (
	// CreateDeviceFlagNone is DML_CREATE_DEVICE_FLAG_NONE.
	CreateDeviceFlagNone CreateDeviceFlags = 0
	// CreateDeviceFlagDebug turns on the Khronos validation layer with
	// synchronization validation; its messages become errors.
	CreateDeviceFlagDebug CreateDeviceFlags = 0x1
)

// MaxFeatureLevel is the highest feature level vkdml honours: every
// operator vkdml implements accepts all the types its DirectML tables list
// up to this level, on every Vulkan 1.1 device (64-bit and 8/16-bit types
// have fallbacks where the device lacks the feature).
const MaxFeatureLevel = FeatureLevel6_4

// DeviceOptions configure CreateDevice.
type DeviceOptions struct {
	// Flags are DMLCreateDevice's DML_CREATE_DEVICE_FLAGS:
	// CreateDeviceFlagDebug turns on the Vulkan validation layer.
	Flags CreateDeviceFlags
	// MinimumFeatureLevel is DMLCreateDevice1's minimum level; 0 means
	// FeatureLevel1_0 (DMLCreateDevice).
	MinimumFeatureLevel FeatureLevel
	// Device picks the Vulkan device by index or name substring; empty means
	// $VKDML_DEVICE, then discrete, integrated, virtual, CPU.
	Device string
	// Disable pretends the device lacks features, to exercise fallbacks.
	Disable Features
	// PipelineCacheDir is where compiled pipelines are kept across runs,
	// keyed by device UUID and driver version. Empty means vkdml in
	// os.UserCacheDir ($XDG_CACHE_HOME/vkdml or ~/.cache/vkdml on Linux,
	// %LocalAppData%\vkdml on Windows); "off" keeps none on disk.
	PipelineCacheDir string
	// ForceStaging keeps tensors in memory the host does not map, uploading
	// and reading back through staging copies even where device memory is
	// host-visible, so that the discrete-GPU path is tested on any device.
	ForceStaging bool
	// ComputeCacheSize bounds how many compiled operators Run and Compute
	// keep, keyed by their desc, so that repeating a desc does not compile
	// it again: 0 means DefaultComputeCacheSize, a negative value turns the
	// cache off. An operator with a persistent resource keeps it in the
	// cache (initialized once); calls of its desc then take turns.
	ComputeCacheSize int
	// MaxAllocation caps the device allocations a buffer is made of, at
	// least MinAllocation bytes. A buffer
	// larger than one allocation spans several, so that, as in DirectML,
	// a buffer is bounded by the device's memory rather than by
	// maxMemoryAllocationSize (just under 4 GiB on NVIDIA). 0 means the
	// device's own maxMemoryAllocationSize; a small value exercises the
	// split on any device (tests).
	MaxAllocation uint64
	// BindingWindowCap, when not 0, caps the bytes one dispatch binds of a
	// tensor below maxStorageBufferRange, so that small tensors take the
	// windowed paths big ones take (for tests; PlanContext.BindingWindowCap).
	BindingWindowCap uint64
	// MaxSharedMemory, when not 0, lowers the device's
	// maxComputeSharedMemorySize as vkdml plans for it (at least
	// MinSharedMemory, Vulkan's least), so that the plans of devices with
	// less shared memory run on any device (for tests).
	MaxSharedMemory uint32
	// Tuning overrides knobs of the device class's tuning, set over those
	// of the JSON file $VKDML_TUNING names when it is set: a GPU run can
	// try or apply a tuning with no rebuild.
	Tuning Tuning
}

// MinAllocation is the smallest DeviceOptions.MaxAllocation other than 0.
const MinAllocation = gpu.MinAllocation

// MinSharedMemory is the smallest DeviceOptions.MaxSharedMemory other than
// 0: Vulkan's least maxComputeSharedMemorySize.
const MinSharedMemory = gpu.MinSharedMemory

// Features are the optional device capabilities vkdml's kernels use where
// the device has them: 8-, 16- and 64-bit types in shaders and storage,
// subgroup arithmetic, subgroup size control. Each has a fallback path, so
// a device without one still runs every operator, and DeviceOptions.Disable
// can force those paths on a device that has them.
type Features = caps.Features

// Tuning overrides knobs of the device class's tuning by name: the JSON
// object of strings a $VKDML_TUNING file holds, and what `vkdml bench
// --tune KEY=VALUE` sets. Keys are the knobs TuningKeys lists; values are
// their canonical text. Its Check method reports an unknown knob or a bad
// value, and With sets another Tuning's knobs over it.
type Tuning = ops.Tuning

// TuningKeys lists the knobs a Tuning may set, sorted.
func TuningKeys() []string { return ops.TuningKeys() }

// Device is IDMLDevice. It is safe for concurrent use.
type Device struct {
	gpu       *gpu.Device
	level     FeatureLevel
	windowCap uint64 // DeviceOptions.BindingWindowCap
	tuning    Tuning // $VKDML_TUNING's knobs with DeviceOptions.Tuning's over them

	// life is held shared by every call and exclusively by Close, so that
	// Close never frees what a running call uses; closed is set under it.
	life   sync.RWMutex
	closed bool
	cache  *computeCache
	// kernels are the pipelines its compiled operators share (KernelCacheSize).
	kernels *kernelCache
	// tables are the read-only tables plans bind (tables.go), made on
	// first use and freed with the device.
	tablesMu sync.Mutex
	tables   map[ops.Table]*gpu.Buffer

	debugMu  sync.Mutex
	debugLog []string
}

// CreateDevice opens a Vulkan device as DMLCreateDevice1 would.
func CreateDevice(opts DeviceOptions) (*Device, error) {
	const op = "DMLCreateDevice1"
	if opts.Flags&^CreateDeviceFlagDebug != 0 {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: op, Field: "Flags", Rule: fmt.Sprintf("unknown flags %#x (known: DML_CREATE_DEVICE_FLAG_DEBUG)", uint32(opts.Flags&^CreateDeviceFlagDebug))}
	}
	min := opts.MinimumFeatureLevel
	if min == 0 {
		min = ops.FeatureLevel1_0
	}
	if !min.Valid() {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: op, Field: "MinimumFeatureLevel", Rule: fmt.Sprintf("%#x is not a DML_FEATURE_LEVEL", uint32(min))}
	}
	if min > MaxFeatureLevel {
		return nil, &hresult.Error{Code: hresult.DXGI_ERROR_UNSUPPORTED, Op: op, Field: "MinimumFeatureLevel", Rule: fmt.Sprintf("%v is above the highest level vkdml supports (%v)", min, MaxFeatureLevel)}
	}
	tuning, err := DeviceTuning(opts.Tuning)
	if err != nil {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: op, Field: "Tuning", Rule: err.Error()}
	}
	maxAlloc := opts.MaxAllocation
	if maxAlloc == 0 {
		maxAlloc = math.MaxUint64 // the device's own cap
	}
	if maxAlloc < MinAllocation {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: op, Field: "MaxAllocation", Rule: fmt.Sprintf("%d is below the minimum of %d bytes (0 means the device's own maxMemoryAllocationSize)", maxAlloc, MinAllocation)}
	}
	if m := opts.MaxSharedMemory; m != 0 && m < MinSharedMemory {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: op, Field: "MaxSharedMemory", Rule: fmt.Sprintf("%d is below Vulkan's least maxComputeSharedMemorySize, %d bytes (0 means the device's own)", m, MinSharedMemory)}
	}
	g, err := gpu.Open(gpu.Options{
		Debug:            opts.Flags&CreateDeviceFlagDebug != 0,
		Device:           opts.Device,
		Disable:          opts.Disable,
		PipelineCacheDir: opts.PipelineCacheDir,
		ForceStaging:     opts.ForceStaging,
		MaxAllocation:    maxAlloc,
		MaxSharedMemory:  opts.MaxSharedMemory,
	})
	if err != nil {
		code := hresult.DXGI_ERROR_UNSUPPORTED
		if errors.Is(err, gpu.ErrOutOfMemory) {
			code = hresult.E_OUTOFMEMORY
		}
		return nil, &hresult.Error{Code: code, Op: op, Rule: "no usable Vulkan device", Err: err}
	}
	return &Device{gpu: g, level: MaxFeatureLevel, cache: newComputeCache(opts.ComputeCacheSize), kernels: newKernelCache(), windowCap: opts.BindingWindowCap, tuning: tuning}, nil
}

// MaxTuningFileSize bounds the file $VKDML_TUNING names: a JSON object of
// a few dozen knobs is under 2 KiB, so 1 MiB is ample and a wrong path (a
// log, a model) is refused before it is read.
const MaxTuningFileSize = 1 << 20

// DeviceTuning is the tuning a device created with DeviceOptions.Tuning
// override plans with: the file $VKDML_TUNING names, when set, with
// override's knobs set over it; every knob checked.
func DeviceTuning(override Tuning) (Tuning, error) {
	var t Tuning
	if path := os.Getenv("VKDML_TUNING"); path != "" {
		b, err := safefile.ReadFile(path, MaxTuningFileSize)
		if err != nil {
			return nil, fmt.Errorf("$VKDML_TUNING: %w", err)
		}
		if t, err = ops.ParseTuningJSON(b); err != nil {
			return nil, fmt.Errorf("$VKDML_TUNING %s: %w", path, err)
		}
	}
	if err := override.Check(); err != nil {
		return nil, err
	}
	if len(t) == 0 && len(override) == 0 {
		return nil, nil
	}
	return t.With(override), nil
}

// DebugMessages returns and clears the messages the debug layer reported
// since the last call: legal but suspicious usage that did not fail (with
// CreateDeviceFlagDebug only; DirectML's debug layer prints the same kind of
// message to the debugger).
func (d *Device) DebugMessages() []string {
	if d == nil {
		return nil
	}
	d.debugMu.Lock()
	defer d.debugMu.Unlock()
	m := d.debugLog
	d.debugLog = nil
	return m
}

func (d *Device) debugf(format string, args ...any) {
	if !d.gpu.Debug() {
		return
	}
	d.debugMu.Lock()
	d.debugLog = append(d.debugLog, fmt.Sprintf(format, args...))
	d.debugMu.Unlock()
}

// VulkanDevice is the Vulkan device a Device runs on (package gpu's
// Device): Info describes the physical device (name, type, driver, memory
// types), Features are the features enabled on it (the device's less
// DeviceOptions.Disable) and Limits its limits, as vkdml plans with them.
type VulkanDevice = gpu.Device

// GPU returns the Vulkan device underneath, for its features and limits.
// It is nil for a nil Device.
func (d *Device) GPU() *VulkanDevice {
	if d == nil {
		return nil
	}
	return d.gpu
}

// FeatureLevel is the level the device validates operators at (0 for a
// nil Device).
func (d *Device) FeatureLevel() FeatureLevel {
	if d == nil {
		return 0
	}
	return d.level
}

// GetDeviceRemovedReason is nil while the device works, and
// DXGI_ERROR_DEVICE_REMOVED after a Vulkan device loss.
func (d *Device) GetDeviceRemovedReason() error {
	leave, err := d.enterAny("GetDeviceRemovedReason")
	if err != nil {
		return err
	}
	defer leave()
	if d.gpu.Lost() {
		return &hresult.Error{Code: hresult.DXGI_ERROR_DEVICE_REMOVED, Op: "GetDeviceRemovedReason", Rule: "the Vulkan device was lost", Err: gpu.ErrDeviceLost}
	}
	return nil
}

// removed returns the device-removed error for call, or nil.
func (d *Device) removed(call string) error {
	if d.gpu.Lost() {
		return &hresult.Error{Code: hresult.DXGI_ERROR_DEVICE_REMOVED, Op: call, Rule: "the device was removed", Err: gpu.ErrDeviceLost}
	}
	return nil
}

// wrap turns a host-layer error from call into an *hresult.Error.
func (d *Device) wrap(call string, err error) error { return wrapError(call, err) }

// wrapError is wrap, for calls with no device (PlanOperator).
func wrapError(call string, err error) error {
	if err == nil {
		return nil
	}
	var he *hresult.Error
	if errors.As(err, &he) {
		return hresult.WithOp(call, err)
	}
	code := hresult.E_FAIL
	switch {
	case isLifecycleErr(err):
		code = hresult.E_INVALIDARG
		err = withDMLSentinel(err)
	case errors.Is(err, gpu.ErrDeviceLost):
		code = hresult.DXGI_ERROR_DEVICE_REMOVED
	case errors.Is(err, gpu.ErrOutOfMemory):
		code = hresult.E_OUTOFMEMORY
	case errors.Is(err, gpu.ErrMissingFeature):
		code = hresult.DXGI_ERROR_UNSUPPORTED
	case errors.Is(err, gpu.ErrValidation):
		code = hresult.E_FAIL
	}
	return &hresult.Error{Code: code, Op: call, Err: err}
}

// Close releases the device, after the compiled operators Run and Compute
// cached. Every object created from it should be released first; in debug
// mode anything left behind is reported. Close is idempotent; afterwards
// every method of the device and of its objects returns an error wrapping
// ErrDeviceClosed, and Release methods do nothing.
func (d *Device) Close() error {
	if d == nil || d.gpu == nil {
		return lifeErr("Close", "device", "is nil or a zero value; use CreateDevice", ErrNotCreated)
	}
	d.life.Lock()
	defer d.life.Unlock()
	if d.closed {
		return nil
	}
	// A call that executed a list may not have waited for it yet; the host
	// layer keeps a kernel that pending work uses until that work is done,
	// and gpu.Close waits for it (bounded), so the cached pipelines can go
	// first; those in use go too (their users' next call fails with
	// ErrDeviceClosed), released inside the guard Close holds.
	d.cache.Drain((*cachedOperator).release)
	// Pipelines no operator uses go now; those a compiled operator the
	// caller still holds uses are left for gpu.Close, which reports them
	// in debug mode as it reports any kernel left alive.
	d.kernels.Clear()
	d.closed = true
	return d.wrap("Close", d.gpu.Close())
}

// FeatureLevels answers CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS): the
// highest of the requested levels the device supports.
func (d *Device) FeatureLevels(requested []FeatureLevel) (FeatureLevel, error) {
	const call = "CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS)"
	leave, err := d.enter(call)
	if err != nil {
		return 0, err
	}
	defer leave()
	if len(requested) == 0 {
		return 0, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "RequestedFeatureLevelCount", Rule: "must be at least 1"}
	}
	var best FeatureLevel
	for i, l := range requested {
		if !l.Valid() {
			return 0, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: fmt.Sprintf("RequestedFeatureLevels[%d]", i), Rule: fmt.Sprintf("%#x is not a DML_FEATURE_LEVEL", uint32(l))}
		}
		if l <= d.level && l > best {
			best = l
		}
	}
	if best == 0 {
		return 0, &hresult.Error{Code: hresult.DXGI_ERROR_UNSUPPORTED, Op: call, Rule: fmt.Sprintf("none of the requested levels is supported (highest: %v)", d.level)}
	}
	return best, nil
}

// TensorDataTypeSupport answers
// CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT). Every numeric
// type but FLOAT64 is supported on every device: 8/16-bit types without
// 8/16-bit storage are read as packed 32-bit words, 64-bit integers without
// shaderInt64 as two words.
func (d *Device) TensorDataTypeSupport(dt tensor.DataType) (bool, error) {
	const call = "CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT)"
	leave, err := d.enter(call)
	if err != nil {
		return false, err
	}
	defer leave()
	if dt == tensor.Unknown || dt > tensor.Int64 {
		return false, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "DataType", Rule: fmt.Sprintf("%d is not a DML_TENSOR_DATA_TYPE", uint32(dt))}
	}
	return dt.Valid(), nil
}

// context is what operators validate and plan against.
func (d *Device) context() *PlanContext {
	return &PlanContext{FeatureLevel: d.level, Features: d.gpu.Features, Limits: d.gpu.Limits, DeviceType: d.gpu.Info.Type, BindingWindowCap: d.windowCap, Tuning: d.tuning}
}

// Resource is a GPU buffer, the counterpart of a D3D12 buffer resource in
// the default heap. Write and Read move bytes between it and the host
// (through a staging copy where the memory is not host-visible). Its
// methods may be called from several goroutines, but not concurrently with
// its Release.
type Resource struct {
	d        *Device
	buf      *gpu.Buffer
	size     uint64
	released atomic.Bool
}

// CreateBuffer allocates a buffer of size bytes.
func (d *Device) CreateBuffer(size uint64) (*Resource, error) {
	const call = "CreateBuffer"
	leave, err := d.enter(call)
	if err != nil {
		return nil, err
	}
	defer leave()
	if size == 0 {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "size", Rule: "must be greater than 0"}
	}
	if limit := d.maxBuffer(); limit != 0 && size > limit {
		return nil, &hresult.Error{Code: hresult.E_OUTOFMEMORY, Op: call, Field: "size",
			Rule: fmt.Sprintf("%d bytes exceed the largest buffer the device can allocate (%d bytes)", size, limit)}
	}
	b, err := d.gpu.NewBuffer(size)
	if err != nil {
		return nil, d.wrap(call, err)
	}
	return &Resource{d: d, buf: b, size: size}, nil
}

// Size is the buffer's size in bytes (0 for a nil Resource); it stays
// readable after Release.
func (r *Resource) Size() uint64 {
	if r == nil {
		return 0
	}
	return r.size
}

// use guards a call on r: the resource must come from CreateBuffer, be
// unreleased, and its device open.
func (r *Resource) use(call string) (func(), error) {
	if r == nil || r.d == nil || r.buf == nil {
		return nop, lifeErr(call, "resource", "is nil or a zero value; use CreateBuffer", ErrNotCreated)
	}
	leave, err := r.d.enterAny(call)
	return guardThen(leave, err, func() error {
		if r.released.Load() {
			return lifeErr(call, "resource", "was released", ErrReleased)
		}
		return nil
	})
}

// checkRange refuses [offset, offset+n) unless it lies inside the buffer,
// with overflow-safe arithmetic.
func (r *Resource) checkRange(call string, offset, n uint64, what string) error {
	if offset > r.size || n > r.size-offset {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: what,
			Rule: fmt.Sprintf("offset %d plus %d bytes lies outside the %d-byte buffer", offset, n, r.size)}
	}
	return nil
}

// Write copies data into the buffer at offset.
func (r *Resource) Write(offset uint64, data []byte) error {
	return r.transfer("Resource.Write", offset, data, "data", (*gpu.Buffer).Write)
}

// Read copies len(out) bytes from offset into out.
func (r *Resource) Read(offset uint64, out []byte) error {
	return r.transfer("Resource.Read", offset, out, "out", (*gpu.Buffer).Read)
}

// transfer is Write and Read: it guards the call, refuses a range of
// len(b) bytes at offset that leaves the buffer (naming field, b's
// parameter) and copies through the host layer's copy unless b is empty.
func (r *Resource) transfer(call string, offset uint64, b []byte, field string, copy func(*gpu.Buffer, uint64, []byte) error) error {
	leave, err := r.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if err := r.checkRange(call, offset, uint64(len(b)), field); err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	return r.d.wrap(call, copy(r.buf, offset, b))
}

// Fill sets every 32-bit word of [offset, offset+size) to value, e.g. to
// poison outputs in tests. offset and size must be multiples of 4; a size
// of 0 fills nothing.
func (r *Resource) Fill(offset, size uint64, value uint32) error {
	const call = "Resource.Fill"
	leave, err := r.use(call)
	if err != nil {
		return err
	}
	defer leave()
	if offset%4 != 0 {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "offset", Rule: fmt.Sprintf("%d is not a multiple of 4 (Fill writes 32-bit words)", offset)}
	}
	if size%4 != 0 {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "size", Rule: fmt.Sprintf("%d is not a multiple of 4 (Fill writes 32-bit words)", size)}
	}
	if err := r.checkRange(call, offset, size, "size"); err != nil {
		return err
	}
	if size == 0 {
		return nil
	}
	return r.d.wrap(call, r.buf.Fill(offset, size, value))
}

// Release frees the buffer; the GPU must be done with it. Release is
// idempotent, and does nothing after the device was closed (Close freed all
// memory). Later calls on r return an error wrapping ErrReleased.
func (r *Resource) Release() {
	if r == nil || r.d == nil || r.buf == nil || r.released.Swap(true) {
		return
	}
	leave, err := r.d.enterAny("Resource.Release")
	if err != nil {
		return
	}
	defer leave()
	r.buf.Free()
}
