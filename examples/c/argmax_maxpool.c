/* argmax_maxpool.c: libvkdml from C.
 *
 * Opens the default Vulkan device, runs ARGMAX on a small matrix with a NaN
 * (DirectML's rule: a NaN not in first position is never the answer), runs
 * a prepared ARGMIN several times on a strided (column-major) view without
 * recompiling, runs MAX_POOLING2 with flat indices, and shows the error an
 * out-of-range axis gets. It exits non-zero on any wrong result, so
 * `make capi-test` checks the library end to end.
 *
 * Build: cc -Icapi examples/c/argmax_maxpool.c -Lbin -lvkdml -o example
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vkdml.h"

static int failures;

#define CHECK_HR(call)                                                       \
    do {                                                                     \
        VKDML_HRESULT hr_ = (call);                                          \
        if (VKDML_FAILED(hr_)) {                                             \
            fprintf(stderr, "%s failed: %s (0x%08X): %s\n", #call,           \
                    vkdml_hresult_name(hr_), (unsigned)hr_,                  \
                    vkdml_last_error());                                     \
            return 1;                                                        \
        }                                                                    \
    } while (0)

static void expect_u32(const char *what, const uint32_t *got,
                       const uint32_t *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fprintf(stderr, "%s[%zu] = %u, want %u\n", what, i, got[i], want[i]);
            failures++;
        }
    }
}

/* ARGMAX over axis 1 of a 2x3 FLOAT32 matrix. */
static int argmax_rows(vkdml_device dev) {
    float x[2][3] = {{1.0f, NAN, 3.0f}, {7.0f, 7.0f, -1.0f}};
    uint32_t in_sizes[2] = {2, 3}, out_sizes[2] = {2, 1}, axes[1] = {1};
    vkdml_tensor_desc in = {VKDML_DATA_TYPE_FLOAT32, 0, 2, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_UINT32, 0, 2, out_sizes, NULL, 0, 0};
    vkdml_argmax_desc am = {&in, &out, 1, axes, VKDML_AXIS_DIRECTION_INCREASING};
    vkdml_operator_desc desc = {VKDML_OPERATOR_ARGMAX, &am};
    uint32_t y[2] = {99, 99};
    vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
    CHECK_HR(vkdml_run(dev, &desc, ins, 1, outs, 1));
    const uint32_t want[2] = {2, 0}; /* NaN skipped; ties: the first */
    expect_u32("argmax", y, want, 2);
    printf("argmax([[1, NaN, 3], [7, 7, -1]], axis 1) = [%u, %u]\n", y[0], y[1]);
    return 0;
}

/* A prepared ARGMIN (DECREASING: the last of tied minima) over axis 0 of a
 * 3x2 view of a column-major INT16 buffer: strides {1, 3} in elements. */
static int argmin_prepared(vkdml_device dev) {
    uint32_t sizes[2] = {3, 2}, strides[2] = {1, 3}, out_sizes[2] = {1, 2}, axes[1] = {0};
    vkdml_tensor_desc in = {VKDML_DATA_TYPE_INT16, 0, 2, sizes, strides, 0, 0};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_INT64, 0, 2, out_sizes, NULL, 0, 0};
    vkdml_argmin_desc am = {&in, &out, 1, axes, VKDML_AXIS_DIRECTION_DECREASING};
    vkdml_operator_desc desc = {VKDML_OPERATOR_ARGMIN, &am};
    vkdml_operator op = 0;
    CHECK_HR(vkdml_operator_create(dev, &desc, &op));
    for (int run = 0; run < 3; run++) {
        /* column 0 = {run, -5, -5}, column 1 = {4, run - 10, 0} */
        int16_t x[6] = {(int16_t)run, -5, -5, 4, (int16_t)(run - 10), 0};
        int64_t y[2] = {-1, -1};
        vkdml_buffer ins[1] = {{x, sizeof x}}, outs[1] = {{y, sizeof y}};
        CHECK_HR(vkdml_operator_run(op, ins, 1, outs, 1));
        if (y[0] != 2 || y[1] != 1) {
            fprintf(stderr, "argmin run %d = [%lld, %lld], want [2, 1]\n", run,
                    (long long)y[0], (long long)y[1]);
            failures++;
        }
    }
    printf("prepared argmin ran 3 times without recompiling\n");
    CHECK_HR(vkdml_operator_destroy(op));
    return 0;
}

/* MAX_POOLING2: 2x2 windows, stride 2, on a 1x2x4x4 FLOAT32 tensor;
 * indices are flat over the whole input (channel 1 starts at 16). */
static int max_pool(vkdml_device dev) {
    float x[32];
    for (int i = 0; i < 32; i++) x[i] = (float)((i * 7) % 11);
    uint32_t in_sizes[4] = {1, 2, 4, 4}, out_sizes[4] = {1, 2, 2, 2};
    uint32_t strides[2] = {2, 2}, window[2] = {2, 2}, pad[2] = {0, 0}, dil[2] = {1, 1};
    vkdml_tensor_desc in = {VKDML_DATA_TYPE_FLOAT32, 0, 4, in_sizes, NULL, 0, 0};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_FLOAT32, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_tensor_desc idx = {VKDML_DATA_TYPE_UINT32, 0, 4, out_sizes, NULL, 0, 0};
    vkdml_max_pooling2_desc mp = {&in, &out, &idx, 2, strides, window, pad, pad, dil};
    vkdml_operator_desc desc = {VKDML_OPERATOR_MAX_POOLING2, &mp};
    float y[8];
    uint32_t yi[8];
    vkdml_buffer ins[1] = {{x, sizeof x}}, outs[2] = {{y, sizeof y}, {yi, sizeof yi}};
    CHECK_HR(vkdml_run(dev, &desc, ins, 1, outs, 2));
    /* The CPU answer: the first maximum of each window in row-major order. */
    for (int c = 0; c < 2; c++)
        for (int oh = 0; oh < 2; oh++)
            for (int ow = 0; ow < 2; ow++) {
                uint32_t best = 0;
                float v = -INFINITY;
                for (int kh = 0; kh < 2; kh++)
                    for (int kw = 0; kw < 2; kw++) {
                        uint32_t i = (uint32_t)(c * 16 + (oh * 2 + kh) * 4 + ow * 2 + kw);
                        if (x[i] > v) v = x[i], best = i;
                    }
                int o = c * 4 + oh * 2 + ow;
                if (yi[o] != best || y[o] != v) {
                    fprintf(stderr, "max_pool[%d] = (%g, %u), want (%g, %u)\n", o, y[o], yi[o], v, best);
                    failures++;
                }
            }
    printf("max_pooling2 indices: %u %u %u %u | %u %u %u %u\n", yi[0], yi[1], yi[2], yi[3],
           yi[4], yi[5], yi[6], yi[7]);
    return 0;
}

/* A bad axis fails at creation with E_INVALIDARG and a message. */
static int bad_axis(vkdml_device dev) {
    uint32_t sizes[2] = {2, 3}, axes[1] = {2};
    vkdml_tensor_desc in = {VKDML_DATA_TYPE_FLOAT32, 0, 2, sizes, NULL, 0, 0};
    vkdml_tensor_desc out = {VKDML_DATA_TYPE_UINT32, 0, 2, sizes, NULL, 0, 0};
    vkdml_argmax_desc am = {&in, &out, 1, axes, VKDML_AXIS_DIRECTION_INCREASING};
    vkdml_operator_desc desc = {VKDML_OPERATOR_ARGMAX, &am};
    vkdml_operator op = 0;
    VKDML_HRESULT hr = vkdml_operator_create(dev, &desc, &op);
    printf("axis 2 of a 2-D tensor: %s: %s\n", vkdml_hresult_name(hr), vkdml_last_error());
    if (hr != VKDML_E_INVALIDARG || op != 0 || strstr(vkdml_last_error(), "Axes[0]") == NULL) {
        fprintf(stderr, "bad axis: got 0x%08X, op %llu\n", (unsigned)hr, (unsigned long long)op);
        failures++;
    }
    return 0;
}

int main(void) {
    if (vkdml_abi_version() != VKDML_ABI_VERSION) {
        fprintf(stderr, "libvkdml ABI %u, header %u\n", vkdml_abi_version(), VKDML_ABI_VERSION);
        return 1;
    }
    /* The debug flag turns on the Khronos validation layer: any Vulkan
     * misuse by the library fails the call that caused it. */
    vkdml_device_options opts = {0};
    opts.flags = VKDML_CREATE_DEVICE_FLAG_DEBUG;
    opts.minimum_feature_level = VKDML_FEATURE_LEVEL_5_0;
    vkdml_device dev = 0;
    CHECK_HR(vkdml_device_create(&opts, &dev));

    char name[256];
    uint32_t levels[2] = {VKDML_FEATURE_LEVEL_4_1, VKDML_FEATURE_LEVEL_6_4}, best = 0;
    CHECK_HR(vkdml_device_name(dev, name, sizeof name, NULL));
    CHECK_HR(vkdml_device_feature_levels(dev, levels, 2, &best));
    printf("device: %s, feature level %X\n", name, best);

    if (argmax_rows(dev) || argmin_prepared(dev) || max_pool(dev) || bad_axis(dev)) {
        return 1;
    }
    CHECK_HR(vkdml_device_destroy(dev));
    if (failures) {
        fprintf(stderr, "%d wrong results\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
