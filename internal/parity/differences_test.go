package parity

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/tensor"
)

func u32s(v ...uint32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// stridedCase is an ARGMAX whose UINT32 output of 2 elements lies at
// buffer elements 0 and 2 of 3 (strides [2]).
func stridedCase() *Case {
	return &Case{Name: "strided", Operator: "ARGMAX",
		Input:  Tensor{DataType: "FLOAT32", Sizes: []uint32{2, 2}, TotalTensorSizeInBytes: 16},
		Output: Tensor{DataType: "UINT32", Sizes: []uint32{2, 1}, Strides: []uint32{2, 1}, TotalTensorSizeInBytes: 12},
		Axes:   []uint32{1}}
}

// TestElementsGolden: a golden of the output's elements only is compared
// element by element at the strides' positions, leaving the bytes
// between them alone; a doctored element is found at its coordinates.
func TestElementsGolden(t *testing.T) {
	c := stridedCase()
	vk := ok(u32s(1, OutputFill*0x01010101, 0))
	golden := &Outcome{Outputs: [][]byte{u32s(1, 0)}, Elements: []bool{true}}
	if d := Diff(c, golden, vk); d != "" {
		t.Fatalf("equal elements differ: %s", d)
	}
	golden.Outputs[0] = u32s(1, 1)
	comps, diffs, problems := compareOutputs(c, golden, vk)
	if len(problems) > 0 || comps[0].Compared != ComparedElements || comps[0].Differing != 1 || len(diffs) != 1 ||
		!slices.Equal(diffs[0].Coordinates, []uint32{1, 0}) || diffs[0].BufferElement != 2 || diffs[0].Expected != "1" || diffs[0].VKDML != "0" {
		t.Fatalf("doctored element: %+v %+v %v", comps, diffs, problems)
	}
	// The whole buffer: the byte between the elements counts too.
	_, diffs, _ = compareOutputs(c, ok(u32s(1, 0, 0)), vk)
	if len(diffs) != 1 || diffs[0].Coordinates != nil || diffs[0].BufferElement != 1 {
		t.Fatalf("unaddressed byte: %+v", diffs)
	}
}

// TestReadGoldenSizes: a golden .npy holds the whole buffer or the
// elements; another size is refused naming both.
func TestReadGoldenSizes(t *testing.T) {
	c := stridedCase()
	dir := t.TempDir()
	for _, x := range []struct {
		data     []byte
		elements bool
		err      string
	}{
		{u32s(1, 2, 3), false, ""},
		{u32s(1, 2), true, ""},
		{u32s(1), false, "neither the output's buffer (12 bytes"},
	} {
		path := filepath.Join(dir, "g.npy")
		if err := tensor.WriteNpyFile(path, BufferNpy(tensor.UInt32, x.data)); err != nil {
			t.Fatal(err)
		}
		g, err := readGolden(path, &c.Output)
		if x.err != "" {
			if err == nil || !strings.Contains(err.Error(), x.err) {
				t.Errorf("%d bytes: error %v, want %q", len(x.data), err, x.err)
			}
			continue
		}
		if err != nil || g.elements != x.elements || len(g.Data) != len(x.data) {
			t.Errorf("%d bytes: %+v, %v", len(x.data), g, err)
		}
		os.Remove(path)
	}
}

// TestHints: each hint is named where its pattern is in the difference's
// values or source, and not elsewhere.
func TestHints(t *testing.T) {
	f32 := func(v ...float32) []byte {
		b := make([]byte, 0, 4*len(v))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	i64 := func(v ...int64) []byte {
		b := make([]byte, 0, 8*len(v))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
		return b
	}
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	block := func(dt string, n uint32) *Case {
		return &Case{Operator: "ARGMAX", Input: Tensor{DataType: dt, Sizes: []uint32{1, n}, TotalTensorSizeInBytes: uint64(n) * 8},
			Output: Tensor{DataType: "UINT32", Sizes: []uint32{1, 1}, TotalTensorSizeInBytes: 4}}
	}
	src := func(n int64) *Source {
		return &Source{Kind: "block", Start: []int64{0, 0}, End: []int64{1, n}, Extreme: "max"}
	}
	for _, x := range []struct {
		name  string
		c     *Case
		in    []byte
		src   *Source
		value string
		want  []string
	}{
		{"nan in block", block("FLOAT32", 3), f32(1, nan, 2), src(3), "0", []string{HintNaN}},
		{"tie", block("FLOAT32", 3), f32(2, 1, 2), src(3), "0", []string{HintTie}},
		{"signed zeros", block("FLOAT32", 2), f32(0, negZero), src(2), "0", []string{HintSignedZero, HintTie}},
		{"plain", block("FLOAT32", 3), f32(1, 3, 2), src(3), "0", nil},
		{"int64 straddle", block("INT64", 2), i64(1<<31+5, 7), src(2), "0", []string{HintInt64Order}},
		{"int64 apart", block("INT64", 2), i64(1<<32+5, 7), src(2), "0", nil},
		{"all padding", block("FLOAT32", 3), f32(1, 2, 3), &Source{Kind: "window", Start: []int64{0, -3}, End: []int64{1, -1}, Extreme: "max"}, "0", []string{HintAllPadding}},
		{"nan value", block("FLOAT32", 3), f32(1, 3, 2), nil, "NaN", nil},
		{"duplicate index", block("FLOAT32", 3), f32(1, 3, 2), &Source{Kind: "elements", Elements: [][]uint32{{0, 0}, {0, 2}}}, "0", []string{HintDuplicateIndex}},
		{"one index", block("FLOAT32", 3), f32(1, 3, 2), &Source{Kind: "elements", Elements: [][]uint32{{0, 2}}}, "0", nil},
	} {
		t.Run(x.name, func(t *testing.T) {
			d := &Difference{Expected: "1", VKDML: x.value, Source: x.src}
			var kinds []string
			for _, h := range hints(x.c, [][]byte{x.in}, d) {
				kinds = append(kinds, h.Kind)
			}
			if !slices.Equal(kinds, x.want) {
				t.Fatalf("hints %v, want %v", kinds, x.want)
			}
		})
	}
}
