package parity

import (
	"math"
	"strings"
	"testing"
)

// reduceRowsCase is a REDUCE of fn over axis 1 of a FLOAT32 rows x n
// input.
func reduceRowsCase(fn string, rows, n uint32) *Case {
	return &Case{Name: "r", Operator: "REDUCE", ReduceFunction: fn, Axes: []uint32{1},
		Input:  Tensor{DataType: "FLOAT32", Sizes: []uint32{rows, n}, TotalTensorSizeInBytes: 4 * uint64(rows*n)},
		Output: Tensor{DataType: "FLOAT32", Sizes: []uint32{rows, 1}, TotalTensorSizeInBytes: 4 * uint64(rows)}}
}

// TestReduceFloatVerdicts: a float REDUCE whose outputs differ from
// DirectML's within rule 44's bound is "within bound" (passing, counted
// apart from equal), beyond it "outside bound" (a difference); NaNs of
// other payloads are equal; an integer REDUCE is still compared bit for
// bit, and so is a float one whose input is not given.
func TestReduceFloatVerdicts(t *testing.T) {
	// [1e8, 1, -1e8, 1]: exact 2; a left-to-right FP32 scan gives 1, and
	// the bound is γ_3·(2e8 + 2) + ulp(2), about 36.
	in := f32s(1e8, 1, -1e8, 1)
	sum := reduceRowsCase("SUM", 1, 4)
	nanIn := f32s(float32(math.Inf(1)), float32(math.Inf(-1)), 2, 3)
	for _, c := range []struct {
		name        string
		c           *Case
		input       []byte
		dml, vk     []byte
		want        string
		wantDetail  string
		wantPassed  bool
		wantCaseVer string
	}{
		{"equal", sum, in, f32s(2), f32s(2), Equal, "", true, VerdictEqual},
		{"within", sum, in, f32s(1), f32s(2), WithinBound, "within semantics.md rule 44's bound", true, VerdictWithinBound},
		{"outside", sum, in, f32s(100), f32s(2), OutsideBound, "outside semantics.md rule 44's bound", false, VerdictOutsideBound},
		{"nan payloads", sum, nanIn, f32(0xffc00000), f32(0x7fc00000), Equal, "", true, VerdictEqual},
		{"no input", sum, nil, f32s(1), f32s(2), Differ, "compared bit for bit", false, VerdictUnexplained},
		{"integer", &Case{Name: "i", Operator: "REDUCE", ReduceFunction: "SUM", Axes: []uint32{1},
			Input:  Tensor{DataType: "INT32", Sizes: []uint32{1, 4}, TotalTensorSizeInBytes: 16},
			Output: Tensor{DataType: "INT32", Sizes: []uint32{1, 1}, TotalTensorSizeInBytes: 4}},
			f32(1, 1, 1, 1), f32(3), f32(4), Differ, "differ", false, VerdictUnexplained},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inputs [][]byte
			if c.input != nil {
				inputs = [][]byte{c.input}
			}
			r := &Report{}
			row := r.AddRun(c.c, inputs, ok(c.dml), ok(c.vk), nil)
			if row.Verdict != c.want || !strings.Contains(row.Detail, c.wantDetail) {
				t.Fatalf("verdict %q (%s), want %q (%q)", row.Verdict, row.Detail, c.want, c.wantDetail)
			}
			if r.Failed() == c.wantPassed {
				t.Errorf("Failed() %v: %s", r.Failed(), r.Summary())
			}
			n := r.Groups[GroupKey{c.c.Input.DataType, FamilyArg}]
			switch c.want {
			case WithinBound:
				if r.WithinBound != 1 || n.WithinBound != 1 || r.Equal != 0 || !strings.Contains(r.Summary(), "1 within bound") {
					t.Errorf("within bound not counted apart: %+v, %s", n, r.Summary())
				}
			case OutsideBound:
				if r.OutsideBound != 1 || r.Differ != 1 || n.OutsideBound != 1 || n.Unexplained != 1 {
					t.Errorf("outside bound not counted as a difference: %+v, %s", n, r.Summary())
				}
			}
			res := CompareCase(c.c, inputs, ok(c.dml), ok(c.vk), nil)
			if res.Verdict != c.wantCaseVer || res.Passed != c.wantPassed {
				t.Errorf("CompareCase: %q passed %v, want %q %v", res.Verdict, res.Passed, c.wantCaseVer, c.wantPassed)
			}
		})
	}
}

// TestReduceFloatBlocks: each output element is checked against its own
// block (axes 0 and 2 of a 2x2x2 input), and the input's values come from
// vkdml's outcome when AddRun is given none.
func TestReduceFloatBlocks(t *testing.T) {
	c := &Case{Name: "b", Operator: "REDUCE", ReduceFunction: "SUM", Axes: []uint32{0, 2},
		Input:  Tensor{DataType: "FLOAT32", Sizes: []uint32{2, 2, 2}, TotalTensorSizeInBytes: 32},
		Output: Tensor{DataType: "FLOAT32", Sizes: []uint32{1, 2, 1}, TotalTensorSizeInBytes: 8}}
	// Blocks: [1e8, 1, -1e8, 1] (positions 0, 1, 4, 5) and [1, 2, 3, 4].
	in := f32s(1e8, 1, 1, 2, -1e8, 1, 3, 4)
	vk := ok(f32s(2, 10))
	vk.Inputs = [][]byte{in}
	// 1 is within the first block's bound, not the second's.
	for _, tc := range []struct {
		dml  []byte
		want string
	}{{f32s(1, 10), WithinBound}, {f32s(2, 11), OutsideBound}} {
		row := (&Report{}).Add(c, ok(tc.dml), vk, nil)
		if row.Verdict != tc.want {
			t.Errorf("DirectML %x: verdict %q (%s), want %q", tc.dml, row.Verdict, row.Detail, tc.want)
		}
	}
}
