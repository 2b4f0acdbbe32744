package parity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/vkdml/vkdml/internal/schema"
)

// UnmarshalJSON reads a case strictly, with the desc reader generated
// from internal/schema's field tables (schema.ReadDesc), as vkdml.run
// reads a desc: a key that is no field of the case's operator (a "stride"
// beside "strides"), one field under two spellings ("input" and
// "InputTensor") or an object where an array goes is refused naming the
// key, with the closest known one. DirectML's names (InputTensor,
// DataType, DML_AXIS_DIRECTION_DECREASING, ...) are read as well as the
// corpus's own.
func (c *Case) UnmarshalJSON(b []byte) error {
	raw, err := schema.ParseJSON(b)
	if err != nil {
		return fmt.Errorf("case: %w", err)
	}
	obj, ok := raw.(*schema.Object)
	if !ok {
		return fmt.Errorf("a case is a JSON object, not %s", b[:min(len(b), 20)])
	}
	where := "case"
	if name, ok := obj.Values["name"].(string); ok {
		where = fmt.Sprintf("case %q", name)
	}
	d, err := schema.ReadDesc(obj, "", schema.CaseKeys)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	fields, err := corpusFields(&d.Values, d.Desc.Fields)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	fields[schema.TypeField.JSONName()] = d.Desc.Type
	for k, v := range d.Extra {
		fields[k] = plain(v)
	}
	canonical, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	// The canonical form holds only the corpus's names; a field of the
	// schema that Case lacks is refused here rather than dropped.
	type plainCase Case
	dec := json.NewDecoder(bytes.NewReader(canonical))
	dec.DisallowUnknownFields()
	var pc plainCase
	if err := dec.Decode(&pc); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	*c = Case(pc)
	return nil
}

// ErrNotInCorpus is a tensor desc field the corpus cannot hold with a
// value other than 0 (zeroOnly).
var ErrNotInCorpus = errors.New("the corpus holds only 0 here")

// zeroOnly are the DML_BUFFER_TENSOR_DESC fields Tensor does not hold: a
// case runs with no flags and no alignment guarantee.
var zeroOnly = []string{"Flags", "GuaranteedBaseOffsetAlignment"}

// corpusFields turns fields read by schema.ReadDesc into the corpus's
// names and values: enums as their names (a number DirectML does not name
// as its decimal string), counts left out (ReadDesc held the arrays to
// them), tensors as Tensor's fields.
func corpusFields(v *schema.Values, table []schema.Field) (map[string]any, error) {
	out := map[string]any{}
	for i := range table {
		f := &table[i]
		val, given := v.Fields[f.Name]
		if !given || isCount(table, f.Name) {
			continue
		}
		switch x := val.(type) {
		case *schema.Values:
			t, err := corpusFields(x, schema.TensorFields)
			if err != nil {
				return nil, err
			}
			out[f.JSONName()] = t
		case uint32:
			switch {
			case f.Enum != nil:
				out[f.JSONName()] = enumName(f.Enum, x)
			case !slices.Contains(zeroOnly, f.Name):
				out[f.JSONName()] = x
			case x != 0:
				return nil, fmt.Errorf("%s: %w (it is %d)", v.Paths[f.Name], ErrNotInCorpus, x)
			}
		default:
			out[f.JSONName()] = x
		}
	}
	return out, nil
}

func isCount(table []schema.Field, name string) bool {
	for _, f := range table {
		if f.Type == schema.UIntArray && f.Count == name {
			return true
		}
	}
	return false
}

func enumName(e *schema.Enum, v uint32) string {
	if int(v) < len(e.Values) {
		return e.Values[v]
	}
	return strconv.FormatUint(uint64(v), 10)
}

// plain turns a parsed JSON value back into encoding/json's terms.
func plain(v any) any {
	switch x := v.(type) {
	case *schema.Object:
		m := map[string]any{}
		for _, k := range x.Keys {
			m[k] = plain(x.Values[k])
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}
