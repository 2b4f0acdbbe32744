//go:build cgo

package ops_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// TestArgTicketGPU runs, on lavapipe, GPU plans whose split blocks are
// combined by the first pass's last workgroup through a ticket in the
// persistent resource (argmax_vec_row.comp TICKET) instead of a combine
// pass, against the CPU reference: all ten types, ARGMAX, ARGMIN and
// REDUCE's, both directions, every index type, ties and NaN across the
// segments (one workgroup each). "whole" is one output of 32 or more
// segments, combined by the whole last workgroup; "rows" a few outputs of
// fewer, a lane each. Every case runs three times on one compiled and
// initialized operator (dml.Prepare), with new values each time (and
// once more with every resource poisoned first, testutil.RunPoisoned): the
// combining workgroup must put the ticket back to 0, or the next run's
// last workgroup would not know it is last and leave the outputs stale.
// Under -short each form takes a third of the types (subgroup from the
// first, shared from the second), one case each.
func TestArgTicketGPU(t *testing.T) {
	eachCombineForm(t, func(t *testing.T, si int, opts dml.DeviceOptions) {
		used := map[string]int{}
		argPatternSweep(t, opts, testutil.CaseCount(2, 1), 3, func(d *dml.Device, rng *rand.Rand, dt tensor.DataType, pi int, pattern string) {
			if testing.Short() && typeIndex(dt)%3 != si {
				return
			}
			layout := []string{"whole", "rows"}[(used["whole"]+used["rows"])%2]
			var sizes []uint32
			switch layout {
			case "whole":
				sizes = []uint32{uint32(32*4096 + rng.Intn(8*4096))}
			case "rows":
				sizes = []uint32{uint32(2 + rng.Intn(3)), uint32(65536 + rng.Intn(30000))}
			}
			axes := []uint32{uint32(len(sizes) - 1)}
			in := argInput(dt, sizes, nil)
			argColSplitFill(rng, in, axes, pattern)
			c := argDrawCase(rng, layout+" ", in, axes, pattern, "packed")
			argTicketCheck(t, d, c, layout, rng, func() { argColSplitFill(rng, c.in, axes, pattern) })
			used[layout]++
		})
		t.Logf("ticket plans: %v", used)
		if used["whole"] == 0 || used["rows"] == 0 {
			t.Errorf("a combine form never ran: %v", used)
		}
	})
}

// TestReduceValueTicketGPU is TestArgTicketGPU for REDUCE's value
// functions, whose ticket tail merges Parts (reduce_part.glsl's
// part_merge: MAX / MIN's payload, the 64-bit accumulations) and writes
// values: every function, a type of it in turn (three under the full
// run, one under -short), the layouts alternating, every value pattern
// in turn, on both combine forms.
func TestReduceValueTicketGPU(t *testing.T) {
	eachCombineForm(t, func(t *testing.T, si int, opts dml.DeviceOptions) {
		d := testutil.OpenDML(t, opts)
		rng := testutil.Rand(t)
		used := map[string]int{}
		k := si
		for fi, f := range reduceValueFns {
			types := reduceTypesOf(f)
			for n := 0; n < testutil.CaseCount(3, 1); n++ {
				dt := types[(fi+si+3*n)%len(types)]
				pattern := reducePatterns[k%len(reducePatterns)]
				layout := []string{"whole", "rows"}[k%2]
				k++
				sizes := []uint32{uint32(32*4096 + rng.Intn(8*4096))}
				if layout == "rows" {
					sizes = []uint32{uint32(2 + rng.Intn(3)), uint32(65536 + rng.Intn(30000))}
				}
				axes := []uint32{uint32(len(sizes) - 1)}
				c := reduceCase(rng, f, argInput(dt, sizes, nil), axes, pattern, "packed")
				c.what = layout + " " + c.what
				argTicketCheck(t, d, c, layout, rng, func() { reduceFill(rng, c.in, axes, pattern) })
				used[layout]++
			}
		}
		t.Logf("ticket plans: %v", used)
	})
}

// argTicketCheck requires c's GPU plan to be one ticket dispatch whose
// last workgroup combines a workgroup per output for layout "whole" and a
// lane per output for "rows", runs it once with every resource poisoned
// (the persistent one included: the initializer must zero the ticket),
// then argTicketRuns.
func argTicketCheck(t *testing.T, d *dml.Device, c argCase, layout string, rng *rand.Rand, refill func()) {
	t.Helper()
	_, p := testutil.GPUPlan(t, d, c.desc, "", c.what)
	k := p.Kernels[0]
	if len(p.Steps) != 1 || !strings.HasSuffix(k.Variant, "_ticket") || p.PersistentSize == 0 {
		t.Fatalf("%s: GPU plan %q: kernels %v, %d steps, persistent %d B: want one ticket dispatch", c.what, p.Strategy, p.Kernels, len(p.Steps), p.PersistentSize)
	}
	group := k.Spec[1]>>18&1 == 1 // FLAGS' TICKET_GROUP
	if want := layout == "whole"; group != want {
		t.Fatalf("%s: %s's last workgroup combines a workgroup per output: %v, want %v", c.what, k.Variant, group, want)
	}
	argCheckCase(t, d, argCase{desc: &asGPU{Desc: c.desc}, in: c.in, what: c.what}, "", rng)
	argTicketRuns(t, d, c, refill)
}

// argTicketRuns runs c's GPU plan three times on one prepared operator,
// refilling the input (refill) before each run but the first, and
// compares each run's output with the reference.
func argTicketRuns(t *testing.T, d *dml.Device, c argCase, refill func()) {
	t.Helper()
	p, err := d.Prepare(&asGPU{Desc: c.desc}, dml.PrepareOptions{})
	if err != nil {
		t.Fatalf("%s: %v", c.what, err)
	}
	defer p.Release()
	out := c.desc.Outputs()[0]
	for run := 0; run < testutil.CaseCount(3, 2); run++ {
		if run > 0 {
			refill()
		}
		want := &tensor.Tensor{Desc: *out, Data: make([]byte, out.TotalTensorSizeInBytes)}
		if err := c.desc.Reference([]*tensor.Tensor{c.in}, []*tensor.Tensor{want}); err != nil {
			t.Fatal(err)
		}
		got := &tensor.Tensor{Desc: *out, Data: make([]byte, out.TotalTensorSizeInBytes)}
		if err := p.Run([][]byte{c.in.Data}, [][]byte{got.Data}); err != nil {
			t.Fatalf("%s, run %d: %v", c.what, run, err)
		}
		if diff := testutil.DiffTensors(want, got, 8); diff != "" {
			t.Fatalf("%s, run %d of one prepared operator: GPU differs from the reference:\n%s", c.what, run, diff)
		}
	}
}

// typeIndex is dt's place in tensor.AllTypes.
func typeIndex(dt tensor.DataType) int { return slices.Index(tensor.AllTypes, dt) }
