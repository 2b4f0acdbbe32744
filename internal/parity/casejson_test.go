package parity

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/schema"
)

// corpusDir is the committed corpus, from this package's folder.
const corpusDir = "../../tests/parity"

// corpusLines are the committed corpus's cases, one JSON object each.
func corpusLines(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []json.RawMessage }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	lines := make([][]byte, len(doc.Cases))
	for i, c := range doc.Cases {
		lines[i] = c
	}
	return lines
}

// TestCorpusReadsAsBefore: the strict reader gives every committed case
// exactly what encoding/json's lenient decoding of Case gives.
func TestCorpusReadsAsBefore(t *testing.T) {
	type lenient Case
	for _, line := range corpusLines(t) {
		var strict Case
		var want lenient
		if err := json.Unmarshal(line, &strict); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(strict, Case(want)) {
			t.Errorf("%s:\n strict  %+v\n lenient %+v", strict.Name, strict, want)
		}
	}
	if _, err := LoadCorpus(corpusDir); err != nil {
		t.Fatal(err)
	}
}

// A case of each family: ARGMAX (the reductions), MAX_POOLING2 (max
// pooling), MAX_UNPOOLING, each with every key its operator holds.
var familyCases = map[string]string{
	"ARGMAX":        `{"name":"a","covers":["x"],"operator":"ARGMAX","input":{"dataType":"FLOAT32","sizes":[2,3],"strides":[3,1],"totalTensorSizeInBytes":24},"output":{"dataType":"UINT32","sizes":[2,1],"totalTensorSizeInBytes":8},"axes":[1],"axisDirection":"DECREASING","expect":"S_OK"}`,
	"REDUCE":        `{"name":"r","covers":["x"],"operator":"REDUCE","reduceFunction":"ARGMIN","input":{"dataType":"INT8","sizes":[4],"totalTensorSizeInBytes":4},"output":{"dataType":"INT64","sizes":[1],"totalTensorSizeInBytes":8},"axes":[0],"expect":"S_OK"}`,
	"MAX_POOLING2":  `{"name":"p","covers":["x"],"operator":"MAX_POOLING2","input":{"dataType":"FLOAT16","sizes":[1,1,4,4],"totalTensorSizeInBytes":32},"output":{"dataType":"FLOAT16","sizes":[1,1,2,2],"totalTensorSizeInBytes":8},"outputIndices":{"dataType":"UINT32","sizes":[1,1,2,2],"totalTensorSizeInBytes":16},"strides":[2,2],"windowSize":[2,2],"startPadding":[0,0],"endPadding":[0,0],"dilations":[1,1],"expect":"S_OK"}`,
	"MAX_UNPOOLING": `{"name":"u","covers":["x"],"operator":"MAX_UNPOOLING","input":{"dataType":"FLOAT32","sizes":[1,1,1,2],"totalTensorSizeInBytes":8},"indices":{"dataType":"UINT32","sizes":[1,1,1,2],"totalTensorSizeInBytes":8},"output":{"dataType":"FLOAT32","sizes":[1,1,2,2],"totalTensorSizeInBytes":16},"expect":"S_OK"}`,
}

// misspell returns wrong spellings of key: its last letter dropped, an
// "s" added, two letters swapped, and all in upper case.
func misspell(key string) []string {
	out := []string{key[:len(key)-1], key + "s", strings.ToUpper(key)}
	if len(key) > 3 {
		out = append(out, key[:1]+key[2:3]+key[1:2]+key[3:])
	}
	return out
}

// objectMap decodes a case line as nested maps.
func objectMap(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func decodeCase(t *testing.T, m map[string]any) (*Case, error) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var c Case
	return &c, json.Unmarshal(b, &c)
}

// renamed returns a copy of m with key old (at path, a tensor's key when
// tensor is set) renamed to new.
func renamed(m map[string]any, tensor, old, new string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	target := out
	if tensor != "" {
		t := map[string]any{}
		for k, v := range out[tensor].(map[string]any) {
			t[k] = v
		}
		out[tensor], target = t, t
	}
	target[new] = target[old]
	delete(target, old)
	return out
}

// spellingsOf are the spellings of the field (of the operator's table or
// TensorFields) that key spells.
func spellingsOf(d *schema.Desc, tensor bool, key string) []string {
	table := d.Fields
	if tensor {
		table = schema.TensorFields
	}
	for _, f := range table {
		if slices.Contains(f.Spellings(), key) {
			return f.Spellings()
		}
	}
	return nil
}

// TestCaseMisspelledKeys: every key of one operator of each family, and
// every key of its tensors, misspelled, is refused with ErrUnknownKey,
// its path and a suggestion that spells the same field.
func TestCaseMisspelledKeys(t *testing.T) {
	for op, line := range familyCases {
		d, _ := schema.Lookup(op)
		base := objectMap(t, line)
		if _, err := decodeCase(t, base); err != nil {
			t.Fatalf("%s: the well-spelled case: %v", op, err)
		}
		tried := 0
		for key, val := range base {
			spellings := spellingsOf(d, false, key)
			if spellings == nil {
				continue // name, covers, operator, ...
			}
			for _, bad := range misspell(key) {
				checkMisspelled(t, op, renamed(base, "", key, bad), bad, spellings)
				tried++
			}
			tm, isTensor := val.(map[string]any)
			if !isTensor {
				continue
			}
			for tkey := range tm {
				for _, bad := range misspell(tkey) {
					checkMisspelled(t, op, renamed(base, key, tkey, bad), key+"."+bad, spellingsOf(d, true, tkey))
					tried++
				}
			}
		}
		t.Logf("%s: %d misspellings refused", op, tried)
	}
}

func checkMisspelled(t *testing.T, op string, m map[string]any, path string, spellings []string) {
	t.Helper()
	_, err := decodeCase(t, m)
	if !errors.Is(err, schema.ErrUnknownKey) {
		t.Errorf("%s: %s: got %v, want ErrUnknownKey", op, path, err)
		return
	}
	msg := err.Error()
	if !strings.Contains(msg, path+": unknown key") {
		t.Errorf("%s: %s: the message does not name the key: %s", op, path, msg)
	}
	ok := false
	for _, s := range spellings {
		ok = ok || strings.Contains(msg, `did you mean "`+s+`"?`)
	}
	if !ok {
		t.Errorf("%s: %s: the message suggests none of %v: %s", op, path, spellings, msg)
	}
}

// TestCaseRefusals: two spellings of one field, a key written twice, an
// object where an array goes, a stray key given null, values out of range.
func TestCaseRefusals(t *testing.T) {
	argmax := familyCases["ARGMAX"]
	for _, c := range []struct {
		name, line, want string
		is               error
	}{
		{"input twice", strings.Replace(argmax, `"axes"`, `"InputTensor":{"DataType":"FLOAT32","Sizes":[2,3]},"axes"`, 1),
			`InputTensor: InputTensor is given twice, as "input" and as "InputTensor"`, schema.ErrTwoSpellings},
		{"axes twice", strings.Replace(argmax, `"axes":[1]`, `"axes":[1],"Axes":[0]`, 1), `Axes: Axes is given twice`, schema.ErrTwoSpellings},
		{"strides twice", strings.Replace(argmax, `"strides":[3,1]`, `"strides":[3,1],"Strides":[1,2]`, 1),
			`input.Strides: Strides is given twice, as "strides" and as "Strides"`, schema.ErrTwoSpellings},
		{"operator twice", strings.Replace(argmax, `"operator":"ARGMAX"`, `"operator":"ARGMAX","type":"ARGMIN"`, 1),
			`type: the operator type is given twice`, schema.ErrTwoSpellings},
		{"same key twice", strings.Replace(argmax, `"axes":[1]`, `"axes":[1],"axes":[0]`, 1), `axes: written twice`, schema.ErrTwoSpellings},
		{"stride", strings.Replace(argmax, `"strides"`, `"stride"`, 1), `input.stride: unknown key for InputTensor (DML_BUFFER_TENSOR_DESC) (it holds DataType, Flags, DimensionCount, Sizes, Strides, TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment); did you mean "strides"?`, schema.ErrUnknownKey},
		{"AxisDirecton", strings.Replace(argmax, `"axisDirection"`, `"AxisDirecton"`, 1), `AxisDirecton: unknown key for ARGMAX's desc`, schema.ErrUnknownKey},
		{"stray null", strings.Replace(argmax, `"axes"`, `"axess":null,"axes"`, 1), `axess: unknown key`, schema.ErrUnknownKey},
		{"null stray key in a tensor", strings.Replace(argmax, `"sizes":[2,3]`, `"sizes":[2,3],"axes":null`, 1), `input.axes: unknown key`, schema.ErrUnknownKey},
		{"pooling key on argmax", strings.Replace(argmax, `"axes"`, `"windowSize":[2],"axes"`, 1), `windowSize: unknown key for ARGMAX's desc`, schema.ErrUnknownKey},
		{"axes as object", strings.Replace(argmax, `"axes":[1]`, `"axes":{"1":1}`, 1), `axes: is an object, which has no order`, schema.ErrBadValue},
		{"sizes as object", strings.Replace(argmax, `"sizes":[2,3]`, `"sizes":{"a":2,"b":3}`, 1), `input.sizes: is an object`, schema.ErrBadValue},
		{"size 2^32", strings.Replace(argmax, `"sizes":[2,3]`, `"sizes":[2,4294967296]`, 1), `input.sizes[1]: 4294967296 is not an integer in [0, 4294967295]`, schema.ErrBadValue},
		{"negative axis", strings.Replace(argmax, `"axes":[1]`, `"axes":[-1]`, 1), `axes[0]: -1 is not an integer`, schema.ErrBadValue},
		{"direction", strings.Replace(argmax, `"DECREASING"`, `"SIDEWAYS"`, 1), `axisDirection: "SIDEWAYS" is not one of INCREASING, DECREASING (DML_AXIS_DIRECTION)`, schema.ErrBadValue},
		{"operator", strings.Replace(argmax, `"ARGMAX"`, `"CONVOLUTION"`, 1), `operator: "CONVOLUTION" is not one of ARGMAX, ARGMIN`, schema.ErrBadValue},
		{"count disagrees", strings.Replace(argmax, `"axes":[1]`, `"axes":[1],"AxisCount":2`, 1), `axes: has 1 entries; AxisCount says 2`, schema.ErrBadValue},
		{"strides length", strings.Replace(argmax, `"strides":[3,1]`, `"strides":[3]`, 1), `input.strides: has 1 entries; sizes says 2`, schema.ErrBadValue},
		{"no output", strings.Replace(argmax, `"output":{"dataType":"UINT32","sizes":[2,1],"totalTensorSizeInBytes":8},`, ``, 1),
			`OutputTensor: is required (as OutputTensor or Output or output)`, schema.ErrBadValue},
		{"no data type", strings.Replace(argmax, `"dataType":"UINT32",`, ``, 1), `output.DataType: is required`, schema.ErrBadValue},
		{"no window", strings.Replace(familyCases["MAX_POOLING2"], `"windowSize":[2,2],`, ``, 1),
			`WindowSize: is required: strides says 2 entries`, schema.ErrBadValue},
		{"pooling arrays disagree", strings.Replace(familyCases["MAX_POOLING2"], `"dilations":[1,1]`, `"dilations":[1,1,1]`, 1),
			`dilations: has 3 entries; strides says 2`, schema.ErrBadValue},
		{"flags", strings.Replace(argmax, `"dataType":"FLOAT32"`, `"dataType":"FLOAT32","Flags":1`, 1), `input.Flags: the corpus holds only 0 here (it is 1)`, ErrNotInCorpus},
	} {
		var cs Case
		err := json.Unmarshal([]byte(c.line), &cs)
		if !errors.Is(err, c.is) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want %v with %q", c.name, err, c.is, c.want)
		}
	}
}

// TestCaseDirectMLSpellings: a case in DirectML's names and enum names,
// with counts and a zero Flags, reads as the corpus's spelling does.
func TestCaseDirectMLSpellings(t *testing.T) {
	for _, c := range []struct{ corpus, dml string }{
		{familyCases["ARGMAX"], `{"name":"a","covers":["x"],"Type":"DML_OPERATOR_ARGMAX","InputTensor":{"DataType":"DML_TENSOR_DATA_TYPE_FLOAT32","Flags":0,"DimensionCount":2,"Sizes":[2,3],"Strides":[3,1],"TotalTensorSizeInBytes":24,"GuaranteedBaseOffsetAlignment":0},"Output":{"DataType":3,"Sizes":[2,1],"TotalTensorSizeInBytes":8},"AxisCount":1,"Axes":[1],"AxisDirection":"DML_AXIS_DIRECTION_DECREASING","expect":"S_OK"}`},
		{familyCases["REDUCE"], `{"name":"r","covers":["x"],"type":"reduce","Function":"DML_REDUCE_FUNCTION_ARGMIN","InputTensor":{"DataType":"int8","Sizes":[4],"TotalTensorSizeInBytes":4},"OutputTensor":{"DataType":"INT64","Sizes":[1],"TotalTensorSizeInBytes":8},"Axes":[0],"expect":"S_OK"}`},
		{familyCases["MAX_UNPOOLING"], `{"name":"u","covers":["x"],"Type":"MAX_UNPOOLING","InputTensor":{"DataType":"FLOAT32","Sizes":[1,1,1,2],"TotalTensorSizeInBytes":8},"IndicesTensor":{"DataType":"UINT32","Sizes":[1,1,1,2],"TotalTensorSizeInBytes":8},"OutputTensor":{"DataType":"FLOAT32","Sizes":[1,1,2,2],"TotalTensorSizeInBytes":16},"expect":"S_OK"}`},
	} {
		var want, got Case
		if err := json.Unmarshal([]byte(c.corpus), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.dml), &got); err != nil {
			t.Fatalf("%s: %v", c.dml, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.dml, got, want)
		}
	}
}

// TestCaseRoundTrip: a saved corpus reads back as it was.
func TestCaseRoundTrip(t *testing.T) {
	c, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Error("the corpus differs after Save and LoadCorpus")
	}
	a, _ := os.ReadFile(filepath.Join(corpusDir, ManifestFile))
	b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if !bytes.Equal(a, b) {
		t.Error("Save does not write the committed corpus back byte for byte")
	}
}
