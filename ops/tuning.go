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

// KnobRange is the values an integer knob may take, from its `tune` tag
// in the tuning struct (layout.go): "MIN..MAX" (inclusive) or a list
// "A,B,C". Each knob's comment there says why its range is what it is.
type KnobRange struct {
	Min, Max uint64
	Values   []uint64 // when not nil, the only values allowed (ascending)
}

// TuningRange is the range of integer knob key; ok is false for a
// boolean knob or an unknown key.
func TuningRange(key string) (r KnobRange, ok bool) {
	f, err := tuningField(key)
	if err != nil || f.Type.Kind() == reflect.Bool {
		return r, false
	}
	r, err = rangeOf(f)
	return r, err == nil
}

// rangeOf is the range of integer knob f.
func rangeOf(f reflect.StructField) (KnobRange, error) {
	tag, ok := f.Tag.Lookup("tune")
	if !ok {
		return KnobRange{}, fmt.Errorf("tuning: knob %s has no range (a `tune` tag)", f.Name)
	}
	parse := func(s string) (uint64, error) { return strconv.ParseUint(s, 10, f.Type.Bits()) }
	if lo, hi, ok := strings.Cut(tag, ".."); ok {
		l, err1 := parse(lo)
		h, err2 := parse(hi)
		if err1 != nil || err2 != nil || l > h {
			return KnobRange{}, fmt.Errorf("tuning: knob %s has a malformed range %q", f.Name, tag)
		}
		return KnobRange{Min: l, Max: h}, nil
	}
	var r KnobRange
	for i, s := range strings.Split(tag, ",") {
		n, err := parse(s)
		if err != nil || i > 0 && n <= r.Max {
			return KnobRange{}, fmt.Errorf("tuning: knob %s has a malformed value list %q (ascending integers)", f.Name, tag)
		}
		if i == 0 {
			r.Min = n
		}
		r.Max = n
		r.Values = append(r.Values, n)
	}
	return r, nil
}

// Contains reports whether n is in r.
func (r KnobRange) Contains(n uint64) bool {
	if r.Values == nil {
		return r.Min <= n && n <= r.Max
	}
	for _, v := range r.Values {
		if n == v {
			return true
		}
	}
	return false
}

// String is the range as an error states it: "an integer in [1, 1024]"
// or "one of 0, 1, 4".
func (r KnobRange) String() string {
	if r.Values == nil {
		return fmt.Sprintf("an integer in [%d, %d]", r.Min, r.Max)
	}
	s := make([]string, len(r.Values))
	for i, v := range r.Values {
		s[i] = strconv.FormatUint(v, 10)
	}
	return "one of " + strings.Join(s, ", ")
}

// canonical checks value against key's type and range and returns it as
// Tuning stores it.
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
		r, err := rangeOf(f)
		if err != nil {
			return "", err
		}
		n, err := strconv.ParseUint(v, 0, f.Type.Bits())
		if err != nil || !r.Contains(n) {
			return "", fmt.Errorf("tuning: %s=%q: want %s", key, value, r)
		}
		return strconv.FormatUint(n, 10), nil
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
	for k, raw := range ctx.Tuning {
		f := v.FieldByName(k)
		s, err := canonical(k, raw)
		if !f.IsValid() || err != nil {
			// Every surface (ParseTuning, ParseTuningJSON, Check) refuses
			// these; a Context built by hand keeps the class's value, so
			// that no planner sees a knob out of its range.
			continue
		}
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		switch f.Kind() {
		case reflect.Bool:
			b, _ := strconv.ParseBool(s)
			f.SetBool(b)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, _ := strconv.ParseUint(s, 10, 64)
			f.SetUint(n)
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
