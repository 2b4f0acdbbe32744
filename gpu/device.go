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
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/vkdml/vkdml/caps"
)

// ErrValidation is wrapped by every error that reports validation-layer
// messages (debug mode only).
var ErrValidation = errors.New("gpu: Vulkan validation")

// CloseTimeout bounds how long Device.Close waits for submitted work. When
// the work is not done by then, Close frees nothing the GPU may still use:
// it returns an error wrapping ErrTimeout and abandons the device's memory.
var CloseTimeout = 30 * time.Second

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
	Disable caps.Features
	// PipelineCacheDir is where the pipeline cache is kept, keyed by device
	// UUID and driver version. Empty means vkdml in os.UserCacheDir:
	// $XDG_CACHE_HOME/vkdml (or ~/.cache/vkdml) on Linux,
	// %LocalAppData%\vkdml on Windows; "off" keeps no cache on disk.
	PipelineCacheDir string
	// ForceStaging keeps tensors in memory the host does not map, with
	// uploads and readbacks through a staging copy, as on a discrete GPU
	// without resizable BAR, so that path is tested on any device.
	ForceStaging bool
	// MaxAllocation, when not 0, lets a buffer larger than one allocation
	// span several, of at most MaxAllocation bytes each (rounded down to
	// BufferAlignment, and at most the device's maxMemoryAllocationSize:
	// math.MaxUint64 means the device's own cap). Device.Limits then
	// report it as MaxMemoryAllocationSize, and MaxStorageBufferRange is
	// lowered to it, so that every binding window fits one allocation.
	// Small values exercise the split on any device. 0 keeps one
	// allocation per buffer, and a larger buffer fails with ErrOutOfMemory.
	MaxAllocation uint64
	// MaxSharedMemory, when not 0, lowers Limits.MaxComputeSharedMemorySize
	// to it (at least MinSharedMemory, and never above the device's own),
	// so that the plans and refusals for devices with less shared memory
	// than this one (Vulkan's least is 16384 bytes) run on any device.
	MaxSharedMemory uint32
}

// MinSharedMemory is Vulkan's least maxComputeSharedMemorySize, the
// smallest Options.MaxSharedMemory.
const MinSharedMemory = 16384

// MinAllocation is the smallest Options.MaxAllocation.
const MinAllocation = 4096

// Enumerate lists every Vulkan device vkdml can see, in the loader's order,
// and the index of the one Open would pick with the same selector (-1 when
// none is usable).
func Enumerate(selector string) ([]*DeviceInfo, int, error) {
	in, err := sharedInstance(false)
	if err != nil {
		return nil, -1, err
	}
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
// safe for concurrent use, and so are those of the objects it creates as far
// as memory safety goes: after Close every call on the device or on a
// Buffer, Kernel or CommandList of it returns an error wrapping
// ErrDeviceClosed.
type Device struct {
	Info     *DeviceInfo   // the physical device, as read when it was opened
	Features caps.Features // what is enabled: the device's features less Options.Disable
	Limits   caps.Limits   // the device's limits (Info.Limits)

	in     *instance
	sink   *messageSink
	dev    C.VkDevice
	queue  C.VkQueue
	family uint32
	debug  bool
	cache  *pipelineCache
	mem    *allocator

	// life is held shared by every call that uses the device's Vulkan
	// handles and exclusively by Close, so that Close never destroys what
	// a call is using. A call takes it before any object's own lock.
	life    sync.RWMutex
	closed  atomic.Bool
	lost    atomic.Bool
	queueMu sync.Mutex

	// objMu guards the registries of live kernels and lists and the set of
	// submissions not yet known complete.
	objMu   sync.Mutex
	kernels map[*Kernel]struct{}
	lists   map[*CommandList]struct{}
	pending map[*CommandList]struct{}
}

// Open creates a device as Options say, on the process's shared Vulkan
// instance (with the validation layer when Debug is set).
func Open(opts Options) (*Device, error) {
	in, err := sharedInstance(opts.Debug)
	if err != nil {
		return nil, err
	}
	return openOn(in, opts)
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
	d := &Device{Info: info, Features: feat, Limits: info.Limits, in: in, family: uint32(info.computeFamily), debug: opts.Debug,
		kernels: map[*Kernel]struct{}{}, lists: map[*CommandList]struct{}{}, pending: map[*CommandList]struct{}{}}
	if m := opts.MaxSharedMemory; m != 0 {
		if m < MinSharedMemory {
			return nil, fmt.Errorf("gpu: Options.MaxSharedMemory %d is below Vulkan's least maxComputeSharedMemorySize, %d bytes", m, MinSharedMemory)
		}
		d.Limits.MaxComputeSharedMemorySize = min(d.Limits.MaxComputeSharedMemorySize, m)
	}
	if opts.MaxAllocation != 0 {
		if opts.MaxAllocation < MinAllocation {
			return nil, fmt.Errorf("gpu: Options.MaxAllocation %d is below the minimum of %d bytes", opts.MaxAllocation, MinAllocation)
		}
		devCap := d.Limits.MaxMemoryAllocationSize
		if m := d.Limits.MaxBufferSize; m != 0 && m < devCap || devCap == 0 {
			devCap = max(m, 1<<30)
		}
		capped := min(opts.MaxAllocation, devCap) &^ (BufferAlignment - 1)
		d.Limits.MaxMemoryAllocationSize = capped
		if uint64(d.Limits.MaxStorageBufferRange) > capped {
			d.Limits.MaxStorageBufferRange = uint32(capped)
		}
	}
	d.sink = in.listen()
	on := deviceFeatures(feat)
	if r := C.vkdml_create_device(pds[pick], &info.raw, &on, &d.dev); r != C.VK_SUCCESS {
		err := check("vkCreateDevice", r)
		in.ignore(d.sink)
		return nil, errors.Join(err, d.TakeValidationError())
	}
	in.bind(d.sink, uint64(uintptr(unsafe.Pointer(d.dev))))
	d.queue = C.vkdml_get_queue(d.dev, C.uint32_t(d.family))
	d.mem = newAllocator(d, opts.ForceStaging)
	d.mem.segmented = opts.MaxAllocation != 0
	d.cache = openPipelineCache(d, opts.PipelineCacheDir)
	if err := d.TakeValidationError(); err != nil {
		d.destroy()
		in.ignore(d.sink)
		return nil, err
	}
	return d, nil
}

// deviceFeatures is what to enable at device creation.
func deviceFeatures(feat caps.Features) C.vkdml_device_features {
	b := func(v bool) C.uint32_t {
		if v {
			return 1
		}
		return 0
	}
	return C.vkdml_device_features{
		shader_int64:            b(feat.ShaderInt64),
		shader_int16:            b(feat.ShaderInt16),
		shader_int8:             b(feat.ShaderInt8),
		shader_float16:          b(feat.ShaderFloat16),
		storage_buffer_16bit:    b(feat.StorageBuffer16Bit),
		storage_buffer_8bit:     b(feat.StorageBuffer8Bit),
		subgroup_size_control:   b(feat.SubgroupSizeControl),
		compute_full_subgroups:  b(feat.ComputeFullSubgroups),
		subgroup_extended_types: b(feat.SubgroupExtendedTypes),
	}
}

// Debug reports whether the validation layer is on (false for a nil
// Device).
func (d *Device) Debug() bool { return d != nil && d.debug }

// TakeValidationError returns the validation messages reported since the
// last call as one error wrapping ErrValidation, or nil when there were none.
func (d *Device) TakeValidationError() error {
	if d == nil || d.sink == nil {
		return nil
	}
	msgs := d.sink.take()
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d message(s):\n%s", ErrValidation, len(msgs), strings.Join(msgs, "\n"))
}

// enter takes the device's life lock shared for a call named call and
// reports ErrDeviceClosed after Close; on success the caller must call
// d.life.RUnlock.
func (d *Device) enter(call string) error {
	if d == nil || d.dev == nil {
		return fmt.Errorf("gpu: %s: a nil or zero Device (use Open): %w", call, ErrReleased)
	}
	d.life.RLock()
	if d.closed.Load() {
		d.life.RUnlock()
		return fmt.Errorf("gpu: %s: %w", call, ErrDeviceClosed)
	}
	return nil
}

// enterRelease is enter for a call that releases an object: Close freed
// everything, so after it there is nothing to release and entered is false
// with a nil error.
func (d *Device) enterRelease(call string) (entered bool, err error) {
	err = d.enter(call)
	if errors.Is(err, ErrDeviceClosed) {
		return false, nil
	}
	return err == nil, err
}

// destroyHandle destroys the Vulkan object *h, if any, and zeroes *h, so
// that freeing twice destroys once.
func destroyHandle[H comparable](h *H, destroy func(H)) {
	var none H
	if *h != none {
		destroy(*h)
		*h = none
	}
}

// enterUsable is enter for a call that creates an object: a lost device
// refuses it too (usable), and then the life lock is not held.
func (d *Device) enterUsable(call string) error {
	if err := d.enter(call); err != nil {
		return err
	}
	if err := d.usable(call); err != nil {
		d.life.RUnlock()
		return err
	}
	return nil
}

// usable returns ErrDeviceLost once the device is lost.
func (d *Device) usable(call string) error {
	if d.lost.Load() {
		return fmt.Errorf("gpu: %s: %w", call, &Error{Call: "device", Result: resultDeviceLost})
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

// Lost reports whether the device has been lost (false for a nil Device).
func (d *Device) Lost() bool { return d != nil && d.lost.Load() }

// Closed reports whether Close has been called (false for a nil Device,
// which was never opened).
func (d *Device) Closed() bool { return d != nil && d.closed.Load() }

// WaitIdle waits for all submitted work, at most SubmitTimeout; work that
// is done is then known complete, as if each list had been waited for.
func (d *Device) WaitIdle() error {
	if err := d.enter("WaitIdle"); err != nil {
		return err
	}
	defer d.life.RUnlock()
	return d.waitPending("Device.WaitIdle", SubmitTimeout)
}

// Close waits for submitted work (at most CloseTimeout), saves the pipeline
// cache and destroys everything vkdml created on the device: buffers,
// kernels and command lists left alive are freed with it. In debug mode,
// kernels and lists left alive are reported as an error, as are validation
// messages. Close is idempotent: later calls return nil.
//
// When the wait times out, the device and everything on it are abandoned
// rather than freed, since the GPU may still be using them, and Close
// returns an error wrapping ErrTimeout.
func (d *Device) Close() error {
	if d == nil || d.dev == nil {
		return nil
	}
	d.life.Lock()
	defer d.life.Unlock()
	if d.closed.Swap(true) {
		return nil
	}
	defer d.in.ignore(d.sink)
	if err := d.waitPending("Device.Close", CloseTimeout); err != nil && !d.lost.Load() {
		return fmt.Errorf("%w; the device and its memory are abandoned, not freed", err)
	}
	C.vkdml_device_wait_idle(d.dev)
	d.cache.save()
	left := d.destroyObjects()
	d.destroy()
	err := d.TakeValidationError()
	if left != "" && d.debug {
		err = errors.Join(fmt.Errorf("%w: Close: not destroyed before vkDestroyDevice: %s (Close destroyed them)", ErrValidation, left), err)
	}
	return err
}

// destroyObjects destroys the kernels and lists still alive and says what
// they were ("" when none).
func (d *Device) destroyObjects() string {
	d.objMu.Lock()
	lists, kernels := d.lists, d.kernels
	d.lists, d.kernels = nil, nil
	d.objMu.Unlock()
	var left []string
	n := 0
	for l := range lists {
		l.mu.Lock()
		if !l.destroyed {
			n++
		}
		l.free()
		l.mu.Unlock()
	}
	if n > 0 {
		left = append(left, fmt.Sprintf("%d command list(s)", n))
	}
	n = 0
	for k := range kernels {
		k.mu.Lock()
		if !k.released {
			n++
		}
		k.free()
		k.mu.Unlock()
	}
	if n > 0 {
		left = append(left, fmt.Sprintf("%d kernel(s)", n))
	}
	return strings.Join(left, ", ")
}

func (d *Device) destroy() {
	d.mem.destroy()
	d.cache.destroy()
	C.vkdml_destroy_device(d.dev)
}
