// Command gencorpus writes vkdml's parity corpus: tests/parity/corpus.json
// and tests/parity/inputs/*.npy. It is deterministic (a fixed seed and
// math/rand's stable source), so running it again gives the same bytes:
//
//	go run ./parity/cmd/gencorpus [-dir tests/parity] [-seed N]
//
// The corpus has one case per line of ../shared/docs/semantics.md (the
// "covers" field names the rule), one per example on the seed pages, random
// cases per operator × data type × feature, and must-reject cases with the
// HRESULT expected. It never touches the goldens (golden/), which only a
// DirectML run writes.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

const defaultSeed = 20250607

type gen struct {
	rng    *rand.Rand
	dir    string
	corpus parity.Corpus
	inputs map[string]*tensor.Tensor // physical buffers by case name
}

func main() {
	dir := flag.String("dir", "tests/parity", "corpus directory")
	seed := flag.Int64("seed", defaultSeed, "random seed")
	flag.Parse()
	g := &gen{rng: rand.New(rand.NewSource(*seed)), dir: *dir, inputs: map[string]*tensor.Tensor{}}
	g.corpus.Seed = *seed
	g.corpus.Comment = "vkdml parity corpus, written by `go run ./parity/cmd/gencorpus`; do not edit by hand. See internal/parity/corpus.go for the format."
	g.rules()
	g.seeds()
	g.rejects()
	g.randomArg()
	g.randomPool()
	if err := g.write(); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("gencorpus: %d cases in %s\n", len(g.corpus.Cases), *dir)
}

func (g *gen) write() error {
	in := filepath.Join(g.dir, parity.InputsDir)
	if err := os.MkdirAll(in, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(in, "*.npy"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for i := range g.corpus.Cases {
		c := &g.corpus.Cases[i]
		t := g.inputs[c.Name]
		if t == nil {
			return fmt.Errorf("case %s has no input", c.Name)
		}
		if err := tensor.WriteNpyFile(filepath.Join(g.dir, parity.InputFile(c.Name)), t); err != nil {
			return err
		}
	}
	return g.corpus.Save(g.dir)
}

// ---- tensors ----

func desc(dt tensor.DataType, sizes, strides []uint32) parity.Tensor {
	return parity.Tensor{DataType: dt.String(), Sizes: sizes, Strides: strides,
		TotalTensorSizeInBytes: tensor.CalcBufferTensorSize(dt, sizes, strides)}
}

// buffer makes the physical buffer of a tensor, fills the bytes the strides
// do not address with gap, and the addressed elements with set(t, coords,
// i) (i = the row-major logical index).
func buffer(pt parity.Tensor, gap float64, set func(t *tensor.Tensor, c []uint32, i int)) *tensor.Tensor {
	d, err := pt.Desc()
	if err != nil {
		panic(err)
	}
	es := uint64(d.DataType.Size())
	n := pt.TotalTensorSizeInBytes / es
	phys := &tensor.Tensor{Desc: tensor.NewDesc(d.DataType, []uint32{uint32(n)}), Data: make([]byte, n*es)}
	for j := uint64(0); j < n; j++ {
		phys.SetFloat64([]uint32{uint32(j)}, gap)
	}
	logical := &tensor.Tensor{Desc: d, Data: phys.Data}
	i := 0
	tensor.ForEachIndex(d.Sizes, func(c []uint32) {
		set(logical, c, i)
		i++
	})
	return phys
}

// floats sets the logical elements from vals (row-major).
func floats(vals ...float64) func(*tensor.Tensor, []uint32, int) {
	return func(t *tensor.Tensor, c []uint32, i int) { t.SetFloat64(c, vals[i]) }
}

func u32(v ...uint32) []uint32 { return v }

// typeRange returns the lowest and highest values of dt (finite for floats).
func typeRange(dt tensor.DataType) (lo, hi float64) {
	switch dt {
	case tensor.Float32:
		return -math.MaxFloat32, math.MaxFloat32
	case tensor.Float16:
		return -65504, 65504
	case tensor.Int8:
		return math.MinInt8, math.MaxInt8
	case tensor.Int16:
		return math.MinInt16, math.MaxInt16
	case tensor.Int32:
		return math.MinInt32, math.MaxInt32
	case tensor.Int64:
		return math.MinInt64, math.MaxInt64
	case tensor.UInt8:
		return 0, math.MaxUint8
	case tensor.UInt16:
		return 0, math.MaxUint16
	case tensor.UInt32:
		return 0, math.MaxUint32
	case tensor.UInt64:
		return 0, math.MaxUint64
	}
	panic(dt)
}

// setHigh/setLow store dt's highest/lowest value exactly.
func setExtreme(t *tensor.Tensor, c []uint32, high bool) {
	dt := t.Desc.DataType
	switch {
	case dt == tensor.Int64 && high:
		t.SetInt64(c, math.MaxInt64)
	case dt == tensor.Int64:
		t.SetInt64(c, math.MinInt64)
	case dt == tensor.UInt64 && high:
		t.SetUint64(c, math.MaxUint64)
	default:
		lo, hi := typeRange(dt)
		if high {
			t.SetFloat64(c, hi)
		} else {
			t.SetFloat64(c, lo)
		}
	}
}

// draw returns a setter of random values: with ties, from a set of three
// small values (so that extremes repeat); else spread over the type's range
// with its extremes now and then.
func (g *gen) draw(dt tensor.DataType, ties bool) func(*tensor.Tensor, []uint32, int) {
	return func(t *tensor.Tensor, c []uint32, _ int) {
		if ties {
			v := float64(g.rng.Intn(3))
			if dt.IsSigned() || dt.IsFloat() {
				v--
			}
			t.SetFloat64(c, v)
			return
		}
		if g.rng.Intn(20) == 0 {
			setExtreme(t, c, g.rng.Intn(2) == 0)
			return
		}
		lo, hi := typeRange(dt)
		switch {
		case dt.IsFloat():
			t.SetFloat64(c, math.Round((g.rng.Float64()*200-100)*64)/64)
		case hi-lo <= 65536:
			t.SetFloat64(c, lo+float64(g.rng.Intn(int(hi-lo)+1)))
		case dt.IsSigned():
			t.SetInt64(c, int64(g.rng.Uint64()))
		default:
			t.SetUint64(c, g.rng.Uint64())
		}
	}
}

// layout returns strides for sizes: nil (packed), a permutation of the
// dimensions with gaps, packed rows with padding, or (inputs only, when
// broadcast) a stride of 0 on one dimension.
func (g *gen) layout(sizes []uint32, kind string) []uint32 {
	n := len(sizes)
	switch kind {
	case "packed":
		return nil
	case "permuted":
		perm := g.rng.Perm(n)
		st := make([]uint32, n)
		acc := uint32(1)
		for k := n - 1; k >= 0; k-- {
			d := perm[k]
			st[d] = acc
			acc *= sizes[d] + uint32(g.rng.Intn(2))
		}
		return st
	case "padded":
		st := make([]uint32, n)
		acc := uint32(1)
		for d := n - 1; d >= 0; d-- {
			st[d] = acc
			acc *= sizes[d] + uint32(g.rng.Intn(3))
		}
		return st
	case "broadcast":
		st := tensor.PackedStrides(sizes)
		var cand []int
		for d, s := range sizes {
			if s > 1 {
				cand = append(cand, d)
			}
		}
		if len(cand) > 0 {
			st[cand[g.rng.Intn(len(cand))]] = 0
		}
		return st
	}
	panic(kind)
}

// gapValue is what unaddressed input elements hold: the value that would
// win if an implementation read them.
func gapValue(dt tensor.DataType, op string) float64 {
	lo, hi := typeRange(dt)
	if op == "ARGMIN" || (op == "REDUCE_ARGMIN") {
		if dt.IsFloat() {
			return math.Inf(-1)
		}
		return lo
	}
	if dt.IsFloat() {
		return math.Inf(1)
	}
	return hi
}

func (g *gen) add(c parity.Case, input *tensor.Tensor) {
	for _, o := range g.corpus.Cases {
		if o.Name == c.Name {
			panic("duplicate case " + c.Name)
		}
	}
	if c.Expect == "" {
		c.Expect = "S_OK"
	}
	g.corpus.Cases = append(g.corpus.Cases, c)
	g.inputs[c.Name] = input
}

// ---- ARGMAX / ARGMIN / REDUCE ----

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

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// rules adds the cases of semantics.md, rule by rule.
func (g *gen) rules() {
	f32 := tensor.Float32
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((i*7)%11) - 5
		}
		return v
	}
	// Rule 1: logical index in the block of reduced axes, kept coordinates
	// fixed; input strides never change an index.
	sizes := u32(2, 3, 4)
	g.arg(argSpec{name: "rule01_block_index_axes02", op: "ARGMAX", covers: []string{"rule 1"},
		in: desc(f32, sizes, nil), out: argOut(tensor.UInt32, sizes, u32(0, 2)), axes: u32(0, 2)}, floats(seq(24)...))
	g.arg(argSpec{name: "rule01_strided_input_transposed", op: "ARGMAX", covers: []string{"rule 1"},
		note: "input strides {1,2,6}: the index is logical, not a memory offset",
		in:   desc(f32, sizes, u32(1, 2, 6)), out: argOut(tensor.UInt32, sizes, u32(1, 2)), axes: u32(1, 2)}, floats(seq(24)...))
	g.arg(argSpec{name: "rule01_strided_input_gaps_argmin", op: "ARGMIN", covers: []string{"rule 1"},
		in: desc(f32, sizes, u32(20, 6, 1)), out: argOut(tensor.UInt32, sizes, u32(0, 1)), axes: u32(0, 1)}, floats(seq(24)...))

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

	// Rule 6: only addressed output elements are written.
	g.arg(argSpec{name: "rule06_strided_output_gaps", op: "ARGMAX", covers: []string{"rule 6"},
		note: "output strides {2,1}: the odd elements keep the fill",
		in:   desc(f32, u32(4, 3), nil), out: desc(tensor.UInt32, u32(4, 1), u32(2, 1)), axes: u32(1)}, floats(seq(12)...))
	g.arg(argSpec{name: "rule06_int64_output_as_strided_int32", op: "ARGMIN", covers: []string{"rule 6"},
		note: "INT32 output with stride 2, as ONNX Runtime views int64 outputs",
		in:   desc(f32, u32(3, 4), nil), out: desc(tensor.Int32, u32(3, 1), u32(2, 2)), axes: u32(1)}, floats(seq(12)...))

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
		in:   desc(f32, u32(3, 4), u32(0, 1)), out: argOut(tensor.UInt32, u32(3, 4), u32(0)), axes: u32(0)}, floats(seq(12)...))
	g.arg(argSpec{name: "rule13_aliasing_output", op: "ARGMAX", covers: []string{"rule 13"},
		note: "output strides {0,1} on a 3x1 output: all three rows write one element; vkdml refuses",
		in:   in33, out: desc(tensor.UInt32, u32(3, 1), u32(0, 1)), axes: u32(1), expect: "E_INVALIDARG"}, floats(seedInput...))

	// Rule 14: error codes (the must-reject cases all check it too).
	g.arg(argSpec{name: "rule14_bad_axis_direction", op: "ARGMAX", covers: []string{"rule 14"},
		in: in33, out: argOut(tensor.UInt32, u32(3, 3), u32(1)), axes: u32(1), dir: "2", expect: "E_INVALIDARG"}, floats(seedInput...))

	g.poolRules()
}

// ---- MAX_POOLING* ----

type poolSpec struct {
	name, op                         string
	covers                           []string
	note                             string
	in, out                          parity.Tensor
	idx                              *parity.Tensor
	strides, window, start, end, dil []uint32
	expect                           string
}

func (g *gen) pool(s poolSpec, set func(*tensor.Tensor, []uint32, int)) {
	dt, _ := tensor.ParseDataType(s.in.DataType)
	buf := buffer(s.in, gapValue(dt, s.op), set)
	if s.op != "MAX_POOLING2" {
		s.dil = nil
	}
	g.add(parity.Case{Name: s.name, Covers: s.covers, Note: s.note, Operator: s.op, Input: s.in, Output: s.out, OutputIndices: s.idx,
		Strides: s.strides, WindowSize: s.window, StartPadding: s.start, EndPadding: s.end, Dilations: s.dil, Expect: s.expect}, buf)
}

func ptr(t parity.Tensor) *parity.Tensor { return &t }

func iota(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

// poolOut returns output and indices descs of sizes (N, C, spatial...).
func poolOut(dt, it tensor.DataType, sizes []uint32) (parity.Tensor, *parity.Tensor) {
	return desc(dt, sizes, nil), ptr(desc(it, sizes, nil))
}

func (g *gen) poolRules() {
	f32, u := tensor.Float32, tensor.UInt32
	in44 := desc(f32, u32(1, 1, 4, 4), nil)
	// Rule 7 (and the maxpool facts of dml-under-wine.md (a)): any output
	// extent; window 2x2, stride 1, dilation 2 on 0..15.
	for _, ext := range [][]uint32{{2, 2}, {3, 3}, {1, 1}, {1, 2}, {2, 3}, {3, 2}, {4, 4}, {5, 5}} {
		out, idx := poolOut(f32, u, u32(1, 1, ext[0], ext[1]))
		g.pool(poolSpec{name: fmt.Sprintf("rule07_extent_%dx%d_dilation2", ext[0], ext[1]), op: "MAX_POOLING2",
			covers: []string{"rule 7", "rule 8", "fact:maxpool dilation 2 output extents"},
			in:     in44, out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(2, 2)}, floats(iota(16)...))
	}
	out, idx := poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule07_control_dilation1_3x3", op: "MAX_POOLING2", covers: []string{"rule 7", "fact:maxpool dilation 1 control"},
		in: in44, out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(iota(16)...))
	// Ceil-mode extent: 5x5 input, window 2, stride 2: floor 2, ceil 3.
	out, idx = poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule07_ceil_extent", op: "MAX_POOLING1", covers: []string{"rule 7"},
		in: desc(f32, u32(1, 1, 5, 5), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0)}, floats(iota(25)...))

	// Rule 8: taps o·Stride − Start + k·Dilation, asymmetric padding.
	vals := make([]float64, 2*3*5*6)
	for i := range vals {
		vals[i] = float64((i*37)%53) - 20
	}
	out, idx = poolOut(f32, u, u32(2, 3, 3, 3))
	g.pool(poolSpec{name: "rule08_window_taps_asymmetric", op: "MAX_POOLING2", covers: []string{"rule 8"},
		in: desc(f32, u32(2, 3, 5, 6), nil), out: out, idx: idx, strides: u32(2, 2), window: u32(2, 3), start: u32(1, 0), end: u32(0, 2), dil: u32(2, 1)}, floats(vals...))

	// Rule 9: all-padding windows, −FLT_MAX, −inf, NaN, ties; FLOAT16 and
	// integer lowest values.
	out, idx = poolOut(f32, u, u32(1, 1, 3, 3))
	g.pool(poolSpec{name: "rule09_all_padding_windows", op: "MAX_POOLING2", covers: []string{"rule 9", "fact:maxpool window entirely in padding"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(1, 2, 3, 4))
	g.pool(poolSpec{name: "rule09_all_padding_negative_inputs", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(-1, -2, -3, -4))
	ninf := math.Inf(-1)
	g.pool(poolSpec{name: "rule09_all_minus_inf", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(1, 1), end: u32(1, 1), dil: u32(1, 1)}, floats(ninf, ninf, ninf, ninf))
	out22, idx22 := poolOut(f32, u, u32(1, 1, 2, 2))
	g.pool(poolSpec{name: "rule09_nan_never_selected", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(1, 1), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.NaN(), 2, 3, 4))
	g.pool(poolSpec{name: "rule09_nan_in_window", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.NaN(), 1, 2, 3, math.NaN(), 0, -1, 4, math.NaN()))
	g.pool(poolSpec{name: "rule09_ties_keep_first_tap", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 3, 3), nil), out: out22, idx: idx22, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(5, 5, 5, 5, 5, 1, 0, 5, 5))
	g.pool(poolSpec{name: "rule09_signed_zero_ties", op: "MAX_POOLING2", covers: []string{"rule 9"},
		in: desc(f32, u32(1, 1, 2, 2), nil), out: desc(f32, u32(1, 1, 1, 1), nil), idx: ptr(desc(u, u32(1, 1, 1, 1), nil)), strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(math.Copysign(0, -1), 0, 0, math.Copysign(0, -1)))
	for _, dt := range []tensor.DataType{tensor.Float16, tensor.Int8, tensor.UInt8, tensor.Int16, tensor.UInt16, tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64} {
		o, ix := poolOut(dt, u, u32(1, 1, 3, 3))
		lo, _ := typeRange(dt)
		v := []float64{1, 2, 3, 4}
		if dt.IsSigned() || dt.IsFloat() {
			v = []float64{-1, -2, lo, -4}
		}
		g.pool(poolSpec{name: "rule09_all_padding_" + lower(dt.String()), op: "MAX_POOLING2", covers: []string{"rule 9"},
			note: "all-padding windows give the type's lowest value",
			in:   desc(dt, u32(1, 1, 2, 2), nil), out: o, idx: ix, strides: u32(1, 1), window: u32(1, 1), start: u32(1, 1), end: u32(0, 0), dil: u32(1, 1)}, floats(v...))
	}

	// Rule 10: indices are logical NCHW whatever the strides; UINT64.
	out, idx = poolOut(f32, u, u32(1, 2, 1, 1))
	g.pool(poolSpec{name: "rule10_nhwc_strides_indices", op: "MAX_POOLING2", covers: []string{"rule 10", "fact:maxpool NHWC strides give NCHW indices"},
		note: "physical values 0..7 in NHWC order",
		in:   desc(f32, u32(1, 2, 2, 2), u32(8, 1, 4, 2)), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)},
		func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, float64(t.Desc.Offset(c))) })
	out, idx = poolOut(f32, u, u32(2, 2, 1, 1))
	g.pool(poolSpec{name: "rule10_nhwc_strides_batch", op: "MAX_POOLING2", covers: []string{"rule 10"},
		in: desc(f32, u32(2, 2, 2, 2), u32(8, 1, 4, 2)), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)},
		func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, float64(t.Desc.Offset(c))) })
	out, idx = poolOut(f32, tensor.UInt64, u32(2, 3, 2, 2))
	g.pool(poolSpec{name: "rule10_uint64_indices", op: "MAX_POOLING2", covers: []string{"rule 10"},
		in: desc(f32, u32(2, 3, 3, 3), nil), out: out, idx: idx, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1)}, floats(vals[:54]...))

	// Rule 11: 5D, DimensionCount, types, zero parameters.
	out, idx = poolOut(f32, u, u32(1, 2, 2, 2, 2))
	g.pool(poolSpec{name: "rule11_5d", op: "MAX_POOLING2", covers: []string{"rule 11", "rule 8"},
		in: desc(f32, u32(1, 2, 3, 3, 4), nil), out: out, idx: idx, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1), dil: u32(1, 1, 1)}, floats(vals[:72]...))
	out, _ = poolOut(f32, u, u32(1, 2, 2, 2, 2))
	g.pool(poolSpec{name: "rule11_5d_max_pooling", op: "MAX_POOLING", covers: []string{"rule 11"},
		in: desc(f32, u32(1, 2, 3, 3, 4), nil), out: out, strides: u32(1, 2, 2), window: u32(2, 2, 2), start: u32(0, 1, 0), end: u32(0, 0, 1)}, floats(vals[:72]...))
	rej := func(name, note string, mod func(s *poolSpec)) {
		o, ix := poolOut(f32, u, u32(1, 1, 3, 3))
		s := poolSpec{name: name, op: "MAX_POOLING2", covers: []string{"rule 11", "rule 14"}, note: note,
			in: in44, out: o, idx: ix, strides: u32(1, 1), window: u32(2, 2), start: u32(0, 0), end: u32(0, 0), dil: u32(1, 1), expect: "E_INVALIDARG"}
		mod(&s)
		g.pool(s, floats(iota(16)...))
	}
	rej("rule11_stride_0", "", func(s *poolSpec) { s.strides = u32(1, 0) })
	rej("rule11_window_0", "", func(s *poolSpec) { s.window = u32(0, 2) })
	rej("rule11_dilation_0", "", func(s *poolSpec) { s.dil = u32(1, 0) })
	rej("rule11_dimension_count_3_for_4d", "DimensionCount 3 with a 4D input", func(s *poolSpec) {
		s.strides, s.window, s.start, s.end, s.dil = u32(1, 1, 1), u32(1, 2, 2), u32(0, 0, 0), u32(0, 0, 0), u32(1, 1, 1)
	})
	rej("rule11_output_type_differs", "", func(s *poolSpec) { s.out = desc(tensor.Float16, u32(1, 1, 3, 3), nil) })
	rej("rule11_index_type_int32", "", func(s *poolSpec) { s.idx = ptr(desc(tensor.Int32, u32(1, 1, 3, 3), nil)) })
	rej("rule11_output_batch_differs", "", func(s *poolSpec) {
		s.out, s.idx = poolOut(f32, u, u32(2, 1, 3, 3))
	})
	rej("rule11_indices_sizes_differ", "", func(s *poolSpec) { s.idx = ptr(desc(u, u32(1, 1, 3, 2), nil)) })
	rej("rule11_output_rank_differs", "", func(s *poolSpec) {
		s.out, s.idx = poolOut(f32, u, u32(1, 1, 3, 3, 1))
	})
	rej("rule13_aliasing_pool_output", "output strides {9,9,0,1}: rows alias; vkdml refuses", func(s *poolSpec) {
		s.out = desc(f32, u32(1, 1, 3, 3), u32(9, 9, 0, 1))
		s.covers = []string{"rule 13"}
	})
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

// ---- random cases ----

var allTypes = []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int32, tensor.Int16, tensor.Int8, tensor.UInt64, tensor.Int64}
var indexTypes = []tensor.DataType{tensor.UInt32, tensor.Int32, tensor.UInt64, tensor.Int64}

func (g *gen) sizes(rank, maxElems int) []uint32 {
	for {
		s := make([]uint32, rank)
		n := 1
		for i := range s {
			s[i] = uint32(1 + g.rng.Intn(5))
			n *= int(s[i])
		}
		if n <= maxElems && n > 1 {
			return s
		}
	}
}

func (g *gen) randomArg() {
	features := []string{"multi_axis", "decreasing", "strided", "ties"}
	k := 0
	for _, op := range []string{"ARGMAX", "ARGMIN"} {
		for _, dt := range allTypes {
			for _, f := range features {
				rank := 1 + g.rng.Intn(5)
				if f == "multi_axis" && rank < 2 {
					rank = 2
				}
				sizes := g.sizes(rank, 240)
				var axes []uint32
				for a := 0; a < rank; a++ {
					if g.rng.Intn(2) == 0 {
						axes = append(axes, uint32(a))
					}
				}
				if len(axes) == 0 || (f == "multi_axis" && len(axes) < 2) {
					axes = u32(0, uint32(rank-1))
					if rank == 1 {
						axes = u32(0)
					}
				}
				g.rng.Shuffle(len(axes), func(i, j int) { axes[i], axes[j] = axes[j], axes[i] })
				dir := "INCREASING"
				if f == "decreasing" || (f != "strided" && g.rng.Intn(2) == 0) {
					dir = "DECREASING"
				}
				inLayout := "packed"
				outLayout := "packed"
				if f == "strided" {
					inLayout = []string{"permuted", "padded", "broadcast"}[g.rng.Intn(3)]
					outLayout = []string{"packed", "padded"}[g.rng.Intn(2)]
				}
				it := indexTypes[k%len(indexTypes)]
				k++
				o := argOut(it, sizes, axes)
				o = desc(it, o.Sizes, g.layout(o.Sizes, outLayout))
				in := desc(dt, sizes, g.layout(sizes, inLayout))
				name := fmt.Sprintf("random_%s_%s_%s", lower(op), lower(dt.String()), f)
				g.arg(argSpec{name: name, op: op, covers: []string{"random", "rule 1", "rule 4"}, note: inLayout + " input",
					in: in, out: o, axes: axes, dir: dir}, g.draw(dt, f == "ties" || g.rng.Intn(3) == 0))
			}
		}
	}
	// REDUCE at a few types.
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int8, tensor.UInt32} {
		for _, fn := range []string{"ARGMAX", "ARGMIN"} {
			sizes := g.sizes(4, 200)
			axes := u32(1, 3)
			g.arg(argSpec{name: fmt.Sprintf("random_reduce_%s_%s", lower(fn), lower(dt.String())), op: "REDUCE", fn: fn,
				covers: []string{"random", "rule 4"}, in: desc(dt, sizes, nil), out: argOut(tensor.UInt32, sizes, axes), axes: axes}, g.draw(dt, true))
		}
	}
}

func (g *gen) randomPool() {
	features := []string{"dilation", "asymmetric_padding", "non_floor_extent", "all_padding_windows", "strided", "ties", "5d"}
	k := 0
	for _, dt := range allTypes {
		for _, f := range features {
			spatial := 2
			if f == "5d" {
				spatial = 3
			}
			op := "MAX_POOLING2"
			switch r := g.rng.Intn(6); {
			case f == "dilation":
			case r == 0:
				op = "MAX_POOLING"
			case r == 1:
				op = "MAX_POOLING1"
			}
			in := []uint32{uint32(1 + g.rng.Intn(2)), uint32(1 + g.rng.Intn(3))}
			var win, str, st, en, dil, out []uint32
			for i := 0; i < spatial; i++ {
				n := uint32(2 + g.rng.Intn(5))
				if spatial == 3 {
					n = uint32(2 + g.rng.Intn(3))
				}
				w := uint32(1 + g.rng.Intn(3))
				s := uint32(1 + g.rng.Intn(3))
				d := uint32(1)
				if op == "MAX_POOLING2" && (f == "dilation" || g.rng.Intn(4) == 0) {
					d = uint32(2 + g.rng.Intn(2))
				}
				k := 1 + (w-1)*d
				var a, b uint32
				if f == "asymmetric_padding" || g.rng.Intn(3) == 0 {
					a, b = uint32(g.rng.Intn(int(k))), uint32(g.rng.Intn(int(k)))
					if f == "asymmetric_padding" && a == b {
						b = (a + 1) % k
						if a == b {
							a = 0
							b = 1
						}
					}
				}
				if f == "all_padding_windows" {
					a = k + uint32(g.rng.Intn(2)) // the first windows lie in padding only
				}
				if uint64(n)+uint64(a)+uint64(b) < uint64(k) {
					n = k
				}
				ext := uint32(tensorOut(n, w, s, a, b, d))
				if f == "non_floor_extent" || (f == "all_padding_windows" && g.rng.Intn(2) == 0) {
					ext += uint32(1 + g.rng.Intn(2))
				}
				in = append(in, n)
				win, str, st, en, dil, out = append(win, w), append(str, s), append(st, a), append(en, b), append(dil, d), append(out, ext)
			}
			out = append(u32(in[0], in[1]), out...)
			layout := "packed"
			if f == "strided" {
				layout = []string{"permuted", "padded", "broadcast"}[g.rng.Intn(3)]
			}
			inT := desc(dt, in, g.layout(in, layout))
			outT := desc(dt, out, nil)
			var idxT *parity.Tensor
			if op != "MAX_POOLING" && g.rng.Intn(5) != 0 {
				it := tensor.UInt32
				if k%3 == 2 {
					it = tensor.UInt64
				}
				idxT = ptr(desc(it, out, nil))
			}
			k++
			name := fmt.Sprintf("random_%s_%s_%s", lower(op), lower(dt.String()), f)
			g.pool(poolSpec{name: name, op: op, covers: []string{"random", "rule 7", "rule 8", "rule 9", "rule 10"}, note: layout + " input",
				in: inT, out: outT, idx: idxT, strides: str, window: win, start: st, end: en, dil: dil}, g.draw(dt, f == "ties" || g.rng.Intn(3) == 0))
		}
	}
}

// tensorOut is the floor output extent, at least 1.
func tensorOut(in, w, s, a, b, d uint32) uint64 {
	k := uint64(1 + (w-1)*d)
	p := uint64(in) + uint64(a) + uint64(b)
	if k > p {
		return 1
	}
	return (p-k)/uint64(s) + 1
}
