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

// TestTopKNaNExplained: rule 38 explains differences in either direction
// only in sequences holding a NaN, rule 36 only differences confined to
// NaN places.
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
		{"increasing with a NaN", "INCREASING", []float32{1, nan, 3, 2}, out([]float32{2, 3}, []uint32{3, 2}), out([]float32{1, 2}, []uint32{0, 3}), TopKNaNRowReason},
		{"increasing without a NaN", "INCREASING", []float32{1, 4, 3, 2}, out([]float32{2, 3}, []uint32{3, 2}), out([]float32{1, 2}, []uint32{0, 3}), ""},
		{"decreasing with a NaN last, K = 1", "DECREASING", []float32{82.25, 11.390625, -17.453125, nan}, out([]float32{nan}, []uint32{3}), out([]float32{82.25}, []uint32{0}), TopKNaNRowReason},
		{"decreasing with a NaN, numbers differ", "DECREASING", []float32{1, nan, 3, 2}, out([]float32{3, 2, nan}, []uint32{2, 3, 1}), out([]float32{3, 2, 1}, []uint32{2, 3, 0}), TopKNaNRowReason},
		{"decreasing without a NaN", "DECREASING", []float32{1, 5, 3, 2}, out([]float32{5, 2}, []uint32{1, 3}), out([]float32{5, 3}, []uint32{1, 2}), ""},
		{"decreasing, only NaN places differ", "DECREASING", []float32{nan, 2, nan, 1}, out([]float32{2, 1, nan}, []uint32{1, 3, 2}), out([]float32{2, 1, nan}, []uint32{1, 3, 0}), TopKNaNChoiceReason},
		{"decreasing, a NaN against a number", "DECREASING", []float32{nan, 2, nan, 1}, out([]float32{2, nan, nan}, []uint32{1, 2, 0}), out([]float32{2, 1, nan}, []uint32{1, 3, 0}), TopKNaNRowReason},
	}
	for _, c := range cases {
		cs := topKTestCase(c.dir, uint32(len(c.input)), uint32(len(c.golden.Outputs[0])/4))
		c.vk.Inputs = [][]byte{f32s(c.input...)}
		if got := topKNaN(cs, c.golden, c.vk); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTopKNaNRowOnly: in a block of two rows, one holding a NaN, rule 38
// explains a difference in that row only; one in the row without a NaN
// stays unexplained, as does any difference of an integer type.
func TestTopKNaNRowOnly(t *testing.T) {
	nan := float32(math.NaN())
	axis, k := uint32(1), uint32(2)
	block := func(dt string, sizes ...uint32) Tensor {
		return Tensor{DataType: dt, Sizes: sizes, TotalTensorSizeInBytes: uint64(4 * sizes[0] * sizes[1])}
	}
	idx := block("UINT32", 2, k)
	cs := &Case{Name: "t", Operator: "TOP_K1", Input: block("FLOAT32", 2, 4), Output: block("FLOAT32", 2, k), OutputIndices: &idx,
		Axis: &axis, K: &k, AxisDirection: "DECREASING", Expect: "S_OK"}
	input := f32s(1, 3, 2, nan, 1, 3, 2, 0) // row 0 holds a NaN, row 1 does not
	right := []float32{3, 2, 3, 2}
	rightIdx := []uint32{1, 2, 1, 2}
	vk := &Outcome{HR: hresult.S_OK, Outputs: [][]byte{f32s(right...), u32s(rightIdx...)}, Inputs: [][]byte{input}}
	for _, c := range []struct {
		name   string
		values []float32
		idx    []uint32
		want   string
	}{
		{"the NaN row differs", []float32{nan, 3, 3, 2}, []uint32{3, 1, 1, 2}, TopKNaNRowReason},
		{"the row without a NaN differs", []float32{3, 2, 3, 1}, []uint32{1, 2, 1, 0}, ""},
		{"both rows differ", []float32{nan, 3, 3, 1}, []uint32{3, 1, 1, 0}, ""},
	} {
		golden := &Outcome{HR: hresult.S_OK, Outputs: [][]byte{f32s(c.values...), u32s(c.idx...)}}
		if got := topKNaN(cs, golden, vk); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// An integer type: rule 38 is about NaN, which no integer holds.
	ints := *cs
	ints.Input.DataType, ints.Output.DataType = "INT32", "INT32"
	golden := &Outcome{HR: hresult.S_OK, Outputs: [][]byte{u32s(3, 1, 3, 2), u32s(1, 0, 1, 2)}}
	iv := &Outcome{HR: hresult.S_OK, Outputs: [][]byte{u32s(3, 2, 3, 2), u32s(1, 2, 1, 2)}, Inputs: [][]byte{u32s(1, 3, 2, 0, 1, 3, 2, 0)}}
	if got := topKNaN(&ints, golden, iv); got != "" {
		t.Errorf("INT32: got %q, want unexplained", got)
	}
}
