// Package gpu is vkdml's Vulkan host layer: it opens a device with one
// compute queue, allocates storage buffers, builds compute pipelines from
// SPIR-V and records, submits and waits for command lists. Package dml
// builds DirectML's API on it; ops plans the kernels it runs.
//
// # Loader and instances
//
// The Vulkan loader is opened at run time with dlopen (libvulkan.so.1, then
// Android's libvulkan.so; vulkan-1.dll with LoadLibrary on Windows; or
// $VKDML_VULKAN_LIBRARY), so a binary starts on
// a machine without Vulkan and reports ErrNoLoader. The binding declares
// the part of the Vulkan API it uses itself (vkapi.h, generated from the
// Khronos headers), so building needs only Go and a C compiler. A process
// has one VkInstance, created on first use, and a second one with the
// Khronos validation layer when a debug device is first opened; devices are
// created and destroyed on them.
//
// # Memory
//
// Buffers are ranges of large blocks, each one VkDeviceMemory with one
// VkBuffer over it, 256-byte aligned; a buffer larger than half a block
// gets a block of its own, up to the device's maxMemoryAllocationSize.
// Where the largest device-local heap is host-visible (lavapipe, resizable
// BAR), buffers are written and read in place; otherwise through staging
// copies. Every size and offset is checked with overflow-safe arithmetic,
// and a range outside its buffer is an error (ErrOutOfRange), never clamped.
//
// # Lifetime and misuse
//
// Nothing a caller does with the API may crash the process or reach memory
// that is not its own:
//   - after Buffer.Free, Kernel.Destroy or CommandList.Destroy, every method
//     of the object returns an error wrapping ErrReleased, and so does
//     submitting a list recorded with it; releasing twice is harmless;
//   - after Device.Close, every call on the device or its objects returns
//     ErrDeviceClosed, and releasing them is harmless;
//   - an object of another device is refused (ErrForeignDevice);
//   - a second Submit of a pending list is refused (ErrPending);
//   - every wait for the GPU (CommandList.Wait and Run, a staged
//     Buffer.Write, Read or Fill, WaitIdle) is bounded by SubmitTimeout; one
//     that times out returns an error wrapping ErrTimeout that names the call
//     and its work;
//   - what a submission uses (buffers, a staging buffer, kernels, the
//     list's pools, fence and timestamps) stays allocated until a wait, a
//     later call, WaitIdle or Close sees it complete, even when it is freed
//     first or its wait timed out; Device.Close waits at most CloseTimeout
//     and, when work is still running then, abandons the device instead of
//     freeing memory the GPU may still write.
//
// Vulkan errors are *Error values naming the call and the VkResult;
// errors.Is maps them onto ErrDeviceLost, ErrOutOfMemory, ErrNoDevice and
// ErrTimeout. In debug mode, validation messages are returned as errors
// wrapping ErrValidation.
package gpu
