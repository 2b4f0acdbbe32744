package profiles_test

import (
	"encoding/json"
	"fmt"
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
		{"subgroup 0", edit(func(m map[string]any) { limits(m)["subgroup_size"] = 0 }), "subgroup_size 0 is not a power of two in [1, 128]"},
		{"subgroup 256", edit(func(m map[string]any) { limits(m)["subgroup_size"] = 256 }), "subgroup_size 256 is not a power of two in [1, 128]"},
		{"max subgroup 256", edit(func(m map[string]any) { limits(m)["max_subgroup_size"] = 256 }), "max_subgroup_size 256 is not a power of two in [subgroup_size 32, 128]"},
		{"subgroup 2^32", edit(func(m map[string]any) { limits(m)["subgroup_size"] = 1 << 32 }), "limits.subgroup_size: 4294967296 is not a uint32"},
		{"invocations 0", edit(func(m map[string]any) { limits(m)["max_compute_work_group_invocations"] = 0 }), "max_compute_work_group_invocations 0"},
		{"invocations 64", edit(func(m map[string]any) { limits(m)["max_compute_work_group_invocations"] = 64 }), "max_compute_work_group_invocations 64"},
		{"workgroup y 1", edit(func(m map[string]any) { limits(m)["max_compute_work_group_size"] = []int{1024, 1, 64} }), "max_compute_work_group_size [1024 1 64]"},
		{"alignment 0", edit(func(m map[string]any) { limits(m)["min_storage_buffer_offset_alignment"] = 0 }), "min_storage_buffer_offset_alignment 0"},
		{"alignment 512", edit(func(m map[string]any) { limits(m)["min_storage_buffer_offset_alignment"] = 512 }), "min_storage_buffer_offset_alignment 512"},
		{"range 0", edit(func(m map[string]any) { limits(m)["max_storage_buffer_range"] = 0 }), "max_storage_buffer_range 0"},
		{"push 0", edit(func(m map[string]any) { limits(m)["max_push_constants_size"] = 0 }), "max_push_constants_size 0"},
		{"buffers 0", edit(func(m map[string]any) { limits(m)["max_per_stage_descriptor_storage_buffers"] = 0 }), "max_per_stage_descriptor_storage_buffers 0"},
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

type named struct {
	name string
	desc ops.Desc
}

// goldenDescs is every desc of ops' golden corpus planned on named
// contexts, and two copies.
func goldenDescs(t *testing.T) []named {
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
	return descs
}

// TestProfilesPlanEveryOp plans every desc of ops' golden corpus, and two
// copies, on every shipped profile with every strategy (or the planner's
// refusal), checks the plans and computes their facts.
func TestProfilesPlanEveryOp(t *testing.T) {
	descs := goldenDescs(t)
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

// TestExtremeLimitsPlan: the planners' audit against a profile's limits.
// Every desc of the golden corpus is planned on profiles at both ends of
// what Parse accepts (each limit at check's minimum, then at the most its
// type holds, with 2^32-1 compute units of 2^32-1 lanes) on a CPU and a
// GPU: no plan may panic (a division, shift or allocation sized from a
// limit), and every plan made must pass CheckPlan and Facts.
func TestExtremeLimitsPlan(t *testing.T) {
	const u32 = 1<<32 - 1
	floor := `{"subgroup_size": 1, "min_subgroup_size": 1, "max_subgroup_size": 1, "max_storage_buffer_range": 65536,
		"max_compute_work_group_invocations": 128, "max_compute_work_group_size": [128, 128, 64],
		"max_compute_work_group_count": [65535, 65535, 65535], "max_push_constants_size": 128, "max_compute_shared_memory_size": 16384,
		"min_storage_buffer_offset_alignment": 256, "max_per_stage_descriptor_storage_buffers": 4}`
	ceiling := strings.NewReplacer("U32", fmt.Sprint(uint64(u32)), "U64", fmt.Sprint(uint64(1<<64-1))).Replace(
		`{"subgroup_size": 128, "min_subgroup_size": 1, "max_subgroup_size": 128, "max_storage_buffer_range": U32,
		"max_compute_work_group_invocations": U32, "max_compute_work_group_size": [U32, U32, U32],
		"max_compute_work_group_count": [U32, U32, U32], "max_push_constants_size": U32, "max_compute_shared_memory_size": U32,
		"min_storage_buffer_offset_alignment": 1, "max_per_stage_descriptor_storage_buffers": U32,
		"max_memory_allocation_size": U64, "max_buffer_size": U64, "compute_units": U32, "lanes_per_compute_unit": U32}`)
	features := `{"shader_int64": true, "shader_int16": true, "shader_int8": true, "shader_float16": true,
		"storage_buffer8_bit_access": true, "storage_buffer16_bit_access": true, "subgroup_arithmetic": true,
		"subgroup_size_control": true, "compute_full_subgroups": true, "shader_subgroup_extended_types": true}`
	descs := goldenDescs(t)
	plans := 0
	for _, typ := range []string{"cpu", "discrete-gpu"} {
		for lname, limits := range map[string]string{"floor": floor, "ceiling": ceiling} {
			for fname, feats := range map[string]string{"no features": "{}", "all features": features} {
				name := fmt.Sprintf("%s %s, %s", typ, lname, fname)
				p, err := profiles.Parse(name, []byte(fmt.Sprintf(`{"type": %q, "features": %s, "limits": %s}`, typ, feats, limits)))
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range descs {
					ctx := context(p)
					plan, err := planNoPanic(ctx, d.desc)
					switch {
					case err != nil && strings.HasPrefix(err.Error(), "panic"):
						t.Errorf("%s on %s: %v", d.name, name, err)
					case plan != nil:
						plans++
						if err := checkAndFacts(ctx, d.desc, plan); err != nil {
							t.Errorf("%s on %s: %v", d.name, name, err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d plans checked", plans)
}

// planNoPanic validates and plans desc, turning a panic into an error
// that starts with "panic"; an invalid desc is no plan and no error.
func planNoPanic(ctx *ops.Context, desc ops.Desc) (p *ops.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if desc.Validate(ctx) != nil {
		return nil, nil
	}
	return desc.Plan(ctx)
}
