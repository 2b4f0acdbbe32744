package testutil

import (
	"fmt"
	"strconv"

	"github.com/vkdml/vkdml/ops"
)

// BadKnob is a value a tuning knob must refuse on every surface (Go
// API, --tune, $VKDML_TUNING, Python), and what the error must say: the
// knob, the value and the knob's range.
type BadKnob struct {
	Key, Value, Want string
	// JSON is Value as a tuning file writes it: a number, or a bare
	// word that is no JSON value (a file has no negative-as-string form).
	JSON string
}

// BadTuning lists, for every integer knob, -1, its maximum + 1, 0 and
// its minimum - 1 where its range starts above 0, and a value between
// two of a list's values; for every boolean knob, 2.
func BadTuning() []BadKnob {
	var out []BadKnob
	for _, k := range ops.TuningKeys() {
		r, ok := ops.TuningRange(k)
		if !ok {
			out = append(out, BadKnob{Key: k, Value: "2", JSON: "2", Want: fmt.Sprintf("%s=%q: want true or false", k, "2")})
			continue
		}
		vals := []string{"-1", strconv.FormatUint(r.Max+1, 10)}
		if r.Min > 0 {
			vals = append(vals, "0")
			if r.Min > 1 {
				vals = append(vals, strconv.FormatUint(r.Min-1, 10))
			}
		}
		for i := 1; i < len(r.Values); i++ {
			if r.Values[i] > r.Values[i-1]+1 {
				vals = append(vals, strconv.FormatUint(r.Values[i-1]+1, 10))
			}
		}
		for _, v := range vals {
			out = append(out, BadKnob{Key: k, Value: v, JSON: v, Want: fmt.Sprintf("%s=%q: want %s", k, v, r)})
		}
	}
	return out
}
