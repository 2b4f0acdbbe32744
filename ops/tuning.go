package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// Tuning overrides knobs of the device-class tuning (the tuning struct in
// layout.go, which stays the one place device-specific choices live) by
// name, without rebuilding: what a VKDML_TUNING file and `vkdml bench
// --tune key=value` give, carried to the planners by Context.Tuning. Keys
// are the struct's field names (TuningKeys); values are canonical text
// (ParseTuning checks both).
type Tuning map[string]string

// TuningKeys lists the knobs Tuning may set, sorted.
func TuningKeys() []string {
	t := reflect.TypeOf(tuning{})
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i] = t.Field(i).Name
	}
	sort.Strings(keys)
	return keys
}

// tuningField is the field of tuning called key.
func tuningField(key string) (reflect.StructField, error) {
	f, ok := reflect.TypeOf(tuning{}).FieldByName(key)
	if !ok {
		return f, fmt.Errorf("tuning: unknown knob %q (knobs: %s)", key, strings.Join(TuningKeys(), ", "))
	}
	return f, nil
}

// canonical checks value against key's type and returns it as Tuning
// stores it.
func canonical(key, value string) (string, error) {
	f, err := tuningField(key)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(value)
	switch f.Type.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("tuning: %s=%q: want true or false", key, value)
		}
		return strconv.FormatBool(b), nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(v, 0, f.Type.Bits())
		if err != nil {
			return "", fmt.Errorf("tuning: %s=%q: want an integer in [0, %d]", key, value, uint64(1)<<f.Type.Bits()-1)
		}
		return strconv.FormatUint(n, 10), nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		n, err := strconv.ParseInt(v, 0, f.Type.Bits())
		if err != nil {
			return "", fmt.Errorf("tuning: %s=%q: want a %d-bit integer", key, value, f.Type.Bits())
		}
		return strconv.FormatInt(n, 10), nil
	}
	return "", fmt.Errorf("tuning: knob %s has type %s, which tuning overrides do not handle", key, f.Type)
}

// ParseTuning checks key=value pairs (as --tune gives them, one per
// string) and returns them as a Tuning; a later pair of the same key wins.
func ParseTuning(pairs []string) (Tuning, error) {
	t := Tuning{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("tuning: %q is not key=value", p)
		}
		c, err := canonical(strings.TrimSpace(k), v)
		if err != nil {
			return nil, err
		}
		t[strings.TrimSpace(k)] = c
	}
	return t, nil
}

// ParseTuningJSON reads a tuning file: one JSON object of knob names and
// their values (numbers or booleans), as a sweep writes it.
func ParseTuningJSON(data []byte) (Tuning, error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("tuning: %w", err)
	}
	t := Tuning{}
	for k, raw := range m {
		v := string(bytes.TrimSpace(raw))
		if strings.HasPrefix(v, `"`) {
			return nil, fmt.Errorf("tuning: %s: %s is a string; want a number or a boolean", k, v)
		}
		c, err := canonical(k, v)
		if err != nil {
			return nil, err
		}
		t[k] = c
	}
	return t, nil
}

// With returns t with o's knobs set over it.
func (t Tuning) With(o Tuning) Tuning {
	out := Tuning{}
	for k, v := range t {
		out[k] = v
	}
	for k, v := range o {
		out[k] = v
	}
	return out
}

// tuning returns the device-class tuning of ctx's device type with
// ctx.Tuning's knobs set over it (a copy: the class tables never change).
func (ctx *Context) tuning() *tuning {
	base := tuningFor(ctx.DeviceType)
	if len(ctx.Tuning) == 0 {
		return base
	}
	t := *base
	v := reflect.ValueOf(&t).Elem()
	for k, s := range ctx.Tuning {
		f := v.FieldByName(k)
		if !f.IsValid() {
			continue // ParseTuning admits known knobs only
		}
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		switch f.Kind() {
		case reflect.Bool:
			b, _ := strconv.ParseBool(s)
			f.SetBool(b)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, _ := strconv.ParseUint(s, 10, 64)
			f.SetUint(n)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
			n, _ := strconv.ParseInt(s, 10, 64)
			f.SetInt(n)
		}
	}
	return &t
}

// TuningOf is every knob of the tuning ctx plans with, by name: the
// device class's values with ctx.Tuning's over them (for bench's and
// plan's JSON, so that a result names the tuning it was measured with).
func TuningOf(ctx *Context) map[string]any {
	v := reflect.ValueOf(ctx.tuning()).Elem()
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			out[v.Type().Field(i).Name] = f.Bool()
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[v.Type().Field(i).Name] = f.Uint()
		default:
			out[v.Type().Field(i).Name] = f.Int()
		}
	}
	return out
}

// Check reports the first knob of t that ParseTuning would refuse: t may
// be built by hand rather than parsed.
func (t Tuning) Check() error {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := canonical(k, t[k]); err != nil {
			return err
		}
	}
	return nil
}
