// Package testutil opens devices for tests and draws seeded random inputs.
package testutil

import (
	"errors"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
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

// OpenGPU opens the default device with the validation layer on.
func OpenGPU(t testing.TB, opts gpu.Options) *gpu.Device {
	t.Helper()
	opts.Debug = true
	if opts.PipelineCacheDir == "" {
		opts.PipelineCacheDir = "off"
	}
	d, err := gpu.Open(opts)
	if err != nil {
		if errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice) {
			NoDevice(t, err)
		}
		t.Fatalf("gpu.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// OpenDML creates a dml device in debug mode (validation layer on; any
// message fails the call that caused it, and so the test).
func OpenDML(t testing.TB, opts dml.DeviceOptions) *dml.Device {
	t.Helper()
	opts.Flags |= dml.CreateDeviceFlagDebug
	if opts.PipelineCacheDir == "" {
		opts.PipelineCacheDir = "off"
	}
	d, err := dml.CreateDevice(opts)
	if err != nil {
		if errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice) {
			NoDevice(t, err)
		}
		t.Fatalf("CreateDevice: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// Rand returns a generator seeded from $VKDML_SEED or the clock, and logs
// the seed so a failure can be replayed.
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("VKDML_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("VKDML_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with VKDML_SEED=%d)", seed, seed)
	return rand.New(rand.NewSource(seed))
}
