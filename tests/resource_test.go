package tests

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// openDebug opens a debug device that the test closes itself, so that it
// can look at what Close reports.
func openDebug(t *testing.T) *dml.Device {
	t.Helper()
	d, err := dml.CreateDevice(dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug, PipelineCacheDir: "off"})
	if err != nil {
		if errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice) {
			testutil.NoDevice(t, err)
		}
		t.Fatal(err)
	}
	return d
}

// TestCreateDestroyLoopArgMaxPool compiles, initializes, runs and releases
// ARGMAX (split-K, with a temporary resource), ARGMIN and MAX_POOLING2 with
// indices 20 times over: after every round the device holds no memory, and
// at the end Close reports nothing (the validation layer names every Vulkan
// object left alive at vkDestroyDevice).
func TestCreateDestroyLoopArgMaxPool(t *testing.T) {
	d := openDebug(t)
	rng := testutil.Rand(t)
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 2, 4, 4})
	descs := []struct {
		kernel string
		desc   ops.Desc
	}{
		{ops.ArgStrategySplitK, &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 600}), Output: tensor.NewDesc(tensor.UInt64, []uint32{2, 1}), Axes: []uint32{1}}},
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
			res, err := testutil.RunPoisoned(d, limitedKernel{c.desc, c.kernel}, []*tensor.Tensor{inputs[i]}, rng)
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
	d, err := dml.CreateDevice(dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug, PipelineCacheDir: "off", ComputeCacheSize: 2})
	if err != nil {
		testutil.NoDevice(t, err)
	}
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 2, 4, 4})
	descs := []ops.Desc{
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
	d := openDebug(t)
	op, err := d.CreateOperator(&dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 8}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 1}), Axes: []uint32{1}})
	if err != nil {
		d.Close()
		t.Fatal(err)
	}
	if _, err := d.CompileOperator(op, 0); err != nil { // leaked on purpose
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
	err = d.Close()
	if err == nil {
		t.Fatal("Close reported nothing though a compiled operator and a buffer were never released")
	}
	if !strings.Contains(err.Error(), "vkDestroyDevice") {
		t.Errorf("Close's error is not the validation layer's leak report: %v", err)
	}
	t.Logf("Close reports: %.400s", err)
}

// limitedKernel forces a kernel strategy on a desc (ops.Context.Kernel).
type limitedKernel struct {
	ops.Desc
	kernel string
}

func (l limitedKernel) Plan(ctx *ops.Context) (*ops.Plan, error) {
	c := *ctx
	if l.kernel != "" {
		c.Kernel = l.kernel
	}
	return l.Desc.Plan(&c)
}
