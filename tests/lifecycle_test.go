package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
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

// TestCreateDestroyLoopArgMaxPool compiles, initializes, runs and releases
// ARGMAX (split-K, with a temporary resource), ARGMIN and MAX_POOLING2 with
// indices 20 times over: after every round the device holds no memory, and
// at the end Close reports nothing (the validation layer names every Vulkan
// object left alive at vkDestroyDevice).
func TestCreateDestroyLoopArgMaxPool(t *testing.T) {
	d := testutil.CreateDML(t, dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug})
	rng := testutil.Rand(t)
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 2, 4, 4})
	descs := []struct {
		kernel string
		desc   dml.OperatorDesc
	}{
		{dml.ArgStrategySplitK, &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 600}), Output: tensor.NewDesc(tensor.UInt64, []uint32{2, 1}), Axes: []uint32{1}}},
		{"", &dml.ArgMin{Input: tensor.NewDesc(tensor.UInt8, []uint32{5, 7, 3}), Output: tensor.NewDesc(tensor.Int32, []uint32{1, 7, 1}), Axes: []uint32{0, 2}}},
		{"", &dml.MaxPooling2{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 9, 9}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 4, 4}), OutputIndices: &idx,
			Strides: []uint32{2, 2}, WindowSize: []uint32{3, 3}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}},
	}
	inputs := make([]*tensor.Tensor, len(descs))
	for i, c := range descs {
		in := c.desc.Inputs()[0]
		inputs[i] = &tensor.Tensor{Desc: in.Clone(), Data: make([]byte, in.TotalTensorSizeInBytes)}
		rng.Read(inputs[i].Data)
	}
	for round := range 20 {
		for i, c := range descs {
			res, err := testutil.RunPoisoned(d, &testutil.ForcedPlan{Desc: c.desc, Kernel: c.kernel}, []*tensor.Tensor{inputs[i]}, rng)
			if err != nil {
				t.Fatalf("round %d %s: %v", round, c.desc.OperatorType(), err)
			}
			for j := range res.Outputs {
				if res.Outputs[j] != nil {
					if diff := testutil.DiffTensors(res.Expected[j], res.Outputs[j], 4); diff != "" {
						t.Fatalf("round %d %s output %d:\n%s", round, c.desc.OperatorType(), j, diff)
					}
				}
			}
		}
		if n := d.GPU().Allocated(); n != 0 {
			t.Fatalf("round %d: %d bytes of device memory still allocated after every object was released", round, n)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close after the loop reports: %v", err)
	}
}

// TestComputeLoopReleasesEverything runs Compute over ARGMAX (split-K),
// ARGMIN and MAX_POOLING2 30 times on a cache of 2 (so that operators are
// evicted and compiled again): after every round no device memory is held,
// and Close, which releases the cached operators, reports no Vulkan object
// left alive.
func TestComputeLoopReleasesEverything(t *testing.T) {
	d := testutil.CreateDML(t, dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug, ComputeCacheSize: 2})
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 2, 4, 4})
	descs := []dml.OperatorDesc{
		&dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 600}), Output: tensor.NewDesc(tensor.UInt64, []uint32{2, 1}), Axes: []uint32{1}},
		&dml.ArgMin{Input: tensor.NewDesc(tensor.UInt8, []uint32{5, 7, 3}), Output: tensor.NewDesc(tensor.Int32, []uint32{1, 7, 1}), Axes: []uint32{0, 2}},
		&dml.MaxPooling2{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 9, 9}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 4, 4}), OutputIndices: &idx,
			Strides: []uint32{2, 2}, WindowSize: []uint32{3, 3}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}},
	}
	for round := range 30 {
		for _, desc := range descs {
			in := desc.Inputs()[0]
			if _, err := d.Compute(desc, &tensor.Tensor{Desc: in.Clone(), Data: make([]byte, in.TotalTensorSizeInBytes)}); err != nil {
				t.Fatalf("round %d %s: %v", round, desc.OperatorType(), err)
			}
		}
		if n := d.GPU().Allocated(); n != 0 {
			t.Fatalf("round %d: %d bytes of device memory held after Compute returned", round, n)
		}
		if n := d.CachedOperators(); n > 2 {
			t.Fatalf("round %d: %d cached operators with ComputeCacheSize 2", round, n)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close after the Compute loop reports: %v", err)
	}
}

// TestCloseReportsLeaks proves the check above can fail: a compiled
// operator and a buffer that are never released are named at Close.
func TestCloseReportsLeaks(t *testing.T) {
	d := testutil.CreateDML(t, dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug})
	if _, err := testutil.Compile(d, argDescSmall(), ""); err != nil { // leaked on purpose
		d.Close()
		t.Fatal(err)
	}
	if _, err := d.CreateBuffer(4096); err != nil { // leaked on purpose
		d.Close()
		t.Fatal(err)
	}
	if n := d.GPU().Allocated(); n == 0 {
		t.Errorf("a live buffer but Allocated() = 0")
	}
	err := d.Close()
	if err == nil {
		t.Fatal("Close reported nothing though a compiled operator and a buffer were never released")
	}
	if !strings.Contains(err.Error(), "vkDestroyDevice") {
		t.Errorf("Close's error is not the validation layer's leak report: %v", err)
	}
	t.Logf("Close reports: %.400s", err)
}
