package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
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

// sharedFixtures are testdata/descs.json: descs both readers (this one and
// vkdml.run's, python/tests/test_run_strict.py) must accept, or refuse at
// the same key with the same kind of error and suggestion.
type sharedFixtures struct {
	Accepted []struct {
		What string
		Desc json.RawMessage
	}
	Refused []struct {
		What, Path, Error, Suggest string
		Desc                       json.RawMessage
	}
}

func TestSharedFixtures(t *testing.T) {
	b, err := os.ReadFile("testdata/descs.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx sharedFixtures
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	read := func(desc json.RawMessage) error {
		raw, err := schema.ParseJSON(desc)
		if err != nil {
			return err
		}
		_, err = schema.ReadDesc(raw.(*schema.Object), "desc", schema.CaseKeys)
		return err
	}
	for _, c := range fx.Accepted {
		if err := read(c.Desc); err != nil {
			t.Errorf("%s: %v", c.What, err)
		}
	}
	sentinels := map[string]error{"unknown key": schema.ErrUnknownKey, "given twice": schema.ErrTwoSpellings,
		"bad value": schema.ErrBadValue}
	for _, c := range fx.Refused {
		err := read(c.Desc)
		var ke *schema.KeyError
		if !errors.As(err, &ke) || !errors.Is(err, sentinels[c.Error]) || ke.Path != c.Path {
			t.Errorf("%s: got %v; want %s at %s", c.What, err, c.Error, c.Path)
			continue
		}
		if c.Suggest != "" && !strings.Contains(ke.Why, fmt.Sprintf("did you mean %q?", c.Suggest)) {
			t.Errorf("%s: %v does not suggest %q", c.What, err, c.Suggest)
		}
	}
	if len(fx.Accepted) < 5 || len(fx.Refused) < 20 {
		t.Errorf("%d accepted and %d refused fixtures: testdata/descs.json is cut short", len(fx.Accepted), len(fx.Refused))
	}
}
