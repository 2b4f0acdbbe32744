//go:build windows

package dmlcom

// The C descs of one case: DML_TENSOR_DESC and DML_OPERATOR_DESC built from
// a parity.Case, kept alive (descs.keep) while DirectML reads them.

import (
	"fmt"
	"unsafe"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// descs holds the C structs of one case so they stay alive through the
// calls.
type descs struct {
	keep []any
}

func (d *descs) u32s(v []uint32) unsafe.Pointer {
	if v == nil {
		return nil
	}
	if len(v) == 0 { // a non-null pointer with a count of 0
		z := new(uint32)
		d.keep = append(d.keep, z)
		return unsafe.Pointer(z)
	}
	c := append([]uint32(nil), v...)
	d.keep = append(d.keep, c)
	return unsafe.Pointer(&c[0])
}

func (d *descs) tensor(t *parity.Tensor) (unsafe.Pointer, error) {
	if t == nil {
		return nil, nil
	}
	dt, err := tensor.ParseDataType(t.DataType)
	if err != nil {
		return nil, err
	}
	bt := &bufferTensorDesc{dataType: uint32(dt), dimensionCount: uint32(len(t.Sizes)),
		sizes: d.u32s(t.Sizes), strides: d.u32s(t.Strides), total: t.TotalTensorSizeInBytes}
	if len(t.Sizes) == 0 {
		bt.sizes = nil
	}
	td := &tensorDesc{typ: dmlTensorTypeBuffer, desc: unsafe.Pointer(bt)}
	d.keep = append(d.keep, bt, td)
	return unsafe.Pointer(td), nil
}

// pin keeps the struct p points to alive while DirectML reads it.
func pin[T any](d *descs, p *T) unsafe.Pointer {
	d.keep = append(d.keep, p)
	return unsafe.Pointer(p)
}

// padded returns v extended with zeros to n entries, so that DirectML never
// reads past a Go slice whatever DimensionCount says.
func padded(v []uint32, n int) []uint32 {
	out := make([]uint32, max(n, len(v)))
	copy(out, v)
	return out
}

// operatorDesc builds the DML_OPERATOR_DESC of c.
func (d *descs) operator(c *parity.Case) (*operatorDesc, error) {
	in, err := d.tensor(&c.Input)
	if err != nil {
		return nil, err
	}
	out, err := d.tensor(&c.Output)
	if err != nil {
		return nil, err
	}
	idx, err := d.tensor(c.OutputIndices)
	if err != nil {
		return nil, err
	}
	op := &operatorDesc{typ: dmlOperators[c.Operator].typ}
	d.keep = append(d.keep, op)
	switch c.Operator {
	case "ARGMAX", "ARGMIN":
		dir, err := c.Direction()
		if err != nil {
			return nil, err
		}
		a := argMaxOperatorDesc{inputTensor: in, outputTensor: out, axisCount: uint32(len(c.Axes)), axes: d.u32s(c.Axes), axisDirection: dir}
		if c.Operator == "ARGMIN" { // DirectML declares ARGMIN's desc apart, with ARGMAX's fields
			m := argMinOperatorDesc(a)
			op.desc = pin(d, &m)
		} else {
			op.desc = pin(d, &a)
		}
	case "REDUCE":
		f, err := c.Function()
		if err != nil {
			return nil, err
		}
		op.desc = pin(d, &reduceOperatorDesc{function: f, inputTensor: in, outputTensor: out, axisCount: uint32(len(c.Axes)), axes: d.u32s(c.Axes)})
	case "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2":
		n := len(c.WindowSize)
		w := poolingWindow{dimensionCount: uint32(n), strides: d.u32s(padded(c.Strides, n)), windowSize: d.u32s(padded(c.WindowSize, n)),
			startPadding: d.u32s(padded(c.StartPadding, n)), endPadding: d.u32s(padded(c.EndPadding, n))}
		switch c.Operator {
		case "MAX_POOLING":
			op.desc = pin(d, &maxPoolingOperatorDesc{inputTensor: in, outputTensor: out, poolingWindow: w})
		case "MAX_POOLING1":
			op.desc = pin(d, &maxPooling1OperatorDesc{inputTensor: in, outputTensor: out, outputIndicesTensor: idx, poolingWindow: w})
		default:
			op.desc = pin(d, &maxPooling2OperatorDesc{inputTensor: in, outputTensor: out, outputIndicesTensor: idx, poolingWindow: w, dilations: d.u32s(padded(c.Dilations, n))})
		}
	case "MAX_UNPOOLING":
		ind, err := d.tensor(c.Indices)
		if err != nil {
			return nil, err
		}
		op.desc = pin(d, &maxUnpoolingOperatorDesc{inputTensor: in, indicesTensor: ind, outputTensor: out})
	case "TOP_K":
		axis, k := c.TopKParams()
		op.desc = pin(d, &topKOperatorDesc{inputTensor: in, outputValueTensor: out, outputIndexTensor: idx, axis: axis, k: k})
	case "TOP_K1":
		dir, err := c.Direction()
		if err != nil {
			return nil, err
		}
		axis, k := c.TopKParams()
		op.desc = pin(d, &topK1OperatorDesc{inputTensor: in, outputValueTensor: out, outputIndexTensor: idx, axis: axis, k: k, axisDirection: dir})
	default:
		return nil, fmt.Errorf("unknown operator %q", c.Operator)
	}
	return op, nil
}

// outputSlots is the number of output bindings of the operator (optional
// outputs included).
func outputSlots(c *parity.Case) int { return int(dmlOperators[c.Operator].outputs) }
