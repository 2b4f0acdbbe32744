package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// MaxPooling is DML_MAX_POOLING_OPERATOR_DESC (feature level 1.0): max
// pooling over the 2 (4D) or 3 (5D) spatial axes, without indices or
// dilations. DimensionCount is the length of the arrays, which must all be
// rank − 2 long, in {H,W} or {D,H,W} order.
//
// The output extent of each spatial axis is the caller's: any extent ≥ 1 is
// accepted (semantics.md rule 7); the documented one is
// (In + Start + End − (1 + (Window−1)·Dilation)) / Stride + 1, floored.
type MaxPooling struct {
	Input        tensor.Desc
	Output       tensor.Desc
	Strides      []uint32
	WindowSize   []uint32
	StartPadding []uint32
	EndPadding   []uint32
}

// MaxPooling1 is DML_MAX_POOLING1_OPERATOR_DESC (feature level 2.0):
// MaxPooling with optional indices of the selected elements, flat over the
// whole logical input (rule 10). OutputIndices nil means absent.
type MaxPooling1 struct {
	Input         tensor.Desc
	Output        tensor.Desc
	OutputIndices *tensor.Desc
	Strides       []uint32
	WindowSize    []uint32
	StartPadding  []uint32
	EndPadding    []uint32
}

// MaxPooling2 is DML_MAX_POOLING2_OPERATOR_DESC (feature level 2.1):
// MaxPooling1 with Dilations.
type MaxPooling2 struct {
	Input         tensor.Desc
	Output        tensor.Desc
	OutputIndices *tensor.Desc
	Strides       []uint32
	WindowSize    []uint32
	StartPadding  []uint32
	EndPadding    []uint32
	Dilations     []uint32
}

// maxPool is the one implementation behind the three descs.
type maxPool struct {
	op         string
	level      FeatureLevel // the level the operator was introduced at
	in, out    *tensor.Desc
	idx        *tensor.Desc // nil: no indices
	strides    []uint32
	window     []uint32
	start, end []uint32
	dil        []uint32 // nil: MAX_POOLING / MAX_POOLING1 (all 1)
}

func (o *MaxPooling) pool() *maxPool {
	return &maxPool{op: "MAX_POOLING", level: FeatureLevel1_0, in: &o.Input, out: &o.Output,
		strides: o.Strides, window: o.WindowSize, start: o.StartPadding, end: o.EndPadding}
}

func (o *MaxPooling1) pool() *maxPool {
	return &maxPool{op: "MAX_POOLING1", level: FeatureLevel2_0, in: &o.Input, out: &o.Output, idx: o.OutputIndices,
		strides: o.Strides, window: o.WindowSize, start: o.StartPadding, end: o.EndPadding}
}

func (o *MaxPooling2) pool() *maxPool {
	return &maxPool{op: "MAX_POOLING2", level: FeatureLevel2_1, in: &o.Input, out: &o.Output, idx: o.OutputIndices,
		strides: o.Strides, window: o.WindowSize, start: o.StartPadding, end: o.EndPadding, dil: o.Dilations}
}

// OperatorType is "MAX_POOLING".
func (*MaxPooling) OperatorType() string { return "MAX_POOLING" }

// OperatorType is "MAX_POOLING1".
func (*MaxPooling1) OperatorType() string { return "MAX_POOLING1" }

// OperatorType is "MAX_POOLING2".
func (*MaxPooling2) OperatorType() string { return "MAX_POOLING2" }

// Inputs is [InputTensor].
func (o *MaxPooling) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Inputs is [InputTensor].
func (o *MaxPooling1) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Inputs is [InputTensor].
func (o *MaxPooling2) Inputs() []*tensor.Desc { return []*tensor.Desc{&o.Input} }

// Outputs are [OutputTensor, OutputIndicesTensor] for MAX_POOLING1/2
// (DirectML's binding order, fixed in DML 1.4.1).
func (o *MaxPooling) Outputs() []*tensor.Desc { return []*tensor.Desc{&o.Output} }

// Outputs is [OutputTensor, OutputIndicesTensor] (nil when absent).
func (o *MaxPooling1) Outputs() []*tensor.Desc {
	return []*tensor.Desc{&o.Output, o.OutputIndices}
}

// Outputs is [OutputTensor, OutputIndicesTensor] (nil when absent).
func (o *MaxPooling2) Outputs() []*tensor.Desc {
	return []*tensor.Desc{&o.Output, o.OutputIndices}
}

// Validate applies DirectML's rules and semantics.md rules 7-11.
func (o *MaxPooling) Validate(ctx *Context) error { return o.pool().validate(ctx) }

// Validate applies DirectML's rules and semantics.md rules 7-11.
func (o *MaxPooling1) Validate(ctx *Context) error { return o.pool().validate(ctx) }

// Validate applies DirectML's rules and semantics.md rules 7-11.
func (o *MaxPooling2) Validate(ctx *Context) error { return o.pool().validate(ctx) }

// Plan chooses the kernels and steps (maxpool_plan.go).
func (o *MaxPooling) Plan(ctx *Context) (*Plan, error) { return o.pool().plan(ctx) }

// Plan chooses the kernels and steps (maxpool_plan.go).
func (o *MaxPooling1) Plan(ctx *Context) (*Plan, error) { return o.pool().plan(ctx) }

// Plan chooses the kernels and steps (maxpool_plan.go).
func (o *MaxPooling2) Plan(ctx *Context) (*Plan, error) { return o.pool().plan(ctx) }

// Reference pools on the CPU (maxpool_ref.go).
func (o *MaxPooling) Reference(in, out []*tensor.Tensor) error { return o.pool().reference(in, out) }

// Reference pools on the CPU (maxpool_ref.go).
func (o *MaxPooling1) Reference(in, out []*tensor.Tensor) error { return o.pool().reference(in, out) }

// Reference pools on the CPU (maxpool_ref.go).
func (o *MaxPooling2) Reference(in, out []*tensor.Tensor) error { return o.pool().reference(in, out) }

// Lint reports output extents that are neither the floor nor the ceil size.
func (o *MaxPooling) Lint() []string { return o.pool().lint() }

// Lint reports output extents that are neither the floor nor the ceil size.
func (o *MaxPooling1) Lint() []string { return o.pool().lint() }

// Lint reports output extents that are neither the floor nor the ceil size.
func (o *MaxPooling2) Lint() []string { return o.pool().lint() }

// lint reports output extents that are neither the floor nor the ceil size
// (rule 7: accepted, but usually a mistake in the caller's shape arithmetic).
func (m *maxPool) lint() []string {
	var msgs []string
	for i := range m.window {
		if i+2 >= len(m.in.Sizes) || i+2 >= len(m.out.Sizes) || i >= len(m.strides) || i >= len(m.start) || i >= len(m.end) {
			break
		}
		in, got := m.in.Sizes[i+2], uint64(m.out.Sizes[i+2])
		floor := MaxPoolOutputSize(in, m.window[i], m.strides[i], m.start[i], m.end[i], m.dilation(i), false)
		ceil := MaxPoolOutputSize(in, m.window[i], m.strides[i], m.start[i], m.end[i], m.dilation(i), true)
		if got != floor && got != ceil {
			msgs = append(msgs, fmt.Sprintf("OutputTensor.Sizes[%d] = %d is neither the floor (%d) nor the ceil (%d) output size; window positions past the padded input are treated as padding", i+2, got, floor, ceil))
		}
	}
	return msgs
}

// maxPoolTypes returns the input/output and index types of feature level l
// (dml-semantics.md §2.5).
func maxPoolTypes(l FeatureLevel) (values, indices []tensor.DataType) {
	switch {
	case l >= FeatureLevel5_0:
		return tensor.AllTypes, []tensor.DataType{tensor.UInt32, tensor.UInt64}
	case l >= FeatureLevel3_0:
		return []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int8, tensor.UInt8}, []tensor.DataType{tensor.UInt32}
	}
	return []tensor.DataType{tensor.Float32, tensor.Float16}, []tensor.DataType{tensor.UInt32}
}

// dilation returns the dilation of spatial axis i (1 without Dilations).
func (m *maxPool) dilation(i int) uint32 {
	if m.dil == nil {
		return 1
	}
	return m.dil[i]
}

// startsAtNegInf reports whether the running best starts at −∞ rather
// than at the lowest finite value (semantics.md rule 7a): a float type,
// the global window (WindowSize equal to the input's spatial sizes, both
// paddings 0, every dilation 1), no indices output, and an output extent
// of 1 on every spatial axis. DirectML runs such a desc as a reduction
// from −∞, so a window of only NaN and −∞ gives −∞; every other window
// gives rule 9's value either way, and so do integer types, whose
// reduction starts at the type's minimum.
func (m *maxPool) startsAtNegInf() bool {
	dims := len(m.window)
	if !m.in.DataType.IsFloat() || m.idx != nil || dims == 0 || len(m.in.Sizes) != dims+2 || len(m.out.Sizes) != dims+2 ||
		len(m.start) != dims || len(m.end) != dims || (m.dil != nil && len(m.dil) != dims) {
		return false
	}
	for i := range m.window {
		if m.window[i] != m.in.Sizes[2+i] || m.start[i] != 0 || m.end[i] != 0 || m.dilation(i) != 1 || m.out.Sizes[2+i] != 1 {
			return false
		}
	}
	return true
}

// validate applies dml-semantics.md §2.3-2.5 and semantics.md rules 7-11.
func (m *maxPool) validate(ctx *Context) error {
	if err := requireLevel(ctx, m.op, m.level); err != nil {
		return err
	}
	if err := ValidateTensor("InputTensor", m.in, 4, 5, false); err != nil {
		return err
	}
	if err := ValidateTensor("OutputTensor", m.out, 4, 5, true); err != nil {
		return err
	}
	rank := m.in.Rank()
	if m.out.Rank() != rank {
		return hresult.InvalidArg("OutputTensor.DimensionCount", "%d must equal InputTensor.DimensionCount %d", m.out.Rank(), rank)
	}
	indices, err := checkValueTypes(ctx, m.in, m.out, maxPoolTypes)
	if err != nil {
		return err
	}
	if m.idx != nil {
		if err := ValidateTensor("OutputIndicesTensor", m.idx, 4, 5, true); err != nil {
			return err
		}
		if m.idx.Rank() != rank {
			return hresult.InvalidArg("OutputIndicesTensor.DimensionCount", "%d must equal InputTensor.DimensionCount %d", m.idx.Rank(), rank)
		}
		if err := CheckType("OutputIndicesTensor", m.idx.DataType, indices); err != nil {
			return err
		}
	}

	// DimensionCount is the arrays' length; it must be rank − 2 and every
	// array must have it.
	dims := len(m.window)
	if dims != rank-2 {
		return hresult.InvalidArg("DimensionCount", "must be InputTensor.DimensionCount − 2 = %d (the spatial axes); got %d (len(WindowSize))", rank-2, dims)
	}
	arrays := []struct {
		name string
		v    []uint32
	}{{"Strides", m.strides}, {"StartPadding", m.start}, {"EndPadding", m.end}}
	if m.dil != nil || m.op == "MAX_POOLING2" {
		arrays = append(arrays, struct {
			name string
			v    []uint32
		}{"Dilations", m.dil})
	}
	for _, a := range arrays {
		if len(a.v) != dims {
			return hresult.InvalidArg(a.name, "must have DimensionCount (%d) entries; got %d", dims, len(a.v))
		}
	}
	for i := 0; i < dims; i++ {
		if m.strides[i] == 0 {
			return hresult.InvalidArg(fmt.Sprintf("Strides[%d]", i), "must be at least 1; got 0")
		}
		if m.window[i] == 0 {
			return hresult.InvalidArg(fmt.Sprintf("WindowSize[%d]", i), "must be at least 1; got 0")
		}
		if m.dil != nil && m.dil[i] == 0 {
			return hresult.InvalidArg(fmt.Sprintf("Dilations[%d]", i), "must be at least 1; got 0")
		}
	}

	// Batch and channel carry over; spatial extents are the caller's (rule
	// 7: any extent ≥ 1, which tensor validation already ensured).
	for i := 0; i < 2; i++ {
		if m.out.Sizes[i] != m.in.Sizes[i] {
			return hresult.InvalidArg(fmt.Sprintf("OutputTensor.Sizes[%d]", i), "must equal InputTensor.Sizes[%d] = %d (%s); got %d", i, m.in.Sizes[i], []string{"batch", "channels"}[i], m.out.Sizes[i])
		}
	}
	if m.idx != nil {
		for i := range m.out.Sizes {
			if m.idx.Sizes[i] != m.out.Sizes[i] {
				return hresult.InvalidArg(fmt.Sprintf("OutputIndicesTensor.Sizes[%d]", i), "must equal OutputTensor.Sizes[%d] = %d; got %d", i, m.out.Sizes[i], m.idx.Sizes[i])
			}
		}
	}
	return nil
}

// MaxPoolOutputSize is the documented output extent of one spatial axis,
// floor((In + Start + End − (1 + (Window−1)·Dilation)) / Stride) + 1, and
// with ceil the ceiling instead (ONNX's ceil_mode). It returns 0 when the
// dilated window is larger than the padded input, or a parameter is 0.
func MaxPoolOutputSize(in, window, stride, start, end, dilation uint32, ceil bool) uint64 {
	if window == 0 || stride == 0 || dilation == 0 {
		return 0
	}
	padded := uint64(in) + uint64(start) + uint64(end)
	k := 1 + uint64(window-1)*uint64(dilation)
	if k > padded {
		return 0
	}
	n := (padded - k) / uint64(stride)
	if ceil && (padded-k)%uint64(stride) != 0 {
		n++
	}
	return n + 1
}
