package opcount

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// pending are the cases with a dispatch over its budget that another
// change is bringing down. A case leaves the list when it meets the
// budget; none may join it but a case new to the table, with its reason.
var pending = map[string]bool{}

const countsFile = "counts.md"

// TestCounts counts every dispatch of every case's plan on the h100
// profile and holds counts.md to the result and each dispatch to
// BudgetPerByte.
func TestCounts(t *testing.T) {
	ctx, err := ProfileContext("h100")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(ctx, Cases(), BudgetPerByte)
	if err != nil {
		t.Fatal(err)
	}
	got := Markdown("h100", rows, pending)
	if os.Getenv("VKDML_UPDATE_OPCOUNT") == "1" {
		if err := os.WriteFile(countsFile, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(countsFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is stale (a kernel or a plan changed): VKDML_UPDATE_OPCOUNT=1 go test ./internal/opcount rewrites it; now:\n%s", countsFile, got)
	}
	over := map[string]bool{}
	for _, r := range rows {
		if r.Over() {
			over[r.Case] = true
			if !pending[r.Case] {
				t.Errorf("%s, dispatch %d: %s costs %.2f SPIR-V ops per byte moved (%.2f per %s), over its budget of %g", r.Case, r.Dispatch, r.Kernel, r.OpsPerByte, r.Count, r.Unit, r.Budget)
			}
		}
	}
	for c := range pending {
		found := false
		for _, r := range rows {
			found = found || r.Case == c
		}
		switch {
		case !found:
			t.Errorf("pending names %q, which is no case", c)
		case !over[c]:
			t.Errorf("%s meets its budget now: remove it from pending", c)
		}
	}
}

// TestCountsEveryProfile counts every dispatch of every case's plan on
// every shipped profile: each kernel a plan can choose has a unit its
// facts agree on. The budget is sized for the h100 only, so none is held.
func TestCountsEveryProfile(t *testing.T) {
	for _, name := range profiles.Names() {
		ctx, err := ProfileContext(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Rows(ctx, Cases(), 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, r := range rows {
			if r.OpsPerByte <= 0 {
				t.Errorf("%s: %s, dispatch %d (%s): %.2f ops per byte", name, r.Case, r.Dispatch, r.Kernel, r.OpsPerByte)
			}
		}
	}
}

// TestCountMethod checks the counter on kernels whose loops are known:
// the copy of 16-byte vectors is a load, a store and their addresses per
// 4 words, and a count of a kernel without a unit fails naming it.
func TestCountMethod(t *testing.T) {
	n, unit, err := Count("copy_vec4", []uint32{64})
	if err != nil {
		t.Fatal(err)
	}
	// One iteration: the loop test, the load and store with their two
	// addresses, the index arithmetic; 4 words of 4 bytes.
	if unit.Name != "element" || n <= 0 || n > 4 {
		t.Errorf("copy_vec4: %.2f ops per element (%s)", n, unit.Name)
	}
	if _, _, err := Count("no_such_kernel", nil); err == nil {
		t.Error("an unknown kernel was counted")
	}
	saved := family["copy_vec4.comp"]
	delete(family, "copy_vec4.comp")
	_, _, err = Count("copy_vec4", []uint32{64})
	family["copy_vec4.comp"] = saved
	if err == nil || !strings.Contains(err.Error(), "no unit for this kernel family") {
		t.Errorf("a family with no unit: %v", err)
	}
}

// TestCountsLavapipeTexel counts lavapipe's row plans, whose vec-row
// kernel reads its source through a uniform texel buffer (argRowTexel),
// and its FLOAT32 SUM plans, whose first passes do (reduceFloatTexel):
// the hot loop is the loop of texel fetches from binding 0, so `vkdml plan
// --check` on lavapipe counts them like the storage-buffer kernels.
func TestCountsLavapipeTexel(t *testing.T) {
	var rows []Case
	for _, c := range Cases() {
		if strings.HasPrefix(c.Name, "argmax ") && (strings.HasSuffix(c.Name, "axis 1") || strings.HasSuffix(c.Name, "whole")) ||
			strings.HasPrefix(c.Name, "reduce sum ") && strings.Contains(c.Name, "FLOAT32") {
			rows = append(rows, c)
		}
	}
	counted, err := Rows(descfuzz.Lavapipe(), rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	texel := map[string]int{} // by family: argmax, reduce
	for _, r := range counted {
		if strings.Contains(r.Kernel, "texel") {
			texel[strings.Fields(r.Case)[0]]++
			if r.OpsPerByte <= 0 || r.OpsPerByte > 8 {
				t.Errorf("%s, dispatch %d (%s): %.2f ops per byte", r.Case, r.Dispatch, r.Kernel, r.OpsPerByte)
			}
		}
	}
	if texel["argmax"] == 0 || texel["reduce"] == 0 {
		t.Errorf("lavapipe plans of %d cases ran texel kernels %v: want argmax's and reduce's", len(rows), texel)
	}
}

// TestCountDataTrips checks the count of a loop whose trips depend on the
// data: MULTIPLY's tree push inside its hot loop fails to count without
// the unit's mean trips and costs one more merge a push when they double
// (a native product and the stack's load, over the eight elements of a
// tree_push8: more than half an op a unit).
func TestCountDataTrips(t *testing.T) {
	ctx, err := ProfileContext("h100")
	if err != nil {
		t.Fatal(err)
	}
	var plan *ops.Plan
	for _, c := range Cases() {
		if c.Name == "reduce multiply 64M FLOAT32 whole" {
			if plan, err = c.Desc.Plan(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if plan == nil {
		t.Fatal("no case reduce multiply 64M FLOAT32 whole")
	}
	k := plan.Kernels[plan.Steps[0].Kernel]
	one, unit, err := Count(k.Variant, k.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if unit.DataTrips != 1 {
		t.Fatalf("%s: %g data-dependent trips, want 1", k.Variant, unit.DataTrips)
	}
	saved := family["reduce_fmul.comp"]
	defer func() { family["reduce_fmul.comp"] = saved }()
	for _, trips := range []float64{0, 2} {
		family["reduce_fmul.comp"] = func(shaders.Variant) Unit {
			return Unit{Name: "element", PerIteration: unit.PerIteration, DataTrips: trips}
		}
		n, _, err := Count(k.Variant, k.Spec)
		switch {
		case trips == 0 && (err == nil || !strings.Contains(err.Error(), "trip count is unknown")):
			t.Errorf("%s without data-dependent trips: %.2f ops, %v", k.Variant, n, err)
		case trips == 2 && (err != nil || n < one+0.5 || n > 2*one):
			t.Errorf("%s with 2 merges a push: %.2f ops, %.2f with 1 (%v)", k.Variant, n, one, err)
		}
	}
}

// TestExpBudget: a LOG_SUM_EXP first pass that computes rule 40's exp
// counts an exp term per element and is held to BudgetPerByte plus
// ExpOpsAllowance per term over its bytes; its combine, FLOAT16's first
// passes (their terms read from ops.TableExpHalf) and a SUM over the same
// shape count none and keep BudgetPerByte.
func TestExpBudget(t *testing.T) {
	ctx, err := ProfileContext("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fn      ops.ReduceFunction
		dt      tensor.DataType
		exp     bool
		budget0 float64 // the first dispatch's budget, when it writes no partials
	}{
		{ops.ReduceFunctionLogSumExp, tensor.Float32, true, 4 + 112.0/4},
		{ops.ReduceFunctionLogSumExp, tensor.Float16, false, 4},
		{ops.ReduceFunctionSum, tensor.Float32, false, 4},
	} {
		for _, axes := range [][]uint32{{1}, {0}} {
			out := []uint32{4096, 16384}
			out[axes[0]] = 1
			d := &ops.Reduce{Function: c.fn, Input: tensor.NewDesc(c.dt, []uint32{4096, 16384}), Output: tensor.NewDesc(c.dt, out), Axes: axes}
			p, err := d.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ops.Facts(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for i, df := range f.Dispatches {
				what := fmt.Sprintf("%v %s axis %d dispatch %d", c.fn, c.dt, axes[0], i)
				wantTerms := uint64(0)
				if c.exp && df.Unit == ops.UnitElement {
					wantTerms = 4096 * 16384
				}
				if df.ExpTerms != wantTerms {
					t.Errorf("%s: %d exp terms, want %d", what, df.ExpTerms, wantTerms)
				}
				want := BudgetPerByte + ExpOpsAllowance*float64(wantTerms)/float64(df.BytesMoved())
				if got := DispatchBudget(BudgetPerByte, df); got != want {
					t.Errorf("%s: budget %g, want %g", what, got, want)
				}
				if i == 0 && df.PartialBytes == 0 {
					// Rows: the input read once, a value per row written.
					if got := DispatchBudget(BudgetPerByte, df); math.Abs(got-c.budget0) > 0.01 {
						t.Errorf("%s: budget %g, want about %g", what, got, c.budget0)
					}
				}
			}
		}
	}
	if got := DispatchBudget(0, ops.DispatchFacts{BytesRead: 8, ExpTerms: 2}); got != 0 {
		t.Errorf("no base budget: %g, want 0 (no budget)", got)
	}
}
