package tensor

import "testing"

func TestDataTypeProperties(t *testing.T) {
	// properties are what DataType's methods say of one type, in the
	// order Size, String, IsFloat, IsSigned, Valid, NumpyDescr.
	type properties struct {
		size          int
		name          string
		float, signed bool
		valid         bool
		descr         string
	}
	tests := []struct {
		dt   DataType
		want properties
	}{
		{Unknown, properties{0, "UNKNOWN", false, false, false, ""}},
		{Float32, properties{4, "FLOAT32", true, true, true, "<f4"}},
		{Float16, properties{2, "FLOAT16", true, true, true, "<f2"}},
		{UInt32, properties{4, "UINT32", false, false, true, "<u4"}},
		{UInt16, properties{2, "UINT16", false, false, true, "<u2"}},
		{UInt8, properties{1, "UINT8", false, false, true, "|u1"}},
		{Int32, properties{4, "INT32", false, true, true, "<i4"}},
		{Int16, properties{2, "INT16", false, true, true, "<i2"}},
		{Int8, properties{1, "INT8", false, true, true, "|i1"}},
		{Float64, properties{8, "FLOAT64", true, true, false, "<f8"}},
		{UInt64, properties{8, "UINT64", false, false, true, "<u8"}},
		{Int64, properties{8, "INT64", false, true, true, "<i8"}},
		{DataType(12), properties{0, "DataType(12)", false, false, false, ""}}, // UINT4: not supported
		{DataType(1000), properties{0, "DataType(1000)", false, false, false, ""}},
	}
	for _, tc := range tests {
		t.Run(tc.want.name, func(t *testing.T) {
			got := properties{tc.dt.Size(), tc.dt.String(), tc.dt.IsFloat(), tc.dt.IsSigned(), tc.dt.Valid(), tc.dt.NumpyDescr()}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestAllTypes(t *testing.T) {
	if len(AllTypes) != 10 {
		t.Fatalf("len(AllTypes) = %d, want 10", len(AllTypes))
	}
	seen := map[DataType]bool{}
	for _, dt := range AllTypes {
		if !dt.Valid() || seen[dt] {
			t.Errorf("AllTypes: %v invalid or repeated", dt)
		}
		seen[dt] = true
	}
}

func TestParseDataType(t *testing.T) {
	for dt := Unknown; dt <= Int64; dt++ {
		got, err := ParseDataType(dt.String())
		if err != nil || got != dt {
			t.Errorf("ParseDataType(%q) = %v, %v; want %v", dt.String(), got, err, dt)
		}
	}
	tests := []struct {
		in   string
		want DataType
	}{
		{"float32", Float32}, {"f32", Float32}, {"FP32", Float32}, {" float ", Float32},
		{"float16", Float16}, {"half", Float16}, {"f16", Float16},
		{"DML_TENSOR_DATA_TYPE_UINT8", UInt8}, {"u8", UInt8}, {"uint16", UInt16},
		{"int64", Int64}, {"i64", Int64}, {"Int8", Int8}, {"uint64", UInt64}, {"int32", Int32},
		{"double", Float64},
	}
	for _, tc := range tests {
		got, err := ParseDataType(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDataType(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "float8", "bool", "complex64", "int4x"} {
		if _, err := ParseDataType(bad); err == nil {
			t.Errorf("ParseDataType(%q) succeeded, want error", bad)
		}
	}
}
