// The C side of libvkdml: the functions vkdml.h declares, each a thin
// wrapper over a Go export (vkdmlgo_*), and the thread-local last-error
// message. Keeping the public symbols in C lets the compiler check them
// against vkdml.h, which cgo's own export prototypes would not.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// vkdml.h declares the functions defined here as exported from the DLL.
#define VKDML_BUILDING_LIBRARY 1
#include "vkdml.h"
#include "_cgo_export.h"

// The message lives in a per-thread heap buffer, freed when the thread
// exits. A _Thread_local buffer would not do: the Go runtime makes the
// library use the static TLS model, and glibc refuses to dlopen a library
// (as Python's ctypes does) whose static TLS exceeds its small reserve.
// Elsewhere it is reached through a pthread key; on Windows through
// fiber-local storage, whose destructor runs at thread exit as the key's
// does (thread-local storage has none).
#ifdef _WIN32
#include <windows.h>

static DWORD vkdml_error_slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE vkdml_error_once = INIT_ONCE_STATIC_INIT;

static VOID WINAPI vkdml_error_free(PVOID buf) { free(buf); }

static BOOL CALLBACK vkdml_error_init(PINIT_ONCE once, PVOID param, PVOID *context) {
	(void)once;
	(void)param;
	(void)context;
	vkdml_error_slot = FlsAlloc(vkdml_error_free);
	return TRUE;
}

// vkdml_error_get returns the calling thread's buffer (NULL when none).
static char *vkdml_error_get(void) {
	InitOnceExecuteOnce(&vkdml_error_once, vkdml_error_init, NULL, NULL);
	if (vkdml_error_slot == FLS_OUT_OF_INDEXES) {
		return NULL;
	}
	return FlsGetValue(vkdml_error_slot);
}

// vkdml_error_put makes buf the calling thread's buffer; 0 on success.
static int vkdml_error_put(char *buf) {
	InitOnceExecuteOnce(&vkdml_error_once, vkdml_error_init, NULL, NULL);
	if (vkdml_error_slot == FLS_OUT_OF_INDEXES || !FlsSetValue(vkdml_error_slot, buf)) {
		return 1;
	}
	return 0;
}
#else
#include <pthread.h>

static pthread_key_t vkdml_error_key;
static pthread_once_t vkdml_error_once = PTHREAD_ONCE_INIT;

static void vkdml_error_init(void) { pthread_key_create(&vkdml_error_key, free); }

static char *vkdml_error_get(void) {
	pthread_once(&vkdml_error_once, vkdml_error_init);
	return pthread_getspecific(vkdml_error_key);
}

static int vkdml_error_put(char *buf) {
	pthread_once(&vkdml_error_once, vkdml_error_init);
	return pthread_setspecific(vkdml_error_key, buf) != 0;
}
#endif

void vkdmlc_set_error(const char *msg, size_t n) {
	char *old = vkdml_error_get();
	char *buf = malloc(n + 1);
	if (buf == NULL) {
		return; // keep the old message rather than fail to report
	}
	memcpy(buf, msg, n);
	buf[n] = 0;
	if (vkdml_error_put(buf) != 0) {
		free(buf);
		return;
	}
	free(old);
}

void vkdmlc_clear_error(void) {
	char *old = vkdml_error_get();
	if (old != NULL) {
		old[0] = 0;
	}
}

const char *vkdml_last_error(void) {
	const char *msg = vkdml_error_get();
	return msg != NULL ? msg : "";
}

// A child of fork() has only the forking thread: the Go runtime's threads
// and the Vulkan driver's are gone, and a call into Go would wait for them
// forever. pthread_atfork marks the child, and every function that would
// enter Go refuses with E_FAIL instead (vkdml_last_error, the ABI version
// and the HRESULT names are plain C and keep working). Registered when the
// library is loaded, so a fork right after loading is caught too. Windows
// has no fork, so there the flag stays 0.
static volatile int vkdml_forked;

#ifndef _WIN32
static void vkdml_after_fork_in_child(void) { vkdml_forked = 1; }

__attribute__((constructor)) static void vkdml_register_fork_handler(void) {
	pthread_atfork(NULL, NULL, vkdml_after_fork_in_child);
}
#endif

#define VKDML_FORK_RULE                                                                  \
	"this process was forked from one that had loaded libvkdml; the Go runtime's and " \
	"the Vulkan driver's threads do not survive fork(), so libvkdml cannot run in the " \
	"child: start workers with exec (posix_spawn), or with Python multiprocessing's "   \
	"\"spawn\" or \"forkserver\" start method [E_FAIL]"

// vkdml_refuse_forked sets the calling thread's message for call and
// returns E_FAIL.
static VKDML_HRESULT vkdml_refuse_forked(const char *call) {
	char msg[512];
	int n = snprintf(msg, sizeof msg, "%s: %s", call, VKDML_FORK_RULE);
	if (n < 0) {
		n = 0;
	} else if ((size_t)n >= sizeof msg) {
		n = (int)sizeof msg - 1;
	}
	vkdmlc_set_error(msg, (size_t)n);
	return VKDML_E_FAIL;
}

#define VKDML_NOT_IN_FORKED_CHILD(call)              \
	do {                                         \
		if (vkdml_forked) {                  \
			return vkdml_refuse_forked(call); \
		}                                    \
	} while (0)

uint32_t vkdml_abi_version(void) { return VKDML_ABI_VERSION; }

// The version string, set by the Go side's init (vkdmlc_set_version) and
// then plain C, so that it answers in a forked child too; a call before the
// Go runtime has finished starting asks Go, which waits for it.
static const char *vkdml_version_text;

void vkdmlc_set_version(const char *version) { __atomic_store_n(&vkdml_version_text, version, __ATOMIC_RELEASE); }

const char *vkdml_version(void) {
	const char *v = __atomic_load_n(&vkdml_version_text, __ATOMIC_ACQUIRE);
	if (v == NULL && !vkdml_forked) {
		v = vkdmlgo_version();
	}
	return v != NULL ? v : "";
}

const char *vkdml_hresult_name(VKDML_HRESULT hr) {
	switch (hr) {
	case VKDML_S_OK: return "S_OK";
	case VKDML_E_FAIL: return "E_FAIL";
	case VKDML_E_INVALIDARG: return "E_INVALIDARG";
	case VKDML_E_OUTOFMEMORY: return "E_OUTOFMEMORY";
	case VKDML_E_NOTIMPL: return "E_NOTIMPL";
	case VKDML_E_UNEXPECTED: return "E_UNEXPECTED";
	case VKDML_DXGI_ERROR_UNSUPPORTED: return "DXGI_ERROR_UNSUPPORTED";
	case VKDML_DXGI_ERROR_DEVICE_REMOVED: return "DXGI_ERROR_DEVICE_REMOVED";
	case (VKDML_HRESULT)0x887A0006: return "DXGI_ERROR_DEVICE_HUNG";
	case (VKDML_HRESULT)0x887A0020: return "DXGI_ERROR_DRIVER_INTERNAL";
	case (VKDML_HRESULT)0x887A002D: return "DXGI_ERROR_SDK_COMPONENT_MISSING";
	}
	return "unknown HRESULT";
}

VKDML_HRESULT vkdml_device_create(const vkdml_device_options *options, vkdml_device *device) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_device_create");
	return vkdmlgo_device_create((vkdml_device_options *)options, device);
}

VKDML_HRESULT vkdml_device_destroy(vkdml_device device) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_device_destroy");
	return vkdmlgo_device_destroy(device);
}

VKDML_HRESULT vkdml_device_name(vkdml_device device, char *name, size_t capacity, size_t *length) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_device_name");
	return vkdmlgo_device_name(device, name, capacity, length);
}

VKDML_HRESULT vkdml_device_feature_levels(vkdml_device device, const uint32_t *requested, uint32_t count, uint32_t *max_supported) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_device_feature_levels");
	return vkdmlgo_device_feature_levels(device, (uint32_t *)requested, count, max_supported);
}

VKDML_HRESULT vkdml_devices_json(char *json, size_t capacity, size_t *length) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_devices_json");
	return vkdmlgo_devices_json(json, capacity, length);
}

VKDML_HRESULT vkdml_calc_buffer_tensor_size(const vkdml_tensor_desc *desc, uint64_t *size_in_bytes) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_calc_buffer_tensor_size");
	return vkdmlgo_calc_buffer_tensor_size((vkdml_tensor_desc *)desc, size_in_bytes);
}

VKDML_HRESULT vkdml_operator_create(vkdml_device device, const vkdml_operator_desc *desc, vkdml_operator *op) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_operator_create");
	return vkdmlgo_operator_create(device, (vkdml_operator_desc *)desc, op);
}

VKDML_HRESULT vkdml_operator_run(vkdml_operator op, const vkdml_buffer *inputs, uint32_t input_count,
                                 const vkdml_buffer *outputs, uint32_t output_count) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_operator_run");
	return vkdmlgo_operator_run(op, (vkdml_buffer *)inputs, input_count, (vkdml_buffer *)outputs, output_count);
}

VKDML_HRESULT vkdml_operator_destroy(vkdml_operator op) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_operator_destroy");
	return vkdmlgo_operator_destroy(op);
}

VKDML_HRESULT vkdml_run(vkdml_device device, const vkdml_operator_desc *desc,
                        const vkdml_buffer *inputs, uint32_t input_count,
                        const vkdml_buffer *outputs, uint32_t output_count) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_run");
	return vkdmlgo_run(device, (vkdml_operator_desc *)desc, (vkdml_buffer *)inputs, input_count,
	                   (vkdml_buffer *)outputs, output_count);
}

VKDML_HRESULT vkdml_parity_compare(vkdml_device device, const char *case_json,
                                   const vkdml_buffer *inputs, uint32_t input_count,
                                   const vkdml_buffer *expected, uint32_t expected_count,
                                   char *result, size_t capacity, size_t *length) {
	VKDML_NOT_IN_FORKED_CHILD("vkdml_parity_compare");
	return vkdmlgo_parity_compare(device, (char *)case_json, (vkdml_buffer *)inputs, input_count,
	                              (vkdml_buffer *)expected, expected_count, result, capacity, length);
}
