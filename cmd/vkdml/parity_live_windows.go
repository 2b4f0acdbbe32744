//go:build windows

package main

// parity --live's devices: DirectML on a DXGI adapter, vkdml on the Vulkan
// device with the same LUID.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/dmlcom"
)

func init() {
	openLive = openLiveWindows
	exitLive = dmlcom.ExitNow
}

// livePair is the adapter and Vulkan device a live run uses.
type livePair struct {
	adapter  *dmlcom.Adapter // nil: D3D12's default adapter
	vkIndex  int             // -1: vkdml's default device
	how      string          // how they were paired
	fellBack bool
}

// pairDevices pairs a DXGI adapter with a Vulkan device: the ones named,
// else the first adapter (in DXGI's order) whose LUID a Vulkan device
// reports. When no LUID matches (under Wine, Wine's DXGI adapters and
// winevulkan's devices carry different LUIDs) it falls back to naming: the
// adapter named (or D3D12's default) and the Vulkan device named (or
// vkdml's default).
func pairDevices(adapters []*dmlcom.Adapter, infos []*gpu.DeviceInfo, adapterSel string, vkSel int) (livePair, error) {
	p := livePair{vkIndex: vkSel}
	if adapterSel != "" {
		for _, a := range adapters {
			if strconv.Itoa(a.Index) == adapterSel || (adapterSel != "" && strings.Contains(strings.ToLower(a.Name), strings.ToLower(adapterSel))) {
				p.adapter = a
				break
			}
		}
		if p.adapter == nil {
			var names []string
			for _, a := range adapters {
				names = append(names, fmt.Sprintf("%d %q", a.Index, a.Name))
			}
			return p, fmt.Errorf("%w: --adapter %s: no DXGI adapter has that index or name (adapters: %s)", errUsage, adapterSel, strings.Join(names, ", "))
		}
	}
	lookVk := func(a *dmlcom.Adapter) int {
		for i, d := range infos {
			if d.LUIDValid && d.DeviceLUID == a.LUID {
				return i
			}
		}
		return -1
	}
	switch {
	case p.adapter != nil && vkSel >= 0:
		p.how = "named with --adapter and --device"
		if infos[vkSel].LUIDValid && infos[vkSel].DeviceLUID == p.adapter.LUID {
			p.how += " (their LUIDs match)"
		} else {
			p.how += " (their LUIDs differ)"
		}
	case p.adapter != nil:
		if i := lookVk(p.adapter); i >= 0 {
			p.vkIndex, p.how = i, "by LUID, from --adapter"
		} else {
			p.how, p.fellBack = "no Vulkan device has --adapter's LUID: vkdml on its default device", true
		}
	case vkSel >= 0:
		for _, a := range adapters {
			if infos[vkSel].LUIDValid && infos[vkSel].DeviceLUID == a.LUID {
				p.adapter, p.how = a, "by LUID, from --device"
			}
		}
		if p.adapter == nil {
			p.how, p.fellBack = "no DXGI adapter has --device's LUID: DirectML on the default D3D12 adapter", true
		}
	default:
		for _, a := range adapters {
			if i := lookVk(a); i >= 0 {
				p.adapter, p.vkIndex, p.how = a, i, "by LUID"
				break
			}
		}
		if p.adapter == nil {
			p.how, p.fellBack = "no Vulkan device's LUID matches a DXGI adapter's (under Wine, Wine's DXGI adapters and winevulkan's devices carry different LUIDs): the default D3D12 adapter and vkdml's default device (name them with --adapter and --device)", true
		}
	}
	return p, nil
}

func openLiveWindows(o *liveOptions) (*liveRig, error) {
	adapters, err := dmlcom.Adapters()
	if err != nil {
		return nil, fmt.Errorf("listing the DXGI adapters: %w", err)
	}
	infos, def, err := gpu.Enumerate(o.dev.Device)
	if err != nil {
		return nil, err
	}
	vkSel := -1
	if o.dev.Device != "" {
		if def < 0 {
			return nil, fmt.Errorf("%w: --device %s: no usable Vulkan device matches", errUsage, o.dev.Device)
		}
		vkSel = def
	}
	ptrs := make([]*dmlcom.Adapter, len(adapters))
	for i := range adapters {
		ptrs[i] = &adapters[i]
	}
	p, err := pairDevices(ptrs, infos, o.adapter, vkSel)
	if err != nil {
		return nil, err
	}
	dm, err := dmlcom.Open(dmlcom.Options{DLL: o.dll, Adapter: p.adapter})
	if err != nil {
		return nil, err
	}
	opts := o.dev
	if p.vkIndex >= 0 {
		opts.Device = strconv.Itoa(p.vkIndex)
	}
	vd, err := createDevice(opts)
	if err != nil {
		dm.Close()
		return nil, err
	}
	adapterDesc := "the default D3D12 adapter"
	if p.adapter != nil {
		adapterDesc = p.adapter.String()
	} else if len(adapters) > 0 {
		adapterDesc += " (" + adapters[0].String() + ")"
	}
	info := vd.GPU().Info
	vkDesc := fmt.Sprintf("Vulkan device %d %q (%s %s, LUID %x", info.Index, info.Name, info.DriverName, info.DriverInfo, info.DeviceLUID)
	if !info.LUIDValid {
		vkDesc += " not valid"
	}
	vkDesc += ")"
	version := dm.DLLVersion()
	if version == "" {
		version = "version unknown"
	}
	rig := &liveRig{dml: dm, vk: vd, header: []string{
		fmt.Sprintf("parity --live: DirectML.dll %s (%s) on %s; vkdml (version %s) on %s", dm.DLLPath(), version, adapterDesc, vkdmlVersion(), vkDesc),
		"paired " + p.how,
	}}
	if p.fellBack {
		rig.header[1] = "paired by naming, not by LUID: " + p.how
	}
	return rig, nil
}
