package main

/*
#define VKDML_NO_PROTOTYPES
#include "vkdml.h"
*/
import "C"

import (
	"unsafe"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// maxArrayCount bounds every count read from a C struct, so that a garbage
// count is an error instead of a read of gigabytes of host memory. It is
// far above any legal value (ranks stop at 8).
const maxArrayCount = 1 << 12

// u32s copies n uint32s from C memory; p may be NULL only when n is 0.
func u32s(call, field string, p *C.uint32_t, n C.uint32_t) ([]uint32, error) {
	if n == 0 {
		return nil, nil
	}
	if n > maxArrayCount {
		return nil, invalidArg(call, field, "count %d is implausibly large (at most %d)", uint32(n), maxArrayCount)
	}
	if p == nil {
		return nil, invalidArg(call, field, "is NULL but its count is %d", uint32(n))
	}
	return append([]uint32(nil), unsafe.Slice((*uint32)(unsafe.Pointer(p)), int(n))...), nil
}

// tensorDesc copies a vkdml_tensor_desc. A NULL desc is an error unless
// optional, when it returns nil.
func tensorDesc(call, field string, p *C.vkdml_tensor_desc, optional bool) (*tensor.Desc, error) {
	if p == nil {
		if optional {
			return nil, nil
		}
		return nil, invalidArg(call, field, "must not be NULL")
	}
	if p.flags != 0 {
		return nil, invalidArg(call, field+".flags", "must be 0: libvkdml binds inputs at every run, so DML_TENSOR_FLAG_OWNED_BY_DML (%#x) is not supported", uint32(p.flags))
	}
	if p.dimension_count > tensor.MaxDimensionCount {
		return nil, invalidArg(call, field+".dimension_count", "%d is above DML_TENSOR_DIMENSION_COUNT_MAX1 (%d)", uint32(p.dimension_count), tensor.MaxDimensionCount)
	}
	sizes, err := u32s(call, field+".sizes", p.sizes, p.dimension_count)
	if err != nil {
		return nil, err
	}
	var strides []uint32
	if p.strides != nil {
		if strides, err = u32s(call, field+".strides", p.strides, p.dimension_count); err != nil {
			return nil, err
		}
	}
	d := &tensor.Desc{
		DataType:                      tensor.DataType(p.data_type),
		Sizes:                         sizes,
		Strides:                       strides,
		TotalTensorSizeInBytes:        uint64(p.total_tensor_size_in_bytes),
		GuaranteedBaseOffsetAlignment: uint32(p.guaranteed_base_offset_alignment),
	}
	if d.TotalTensorSizeInBytes == 0 && d.DataType.Valid() {
		d.TotalTensorSizeInBytes = tensor.CalcBufferTensorSize(d.DataType, sizes, strides)
	}
	return d, nil
}

// operatorDesc converts a vkdml_operator_desc into the ops desc it names.
func operatorDesc(call string, p *C.vkdml_operator_desc) (ops.Desc, error) {
	if p == nil {
		return nil, invalidArg(call, "desc", "must not be NULL")
	}
	if p.desc == nil {
		return nil, invalidArg(call, "desc->desc", "must not be NULL")
	}
	switch p._type {
	case C.VKDML_OPERATOR_ARGMAX, C.VKDML_OPERATOR_ARGMIN:
		return argDesc(call, p._type == C.VKDML_OPERATOR_ARGMIN, (*C.vkdml_argmax_desc)(p.desc))
	case C.VKDML_OPERATOR_REDUCE:
		return reduceDesc(call, (*C.vkdml_reduce_desc)(p.desc))
	case C.VKDML_OPERATOR_MAX_POOLING:
		c := (*C.vkdml_max_pooling_desc)(p.desc)
		return poolDesc(call, poolFields{c.input, c.output, nil, c.dimension_count, c.strides, c.window_size, c.start_padding, c.end_padding, nil}, 0)
	case C.VKDML_OPERATOR_MAX_POOLING1:
		c := (*C.vkdml_max_pooling1_desc)(p.desc)
		return poolDesc(call, poolFields{c.input, c.output, c.output_indices, c.dimension_count, c.strides, c.window_size, c.start_padding, c.end_padding, nil}, 1)
	case C.VKDML_OPERATOR_MAX_POOLING2:
		c := (*C.vkdml_max_pooling2_desc)(p.desc)
		return poolDesc(call, poolFields{c.input, c.output, c.output_indices, c.dimension_count, c.strides, c.window_size, c.start_padding, c.end_padding, c.dilations}, 2)
	}
	return nil, invalidArg(call, "desc->type", "%d is not a vkdml_operator_type (ARGMAX=1 ... MAX_POOLING2=6)", uint32(p._type))
}

// reduction reads the input, output and axes that ARGMAX, ARGMIN and
// REDUCE share.
func reduction(call string, input, output *C.vkdml_tensor_desc, axes *C.uint32_t, count C.uint32_t) (in, out *tensor.Desc, ax []uint32, err error) {
	if in, err = tensorDesc(call, "input", input, false); err != nil {
		return nil, nil, nil, err
	}
	if out, err = tensorDesc(call, "output", output, false); err != nil {
		return nil, nil, nil, err
	}
	if ax, err = u32s(call, "axes", axes, count); err != nil {
		return nil, nil, nil, err
	}
	return in, out, ax, nil
}

func argDesc(call string, isMin bool, c *C.vkdml_argmax_desc) (ops.Desc, error) {
	in, out, axes, err := reduction(call, c.input, c.output, c.axes, c.axis_count)
	if err != nil {
		return nil, err
	}
	dir := dml.AxisDirection(c.axis_direction)
	if isMin {
		return &dml.ArgMin{Input: *in, Output: *out, Axes: axes, AxisDirection: dir}, nil
	}
	return &dml.ArgMax{Input: *in, Output: *out, Axes: axes, AxisDirection: dir}, nil
}

func reduceDesc(call string, c *C.vkdml_reduce_desc) (ops.Desc, error) {
	in, out, axes, err := reduction(call, c.input, c.output, c.axes, c.axis_count)
	if err != nil {
		return nil, err
	}
	return &dml.Reduce{Function: dml.ReduceFunction(c.function), Input: *in, Output: *out, Axes: axes}, nil
}

// poolFields are the fields the three max-pooling descs share (indices and
// dilations nil where a version lacks them).
type poolFields struct {
	input, output, indices                 *C.vkdml_tensor_desc
	count                                  C.uint32_t
	strides, window, start, end, dilations *C.uint32_t
}

// poolDesc builds MAX_POOLING (version 0), MAX_POOLING1 or MAX_POOLING2.
func poolDesc(call string, f poolFields, version int) (ops.Desc, error) {
	in, err := tensorDesc(call, "input", f.input, false)
	if err != nil {
		return nil, err
	}
	out, err := tensorDesc(call, "output", f.output, false)
	if err != nil {
		return nil, err
	}
	idx, err := tensorDesc(call, "output_indices", f.indices, true)
	if err != nil {
		return nil, err
	}
	arrays := map[string]*C.uint32_t{"strides": f.strides, "window_size": f.window, "start_padding": f.start, "end_padding": f.end}
	if version == 2 {
		arrays["dilations"] = f.dilations
	}
	v := map[string][]uint32{}
	for name, p := range arrays {
		if v[name], err = u32s(call, name, p, f.count); err != nil {
			return nil, err
		}
	}
	switch version {
	case 0:
		return &dml.MaxPooling{Input: *in, Output: *out, Strides: v["strides"], WindowSize: v["window_size"], StartPadding: v["start_padding"], EndPadding: v["end_padding"]}, nil
	case 1:
		return &dml.MaxPooling1{Input: *in, Output: *out, OutputIndices: idx, Strides: v["strides"], WindowSize: v["window_size"], StartPadding: v["start_padding"], EndPadding: v["end_padding"]}, nil
	}
	return &dml.MaxPooling2{Input: *in, Output: *out, OutputIndices: idx, Strides: v["strides"], WindowSize: v["window_size"], StartPadding: v["start_padding"], EndPadding: v["end_padding"], Dilations: v["dilations"]}, nil
}
