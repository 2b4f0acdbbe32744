package descfuzz

import (
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// maxUnpooling decodes MAX_UNPOOLING: input and indices of one shape
// (sometimes not), an output of its own shape (unpooling checks none of
// its sizes against the input's), ranks 3 to 6 (4 is valid) and indices
// of UINT32, UINT64 or INT32.
func (r *Reader) maxUnpooling(string) ops.Desc {
	rank := 3 + int(r.byte()%4)
	sizes, out := make([]uint32, rank), make([]uint32, rank)
	for i := range sizes {
		sizes[i] = r.small(7)
	}
	for i := range out {
		out[i] = r.small(9)
	}
	isizes := sizes
	if m := r.byte(); m < 16 {
		isizes = append([]uint32(nil), sizes...)
		isizes[int(m)%rank] = r.small(7)
	}
	dt := types[r.byte()%byte(len(types))]
	in := r.tensorDesc(dt, sizes)
	idx := r.tensorDesc([]tensor.DataType{tensor.UInt32, tensor.UInt64, tensor.Int32}[r.byte()%3], isizes)
	od := dt
	if r.byte() < 16 {
		od = types[r.byte()%byte(len(types))]
	}
	return &ops.MaxUnpooling{Input: in, Indices: idx, Output: r.tensorDesc(od, out)}
}
