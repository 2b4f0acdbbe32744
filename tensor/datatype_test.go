package tensor

import "testing"

func TestDataTypeProperties(t *testing.T) {
	tests := []struct {
		dt            DataType
		size          int
		name          string
		float, signed bool
		valid         bool
		descr         string
	}{
		{Unknown, 0, "UNKNOWN", false, false, false, ""},
		{Float32, 4, "FLOAT32", true, true, true, "<f4"},
		{Float16, 2, "FLOAT16", true, true, true, "<f2"},
		{UInt32, 4, "UINT32", false, false, true, "<u4"},
		{UInt16, 2, "UINT16", false, false, true, "<u2"},
		{UInt8, 1, "UINT8", false, false, true, "|u1"},
		{Int32, 4, "INT32", false, true, true, "<i4"},
		{Int16, 2, "INT16", false, true, true, "<i2"},
		{Int8, 1, "INT8", false, true, true, "|i1"},
		{Float64, 8, "FLOAT64", true, true, false, "<f8"},
		{UInt64, 8, "UINT64", false, false, true, "<u8"},
		{Int64, 8, "INT64", false, true, true, "<i8"},
		{DataType(12), 0, "DataType(12)", false, false, false, ""}, // UINT4: not supported
		{DataType(1000), 0, "DataType(1000)", false, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.dt.Size(); got != tc.size {
				t.Errorf("Size() = %d, want %d", got, tc.size)
			}
			if got := tc.dt.String(); got != tc.name {
				t.Errorf("String() = %q, want %q", got, tc.name)
			}
			if got := tc.dt.IsFloat(); got != tc.float {
				t.Errorf("IsFloat() = %v, want %v", got, tc.float)
			}
			if got := tc.dt.IsSigned(); got != tc.signed {
				t.Errorf("IsSigned() = %v, want %v", got, tc.signed)
			}
			if got := tc.dt.Valid(); got != tc.valid {
				t.Errorf("Valid() = %v, want %v", got, tc.valid)
			}
			if got := tc.dt.NumpyDescr(); got != tc.descr {
				t.Errorf("NumpyDescr() = %q, want %q", got, tc.descr)
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
