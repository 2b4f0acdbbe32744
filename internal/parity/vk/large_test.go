package vk_test

import (
	"slices"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/gen"
	"github.com/vkdml/vkdml/internal/parity/vk"
	"github.com/vkdml/vkdml/internal/testseed"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestLargeRandomCasesWindowed runs gen.Random's large cases, as
// `vkdml parity --live --random` does, on a device opened with the live
// run's binding-window cap and allocation size (every tensor of them
// windowed and split) and on one without, and requires equal outcomes:
// the forced windows and splits change no answer and refuse no case.
func TestLargeRandomCasesWindowed(t *testing.T) {
	seed := testseed.Seed(t)
	n := testutil.CaseCount(9, 3)
	large := func(c *parity.Case) bool { return slices.Contains(c.Covers, "large") }
	set, err := gen.Random(seed, n, large)
	if err != nil {
		t.Fatal(err)
	}
	plain := testutil.OpenDML(t, dml.DeviceOptions{})
	windowed := testutil.OpenDML(t, dml.DeviceOptions{BindingWindowCap: gen.LiveBindingWindow, MaxAllocation: gen.LiveMaxAllocation})
	rep := &parity.Report{}
	refused := 0
	for i := range set.Corpus.Cases {
		c := &set.Corpus.Cases[i]
		in, idx, err := set.Input(c)
		if err != nil {
			t.Fatal(err)
		}
		if c.Input.TotalTensorSizeInBytes < gen.MinLargeInputBytes {
			t.Errorf("case %s: input of %d bytes is not large", c.Name, c.Input.TotalTensorSizeInBytes)
		}
		bufs := [][]byte{in.Data[:c.Input.TotalTensorSizeInBytes]}
		if idx != nil {
			bufs = append(bufs, idx.Data[:c.Indices.TotalTensorSizeInBytes])
		}
		want, err := vk.RunBuffers(plain, c, bufs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := vk.RunBuffers(windowed, c, bufs)
		if err != nil {
			t.Fatal(err)
		}
		if got.HR == hresult.DXGI_ERROR_UNSUPPORTED && !want.HR.Failed() {
			// The forced windows cannot cover this layout (a block whose
			// elements lie further apart than a window, a plane larger
			// than one): `vkdml parity --live` then runs the case as the
			// device allows, as this test's plain run did.
			t.Logf("case %s: refused under the forced windows, run as the device allows: %s", c.Name, got.Message)
			refused++
			continue
		}
		if want.HR.Failed() {
			t.Errorf("case %s (%s): %v: %s", c.Name, c.Note, want.HR, want.Message)
		}
		if row := rep.Add(c, want, got, nil); row.Verdict != parity.Equal {
			t.Errorf("case %s (%s, seed %d): windowed and split: %s: %s", c.Name, c.Note, seed, row.Verdict, row.Detail)
		}
	}
	t.Logf("%d of %d cases ran windowed and split, %d as the device allows", len(set.Corpus.Cases)-refused, len(set.Corpus.Cases), refused)
}
