package profiles_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

func context(p *profiles.Profile) *ops.Context {
	return &ops.Context{FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], Features: p.Features, Limits: p.Limits, DeviceType: p.Type}
}

// TestShippedProfiles: the four shipped profiles load, with their
// recorded or documented compute units.
func TestShippedProfiles(t *testing.T) {
	want := map[string][3]uint32{ // subgroup size, compute units, lanes per unit
		"h100": {32, 132, 2048}, "rx7900xtx": {64, 96, 2048}, "arc-a770": {32, 32, 4096}, "mali-g78": {16, 20, 1024},
	}
	names := profiles.Names()
	if len(names) != len(want) {
		t.Errorf("shipped %v, want %d profiles", names, len(want))
	}
	for _, n := range names {
		p, err := profiles.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		l := p.Limits
		if got := [3]uint32{l.SubgroupSize, l.ComputeUnits, l.LanesPerComputeUnit}; got != want[n] {
			t.Errorf("%s: subgroup, units, lanes %v, want %v", n, got, want[n])
		}
	}
	if p, _ := profiles.Lookup("h100"); p.Type != caps.DeviceTypeDiscreteGPU || p.Limits.ResidentLanes() != 132*2048 || p.Limits.MaxComputeWorkGroupCount[0] != 1<<31-1 {
		t.Errorf("h100: %+v", p)
	}
}

// TestParseErrors: bad profiles fail naming the key and the rule.
func TestParseErrors(t *testing.T) {
	good, err := os.ReadFile("h100.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(good, &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	limits := func(m map[string]any) map[string]any { return m["limits"].(map[string]any) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not json", []byte("{"), "unexpected end"},
		{"unknown limit", edit(func(m map[string]any) { limits(m)["max_warp_drive"] = 1 }), "limits.max_warp_drive is not a key"},
		{"unknown feature", edit(func(m map[string]any) { m["features"].(map[string]any)["ray_tracing"] = true }), "features.ray_tracing"},
		{"string limit", edit(func(m map[string]any) { limits(m)["subgroup_size"] = "32" }), "limits.subgroup_size: \"32\" is not a uint32"},
		{"negative limit", edit(func(m map[string]any) { limits(m)["compute_units"] = -1 }), "limits.compute_units"},
		{"subgroup 24", edit(func(m map[string]any) { limits(m)["subgroup_size"] = 24 }), "subgroup_size 24 is not a power of two"},
		{"no limits", edit(func(m map[string]any) { delete(m, "limits") }), "limits are required"},
		{"bad type", edit(func(m map[string]any) { m["type"] = "gpu" }), "type \"gpu\""},
		{"half the units", edit(func(m map[string]any) { limits(m)["lanes_per_compute_unit"] = 0 }), "both be known or both 0"},
		{"small grid", edit(func(m map[string]any) { limits(m)["max_compute_work_group_count"] = []int{1024, 65535, 65535} }), "max_compute_work_group_count"},
		{"devices doc without default", []byte(`{"devices": [{}]}`), "\"default\" index"},
	}
	for _, c := range cases {
		_, err := profiles.Parse("x", c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := profiles.Lookup("h200"); err == nil || !strings.Contains(err.Error(), "h100") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestLoadDevicesDocument: a `vkdml devices --json` document is a profile
// (its default device), read from a file.
func TestLoadDevicesDocument(t *testing.T) {
	dev, _ := os.ReadFile("mali-g78.json")
	doc := `{"schema_version": 1, "default": 1, "devices": [{"type": "cpu"}, ` + string(dev) + `]}`
	path := filepath.Join(t.TempDir(), "devices.json")
	os.WriteFile(path, []byte(doc), 0o666)
	p, err := profiles.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Device != "Mali-G78 MP20" || p.Type != caps.DeviceTypeIntegratedGPU || p.Limits.SubgroupSize != 16 {
		t.Errorf("got %+v", p)
	}
	if _, err := profiles.Load("nosuch"); err == nil || !strings.Contains(err.Error(), "neither a shipped profile") {
		t.Errorf("missing: %v", err)
	}
}

// TestProfilesPlanEveryOp plans every desc of ops' golden corpus, and two
// copies, on every shipped profile with every strategy (or the planner's
// refusal), checks the plans and computes their facts.
func TestProfilesPlanEveryOp(t *testing.T) {
	b, err := os.ReadFile("../ops/testdata/golden/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string          `json:"name"`
		Op      string          `json:"op"`
		Desc    json.RawMessage `json:"desc"`
		Context json.RawMessage `json:"context"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	type named struct {
		name string
		desc ops.Desc
	}
	var descs []named
	for _, c := range cases {
		if c.Context != nil { // a fuzz seed's own device: planned by the golden test
			continue
		}
		o, ok := ops.LookupOperator(c.Op)
		if !ok {
			t.Fatalf("%s: operator %s", c.Name, c.Op)
		}
		d := o.New()
		if err := json.Unmarshal(c.Desc, d); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		descs = append(descs, named{c.Name, d})
	}
	for _, sh := range [][]uint32{{3, 5}, {64, 1 << 20}} {
		d := tensor.NewDesc(tensor.Float16, sh)
		descs = append(descs, named{"copy", &ops.ElementWiseIdentity{Input: d, Output: d}})
	}
	ops := map[string]bool{}
	for _, n := range profiles.Names() {
		p, err := profiles.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		planned := 0
		for _, d := range descs {
			reg, _ := opsOperator(d.desc)
			for _, k := range append([]string{""}, reg...) {
				ctx := context(p)
				ctx.Kernel = k
				if err := d.desc.Validate(ctx); err != nil {
					continue // invalid on purpose (parity cases)
				}
				plan, err := d.desc.Plan(ctx)
				if err != nil {
					// A forced strategy may not apply; a desc too
					// large for the device is refused as on lavapipe.
					lvp := descfuzz.Lavapipe()
					lvp.Kernel = k
					if _, lerr := d.desc.Plan(lvp); lerr == nil && k == "" {
						t.Errorf("%s on %s: %v (lavapipe plans it)", d.name, n, err)
					}
					continue
				}
				if err := checkAndFacts(ctx, d.desc, plan); err != nil {
					t.Errorf("%s on %s, kernel %q: %v", d.name, n, k, err)
				}
				planned++
				ops[d.desc.OperatorType()] = true
			}
		}
		if planned == 0 {
			t.Errorf("%s planned nothing", n)
		}
	}
	for _, o := range opsRegistry() {
		if !ops[o] {
			t.Errorf("no %s desc was planned: add cases to ops' golden corpus (ops/testdata/golden)", o)
		}
	}
}
