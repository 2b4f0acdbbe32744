// Package schema describes every operator desc's fields once, in
// DirectML's order with DirectML's names and types, as DirectML's own
// tooling does (ONNX Runtime's DirectMLHelpers keeps a field table per
// desc). The C structs and operator-type enum of capi/vkdml.h, capi's C to
// Go conversion, Python's ctypes structs and the Windows parity runner's
// COM structs are generated from it (go run ./internal/schema/gen, or go
// generate here; -check fails on a stale file), and ops' registry takes
// each operator's inputs and outputs from it.
//
// A desc's Go struct in package ops has one field per schema field except
// the count fields (a Go slice carries its length): a tensor field named
// XTensor is the Go field X (tensor.Desc, or *tensor.Desc when optional),
// a UInt field is a uint32 (or the enum's Go type), a UIntArray a
// []uint32. The C field is the Go field's name in snake_case. ops'
// registry test holds each Go struct to its entry.
package schema

//go:generate go run ./gen

import (
	"strings"
	"unicode"
)

// Kind is DML_SCHEMA_FIELD_KIND: what a field is to the operator.
type Kind int

// The field kinds.
const (
	InputTensor Kind = iota + 1
	OutputTensor
	Attribute
)

// Type is DML_SCHEMA_FIELD_TYPE: how a field is stored.
type Type int

// The field types vkdml's descs use.
const (
	// TensorDesc is a const DML_TENSOR_DESC*: NULL only when Optional.
	TensorDesc Type = iota + 1
	// UInt is a UINT, typed by Enum when the field holds a DirectML enum.
	UInt
	// UIntArray is a const UINT*, with its length in the UInt field Count.
	UIntArray
	// UInt64 is a UINT64 (DML_BUFFER_TENSOR_DESC's TotalTensorSizeInBytes;
	// no operator desc holds one).
	UInt64
)

// Enum is a DirectML enum a UInt field holds.
type Enum struct {
	// DML is DirectML's name: DML_AXIS_DIRECTION.
	DML string
	// Values are DirectML's names of its values without the prefix
	// (Prefix), in the order of their numbers from 0: INCREASING is
	// DML_AXIS_DIRECTION_INCREASING, 0. They are every value DirectML
	// defines, not only those vkdml implements: a desc as data names a
	// value, and whether the operator takes it is the operator's rule.
	Values []string
}

// Prefix is what DirectML's value names start with: DML_AXIS_DIRECTION_.
func (e *Enum) Prefix() string { return e.DML + "_" }

// Go is the enum's type in package ops: AxisDirection.
func (e *Enum) Go() string { return camel(strings.TrimPrefix(e.DML, "DML_")) }

// C is the enum's type in vkdml.h: vkdml_axis_direction.
func (e *Enum) C() string { return "vkdml_" + strings.ToLower(strings.TrimPrefix(e.DML, "DML_")) }

// The enums the descs use.
var (
	AxisDirection  = &Enum{DML: "DML_AXIS_DIRECTION", Values: []string{"INCREASING", "DECREASING"}}
	ReduceFunction = &Enum{DML: "DML_REDUCE_FUNCTION", Values: []string{"ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2",
		"LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"}}
	// DataType is a tensor's DML_TENSOR_DATA_TYPE.
	DataType = &Enum{DML: "DML_TENSOR_DATA_TYPE", Values: []string{"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32",
		"UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64", "UINT64", "INT64"}}
)

// Field is one field of a desc.
type Field struct {
	// Name is DirectML's: InputTensor, AxisCount, Axes.
	Name string
	Kind Kind
	Type Type
	// Optional says that a tensor (or an array: a tensor's Strides) may
	// be absent (a NULL pointer, nil in Go), or that a desc as data may
	// leave a number out, meaning 0 (AxisDirection: INCREASING).
	Optional bool
	// Count names the UInt field holding a UIntArray's length; several
	// arrays may share one (MAX_POOLING's DimensionCount).
	Count string
	// Enum types a UInt field; nil for a plain number.
	Enum *Enum
	// Group names a run of fields that several descs hold alike
	// (PoolingWindow); a mirror that can share one struct for the run
	// (the Windows runner's COM structs, as Go embedding) does.
	Group string
	// JSON is the field's name in the parity corpus when that is not the
	// Go name with a lower-case first letter (Function is reduceFunction).
	JSON string
	// Aliases are further names a desc as data may give the field
	// (Spellings lists them all).
	Aliases []string
}

// IsTensor reports whether f is an input or output tensor.
func (f *Field) IsTensor() bool { return f.Kind == InputTensor || f.Kind == OutputTensor }

// Go is the field's name in the ops struct: InputTensor is Input, Axes is
// Axes. A count field (Desc.IsCount) has none: a Go slice has a length.
func (f *Field) Go() string {
	if f.IsTensor() {
		return strings.TrimSuffix(f.Name, "Tensor")
	}
	return f.Name
}

// C is the field's name in vkdml.h's struct: input, axis_count.
func (f *Field) C() string { return snake(f.Go()) }

// Desc is one operator desc.
type Desc struct {
	// Type is DirectML's operator type without DML_OPERATOR_, as
	// ops.Desc.OperatorType returns it: ARGMAX.
	Type string
	// DMLType is DML_OPERATOR_TYPE's value for it.
	DMLType uint32
	// Go is the desc's type name in package ops: ArgMax.
	Go string
	// Fields are the desc's fields in DirectML's order.
	Fields []Field
	// C is the desc's place in libvkdml's C interface; nil for a desc that
	// libvkdml does not offer.
	C *CDesc
}

// CDesc is a desc's C struct in vkdml.h (and so its Python and COM mirrors).
type CDesc struct {
	// Struct is the C type: vkdml_argmax_desc.
	Struct string
	// Type is its vkdml_operator_type value. The C values are libvkdml's
	// own, fixed by its ABI: append new ones.
	Type uint32
	// Doc is the comment above the struct in vkdml.h, in lines without
	// the comment markers.
	Doc string
	// SameAs, when set, is the Type of the desc whose struct this one is
	// a typedef of (DML_ARGMIN_OPERATOR_DESC has ARGMAX's fields).
	SameAs string
}

// Tensors returns the fields of kind k (InputTensor or OutputTensor), in
// binding order.
func (d *Desc) Tensors(k Kind) []Field {
	var out []Field
	for _, f := range d.Fields {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Field returns the field called name, or nil.
func (d *Desc) Field(name string) *Field {
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return &d.Fields[i]
		}
	}
	return nil
}

// IsCount reports whether the field called name is the length of an array.
func (d *Desc) IsCount(name string) bool {
	for _, f := range d.Fields {
		if f.Type == UIntArray && f.Count == name {
			return true
		}
	}
	return false
}

// Lookup returns the desc of operator type typ.
func Lookup(typ string) (*Desc, bool) {
	for i := range Descs {
		if Descs[i].Type == typ {
			return &Descs[i], true
		}
	}
	return nil, false
}

// camel turns AXIS_DIRECTION into AxisDirection.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// snake turns OutputIndices into output_indices.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
