//go:build windows

package dmlcom

// DirectML through COM vtables with syscall.SyscallN. Every struct passed
// to D3D12 or DirectML is a Go struct with the x64 C layout; pointers in
// them are unsafe.Pointer fields (so the garbage collector keeps what they
// point to alive and stack moves update them), and COM objects are
// unsafe.Pointers to memory the DLLs own. A pointer argument is written
// uintptr(unsafe.Pointer(&x)) in the argument list of call or Proc.Call
// itself (see call).

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

type guid struct {
	d1     uint32
	d2, d3 uint16
	d4     [8]byte
}

var (
	iidD3D12Device              = guid{0x189819f1, 0x1db6, 0x4b57, [8]byte{0xbe, 0x54, 0x18, 0x21, 0x33, 0x9b, 0x85, 0xf7}}
	iidD3D12CommandQueue        = guid{0x0ec870a6, 0x5d7e, 0x4c22, [8]byte{0x8c, 0xfc, 0x5b, 0xaa, 0xe0, 0x76, 0x16, 0xed}}
	iidD3D12CommandAllocator    = guid{0x6102dee4, 0xaf59, 0x4b09, [8]byte{0xb9, 0x99, 0xb4, 0x4d, 0x73, 0xf0, 0x9b, 0x24}}
	iidD3D12GraphicsCommandList = guid{0x5b160d0f, 0xac1b, 0x4185, [8]byte{0x8b, 0xa8, 0xb3, 0xae, 0x42, 0xa5, 0xa4, 0x55}}
	iidD3D12Fence               = guid{0x0a753dcf, 0xc4d8, 0x4b91, [8]byte{0xad, 0xf6, 0xbe, 0x5a, 0x60, 0xd9, 0x5a, 0x76}}
	iidD3D12Resource            = guid{0x696442be, 0xa72e, 0x4059, [8]byte{0xbc, 0x79, 0x5b, 0x5c, 0x98, 0x04, 0x0f, 0xad}}
	iidD3D12DescriptorHeap      = guid{0x8efb471d, 0x616c, 0x4f49, [8]byte{0x90, 0xf7, 0x12, 0x7b, 0xb7, 0x63, 0xfa, 0x51}}

	iidDMLDevice              = guid{0x6dbd6437, 0x96fd, 0x423f, [8]byte{0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f}}
	iidDMLOperator            = guid{0x26caae7a, 0x3081, 0x4633, [8]byte{0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d}}
	iidDMLCompiledOperator    = guid{0x6b15e56a, 0xbf5c, 0x4902, [8]byte{0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4}}
	iidDMLOperatorInitializer = guid{0x427c1113, 0x435c, 0x469c, [8]byte{0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13}}
	iidDMLBindingTable        = guid{0x29c687dc, 0xde74, 0x4e3b, [8]byte{0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc}}
	iidDMLCommandRecorder     = guid{0xe6857a76, 0x2e3e, 0x4fdd, [8]byte{0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53}}
)

// Vtable slots (IUnknown 0-2; ID3D12Object and IDMLObject 3-6).
const (
	slotRelease = 2

	devCreateCommandQueue         = 8
	devCreateCommandAllocator     = 9
	devCreateCommandList          = 12
	devCreateDescriptorHeap       = 14
	devGetDescriptorHandleIncSize = 15
	devCreateCommittedResource    = 27
	devCreateFence                = 36
	devGetDeviceRemovedReason     = 37

	heapGetCPUStart = 9
	heapGetGPUStart = 10

	resMap   = 8
	resUnmap = 9

	listClose              = 9
	listCopyBufferRegion   = 15
	listResourceBarrier    = 26
	listSetDescriptorHeaps = 28

	queueExecuteCommandLists = 10
	queueSignal              = 14

	fenceGetCompletedValue = 8

	dmlCheckFeatureSupport       = 7
	dmlCreateOperator            = 8
	dmlCompileOperator           = 9
	dmlCreateOperatorInitializer = 10
	dmlCreateCommandRecorder     = 11
	dmlCreateBindingTable        = 12
	dmlGetDeviceRemovedReason    = 15

	dispatchableGetBindingProperties = 8

	tableBindInputs     = 8
	tableBindOutputs    = 9
	tableBindTemporary  = 10
	tableBindPersistent = 11

	recorderRecordDispatch = 8
)

// D3D12 and DirectML enum values used here.
const (
	d3dFeatureLevel11_0 = 0xb000

	listTypeDirect = 0

	heapTypeDefault  = 1
	heapTypeUpload   = 2
	heapTypeReadback = 3

	stateCommon         = 0
	stateUnorderedAcess = 0x8
	stateCopyDest       = 0x400
	stateCopySource     = 0x800
	stateGenericRead    = 0xac3

	barrierTransition = 0
	barrierUAV        = 2

	descriptorHeapCBVSRVUAV     = 0
	descriptorHeapShaderVisible = 1

	resourceDimensionBuffer = 1
	layoutRowMajor          = 1
	resourceFlagAllowUAV    = 0x4

	dmlTensorTypeBuffer = 1
	dmlBindingNone      = 0
	dmlBindingBuffer    = 1

	dmlFeatureTensorDataTypeSupport = 0
	dmlFeatureFeatureLevels         = 1
)

// com is a COM interface pointer.
type com unsafe.Pointer

// call invokes vtable slot on o with the given arguments after `this`.
//
// A Go pointer argument must be written uintptr(unsafe.Pointer(&x)) in the
// argument list itself, as for syscall.Proc.Call: uintptrescapes then moves
// x to the heap and keeps it alive until call returns. Converted anywhere
// else (in a helper, or into a variable first), x can stay on the
// goroutine's stack, which moves whenever it grows or the garbage collector
// shrinks it, possibly after the conversion and before the syscall:
// DirectML then writes an out-parameter into the old stack (the variable
// stays nil, and the next call fails with E_INVALIDARG or dereferences
// nil) or reads an input from memory another goroutine may have reused.
//
//go:uintptrescapes
func call(o com, slot int, args ...uintptr) uintptr {
	vtbl := *(*unsafe.Pointer)(o)
	fn := *(*uintptr)(unsafe.Add(vtbl, slot*int(unsafe.Sizeof(uintptr(0)))))
	r, _, _ := syscall.SyscallN(fn, append([]uintptr{uintptr(o)}, args...)...)
	return r
}

func release(o com) {
	if o != nil {
		call(o, slotRelease)
	}
}

// hrError is a failed HRESULT from a named call.
type hrError struct {
	hr   hresult.HRESULT
	call string
}

func (e *hrError) Error() string { return fmt.Sprintf("%s: %v", e.call, e.hr) }

func check(r uintptr, what string) error {
	if hr := hresult.HRESULT(uint32(r)); hr.Failed() {
		return &hrError{hr, what}
	}
	return nil
}

// C structs (x64 layout). The operator descs are generated from
// internal/schema into descs_gen_windows.go.
type (
	bufferTensorDesc struct {
		dataType, flags, dimensionCount uint32
		_                               uint32
		sizes, strides                  unsafe.Pointer
		total                           uint64
		alignment                       uint32
		_                               uint32
	}
	tensorDesc struct {
		typ  uint32
		_    uint32
		desc unsafe.Pointer
	}
	operatorDesc struct {
		typ  uint32
		_    uint32
		desc unsafe.Pointer
	}
	bindingProperties struct {
		requiredDescriptorCount uint32
		_                       uint32
		temporarySize           uint64
		persistentSize          uint64
	}
	bufferBinding struct {
		buffer       unsafe.Pointer
		offset, size uint64
	}
	bindingDesc struct {
		typ  uint32
		_    uint32
		desc unsafe.Pointer
	}
	bindingTableDesc struct {
		dispatchable unsafe.Pointer
		cpu, gpu     uint64
		size         uint32
		_            uint32
	}
	heapProperties struct {
		typ, cpuPage, memoryPool, creationNodeMask, visibleNodeMask uint32
	}
	resourceDesc struct {
		dimension               uint32
		_                       uint32
		alignment, width        uint64
		height                  uint32
		depthOrArraySize, mips  uint16
		format                  uint32
		sampleCount, sampleQual uint32
		layout, flags           uint32
		_                       uint32
	}
	resourceBarrier struct {
		typ, flags              uint32
		resource                unsafe.Pointer
		subresource             uint32
		stateBefore, stateAfter uint32
		_                       uint32
	}
	commandQueueDesc struct {
		typ, priority, flags, nodeMask uint32
	}
	descriptorHeapDesc struct {
		typ, numDescriptors, flags, nodeMask uint32
	}
)

type Device struct {
	d3d12, directml *syscall.DLL
	dllName         string
	debug           bool
	adapter         *Adapter // nil: the default adapter
	dev             com      // ID3D12Device
	queue           com
	fence           com
	fenceValue      uint64
	dml             com // IDMLDevice
	recorder        com

	// heap is the one shader-visible descriptor heap every case binds
	// from: creating one costs seconds on lavapipe (vkd3d allocates its
	// descriptor sets), so it is made once and grown only when a case
	// needs more descriptors than it holds.
	heap             com // ID3D12DescriptorHeap
	heapSize         uint32
	heapCPU, heapGPU uint64 // handles of its first descriptor
	heapInc          uint64 // bytes between descriptors
}

// initialHeapSize is the descriptor count of the first heap: more than any
// corpus case's initializer and operator need together.
const initialHeapSize = 256

// ensureHeap makes b.heap hold at least n descriptors.
func (b *Device) ensureHeap(n uint32) error {
	if b.heap != nil && b.heapSize >= n {
		return nil
	}
	size := max(n, initialHeapSize, 2*b.heapSize)
	hd := descriptorHeapDesc{typ: descriptorHeapCBVSRVUAV, numDescriptors: size, flags: descriptorHeapShaderVisible}
	var heap unsafe.Pointer
	if err := check(call(b.dev, devCreateDescriptorHeap, uintptr(unsafe.Pointer(&hd)), uintptr(unsafe.Pointer(&iidD3D12DescriptorHeap)), uintptr(unsafe.Pointer(&heap))), "ID3D12Device::CreateDescriptorHeap"); err != nil {
		return err
	}
	release(b.heap)
	b.heap, b.heapSize = com(heap), size
	call(b.heap, heapGetCPUStart, uintptr(unsafe.Pointer(&b.heapCPU)))
	call(b.heap, heapGetGPUStart, uintptr(unsafe.Pointer(&b.heapGPU)))
	b.heapInc = uint64(uint32(call(b.dev, devGetDescriptorHandleIncSize, descriptorHeapCBVSRVUAV)))
	return nil
}

// Options says which DirectML.dll to load and on which adapter.
type Options struct {
	// DLL is DirectML.dll's name or path (LoadLibrary's search order).
	DLL string
	// Debug sets DML_CREATE_DEVICE_FLAG_DEBUG (needs DirectML.Debug.dll).
	Debug bool
	// Adapter, when not nil, picks the DXGI adapter the D3D12 device is
	// created on; nil takes the default adapter.
	Adapter *Adapter
}

// Open loads d3d12.dll and DirectML.dll and creates a D3D12 device, its
// queue and fence, and a DML device with its command recorder. The calling
// goroutine stays locked to its thread.
func Open(o Options) (*Device, error) {
	runtime.LockOSThread()
	b := &Device{dllName: o.DLL, debug: o.Debug, adapter: o.Adapter}
	var err error
	if b.d3d12, err = syscall.LoadDLL("d3d12.dll"); err != nil {
		return nil, fmt.Errorf("loading d3d12.dll: %w", err)
	}
	if b.directml, err = syscall.LoadDLL(o.DLL); err != nil {
		return nil, fmt.Errorf("loading %s: %w", o.DLL, err)
	}
	if err := b.open(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// open creates the D3D12 device, queue, fence, DML device and recorder.
func (b *Device) open() error {
	create, err := b.d3d12.FindProc("D3D12CreateDevice")
	if err != nil {
		return err
	}
	var dev unsafe.Pointer
	where := "default adapter"
	var adapter com
	if b.adapter != nil {
		if adapter, err = adapterByLUID(b.adapter.LUID); err != nil {
			return err
		}
		defer release(adapter)
		where = b.adapter.Name
	}
	r, _, _ := create.Call(uintptr(adapter), d3dFeatureLevel11_0, uintptr(unsafe.Pointer(&iidD3D12Device)), uintptr(unsafe.Pointer(&dev)))
	if err := check(r, "D3D12CreateDevice ("+where+")"); err != nil {
		return err
	}
	b.dev = com(dev)
	qd := commandQueueDesc{typ: listTypeDirect}
	var q unsafe.Pointer
	if err := check(call(b.dev, devCreateCommandQueue, uintptr(unsafe.Pointer(&qd)), uintptr(unsafe.Pointer(&iidD3D12CommandQueue)), uintptr(unsafe.Pointer(&q))), "ID3D12Device::CreateCommandQueue"); err != nil {
		return err
	}
	b.queue = com(q)
	var f unsafe.Pointer
	if err := check(call(b.dev, devCreateFence, 0, 0, uintptr(unsafe.Pointer(&iidD3D12Fence)), uintptr(unsafe.Pointer(&f))), "ID3D12Device::CreateFence"); err != nil {
		return err
	}
	b.fence = com(f)
	create1, err := b.directml.FindProc("DMLCreateDevice1")
	if err != nil {
		return err
	}
	flags := uintptr(0)
	if b.debug {
		flags = 1
	}
	var d unsafe.Pointer
	r, _, _ = create1.Call(uintptr(b.dev), flags, 0x1000, uintptr(unsafe.Pointer(&iidDMLDevice)), uintptr(unsafe.Pointer(&d)))
	if err := check(r, "DMLCreateDevice1"); err != nil {
		return err
	}
	b.dml = com(d)
	var rec unsafe.Pointer
	if err := check(call(b.dml, dmlCreateCommandRecorder, uintptr(unsafe.Pointer(&iidDMLCommandRecorder)), uintptr(unsafe.Pointer(&rec))), "IDMLDevice::CreateCommandRecorder"); err != nil {
		return err
	}
	b.recorder = com(rec)
	return b.ensureHeap(initialHeapSize)
}

func (b *Device) closeDevices() {
	for _, o := range []*com{&b.heap, &b.recorder, &b.dml, &b.fence, &b.queue, &b.dev} {
		release(*o)
		*o = nil
	}
	b.heapSize = 0
}

func (b *Device) Close() { b.closeDevices() }

// ExitNow ends the process at once with code, without the DLL detach
// routines an ExitProcess runs: with a call stuck inside the driver, they
// can wait on its locks or crash (seen under Wine).
func ExitNow(code int) {
	os.Stdout.Sync()
	h, _ := syscall.GetCurrentProcess()
	syscall.TerminateProcess(h, uint32(code))
	os.Exit(code) // not reached
}

var typeNames = []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int32, tensor.Int16, tensor.Int8, tensor.Float64, tensor.UInt64, tensor.Int64}

func (b *Device) Info(r *parity.Results) {
	r.Producer = "dmlrunner with " + b.dllName + dllVersion(b.directml)
	r.Adapter = "default D3D12 adapter"
	if b.adapter != nil {
		r.Adapter = b.adapter.String()
	}
	levels := []uint32{0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400}
	for len(levels) > 0 {
		q := struct {
			count uint32
			_     uint32
			list  unsafe.Pointer
		}{uint32(len(levels)), 0, unsafe.Pointer(&levels[0])}
		var max uint32
		hr := call(b.dml, dmlCheckFeatureSupport, dmlFeatureFeatureLevels, unsafe.Sizeof(q), uintptr(unsafe.Pointer(&q)), 4, uintptr(unsafe.Pointer(&max)))
		runtime.KeepAlive(levels)
		if hr == 0 {
			r.FeatureLevel = fmt.Sprintf("%d_%d", max>>12, (max>>8)&0xf)
			break
		}
		levels = levels[:len(levels)-1] // older DirectML: drop levels it does not know
	}
	r.TypeSupport = map[string]bool{}
	for _, dt := range typeNames {
		q, supported := uint32(dt), uint32(0)
		if call(b.dml, dmlCheckFeatureSupport, dmlFeatureTensorDataTypeSupport, 4, uintptr(unsafe.Pointer(&q)), 4, uintptr(unsafe.Pointer(&supported))) == 0 {
			r.TypeSupport[dt.String()] = supported != 0
		}
	}
}

// DLLPath is the path DirectML.dll was loaded from.
func (b *Device) DLLPath() string { return modulePath(b.directml) }

// DLLVersion is DirectML.dll's file version ("1.15.4.0"), or "" when it
// cannot be read.
func (b *Device) DLLVersion() string { return strings.TrimSpace(dllVersion(b.directml)) }

// modulePath is the file a loaded DLL came from.
func modulePath(d *syscall.DLL) string {
	k32 := syscall.NewLazyDLL("kernel32.dll").NewProc("GetModuleFileNameW")
	path := make([]uint16, 1024)
	n, _, _ := k32.Call(uintptr(d.Handle), uintptr(unsafe.Pointer(&path[0])), uintptr(len(path)))
	return syscall.UTF16ToString(path[:n])
}

// dllVersion reads the file version of the loaded DLL (best effort).
func dllVersion(d *syscall.DLL) string {
	ver, err := syscall.LoadDLL("version.dll")
	if err != nil {
		return ""
	}
	sizeProc, err1 := ver.FindProc("GetFileVersionInfoSizeW")
	infoProc, err2 := ver.FindProc("GetFileVersionInfoW")
	queryProc, err3 := ver.FindProc("VerQueryValueW")
	if err1 != nil || err2 != nil || err3 != nil {
		return ""
	}
	k32 := syscall.NewLazyDLL("kernel32.dll").NewProc("GetModuleFileNameW")
	path := make([]uint16, 1024)
	n, _, _ := k32.Call(uintptr(d.Handle), uintptr(unsafe.Pointer(&path[0])), uintptr(len(path)))
	if n == 0 {
		return ""
	}
	size, _, _ := sizeProc.Call(uintptr(unsafe.Pointer(&path[0])), 0)
	if size == 0 {
		return ""
	}
	buf := make([]byte, size)
	if r, _, _ := infoProc.Call(uintptr(unsafe.Pointer(&path[0])), 0, size, uintptr(unsafe.Pointer(&buf[0]))); r == 0 {
		return ""
	}
	root, _ := syscall.UTF16PtrFromString(`\`)
	var fixed unsafe.Pointer
	var flen uint32
	if r, _, _ := queryProc.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(root)), uintptr(unsafe.Pointer(&fixed)), uintptr(unsafe.Pointer(&flen))); r == 0 || flen < 52 {
		return ""
	}
	ms := *(*uint32)(unsafe.Add(fixed, 8))
	ls := *(*uint32)(unsafe.Add(fixed, 12))
	runtime.KeepAlive(buf)
	return fmt.Sprintf(" %d.%d.%d.%d", ms>>16, ms&0xffff, ls>>16, ls&0xffff)
}

// buffer creates a committed buffer resource.
func (b *Device) buffer(heapType uint32, size uint64, state uint32, flags uint32) (com, error) {
	hp := heapProperties{typ: heapType, creationNodeMask: 1, visibleNodeMask: 1}
	rd := resourceDesc{dimension: resourceDimensionBuffer, width: size, height: 1, depthOrArraySize: 1, mips: 1,
		sampleCount: 1, layout: layoutRowMajor, flags: flags}
	var res unsafe.Pointer
	r := call(b.dev, devCreateCommittedResource, uintptr(unsafe.Pointer(&hp)), 0, uintptr(unsafe.Pointer(&rd)), uintptr(state), 0, uintptr(unsafe.Pointer(&iidD3D12Resource)), uintptr(unsafe.Pointer(&res)))
	if err := check(r, "ID3D12Device::CreateCommittedResource"); err != nil {
		return nil, err
	}
	return com(res), nil
}

// mapBuffer maps subresource 0 of an upload or readback buffer.
func mapBuffer(res com, size uint64) ([]byte, error) {
	var p unsafe.Pointer
	if err := check(call(res, resMap, 0, 0, uintptr(unsafe.Pointer(&p))), "ID3D12Resource::Map"); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), size), nil
}
