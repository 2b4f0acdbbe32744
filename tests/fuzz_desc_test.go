package tests

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// fuzzReader hands out the fuzzer's bytes as small fields; past the end it
// returns zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) u32() uint32 {
	if len(r.b) < 4 {
		r.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

// small is mostly a small value, sometimes a raw 32-bit one, to reach both
// valid descs and the edges.
func (r *fuzzReader) small(n uint32) uint32 {
	b := r.byte()
	if b == 0xFF {
		return r.u32()
	}
	return uint32(b) % n
}

// tensorDesc draws a desc of the given sizes: packed, or with small
// (possibly broadcast, padded, permuted or aliasing) strides, and sometimes
// a wrong TotalTensorSizeInBytes.
func (r *fuzzReader) tensorDesc(dt tensor.DataType, sizes []uint32) tensor.Desc {
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

var fuzzTypes = []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int32,
	tensor.Int16, tensor.Int8, tensor.UInt64, tensor.Int64, tensor.Float64, tensor.Unknown}

// fuzzDesc decodes bytes into one of the six descs.
func fuzzDesc(r *fuzzReader) ops.Desc {
	kind := r.byte() % 6
	if kind < 3 { // ARGMAX, ARGMIN, REDUCE
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
		in := r.tensorDesc(fuzzTypes[r.byte()%byte(len(fuzzTypes))], sizes)
		od := r.tensorDesc(fuzzTypes[r.byte()%byte(len(fuzzTypes))], out)
		dir := ops.AxisDirection(r.byte() % 3)
		switch kind {
		case 0:
			return &ops.ArgMax{Input: in, Output: od, Axes: axes, AxisDirection: dir}
		case 1:
			return &ops.ArgMin{Input: in, Output: od, Axes: axes, AxisDirection: dir}
		}
		return &ops.Reduce{Function: ops.ReduceFunction(r.byte() % 13), Input: in, Output: od, Axes: axes}
	}
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
	dt := fuzzTypes[r.byte()%byte(len(fuzzTypes))]
	in := r.tensorDesc(dt, sizes)
	od := r.tensorDesc(dt, out)
	var idx *tensor.Desc
	if r.byte()&1 != 0 {
		d := r.tensorDesc([]tensor.DataType{tensor.UInt32, tensor.UInt64, tensor.Int32}[r.byte()%3], out)
		idx = &d
	}
	switch kind {
	case 3:
		return &ops.MaxPooling{Input: in, Output: od, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b}
	case 4:
		return &ops.MaxPooling1{Input: in, Output: od, OutputIndices: idx, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b}
	}
	if r.byte() < 16 {
		dl = nil
	}
	return &ops.MaxPooling2{Input: in, Output: od, OutputIndices: idx, Strides: s, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: dl}
}

// fuzzContext is a lavapipe-like device, with features and limits the
// fuzzer may reduce (fallback variants, small storage ranges that force
// windowed plans, other subgroup sizes).
func fuzzContext(r *fuzzReader) *ops.Context {
	fb := r.byte()
	ctx := &ops.Context{
		FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1],
		Features: gpu.Features{
			ShaderInt64: fb&1 == 0, ShaderInt16: fb&2 == 0, ShaderInt8: fb&2 == 0, ShaderFloat16: fb&2 == 0,
			StorageBuffer8Bit: fb&4 == 0, StorageBuffer16Bit: fb&4 == 0, SubgroupArithmetic: fb&8 == 0,
			SubgroupSizeControl: fb&16 == 0, ComputeFullSubgroups: fb&16 == 0, SubgroupExtendedTypes: fb&32 == 0,
		},
		Limits: gpu.Limits{
			SubgroupSize: 8, MinSubgroupSize: 4, MaxSubgroupSize: 16, MaxStorageBufferRange: 1 << 27,
			MaxPushConstantsSize: 128, MaxComputeSharedMemorySize: 32768, MaxComputeWorkGroupInvocations: 1024,
			MaxComputeWorkGroupSize: [3]uint32{1024, 1024, 1024}, MaxComputeWorkGroupCount: [3]uint32{65535, 65535, 65535},
			MaxPerStageStorageBuffers: 8, MinStorageBufferOffsetAlignment: 16, MaxMemoryAllocationSize: 1 << 31, MaxBufferSize: 1 << 31,
		},
		DeviceType: gpu.DeviceTypeCPU,
	}
	if fb&64 != 0 {
		ctx.Limits.SubgroupSize = []uint32{4, 8, 16, 32}[r.byte()%4]
	}
	if fb&128 != 0 {
		ctx.FeatureLevel = ops.FeatureLevels[int(r.byte())%len(ops.FeatureLevels)]
	}
	return ctx
}

// checkDescPlan validates desc and, when it is valid, plans it and checks
// the plan's invariants; on a small input it also runs the CPU reference.
// It returns an error for any broken rule.
func checkDescPlan(ctx *ops.Context, desc ops.Desc, fill []byte) error {
	err := desc.Validate(ctx)
	if err != nil {
		var he *hresult.Error
		if !errors.As(err, &he) || he.Rule == "" {
			return fmt.Errorf("Validate returned %T %v, not an *hresult.Error with a rule", err, err)
		}
		if he.Code != hresult.E_INVALIDARG && he.Code != hresult.DXGI_ERROR_UNSUPPORTED {
			return fmt.Errorf("Validate returned %v", err)
		}
		return nil
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		var he *hresult.Error
		if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED {
			return fmt.Errorf("Plan of a valid desc failed without DXGI_ERROR_UNSUPPORTED: %v", err)
		}
		return nil
	}
	size := func(sl ops.Slot) (uint64, bool) {
		var list []*tensor.Desc
		switch sl.Kind {
		case ops.SlotInput:
			list = desc.Inputs()
		case ops.SlotOutput:
			list = desc.Outputs()
		case ops.SlotTemporary:
			return p.TemporarySize, p.TemporarySize > 0
		case ops.SlotPersistent:
			return p.PersistentSize, p.PersistentSize > 0
		}
		if sl.Index < 0 || sl.Index >= len(list) || list[sl.Index] == nil {
			return 0, false
		}
		return list[sl.Index].TotalTensorSizeInBytes, true
	}
	if len(p.Steps) == 0 {
		return fmt.Errorf("plan %q has no steps", p.Strategy)
	}
	for i, s := range p.Steps {
		if s.Kernel < 0 || s.Kernel >= len(p.Kernels) {
			return fmt.Errorf("step %d: kernel %d of %d", i, s.Kernel, len(p.Kernels))
		}
		k := p.Kernels[s.Kernel]
		if len(s.Bindings) != k.Bindings || len(s.Params) != int(k.ParamBytes) || 4*uint32(k.Bindings)+k.ParamBytes > 128 {
			return fmt.Errorf("step %d: %d bindings, %d parameter bytes for kernel %+v", i, len(s.Bindings), len(s.Params), k)
		}
		if len(k.Spec) == 0 || k.Spec[0] == 0 || k.Spec[0] > ctx.Limits.MaxComputeWorkGroupInvocations {
			return fmt.Errorf("step %d: workgroup size %v", i, k.Spec)
		}
		for g := range 3 {
			if s.Groups[g] == 0 || s.Groups[g] > ctx.Limits.MaxComputeWorkGroupCount[g] {
				return fmt.Errorf("step %d: groups %v", i, s.Groups)
			}
		}
		for j, sl := range s.Bindings {
			total, ok := size(sl)
			if !ok {
				return fmt.Errorf("step %d binding %d: no %v %d", i, j, sl.Kind, sl.Index)
			}
			n := sl.Size
			if n == 0 {
				n = total - min(sl.Offset, total)
			}
			if sl.Offset > total || n > total-sl.Offset {
				return fmt.Errorf("step %d binding %d: window [%d,+%d) outside the %d-byte %v", i, j, sl.Offset, n, total, sl.Kind)
			}
			// A window may start up to minStorageBufferOffsetAlignment-4
			// bytes before what it addresses (the host rounds down).
			if n > uint64(ctx.Limits.MaxStorageBufferRange) {
				return fmt.Errorf("step %d binding %d: window of %d bytes over maxStorageBufferRange %d", i, j, n, ctx.Limits.MaxStorageBufferRange)
			}
		}
	}
	// The CPU reference on small tensors: it must not panic.
	var ins, outs []*tensor.Tensor
	var bytes uint64
	for _, d := range desc.Inputs() {
		bytes += d.TotalTensorSizeInBytes
	}
	for _, d := range desc.Outputs() {
		if d != nil {
			bytes += d.TotalTensorSizeInBytes
		}
	}
	// Bound the reference's work: elements, and for pooling the window
	// (the reference scans a window of 8e8 positions as the desc says,
	// where the kernel clips it to the input).
	work := uint64(1)
	for _, d := range desc.Inputs() {
		work = max(work, d.ElementCount())
	}
	var window []uint32
	switch x := desc.(type) {
	case *ops.MaxPooling:
		window = x.WindowSize
	case *ops.MaxPooling1:
		window = x.WindowSize
	case *ops.MaxPooling2:
		window = x.WindowSize
	}
	if len(window) > 0 {
		work = desc.Outputs()[0].ElementCount()
		for _, w := range window {
			work = min(work*uint64(w), 1<<40)
		}
	}
	if bytes > 1<<16 || work > 1<<16 {
		return nil
	}
	for _, d := range desc.Inputs() {
		t := &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)}
		for i := range t.Data {
			if len(fill) > 0 {
				t.Data[i] = fill[i%len(fill)]
			}
		}
		ins = append(ins, t)
	}
	for _, d := range desc.Outputs() {
		if d == nil {
			outs = append(outs, nil)
			continue
		}
		outs = append(outs, &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)})
	}
	if err := desc.Reference(ins, outs); err != nil {
		return fmt.Errorf("reference of a valid desc: %v", err)
	}
	return nil
}

// FuzzOperatorDesc decodes arbitrary bytes into ARGMAX, ARGMIN, REDUCE and
// MAX_POOLING{,1,2} descs on a lavapipe-like context with features and
// limits turned down: validation must never panic and must answer with an
// *hresult.Error naming a rule; a desc it accepts must plan (or be
// DXGI_ERROR_UNSUPPORTED) into steps whose windows lie inside their
// tensors and within maxStorageBufferRange, and its CPU reference must run.
func FuzzOperatorDesc(f *testing.F) {
	f.Add([]byte{0, 2, 4, 5, 1, 1, 0, 0x20, 0, 0, 0xFF, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 3, 3, 4, 5, 2, 0, 1, 0xFF, 0, 0, 1, 0, 1, 2, 3, 4, 5})
	f.Add([]byte{2, 2, 2, 3, 1, 0, 0x40, 0, 0, 0})
	f.Add([]byte{3, 1, 4, 4, 5, 6, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{5, 1, 200, 1, 2, 5, 5, 3, 3, 1, 2, 1, 2, 0, 1, 1, 0, 1, 1, 1, 0xFF, 0, 0, 0, 0})
	f.Add([]byte{4, 2, 100, 1, 1, 6, 6, 6, 6, 6, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2, 1, 0, 0, 0, 1, 1})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &fuzzReader{b: b}
		ctx := fuzzContext(r)
		desc := fuzzDesc(r)
		if err := checkDescPlan(ctx, desc, r.b); err != nil {
			t.Fatalf("%s %+v: %v", desc.OperatorType(), desc, err)
		}
	})
}
