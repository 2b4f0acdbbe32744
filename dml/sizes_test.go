package dml_test

import (
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

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
