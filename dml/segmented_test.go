package dml_test

import (
	"errors"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// TestMultiAllocationTensors runs operators whose 3 MiB tensors span
// several 1 MiB allocations (DeviceOptions.MaxAllocation): reductions
// along and across the allocation boundaries, and max pooling with indices,
// through the whole API (CheckOperator's guard bands and poisoned outputs)
// and through Compute, against the CPU reference.
func TestMultiAllocationTensors(t *testing.T) {
	for _, staging := range []bool{false, true} {
		name := "mapped"
		if staging {
			name = "staging"
		}
		t.Run(name, func(t *testing.T) { multiAllocation(t, staging) })
	}
}

// multiAllocation is TestMultiAllocationTensors with host-mapped memory or
// (staging) uploads and readbacks through staging copies.
func multiAllocation(t *testing.T, staging bool) {
	const mib = 1 << 20
	d := testutil.OpenDML(t, dml.DeviceOptions{MaxAllocation: mib, ForceStaging: staging})
	if got := d.GPU().Limits.MaxMemoryAllocationSize; got > mib {
		t.Fatalf("MaxMemoryAllocationSize %d with MaxAllocation 1 MiB", got)
	}
	rng := testutil.Rand(t)
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 12, 128, 128})
	cases := []dml.OperatorDesc{
		rowArgMax(6, 131072), // 512 KiB rows; the 3 MiB input spans three allocations
		&dml.ArgMin{Input: tensor.NewDesc(tensor.Float32, []uint32{3072, 256}), Output: tensor.NewDesc(tensor.Int64, []uint32{3072, 1}), Axes: []uint32{1}}, // windows of rows cross allocation boundaries
		&dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{786432}), Output: tensor.NewDesc(tensor.UInt32, []uint32{1}), Axes: []uint32{0}},
		&dml.MaxPooling2{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 12, 256, 256}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 12, 128, 128}), OutputIndices: &idx,
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}},
	}
	for _, desc := range cases {
		t.Run(desc.OperatorType(), func(t *testing.T) {
			in := randomInput(t, *desc.Inputs()[0])
			res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			t.Logf("%s: %s", desc.OperatorType(), res.Strategy)
			computeChecked(t, d, desc, in)
		})
	}
}

// TestMaxAllocationBelowMinimum: a cap under gpu.MinAllocation is the
// caller's mistake, named as such.
func TestMaxAllocationBelowMinimum(t *testing.T) {
	_, err := dml.CreateDevice(dml.DeviceOptions{MaxAllocation: 4095})
	var he *hresult.Error
	if !errors.Is(err, hresult.E_INVALIDARG) || !errors.As(err, &he) || he.Field != "MaxAllocation" {
		t.Fatalf("MaxAllocation 4095: %v", err)
	}
}
