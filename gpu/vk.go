package gpu

/*
#cgo linux LDFLAGS: -ldl
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// ErrNoLoader is returned when libvulkan.so.1 cannot be opened.
var ErrNoLoader = errors.New("gpu: no Vulkan loader (libvulkan.so.1)")

// ErrDeviceLost is the sentinel for VK_ERROR_DEVICE_LOST: the device is
// unusable and every later call on it fails with this error.
var ErrDeviceLost = errors.New("gpu: device lost")

// ErrNoDevice is returned when no usable Vulkan device is present.
var ErrNoDevice = errors.New("gpu: no Vulkan device")

// ErrOutOfMemory matches VK_ERROR_OUT_OF_DEVICE_MEMORY and
// VK_ERROR_OUT_OF_HOST_MEMORY.
var ErrOutOfMemory = errors.New("gpu: out of memory")

// Result is a VkResult.
type Result int32

var resultNames = map[Result]string{
	0:           "VK_SUCCESS",
	1:           "VK_NOT_READY",
	2:           "VK_TIMEOUT",
	3:           "VK_EVENT_SET",
	4:           "VK_EVENT_RESET",
	5:           "VK_INCOMPLETE",
	-1:          "VK_ERROR_OUT_OF_HOST_MEMORY",
	-2:          "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	-3:          "VK_ERROR_INITIALIZATION_FAILED",
	-4:          "VK_ERROR_DEVICE_LOST",
	-5:          "VK_ERROR_MEMORY_MAP_FAILED",
	-6:          "VK_ERROR_LAYER_NOT_PRESENT",
	-7:          "VK_ERROR_EXTENSION_NOT_PRESENT",
	-8:          "VK_ERROR_FEATURE_NOT_PRESENT",
	-9:          "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10:         "VK_ERROR_TOO_MANY_OBJECTS",
	-11:         "VK_ERROR_FORMAT_NOT_SUPPORTED",
	-12:         "VK_ERROR_FRAGMENTED_POOL",
	-13:         "VK_ERROR_UNKNOWN",
	-1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY",
	-1000072003: "VK_ERROR_INVALID_EXTERNAL_HANDLE",
	-1000161000: "VK_ERROR_FRAGMENTATION",
	-1000257000: "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS",
	1000297000:  "VK_PIPELINE_COMPILE_REQUIRED",
	-1000012000: "VK_ERROR_INVALID_SHADER_NV",
}

func (r Result) String() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("VkResult(%d)", int32(r))
}

// Error is a failed Vulkan call: "vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY".
type Error struct {
	Call   string
	Result Result
}

func (e *Error) Error() string { return e.Call + ": " + e.Result.String() }

// Is maps results onto the package's sentinels.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDeviceLost:
		return e.Result == -4
	case ErrOutOfMemory:
		return e.Result == -1 || e.Result == -2
	}
	return false
}

// check turns a VkResult into an error naming the call, or nil on success
// (non-negative results other than those the caller handles are success
// codes).
func check(call string, r C.VkResult) error {
	if r >= 0 {
		return nil
	}
	return &Error{Call: call, Result: Result(r)}
}

var (
	loadOnce sync.Once
	loadErr  error
)

// LoaderName is the shared object vkdml opens; $VKDML_VULKAN_LIBRARY
// overrides it (a path or another soname).
const LoaderName = "libvulkan.so.1"

// Load opens the Vulkan loader. It is called by every constructor; calling
// it directly tells whether a loader is present.
func Load() error {
	loadOnce.Do(func() {
		lib := LoaderName
		if env := os.Getenv("VKDML_VULKAN_LIBRARY"); env != "" {
			lib = env
		}
		name := C.CString(lib)
		defer C.free(unsafe.Pointer(name))
		var buf [512]C.char
		if C.vkdml_load(name, &buf[0], C.size_t(len(buf))) != 0 {
			loadErr = fmt.Errorf("%w: %s", ErrNoLoader, C.GoString(&buf[0]))
		}
	})
	return loadErr
}
