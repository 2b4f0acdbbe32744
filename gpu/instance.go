package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// ValidationLayer is the Khronos validation layer vkdml enables in debug mode.
const ValidationLayer = "VK_LAYER_KHRONOS_validation"

// instance is a VkInstance with, in debug mode, its debug messenger and the
// devices' message sinks. vkdml creates at most two per process (see
// sharedInstance) and never destroys them.
type instance struct {
	inst      C.VkInstance
	messenger C.VkDebugUtilsMessengerEXT
	handle    cgo.Handle // of the instance itself, for the messenger callback

	mu      sync.Mutex
	sinks   map[*messageSink]struct{}
	orphans []string // messages that arrived while no device was open
}

// messageSink collects one device's validation messages between checks.
type messageSink struct {
	device uint64 // the VkDevice as an integer; 0 until it is created (guarded by the instance's mu)
	mu     sync.Mutex
	msgs   []string
}

// maxOrphans bounds the messages kept while no device listens.
const maxOrphans = 100

// shared holds the process's instances: one plain, created on first use,
// and one with the validation layer, created when a debug device is first
// asked for. Some drivers (NVIDIA 580 under loader 1.3.239) refuse
// vkCreateInstance after about 30 create/destroy cycles in one process, so
// devices come and go on instances that stay.
var shared struct {
	mu           sync.Mutex
	plain, debug *instance
}

// sharedInstance returns the process's plain or debug instance, creating
// it on first use. A failure is not remembered: the next call tries again.
func sharedInstance(debug bool) (*instance, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	slot := &shared.plain
	if debug {
		slot = &shared.debug
	}
	if *slot == nil {
		in, err := newInstance(debug)
		if err != nil {
			return nil, err
		}
		*slot = in
	}
	return *slot, nil
}

//export vkdmlDebugMessage
func vkdmlDebugMessage(user C.uintptr_t, severity C.int, types C.int, id *C.char, msg *C.char, device C.uint64_t) {
	in := cgo.Handle(user).Value().(*instance)
	level := "warning"
	if severity&0x1000 != 0 {
		level = "error"
	}
	in.deliver(uint64(device), fmt.Sprintf("%s: %s: %s", level, C.GoString(id), C.GoString(msg)))
}

// deliver hands a message to the device it names, or, when it names none
// that is open, to every open device, so that no message is lost even if
// one is reported twice; with no device open it is kept for the next one.
func (in *instance) deliver(device uint64, text string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	var to []*messageSink
	for s := range in.sinks {
		if device != 0 && s.device == device {
			to = []*messageSink{s}
			break
		}
		to = append(to, s)
	}
	if len(to) == 0 {
		if len(in.orphans) < maxOrphans {
			in.orphans = append(in.orphans, text)
		}
		return
	}
	for _, s := range to {
		s.add(text)
	}
}

func (s *messageSink) add(text string) {
	s.mu.Lock()
	s.msgs = append(s.msgs, text)
	s.mu.Unlock()
}

// take returns and clears the collected messages.
func (s *messageSink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := s.msgs
	s.msgs = nil
	return msgs
}

// listen registers a sink for a new device; it receives the messages that
// arrived while no device was open.
func (in *instance) listen() *messageSink {
	s := &messageSink{}
	if in.handle == 0 {
		return s // no messenger: nothing will arrive
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.sinks == nil {
		in.sinks = map[*messageSink]struct{}{}
	}
	in.sinks[s] = struct{}{}
	for _, m := range in.orphans {
		s.add("(before this device was opened) " + m)
	}
	in.orphans = nil
	return s
}

// ignore unregisters a sink.
// bind names the device whose messages s collects. It takes the lock
// deliver reads the sinks' devices under: the messenger may report for
// another device while this one is being opened.
func (in *instance) bind(s *messageSink, device uint64) {
	in.mu.Lock()
	s.device = device
	in.mu.Unlock()
}

func (in *instance) ignore(s *messageSink) {
	in.mu.Lock()
	delete(in.sinks, s)
	in.mu.Unlock()
}

func newInstance(debug bool) (*instance, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	version := uint32(C.vkdml_instance_version())
	if version < (1<<22 | 1<<12) {
		return nil, fmt.Errorf("gpu: the Vulkan loader supports %s; vkdml needs 1.1: %s", VersionString(version), oldLoaderHint())
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
		switch {
		case ok:
			validation, debugUtils = 1, 1
		case hostValidation():
			debugUtils = 1 // the layer is on below the loader the process sees
		default:
			return nil, fmt.Errorf("gpu: debug mode needs %s (%s)", ValidationLayer, missingLayerHint())
		}
	}
	in := &instance{}
	if r := C.vkdml_create_instance(C.uint32_t(api), C.int(validation), C.int(validation), C.int(debugUtils), &in.inst); r != C.VK_SUCCESS {
		return nil, check("vkCreateInstance", r)
	}
	if debug {
		in.handle = cgo.NewHandle(in)
		if r := C.vkdml_create_debug_messenger(in.inst, C.uintptr_t(in.handle), &in.messenger); r != C.VK_SUCCESS {
			in.handle.Delete()
			C.vkdml_destroy_instance(in.inst)
			return nil, check("vkCreateDebugUtilsMessengerEXT", r)
		}
	}
	return in, nil
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
