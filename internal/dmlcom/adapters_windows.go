//go:build windows

package dmlcom

// DXGI's adapters: which D3D12 device goes on which GPU.

import (
	"fmt"
	"syscall"
	"unsafe"
)

var iidDXGIFactory1 = guid{0x770aae78, 0xf26f, 0x4dba, [8]byte{0xa8, 0x29, 0x25, 0x3c, 0x83, 0xd1, 0xb3, 0x87}}

// Vtable slots (IUnknown 0-2, IDXGIObject 3-6).
const (
	factoryEnumAdapters1 = 12
	adapterGetDesc1      = 10

	dxgiErrorNotFound       = 0x887A0002
	dxgiAdapterFlagSoftware = 2
)

// adapterDesc1 is DXGI_ADAPTER_DESC1.
type adapterDesc1 struct {
	description                                   [128]uint16
	vendorID, deviceID, subSysID, revision        uint32
	dedicatedVideo, dedicatedSystem, sharedSystem uintptr
	luid                                          [8]byte
	flags                                         uint32
}

// Adapter is one DXGI adapter.
type Adapter struct {
	Index              int
	Name               string
	VendorID, DeviceID uint32
	// LUID is the adapter's locally unique id, in the byte order Vulkan's
	// VkPhysicalDeviceIDProperties.deviceLUID has (LowPart, then HighPart,
	// little-endian).
	LUID     [8]byte
	Software bool
}

func (a Adapter) String() string {
	s := fmt.Sprintf("DXGI adapter %d %q (%04x:%04x, LUID %x)", a.Index, a.Name, a.VendorID, a.DeviceID, a.LUID)
	if a.Software {
		s += " software"
	}
	return s
}

// factory creates an IDXGIFactory1.
func factory() (com, error) {
	dxgi, err := syscall.LoadDLL("dxgi.dll")
	if err != nil {
		return nil, fmt.Errorf("loading dxgi.dll: %w", err)
	}
	create, err := dxgi.FindProc("CreateDXGIFactory1")
	if err != nil {
		return nil, err
	}
	var f unsafe.Pointer
	r, _, _ := create.Call(uintptr(unsafe.Pointer(&iidDXGIFactory1)), uintptr(unsafe.Pointer(&f)))
	if err := check(r, "CreateDXGIFactory1"); err != nil {
		return nil, err
	}
	return com(f), nil
}

// enumAdapters calls visit with each adapter (released after visit
// returns, unless visit says to keep it) until visit returns true.
func enumAdapters(visit func(a com, d Adapter) (stop bool)) error {
	f, err := factory()
	if err != nil {
		return err
	}
	defer release(f)
	for i := 0; ; i++ {
		var a unsafe.Pointer
		r := call(f, factoryEnumAdapters1, uintptr(i), uintptr(unsafe.Pointer(&a)))
		if uint32(r) == dxgiErrorNotFound {
			return nil
		}
		if err := check(r, "IDXGIFactory1::EnumAdapters1"); err != nil {
			return err
		}
		var desc adapterDesc1
		if err := check(call(com(a), adapterGetDesc1, uintptr(unsafe.Pointer(&desc))), "IDXGIAdapter1::GetDesc1"); err != nil {
			release(com(a))
			return err
		}
		d := Adapter{Index: i, Name: syscall.UTF16ToString(desc.description[:]), VendorID: desc.vendorID, DeviceID: desc.deviceID,
			LUID: desc.luid, Software: desc.flags&dxgiAdapterFlagSoftware != 0}
		if visit(com(a), d) {
			return nil
		}
		release(com(a))
	}
}

// Adapters lists DXGI's adapters in its order.
func Adapters() ([]Adapter, error) {
	var list []Adapter
	err := enumAdapters(func(_ com, d Adapter) bool {
		list = append(list, d)
		return false
	})
	return list, err
}

// adapterByLUID returns the IDXGIAdapter1 with the LUID (the caller
// releases it).
func adapterByLUID(luid [8]byte) (com, error) {
	var found com
	err := enumAdapters(func(a com, d Adapter) bool {
		if d.LUID == luid {
			found = a
			return true
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("no DXGI adapter has LUID %x", luid)
	}
	return found, nil
}
