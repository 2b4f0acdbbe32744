package descfuzz

import (
	"slices"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// topK decodes TOP_K or TOP_K1: ranks 1 to 9 (9 is invalid), an axis
// (sometimes past the rank), K from 0 to a little past the axis length or
// a large edge, outputs of the input's sizes with K along the axis
// (sometimes another size or type), indices UINT32, UINT64, INT32 or
// INT64, and for TOP_K1 a direction 0 to 2 (2 is invalid).
func (r *Reader) topK(typ string) ops.Desc {
	rank := 1 + int(r.byte()%9)
	sizes := make([]uint32, rank)
	for i := range sizes {
		sizes[i] = r.small(9)
	}
	axis := uint32(r.byte()) % uint32(rank+1)
	k := r.small(12)
	out := slices.Clone(sizes)
	if int(axis) < rank {
		out[axis] = k
	}
	if m := r.byte(); m < 16 {
		out[int(m)%rank] = r.small(9)
	}
	dt := types[r.byte()%byte(len(types))]
	vt := dt
	if r.byte() < 16 {
		vt = types[r.byte()%byte(len(types))]
	}
	it := []tensor.DataType{tensor.UInt32, tensor.UInt64, tensor.Int32, tensor.Int64}[r.byte()%4]
	in, vals, idx := r.tensorDesc(dt, sizes), r.tensorDesc(vt, out), r.tensorDesc(it, out)
	if typ == "TOP_K" {
		return &ops.TopK{Input: in, OutputValue: vals, OutputIndex: idx, Axis: axis, K: k}
	}
	return &ops.TopK1{Input: in, OutputValue: vals, OutputIndex: idx, Axis: axis, K: k, AxisDirection: ops.AxisDirection(r.byte() % 3)}
}
