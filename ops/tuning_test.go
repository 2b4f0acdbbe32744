package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/tensor"
)

// TestTuningKnobKinds: every knob of the tuning struct can be overridden
// (a knob of a type overrides cannot set would fail here, not at run time),
// every integer knob has a well-formed range, and both class tables lie in
// their knobs' ranges.
func TestTuningKnobKinds(t *testing.T) {
	for _, k := range TuningKeys() {
		f, _ := tuningField(k)
		if f.Type.Kind() == reflect.Bool {
			continue
		}
		if _, err := rangeOf(f); err != nil {
			t.Errorf("knob %s: %v", k, err)
		}
		if _, ok := TuningRange(k); !ok {
			t.Errorf("knob %s: TuningRange has none", k)
		}
	}
	for name, dt := range map[string]caps.DeviceType{"GPU": caps.DeviceTypeDiscreteGPU, "CPU": caps.DeviceTypeCPU} {
		knobs := TuningOf(&Context{DeviceType: dt})
		if len(knobs) != len(TuningKeys()) {
			t.Errorf("%s: TuningOf reports %d knobs of %d", name, len(knobs), len(TuningKeys()))
		}
		for k, v := range knobs {
			if _, err := canonical(k, fmt.Sprint(v)); err != nil {
				t.Errorf("the %s class table: %v", name, err)
			}
		}
	}
}

// TestTuningRangeText: a list range reads as its values, a boolean knob
// has none (testutil.BadTuning and TestTuningRanges test every knob).
func TestTuningRangeText(t *testing.T) {
	r, _ := TuningRange("argColLoads")
	if got := r.String(); got != "one of 0, 1, 4" {
		t.Errorf("argColLoads range reads %q", got)
	}
	if r, ok := TuningRange("exactGrid"); ok {
		t.Errorf("a boolean knob has range %v", r)
	}
	if r, _ := TuningRange("poolVecWG"); r.String() != "an integer in [1, 1024]" {
		t.Errorf("poolVecWG range reads %q", r)
	}
}

// TestTuningOutOfRangeNeverReachesPlanner: a Context built by hand, whose
// Tuning no surface checked, plans with the class's value for a knob out
// of its range (or malformed), never with the bad value.
func TestTuningOutOfRangeNeverReachesPlanner(t *testing.T) {
	ctx := &Context{DeviceType: caps.DeviceTypeCPU, Tuning: Tuning{"poolVecWG": "0", "poolVecGroups": "0", "computeUnits": "junk", "argColLoads": "2", "argThreadLoads": " 8 "}}
	got := ctx.tuning()
	if got.poolVecWG != tuningCPU.poolVecWG || got.poolVecGroups != tuningCPU.poolVecGroups || got.computeUnits != tuningCPU.computeUnits || got.argColLoads != tuningCPU.argColLoads {
		t.Errorf("out-of-range knobs reached the tuning: %+v", *got)
	}
	if got.argThreadLoads != 8 {
		t.Errorf("argThreadLoads \" 8 \" (valid after trimming, as ParseTuning takes it) gave %d", got.argThreadLoads)
	}
}

func TestTuningParseErrors(t *testing.T) {
	for _, c := range []struct {
		pairs []string
		want  string
	}{
		{[]string{"noSuchKnob=1"}, `unknown knob "noSuchKnob"`},
		{[]string{"argColSplitItems=-1"}, "argColSplitItems=\"-1\": want an integer in [0, 4294967296]"},
		{[]string{"poolVecWG=4294967296"}, "poolVecWG"},
		{[]string{"exactGrid=maybe"}, "exactGrid=\"maybe\": want true or false"},
		{[]string{"exactGrid"}, "not key=value"},
	} {
		if _, err := ParseTuning(c.pairs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.pairs, err, c.want)
		}
	}
	for _, c := range []struct{ file, want string }{
		{`{"argColSplitItems": "5"}`, "argColSplitItems: \"5\" is a string"},
		{`{"warp": 1}`, `unknown knob "warp"`},
		{`{"argColSplitItems": 1.5}`, "argColSplitItems=\"1.5\""},
		{`[1]`, "tuning:"},
	} {
		if _, err := ParseTuningJSON([]byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.file, err, c.want)
		}
	}
	got, err := ParseTuningJSON([]byte(`{"argColSplitItems": 4096, "exactGrid": false}`))
	if err != nil || got["argColSplitItems"] != "4096" || got["exactGrid"] != "false" {
		t.Errorf("file: %v %v", got, err)
	}
	got, err = ParseTuning([]string{"argColSplitItems=0x10", " exactGrid = true"})
	if err != nil || got["argColSplitItems"] != "16" || got["exactGrid"] != "true" {
		t.Errorf("pairs: %v %v", got, err)
	}
}

// TestTuningReachesPlan: an override changes the plan and TuningOf, and
// leaves the class's table as it was. The knob is exactGrid and the plan
// the copy of 2^28 elements: 65,536 workgroups in x, and without it
// 65,535 × 2 (the copy kernel's grid is the plan least likely to change).
func TestTuningReachesPlan(t *testing.T) {
	ctx := &Context{FeatureLevel: FeatureLevel6_4, DeviceType: caps.DeviceTypeDiscreteGPU, Limits: caps.Limits{
		SubgroupSize: 32, MinSubgroupSize: 32, MaxSubgroupSize: 32, MaxStorageBufferRange: 1<<32 - 1, MaxPushConstantsSize: 256,
		MaxComputeWorkGroupInvocations: 1024, MaxComputeWorkGroupSize: [3]uint32{1024, 1024, 64},
		MaxComputeWorkGroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxPerStageStorageBuffers: 8, MinStorageBufferOffsetAlignment: 16}}
	d := tensor.NewDesc(tensor.Float32, []uint32{1 << 28})
	desc := &ElementWiseIdentity{Input: d, Output: d}
	groups := func(c *Context) [3]uint32 {
		t.Helper()
		if err := desc.Validate(c); err != nil {
			t.Fatal(err)
		}
		p, err := desc.Plan(c)
		if err != nil {
			t.Fatal(err)
		}
		return p.Steps[0].Groups
	}
	if g := groups(ctx); g != [3]uint32{65536, 1, 1} {
		t.Fatalf("default GPU grid %v; the test expects an exact one", g)
	}
	capped := *ctx
	var err error
	if capped.Tuning, err = ParseTuning([]string{"exactGrid=false"}); err != nil {
		t.Fatal(err)
	}
	if g := groups(&capped); g != [3]uint32{65535, 2, 1} {
		t.Errorf("with exactGrid=false the grid is %v, want [65535 2 1]", g)
	}
	if got := TuningOf(&capped)["exactGrid"]; got != false {
		t.Errorf("TuningOf: exactGrid %v", got)
	}
	if !tuningGPU.exactGrid || TuningOf(ctx)["exactGrid"] != true {
		t.Error("the override changed the class's table")
	}
}

// TestPlannersReadTuningThroughContext: planners read the tuning through
// ctx.tuning(), the one way overrides reach them; a planner that read the
// class tables directly would ignore VKDML_TUNING and --tune.
func TestPlannersReadTuningThroughContext(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "layout.go" || f == "tuning.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, bad := range []string{"tuningFor(", "tuningGPU", "tuningCPU"} {
				if strings.Contains(line, bad) {
					t.Errorf("%s:%d reads %s: use ctx.tuning(), which applies Context.Tuning", f, i+1, bad)
				}
			}
		}
	}
}
