package dml_test

import (
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// TestDebugReportsOddPoolingExtent: rule 7 accepts any output extent, and
// in debug mode one that is neither the floor nor the ceil size is reported.
func TestDebugReportsOddPoolingExtent(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{1, 1, 5, 5})
	pool := func(h, w uint32) *dml.MaxPooling2 {
		return &dml.MaxPooling2{
			Input: in, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, h, w}),
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1},
		}
	}
	for _, c := range []struct {
		h, w uint32
		msgs int
	}{{2, 2, 0}, {3, 3, 0}, {2, 3, 0}, {4, 2, 1}, {5, 7, 2}} {
		if _, err := d.CreateOperator(pool(c.h, c.w)); err != nil {
			t.Fatalf("%dx%d: rule 7 accepts any extent: %v", c.h, c.w, err)
		}
		msgs := d.DebugMessages()
		if len(msgs) != c.msgs {
			t.Fatalf("%dx%d: %d messages, want %d: %q", c.h, c.w, len(msgs), c.msgs, msgs)
		}
		for _, m := range msgs {
			if !strings.Contains(m, "neither the floor (2) nor the ceil (3)") {
				t.Fatalf("message %q", m)
			}
		}
	}
}
