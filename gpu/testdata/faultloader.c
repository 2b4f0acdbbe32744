// faultloader.c: a Vulkan "loader" for tests that forwards every function
// to libvulkan.so.1 (through DT_NEEDED: dlsym on this library's handle
// searches its dependencies) except two, which report that the GPU is still
// busy while the file named by $VKDML_FAULT_HANG_FILE exists:
// vkWaitForFences returns VK_TIMEOUT and vkGetFenceStatus VK_NOT_READY.
// The real work finishes meanwhile; the validation layer, which sits below
// this library, sees a fence complete only when vkdml asks after the file
// is gone, so destroying anything before that is reported.
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef int32_t VkResult;
typedef VkResult (*wait_fn)(void *, uint32_t, const uint64_t *, uint32_t, uint64_t);
typedef VkResult (*status_fn)(void *, uint64_t);

static wait_fn real_wait;
static status_fn real_status;

static void resolve(void) {
	if (real_wait == NULL) {
		void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
		if (lib == NULL) {
			abort();
		}
		real_wait = (wait_fn)dlsym(lib, "vkWaitForFences");
		real_status = (status_fn)dlsym(lib, "vkGetFenceStatus");
	}
}

static int hung(void) {
	const char *f = getenv("VKDML_FAULT_HANG_FILE");
	return f != NULL && access(f, F_OK) == 0;
}

VkResult vkWaitForFences(void *device, uint32_t count, const uint64_t *fences, uint32_t all, uint64_t timeout) {
	resolve();
	if (hung()) {
		uint64_t us = timeout / 1000;
		usleep(us < 10000 ? (useconds_t)us : 10000);
		return 2; // VK_TIMEOUT
	}
	return real_wait(device, count, fences, all, timeout);
}

VkResult vkGetFenceStatus(void *device, uint64_t fence) {
	resolve();
	if (hung()) {
		return 1; // VK_NOT_READY
	}
	return real_status(device, fence);
}
