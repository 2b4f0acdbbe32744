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

// createRefusal creates desc's operator on d, which must refuse it with an
// *hresult.Error in its chain; it logs the error and returns that
// *hresult.Error and the whole message.
func createRefusal(t *testing.T, d *dml.Device, desc ops.Desc) (*hresult.Error, string) {
	t.Helper()
	_, err := d.CreateOperator(desc)
	var he *hresult.Error
	if !errors.As(err, &he) {
		t.Fatalf("got %v, want an *hresult.Error", err)
	}
	t.Log(err)
	return he, err.Error()
}

// TestArgValidation: every rule's failure carries the right HRESULT and
// names the field, at CreateOperator (the device's feature level) or, for
// the feature-level tables, at Validate with a lower level; the same tables
// run without a device in TestArgRules.
func TestArgValidation(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	for _, c := range argRejectCases() {
		t.Run(c.name, func(t *testing.T) { checkRefusal(t, c, argValidateOn(d, c)) })
	}

	// Forcing an unknown strategy.
	in, out := tensor.NewDesc(tensor.Float32, []uint32{2, 3, 4}), tensor.NewDesc(tensor.UInt32, []uint32{1, 3, 4})
	if _, err := d.CreateOperatorWithKernel(&ops.ArgMax{Input: in, Output: out, Axes: []uint32{0}}, "nope"); !errors.Is(err, hresult.E_INVALIDARG) || !strings.Contains(err.Error(), "Kernel") {
		t.Errorf("unknown strategy: %v", err)
	}

	for _, c := range argAcceptCases() {
		t.Run(c.name, func(t *testing.T) {
			if err := argValidateOn(d, c); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		})
	}
}

// argValidateOn creates c's operator on d or, for a case of a lower
// feature level than the device's, validates it against d's context at
// that level.
func argValidateOn(d *dml.Device, c argRule) error {
	if c.level == 0 {
		_, err := d.CreateOperator(c.desc)
		return err
	}
	ctx := testutil.PlanContext(d)
	ctx.FeatureLevel = c.level
	return c.desc.Validate(ctx)
}

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
			he, msg := createRefusal(t, d, c.desc)
			if he.Code != c.code || he.Field != c.field {
				t.Fatalf("got %s (field %q), want %v on %q", msg, he.Field, c.code.Name(), c.field)
			}
			if !strings.Contains(msg, c.desc.OperatorType()) || he.Rule == "" {
				t.Errorf("message %q should name the operator and the rule", msg)
			}
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

// TestIdentityValidation: every ELEMENT_WISE_IDENTITY rule's failure is
// E_INVALIDARG naming the field, at CreateOperator.
func TestIdentityValidation(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	f32 := tensor.NewDesc(tensor.Float32, []uint32{2, 3})
	cases := []struct {
		name  string
		desc  ops.ElementWiseIdentity
		field string
	}{
		{"type mismatch", ops.ElementWiseIdentity{Input: f32, Output: tensor.NewDesc(tensor.Int32, []uint32{2, 3})}, "OutputTensor.DataType"},
		{"size mismatch", ops.ElementWiseIdentity{Input: f32, Output: tensor.NewDesc(tensor.Float32, []uint32{3, 2})}, "OutputTensor.Sizes"},
		{"rank mismatch", ops.ElementWiseIdentity{Input: f32, Output: tensor.NewDesc(tensor.Float32, []uint32{6})}, "OutputTensor.DimensionCount"},
		{"aliasing output", ops.ElementWiseIdentity{Input: f32, Output: tensor.NewStridedDesc(tensor.Float32, []uint32{2, 3}, []uint32{0, 1})}, "OutputTensor"},
		{"zero size", ops.ElementWiseIdentity{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 0}), Output: f32}, "InputTensor.Sizes"},
		{"rank 9", ops.ElementWiseIdentity{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 1, 1, 1, 1, 1, 1, 2}), Output: f32}, "InputTensor"},
		{"FLOAT64", ops.ElementWiseIdentity{Input: tensor.NewDesc(tensor.Float64, []uint32{2}), Output: tensor.NewDesc(tensor.Float64, []uint32{2})}, "InputTensor"},
		{"owned output", ops.ElementWiseIdentity{Input: f32, Output: func() tensor.Desc { o := f32.Clone(); o.Flags = tensor.FlagOwnedByDML; return o }()}, "OutputTensor.Flags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			desc := c.desc
			he, msg := createRefusal(t, d, &desc)
			if he.Code != hresult.E_INVALIDARG {
				t.Fatalf("want E_INVALIDARG, got %s", msg)
			}
			if !strings.Contains(msg, c.field) {
				t.Fatalf("error %q does not name %q", msg, c.field)
			}
		})
	}
}
