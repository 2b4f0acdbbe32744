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
// Device.Run does all of that for host tensors in one call.
//
// Errors carry DirectML's HRESULT (see package hresult): test them with
// errors.Is(err, hresult.E_INVALIDARG) and reach the field and rule with
// errors.As. Where DirectML would remove the device (a wrong binding count,
// a binding too small), vkdml returns an error at bind or record time and the
// device stays usable; a real Vulkan device loss makes every later call
// return DXGI_ERROR_DEVICE_REMOVED.
//
// Thread safety follows DirectML: Device, CommandRecorder and
// CompiledOperator are safe for concurrent use; a BindingTable and a
// CommandList are not.
package dml

import (
	"errors"
	"fmt"
	"sync"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// CreateDeviceFlags is DML_CREATE_DEVICE_FLAGS.
type CreateDeviceFlags uint32

const (
	CreateDeviceFlagNone CreateDeviceFlags = 0
	// CreateDeviceFlagDebug turns on the Khronos validation layer with
	// synchronization validation; its messages become errors.
	CreateDeviceFlagDebug CreateDeviceFlags = 0x1
)

// MaxFeatureLevel is the highest feature level vkdml honours: every
// operator vkdml implements accepts all the types its DirectML tables list
// up to this level, on every Vulkan 1.1 device (64-bit and 8/16-bit types
// have fallbacks where the device lacks the feature).
const MaxFeatureLevel = ops.FeatureLevel6_4

// DeviceOptions configure CreateDevice.
type DeviceOptions struct {
	Flags CreateDeviceFlags
	// MinimumFeatureLevel is DMLCreateDevice1's minimum level; 0 means
	// FeatureLevel1_0 (DMLCreateDevice).
	MinimumFeatureLevel FeatureLevel
	// Device picks the Vulkan device by index or name substring; empty means
	// $VKDML_DEVICE, then discrete, integrated, virtual, CPU.
	Device string
	// Disable pretends the device lacks features, to exercise fallbacks.
	Disable gpu.Features
	// PipelineCacheDir as in gpu.Options ("off" keeps none on disk).
	PipelineCacheDir string
	// ForceStaging as in gpu.Options: upload and read back through staging
	// copies even where device memory is host-visible.
	ForceStaging bool
}

// Device is IDMLDevice. It is safe for concurrent use.
type Device struct {
	gpu   *gpu.Device
	level FeatureLevel

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
	g, err := gpu.Open(gpu.Options{
		Debug:            opts.Flags&CreateDeviceFlagDebug != 0,
		Device:           opts.Device,
		Disable:          opts.Disable,
		PipelineCacheDir: opts.PipelineCacheDir,
		ForceStaging:     opts.ForceStaging,
	})
	if err != nil {
		code := hresult.DXGI_ERROR_UNSUPPORTED
		if errors.Is(err, gpu.ErrOutOfMemory) {
			code = hresult.E_OUTOFMEMORY
		}
		return nil, &hresult.Error{Code: code, Op: op, Rule: "no usable Vulkan device", Err: err}
	}
	return &Device{gpu: g, level: MaxFeatureLevel}, nil
}

// DebugMessages returns and clears the messages the debug layer reported
// since the last call: legal but suspicious usage that did not fail (with
// CreateDeviceFlagDebug only; DirectML's debug layer prints the same kind of
// message to the debugger).
func (d *Device) DebugMessages() []string {
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

// GPU returns the Vulkan device underneath, for its features and limits.
func (d *Device) GPU() *gpu.Device { return d.gpu }

// FeatureLevel is the level the device validates operators at.
func (d *Device) FeatureLevel() FeatureLevel { return d.level }

// GetDeviceRemovedReason is nil while the device works, and
// DXGI_ERROR_DEVICE_REMOVED after a Vulkan device loss.
func (d *Device) GetDeviceRemovedReason() error {
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
func (d *Device) wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	var he *hresult.Error
	if errors.As(err, &he) {
		return hresult.WithOp(call, err)
	}
	code := hresult.E_FAIL
	switch {
	case errors.Is(err, gpu.ErrDeviceLost):
		code = hresult.DXGI_ERROR_DEVICE_REMOVED
	case errors.Is(err, gpu.ErrOutOfMemory):
		code = hresult.E_OUTOFMEMORY
	case errors.Is(err, gpu.ErrValidation):
		code = hresult.E_FAIL
	}
	return &hresult.Error{Code: code, Op: call, Err: err}
}

// Close releases the device. Every object created from it must be released
// first; in debug mode anything left behind is reported.
func (d *Device) Close() error { return d.wrap("Close", d.gpu.Close()) }

// FeatureLevels answers CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS): the
// highest of the requested levels the device supports.
func (d *Device) FeatureLevels(requested []FeatureLevel) (FeatureLevel, error) {
	const call = "CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS)"
	if err := d.removed(call); err != nil {
		return 0, err
	}
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
	if err := d.removed(call); err != nil {
		return false, err
	}
	if dt == tensor.Unknown || dt > tensor.Int64 {
		return false, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "DataType", Rule: fmt.Sprintf("%d is not a DML_TENSOR_DATA_TYPE", uint32(dt))}
	}
	return dt.Valid(), nil
}

// context is what operators validate and plan against.
func (d *Device) context() *ops.Context {
	return &ops.Context{FeatureLevel: d.level, Features: d.gpu.Features, Limits: d.gpu.Limits, DeviceType: d.gpu.Info.Type}
}

// Resource is a GPU buffer, the counterpart of a D3D12 buffer resource in
// the default heap. Write and Read move bytes between it and the host
// (through a staging copy where the memory is not host-visible).
type Resource struct {
	d   *Device
	buf *gpu.Buffer
}

// CreateBuffer allocates a buffer of size bytes.
func (d *Device) CreateBuffer(size uint64) (*Resource, error) {
	const call = "CreateBuffer"
	if err := d.removed(call); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "size", Rule: "must be greater than 0"}
	}
	b, err := d.gpu.NewBuffer(size)
	if err != nil {
		return nil, d.wrap(call, err)
	}
	return &Resource{d: d, buf: b}, nil
}

// Size is the buffer's size in bytes.
func (r *Resource) Size() uint64 { return r.buf.Size() }

// Write copies data into the buffer at offset.
func (r *Resource) Write(offset uint64, data []byte) error {
	return r.d.wrap("Resource.Write", r.buf.Write(offset, data))
}

// Read copies len(out) bytes from offset into out.
func (r *Resource) Read(offset uint64, out []byte) error {
	return r.d.wrap("Resource.Read", r.buf.Read(offset, out))
}

// Fill sets every 32-bit word of [offset, offset+size) to value, e.g. to
// poison outputs in tests.
func (r *Resource) Fill(offset, size uint64, value uint32) error {
	return r.d.wrap("Resource.Fill", r.buf.Fill(offset, size, value))
}

// Release frees the buffer; the GPU must be done with it.
func (r *Resource) Release() { r.buf.Free() }
