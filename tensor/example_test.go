package tensor_test

import (
	"fmt"

	"github.com/vkdml/vkdml/tensor"
)

// A strided view: the transpose of a packed 2x3 FLOAT32 matrix, described
// by strides alone, with DMLCalcBufferTensorSize's minimum size.
func ExampleNewStridedDesc() {
	d := tensor.NewStridedDesc(tensor.Float32, []uint32{3, 2}, []uint32{1, 3})
	fmt.Println(d)
	fmt.Println(d.TotalTensorSizeInBytes, d.Validate())
	// Output:
	// FLOAT32[3,2] strides[1,3]
	// 24 <nil>
}

// Rule 12: a TotalTensorSizeInBytes above the minimum need not be a
// multiple of 4 (five UINT8 elements in 9 bytes); below it is refused.
func ExampleDesc_Validate() {
	d := tensor.NewDesc(tensor.UInt8, []uint32{5})
	fmt.Println(d.TotalTensorSizeInBytes)
	d.TotalTensorSizeInBytes = 9
	fmt.Println(d.Validate())
	d.TotalTensorSizeInBytes = 7
	fmt.Println(d.Validate())
	// Output:
	// 8
	// <nil>
	// TotalTensorSizeInBytes: must be at least the minimum implied size of 8 bytes (DMLCalcBufferTensorSize); got 7 [E_INVALIDARG]
}

// Host tensors hold their elements as bytes; the accessors convert.
func ExampleFromFloat32() {
	t := tensor.FromFloat32([]uint32{2, 2}, []float32{1.5, -2, 0, 4})
	fmt.Println(t.Desc, t.Float64At(0, 1), t.Float64s())
	// Output: FLOAT32[2,2] -2 [1.5 -2 0 4]
}
