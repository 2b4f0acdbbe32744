// Package testutil opens devices for tests and draws seeded random inputs.
package testutil

import (
	"errors"
	"math/rand"
	"os"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testseed"
)

// InCI reports whether tests run under CI (CI=true), where a missing Vulkan
// device is a failure rather than a skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// NoDevice skips the test, or fails it under CI, because err says there is
// no Vulkan device or loader.
func NoDevice(t testing.TB, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and no Vulkan device: %v", err)
	}
	t.Skipf("no Vulkan device: %v", err)
}

// OpenGPU opens the default device with the validation layer on; the
// test closes it at cleanup, failing if Close reports anything.
func OpenGPU(t testing.TB, opts gpu.Options) *gpu.Device {
	t.Helper()
	opts.Debug = true
	if opts.PipelineCacheDir == "" {
		opts.PipelineCacheDir = "off"
	}
	d := openOrSkip(t, "gpu.Open", func() (*gpu.Device, error) { return gpu.Open(opts) })
	closeAtCleanup(t, d.Close)
	return d
}

// OpenDML creates a dml device in debug mode (validation layer on; any
// message fails the call that caused it, and so the test); the test closes
// it at cleanup, failing if Close reports anything.
func OpenDML(t testing.TB, opts dml.DeviceOptions) *dml.Device {
	t.Helper()
	opts.Flags |= dml.CreateDeviceFlagDebug
	d := CreateDML(t, opts)
	closeAtCleanup(t, d.Close)
	return d
}

// CreateDML creates a dml device with opts as given (the pipeline cache
// off unless set) and leaves closing it to the test: for tests that look at
// what Close reports, close it while it is in use, or time it without the
// validation layer.
func CreateDML(t testing.TB, opts dml.DeviceOptions) *dml.Device {
	t.Helper()
	if opts.PipelineCacheDir == "" {
		opts.PipelineCacheDir = "off"
	}
	return openOrSkip(t, "CreateDevice", func() (*dml.Device, error) { return dml.CreateDevice(opts) })
}

// openOrSkip returns what open opens; where there is no Vulkan loader or
// device it skips the test (fails it under CI), and any other error fails
// it, naming call.
func openOrSkip[D any](t testing.TB, call string, open func() (D, error)) D {
	t.Helper()
	d, err := open()
	if err != nil {
		if errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice) {
			NoDevice(t, err)
		}
		t.Fatalf("%s: %v", call, err)
	}
	return d
}

// closeAtCleanup closes a device when the test ends; what Close reports
// (the validation layer names every object left alive) fails the test.
func closeAtCleanup(t testing.TB, close func() error) {
	t.Cleanup(func() {
		if err := close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// Rand returns a generator seeded from $VKDML_SEED or the clock, and logs
// the seed so a failure can be replayed (testseed.Rand).
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	_, rng := testseed.Rand(t)
	return rng
}

// Long reports whether the long sweeps run their whole grids: with
// VKDML_LONG=1 and without -short (make test-long). CI runs their samples,
// which cover every kernel and plan; the whole grids are for a change to
// a kernel they sweep, and for a release.
func Long() bool { return !testing.Short() && os.Getenv("VKDML_LONG") == "1" }

// CaseCount is how many random cases a test draws: full, or short under
// go test -short.
func CaseCount(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}
