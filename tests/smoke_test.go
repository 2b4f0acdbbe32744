package tests

import (
	"bytes"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

func TestSmokeIdentity(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{2, 3})}
	outs, err := d.Compute(desc, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(outs[0].Data, in.Data) {
		t.Fatalf("got %v want %v", outs[0].Float64s(), in.Float64s())
	}
}
