package tests

import (
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// skipOne is an identity whose reference leaves one element unwritten,
// standing in for a kernel that forgets an element.
type skipOne struct{ dml.ElementWiseIdentity }

func (s *skipOne) Reference(in, out []*tensor.Tensor) error {
	saved := out[0].Bits(1)
	s.ElementWiseIdentity.Reference(in, out)
	out[0].SetBits([]uint32{1}, saved)
	return nil
}

// TestHarnessCatchesMissedWrite proves the poisoned-output comparison can
// fail: the GPU writes element 1, the reference leaves the poison there.
func TestHarnessCatchesMissedWrite(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := tensor.FromFloat32([]uint32{4}, []float32{1, 2, 3, 4})
	desc := &skipOne{dml.ElementWiseIdentity{Input: in.Desc, Output: in.Desc.Clone()}}
	res, err := testutil.RunPoisoned(d, desc, []*tensor.Tensor{in}, rng)
	if err != nil {
		t.Fatal(err)
	}
	diff := testutil.DiffTensors(res.Expected[0], res.Outputs[0], 4)
	if !strings.Contains(diff, "at [1]") {
		t.Fatalf("the harness did not report element 1: %q", diff)
	}
}

// TestHarnessKeepsStridedGaps checks rule 6 end to end: with a padded
// output, the bytes between elements keep the poison.
func TestHarnessKeepsStridedGaps(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	in := tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	out := tensor.NewStridedDesc(tensor.Float32, []uint32{2, 3}, []uint32{5, 1})
	res := testutil.CheckOperator(t, d, &dml.ElementWiseIdentity{Input: in.Desc, Output: out}, []*tensor.Tensor{in}, rng)
	gap := res.Outputs[0].Data[12:20] // elements 3 and 4 of row 0's padding
	for _, b := range gap[1:] {
		if b != gap[0] {
			t.Fatalf("padding bytes were written: % x", gap)
		}
	}
}
