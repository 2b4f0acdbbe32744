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
	ctx := argContext(d)
	ctx.FeatureLevel = c.level
	return c.desc.Validate(ctx)
}

// TestArgNoAxes: AxisCount = 0 with equal sizes is accepted and every
// output is 0 (semantics.md rule 2), through strided outputs too.
func TestArgNoAxes(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := tensor.New(tensor.Float16, 3, 5)
	argFill(rng, in, "special")
	for _, ot := range []tensor.DataType{tensor.UInt32, tensor.Int64} {
		out := tensor.NewStridedDesc(ot, []uint32{3, 5}, []uint32{12, 2})
		for _, kind := range argKinds {
			got := argRunArg(t, d, argDesc(kind, in.Desc, out, nil, 1), in, rng)
			for i, v := range got {
				if v != 0 {
					t.Fatalf("%s %v: output %d is %d, want 0", kind, ot, i, v)
				}
			}
		}
	}
}
