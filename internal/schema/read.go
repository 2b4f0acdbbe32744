package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The desc-as-data reader: a JSON object naming an operator and its
// fields, as the parity corpus and vkdml.run take them, read strictly by
// the field tables above so that a key it does not know can never run as
// if absent. python/vkdml/_raw.py is its Python twin over the same tables
// (python/vkdml/_schema.py, generated from them); both accept the same
// spellings and refuse the same mistakes.

// The reader's errors, for errors.Is; each comes as a *KeyError naming
// the key.
var (
	// ErrUnknownKey: a key that names no field of the desc (or tensor).
	ErrUnknownKey = errors.New("unknown key")
	// ErrTwoSpellings: one field given twice, under two spellings or the
	// same key written twice.
	ErrTwoSpellings = errors.New("field given twice")
	// ErrBadValue: a value of the wrong kind or out of range.
	ErrBadValue = errors.New("bad value")
)

// KeyError is a refused key or value, with its path in the desc.
type KeyError struct {
	// Path is the key's place: desc.InputTensor.strides, or
	// input.stride when the root is unnamed.
	Path string
	// Err is ErrUnknownKey, ErrTwoSpellings or ErrBadValue.
	Err error
	// Why says what is wrong and, for an unknown key, what is known.
	Why string
}

func (e *KeyError) Error() string { return e.Path + ": " + e.Why }
func (e *KeyError) Unwrap() error { return e.Err }

// Object is a JSON object as read: its keys in order, each once.
type Object struct {
	Keys   []string
	Values map[string]any
}

// ParseJSON reads one JSON value: an object as an *Object (a key written
// twice is an error, where encoding/json keeps the last), an array as
// []any, a number as json.Number, and strings, booleans and null as
// encoding/json does.
func ParseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("JSON value followed by more data")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := &Object{Values: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			kp := join(path, k)
			if _, dup := obj.Values[k]; dup {
				return nil, &KeyError{Path: kp, Err: ErrTwoSpellings, Why: "written twice in one object"}
			}
			v, err := parseValue(dec, kp)
			if err != nil {
				return nil, err
			}
			obj.Keys = append(obj.Keys, k)
			obj.Values[k] = v
		}
		_, err := dec.Token() // '}'
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := parseValue(dec, fmt.Sprintf("%s[%d]", path, len(arr)))
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token() // ']'
		return arr, err
	}
	return tok, nil
}

// join is path.key, or key at an unnamed root.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Values are a desc's or a tensor's fields as read.
type Values struct {
	// Fields holds each field given a value other than null, by
	// DirectML's name: *Values for a tensor, uint32 for a UInt (an enum's
	// number), uint64 for a UInt64, []uint32 for a UIntArray (empty, not
	// nil, for []).
	Fields map[string]any
	// Paths names each field given, null included, by the key that gave
	// it: desc.InputTensor.strides.
	Paths map[string]string
}

// DescValues is a desc as read.
type DescValues struct {
	Desc *Desc
	Values
	// Extra holds the extra keys given (ReadDesc's extra), as parsed.
	Extra map[string]any
}

// ReadDesc reads obj as a desc: the operator under a spelling of
// TypeField, each field under one of its Spellings, each tensor with
// TensorFields, enums as their names (with or without DirectML's prefix,
// any case), as numbers or as decimal strings. Keys in extra are taken as
// they are. A key naming a field of another operator may be given null
// (absent), as the corpus writes axes for every operator. root names obj
// in paths ("desc"; "" for none).
func ReadDesc(obj *Object, root string, extra []string) (*DescValues, error) {
	typeKey, typeName := "", ""
	for _, k := range obj.Keys {
		if !slices.Contains(TypeField.Spellings(), k) {
			continue
		}
		if typeKey != "" {
			return nil, twice(join(root, k), "the operator type", typeKey, k)
		}
		s, ok := obj.Values[k].(string)
		d, found := lookupOperator(s)
		if !ok || !found {
			return nil, &KeyError{Path: join(root, k), Err: ErrBadValue,
				Why: fmt.Sprintf("%s is not one of %s", describe(obj.Values[k]), strings.Join(OperatorTypes(), ", "))}
		}
		typeKey, typeName = k, d.Type
	}
	if typeKey == "" {
		return nil, &KeyError{Path: join(root, TypeField.Spellings()[2]), Err: ErrBadValue,
			Why: fmt.Sprintf("no operator type: give it as %s", strings.Join(TypeField.Spellings(), ", or "))}
	}
	d, _ := Lookup(typeName)
	dv := &DescValues{Desc: d, Extra: map[string]any{}}
	skip := append(append([]string{}, extra...), TypeField.Spellings()...)
	rest := &Object{Values: obj.Values}
	for _, k := range obj.Keys {
		switch {
		case slices.Contains(extra, k):
			dv.Extra[k] = obj.Values[k]
		case !slices.Contains(skip, k):
			rest.Keys = append(rest.Keys, k)
		}
	}
	v, err := readFields(rest, root, d.Fields, d.Type+"'s desc", skip, true)
	if err != nil {
		return nil, err
	}
	dv.Values = *v
	return dv, nil
}

// OperatorTypes are the Types a desc as data may name: the descs libvkdml
// offers.
func OperatorTypes() []string {
	var out []string
	for _, d := range Descs {
		if d.C != nil {
			out = append(out, d.Type)
		}
	}
	return out
}

func lookupOperator(s string) (*Desc, bool) {
	s = strings.TrimPrefix(strings.ToUpper(s), OperatorPrefix)
	d, ok := Lookup(s)
	return d, ok && d.C != nil
}

// readFields reads obj's keys as the fields of table (what names it in
// messages; also, the keys suggested besides the table's). A desc
// (isDesc) lets another operator's field through as null.
func readFields(obj *Object, path string, table []Field, what string, also []string, isDesc bool) (*Values, error) {
	bySpelling := map[string]*Field{}
	var known []string
	for i := range table {
		for _, s := range table[i].Spellings() {
			bySpelling[s] = &table[i]
			known = append(known, s)
		}
	}
	v := &Values{Fields: map[string]any{}, Paths: map[string]string{}}
	keyOf := map[string]string{}
	for _, k := range obj.Keys {
		kp := join(path, k)
		f := bySpelling[k]
		if f == nil {
			if isDesc && obj.Values[k] == nil && otherOperatorsField(k) {
				continue
			}
			why := fmt.Sprintf("unknown key for %s (it holds %s)", what, strings.Join(fieldNames(table), ", "))
			if s := Suggest(k, append(known, also...)); s != "" {
				why += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, &KeyError{Path: kp, Err: ErrUnknownKey, Why: why}
		}
		if first, dup := keyOf[f.Name]; dup {
			return nil, twice(kp, f.Name, first, k)
		}
		keyOf[f.Name] = k
		v.Paths[f.Name] = kp
		if obj.Values[k] == nil {
			continue
		}
		val, err := readValue(f, obj.Values[k], kp)
		if err != nil {
			return nil, err
		}
		v.Fields[f.Name] = val
	}
	if err := checkRequired(v, path, table); err != nil {
		return nil, err
	}
	return v, checkCounts(v, path, table)
}

func twice(path, field, first, second string) error {
	why := fmt.Sprintf("%s is given twice, as %q and as %q; give it once", field, first, second)
	if first == second {
		why = "written twice in one object"
	}
	return &KeyError{Path: path, Err: ErrTwoSpellings, Why: why}
}

// otherOperatorsField reports whether key spells a field of any desc.
func otherOperatorsField(key string) bool {
	for _, d := range Descs {
		for _, f := range d.Fields {
			if slices.Contains(f.Spellings(), key) {
				return true
			}
		}
	}
	return false
}

func fieldNames(table []Field) []string {
	out := make([]string, len(table))
	for i, f := range table {
		out[i] = f.Name
	}
	return out
}

func readValue(f *Field, raw any, path string) (any, error) {
	bad := func(format string, args ...any) error {
		return &KeyError{Path: path, Err: ErrBadValue, Why: fmt.Sprintf(format, args...)}
	}
	switch {
	case f.IsTensor():
		obj, ok := raw.(*Object)
		if !ok {
			return nil, bad("%s is not a tensor desc (an object of DML_BUFFER_TENSOR_DESC's fields)", describe(raw))
		}
		return readFields(obj, path, TensorFields, f.Name+" (DML_BUFFER_TENSOR_DESC)", nil, false)
	case f.Enum != nil:
		return readEnum(f.Enum, raw, path)
	case f.Type == UInt:
		n, err := readUint(raw, path, math.MaxUint32)
		return uint32(n), err
	case f.Type == UInt64:
		return readUint(raw, path, math.MaxUint64)
	case f.Type == UIntArray:
		arr, ok := raw.([]any)
		if !ok {
			if _, obj := raw.(*Object); obj {
				return nil, bad("is an object, which has no order; give an array of integers")
			}
			return nil, bad("%s is not an array of integers", describe(raw))
		}
		out := make([]uint32, len(arr))
		for i, e := range arr {
			n, err := readUint(e, fmt.Sprintf("%s[%d]", path, i), math.MaxUint32)
			if err != nil {
				return nil, err
			}
			out[i] = uint32(n)
		}
		return out, nil
	}
	return nil, bad("field type %d has no reader", f.Type)
}

func readUint(raw any, path string, limit uint64) (uint64, error) {
	num, ok := raw.(json.Number)
	n, err := strconv.ParseUint(string(num), 10, 64)
	if !ok || err != nil || n > limit {
		return 0, &KeyError{Path: path, Err: ErrBadValue,
			Why: fmt.Sprintf("%s is not an integer in [0, %d]", describe(raw), limit)}
	}
	return n, nil
}

// readEnum reads an enum's value: a name (any case, DirectML's prefix
// optional), a number, or a number as a decimal string.
func readEnum(e *Enum, raw any, path string) (uint32, error) {
	if s, ok := raw.(string); ok {
		name := strings.TrimPrefix(strings.ToUpper(s), e.Prefix())
		if i := slices.Index(e.Values, name); i >= 0 {
			return uint32(i), nil
		}
		if n, err := strconv.ParseUint(s, 10, 32); err == nil {
			return uint32(n), nil
		}
		return 0, &KeyError{Path: path, Err: ErrBadValue,
			Why: fmt.Sprintf("%q is not one of %s (%s), with or without %s", s, strings.Join(e.Values, ", "), e.DML, e.Prefix())}
	}
	n, err := readUint(raw, path, math.MaxUint32)
	return uint32(n), err
}

// checkCounts holds the arrays given to the counts they share: to the
// count field when given, else to the first of them given; an array left
// out (or null) whose count is not 0 must be Optional.
func checkCounts(v *Values, path string, table []Field) error {
	for _, c := range table {
		if !isCountIn(table, c.Name) {
			continue
		}
		want, given := v.Fields[c.Name].(uint32)
		wantFrom := keyName(pathOf(v, path, c.Name))
		var missing []string
		for _, f := range table {
			if f.Type != UIntArray || f.Count != c.Name {
				continue
			}
			arr, ok := v.Fields[f.Name].([]uint32)
			switch {
			case !ok && !f.Optional:
				missing = append(missing, f.Name)
			case !ok:
			case !given:
				want, given, wantFrom = uint32(len(arr)), true, keyName(pathOf(v, path, f.Name))
			case uint32(len(arr)) != want:
				return &KeyError{Path: pathOf(v, path, f.Name), Err: ErrBadValue,
					Why: fmt.Sprintf("has %d entries; %s says %d", len(arr), wantFrom, want)}
			}
		}
		if len(missing) > 0 && want != 0 {
			return &KeyError{Path: pathOf(v, path, missing[0]), Err: ErrBadValue,
				Why: fmt.Sprintf("is required: %s says %d entries", wantFrom, want)}
		}
	}
	return nil
}

// checkRequired refuses a tensor or number left out (or null) that is not
// Optional; counts may be left out (the arrays give them), and arrays are
// checkCounts'.
func checkRequired(v *Values, path string, table []Field) error {
	for _, f := range table {
		if _, ok := v.Fields[f.Name]; ok || f.Optional || f.Type == UIntArray || isCountIn(table, f.Name) {
			continue
		}
		return &KeyError{Path: pathOf(v, path, f.Name), Err: ErrBadValue,
			Why: fmt.Sprintf("is required (as %s)", strings.Join(f.Spellings(), " or "))}
	}
	return nil
}

func isCountIn(table []Field, name string) bool {
	return slices.ContainsFunc(table, func(f Field) bool { return f.Type == UIntArray && f.Count == name })
}

// pathOf is the path of field name as given, or under its DirectML name.
func pathOf(v *Values, path, name string) string {
	if p, ok := v.Paths[name]; ok {
		return p
	}
	return join(path, name)
}

// keyName is the last key of path.
func keyName(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// describe names a parsed JSON value for a message.
func describe(raw any) string {
	switch x := raw.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case *Object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%v", raw)
}
