package main

/*
#define VKDML_NO_PROTOTYPES
#include "vkdml.h"
*/
import "C"

import (
	"unsafe"

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

// requiredTensor copies a vkdml_tensor_desc that must not be NULL.
func requiredTensor(call, field string, p *C.vkdml_tensor_desc) (tensor.Desc, error) {
	d, err := tensorDesc(call, field, p, false)
	if err != nil {
		return tensor.Desc{}, err
	}
	return *d, nil
}

// descReader reads a C desc's fields in order for desc_gen.go's converters:
// after the first bad field it reads nothing more, and desc returns that
// field's error, so a converter is one line per field.
type descReader struct {
	call string
	err  error
}

// tensor reads a vkdml_tensor_desc that must not be NULL.
func (r *descReader) tensor(field string, p *C.vkdml_tensor_desc) tensor.Desc {
	if r.err != nil {
		return tensor.Desc{}
	}
	d, err := requiredTensor(r.call, field, p)
	r.err = err
	return d
}

// optionalTensor reads a vkdml_tensor_desc that may be NULL (nil).
func (r *descReader) optionalTensor(field string, p *C.vkdml_tensor_desc) *tensor.Desc {
	if r.err != nil {
		return nil
	}
	d, err := tensorDesc(r.call, field, p, true)
	r.err = err
	return d
}

// u32s reads an array of n uint32s.
func (r *descReader) u32s(field string, p *C.uint32_t, n C.uint32_t) []uint32 {
	if r.err != nil {
		return nil
	}
	v, err := u32s(r.call, field, p, n)
	r.err = err
	return v
}

// desc is d, or nil and the first bad field's error.
func (r *descReader) desc(d ops.Desc) (ops.Desc, error) {
	if r.err != nil {
		return nil, r.err
	}
	return d, nil
}

// operatorDesc converts a vkdml_operator_desc into the ops desc it names
// (desc_gen.go converts each desc struct, generated from internal/schema).
func operatorDesc(call string, p *C.vkdml_operator_desc) (ops.Desc, error) {
	if p == nil {
		return nil, invalidArg(call, "desc", "must not be NULL")
	}
	if p.desc == nil {
		return nil, invalidArg(call, "desc->desc", "must not be NULL")
	}
	desc, known, err := descFromC(call, p._type, p.desc)
	if !known {
		return nil, invalidArg(call, "desc->type", "%d is not a vkdml_operator_type (%s)", uint32(p._type), operatorTypeRange)
	}
	return desc, err
}
