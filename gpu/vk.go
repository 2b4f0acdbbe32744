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
	"strings"
	"sync"
	"unsafe"
)

// ErrNoLoader is returned when no Vulkan loader library can be opened; the
// error wrapping it names every library tried and why each failed.
var ErrNoLoader = errors.New("gpu: no Vulkan loader")

// ErrDeviceLost is the sentinel for VK_ERROR_DEVICE_LOST: the device is
// unusable and every later call on it fails with this error.
var ErrDeviceLost = errors.New("gpu: device lost")

// ErrNoDevice is returned when no usable Vulkan device is present, including
// when the loader finds no driver at all (VK_ERROR_INCOMPATIBLE_DRIVER).
var ErrNoDevice = errors.New("gpu: no Vulkan device")

// ErrOutOfMemory matches VK_ERROR_OUT_OF_DEVICE_MEMORY and
// VK_ERROR_OUT_OF_HOST_MEMORY, and a request larger than the device's
// largest allocation.
var ErrOutOfMemory = errors.New("gpu: out of memory")

// ErrDeviceClosed is returned by every call on a closed Device, and on any
// Buffer, Kernel or CommandList of it.
var ErrDeviceClosed = errors.New("gpu: device is closed")

// ErrReleased is returned when a Buffer, Kernel or CommandList is used after
// Free or Destroy, including by a command list recorded before it was freed.
var ErrReleased = errors.New("gpu: object was released")

// ErrForeignDevice is returned when an object of one Device is passed to
// another.
var ErrForeignDevice = errors.New("gpu: object belongs to another device")

// ErrOutOfRange is returned when a size or offset overflows, or a range does
// not lie inside its buffer.
var ErrOutOfRange = errors.New("gpu: range out of bounds")

// ErrPending is returned when a command list is submitted, re-recorded or
// read while an earlier submission of it has not been waited for.
var ErrPending = errors.New("gpu: command list is pending")

// ErrTimeout is returned when a wait for the GPU exceeds its bound
// (SubmitTimeout, CloseTimeout). The work is still in flight: the list stays
// pending, and what it uses stays allocated, until a later wait sees it done.
var ErrTimeout = errors.New("gpu: timed out waiting for the GPU")

// Result is a VkResult.
type Result int32

// Results vkdml tests for by value.
const (
	resultSuccess            Result = 0
	resultNotReady           Result = 1
	resultTimeout            Result = 2
	resultOutOfHostMemory    Result = -1
	resultOutOfDeviceMemory  Result = -2
	resultDeviceLost         Result = -4
	resultIncompatibleDriver Result = -9
)

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

// String is the VkResult's name, e.g. "VK_ERROR_DEVICE_LOST".
func (r Result) String() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("VkResult(%d)", int32(r))
}

// Error is a failed Vulkan call: "vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY".
type Error struct {
	Call   string // the Vulkan function that failed
	Result Result // what it returned
	Hint   string // what to do about it, when vkdml knows; may be empty
}

// Error formats the call, the result and the hint.
func (e *Error) Error() string {
	s := e.Call + ": " + e.Result.String()
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}

// Is maps results onto the package's sentinels.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDeviceLost:
		return e.Result == resultDeviceLost
	case ErrOutOfMemory:
		return e.Result == resultOutOfHostMemory || e.Result == resultOutOfDeviceMemory
	case ErrNoDevice:
		return e.Result == resultIncompatibleDriver
	case ErrTimeout:
		return e.Result == resultTimeout
	}
	return false
}

// noDriverHint is attached to VK_ERROR_INCOMPATIBLE_DRIVER, which is what
// the loader returns when it finds no driver (ICD) at all.
const noDriverHint = "no Vulkan driver found: install your GPU's Vulkan driver, or mesa-vulkan-drivers for lavapipe " +
	"(a CPU driver), or point VK_DRIVER_FILES at a driver's ICD json"

// check turns a VkResult into an error naming the call, or nil on success
// (non-negative results other than those the caller handles are success
// codes).
func check(call string, r C.VkResult) error {
	if r >= 0 {
		return nil
	}
	e := &Error{Call: call, Result: Result(r)}
	if e.Result == resultIncompatibleDriver {
		e.Hint = noDriverHint
	}
	return e
}

var (
	loadOnce   sync.Once
	loadErr    error
	loadedName string
	loadedPath string
)

// Load opens the Vulkan loader: $VKDML_VULKAN_LIBRARY when set (a path or
// a library name), otherwise the names in loaderNames: libvulkan.so.1,
// then libvulkan.so (Android); vulkan-1.dll on Windows. It is called by
// every constructor; calling it directly tells whether a loader is present.
func Load() error {
	loadOnce.Do(func() {
		names := loaderNames
		if env := os.Getenv("VKDML_VULKAN_LIBRARY"); env != "" {
			names = []string{env}
		}
		var tried []string
		for _, lib := range names {
			msg, ok := loadLibrary(lib)
			if ok {
				loadedName = lib
				var buf [4096]C.char
				if C.vkdml_loaded_path(&buf[0], C.size_t(len(buf))) == 0 {
					loadedPath = C.GoString(&buf[0])
				}
				return
			}
			tried = append(tried, msg)
		}
		loadErr = fmt.Errorf("%w: tried %s", ErrNoLoader, strings.Join(tried, "; "))
	})
	return loadErr
}

func loadLibrary(lib string) (string, bool) {
	name := C.CString(lib)
	defer C.free(unsafe.Pointer(name))
	var buf [512]C.char
	if C.vkdml_load(name, &buf[0], C.size_t(len(buf))) != 0 {
		msg := C.GoString(&buf[0])
		if !strings.Contains(msg, lib) {
			msg = lib + ": " + msg
		}
		return msg, false
	}
	return "", true
}

// LoaderLibrary names the Vulkan loader that Load opened: the name asked
// for, and the file it resolved to when the C library can tell, as
// "libvulkan.so.1 (/usr/lib/x86_64-linux-gnu/libvulkan.so.1)". It is ""
// before Load succeeds.
func LoaderLibrary() string {
	if Load() != nil {
		return ""
	}
	if loadedPath == "" || loadedPath == loadedName {
		return loadedName
	}
	return loadedName + " (" + loadedPath + ")"
}
