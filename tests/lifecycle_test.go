package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// lifecycleCycles is how many devices one process creates, uses and
// closes. NVIDIA's driver (580) refused the 31st VkInstance of a process;
// vkdml now keeps one instance (and one debug instance) for the process,
// so every cycle after the first creates only a VkDevice.
const lifecycleCycles = 200

// TestSmokeIdentity computes a 2x3 identity on a debug device.
func TestSmokeIdentity(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	desc, in := identity2x3()
	if err := checkIdentity(d, desc, in); err != nil {
		t.Fatal(err)
	}
}

// identity2x3 is a FLOAT32 2x3 identity and its input.
func identity2x3() (*dml.ElementWiseIdentity, *tensor.Tensor) {
	in := tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	return &dml.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{2, 3})}, in
}

// checkIdentity computes desc on in with d and wants in back.
func checkIdentity(d *dml.Device, desc *dml.ElementWiseIdentity, in *tensor.Tensor) error {
	outs, err := d.Compute(desc, in)
	if err != nil {
		return fmt.Errorf("Compute: %w", err)
	}
	if !bytes.Equal(outs[0].Data, in.Data) {
		return fmt.Errorf("got %v want %v", outs[0].Float64s(), in.Float64s())
	}
	return nil
}

// TestLifecycle creates a device, computes a 2x3 identity and closes the
// device, 200 times in one process, without and with the validation layer,
// and checks that file descriptors do not grow with the cycles.
func TestLifecycle(t *testing.T) {
	for _, debug := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "debug"}[debug], func(t *testing.T) {
			opts := dml.DeviceOptions{PipelineCacheDir: "off"}
			if debug {
				opts.Flags |= dml.CreateDeviceFlagDebug
			}
			desc, in := identity2x3()
			fds := -1
			for i := range lifecycleCycles {
				d, err := dml.CreateDevice(opts)
				if err != nil {
					if i == 0 && (errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice)) {
						testutil.NoDevice(t, err)
					}
					t.Fatalf("cycle %d: CreateDevice: %v", i, err)
				}
				if err := checkIdentity(d, desc, in); err != nil {
					d.Close()
					t.Fatalf("cycle %d: %v", i, err)
				}
				if err := d.Close(); err != nil {
					t.Fatalf("cycle %d: Close: %v", i, err)
				}
				// The first cycles may open files for good (the shared
				// instance, the driver's caches); after that nothing may grow.
				switch n := openFiles(); {
				case i == 10:
					fds = n
				case i > 10 && n > fds+2:
					t.Fatalf("cycle %d: %d open files, %d at cycle 10", i, n, fds)
				}
			}
		})
	}
}

// openFiles counts the process's file descriptors (-1 where /proc is not
// there).
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
