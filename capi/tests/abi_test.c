/* abi_test.c: libvkdml's C interface under misuse and load. Every bad call
 * must return its HRESULT with a message naming the field, never crash;
 * messages are per thread; outputs keep the bytes no element occupies
 * (strided gaps and the spare bytes of a rounded-up buffer); operators and
 * devices work from several threads at once; a forked child gets an error,
 * never a hang (not on Windows, which has no fork). Run by `make capi-test`
 * and, against vkdml.dll under Wine, by `make test-windows`; exits non-zero
 * on failure. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h> /* on Windows, mingw's winpthreads */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#ifndef _WIN32
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "vkdml.h"

static int failures;

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: %s failed (last error: %s)\n", __FILE__,  \
                    __LINE__, #cond, vkdml_last_error());                     \
            failures++;                                                       \
        }                                                                     \
    } while (0)

/* EXPECT_HR checks a call's code and that its message mentions field. */
#define EXPECT_HR(call, code, field)                                          \
    do {                                                                      \
        VKDML_HRESULT hr_ = (call);                                           \
        if (hr_ != (code) || strstr(vkdml_last_error(), (field)) == NULL) {   \
            fprintf(stderr, "%s:%d: %s = %s (0x%08X), want %s mentioning "    \
                    "\"%s\"; message: %s\n", __FILE__, __LINE__, #call,       \
                    vkdml_hresult_name(hr_), (unsigned)hr_,                   \
                    vkdml_hresult_name(code), (field), vkdml_last_error());   \
            failures++;                                                       \
        }                                                                     \
    } while (0)

#define MUST(call)                                                            \
    do {                                                                      \
        VKDML_HRESULT hr_ = (call);                                           \
        if (VKDML_FAILED(hr_)) {                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    vkdml_last_error());                                      \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static uint32_t sizes23[2] = {2, 3}, sizes21[2] = {2, 1}, axis1[1] = {1};

/* An ARGMAX over axis 1 of a 2x3 FLOAT32 tensor. */
static vkdml_tensor_desc in23 = {VKDML_DATA_TYPE_FLOAT32, 0, 2, sizes23, NULL, 0, 0};
static vkdml_tensor_desc out21 = {VKDML_DATA_TYPE_UINT32, 0, 2, sizes21, NULL, 0, 0};
static vkdml_argmax_desc argmax_desc = {&in23, &out21, 1, axis1, VKDML_AXIS_DIRECTION_INCREASING};
static vkdml_operator_desc argmax_op = {VKDML_OPERATOR_ARGMAX, &argmax_desc};

static void device_errors(vkdml_device dev) {
    vkdml_device d = 0;
    vkdml_device_options opts = {0};
    EXPECT_HR(vkdml_device_create(NULL, NULL), VKDML_E_INVALIDARG, "device");
    opts.flags = 2;
    EXPECT_HR(vkdml_device_create(&opts, &d), VKDML_E_INVALIDARG, "Flags");
    EXPECT(d == 0);
    opts.flags = 0;
    opts.minimum_feature_level = 0x7000;
    EXPECT_HR(vkdml_device_create(&opts, &d), VKDML_E_INVALIDARG, "MinimumFeatureLevel");
    opts.minimum_feature_level = 0;
    opts.device = "no such device 42";
    EXPECT_HR(vkdml_device_create(&opts, &d), VKDML_DXGI_ERROR_UNSUPPORTED, "no such device 42");

    EXPECT_HR(vkdml_device_destroy(12345), VKDML_E_INVALIDARG, "12345 is not a live device handle");
    char name[8];
    size_t len = 0;
    MUST(vkdml_device_name(dev, name, sizeof name, &len));
    EXPECT(strlen(name) == 7 && len >= 7); /* truncated, NUL-terminated */
    EXPECT_HR(vkdml_device_name(dev, NULL, 4, NULL), VKDML_E_INVALIDARG, "name");
    /* A capacity beyond what Go can view: only the name and its NUL are
     * written, so it is no error (it was a recovered panic, E_FAIL). */
    char whole[256];
    MUST(vkdml_device_name(dev, whole, SIZE_MAX, &len));
    EXPECT(strlen(whole) == len);
    /* The device list: its length first, then the JSON; a short buffer
     * is truncated and still terminated. */
    size_t jlen = 0;
    MUST(vkdml_devices_json(NULL, 0, &jlen));
    char *json = malloc(jlen + 1);
    MUST(vkdml_devices_json(json, jlen + 1, &len));
    EXPECT(len == jlen && strlen(json) == jlen && json[0] == '[' && json[jlen - 1] == ']');
    EXPECT(strstr(json, "\"default\":true") != NULL && strstr(json, "\"usable\":true") != NULL);
    MUST(vkdml_devices_json(json, 4, NULL));
    EXPECT(strlen(json) == 3);
    free(json);
    EXPECT_HR(vkdml_devices_json(NULL, 8, NULL), VKDML_E_INVALIDARG, "json");
    uint32_t bad[1] = {0x1234}, best = 0;
    EXPECT_HR(vkdml_device_feature_levels(dev, bad, 1, &best), VKDML_E_INVALIDARG, "RequestedFeatureLevels[0]");
    EXPECT_HR(vkdml_device_feature_levels(dev, NULL, 0, &best), VKDML_E_INVALIDARG, "RequestedFeatureLevelCount");
}

static void desc_errors(vkdml_device dev) {
    vkdml_operator op = 7;
    EXPECT_HR(vkdml_operator_create(dev, NULL, &op), VKDML_E_INVALIDARG, "desc");
    EXPECT(op == 0);
    EXPECT_HR(vkdml_operator_create(dev, &argmax_op, NULL), VKDML_E_INVALIDARG, "op");
    vkdml_operator_desc bad_type = {99, &argmax_desc};
    EXPECT_HR(vkdml_operator_create(dev, &bad_type, &op), VKDML_E_INVALIDARG, "desc->type");
    vkdml_argmax_desc no_input = argmax_desc;
    no_input.input = NULL;
    vkdml_operator_desc d1 = {VKDML_OPERATOR_ARGMAX, &no_input};
    EXPECT_HR(vkdml_operator_create(dev, &d1, &op), VKDML_E_INVALIDARG, "input");
    vkdml_tensor_desc owned = in23;
    owned.flags = 1;
    vkdml_argmax_desc owned_desc = argmax_desc;
    owned_desc.input = &owned;
    vkdml_operator_desc d2 = {VKDML_OPERATOR_ARGMAX, &owned_desc};
    EXPECT_HR(vkdml_operator_create(dev, &d2, &op), VKDML_E_INVALIDARG, "input.flags");
    vkdml_tensor_desc deep = in23;
    deep.dimension_count = 9;
    owned_desc.input = &deep;
    EXPECT_HR(vkdml_operator_create(dev, &d2, &op), VKDML_E_INVALIDARG, "input.dimension_count");
    vkdml_tensor_desc no_sizes = in23;
    no_sizes.sizes = NULL;
    owned_desc.input = &no_sizes;
    EXPECT_HR(vkdml_operator_create(dev, &d2, &op), VKDML_E_INVALIDARG, "input.sizes");
    vkdml_argmax_desc no_axes = argmax_desc;
    no_axes.axes = NULL;
    vkdml_operator_desc d3 = {VKDML_OPERATOR_ARGMAX, &no_axes};
    EXPECT_HR(vkdml_operator_create(dev, &d3, &op), VKDML_E_INVALIDARG, "axes");
    /* A valid desc vkdml does not compute: pooling coordinates past 2^30. */
    uint32_t p6[4] = {2, 3, 6, 6}, p3[4] = {2, 3, 3, 3}, two[2] = {2, 2}, far[2] = {1u << 30, 0}, zero[2] = {0, 0}, one[2] = {1, 1};
    vkdml_tensor_desc pin = {VKDML_DATA_TYPE_FLOAT32, 0, 4, p6, NULL, 0, 0};
    vkdml_tensor_desc pout = {VKDML_DATA_TYPE_FLOAT32, 0, 4, p3, NULL, 0, 0};
    vkdml_max_pooling2_desc pool = {&pin, &pout, NULL, 2, two, two, far, zero, one};
    vkdml_operator_desc d4 = {VKDML_OPERATOR_MAX_POOLING2, &pool};
    EXPECT_HR(vkdml_operator_create(dev, &d4, &op), VKDML_DXGI_ERROR_UNSUPPORTED, "StartPadding[0]");
    EXPECT_HR(vkdml_operator_create(4242, &argmax_op, &op), VKDML_E_INVALIDARG, "device");

    uint64_t size = 0;
    uint32_t three[1] = {3}, stride2[1] = {2};
    vkdml_tensor_desc i8 = {VKDML_DATA_TYPE_INT8, 0, 1, three, NULL, 0, 0};
    MUST(vkdml_calc_buffer_tensor_size(&i8, &size));
    EXPECT(size == 4);
    i8.strides = stride2;
    MUST(vkdml_calc_buffer_tensor_size(&i8, &size));
    EXPECT(size == 8); /* elements 0, 2, 4: 5 bytes, rounded up to 8 */
    EXPECT_HR(vkdml_calc_buffer_tensor_size(NULL, &size), VKDML_E_INVALIDARG, "desc");
}

static void run_errors(vkdml_device dev) {
    vkdml_operator op = 0;
    MUST(vkdml_operator_create(dev, &argmax_op, &op));
    float x[6] = {0, 1, 2, 5, 4, 3};
    uint32_t y[2] = {9, 9};
    vkdml_buffer ins[2] = {{x, sizeof x}, {x, sizeof x}}, outs[1] = {{y, sizeof y}};
    EXPECT_HR(vkdml_operator_run(op, ins, 2, outs, 1), VKDML_E_INVALIDARG, "input_count");
    EXPECT_HR(vkdml_operator_run(op, ins, 1, outs, 0), VKDML_E_INVALIDARG, "output_count");
    EXPECT_HR(vkdml_operator_run(op, NULL, 1, outs, 1), VKDML_E_INVALIDARG, "inputs");
    vkdml_buffer small[1] = {{x, sizeof x - 1}};
    EXPECT_HR(vkdml_operator_run(op, small, 1, outs, 1), VKDML_E_INVALIDARG, "inputs[0].size_in_bytes");
    /* A size no host buffer can have is refused, not a recovered panic. */
    vkdml_buffer huge[1] = {{x, SIZE_MAX}};
    EXPECT_HR(vkdml_operator_run(op, huge, 1, outs, 1), VKDML_E_INVALIDARG, "inputs[0].size_in_bytes");
    vkdml_buffer none[1] = {{NULL, 0}};
    EXPECT_HR(vkdml_operator_run(op, ins, 1, none, 1), VKDML_E_INVALIDARG, "outputs[0].data");
    EXPECT(y[0] == 9 && y[1] == 9); /* nothing ran */
    MUST(vkdml_operator_run(op, ins, 1, outs, 1));
    EXPECT(y[0] == 2 && y[1] == 0);
    EXPECT(strcmp(vkdml_last_error(), "") == 0); /* success clears it */

    EXPECT_HR(vkdml_device_destroy(dev), VKDML_E_INVALIDARG, "still exist");
    MUST(vkdml_operator_destroy(op));
    EXPECT_HR(vkdml_operator_destroy(op), VKDML_E_INVALIDARG, "not a live operator handle");
    EXPECT_HR(vkdml_operator_run(op, ins, 1, outs, 1), VKDML_E_INVALIDARG, "op");
    EXPECT_HR(vkdml_operator_destroy(dev), VKDML_E_INVALIDARG, "not a live operator handle");
}

/* A strided output: the bytes between its elements keep their values. */
static void strided_output(vkdml_device dev) {
    uint32_t out_strides[2] = {2, 1};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_UINT32, 0, 2, sizes21, out_strides, 0, 0};
    vkdml_argmax_desc am = argmax_desc;
    am.output = &out;
    am.axis_direction = VKDML_AXIS_DIRECTION_DECREASING;
    vkdml_operator_desc desc = {VKDML_OPERATOR_ARGMIN, &am};
    float x[6] = {1, 1, 2, 7, 3, 3};
    uint32_t y[3] = {0xAAAAAAAAu, 0xBBBBBBBBu, 0xCCCCCCCCu};
    vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
    MUST(vkdml_run(dev, &desc, ins, 1, outs, 1));
    EXPECT(y[0] == 1 && y[1] == 0xBBBBBBBBu && y[2] == 2);
}

/* A packed output whose buffer is larger than its elements: the spare
 * bytes keep their contents (semantics rule 6), one-shot and prepared, on
 * every run. size is the host buffer and total_tensor_size_in_bytes;
 * element_bytes are what the elements occupy. */
struct spare_case {
    const char *name;
    vkdml_operator_desc desc;
    const void *x;
    size_t x_bytes;
    const void *want; /* the element bytes */
    size_t element_bytes, size;
};

static void check_spare_case(vkdml_device dev, const struct spare_case *c) {
    unsigned char y[64];
    vkdml_buffer ins[1] = {{(void *)c->x, c->x_bytes}}, outs[1] = {{y, c->size}};
    vkdml_operator op = 0;
    MUST(vkdml_operator_create(dev, &c->desc, &op));
    for (int run = 0; run < 3; run++) {
        unsigned char poison = (unsigned char)(0xA5 + 17 * run);
        memset(y, poison, sizeof y);
        VKDML_HRESULT hr = run == 0 ? vkdml_run(dev, &c->desc, ins, 1, outs, 1) : vkdml_operator_run(op, ins, 1, outs, 1);
        if (VKDML_FAILED(hr)) {
            fprintf(stderr, "%s run %d: %s\n", c->name, run, vkdml_last_error());
            failures++;
            continue;
        }
        if (memcmp(y, c->want, c->element_bytes) != 0) {
            fprintf(stderr, "%s run %d: wrong elements\n", c->name, run);
            failures++;
        }
        for (size_t i = c->element_bytes; i < sizeof y; i++) {
            if (y[i] != poison) {
                fprintf(stderr, "%s run %d: byte %zu (of a %zu-byte buffer, %zu element bytes) is 0x%02X, was 0x%02X\n",
                        c->name, run, i, c->size, c->element_bytes, y[i], poison);
                failures++;
                break;
            }
        }
    }
    MUST(vkdml_operator_destroy(op));
}

static void spare_bytes(vkdml_device dev) {
    /* ARGMAX: three UINT32 indices in a 16-byte tensor. */
    static uint32_t s32[2] = {3, 2}, s31[2] = {3, 1}, ax1[1] = {1};
    static float x32[6] = {1, 2, 4, 3, 5, 5};
    static vkdml_tensor_desc ain = {VKDML_DATA_TYPE_FLOAT32, 0, 2, s32, NULL, 0, 0};
    static vkdml_tensor_desc aout = {VKDML_DATA_TYPE_UINT32, 0, 2, s31, NULL, 16, 0};
    static vkdml_argmax_desc am = {&ain, &aout, 1, ax1, VKDML_AXIS_DIRECTION_INCREASING};
    static const uint32_t awant[3] = {1, 0, 0};
    /* MAX_POOLING over pairs: three FLOAT16 (6 bytes, rounded to 8) and
     * three UINT8 (3 bytes, rounded to 4) values. */
    static uint32_t pin[4] = {1, 1, 1, 6}, pout[4] = {1, 1, 1, 3}, pst[2] = {1, 2}, pwin[2] = {1, 2}, pzero[2] = {0, 0};
    static uint16_t xf16[6] = {0x3C00, 0x4000, 0x4400, 0x4200, 0xC000, 0xBC00}; /* 1 2 4 3 -2 -1 */
    static const uint16_t f16want[3] = {0x4000, 0x4400, 0xBC00};
    static vkdml_tensor_desc hin = {VKDML_DATA_TYPE_FLOAT16, 0, 4, pin, NULL, 0, 0};
    static vkdml_tensor_desc hout = {VKDML_DATA_TYPE_FLOAT16, 0, 4, pout, NULL, 0, 0};
    static vkdml_max_pooling_desc hp = {&hin, &hout, 2, pst, pwin, pzero, pzero};
    static uint8_t xu8[6] = {7, 3, 0, 255, 9, 9};
    static const uint8_t u8want[3] = {7, 255, 9};
    static vkdml_tensor_desc bin = {VKDML_DATA_TYPE_UINT8, 0, 4, pin, NULL, 0, 0};
    static vkdml_tensor_desc bout = {VKDML_DATA_TYPE_UINT8, 0, 4, pout, NULL, 0, 0};
    static vkdml_max_pooling_desc bp = {&bin, &bout, 2, pst, pwin, pzero, pzero};
    /* REDUCE ARGMAX: three INT64 indices in a 32-byte tensor. */
    static vkdml_tensor_desc rout = {VKDML_DATA_TYPE_INT64, 0, 2, s31, NULL, 32, 0};
    static vkdml_reduce_desc rd = {VKDML_REDUCE_FUNCTION_ARGMAX, &ain, &rout, 1, ax1};
    static const int64_t rwant[3] = {1, 0, 0};
    const struct spare_case cases[] = {
        {"ARGMAX UINT32 in 16 bytes", {VKDML_OPERATOR_ARGMAX, &am}, x32, sizeof x32, awant, 12, 16},
        {"MAX_POOLING FLOAT16 in 8 bytes", {VKDML_OPERATOR_MAX_POOLING, &hp}, xf16, sizeof xf16, f16want, 6, 8},
        {"MAX_POOLING UINT8 in 4 bytes", {VKDML_OPERATOR_MAX_POOLING, &bp}, xu8, sizeof xu8, u8want, 3, 4},
        {"REDUCE INT64 in 32 bytes", {VKDML_OPERATOR_REDUCE, &rd}, x32, sizeof x32, rwant, 24, 32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_spare_case(dev, &cases[i]);
    }
}

/* Tensors that together exceed the device's memory are refused with
 * E_OUTOFMEMORY before anything is allocated. */
static void too_large_for_the_device(vkdml_device dev) {
    /* 65535 planes of 256x256 INT64 values and UINT64 indices: each tensor
     * under 2^32 elements, 69 GB together, more than lavapipe's heap (and
     * than most GPUs'); each plane fits a storage binding. */
    uint32_t in_sizes[4] = {65535, 1, 1, 1}, out_sizes[4] = {65535, 1, 256, 256};
    uint32_t one[2] = {1, 1}, zero[2] = {0, 0}, end[2] = {255, 255};
    vkdml_tensor_desc in = {VKDML_DATA_TYPE_INT64, 0, 4, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_INT64, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_tensor_desc idx = {VKDML_DATA_TYPE_UINT64, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_max_pooling1_desc mp = {&in, &out, &idx, 2, one, one, zero, end};
    vkdml_operator_desc d = {VKDML_OPERATOR_MAX_POOLING1, &mp};
    vkdml_operator op = 0;
    EXPECT_HR(vkdml_operator_create(dev, &d, &op), VKDML_E_OUTOFMEMORY, "outputs[0].TotalTensorSizeInBytes");
    EXPECT(op == 0);
}

/* The version the parent read before forking; NULL before it asked, when
 * a child forked before the Go runtime finished starting may get "". */
static const char *parent_version;

/* version_ok: v is a version whose major is the ABI version. */
static int version_ok(const char *v) {
    return strtoul(v, NULL, 10) == VKDML_ABI_VERSION && strchr(v, '.') != NULL;
}

#ifndef _WIN32 /* Windows has no fork */
/* In a child of fork() every function that would enter the Go runtime
 * fails at once with E_FAIL and a message naming the start methods; plain
 * C functions keep working. alarm turns a hang into SIGALRM, which the
 * parent reports. */
static int child_refuses(vkdml_device dev) {
    alarm(20);
    int bad = 0;
    vkdml_device d = 0;
    vkdml_operator op = 0;
    float x[6] = {0};
    uint32_t y[2];
    vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
    VKDML_HRESULT hrs[4] = {
        vkdml_device_create(NULL, &d),
        vkdml_run(dev, &argmax_op, ins, 1, outs, 1),
        vkdml_operator_create(dev, &argmax_op, &op),
        vkdml_device_destroy(dev),
    };
    for (int i = 0; i < 4; i++) {
        if (hrs[i] != VKDML_E_FAIL || strstr(vkdml_last_error(), "forkserver") == NULL ||
            strstr(vkdml_last_error(), "spawn") == NULL) {
            fprintf(stderr, "forked child: call %d returned 0x%08X: %s\n", i, (unsigned)hrs[i], vkdml_last_error());
            bad = 1;
        }
    }
    /* vkdml_version() is plain C once the Go runtime has started. */
    const char *v = vkdml_version();
    if (vkdml_abi_version() != VKDML_ABI_VERSION || strcmp(vkdml_hresult_name(VKDML_E_FAIL), "E_FAIL") != 0 ||
        (parent_version != NULL ? strcmp(v, parent_version) != 0 : v[0] != '\0' && !version_ok(v))) {
        fprintf(stderr, "forked child: vkdml_abi_version %u, vkdml_version \"%s\"\n", vkdml_abi_version(),
                vkdml_version());
        bad = 1;
    }
    return bad;
}

/* fork_and_check forks; the child runs child_refuses and exits with its
 * result; the parent waits and counts a failure for a non-zero exit or a
 * signal (SIGALRM: a hang). */
static void fork_and_check(const char *when, vkdml_device dev) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        _exit(child_refuses(dev));
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "fork %s: fork or waitpid failed\n", when);
        failures++;
        return;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "fork %s: the child died of signal %d%s\n", when, WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
        failures++;
    } else if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fork %s: the child's calls did not fail as they should\n", when);
        failures++;
    }
}

static void *run_repeatedly(void *arg) {
    vkdml_device dev = *(vkdml_device *)arg;
    for (int i = 0; i < 40; i++) {
        float x[6] = {0, 1, 2, 5, 4, 3};
        uint32_t y[2];
        vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
        if (VKDML_FAILED(vkdml_run(dev, &argmax_op, ins, 1, outs, 1)) || y[0] != 2 || y[1] != 0) {
            return (void *)1;
        }
    }
    return NULL;
}

/* A fork while another thread is inside the library. */
static void fork_during_runs(vkdml_device dev) {
    pthread_t t;
    void *bad = NULL;
    pthread_create(&t, NULL, run_repeatedly, &dev);
    for (int i = 0; i < 3; i++) {
        fork_and_check("while another thread runs operators", dev);
    }
    pthread_join(t, &bad);
    EXPECT(bad == NULL); /* the parent is unaffected */
}
#endif

/* REDUCE (ARGMIN, MAX, SUM, MULTIPLY), MAX_POOLING without indices, and MAX_POOLING1
 * with the optional indices absent and present. */
static void other_operators(vkdml_device dev) {
    vkdml_reduce_desc rd = {VKDML_REDUCE_FUNCTION_ARGMIN, &in23, &out21, 1, axis1};
    vkdml_operator_desc d = {VKDML_OPERATOR_REDUCE, &rd};
    float x[6] = {3, 1, 1, -4, 0, -4};
    uint32_t y[2];
    vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
    MUST(vkdml_run(dev, &d, ins, 1, outs, 1));
    EXPECT(y[0] == 1 && y[1] == 0);

    /* MAX ignores NaN; SUM of INT32 wraps. */
    vkdml_tensor_desc f21 = {VKDML_DATA_TYPE_FLOAT32, 0, 2, sizes21, NULL, 0, 0};
    vkdml_reduce_desc rmax = {VKDML_REDUCE_FUNCTION_MAX, &in23, &f21, 1, axis1};
    vkdml_operator_desc dmax = {VKDML_OPERATOR_REDUCE, &rmax};
    float xm[6] = {NAN, 1, 3, -4, -0.0f, -4}, ym[2];
    vkdml_buffer mins[1] = {{xm, sizeof xm}}, mouts[1] = {{ym, sizeof ym}};
    MUST(vkdml_run(dev, &dmax, mins, 1, mouts, 1));
    EXPECT(ym[0] == 3 && ym[1] == 0 && signbit(ym[1]));
    vkdml_tensor_desc i23 = {VKDML_DATA_TYPE_INT32, 0, 2, sizes23, NULL, 0, 0};
    vkdml_tensor_desc i21 = {VKDML_DATA_TYPE_INT32, 0, 2, sizes21, NULL, 0, 0};
    vkdml_reduce_desc rsum = {VKDML_REDUCE_FUNCTION_SUM, &i23, &i21, 1, axis1};
    vkdml_operator_desc dsum = {VKDML_OPERATOR_REDUCE, &rsum};
    int32_t xs[6] = {INT32_MAX, 1, 0, -1, -2, 3}, ys[2];
    vkdml_buffer sins[1] = {{xs, sizeof xs}}, souts[1] = {{ys, sizeof ys}};
    MUST(vkdml_run(dev, &dsum, sins, 1, souts, 1));
    EXPECT(ys[0] == INT32_MIN && ys[1] == 0);
    /* MULTIPLY of FLOAT32 in rule 42's tree: ((x0*x1)*x2), 1e30*1e30
     * overflows first. */
    vkdml_reduce_desc rmul = {VKDML_REDUCE_FUNCTION_MULTIPLY, &in23, &f21, 1, axis1};
    vkdml_operator_desc dmul = {VKDML_OPERATOR_REDUCE, &rmul};
    float xp[6] = {2, 3, 4, 1e30f, 1e30f, 1e-30f}, yp[2];
    vkdml_buffer mulins[1] = {{xp, sizeof xp}}, mulouts[1] = {{yp, sizeof yp}};
    MUST(vkdml_run(dev, &dmul, mulins, 1, mulouts, 1));
    EXPECT(yp[0] == 24 && isinf(yp[1]) && yp[1] > 0);

    uint32_t in_sizes[4] = {1, 1, 2, 3}, out_sizes[4] = {1, 1, 1, 2};
    uint32_t strides[2] = {1, 2}, window[2] = {2, 2}, zero[2] = {0, 0};
    vkdml_tensor_desc pin = {VKDML_DATA_TYPE_FLOAT32, 0, 4, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc pout = {VKDML_DATA_TYPE_FLOAT32, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_tensor_desc pidx = {VKDML_DATA_TYPE_UINT64, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_max_pooling_desc mp = {&pin, &pout, 2, strides, window, zero, zero};
    vkdml_operator_desc dm = {VKDML_OPERATOR_MAX_POOLING, &mp};
    float px[6] = {1, 9, 2, 4, 5, 6}, py[2] = {0, 0};
    vkdml_buffer pins[1] = {{px, sizeof px}}, pouts[1] = {{py, sizeof py}};
    MUST(vkdml_run(dev, &dm, pins, 1, pouts, 1));
    EXPECT(py[0] == 9 && py[1] == 6);

    vkdml_max_pooling1_desc mp1 = {&pin, &pout, NULL, 2, strides, window, zero, zero};
    vkdml_operator_desc dm1 = {VKDML_OPERATOR_MAX_POOLING1, &mp1};
    uint64_t pi[2] = {77, 77};
    vkdml_buffer two[2] = {{py, sizeof py}, {NULL, 0}};
    MUST(vkdml_run(dev, &dm1, pins, 1, two, 2));
    two[1].data = pi;
    two[1].size_in_bytes = sizeof pi;
    EXPECT_HR(vkdml_run(dev, &dm1, pins, 1, two, 2), VKDML_E_INVALIDARG, "outputs[1].data");
    mp1.output_indices = &pidx;
    MUST(vkdml_run(dev, &dm1, pins, 1, two, 2));
    EXPECT(pi[0] == 1 && pi[1] == 5);
}

/* MAX_UNPOOLING: two inputs, one-shot and prepared. An index past the
 * output's end is skipped, and of two inputs with one index the later wins. */
static void max_unpooling(vkdml_device dev) {
    uint32_t in_sizes[4] = {1, 2, 1, 2}, out_sizes[4] = {1, 2, 2, 2};
    vkdml_tensor_desc x = {VKDML_DATA_TYPE_FLOAT32, 0, 4, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc idx = {VKDML_DATA_TYPE_UINT64, 0, 4, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc y = {VKDML_DATA_TYPE_FLOAT32, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_max_unpooling_desc ud = {&x, &idx, &y};
    vkdml_operator_desc d = {VKDML_OPERATOR_MAX_UNPOOLING, &ud};
    float xv[4] = {1, 2, 3, 4}, yv[8];
    uint64_t iv[4] = {7, 5, 5, 4000000000u};
    vkdml_buffer ins[2] = {{xv, sizeof xv}, {iv, sizeof iv}}, outs[1] = {{yv, sizeof yv}};
    vkdml_operator op = 0;
    MUST(vkdml_operator_create(dev, &d, &op));
    for (int run = 0; run < 2; run++) {
        memset(yv, 0xff, sizeof yv);
        MUST(run == 0 ? vkdml_run(dev, &d, ins, 2, outs, 1) : vkdml_operator_run(op, ins, 2, outs, 1));
        const float want[8] = {0, 0, 0, 0, 0, 3, 0, 1};
        EXPECT(memcmp(yv, want, sizeof want) == 0);
    }
    EXPECT_HR(vkdml_operator_run(op, ins, 1, outs, 1), VKDML_E_INVALIDARG, "inputs");
    MUST(vkdml_operator_destroy(op));
    idx.data_type = VKDML_DATA_TYPE_INT32;
    EXPECT_HR(vkdml_run(dev, &d, ins, 2, outs, 1), VKDML_E_INVALIDARG, "IndicesTensor.DataType");
}

/* TOP_K1: two outputs, ties to the lower index, NaN after every number;
 * TOP_K is DECREASING; K past the axis and INT32 indices are refused. */
static void top_k(vkdml_device dev) {
    uint32_t in_sizes[1] = {5}, out_sizes[1] = {3};
    vkdml_tensor_desc x = {VKDML_DATA_TYPE_FLOAT32, 0, 1, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc v = {VKDML_DATA_TYPE_FLOAT32, 0, 1, out_sizes, NULL, 0, 0};
    vkdml_tensor_desc i = {VKDML_DATA_TYPE_UINT32, 0, 1, out_sizes, NULL, 0, 0};
    vkdml_top_k1_desc td = {&x, &v, &i, 0, 3, VKDML_AXIS_DIRECTION_INCREASING};
    vkdml_operator_desc d = {VKDML_OPERATOR_TOP_K1, &td};
    float xv[5] = {3, NAN, 1, 3, 1}, vv[3];
    uint32_t iv[3];
    vkdml_buffer ins[1] = {{xv, sizeof xv}}, outs[2] = {{vv, sizeof vv}, {iv, sizeof iv}};
    MUST(vkdml_run(dev, &d, ins, 1, outs, 2));
    EXPECT(vv[0] == 1 && vv[1] == 1 && vv[2] == 3 && iv[0] == 2 && iv[1] == 4 && iv[2] == 0);
    vkdml_top_k_desc kd = {&x, &v, &i, 0, 3};
    vkdml_operator_desc dk = {VKDML_OPERATOR_TOP_K, &kd};
    MUST(vkdml_run(dev, &dk, ins, 1, outs, 2));
    EXPECT(vv[0] == 3 && vv[1] == 3 && vv[2] == 1 && iv[0] == 0 && iv[1] == 3 && iv[2] == 2);
    td.k = 6;
    EXPECT_HR(vkdml_run(dev, &d, ins, 1, outs, 2), VKDML_E_INVALIDARG, "K");
    td.k = 3;
    i.data_type = VKDML_DATA_TYPE_INT32;
    EXPECT_HR(vkdml_run(dev, &d, ins, 1, outs, 2), VKDML_E_INVALIDARG, "OutputIndexTensor.DataType");
}

/* Messages belong to the thread whose call failed. */
static void *fail_in_thread(void *arg) {
    (void)arg;
    VKDML_HRESULT hr = vkdml_device_destroy(999999);
    return (void *)(intptr_t)(hr == VKDML_E_INVALIDARG && strstr(vkdml_last_error(), "999999") != NULL);
}

static void thread_local_errors(void) {
    EXPECT_HR(vkdml_operator_destroy(31337), VKDML_E_INVALIDARG, "31337");
    pthread_t t;
    void *ok = NULL;
    pthread_create(&t, NULL, fail_in_thread, NULL);
    pthread_join(t, &ok);
    EXPECT(ok != NULL);
    EXPECT(strstr(vkdml_last_error(), "31337") != NULL); /* ours is unchanged */
}

/* Four threads share one prepared operator and the device. */
struct worker {
    vkdml_device dev;
    vkdml_operator op;
    int id, bad;
};

static void *work(void *arg) {
    struct worker *w = arg;
    for (int i = 0; i < 25; i++) {
        float x[6] = {0, 0, 0, 0, 0, 0};
        x[(w->id + i) % 3] = 1;
        x[3 + (w->id + 2 * i) % 3] = 1;
        uint32_t y[2] = {9, 9};
        vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
        VKDML_HRESULT hr = (i % 2) ? vkdml_operator_run(w->op, ins, 1, outs, 1)
                                   : vkdml_run(w->dev, &argmax_op, ins, 1, outs, 1);
        if (VKDML_FAILED(hr) || y[0] != (uint32_t)((w->id + i) % 3) || y[1] != (uint32_t)((w->id + 2 * i) % 3)) {
            fprintf(stderr, "worker %d run %d: %s, got [%u, %u]\n", w->id, i, vkdml_last_error(), y[0], y[1]);
            w->bad++;
        }
    }
    return NULL;
}

static void concurrency(vkdml_device dev) {
    vkdml_operator op = 0;
    MUST(vkdml_operator_create(dev, &argmax_op, &op));
    pthread_t t[4];
    struct worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (struct worker){dev, op, i, 0};
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        EXPECT(w[i].bad == 0);
    }
    MUST(vkdml_operator_destroy(op));
}

int main(void) {
    /* Before any call: loading the library started the Go runtime. */
#ifndef _WIN32
    fork_and_check("right after the library was loaded", 1);
#endif
    parent_version = vkdml_version();
    if (!version_ok(parent_version)) {
        fprintf(stderr, "vkdml_version() = \"%s\"; want MAJOR.MINOR.PATCH with MAJOR %u\n", parent_version,
                VKDML_ABI_VERSION);
        failures++;
    }
    if (strcmp(vkdml_hresult_name(VKDML_E_UNEXPECTED), "E_UNEXPECTED") != 0) {
        fprintf(stderr, "FAIL: vkdml_hresult_name(VKDML_E_UNEXPECTED) is %s\n", vkdml_hresult_name(VKDML_E_UNEXPECTED));
        failures++;
    }
    vkdml_device_options opts = {VKDML_CREATE_DEVICE_FLAG_DEBUG, 0, NULL};
    vkdml_device dev = 0;
    MUST(vkdml_device_create(&opts, &dev));
    device_errors(dev);
    desc_errors(dev);
    run_errors(dev);
    strided_output(dev);
    other_operators(dev);
    max_unpooling(dev);
    top_k(dev);
    thread_local_errors();
    concurrency(dev);
    spare_bytes(dev);
    too_large_for_the_device(dev);
#ifndef _WIN32
    fork_and_check("after the device was used", dev);
    fork_during_runs(dev);
#endif
    MUST(vkdml_device_destroy(dev));
    EXPECT_HR(vkdml_device_destroy(dev), VKDML_E_INVALIDARG, "not a live device handle");
    if (failures) {
        fprintf(stderr, "abi_test: %d failures\n", failures);
        return 1;
    }
    printf("abi_test: ok\n");
    return 0;
}
