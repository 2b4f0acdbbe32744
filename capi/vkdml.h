/*
 * vkdml.h: the C interface of libvkdml, DirectML's ARGMAX, ARGMIN,
 * REDUCE (ARGMAX/ARGMIN, MAX/MIN, integer SUM/MULTIPLY/L1/SUM_SQUARE) and MAX_POOLING / MAX_POOLING1 / MAX_POOLING2
 * operators with DirectML's exact semantics on any Vulkan 1.1 device.
 *
 * Copyright the vkdml authors. Licensed under the Apache License 2.0.
 *
 * STABILITY
 *   This header is libvkdml's ABI. VKDML_ABI_VERSION changes only when a
 *   declaration below changes incompatibly; additions (new functions, new
 *   enum values) keep the version. Compare vkdml_abi_version() with
 *   VKDML_ABI_VERSION at start-up to detect a mismatched library. Symbols
 *   the shared object exports that are not declared here (the Go runtime's,
 *   vkdmlgo_*) are not part of the interface.
 *
 * OBJECTS
 *   vkdml_device     a Vulkan device (DirectML's IDMLDevice).
 *   vkdml_operator   a validated, compiled and initialized operator with its
 *                    own device buffers: run it many times without
 *                    recompiling (DirectML's IDMLCompiledOperator plus
 *                    its bindings).
 *   Both are integer handles; 0 is never a valid handle. A destroyed or
 *   unknown handle is reported as E_INVALIDARG, never a crash.
 *
 * ERRORS
 *   Every function that can fail returns an HRESULT with DirectML's code for
 *   the same mistake (E_INVALIDARG for a bad desc, DXGI_ERROR_UNSUPPORTED
 *   for an unsupported data type or feature level, ...). On failure,
 *   vkdml_last_error() returns a message for the calling thread that names
 *   the call, the field at fault and the rule it broke, for example
 *   "CreateOperator(ARGMAX): Axes[0]: axis 3 is not in
 *   [0, InputTensor.DimensionCount-1] = [0,2] [E_INVALIDARG]".
 *
 * THREADS
 *   All functions may be called from any thread. As in DirectML, a device
 *   and an operator are safe for concurrent use: concurrent vkdml_run and
 *   vkdml_operator_run calls on one device execute at the same time; two
 *   concurrent vkdml_operator_run calls on the same operator take turns,
 *   because they share the operator's device buffers. Destroying an object
 *   while another thread uses it is an error the caller must avoid, as in
 *   DirectML (the library reports it where it can detect it).
 *
 * PROCESSES
 *   libvkdml cannot be used in a child made by fork() once the library is
 *   loaded (loading it starts the Go runtime): the Go runtime's and the
 *   Vulkan driver's threads do not survive fork. In such a child every
 *   function that would use them returns E_FAIL at once, with a message
 *   naming the fix; vkdml_last_error, vkdml_abi_version and
 *   vkdml_hresult_name keep working. Start workers with exec
 *   (posix_spawn), or with Python multiprocessing's "spawn" or
 *   "forkserver" start method, and load the library there.
 *
 * MEMORY
 *   The library never keeps a pointer the caller passed: descs are copied
 *   at vkdml_operator_create, and host buffers are read or written only
 *   during the call that receives them. Only the bytes of an output's
 *   elements are written: the bytes between strided elements and the
 *   spare bytes of a buffer larger than its elements keep their contents
 *   (docs/semantics.md rule 6).
 */
#ifndef VKDML_H
#define VKDML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKDML_ABI_VERSION 1u

/* VKDML_API marks the functions the library exports. On Windows,
 * vkdml.dll exports exactly these (cgo's own list names only the Go
 * side's), and a program that includes this header imports them from it;
 * link it with vkdml.lib (MSVC) or straight against vkdml.dll (mingw). */
#if defined(_WIN32) && defined(VKDML_BUILDING_LIBRARY)
#define VKDML_API __declspec(dllexport)
#elif defined(_WIN32)
#define VKDML_API __declspec(dllimport)
#else
#define VKDML_API
#endif

/* ---- Result codes (Windows HRESULT values, as DirectML returns them) ---- */

typedef int32_t VKDML_HRESULT;

#define VKDML_S_OK                        ((VKDML_HRESULT)0x00000000)
#define VKDML_E_FAIL                      ((VKDML_HRESULT)0x80004005)
#define VKDML_E_INVALIDARG                ((VKDML_HRESULT)0x80070057)
#define VKDML_E_OUTOFMEMORY               ((VKDML_HRESULT)0x8007000E)
#define VKDML_E_NOTIMPL                   ((VKDML_HRESULT)0x80004001)
/* A bug in vkdml (a Go panic, say in a planner), caught before it reaches
 * the caller: the message is one line; VKDML_TRACEBACK=1 in the
 * environment (when the library loads) also prints the Go stack to stderr. */
#define VKDML_E_UNEXPECTED                ((VKDML_HRESULT)0x8000FFFF)
#define VKDML_DXGI_ERROR_UNSUPPORTED      ((VKDML_HRESULT)0x887A0004)
#define VKDML_DXGI_ERROR_DEVICE_REMOVED   ((VKDML_HRESULT)0x887A0005)

#define VKDML_SUCCEEDED(hr) ((VKDML_HRESULT)(hr) >= 0)
#define VKDML_FAILED(hr)    ((VKDML_HRESULT)(hr) < 0)

/* ---- Enumerations (DirectML's values) ---- */

/* DML_TENSOR_DATA_TYPE. FLOAT64 is DirectML's value; no vkdml operator
 * accepts it (DXGI_ERROR_UNSUPPORTED / E_INVALIDARG). */
typedef enum vkdml_data_type {
    VKDML_DATA_TYPE_UNKNOWN = 0,
    VKDML_DATA_TYPE_FLOAT32 = 1,
    VKDML_DATA_TYPE_FLOAT16 = 2,
    VKDML_DATA_TYPE_UINT32 = 3,
    VKDML_DATA_TYPE_UINT16 = 4,
    VKDML_DATA_TYPE_UINT8 = 5,
    VKDML_DATA_TYPE_INT32 = 6,
    VKDML_DATA_TYPE_INT16 = 7,
    VKDML_DATA_TYPE_INT8 = 8,
    VKDML_DATA_TYPE_FLOAT64 = 9,
    VKDML_DATA_TYPE_UINT64 = 10,
    VKDML_DATA_TYPE_INT64 = 11
} vkdml_data_type;

/* DML_FEATURE_LEVEL. */
typedef enum vkdml_feature_level {
    VKDML_FEATURE_LEVEL_1_0 = 0x1000,
    VKDML_FEATURE_LEVEL_2_0 = 0x2000,
    VKDML_FEATURE_LEVEL_2_1 = 0x2100,
    VKDML_FEATURE_LEVEL_3_0 = 0x3000,
    VKDML_FEATURE_LEVEL_3_1 = 0x3100,
    VKDML_FEATURE_LEVEL_4_0 = 0x4000,
    VKDML_FEATURE_LEVEL_4_1 = 0x4100,
    VKDML_FEATURE_LEVEL_5_0 = 0x5000,
    VKDML_FEATURE_LEVEL_5_1 = 0x5100,
    VKDML_FEATURE_LEVEL_5_2 = 0x5200,
    VKDML_FEATURE_LEVEL_6_0 = 0x6000,
    VKDML_FEATURE_LEVEL_6_1 = 0x6100,
    VKDML_FEATURE_LEVEL_6_2 = 0x6200,
    VKDML_FEATURE_LEVEL_6_3 = 0x6300,
    VKDML_FEATURE_LEVEL_6_4 = 0x6400
} vkdml_feature_level;

/* DML_AXIS_DIRECTION: which of tied extremes ARGMAX/ARGMIN return
 * (INCREASING: the first; DECREASING: the last). */
typedef enum vkdml_axis_direction {
    VKDML_AXIS_DIRECTION_INCREASING = 0,
    VKDML_AXIS_DIRECTION_DECREASING = 1
} vkdml_axis_direction;

/* DML_REDUCE_FUNCTION, with DirectML's values. vkdml implements ARGMAX and
 * ARGMIN, MAX and MIN on every type, and SUM, MULTIPLY, L1 and SUM_SQUARE
 * on INT32, UINT32, INT64 and UINT64 (exact; integers wrap modulo 2^n); the
 * others, and SUM, MULTIPLY, L1 and SUM_SQUARE of floats, are
 * DXGI_ERROR_UNSUPPORTED. */
typedef enum vkdml_reduce_function {
    VKDML_REDUCE_FUNCTION_ARGMAX = 0,
    VKDML_REDUCE_FUNCTION_ARGMIN = 1,
    VKDML_REDUCE_FUNCTION_AVERAGE = 2,
    VKDML_REDUCE_FUNCTION_L1 = 3,
    VKDML_REDUCE_FUNCTION_L2 = 4,
    VKDML_REDUCE_FUNCTION_LOG_SUM = 5,
    VKDML_REDUCE_FUNCTION_LOG_SUM_EXP = 6,
    VKDML_REDUCE_FUNCTION_MAX = 7,
    VKDML_REDUCE_FUNCTION_MIN = 8,
    VKDML_REDUCE_FUNCTION_MULTIPLY = 9,
    VKDML_REDUCE_FUNCTION_SUM = 10,
    VKDML_REDUCE_FUNCTION_SUM_SQUARE = 11
} vkdml_reduce_function;

/* Device creation flags (DML_CREATE_DEVICE_FLAGS). */
typedef enum vkdml_create_device_flags {
    VKDML_CREATE_DEVICE_FLAG_NONE = 0,
    /* The Khronos validation layer with synchronization validation; its
     * messages become errors (DML_CREATE_DEVICE_FLAG_DEBUG). */
    VKDML_CREATE_DEVICE_FLAG_DEBUG = 1
} vkdml_create_device_flags;

/* Which desc a vkdml_operator_desc points to. */
/* BEGIN GENERATED: operator types (go run ./internal/schema/gen from internal/schema; do not edit) */
typedef enum vkdml_operator_type {
    VKDML_OPERATOR_ARGMAX = 1,         /* vkdml_argmax_desc */
    VKDML_OPERATOR_ARGMIN = 2,         /* vkdml_argmin_desc */
    VKDML_OPERATOR_REDUCE = 3,         /* vkdml_reduce_desc */
    VKDML_OPERATOR_MAX_POOLING = 4,    /* vkdml_max_pooling_desc */
    VKDML_OPERATOR_MAX_POOLING1 = 5,   /* vkdml_max_pooling1_desc */
    VKDML_OPERATOR_MAX_POOLING2 = 6,   /* vkdml_max_pooling2_desc */
    VKDML_OPERATOR_MAX_UNPOOLING = 7,  /* vkdml_max_unpooling_desc */
    VKDML_OPERATOR_TOP_K = 8,          /* vkdml_top_k_desc */
    VKDML_OPERATOR_TOP_K1 = 9          /* vkdml_top_k1_desc */
} vkdml_operator_type;
/* END GENERATED: operator types */

/* ---- Descs ---- */

/* DML_BUFFER_TENSOR_DESC. */
typedef struct vkdml_tensor_desc {
    uint32_t data_type;        /* vkdml_data_type */
    uint32_t flags;            /* must be 0 (DML_TENSOR_FLAG_NONE): inputs
                                  are bound at every run, so
                                  DML_TENSOR_FLAG_OWNED_BY_DML is refused */
    uint32_t dimension_count;  /* 1..8 (4 or 5 for max pooling) */
    const uint32_t *sizes;     /* dimension_count sizes, outermost first */
    const uint32_t *strides;   /* NULL: packed row-major; else
                                  dimension_count strides in ELEMENTS
                                  (0 broadcasts along that dimension) */
    uint64_t total_tensor_size_in_bytes; /* 0: DMLCalcBufferTensorSize */
    uint32_t guaranteed_base_offset_alignment; /* 0 or a power of two */
} vkdml_tensor_desc;

/* BEGIN GENERATED: descs (go run ./internal/schema/gen from internal/schema; do not edit) */
/* DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC. The output keeps the
 * input's rank with every axis in `axes` of size 1; its type is UINT32,
 * INT32, UINT64 or INT64. Indices count from the start of each reduced
 * block, in row-major order over the reduced axes. */
typedef struct vkdml_argmax_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output;
    uint32_t axis_count;
    const uint32_t *axes;
    uint32_t axis_direction;   /* vkdml_axis_direction */
} vkdml_argmax_desc;
typedef vkdml_argmax_desc vkdml_argmin_desc;

/* DML_REDUCE_OPERATOR_DESC: function ARGMAX or ARGMIN (the output holds
 * indices, as ARGMAX's), or MAX, MIN, SUM, MULTIPLY, L1 or SUM_SQUARE (the
 * output has the input's type; vkdml_reduce_function says which types). */
typedef struct vkdml_reduce_desc {
    uint32_t function;         /* vkdml_reduce_function */
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output;
    uint32_t axis_count;
    const uint32_t *axes;
} vkdml_reduce_desc;

/* DML_MAX_POOLING_OPERATOR_DESC. Every array has dimension_count
 * (= the input's rank - 2) entries. */
typedef struct vkdml_max_pooling_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output;
    uint32_t dimension_count;
    const uint32_t *strides;
    const uint32_t *window_size;
    const uint32_t *start_padding;
    const uint32_t *end_padding;
} vkdml_max_pooling_desc;

/* DML_MAX_POOLING1_OPERATOR_DESC: output_indices (NULL: none) receives the
 * index of each selected element, flat over the whole logical input. */
typedef struct vkdml_max_pooling1_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output;
    const vkdml_tensor_desc *output_indices;
    uint32_t dimension_count;
    const uint32_t *strides;
    const uint32_t *window_size;
    const uint32_t *start_padding;
    const uint32_t *end_padding;
} vkdml_max_pooling1_desc;

/* DML_MAX_POOLING2_OPERATOR_DESC: MAX_POOLING1 with dilations. */
typedef struct vkdml_max_pooling2_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output;
    const vkdml_tensor_desc *output_indices;
    uint32_t dimension_count;
    const uint32_t *strides;
    const uint32_t *window_size;
    const uint32_t *start_padding;
    const uint32_t *end_padding;
    const uint32_t *dilations;
} vkdml_max_pooling2_desc;

/* DML_MAX_UNPOOLING_OPERATOR_DESC: 4D tensors; indices (UINT32 or UINT64, the
 * input's sizes) are flat over the whole logical output. Unaddressed output
 * elements are 0, out-of-range indices are skipped, and of several inputs
 * with one index the last in row-major order wins. */
typedef struct vkdml_max_unpooling_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *indices;
    const vkdml_tensor_desc *output;
} vkdml_max_unpooling_desc;

/* DML_TOP_K_OPERATOR_DESC: the k largest elements along axis, sorted
 * descending (TOP_K1 with axis_direction DECREASING). Both outputs have the
 * input's sizes but k along axis; indices (UINT32, or UINT64 from feature
 * level 5.0) count from the start of the axis. Ties go to the lower index,
 * NaN comes after every number. */
typedef struct vkdml_top_k_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output_value;
    const vkdml_tensor_desc *output_index;
    uint32_t axis;
    uint32_t k;
} vkdml_top_k_desc;

/* DML_TOP_K1_OPERATOR_DESC: DECREASING selects the k largest, sorted
 * descending; INCREASING the k smallest, sorted ascending. */
typedef struct vkdml_top_k1_desc {
    const vkdml_tensor_desc *input;
    const vkdml_tensor_desc *output_value;
    const vkdml_tensor_desc *output_index;
    uint32_t axis;
    uint32_t k;
    uint32_t axis_direction;   /* vkdml_axis_direction */
} vkdml_top_k1_desc;
/* END GENERATED: descs */

/* DML_OPERATOR_DESC: type says which struct desc points to. */
typedef struct vkdml_operator_desc {
    uint32_t type;             /* vkdml_operator_type */
    const void *desc;
} vkdml_operator_desc;

/* A host buffer holding one tensor, laid out as its desc says (element
 * offsets from the strides, times the element size). size_in_bytes must
 * cover the last addressed element; it may be less than the desc's
 * total_tensor_size_in_bytes (whose rounding up to 4 bytes need not exist
 * in host memory). data NULL binds no tensor (an absent optional output). */
typedef struct vkdml_buffer {
    void *data;
    size_t size_in_bytes;
} vkdml_buffer;

/* Options of vkdml_device_create. A zeroed struct (or NULL) is the
 * default: no flags, feature level 1.0, the default device. */
typedef struct vkdml_device_options {
    uint32_t flags;                  /* vkdml_create_device_flags */
    uint32_t minimum_feature_level;  /* vkdml_feature_level; 0: 1.0. Above
                                        what vkdml supports:
                                        DXGI_ERROR_UNSUPPORTED */
    const char *device;              /* NULL or "": $VKDML_DEVICE, then
                                        discrete, integrated, virtual, CPU;
                                        else a device index ("0") or a
                                        substring of its name ("llvmpipe") */
} vkdml_device_options;

typedef uint64_t vkdml_device;
typedef uint64_t vkdml_operator;

/* ---- Functions ---- */

#ifndef VKDML_NO_PROTOTYPES

/* The ABI version the library was built with (VKDML_ABI_VERSION). */
VKDML_API uint32_t vkdml_abi_version(void);

/* vkdml's version: the release number MAJOR.MINOR.PATCH (MAJOR is
 * VKDML_ABI_VERSION), then, for a build not made at the release's tag,
 * build metadata after a '+', e.g. "1.0.0" or "1.0.0+g0123456789ab". It is
 * the version of the vkdml command, the Python package, vkdml.pc and the
 * CMake package built from the same tree. Static storage. */
VKDML_API const char *vkdml_version(void);

/* The message of the calling thread's last failed call, "" after a
 * successful one. Valid until the thread's next vkdml call. */
VKDML_API const char *vkdml_last_error(void);

/* A result code's name, e.g. "E_INVALIDARG"; static storage. */
VKDML_API const char *vkdml_hresult_name(VKDML_HRESULT hr);

/* Opens a Vulkan device (DMLCreateDevice1). options may be NULL. */
VKDML_API VKDML_HRESULT vkdml_device_create(const vkdml_device_options *options,
                                            vkdml_device *device);

/* Releases a device. Fails with E_INVALIDARG while operators created on it
 * still exist: destroy them first. */
VKDML_API VKDML_HRESULT vkdml_device_destroy(vkdml_device device);

/* Copies the Vulkan device's name, NUL-terminated, into name (capacity
 * bytes; truncated to fit) and stores the full length without the NUL in
 * *length when length is not NULL. name may be NULL when capacity is 0. */
VKDML_API VKDML_HRESULT vkdml_device_name(vkdml_device device, char *name,
                                          size_t capacity, size_t *length);

/* CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS): stores in *max_supported
 * the highest of the count requested levels the device supports. */
VKDML_API VKDML_HRESULT vkdml_device_feature_levels(vkdml_device device,
                                                    const uint32_t *requested,
                                                    uint32_t count,
                                                    uint32_t *max_supported);

/* The Vulkan devices, as a JSON array (one object per device: "index",
 * "name", "type", "default" (the device a NULL selector opens), "usable"
 * and, when not, "unusable_because", then its IDs, driver, features,
 * limits and subgroup properties under Vulkan's camelCase names, and, as
 * `vkdml devices --json` prints them, "featureLevel" and "dataTypes" (on
 * a usable device) and "subgroupOperationNames"), NUL-terminated
 * in json (capacity bytes; truncated to fit) with its full length without
 * the NUL in *length when length is not NULL. json may be NULL when
 * capacity is 0, to ask for the length. */
VKDML_API VKDML_HRESULT vkdml_devices_json(char *json, size_t capacity, size_t *length);

/* DMLCalcBufferTensorSize: the bytes a tensor occupies, rounded up to 4. */
VKDML_API VKDML_HRESULT vkdml_calc_buffer_tensor_size(const vkdml_tensor_desc *desc,
                                                      uint64_t *size_in_bytes);

/* Validates desc with every DirectML rule (nothing runs when it fails),
 * compiles it, allocates its device buffers and initializes it. Tensors
 * that together exceed the device's largest memory heap are
 * E_OUTOFMEMORY, before anything is allocated. */
VKDML_API VKDML_HRESULT vkdml_operator_create(vkdml_device device,
                                              const vkdml_operator_desc *desc,
                                              vkdml_operator *op);

/* Runs a created operator on host buffers: uploads the inputs (and, for
 * outputs with strides, the output buffers' current bytes, so that bytes
 * the strides skip keep their values), executes, waits and writes the
 * outputs. inputs/outputs follow the desc's order: ARGMAX/ARGMIN/REDUCE
 * have 1 input and 1 output; MAX_POOLING1/2 have 1 input and 2 outputs
 * (values, indices; the indices buffer must have data NULL exactly when
 * the desc has no output_indices); MAX_POOLING has 1 and 1. */
VKDML_API VKDML_HRESULT vkdml_operator_run(vkdml_operator op,
                                           const vkdml_buffer *inputs,
                                           uint32_t input_count,
                                           const vkdml_buffer *outputs,
                                           uint32_t output_count);

/* Releases an operator and its device buffers. */
VKDML_API VKDML_HRESULT vkdml_operator_destroy(vkdml_operator op);

/* vkdml_operator_create + vkdml_operator_run, with the operator kept in a
 * bounded per-device cache keyed by the desc (16 descs, least recently
 * used released first), so that running a desc again skips validation,
 * compilation and allocation. Concurrent runs of one desc take turns.
 * vkdml_device_destroy releases the cache. */
VKDML_API VKDML_HRESULT vkdml_run(vkdml_device device, const vkdml_operator_desc *desc,
                                  const vkdml_buffer *inputs, uint32_t input_count,
                                  const vkdml_buffer *outputs, uint32_t output_count);

/* Compares one case with DirectML's result for it, as `vkdml parity --case`
 * does: runs the desc on inputs on device and compares its outputs with
 * expected. case_json (NUL-terminated UTF-8, at most 1 MiB) is
 *   {"desc": {...}, "expected": true, "hresult": "E_INVALIDARG",
 *    "input_types": ["FLOAT32"], "expected_types": ["UINT32"]}
 * desc being the operator desc as data in DirectML's names (read strictly,
 * as the parity corpus is), expected whether expected outputs are given,
 * hresult DirectML's failure code when it rejected the desc (then no
 * expected outputs), and the types, when given, those of the buffers.
 * inputs are the input tensors' buffers in binding order; expected one
 * buffer per output: its logical elements row-major, or its whole buffer
 * (TotalTensorSizeInBytes, after a run that started with every byte 0xCD).
 * The result is JSON (docs/schema/parity-case.schema.json without the
 * device fields): verdict ("equal", "differ explained", "differ
 * unexplained", "rejected by both", "rejected by vkdml", "rejected by
 * expected", "not compared"; for REDUCE's float functions "within bound"
 * and "outside bound", docs/semantics.md rule 44), rule, outputs and
 * differences. It is written
 * as vkdml_devices_json writes; a result longer than capacity is
 * truncated, and a second call with a larger buffer runs the comparison
 * again. A case that cannot be compared (desc, buffer sizes or types) is
 * E_INVALIDARG naming it; vkdml rejecting the desc is a verdict, not an
 * error. */
VKDML_API VKDML_HRESULT vkdml_parity_compare(vkdml_device device, const char *case_json,
                                             const vkdml_buffer *inputs, uint32_t input_count,
                                             const vkdml_buffer *expected, uint32_t expected_count,
                                             char *result, size_t capacity, size_t *length);

#endif /* VKDML_NO_PROTOTYPES */

#ifdef __cplusplus
}
#endif

#endif /* VKDML_H */
