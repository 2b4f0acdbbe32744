package dml_test

import (
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

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
