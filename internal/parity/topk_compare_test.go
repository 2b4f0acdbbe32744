package parity

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/vkdml/vkdml/hresult"
)

func topKTestCase(dir string, n, k uint32) *Case {
	t := func(dt string, size uint32) Tensor {
		return Tensor{DataType: dt, Sizes: []uint32{size}, TotalTensorSizeInBytes: uint64(4 * size)}
	}
	idx := t("UINT32", k)
	return &Case{Name: "t", Operator: "TOP_K1", Input: t("FLOAT32", n), Output: t("FLOAT32", k), OutputIndices: &idx,
		AxisDirection: dir, Expect: "S_OK"}
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// TestTopKNaNExplained: rule 38 explains INCREASING differences only on an
// input holding a NaN, rule 36 only differences confined to NaN places.
func TestTopKNaNExplained(t *testing.T) {
	nan := float32(math.NaN())
	out := func(v []float32, i []uint32) *Outcome {
		return &Outcome{HR: hresult.S_OK, Outputs: [][]byte{f32s(v...), u32s(i...)}}
	}
	cases := []struct {
		name       string
		dir        string
		input      []float32
		golden, vk *Outcome
		want       string
	}{
		{"increasing with a NaN", "INCREASING", []float32{1, nan, 3, 2}, out([]float32{2, 3}, []uint32{3, 2}), out([]float32{1, 2}, []uint32{0, 3}), TopKIncreasingNaNReason},
		{"increasing without a NaN", "INCREASING", []float32{1, 4, 3, 2}, out([]float32{2, 3}, []uint32{3, 2}), out([]float32{1, 2}, []uint32{0, 3}), ""},
		{"decreasing with a NaN, numbers differ", "DECREASING", []float32{1, nan, 3, 2}, out([]float32{3, 1}, []uint32{2, 0}), out([]float32{3, 2}, []uint32{2, 3}), ""},
		{"decreasing, only NaN places differ", "DECREASING", []float32{nan, 2, nan, 1}, out([]float32{2, 1, nan}, []uint32{1, 3, 2}), out([]float32{2, 1, nan}, []uint32{1, 3, 0}), TopKNaNChoiceReason},
		{"decreasing, a NaN against a number", "DECREASING", []float32{nan, 2, nan, 1}, out([]float32{2, nan, nan}, []uint32{1, 2, 0}), out([]float32{2, 1, nan}, []uint32{1, 3, 0}), ""},
	}
	for _, c := range cases {
		cs := topKTestCase(c.dir, uint32(len(c.input)), uint32(len(c.golden.Outputs[0])/4))
		c.vk.Inputs = [][]byte{f32s(c.input...)}
		if got := topKNaN(cs, c.golden, c.vk); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
