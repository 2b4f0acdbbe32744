package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/cgo"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ValidationLayer is the Khronos validation layer vkdml enables in debug mode.
const ValidationLayer = "VK_LAYER_KHRONOS_validation"

// ErrValidation is wrapped by every error that reports validation-layer
// messages (debug mode only).
var ErrValidation = errors.New("gpu: Vulkan validation")

// Options configure Open.
type Options struct {
	// Debug turns on the Khronos validation layer with synchronization
	// validation; every error or warning it reports becomes a returned
	// error. Open fails when the layer is not installed.
	Debug bool
	// Device picks the physical device by index or by a case-insensitive
	// substring of its name. Empty means $VKDML_DEVICE, and when that is
	// empty too: discrete, then integrated, then virtual, then CPU.
	Device string
	// Disable pretends the device lacks these features, so that the
	// fallback kernels can be tested on a device that has them.
	Disable Features
	// PipelineCacheDir is where the pipeline cache is kept, keyed by device
	// UUID and driver version. Empty means $XDG_CACHE_HOME/vkdml (or
	// ~/.cache/vkdml); "off" keeps no cache on disk.
	PipelineCacheDir string
	// ForceStaging keeps tensors in memory the host does not map, with
	// uploads and readbacks through a staging copy, as on a discrete GPU
	// without resizable BAR, so that path is tested on any device.
	ForceStaging bool
}

// instance is a VkInstance with its optional debug messenger.
type instance struct {
	inst      C.VkInstance
	messenger C.VkDebugUtilsMessengerEXT
	sink      *messageSink
	handle    cgo.Handle
}

// messageSink collects validation messages between checks.
type messageSink struct {
	mu   sync.Mutex
	msgs []string
}

//export vkdmlDebugMessage
func vkdmlDebugMessage(user C.uintptr_t, severity C.int, types C.int, id *C.char, msg *C.char) {
	sink := cgo.Handle(user).Value().(*messageSink)
	level := "warning"
	if severity&0x1000 != 0 {
		level = "error"
	}
	sink.mu.Lock()
	sink.msgs = append(sink.msgs, fmt.Sprintf("%s: %s: %s", level, C.GoString(id), C.GoString(msg)))
	sink.mu.Unlock()
}

func newInstance(debug bool) (*instance, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	version := uint32(C.vkdml_instance_version())
	if version < (1<<22 | 1<<12) {
		return nil, fmt.Errorf("gpu: the Vulkan loader supports %s; vkdml needs 1.1", VersionString(version))
	}
	api := uint32(1<<22 | 3<<12) // ask for 1.3; devices report what they have
	if version < api {
		api = version
	}
	validation, debugUtils := 0, 0
	if debug {
		layer := C.CString(ValidationLayer)
		ok := C.vkdml_has_instance_layer(layer) != 0
		C.free(unsafe.Pointer(layer))
		if !ok {
			return nil, fmt.Errorf("gpu: debug mode needs %s (Debian: vulkan-validationlayers)", ValidationLayer)
		}
		validation, debugUtils = 1, 1
	}
	in := &instance{}
	if r := C.vkdml_create_instance(C.uint32_t(api), C.int(validation), C.int(validation), C.int(debugUtils), &in.inst); r != C.VK_SUCCESS {
		return nil, check("vkCreateInstance", r)
	}
	if debug {
		in.sink = &messageSink{}
		in.handle = cgo.NewHandle(in.sink)
		if r := C.vkdml_create_debug_messenger(in.inst, C.uintptr_t(in.handle), &in.messenger); r != C.VK_SUCCESS {
			in.handle.Delete()
			C.vkdml_destroy_instance(in.inst)
			return nil, check("vkCreateDebugUtilsMessengerEXT", r)
		}
	}
	return in, nil
}

func (in *instance) destroy() {
	if in.messenger != 0 {
		C.vkdml_destroy_debug_messenger(in.inst, in.messenger)
		in.handle.Delete()
	}
	C.vkdml_destroy_instance(in.inst)
}

func (in *instance) physicalDevices() ([]C.VkPhysicalDevice, error) {
	var n C.uint32_t
	if err := check("vkEnumeratePhysicalDevices", C.vkdml_enumerate_physical_devices(in.inst, &n, nil)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	// The handles are written into C memory: a VkPhysicalDevice is a C
	// pointer, which Go memory handed to C must not receive.
	buf := (*C.VkPhysicalDevice)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.VkPhysicalDevice(nil)))))
	defer C.free(unsafe.Pointer(buf))
	if err := check("vkEnumeratePhysicalDevices", C.vkdml_enumerate_physical_devices(in.inst, &n, buf)); err != nil {
		return nil, err
	}
	return append([]C.VkPhysicalDevice(nil), unsafe.Slice(buf, int(n))...), nil
}

// Enumerate lists every Vulkan device vkdml can see, in the loader's order,
// and the index of the one Open would pick with the same selector (-1 when
// none is usable).
func Enumerate(selector string) ([]*DeviceInfo, int, error) {
	in, err := newInstance(false)
	if err != nil {
		return nil, -1, err
	}
	defer in.destroy()
	pds, err := in.physicalDevices()
	if err != nil {
		return nil, -1, err
	}
	infos := make([]*DeviceInfo, len(pds))
	for i, pd := range pds {
		infos[i] = queryDevice(pd, i)
	}
	pick, err := choose(infos, selector)
	if err != nil {
		return infos, -1, nil
	}
	return infos, pick, nil
}

// choose applies the selection rules to infos.
func choose(infos []*DeviceInfo, selector string) (int, error) {
	if selector == "" {
		selector = os.Getenv("VKDML_DEVICE")
	}
	if len(infos) == 0 {
		return -1, ErrNoDevice
	}
	if selector != "" {
		if i, err := strconv.Atoi(selector); err == nil {
			if i < 0 || i >= len(infos) {
				return -1, fmt.Errorf("%w: device index %d out of range [0,%d)", ErrNoDevice, i, len(infos))
			}
			if why := infos[i].Usable(); why != "" {
				return -1, fmt.Errorf("%w: device %d (%s): %s", ErrNoDevice, i, infos[i].Name, why)
			}
			return i, nil
		}
		for i, d := range infos {
			if strings.Contains(strings.ToLower(d.Name), strings.ToLower(selector)) && d.Usable() == "" {
				return i, nil
			}
		}
		return -1, fmt.Errorf("%w: no usable device name contains %q", ErrNoDevice, selector)
	}
	order := make([]int, 0, len(infos))
	for i, d := range infos {
		if d.Usable() == "" {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return -1, fmt.Errorf("%w: %d device(s) found, none usable (%s)", ErrNoDevice, len(infos), infos[0].Usable())
	}
	sort.SliceStable(order, func(a, b int) bool {
		return infos[order[a]].Type.Preference() < infos[order[b]].Type.Preference()
	})
	return order[0], nil
}

// Device is an open Vulkan device with one compute queue. Its methods are
// safe for concurrent use.
type Device struct {
	Info     *DeviceInfo
	Features Features // what is enabled: the device's features less Options.Disable
	Limits   Limits

	in      *instance
	dev     C.VkDevice
	queue   C.VkQueue
	queueMu sync.Mutex
	family  uint32
	debug   bool
	lost    atomic.Bool
	closed  atomic.Bool
	cache   *pipelineCache
	mem     *allocator
	closeMu sync.Mutex
}

// Open creates a device as Options say.
func Open(opts Options) (*Device, error) {
	in, err := newInstance(opts.Debug)
	if err != nil {
		return nil, err
	}
	d, err := openOn(in, opts)
	if err != nil {
		in.destroy()
		return nil, err
	}
	return d, nil
}

func openOn(in *instance, opts Options) (*Device, error) {
	pds, err := in.physicalDevices()
	if err != nil {
		return nil, err
	}
	infos := make([]*DeviceInfo, len(pds))
	for i, pd := range pds {
		infos[i] = queryDevice(pd, i)
	}
	pick, err := choose(infos, opts.Device)
	if err != nil {
		return nil, err
	}
	info := infos[pick]
	feat := info.Features.Without(opts.Disable)
	on := C.vkdml_device_features{}
	b := func(v bool) C.uint32_t {
		if v {
			return 1
		}
		return 0
	}
	on.shader_int64 = b(feat.ShaderInt64)
	on.shader_int16 = b(feat.ShaderInt16)
	on.shader_int8 = b(feat.ShaderInt8)
	on.shader_float16 = b(feat.ShaderFloat16)
	on.storage_buffer_16bit = b(feat.StorageBuffer16Bit)
	on.storage_buffer_8bit = b(feat.StorageBuffer8Bit)
	on.subgroup_size_control = b(feat.SubgroupSizeControl)
	on.compute_full_subgroups = b(feat.ComputeFullSubgroups)
	on.subgroup_extended_types = b(feat.SubgroupExtendedTypes)

	d := &Device{Info: info, Features: feat, Limits: info.Limits, in: in, family: uint32(info.computeFamily), debug: opts.Debug}
	if r := C.vkdml_create_device(pds[pick], &info.raw, &on, &d.dev); r != C.VK_SUCCESS {
		return nil, check("vkCreateDevice", r)
	}
	d.queue = C.vkdml_get_queue(d.dev, C.uint32_t(d.family))
	d.mem = newAllocator(d, opts.ForceStaging)
	d.cache = openPipelineCache(d, opts.PipelineCacheDir)
	if err := d.TakeValidationError(); err != nil {
		d.destroy()
		return nil, err
	}
	return d, nil
}

// Debug reports whether the validation layer is on.
func (d *Device) Debug() bool { return d.debug }

// TakeValidationError returns the validation messages reported since the
// last call as one error wrapping ErrValidation, or nil when there were none.
func (d *Device) TakeValidationError() error {
	if d.in.sink == nil {
		return nil
	}
	d.in.sink.mu.Lock()
	msgs := d.in.sink.msgs
	d.in.sink.msgs = nil
	d.in.sink.mu.Unlock()
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d message(s):\n%s", ErrValidation, len(msgs), strings.Join(msgs, "\n"))
}

// alive returns ErrDeviceLost once the device is lost, and an error after
// Close.
func (d *Device) alive() error {
	if d.lost.Load() {
		return &Error{Call: "device", Result: -4}
	}
	if d.closed.Load() {
		return errors.New("gpu: device is closed")
	}
	return nil
}

// result turns r into an error and remembers a device loss.
func (d *Device) result(call string, r C.VkResult) error {
	err := check(call, r)
	if err != nil && errors.Is(err, ErrDeviceLost) {
		d.lost.Store(true)
	}
	return err
}

// Lost reports whether the device has been lost.
func (d *Device) Lost() bool { return d.lost.Load() }

// WaitIdle waits for all submitted work.
func (d *Device) WaitIdle() error {
	d.queueMu.Lock()
	defer d.queueMu.Unlock()
	return d.result("vkDeviceWaitIdle", C.vkdml_device_wait_idle(d.dev))
}

// Close waits for the device, saves the pipeline cache and destroys
// everything vkdml created on it. Objects created from the device must be
// closed first; in debug mode, anything left behind is reported as an error.
func (d *Device) Close() error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	if d.closed.Swap(true) {
		return nil
	}
	C.vkdml_device_wait_idle(d.dev)
	d.cache.save()
	d.destroy()
	err := d.TakeValidationError()
	d.in.destroy()
	return err
}

func (d *Device) destroy() {
	d.mem.destroy()
	d.cache.destroy()
	C.vkdml_destroy_device(d.dev)
}
