package schema_test

import (
	"reflect"
	"testing"

	"github.com/vkdml/vkdml/internal/schema"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestEnumValuesMatchGo: each enum's Values are the names of the Go
// enum's values, in order.
func TestEnumValuesMatchGo(t *testing.T) {
	for i, name := range schema.DataType.Values {
		if got := tensor.DataType(i).String(); got != name {
			t.Errorf("DML_TENSOR_DATA_TYPE %d: schema %s, tensor %s", i, name, got)
		}
	}
	for i, name := range schema.AxisDirection.Values {
		if got := ops.AxisDirection(i).String(); got != schema.AxisDirection.Prefix()+name {
			t.Errorf("DML_AXIS_DIRECTION %d: schema %s, ops %s", i, name, got)
		}
	}
	for i, name := range schema.ReduceFunction.Values {
		if got := ops.ReduceFunction(i).String(); got != schema.ReduceFunction.Prefix()+name {
			t.Errorf("DML_REDUCE_FUNCTION %d: schema %s, ops %s", i, name, got)
		}
	}
}

// TestTensorFieldsMatchGo: TensorFields are tensor.Desc's fields (less
// the count), in its order.
func TestTensorFieldsMatchGo(t *testing.T) {
	var want []string
	for i := 0; i < reflect.TypeFor[tensor.Desc]().NumField(); i++ {
		want = append(want, reflect.TypeFor[tensor.Desc]().Field(i).Name)
	}
	var got []string
	for _, f := range schema.TensorFields {
		if f.Name != "DimensionCount" {
			got = append(got, f.Go())
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TensorFields %v, tensor.Desc %v", got, want)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"InputTensor", "Input", "input", "Strides", "strides", "AxisDirection", "axisDirection"}
	for key, want := range map[string]string{
		"stride": "strides", "Stride": "Strides", "STRIDES": "Strides", "AxisDirecton": "AxisDirection",
		"axisdirection": "axisDirection", "INPUT": "Input", "inputtensor": "InputTensor", "sizes": "", "x": "",
	} {
		if got := schema.Suggest(key, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", key, got, want)
		}
	}
}
