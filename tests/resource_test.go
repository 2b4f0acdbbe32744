package tests

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

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

// TestResourceRanges: Write, Read and Fill check their ranges with
// overflow-safe arithmetic, and an empty range at the end is a no-op.
func TestResourceRanges(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	r, err := d.CreateBuffer(256)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if err := r.Fill(0, 256, arenaPattern); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, field string
		err         error
	}{
		{"Fill(size, 0)", "", r.Fill(256, 0, 1)},
		{"Write at the end, empty", "", r.Write(256, nil)},
		{"Read at the end, empty", "", r.Read(256, nil)},
		{"Fill past the end", "size", r.Fill(256, 4, 1)},
		{"Fill offset past the end, empty", "size", r.Fill(260, 0, 1)},
		{"Fill 4 bytes over", "size", r.Fill(0, 260, 1)},
		{"Fill size wrapping 2^64", "size", r.Fill(4, math.MaxUint64-3, 1)},
		{"Fill misaligned offset", "offset", r.Fill(2, 4, 1)},
		{"Fill misaligned size", "size", r.Fill(0, 6, 1)},
		{"Write one byte over", "data", r.Write(1, make([]byte, 256))},
		{"Write at offset 2^64-1", "data", r.Write(math.MaxUint64, []byte{1, 2})},
		{"Write offset past the end, empty", "data", r.Write(257, nil)},
		{"Read one byte over", "out", r.Read(255, make([]byte, 2))},
		{"Read at offset 2^64-1", "out", r.Read(math.MaxUint64, []byte{1})},
	} {
		if c.field == "" {
			if c.err != nil {
				t.Errorf("%s: %v", c.name, c.err)
			}
			continue
		}
		var he *hresult.Error
		if !errors.Is(c.err, hresult.E_INVALIDARG) || !errors.As(c.err, &he) || he.Field != c.field {
			t.Errorf("%s: want E_INVALIDARG naming %q, got %v", c.name, c.field, c.err)
		}
	}
	checkArena(t, r, 256, "a refused call wrote the buffer")
}
