package opcount

import (
	"os"
	"strings"
	"testing"
)

// knownOver are the cases whose first dispatch exceeds its budget today:
// the kernels that still have to get lighter. A case leaves the list when
// its kernel meets the budget; none may join it.
var knownOver = map[string]bool{}

const countsFile = "counts.md"

// TestCounts counts every case's kernels on the h100 profile and holds
// counts.md to the result and each first dispatch to its budget.
func TestCounts(t *testing.T) {
	ctx, err := ProfileContext("h100")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(ctx, Cases())
	if err != nil {
		t.Fatal(err)
	}
	got := Markdown("h100", rows, knownOver)
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
	for _, r := range rows {
		switch {
		case r.Over() && !knownOver[r.Case]:
			t.Errorf("%s: %s costs %.2f SPIR-V ops per %s, over its budget of %g", r.Case, r.Kernel, r.Count, r.Unit, r.Budget)
		case !r.Over() && r.Budget > 0 && knownOver[r.Case]:
			t.Errorf("%s: %s meets its budget now (%.2f <= %g): remove it from knownOver", r.Case, r.Kernel, r.Count, r.Budget)
		}
	}
	for c := range knownOver {
		found := false
		for _, r := range rows {
			found = found || r.Case == c
		}
		if !found {
			t.Errorf("knownOver names %q, which is no case", c)
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
