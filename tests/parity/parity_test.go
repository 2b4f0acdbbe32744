// Package parity_test compares vkdml with the real DirectML on the parity
// corpus, without Windows or Wine: the goldens in golden/ were written by
// parity/cmd/dmlrunner running DirectML.dll (`make parity` refreshes them
// under Wine and checks again against the live library).
package parity_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/vk"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestGoldens runs every case through vkdml (validation layer on) and
// compares it with DirectML's result, element by element.
func TestGoldens(t *testing.T) {
	dev := testutil.OpenDML(t, dml.DeviceOptions{})
	rep, err := vk.Compare(dev, ".", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if rep.Failed() {
		rep.PrintDetails(&out)
		t.Errorf("vkdml differs from DirectML (or a case has no golden); `go run ./cmd/vkdml parity` prints the whole table:\n%s", out.String())
	} else {
		rep.Print(&out)
		t.Log("\n" + out.String())
	}
	if rep.Equal == 0 || rep.RejectedByBoth == 0 {
		t.Errorf("%s: the corpus must have both cases that run and cases that are rejected", rep.Summary())
	}
	// The goldens come from a DirectML device with the 16-bit types (the
	// rig's Mesa 25 lavapipe, semantics.md rule 16): every 16-bit case has
	// DirectML's own answer, none is skipped.
	if rep.Sixteen.Skipped > 0 || rep.Sixteen.Equal < 100 {
		t.Errorf("%s: the 16-bit cases must be compared with DirectML's results, not skipped (regenerate the goldens with `make parity` on the Mesa 25 rig)", rep.Summary())
	}
	for _, dt := range []string{"FLOAT16", "INT16", "UINT16"} {
		for _, fam := range []string{parity.FamilyArg, parity.FamilyMaxPool} {
			if n := rep.Groups[parity.GroupKey{Type: dt, Family: fam}]; n == nil || n.Equal == 0 {
				t.Errorf("no %s %s case equals DirectML's result", dt, fam)
			}
		}
	}
}

// rulesWithoutCases are rules that define what vkdml does not compute yet,
// so that no corpus case can compare it with DirectML; each names the
// issue that adds the cases with the kernels.
var rulesWithoutCases = map[int]string{}

// TestEveryRuleCovered checks that each numbered rule of semantics.md has a
// case, and that the seed pages' examples are in the corpus.
func TestEveryRuleCovered(t *testing.T) {
	c, err := parity.LoadCorpus(".")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, cs := range c.Cases {
		for _, what := range cs.Covers {
			covered[what] = true
		}
	}
	// The rules vkdml implements are numbered in docs/semantics.md; the one
	// after its "parity rig" heading describes the Wine rig itself (rule
	// 16), which no corpus case can exercise on vkdml.
	b, err := os.ReadFile("../../docs/semantics.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if i := strings.Index(text, "## The parity rig"); i >= 0 {
		text = text[:i]
	}
	// Every rule before the rig's section (1-15, and MAX_UNPOOLING's 17-22,
	// numbered after the rig's 16).
	var rules []int
	for _, m := range regexp.MustCompile(`(?m)^(\d+)\. \*\*`).FindAllStringSubmatch(text, -1) { // a rule opens with its bold title
		n, _ := strconv.Atoi(m[1])
		rules = append(rules, n)
	}
	if len(rules) < 15 {
		t.Fatalf("docs/semantics.md numbers only %d rules before the rig's section; want 15 or more", len(rules))
	}
	for _, n := range rules {
		if reason, ok := rulesWithoutCases[n]; ok {
			if covered[fmt.Sprintf("rule %d", n)] {
				t.Errorf("semantics.md rule %d has parity cases now: remove it from rulesWithoutCases (%s)", n, reason)
			}
			continue
		}
		if !covered[fmt.Sprintf("rule %d", n)] {
			t.Errorf("semantics.md rule %d has no parity case", n)
		}
	}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for ex := 1; ex <= 3; ex++ {
			if want := fmt.Sprintf("seed:DML_%s_OPERATOR_DESC example %d", op, ex); !covered[want] {
				t.Errorf("no case covers %q", want)
			}
		}
	}
	if !covered["fact:maxpool window entirely in padding"] || !covered["fact:maxpool NHWC strides give NCHW indices"] {
		t.Error("the max-pooling facts of dml-under-wine.md are not all covered")
	}
}

// TestCorpusIsGenerated checks that corpus.json and inputs/ are exactly what
// the committed generator writes, so the corpus can always be regenerated.
func TestCorpusIsGenerated(t *testing.T) {
	goBin := testutil.GoCommand(t, "runs the generator")
	dir := t.TempDir()
	cmd := exec.Command(goBin, "run", "../../parity/cmd/gencorpus", "-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencorpus: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, parity.InputsDir, "*.npy"))
	files = append(files, filepath.Join(dir, parity.ManifestFile))
	committed, _ := filepath.Glob(filepath.Join(parity.InputsDir, "*.npy"))
	if len(committed)+1 != len(files) {
		t.Errorf("the generator writes %d input files, %d are committed", len(files)-1, len(committed))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(rel)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output: run `go run ./parity/cmd/gencorpus` (then `make parity` for new goldens)", rel)
		}
	}
}
