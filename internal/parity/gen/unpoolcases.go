// MAX_UNPOOLING cases: semantics.md rules 17-22, every data type with
// both index types, and must-reject descs. They come after every other
// case, so that the random values of those stay as they were.

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// unpoolSpec is one MAX_UNPOOLING case: its tensors, the input's values
// and the indices (row-major over the input's logical elements).
type unpoolSpec struct {
	name    string
	covers  []string
	note    string
	in, out parity.Tensor
	idx     parity.Tensor
	values  func(*tensor.Tensor, []uint32, int)
	indices []uint64
	expect  string
}

// indicesKey is the key of a case's indices buffer in Set.inputs.
func indicesKey(name string) string { return name + ".indices" }

func (g *gen) unpool(s unpoolSpec) {
	dt, _ := tensor.ParseDataType(s.in.DataType)
	buf := buffer(s.in, gapValue(dt, "MAX_UNPOOLING"), s.values)
	// Indices the strides do not address hold 0, an index in range: read,
	// it would write an element.
	idx := buffer(s.idx, 0, func(t *tensor.Tensor, c []uint32, i int) {
		if i < len(s.indices) {
			t.SetUint64(c, s.indices[i])
		}
	})
	name := g.add(parity.Case{Name: s.name, Covers: s.covers, Note: s.note, Operator: "MAX_UNPOOLING",
		Input: s.in, Indices: &s.idx, Output: s.out, Expect: s.expect}, buf)
	g.set.inputs[indicesKey(name)] = idx
}

// maxUnpool adds every MAX_UNPOOLING case.
func (g *gen) maxUnpool() {
	g.unpoolRules()
	g.unpoolRejects()
	g.randomUnpool()
}

// unpoolRules adds one or more cases per rule 17-22.
func (g *gen) unpoolRules() {
	f32, u32t, u64t := tensor.Float32, tensor.UInt32, tensor.UInt64
	in := func(s ...uint32) parity.Tensor { return desc(f32, s, nil) }
	ix := func(dt tensor.DataType, s ...uint32) parity.Tensor { return desc(dt, s, nil) }
	vals := floats(1, 2, 3, 4, 5, 6, 7, 8)
	for _, c := range []unpoolSpec{
		{name: "rule17_flat_over_batch", covers: []string{"rule 17", "rule 20"}, note: "both batch elements name element 0: the second wins",
			in: in(2, 1, 1, 1), idx: ix(u32t, 2, 1, 1, 1), out: in(2, 1, 1, 2), values: floats(7, 8), indices: []uint64{0, 0}},
		{name: "rule17_flat_over_channels", covers: []string{"rule 17"}, note: "channel 1's indices start at 16",
			in: in(1, 2, 2, 2), idx: ix(u32t, 1, 2, 2, 2), out: in(1, 2, 4, 4), values: vals, indices: []uint64{5, 7, 13, 15, 16, 19, 28, 31}},
		{name: "rule17_strided_input_and_indices", covers: []string{"rule 17"}, note: "strides change no index",
			in: desc(f32, []uint32{1, 2, 2, 2}, []uint32{8, 1, 4, 2}), idx: desc(u32t, []uint32{1, 2, 2, 2}, []uint32{16, 8, 4, 2}),
			out: in(1, 2, 2, 2), values: vals, indices: []uint64{7, 6, 5, 4, 3, 2, 1, 0}},
		{name: "rule18_zeros_and_bits", covers: []string{"rule 18"}, note: "NaN, -0 and -inf keep their bits; unnamed elements are +0",
			in: in(1, 1, 2, 2), idx: ix(u32t, 1, 1, 2, 2), out: in(1, 1, 3, 3), values: floats(math.NaN(), math.Copysign(0, -1), math.Inf(-1), 1), indices: []uint64{8, 0, 4, 2}},
		{name: "rule18_strided_output_gaps", covers: []string{"rule 18", "rule 6"}, note: "the bytes between output elements keep the fill",
			in: in(1, 1, 2, 2), idx: ix(u32t, 1, 1, 2, 2), out: desc(f32, []uint32{1, 1, 3, 3}, []uint32{40, 20, 6, 2}), values: vals, indices: []uint64{0, 4, 8, 3}},
		{name: "rule19_out_of_range_uint32", covers: []string{"rule 19"}, note: "9 and 4e9 write nothing",
			in: in(1, 1, 2, 2), idx: ix(u32t, 1, 1, 2, 2), out: in(1, 1, 3, 3), values: vals, indices: []uint64{9, 4000000000, 1, 8}},
		{name: "rule19_out_of_range_uint64", covers: []string{"rule 19", "rule 17"}, note: "vkdml: 2^32+1 and 2^63+2 are past the end; DirectML reads their low words, 1 and 2",
			in: in(1, 1, 2, 2), idx: ix(u64t, 1, 1, 2, 2), out: in(1, 1, 3, 3), values: vals, indices: []uint64{1<<32 + 1, 1<<63 + 2, 2, 1<<64 - 1}},
		{name: "rule20_duplicates_last_wins", covers: []string{"rule 20"}, note: "element 2 is named four times, element 0 twice",
			in: in(1, 2, 2, 2), idx: ix(u32t, 1, 2, 2, 2), out: in(1, 1, 2, 2), values: vals, indices: []uint64{2, 0, 2, 2, 3, 0, 2, 1}},
		{name: "rule21_2x2_into_3x3", covers: []string{"rule 21"},
			in: in(1, 1, 2, 2), idx: ix(u32t, 1, 1, 2, 2), out: in(1, 1, 3, 3), values: vals, indices: []uint64{0, 2, 6, 8}},
		{name: "rule21_2x2_into_1x1", covers: []string{"rule 21", "rule 19"},
			in: in(1, 1, 2, 2), idx: ix(u32t, 1, 1, 2, 2), out: in(1, 1, 1, 1), values: vals, indices: []uint64{0, 1, 0, 2}},
		{name: "rule21_batch_and_channels_differ", covers: []string{"rule 21"},
			in: in(2, 2, 1, 1), idx: ix(u32t, 2, 2, 1, 1), out: in(1, 1, 2, 3), values: vals, indices: []uint64{5, 0, 3, 1}},
	} {
		g.unpool(c)
	}
}

// unpoolRejects adds must-reject descs (rule 22).
func (g *gen) unpoolRejects() {
	f32 := tensor.Float32
	in4 := desc(f32, u32(1, 1, 2, 2), nil)
	out4 := desc(f32, u32(1, 1, 4, 4), nil)
	idx := func(dt tensor.DataType, s ...uint32) parity.Tensor { return desc(dt, s, nil) }
	vals := floats(1, 2, 3, 4)
	for _, c := range []unpoolSpec{
		{name: "rule22_int32_indices", in: in4, idx: idx(tensor.Int32, 1, 1, 2, 2), out: out4},
		{name: "rule22_int64_indices", in: in4, idx: idx(tensor.Int64, 1, 1, 2, 2), out: out4},
		{name: "rule22_float32_indices", in: in4, idx: idx(f32, 1, 1, 2, 2), out: out4},
		{name: "rule22_indices_sizes_differ", in: in4, idx: idx(tensor.UInt32, 1, 1, 1, 4), out: out4},
		{name: "rule22_output_type_differs", in: in4, idx: idx(tensor.UInt32, 1, 1, 2, 2), out: desc(tensor.Float16, u32(1, 1, 4, 4), nil)},
		{name: "rule22_rank5", in: desc(f32, u32(1, 1, 1, 2, 2), nil), idx: idx(tensor.UInt32, 1, 1, 1, 2, 2), out: desc(f32, u32(1, 1, 1, 4, 4), nil)},
		{name: "rule22_rank3", in: desc(f32, u32(1, 2, 2), nil), idx: idx(tensor.UInt32, 1, 2, 2), out: desc(f32, u32(1, 4, 4), nil)},
	} {
		c.covers, c.values, c.indices, c.expect = []string{"rule 22"}, vals, []uint64{0, 1, 2, 3}, "E_INVALIDARG"
		g.unpool(c)
	}
}

// randomUnpool adds, for every data type and both index types, a case
// with N and C above 1, a packed or padded output, and indices crowded
// onto a few elements (duplicates), spread over the output, or just past
// its end (never 2^32 or more, where vkdml differs on purpose: rule 19).
func (g *gen) randomUnpool() {
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16, tensor.UInt32, tensor.UInt16, tensor.UInt8,
		tensor.Int32, tensor.Int16, tensor.Int8, tensor.UInt64, tensor.Int64} {
		for _, it := range []tensor.DataType{tensor.UInt32, tensor.UInt64} {
			sizes := u32(2, 3, 2, 3)
			out := u32(2, 3, 4, 5)
			total := uint64(2 * 3 * 4 * 5)
			idx := make([]uint64, 36)
			for i := range idx {
				switch r := g.rng.Intn(10); {
				case r < 4:
					idx[i] = uint64(g.rng.Intn(3))
				case r < 9:
					idx[i] = uint64(g.rng.Int63n(int64(total)))
				default:
					idx[i] = total + uint64(g.rng.Intn(3))
				}
			}
			kind := []string{"packed", "padded"}[g.rng.Intn(2)]
			g.unpool(unpoolSpec{name: fmt.Sprintf("random_max_unpooling_%s_%s", lower(dt.String()), lower(it.String())),
				covers: []string{"random", "rule 22"}, in: desc(dt, sizes, g.layout(sizes, "permuted")), idx: desc(it, sizes, nil),
				out: desc(dt, out, g.layout(out, kind)), values: g.draw(dt, false), indices: idx})
		}
	}
}
