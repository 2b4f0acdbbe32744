package dml_test

import (
	"errors"
	"fmt"
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

// TestMaxAllocationBelowMinimum: a cap under MinAllocation is the
// caller's mistake, named as such.
func TestMaxAllocationBelowMinimum(t *testing.T) {
	_, err := dml.CreateDevice(dml.DeviceOptions{MaxAllocation: dml.MinAllocation - 1})
	var he *hresult.Error
	if !errors.Is(err, hresult.E_INVALIDARG) || !errors.As(err, &he) || he.Field != "MaxAllocation" {
		t.Fatalf("MaxAllocation %d: %v", dml.MinAllocation-1, err)
	}
}

// TestHostTensorTotalSize runs host tensors that match the desc's type,
// sizes and strides but declare another TotalTensorSizeInBytes than the
// desc (larger than their Data, or smaller): Run copies the desc's bytes,
// as many as checkHost held Data to, and never panics slicing Data by the
// host tensor's own total.
func TestHostTensorTotalSize(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	desc := &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 4}), Output: tensor.NewDesc(tensor.UInt32, []uint32{2, 1}), Axes: []uint32{1}}
	for _, delta := range []int64{-4, 4, 1 << 20} {
		in := tensor.FromFloat32([]uint32{2, 4}, []float32{1, 5, 2, 3, 9, 0, 9, 8})
		out := tensor.New(tensor.UInt32, 2, 1)
		in.Desc.TotalTensorSizeInBytes = uint64(int64(in.Desc.TotalTensorSizeInBytes) + delta)
		out.Desc.TotalTensorSizeInBytes = uint64(int64(out.Desc.TotalTensorSizeInBytes) + delta)
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = d.Run(desc, []*tensor.Tensor{in}, []*tensor.Tensor{out})
		}()
		if err != nil {
			if hresult.Code(err) == hresult.E_FAIL || hresult.Code(err) == 0 {
				t.Fatalf("host totals %+d: %v", delta, err)
			}
			continue
		}
		if got := out.Uint64s(); got[0] != 1 || got[1] != 0 {
			t.Errorf("host totals %+d: got %v, want [1 0]", delta, got)
		}
	}
}

// withTotal is d with TotalTensorSizeInBytes set to total.
func withTotal(d tensor.Desc, total uint64) tensor.Desc {
	d.TotalTensorSizeInBytes = total
	return d
}

// TestTotalSizeNotMultipleOf4 runs operators whose tensors declare a
// TotalTensorSizeInBytes above DMLCalcBufferTensorSize that is not a
// multiple of 4 (semantics.md rule 12): real DirectML accepts them, and the
// results must equal the reference with every byte past the addressed
// elements left as it was.
func TestTotalSizeNotMultipleOf4(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	idx := withTotal(tensor.NewDesc(tensor.UInt32, []uint32{1, 1, 1, 2}), 9)
	cases := []dml.OperatorDesc{
		// Five UINT8 in 9 bytes: DirectML's own example.
		&dml.ArgMax{Input: withTotal(tensor.NewDesc(tensor.UInt8, []uint32{5}), 9), Output: withTotal(tensor.NewDesc(tensor.UInt32, []uint32{1}), 5), Axes: []uint32{0}},
		&dml.ArgMin{Input: withTotal(tensor.NewDesc(tensor.Float16, []uint32{3, 3}), 21), Output: withTotal(tensor.NewDesc(tensor.Int64, []uint32{3, 1}), 27), Axes: []uint32{1}},
		&dml.Reduce{Function: dml.ReduceFunctionArgMax, Input: withTotal(tensor.NewDesc(tensor.Int8, []uint32{2, 7}), 17), Output: withTotal(tensor.NewDesc(tensor.UInt32, []uint32{1, 7}), 30), Axes: []uint32{0}},
		&dml.MaxPooling2{Input: withTotal(tensor.NewDesc(tensor.UInt8, []uint32{1, 1, 1, 5}), 9), Output: withTotal(tensor.NewDesc(tensor.UInt8, []uint32{1, 1, 1, 2}), 5), OutputIndices: &idx,
			Strides: []uint32{1, 2}, WindowSize: []uint32{1, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}},
		&dml.MaxPooling{Input: withTotal(tensor.NewDesc(tensor.Float16, []uint32{1, 1, 3, 3}), 21), Output: withTotal(tensor.NewDesc(tensor.Float16, []uint32{1, 1, 2, 2}), 11),
			Strides: []uint32{1, 1}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}},
	}
	for _, desc := range cases {
		t.Run(desc.OperatorType(), func(t *testing.T) {
			in := desc.Inputs()[0]
			input := &tensor.Tensor{Desc: in.Clone(), Data: make([]byte, in.TotalTensorSizeInBytes)}
			rng.Read(input.Data)
			testutil.CheckOperator(t, d, desc, []*tensor.Tensor{input}, rng)
			if _, err := d.Compute(desc, input); err != nil {
				t.Fatalf("Compute: %v", err)
			}
		})
	}
}
