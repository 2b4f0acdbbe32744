package ops_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// TestTuningRanges: every knob at 0 (where its range starts above 0),
// negative, at its maximum + 1, and between the values of a list is
// refused by ParseTuning (--tune), ParseTuningJSON (a tuning file) and
// Check (a Tuning built by hand) with an error naming the knob and its
// range; each end of its range is accepted.
func TestTuningRanges(t *testing.T) {
	bad := testutil.BadTuning()
	for _, b := range bad {
		_, errFlag := ops.ParseTuning([]string{b.Key + "=" + b.Value})
		_, errFile := ops.ParseTuningJSON([]byte(fmt.Sprintf(`{%q: %s}`, b.Key, b.JSON)))
		errCheck := ops.Tuning{b.Key: b.Value}.Check()
		for what, err := range map[string]error{"--tune": errFlag, "file": errFile, "Check": errCheck} {
			if err == nil || !strings.Contains(err.Error(), b.Want) {
				t.Errorf("%s %s=%s: got %v, want an error containing %q", what, b.Key, b.Value, err, b.Want)
			}
		}
	}
	if len(bad) < 3*len(ops.TuningKeys())/2 {
		t.Errorf("only %d bad values for %d knobs", len(bad), len(ops.TuningKeys()))
	}
	for _, k := range ops.TuningKeys() {
		for _, v := range tuningExtremes(k) {
			if _, err := ops.ParseTuning([]string{k + "=" + v}); err != nil {
				t.Errorf("%s=%s, an end of its range, refused: %v", k, v, err)
			}
		}
	}
}

// tuningExtremes is every value worth planning knob key with: a boolean
// knob's two, an integer knob's minimum, maximum and listed values.
func tuningExtremes(key string) []string {
	r, ok := ops.TuningRange(key)
	if !ok {
		return []string{"false", "true"}
	}
	vals := []string{strconv.FormatUint(r.Min, 10), strconv.FormatUint(r.Max, 10)}
	for _, v := range r.Values {
		vals = append(vals, strconv.FormatUint(v, 10))
	}
	return vals
}

// TestTuningExtremesPlan is the planners' audit against their knobs: every
// desc of the golden corpus, and a 2x2 stride-2 FLOAT32 pool (the vec2x2
// kernel, whose planner divided by poolVecWG*poolVecGroups), planned on a
// CPU, a GPU and the h100 profile with each knob in turn at each end of
// its range (and each boolean both ways). No plan may panic (a division by
// a knob, a shift or allocation sized from one), and every plan made must
// pass CheckPlan; a refusal must be an HRESULT error.
func TestTuningExtremesPlan(t *testing.T) {
	type namedDesc struct {
		name string
		desc ops.Desc
	}
	in := tensor.NewDesc(tensor.Float32, []uint32{2, 3, 16, 16})
	out := tensor.NewDesc(tensor.Float32, []uint32{2, 3, 8, 8})
	pool := &ops.MaxPooling{Input: in, Output: out, WindowSize: []uint32{2, 2}, Strides: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}
	descs := []namedDesc{{"pool 2x2 s2 FLOAT32", pool}}
	for _, c := range readGoldenCases(t) {
		descs = append(descs, namedDesc{c.Name, c.desc(t)})
	}
	h100, err := profiles.Lookup("h100")
	if err != nil {
		t.Fatal(err)
	}
	named := goldenContexts()
	contexts := map[string]*ops.Context{"lvp8": named["lvp8"], "gpu32": named["gpu32"],
		"h100": {FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], Features: h100.Features, Limits: h100.Limits, DeviceType: h100.Type}}

	// The pool must take the kernel the audit is about on every context.
	for name, ctx := range contexts {
		if err := pool.Validate(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := pool.Plan(ctx); err != nil || p.Strategy != ops.MaxPoolStrategyVec2x2 {
			t.Fatalf("%s: the 2x2 pool plans %v (%v), not %s", name, p, err, ops.MaxPoolStrategyVec2x2)
		}
	}
	plan := func(ctx *ops.Context, desc ops.Desc) (p *ops.Plan, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		if err := desc.Validate(ctx); err != nil {
			return nil, nil
		}
		return desc.Plan(ctx)
	}
	plans := 0
	for _, key := range ops.TuningKeys() {
		for _, val := range tuningExtremes(key) {
			for cname, base := range contexts {
				ctx := *base
				ctx.Tuning = ops.Tuning{key: val}
				if err := ctx.Tuning.Check(); err != nil {
					t.Fatalf("%s=%s, an end of its range: %v", key, val, err)
				}
				failed := 0
				for _, d := range descs {
					p, err := plan(&ctx, d.desc)
					var he *hresult.Error
					switch {
					case err != nil && !errors.As(err, &he):
						t.Errorf("%s=%s on %s: %s: %v", key, val, cname, d.name, err)
						failed++
					case p != nil:
						plans++
						if err := ops.CheckPlan(&ctx, d.desc, p); err != nil {
							t.Errorf("%s=%s on %s: %s: CheckPlan: %v", key, val, cname, d.name, err)
							failed++
						}
					}
					if failed >= 3 {
						break
					}
				}
			}
		}
	}
	t.Logf("%d plans checked", plans)
}
