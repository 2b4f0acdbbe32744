package dml_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testhook"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// TestPlannerPanicIsAnError: a panic in an operator's planner (injected
// through testhook.BeforePlan) reaches a Go API caller as an E_UNEXPECTED
// error of one line naming the call, from CreateOperator, Compute, Prepare
// and PlanOperator alike, instead of crashing the process; the device
// keeps working once the planner does.
func TestPlannerPanicIsAnError(t *testing.T) {
	in := tensor.NewDesc(tensor.Float32, []uint32{2, 8})
	desc := &ops.ArgMax{Input: in, Output: tensor.NewDesc(tensor.UInt32, []uint32{2, 1}), Axes: []uint32{1}}
	testhook.BeforePlan = func(any) { panic("planner bug\nsecond line") }
	defer func() { testhook.BeforePlan = nil }()
	check := func(what string, err error) {
		t.Helper()
		var he *hresult.Error
		if !errors.Is(err, hresult.E_UNEXPECTED) || !errors.As(err, &he) || he.Op != "CreateOperator(ARGMAX)" ||
			strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "planner bug second line") {
			t.Errorf("%s: got %q; want one line of E_UNEXPECTED from CreateOperator(ARGMAX) with the panic's value", what, err)
		}
	}
	p, err := profiles.Lookup("h100")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dml.PlanOperator(&dml.PlanContext{FeatureLevel: dml.MaxFeatureLevel, Features: p.Features, Limits: p.Limits, DeviceType: p.Type}, desc, "")
	check("PlanOperator", err)

	d := testutil.OpenDML(t, dml.DeviceOptions{})
	_, err = d.CreateOperator(desc)
	check("CreateOperator", err)
	_, err = d.Compute(desc, tensor.New(tensor.Float32, 2, 8))
	check("Compute", err)
	_, err = d.Prepare(desc, dml.PrepareOptions{})
	check("Prepare", err)

	testhook.BeforePlan = nil
	if _, err := d.Compute(desc, tensor.New(tensor.Float32, 2, 8)); err != nil {
		t.Errorf("after the planner recovered: %v", err)
	}
}
