// Package onnx reads the two things ONNX's backend test data sets are made
// of: TensorProto files (test_data_set_*/input_*.pb, output_*.pb) and the
// single-node models beside them (model.onnx), of which it keeps the graph's
// nodes with their attributes and the graph's input and output names.
//
// It decodes the protobuf wire format with protowire, field by field, for
// the fields it knows (onnx.proto3's numbers) and skips the rest; no
// generated code. Every length and count is checked against the input
// before anything is allocated, so arbitrary bytes give an error, never a
// panic or a huge allocation.
package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX's TensorProto.DataType values.
const (
	TypeFloat    = 1
	TypeUint8    = 2
	TypeInt8     = 3
	TypeUint16   = 4
	TypeInt16    = 5
	TypeInt32    = 6
	TypeInt64    = 7
	TypeString   = 8
	TypeBool     = 9
	TypeFloat16  = 10
	TypeDouble   = 11
	TypeUint32   = 12
	TypeUint64   = 13
	TypeBfloat16 = 16
)

// dataTypes are the ONNX element types vkdml has tensors of, with vkdml's
// type for each; BOOL becomes UINT8.
var dataTypes = map[int32]tensor.DataType{
	TypeFloat:   tensor.Float32,
	TypeUint8:   tensor.UInt8,
	TypeBool:    tensor.UInt8,
	TypeInt8:    tensor.Int8,
	TypeUint16:  tensor.UInt16,
	TypeInt16:   tensor.Int16,
	TypeInt32:   tensor.Int32,
	TypeInt64:   tensor.Int64,
	TypeFloat16: tensor.Float16,
	TypeUint32:  tensor.UInt32,
	TypeUint64:  tensor.UInt64,
}

// typeNames are TensorProto.DataType's names for the types vkdml has no
// tensors of, for messages.
var typeNames = map[int32]string{TypeString: "STRING", TypeDouble: "DOUBLE (FLOAT64)", TypeBfloat16: "BFLOAT16", 14: "COMPLEX64", 15: "COMPLEX128"}

// TypeName names an ONNX element type: "DOUBLE (FLOAT64)", or vkdml's
// name of the type it maps onto ("FLOAT32"), or "type N" when unknown.
func TypeName(onnxType int32) string {
	if dt, ok := dataTypes[onnxType]; ok {
		return dt.String()
	}
	if n, ok := typeNames[onnxType]; ok {
		return n
	}
	return fmt.Sprintf("type %d", onnxType)
}

// ErrDataType says that a tensor's element type is one vkdml has no
// tensors of (DOUBLE, STRING, BFLOAT16, complex, ...).
var ErrDataType = errors.New("a data type vkdml has no tensors of")

// ErrEmpty says that a well-formed tensor has no elements (a dimension of
// 0, as ReduceSum's empty axes input): vkdml's tensors have at least one.
var ErrEmpty = errors.New("no elements (a dimension of 0)")

// DataType maps an ONNX element type onto vkdml's (dataTypes). The second
// result is false for types vkdml has no tensors of (STRING, DOUBLE,
// BFLOAT16, complex, ...).
func DataType(onnxType int32) (tensor.DataType, bool) {
	dt, ok := dataTypes[onnxType]
	return dt, ok
}

// TensorProto holds the fields of onnx.TensorProto that carry a tensor.
type TensorProto struct {
	Name       string
	Dims       []int64
	DataType   int32
	RawData    []byte
	FloatData  []float32
	Int32Data  []int32
	Int64Data  []int64
	Uint64Data []uint64
	DoubleData []float64
	External   bool // data_location = EXTERNAL: the data is in another file
}

// wire walks a message's fields.
type wire struct{ b []byte }

// next returns the next field's number and type and the bytes of its
// value (for varint and fixed types the decoded value is in v).
func (w *wire) next() (num protowire.Number, typ protowire.Type, v uint64, data []byte, err error) {
	num, typ, n := protowire.ConsumeTag(w.b)
	if n < 0 {
		return 0, 0, 0, nil, fmt.Errorf("onnx: bad field tag: %v", protowire.ParseError(n))
	}
	w.b = w.b[n:]
	switch typ {
	case protowire.VarintType:
		v, n = protowire.ConsumeVarint(w.b)
	case protowire.Fixed32Type:
		var x uint32
		x, n = protowire.ConsumeFixed32(w.b)
		v = uint64(x)
	case protowire.Fixed64Type:
		v, n = protowire.ConsumeFixed64(w.b)
	case protowire.BytesType:
		data, n = protowire.ConsumeBytes(w.b)
	default:
		n = protowire.ConsumeFieldValue(num, typ, w.b)
	}
	if n < 0 {
		return 0, 0, 0, nil, fmt.Errorf("onnx: field %d: %v", num, protowire.ParseError(n))
	}
	w.b = w.b[n:]
	return num, typ, v, data, nil
}

// repeated decodes a repeated scalar field, packed (one BytesType value
// holding many) or not (one value per occurrence), calling add for each.
func repeated(num protowire.Number, typ protowire.Type, v uint64, data []byte, want protowire.Type, add func(uint64)) error {
	if typ == want {
		add(v)
		return nil
	}
	if typ != protowire.BytesType {
		return fmt.Errorf("onnx: field %d has wire type %d, want %d or packed", num, typ, want)
	}
	for len(data) > 0 {
		var n int
		switch want {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(data)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(data)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(data)
		}
		if n < 0 {
			return fmt.Errorf("onnx: packed field %d: %v", num, protowire.ParseError(n))
		}
		add(v)
		data = data[n:]
	}
	return nil
}

func expect(num protowire.Number, typ, want protowire.Type) error {
	if typ != want {
		return fmt.Errorf("onnx: field %d has wire type %d, want %d", num, typ, want)
	}
	return nil
}

// field is one field of a message: its number, its wire type and its
// value (v for varint and fixed types, data for bytes).
type field struct {
	num  protowire.Number
	typ  protowire.Type
	v    uint64
	data []byte
}

// eachField calls f with every field of message b in order; it stops at
// the first error, a malformed field's or f's.
func eachField(b []byte, f func(field) error) error {
	w := wire{b}
	for len(w.b) > 0 {
		num, typ, v, data, err := w.next()
		if err != nil {
			return err
		}
		if err := f(field{num, typ, v, data}); err != nil {
			return err
		}
	}
	return nil
}

// parseMessage decodes message b into a new T, passing set each field.
func parseMessage[T any](b []byte, set func(m *T, f field) error) (*T, error) {
	m := new(T)
	if err := eachField(b, func(f field) error { return set(m, f) }); err != nil {
		return nil, err
	}
	return m, nil
}

// expect fails unless the field has wire type want.
func (f field) expect(want protowire.Type) error { return expect(f.num, f.typ, want) }

// scalar passes the value of a field of wire type want to set.
func (f field) scalar(want protowire.Type, set func(uint64)) error {
	if err := f.expect(want); err != nil {
		return err
	}
	set(f.v)
	return nil
}

// bytes passes the value of a bytes field to set.
func (f field) bytes(set func([]byte)) error {
	if err := f.expect(protowire.BytesType); err != nil {
		return err
	}
	set(f.data)
	return nil
}

// repeated passes each value of a repeated scalar field to add.
func (f field) repeated(want protowire.Type, add func(uint64)) error {
	return repeated(f.num, f.typ, f.v, f.data, want, add)
}

// ParseTensorProto decodes a serialized onnx.TensorProto.
func ParseTensorProto(b []byte) (*TensorProto, error) {
	return parseMessage(b, func(p *TensorProto, f field) error {
		switch f.num {
		case 1: // dims
			return f.repeated(protowire.VarintType, func(x uint64) { p.Dims = append(p.Dims, int64(x)) })
		case 2: // data_type
			return f.scalar(protowire.VarintType, func(x uint64) { p.DataType = int32(x) })
		case 4: // float_data
			return f.repeated(protowire.Fixed32Type, func(x uint64) { p.FloatData = append(p.FloatData, math.Float32frombits(uint32(x))) })
		case 5: // int32_data
			return f.repeated(protowire.VarintType, func(x uint64) { p.Int32Data = append(p.Int32Data, int32(x)) })
		case 7: // int64_data
			return f.repeated(protowire.VarintType, func(x uint64) { p.Int64Data = append(p.Int64Data, int64(x)) })
		case 8: // name
			return f.bytes(func(b []byte) { p.Name = string(b) })
		case 9: // raw_data
			return f.bytes(func(b []byte) { p.RawData = b })
		case 10: // double_data
			return f.repeated(protowire.Fixed64Type, func(x uint64) { p.DoubleData = append(p.DoubleData, math.Float64frombits(x)) })
		case 11: // uint64_data
			return f.repeated(protowire.VarintType, func(x uint64) { p.Uint64Data = append(p.Uint64Data, x) })
		case 14: // data_location
			return f.scalar(protowire.VarintType, func(x uint64) { p.External = x == 1 })
		}
		return nil
	})
}

// Tensor converts the proto into a packed host tensor. A scalar (no dims)
// becomes a tensor of size [1], since DirectML tensors have rank ≥ 1.
func (p *TensorProto) Tensor() (*tensor.Tensor, error) {
	dt, ok := DataType(p.DataType)
	if !ok {
		return nil, fmt.Errorf("onnx: tensor %q: %s elements: %w", p.Name, TypeName(p.DataType), ErrDataType)
	}
	if p.External {
		return nil, fmt.Errorf("onnx: tensor %q: external data is not supported", p.Name)
	}
	sizes := make([]uint32, 0, max(len(p.Dims), 1))
	count := uint64(1)
	if slices.Contains(p.Dims, 0) {
		return nil, p.empty()
	}
	for i, d := range p.Dims {
		if d <= 0 || d > math.MaxUint32 {
			return nil, fmt.Errorf("onnx: tensor %q: dims[%d] = %d is not in [1, 2^32-1]", p.Name, i, d)
		}
		hi, lo := bits.Mul64(count, uint64(d))
		if hi != 0 || lo > tensor.MaxElementCount {
			return nil, fmt.Errorf("onnx: tensor %q: more than 2^32-1 elements", p.Name)
		}
		count = lo
		sizes = append(sizes, uint32(d))
	}
	if len(sizes) == 0 {
		sizes = append(sizes, 1)
	}
	if len(sizes) > tensor.MaxDimensionCount {
		return nil, fmt.Errorf("onnx: tensor %q: %d dimensions, more than %d", p.Name, len(sizes), tensor.MaxDimensionCount)
	}
	es := uint64(dt.Size())

	// Check that the data has exactly count elements before allocating.
	var have uint64
	var field string
	switch {
	case p.RawData != nil:
		if uint64(len(p.RawData)) != count*es {
			return nil, fmt.Errorf("onnx: tensor %q: raw_data has %d bytes, want %d (%d elements of %v)", p.Name, len(p.RawData), count*es, count, dt)
		}
		have, field = count, "raw_data"
	case p.DataType == TypeFloat:
		have, field = uint64(len(p.FloatData)), "float_data"
	case p.DataType == TypeInt64:
		have, field = uint64(len(p.Int64Data)), "int64_data"
	case p.DataType == TypeUint32 || p.DataType == TypeUint64:
		have, field = uint64(len(p.Uint64Data)), "uint64_data"
	default:
		have, field = uint64(len(p.Int32Data)), "int32_data"
	}
	if have != count {
		return nil, fmt.Errorf("onnx: tensor %q: %s has %d elements, want %d", p.Name, field, have, count)
	}

	t := tensor.New(dt, sizes...)
	if p.RawData != nil {
		copy(t.Data, p.RawData) // little-endian, as the tensor's bytes
		return t, nil
	}
	for i := uint64(0); i < count; i++ {
		var v uint64
		switch field {
		case "float_data":
			v = uint64(math.Float32bits(p.FloatData[i]))
		case "int64_data":
			v = uint64(p.Int64Data[i])
		case "uint64_data":
			v = p.Uint64Data[i]
		default: // int32_data: the value (FLOAT16: its bits), truncated
			v = uint64(p.Int32Data[i])
		}
		put(t.Data[i*es:], es, v)
	}
	return t, nil
}

// empty checks a tensor with a dimension of 0: its dims are otherwise in
// range and it holds no data; then the error is ErrEmpty.
func (p *TensorProto) empty() error {
	for i, d := range p.Dims {
		if d < 0 || d > math.MaxUint32 {
			return fmt.Errorf("onnx: tensor %q: dims[%d] = %d is not in [0, 2^32-1]", p.Name, i, d)
		}
	}
	if n := len(p.RawData) + len(p.FloatData) + len(p.Int32Data) + len(p.Int64Data) + len(p.Uint64Data) + len(p.DoubleData); n > 0 {
		return fmt.Errorf("onnx: tensor %q: dims %v hold no elements, but its data has %d values or bytes", p.Name, p.Dims, n)
	}
	return fmt.Errorf("onnx: tensor %q: dims %v: %w", p.Name, p.Dims, ErrEmpty)
}

func put(b []byte, es, v uint64) {
	switch es {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// ReadTensor reads a TensorProto file (.pb) into a tensor, returning the
// proto's name too. The file must be a regular one of at most
// MaxTensorFileSize bytes (internal/safefile).
func ReadTensor(path string) (*tensor.Tensor, string, error) {
	b, err := safefile.ReadFile(path, MaxTensorFileSize)
	if err != nil {
		return nil, "", err
	}
	p, err := ParseTensorProto(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	t, err := p.Tensor()
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return t, p.Name, nil
}
