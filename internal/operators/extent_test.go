package operators

import (
	"errors"
	"strings"
	"testing"
)

// TestPoolExtentErrors: an output extent of 0 and one above 2^32-1 are
// both usage errors, each saying what happened.
func TestPoolExtentErrors(t *testing.T) {
	for _, c := range []struct {
		name               string
		in, w, s, a, b, dl uint32
		want               string
	}{
		{"window over the padded input", 3, 5, 1, 0, 0, 1, "empty"},
		{"padding past 2^32-1", 1<<32 - 1, 1, 1, 1<<32 - 1, 0, 1, "2^32-1"},
	} {
		_, err := poolExtent(0, c.in, c.w, c.s, c.a, c.b, c.dl, false)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a usage error saying %q", c.name, err, c.want)
		}
	}
}
