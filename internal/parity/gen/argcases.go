// ARGMAX, ARGMIN and REDUCE cases: the seed pages' examples, the rules
// of semantics.md and the must-reject cases.

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

type argSpec struct {
	name, op, fn string // op ARGMAX|ARGMIN|REDUCE, fn for REDUCE
	covers       []string
	note         string
	in           parity.Tensor
	out          parity.Tensor
	axes         []uint32
	dir          string
	expect       string
}

func (g *gen) arg(s argSpec, set func(*tensor.Tensor, []uint32, int)) {
	dt, _ := tensor.ParseDataType(s.in.DataType)
	gapOp := s.op
	if s.op == "REDUCE" {
		gapOp = "REDUCE_" + s.fn
	}
	var buf *tensor.Tensor
	if dt.Valid() && s.in.TotalTensorSizeInBytes > 0 && s.in.TotalTensorSizeInBytes >= tensor.CalcBufferTensorSize(dt, s.in.Sizes, s.in.Strides) {
		buf = buffer(s.in, gapValue(dt, gapOp), set)
	} else { // must-reject cases with unusable descs: a buffer of the size they state
		n := (s.in.TotalTensorSizeInBytes + 3) / 4
		if n == 0 {
			n = 1
		}
		buf = &tensor.Tensor{Desc: tensor.NewDesc(tensor.UInt32, u32(uint32(n))), Data: make([]byte, 4*n)}
		if dt.Valid() {
			m := uint32(4 * n / uint64(dt.Size()))
			buf = &tensor.Tensor{Desc: tensor.NewDesc(dt, u32(m)), Data: make([]byte, 4*n)}
		}
	}
	g.add(parity.Case{Name: s.name, Covers: s.covers, Note: s.note, Operator: s.op, ReduceFunction: s.fn,
		Input: s.in, Output: s.out, Axes: s.axes, AxisDirection: s.dir, Expect: s.expect}, buf)
}

// argOut is the packed output desc for input sizes reduced over axes.
func argOut(dt tensor.DataType, sizes, axes []uint32) parity.Tensor {
	out := append([]uint32(nil), sizes...)
	for _, a := range axes {
		if int(a) < len(out) {
			out[a] = 1
		}
	}
	return desc(dt, out, nil)
}

var seedInput = []float64{1, 2, 3, 3, 0, 4, 2, 5, 2}

func (g *gen) seeds() {
	in := desc(tensor.Float32, u32(3, 3), nil)
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		page := "seed:DML_" + op + "_OPERATOR_DESC"
		for i, axes := range [][]uint32{{0}, {1}, {0, 1}} {
			g.arg(argSpec{name: fmt.Sprintf("seed_%s_example%d", lower(op), i+1), op: op,
				covers: []string{fmt.Sprintf("%s example %d", page, i+1), "rule 1"},
				in:     in, out: argOut(tensor.UInt32, u32(3, 3), axes), axes: axes, dir: "INCREASING"}, floats(seedInput...))
		}
	}
	// The AxisDirection examples of the pages.
	for _, ex := range []struct {
		op   string
		vals []float64
	}{{"ARGMAX", []float64{3, 2, 1, 2, 3}}, {"ARGMIN", []float64{1, 2, 3, 2, 1}}} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("seed_%s_direction_%s", lower(ex.op), lower(dir)), op: ex.op,
				covers: []string{"seed:DML_" + ex.op + "_OPERATOR_DESC AxisDirection example", "rule 4"},
				in:     desc(tensor.Float32, u32(5), nil), out: desc(tensor.UInt32, u32(1), nil), axes: u32(0), dir: dir}, floats(ex.vals...))
		}
	}
	// REDUCE equals ARGMAX/ARGMIN with INCREASING (the pages' remark).
	for _, fn := range []string{"ARGMAX", "ARGMIN"} {
		g.arg(argSpec{name: "seed_reduce_" + lower(fn) + "_rows", op: "REDUCE", fn: fn,
			covers: []string{"seed:DML_" + fn + "_OPERATOR_DESC remark (REDUCE equivalence)", "rule 4"},
			in:     in, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1)}, floats(seedInput...))
	}
}

// rules adds the cases of semantics.md, rule by rule. The order is part of
// the corpus: the cases keep it, and rule 4 draws from the random source.
func (g *gen) rules() {
	g.indexAndShapeRules()
	g.tieAndNaNRules()
	g.outputAndBufferRules()
	g.poolWindowRules()
	g.poolPaddingRules()
	g.poolIndexAndParameterRules()
}

// indexAndShapeRules adds rules 1-3: the index is logical within the block
// of reduced axes; the axes; the output shape.
func (g *gen) indexAndShapeRules() {
	f32 := tensor.Float32
	// Rule 1: logical index in the block of reduced axes, kept coordinates
	// fixed; input strides never change an index.
	sizes := u32(2, 3, 4)
	g.arg(argSpec{name: "rule01_block_index_axes02", op: "ARGMAX", covers: []string{"rule 1"},
		in: desc(f32, sizes, nil), out: argOut(tensor.UInt32, sizes, u32(0, 2)), axes: u32(0, 2)}, floats(ruleValues(24)...))
	g.arg(argSpec{name: "rule01_strided_input_transposed", op: "ARGMAX", covers: []string{"rule 1"},
		note: "input strides {1,2,6}: the index is logical, not a memory offset",
		in:   desc(f32, sizes, u32(1, 2, 6)), out: argOut(tensor.UInt32, sizes, u32(1, 2)), axes: u32(1, 2)}, floats(ruleValues(24)...))
	g.arg(argSpec{name: "rule01_strided_input_gaps_argmin", op: "ARGMIN", covers: []string{"rule 1"},
		in: desc(f32, sizes, u32(20, 6, 1)), out: argOut(tensor.UInt32, sizes, u32(0, 1)), axes: u32(0, 1)}, floats(ruleValues(24)...))

	// Rule 2: axes order, duplicates, out of range, AxisCount = 0.
	in33 := desc(f32, u32(3, 3), nil)
	for _, a := range []struct {
		name string
		axes []uint32
	}{{"unsorted_10", u32(1, 0)}, {"duplicate_11", u32(1, 1)}, {"duplicate_001", u32(0, 0, 1)}} {
		g.arg(argSpec{name: "rule02_axes_" + a.name, op: "ARGMAX", covers: []string{"rule 2"},
			in: in33, out: argOut(tensor.UInt32, u32(3, 3), a.axes), axes: a.axes}, floats(seedInput...))
	}
	g.arg(argSpec{name: "rule02_axis_out_of_range", op: "ARGMAX", covers: []string{"rule 2", "rule 14"},
		in: in33, out: desc(tensor.UInt32, u32(3, 3), nil), axes: u32(2), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule02_axiscount0_null", op: "ARGMAX", covers: []string{"rule 2"}, note: "Axes = NULL",
		in: in33, out: desc(tensor.UInt32, u32(3, 3), nil), axes: nil}, floats(seedInput...))
	g.arg(argSpec{name: "rule02_axiscount0_nonnull_argmin", op: "ARGMIN", covers: []string{"rule 2"}, note: "Axes non-null, AxisCount 0",
		in: in33, out: desc(tensor.UInt32, u32(3, 3), nil), axes: []uint32{}}, floats(seedInput...))
	g.arg(argSpec{name: "rule02_axiscount0_reduced_output", op: "ARGMAX", covers: []string{"rule 2", "rule 14"},
		in: in33, out: desc(tensor.UInt32, u32(1, 1), nil), axes: nil, expect: "E_INVALIDARG"}, floats(seedInput...))

	// Rule 3: output shape.
	g.arg(argSpec{name: "rule03_reduced_axis_not_1", op: "ARGMAX", covers: []string{"rule 3"},
		in: in33, out: desc(tensor.UInt32, u32(3, 3), nil), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule03_kept_axis_wrong", op: "ARGMIN", covers: []string{"rule 3"},
		in: in33, out: desc(tensor.UInt32, u32(2, 1), nil), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule03_rank_dropped", op: "ARGMAX", covers: []string{"rule 3"},
		in: in33, out: desc(tensor.UInt32, u32(3), nil), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
}

// tieAndNaNRules adds rules 4-5: ties in both directions (also across long
// rows), REDUCE as INCREASING, NaN and signed zero.
func (g *gen) tieAndNaNRules() {
	f32 := tensor.Float32
	in33 := desc(f32, u32(3, 3), nil)
	// Rule 4: ties, both directions, multi-axis blocks, REDUCE = INCREASING.
	ties := []float64{2, 7, 7, 1, 7, 0, 7, 3, 7, 7, 1, 1}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			vals := ties
			if op == "ARGMIN" {
				vals = make([]float64, len(ties))
				for i, v := range ties {
					vals[i] = -v
				}
			}
			g.arg(argSpec{name: fmt.Sprintf("rule04_ties_%s_%s", lower(op), lower(dir)), op: op, covers: []string{"rule 4"},
				in: desc(f32, u32(2, 2, 3), nil), out: argOut(tensor.UInt32, u32(2, 2, 3), u32(1, 2)), axes: u32(1, 2), dir: dir}, floats(vals...))
		}
		g.arg(argSpec{name: "rule04_ties_reduce_" + lower(op), op: "REDUCE", fn: op, covers: []string{"rule 4"},
			in: desc(f32, u32(2, 2, 3), nil), out: argOut(tensor.UInt32, u32(2, 2, 3), u32(1, 2)), axes: u32(1, 2)}, floats(ties...))
	}
	// Long rows: ties across DirectML's internal partitions.
	long := make([]float64, 2*2000)
	for i := range long {
		long[i] = float64(g.rng.Intn(3))
	}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("rule04_long_rows_ties_%s_%s", lower(op), lower(dir)), op: op, covers: []string{"rule 4"},
				note: "rows of 2000 with values in {0,1,2}",
				in:   desc(f32, u32(2, 2000), nil), out: argOut(tensor.UInt32, u32(2, 2000), u32(1)), axes: u32(1), dir: dir}, floats(long...))
		}
	}

	// Rule 5: NaN in short rows (the rows dml-under-wine.md lists), and
	// signed zero.
	nan := math.NaN()
	rows := [][]float64{{1, nan, 3}, {nan, 1, 2}, {1, 2, nan}, {nan, nan, nan}, {2, nan, 5}, {nan, 5, 1}, {0, math.Copysign(0, -1), 0}, {math.Copysign(0, -1), 0, math.Copysign(0, -1)}}
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dir := range []string{"INCREASING", "DECREASING"} {
			g.arg(argSpec{name: fmt.Sprintf("rule05_nan_short_rows_%s_%s", lower(op), lower(dir)), op: op, covers: []string{"rule 5"},
				note: "rows [1,NaN,3] [NaN,1,2] [1,2,NaN] [NaN,NaN,NaN] [2,NaN,5] [NaN,5,1] [0,-0,0] [-0,0,-0]",
				in:   desc(f32, u32(8, 3), nil), out: argOut(tensor.UInt32, u32(8, 3), u32(1)), axes: u32(1), dir: dir}, floats(flat...))
		}
	}
	g.arg(argSpec{name: "rule05_nan_columns_argmax", op: "ARGMAX", covers: []string{"rule 5"},
		note: "columns of [[NaN,1,5],[2,NaN,5],[3,2,NaN]]",
		in:   in33, out: argOut(tensor.UInt32, u32(3, 3), u32(0)), axes: u32(0)}, floats(nan, 1, 5, 2, nan, 5, 3, 2, nan))
	g.arg(argSpec{name: "rule05_nan_float16_short_rows", op: "ARGMIN", covers: []string{"rule 5"},
		in: desc(tensor.Float16, u32(3, 3), nil), out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1)}, floats(1, nan, 3, nan, 1, 2, 2, nan, 5))
}

// outputAndBufferRules adds rules 6 and 12-14: only addressed output
// elements are written; buffer sizes; broadcast inputs and aliasing
// outputs; error codes.
func (g *gen) outputAndBufferRules() {
	f32 := tensor.Float32
	in33 := desc(f32, u32(3, 3), nil)
	// Rule 6: only addressed output elements are written.
	g.arg(argSpec{name: "rule06_strided_output_gaps", op: "ARGMAX", covers: []string{"rule 6"},
		note: "output strides {2,1}: the odd elements keep the fill",
		in:   desc(f32, u32(4, 3), nil), out: desc(tensor.UInt32, u32(4, 1), u32(2, 1)), axes: u32(1)}, floats(ruleValues(12)...))
	g.arg(argSpec{name: "rule06_int64_output_as_strided_int32", op: "ARGMIN", covers: []string{"rule 6"},
		note: "INT32 output with stride 2, as ONNX Runtime views int64 outputs",
		in:   desc(f32, u32(3, 4), nil), out: desc(tensor.Int32, u32(3, 1), u32(2, 2)), axes: u32(1)}, floats(ruleValues(12)...))

	// Rule 12: buffer sizes.
	g.arg(argSpec{name: "rule12_total_size_too_small", op: "ARGMAX", covers: []string{"rule 12", "rule 14"},
		in: parity.Tensor{DataType: "FLOAT32", Sizes: u32(3, 3), TotalTensorSizeInBytes: 32}, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "rule12_strided_total_size_too_small", op: "ARGMAX", covers: []string{"rule 12"},
		in: parity.Tensor{DataType: "FLOAT32", Sizes: u32(3, 3), Strides: u32(4, 1), TotalTensorSizeInBytes: 40}, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	big := desc(f32, u32(3, 3), u32(4, 1))
	big.TotalTensorSizeInBytes += 64
	g.arg(argSpec{name: "rule12_total_size_larger_ok", op: "ARGMAX", covers: []string{"rule 12"},
		in: big, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1)}, floats(seedInput...))
	g.arg(argSpec{name: "rule12_int8_size_rounded_up", op: "ARGMIN", covers: []string{"rule 12"},
		note: "3 INT8 elements: TotalTensorSizeInBytes is 4",
		in:   desc(tensor.Int8, u32(1, 3), nil), out: argOut(tensor.UInt32, u32(1, 3), u32(1)), axes: u32(1)}, floats(5, -3, 7))
	g.arg(argSpec{name: "rule12_zero_size", op: "ARGMAX", covers: []string{"rule 12", "rule 14"},
		in: parity.Tensor{DataType: "FLOAT32", Sizes: u32(3, 0), TotalTensorSizeInBytes: 4}, out: desc(tensor.UInt32, u32(3, 1), nil), axes: u32(1), expect: "E_INVALIDARG"}, floats())

	// Rule 13: broadcast inputs; aliasing outputs.
	g.arg(argSpec{name: "rule13_broadcast_input", op: "ARGMAX", covers: []string{"rule 13"},
		note: "input strides {0,1}: every row is the same 4 values",
		in:   desc(f32, u32(3, 4), u32(0, 1)), out: argOut(tensor.UInt32, u32(3, 4), u32(0)), axes: u32(0)}, floats(ruleValues(12)...))
	g.arg(argSpec{name: "rule13_aliasing_output", op: "ARGMAX", covers: []string{"rule 13"},
		note: "output strides {0,1} on a 3x1 output: all three rows write one element; vkdml refuses",
		in:   in33, out: desc(tensor.UInt32, u32(3, 1), u32(0, 1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))

	// Rule 14: error codes (the must-reject cases all check it too).
	g.arg(argSpec{name: "rule14_bad_axis_direction", op: "ARGMAX", covers: []string{"rule 14"},
		in: in33, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1), dir: "2", expect: "E_INVALIDARG"}, floats(seedInput...))

}

// rejects adds must-reject cases beyond the rule lines.
func (g *gen) rejects() {
	in33 := desc(tensor.Float32, u32(3, 3), nil)
	g.arg(argSpec{name: "reject_argmax_float32_output", op: "ARGMAX", covers: []string{"reject", "rule 14"},
		in: in33, out: argOut(tensor.Float32, u32(3, 3), u32(1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "reject_argmin_output_int16", op: "ARGMIN", covers: []string{"reject", "rule 14"},
		in: in33, out: argOut(tensor.Int16, u32(3, 3), u32(1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "reject_argmax_rank_9", op: "ARGMAX", covers: []string{"reject", "rule 14"},
		in: desc(tensor.Float32, u32(1, 1, 1, 1, 1, 1, 1, 3, 3), nil), out: argOut(tensor.UInt32, u32(1, 1, 1, 1, 1, 1, 1, 3, 3), u32(8)), axes: u32(8), expect: "E_INVALIDARG"}, floats(seedInput...))
	g.arg(argSpec{name: "reject_reduce_axis_out_of_range", op: "REDUCE", fn: "ARGMIN", covers: []string{"reject", "rule 14"},
		in: in33, out: argOut(tensor.UInt32, u32(3, 3), nil), axes: u32(5), expect: "E_INVALIDARG"}, floats(seedInput...))
}
