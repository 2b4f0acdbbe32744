//go:build cgo

package ops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestMaxPoolValidation: every rule's failure (poolRejectCases) carries
// the right HRESULT, names the field and the operator, at CreateOperator;
// TestPoolRules runs the same table without a device.
func TestMaxPoolValidation(t *testing.T) {
	cases := poolRejectCases()
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	if _, err := d.CreateOperator(goodPool2()); err != nil {
		t.Fatalf("the valid desc fails: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.CreateOperator(c.desc)
			var he *hresult.Error
			if !errors.As(err, &he) {
				t.Fatalf("got %v, want an *hresult.Error", err)
			}
			if he.Code != c.code || he.Field != c.field {
				t.Fatalf("got %v (field %q), want %v on %q", err, he.Field, c.code.Name(), c.field)
			}
			if !strings.Contains(err.Error(), c.desc.OperatorType()) || he.Rule == "" {
				t.Errorf("message %q should name the operator and the rule", err)
			}
			t.Log(err)
		})
	}
}

// TestMaxPoolAnyExtent: rule 7, any output extent ≥ 1 is accepted, and the
// output size helper gives the documented floor and ceil extents.
func TestMaxPoolAnyExtent(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	for _, ext := range []uint32{1, 2, 3, 4, 17} {
		m := goodPool2()
		m.Output.Sizes[2], m.Output.Sizes[3] = ext, 1
		m.Output = tensor.NewDesc(tensor.Float32, m.Output.Sizes)
		idx := tensor.NewDesc(tensor.UInt32, m.Output.Sizes)
		m.OutputIndices = &idx
		if _, err := d.CreateOperator(m); err != nil {
			t.Errorf("extent %d: %v", ext, err)
		}
	}
	for _, c := range []struct {
		in, w, s, a, b, dl uint32
		floor, ceil        uint64
	}{
		{4, 2, 1, 0, 0, 2, 2, 2}, {6, 2, 2, 0, 0, 1, 3, 3}, {7, 2, 2, 0, 0, 1, 3, 4},
		{5, 3, 2, 1, 1, 1, 3, 3}, {2, 3, 1, 0, 0, 1, 0, 0}, {5, 3, 2, 0, 0, 2, 1, 1}, {6, 3, 2, 0, 0, 2, 1, 2},
	} {
		if f, cl := ops.MaxPoolOutputSize(c.in, c.w, c.s, c.a, c.b, c.dl, false), ops.MaxPoolOutputSize(c.in, c.w, c.s, c.a, c.b, c.dl, true); f != c.floor || cl != c.ceil {
			t.Errorf("%+v: got floor %d ceil %d", c, f, cl)
		}
	}
}

// TestMaxPoolBindingOrder: MAX_POOLING1/2 outputs are [Output, Indices],
// nil when the indices are absent.
func TestMaxPoolBindingOrder(t *testing.T) {
	m := goodPool2()
	if outs := m.Outputs(); len(outs) != 2 || outs[0] != &m.Output || outs[1] != m.OutputIndices {
		t.Errorf("MAX_POOLING2 outputs %v", outs)
	}
	m1 := &ops.MaxPooling1{}
	if outs := m1.Outputs(); len(outs) != 2 || outs[1] != nil {
		t.Errorf("MAX_POOLING1 without indices: outputs %v", outs)
	}
	if outs := (&ops.MaxPooling{}).Outputs(); len(outs) != 1 {
		t.Errorf("MAX_POOLING outputs %v", outs)
	}
}
