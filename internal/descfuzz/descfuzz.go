// Package descfuzz decodes arbitrary bytes into an operator desc and the
// device context it is validated and planned against. The fuzz target in
// tests/ and the golden-plan corpus in ops/ share it; it needs neither cgo
// nor a device.
package descfuzz

import (
	"encoding/binary"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// Reader hands out the fuzzer's bytes as small fields; past the end it
// returns zeros.
type Reader struct{ b []byte }

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Rest returns the bytes not read yet.
func (r *Reader) Rest() []byte { return r.b }

func (r *Reader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *Reader) u32() uint32 {
	if len(r.b) < 4 {
		r.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

// edges are the large sizes and strides a single byte 0xF0..0xFE selects:
// powers of two up to 2^31, their neighbours, and 2^32-1, so that the
// planners meet big batches, wide strides and near-2^32 counts often.
var edges = [15]uint32{1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 31, 1<<32 - 1,
	1<<31 - 1, 1<<30 + 1, 65535, 1<<26 + 3, 3 << 28, 1<<32 - 2, 1000003}

// small is mostly a small value, sometimes a large edge value (0xF0..0xFE)
// or a raw 32-bit one (0xFF), to reach both valid descs and the edges.
func (r *Reader) small(n uint32) uint32 {
	b := r.byte()
	switch {
	case b == 0xFF:
		return r.u32()
	case b >= 0xF0:
		return edges[b-0xF0]
	}
	return uint32(b) % n
}

// tensorDesc draws a desc of the given sizes: packed, or with small
// (possibly broadcast, padded, permuted or aliasing) strides, and sometimes
// a wrong TotalTensorSizeInBytes.
func (r *Reader) tensorDesc(dt tensor.DataType, sizes []uint32) tensor.Desc {
	mode := r.byte()
	var d tensor.Desc
	if mode&1 != 0 {
		st := make([]uint32, len(sizes))
		for i := range st {
			st[i] = r.small(70)
		}
		d = tensor.NewStridedDesc(dt, sizes, st)
	} else {
		d = tensor.NewDesc(dt, sizes)
	}
	switch mode >> 5 {
	case 1:
		d.TotalTensorSizeInBytes += 4 * uint64(r.byte())
	case 2:
		d.TotalTensorSizeInBytes -= uint64(r.byte() % 8)
	case 3:
		d.GuaranteedBaseOffsetAlignment = uint32(r.byte())
	case 4:
		d.Flags = tensor.Flags(r.byte() % 3)
	}
	return d
}

var types = []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int32,
	tensor.Int16, tensor.Int8, tensor.UInt64, tensor.Int64, tensor.Float64, tensor.Unknown}

// Desc decodes one of the fuzzed descs (ops.FuzzKinds), or nil when the
// kind byte names no kind (see escapeKind).
func (r *Reader) Desc() ops.Desc {
	o := r.kind()
	if o == nil {
		return nil
	}
	decode, ok := decoders[o.Type]
	if !ok {
		panic("descfuzz: " + o.Type + " has a fuzz kind in ops' registry but no decoder here")
	}
	return decode(r, o.Type)
}

// escapeKind, as the kind byte, says that the next byte is the kind
// number itself: an index into ops.FuzzKinds, the append-only kind table.
//
// The first seeds chose among six kinds by kind byte % 6, so every byte
// value meant one of them, and % len(kinds) would have remapped most
// committed seeds whenever a kind was appended. So every kind byte but
// escapeKind keeps its % 6 meaning for good, and kinds from the seventh on
// are reached through escapeKind (0xFF, which no committed seed used as
// its kind byte: TestCommittedSeedsKeepTheirKinds checks). A kind number
// past the table's end decodes no desc: appending a kind gives such a
// seed its first meaning, never a second, and nothing else moves.
const escapeKind = 0xFF

// legacyKinds is how many kinds the kind byte selects directly.
const legacyKinds = 6

// kind reads the kind byte (and after escapeKind the kind number) and
// returns the registry row of the desc to decode, or nil.
func (r *Reader) kind() *ops.Operator {
	kinds := ops.FuzzKinds()
	b := r.byte()
	if b != escapeKind {
		return kinds[b%legacyKinds]
	}
	if k := int(r.byte()); k < len(kinds) {
		return kinds[k]
	}
	return nil
}

// decoders decode each fuzzed desc type's fields, the kind already read.
var decoders = map[string]func(r *Reader, typ string) ops.Desc{
	"ARGMAX":        (*Reader).reduction,
	"ARGMIN":        (*Reader).reduction,
	"REDUCE":        (*Reader).reduction,
	"MAX_POOLING":   (*Reader).pooling,
	"MAX_POOLING1":  (*Reader).pooling,
	"MAX_POOLING2":  (*Reader).pooling,
	"MAX_UNPOOLING": (*Reader).maxUnpooling,
	"TOP_K":         (*Reader).topK,
	"TOP_K1":        (*Reader).topK,
}

// reduction decodes ARGMAX, ARGMIN or REDUCE.
func (r *Reader) reduction(typ string) ops.Desc {
	rank := int(r.byte() % 9) // 0 is invalid on purpose
	sizes := make([]uint32, rank)
	for i := range sizes {
		sizes[i] = r.small(9)
	}
	var axes []uint32
	for n := r.byte() % 4; n > 0; n-- {
		axes = append(axes, uint32(r.byte()%9))
	}
	out := append([]uint32(nil), sizes...)
	for _, a := range axes {
		if int(a) < len(out) {
			out[a] = 1
		}
	}
	if m := r.byte(); m < 16 && len(out) > 0 {
		out[int(m)%len(out)] = r.small(9)
	}
	in := r.tensorDesc(types[r.byte()%byte(len(types))], sizes)
	od := r.tensorDesc(types[r.byte()%byte(len(types))], out)
	dir := ops.AxisDirection(r.byte() % 3)
	switch typ {
	case "ARGMAX":
		return &ops.ArgMax{Input: in, Output: od, Axes: axes, AxisDirection: dir}
	case "ARGMIN":
		return &ops.ArgMin{Input: in, Output: od, Axes: axes, AxisDirection: dir}
	}
	return &ops.Reduce{Function: ops.ReduceFunction(r.byte() % 13), Input: in, Output: od, Axes: axes}
}

// pooling decodes MAX_POOLING, MAX_POOLING1 or MAX_POOLING2.
func (r *Reader) pooling(typ string) ops.Desc {
	rank := 3 + int(r.byte()%4) // 3..6: 4 and 5 are valid
	dims := max(rank-2, 0)
	if r.byte() < 16 {
		dims = int(r.byte() % 4)
	}
	sizes := make([]uint32, rank)
	for i := range sizes {
		sizes[i] = r.small(7)
	}
	arr := func(n uint32) []uint32 {
		v := make([]uint32, dims)
		for i := range v {
			v[i] = r.small(n)
		}
		return v
	}
	w, s, a, b, dl := arr(5), arr(4), arr(3), arr(3), arr(4)
	out := append([]uint32(nil), sizes...)
	for i := 0; i < dims && 2+i < rank; i++ {
		o := ops.MaxPoolOutputSize(sizes[2+i], w[i], s[i], a[i], b[i], dl[i], r.byte()&1 != 0)
		out[2+i] = uint32(min(max(o, 1), 1<<32-1))
	}
	if m := r.byte(); m < 16 {
		out[int(m)%len(out)] = r.small(9)
	}
	dt := types[r.byte()%byte(len(types))]
	in := r.tensorDesc(dt, sizes)
	od := r.tensorDesc(dt, out)
	var idx *tensor.Desc
	if r.byte()&1 != 0 {
		d := r.tensorDesc([]tensor.DataType{tensor.UInt32, tensor.UInt64, tensor.Int32}[r.byte()%3], out)
		idx = &d
	}
	switch typ {
	case "MAX_POOLING":
		return &ops.MaxPooling{Input: in, Output: od, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b}
	case "MAX_POOLING1":
		return &ops.MaxPooling1{Input: in, Output: od, OutputIndices: idx, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b}
	}
	if r.byte() < 16 {
		dl = nil
	}
	return &ops.MaxPooling2{Input: in, Output: od, OutputIndices: idx, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: dl}
}

// Context decodes a lavapipe-like device, with features and limits the
// fuzzer may reduce (fallback variants, small storage ranges that force
// windowed plans, other subgroup sizes).
func (r *Reader) Context() *ops.Context {
	fb := r.byte()
	ctx := Lavapipe()
	f := &ctx.Features
	f.ShaderInt64, f.ShaderInt16, f.ShaderInt8, f.ShaderFloat16 = fb&1 == 0, fb&2 == 0, fb&2 == 0, fb&2 == 0
	f.StorageBuffer8Bit, f.StorageBuffer16Bit, f.SubgroupArithmetic = fb&4 == 0, fb&4 == 0, fb&8 == 0
	f.SubgroupSizeControl, f.ComputeFullSubgroups, f.SubgroupExtendedTypes = fb&16 == 0, fb&16 == 0, fb&32 == 0
	if fb&64 != 0 {
		ctx.Limits.SubgroupSize = []uint32{4, 8, 16, 32}[r.byte()%4]
	}
	if fb&128 != 0 {
		ctx.FeatureLevel = ops.FeatureLevels[int(r.byte())%len(ops.FeatureLevels)]
	}
	// A second byte: a binding-window cap of 256 B to 8 MiB (windowed plans
	// on small tensors), Vulkan's least shared memory (TOP_K's fallback
	// from the kernels that declare more), and a GPU-like device with
	// 4 GiB bindings.
	wb := r.byte()
	if wb&0x80 != 0 {
		ctx.BindingWindowCap = 256 << (wb & 15)
	}
	if wb&0x20 != 0 {
		ctx.Limits.MaxComputeSharedMemorySize = 16384
	}
	if wb&0x40 != 0 {
		ctx.DeviceType = caps.DeviceTypeDiscreteGPU
		ctx.Limits.SubgroupSize, ctx.Limits.MinSubgroupSize, ctx.Limits.MaxSubgroupSize = 32, 32, 64
		ctx.Limits.MaxStorageBufferRange, ctx.Limits.MinStorageBufferOffsetAlignment = 1<<32-1, 64
	}
	return ctx
}

// Decode reads a context and then a desc from b, and returns the bytes
// left (the fuzz target fills inputs with them). The desc is nil when b
// names no kind.
func Decode(b []byte) (*ops.Context, ops.Desc, []byte) {
	r := NewReader(b)
	ctx := r.Context()
	desc := r.Desc()
	return ctx, desc, r.Rest()
}

// Lavapipe returns a context like lavapipe's at subgroup size 8, with every
// optional feature and the highest feature level: the context the fuzzer
// starts from before turning things down.
func Lavapipe() *ops.Context {
	ctx := &ops.Context{FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], DeviceType: caps.DeviceTypeCPU}
	f := &ctx.Features
	f.ShaderInt64, f.ShaderInt16, f.ShaderInt8, f.ShaderFloat16 = true, true, true, true
	f.StorageBuffer8Bit, f.StorageBuffer16Bit, f.SubgroupArithmetic = true, true, true
	f.SubgroupSizeControl, f.ComputeFullSubgroups, f.SubgroupExtendedTypes = true, true, true
	l := &ctx.Limits
	l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize = 8, 4, 16
	l.MaxStorageBufferRange, l.MaxPushConstantsSize, l.MaxComputeSharedMemorySize = 1<<27, 128, 32768
	l.MaxComputeWorkGroupInvocations = 1024
	l.MaxComputeWorkGroupSize = [3]uint32{1024, 1024, 1024}
	l.MaxComputeWorkGroupCount = [3]uint32{65535, 65535, 65535}
	l.MaxPerStageStorageBuffers, l.MinStorageBufferOffsetAlignment = 8, 16
	l.MaxMemoryAllocationSize, l.MaxBufferSize = 1<<31, 1<<31
	l.MaxTexelBufferElements, l.MinTexelBufferOffsetAlignment = 1<<27, 16
	return ctx
}

// Seeds are the fuzz target's built-in seeds: descs of several kinds on
// contexts with features turned down, all zeros, and the max-pooling
// crashers the fuzzer found (MAX_POOLING1 FLOAT32 [4294967295,1,1,1];
// MAX_POOLING over 2^26 batches 2^26 elements apart), which once looped
// forever or ran out of memory in the planner. A kind reached only through
// escapeKind needs a seed, or the fuzzer would rarely meet it: a committed
// corpus file named to sort after the others (as MAX_UNPOOLING's), since
// the golden corpus names fuzz cases by position, these first.
var Seeds = [][]byte{
	{0, 0, 4, 1, 0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0x20, 0, 0, 0, 0},
	{0, 0, 3, 1, 0x20, 0xFF, 0, 0, 0, 4, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0x20, 0, 1, 0xFF, 0, 0, 0, 4, 1, 1, 1, 0},
	{0, 0, 4, 1, 0x20, 0xF7, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0x20, 0, 0, 0},
	{0, 0, 3, 1, 0x20, 0xF3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0x20, 0, 1, 0xF3, 1, 1, 1, 0},
	[]byte{0, 2, 4, 5, 1, 1, 0, 0x20, 0, 0, 0xFF, 0, 0, 0, 0, 0},
	[]byte{1, 3, 3, 4, 5, 2, 0, 1, 0xFF, 0, 0, 1, 0, 1, 2, 3, 4, 5},
	[]byte{2, 2, 2, 3, 1, 0, 0x40, 0, 0, 0},
	[]byte{3, 1, 4, 4, 5, 6, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
	[]byte{5, 1, 200, 1, 2, 5, 5, 3, 3, 1, 2, 1, 2, 0, 1, 1, 0, 1, 1, 1, 0xFF, 0, 0, 0, 0},
	[]byte{4, 2, 100, 1, 1, 6, 6, 6, 6, 6, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2, 1, 0, 0, 0, 1, 1},
	make([]byte, 64),
}
