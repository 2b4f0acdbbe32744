package tensor

import (
	"fmt"
	"strings"
)

// DataType is DML_TENSOR_DATA_TYPE. The values are DirectML's, so a
// DataType can be compared with (and stored as) the C enum.
type DataType uint32

// DirectML's data types. UINT4/INT4 (feature level 6.3) are not listed:
// vkdml targets a lower feature level.
const (
	Unknown DataType = 0  // DML_TENSOR_DATA_TYPE_UNKNOWN: never valid
	Float32 DataType = 1  // DML_TENSOR_DATA_TYPE_FLOAT32
	Float16 DataType = 2  // DML_TENSOR_DATA_TYPE_FLOAT16
	UInt32  DataType = 3  // DML_TENSOR_DATA_TYPE_UINT32
	UInt16  DataType = 4  // DML_TENSOR_DATA_TYPE_UINT16
	UInt8   DataType = 5  // DML_TENSOR_DATA_TYPE_UINT8
	Int32   DataType = 6  // DML_TENSOR_DATA_TYPE_INT32
	Int16   DataType = 7  // DML_TENSOR_DATA_TYPE_INT16
	Int8    DataType = 8  // DML_TENSOR_DATA_TYPE_INT8
	Float64 DataType = 9  // DML_TENSOR_DATA_TYPE_FLOAT64: a DirectML enum value that vkdml does not support
	UInt64  DataType = 10 // DML_TENSOR_DATA_TYPE_UINT64
	Int64   DataType = 11 // DML_TENSOR_DATA_TYPE_INT64
)

// AllTypes lists the ten data types vkdml supports (those for which Valid
// is true), in DirectML enum order.
var AllTypes = []DataType{Float32, Float16, UInt32, UInt16, UInt8, Int32, Int16, Int8, UInt64, Int64}

type typeInfo struct {
	name   string // DirectML spelling without the DML_TENSOR_DATA_TYPE_ prefix
	size   int    // bytes per element
	float  bool
	signed bool
	descr  string // NumPy dtype.str
}

var typeInfos = [...]typeInfo{
	Unknown: {"UNKNOWN", 0, false, false, ""},
	Float32: {"FLOAT32", 4, true, true, "<f4"},
	Float16: {"FLOAT16", 2, true, true, "<f2"},
	UInt32:  {"UINT32", 4, false, false, "<u4"},
	UInt16:  {"UINT16", 2, false, false, "<u2"},
	UInt8:   {"UINT8", 1, false, false, "|u1"},
	Int32:   {"INT32", 4, false, true, "<i4"},
	Int16:   {"INT16", 2, false, true, "<i2"},
	Int8:    {"INT8", 1, false, true, "|i1"},
	Float64: {"FLOAT64", 8, true, true, "<f8"},
	UInt64:  {"UINT64", 8, false, false, "<u8"},
	Int64:   {"INT64", 8, false, true, "<i8"},
}

func (dt DataType) info() typeInfo {
	if int(dt) < len(typeInfos) {
		return typeInfos[dt]
	}
	return typeInfo{}
}

// Size returns the element size in bytes, or 0 for UNKNOWN and values
// outside the enum (which is what DMLCalcBufferTensorSize keys its "unknown
// type returns 0" rule on). FLOAT64 reports 8 even though vkdml rejects it.
func (dt DataType) Size() int { return dt.info().size }

// String returns DirectML's name without the prefix, e.g. "FLOAT32", or
// "DataType(N)" for a value outside the enum.
func (dt DataType) String() string {
	if n := dt.info().name; n != "" {
		return n
	}
	return fmt.Sprintf("DataType(%d)", uint32(dt))
}

// IsFloat reports whether dt is FLOAT16, FLOAT32 or FLOAT64.
func (dt DataType) IsFloat() bool { return dt.info().float }

// IsSigned reports whether dt can hold negative values (the float types and
// the INT types).
func (dt DataType) IsSigned() bool { return dt.info().signed }

// Valid reports whether dt is one of the ten types vkdml supports: every
// DirectML type below UINT4 except UNKNOWN (never valid in DirectML) and
// FLOAT64 (not supported by the operators vkdml implements).
func (dt DataType) Valid() bool {
	return dt != Unknown && dt != Float64 && int(dt) < len(typeInfos)
}

// NumpyDescr returns the little-endian NumPy dtype string ("<f4", "|u1",
// ...) that np.save writes for dt, or "" for UNKNOWN and out-of-range
// values.
func (dt DataType) NumpyDescr() string { return dt.info().descr }

// ParseDataType parses a data type name, case-insensitively. It accepts
// DirectML's names with or without the DML_TENSOR_DATA_TYPE_ prefix
// ("FLOAT32", "uint8"), NumPy-style names and short forms ("float16",
// "half", "f16", "fp16", "u8", "i64"), and every String() result, so that
// ParseDataType(dt.String()) == dt for every enum value, UNKNOWN and FLOAT64
// included; callers that need a usable type check Valid.
func ParseDataType(s string) (DataType, error) {
	key := strings.ToUpper(strings.TrimSpace(s))
	key = strings.TrimPrefix(key, "DML_TENSOR_DATA_TYPE_")
	if dt, ok := typeAliases[key]; ok {
		return dt, nil
	}
	return Unknown, fmt.Errorf("tensor: unknown data type %q (want one of FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8, UINT64, INT64)", s)
}

var typeAliases = map[string]DataType{
	"UNKNOWN": Unknown,
	"FLOAT32": Float32, "F32": Float32, "FP32": Float32, "FLOAT": Float32, "SINGLE": Float32,
	"FLOAT16": Float16, "F16": Float16, "FP16": Float16, "HALF": Float16,
	"FLOAT64": Float64, "F64": Float64, "FP64": Float64, "DOUBLE": Float64,
	"UINT32": UInt32, "U32": UInt32,
	"UINT16": UInt16, "U16": UInt16,
	"UINT8": UInt8, "U8": UInt8,
	"INT32": Int32, "I32": Int32,
	"INT16": Int16, "I16": Int16,
	"INT8": Int8, "I8": Int8,
	"UINT64": UInt64, "U64": UInt64,
	"INT64": Int64, "I64": Int64,
}
