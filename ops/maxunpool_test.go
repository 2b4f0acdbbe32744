//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestMaxUnpoolFacts runs DirectML's measured cases (unpoolFacts) on the
// device.
func TestMaxUnpoolFacts(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, f := range unpoolFacts() {
		t.Run(f.name, func(t *testing.T) {
			desc, ins := f.tensors()
			res := testutil.CheckOperator(t, d, desc, ins, rng)
			if got := res.Outputs[0].Float64s(); !slices.Equal(got, f64s(f.want)) {
				t.Errorf("got %v, want %v", got, f.want)
			}
		})
	}
}

// unpoolGen draws random MAX_UNPOOLING cases.
type unpoolGen struct {
	types   []tensor.DataType
	idx     []tensor.DataType
	layouts bool // random layouts (padded, Fortran, broadcast inputs) besides packed
}

// unpoolIndex draws an index into an output of total elements: mostly in
// range and crowded into few targets (so that many inputs share one),
// sometimes just past the end, 4·10^9, or (UINT64) above 2^32, where only
// a high word tells it out of range.
func unpoolIndex(rng *rand.Rand, total uint64, it tensor.DataType, crowd uint64) uint64 {
	switch r := rng.Intn(20); {
	case r == 0:
		return total + uint64(rng.Intn(3))
	case r == 1:
		return 4000000000
	case r == 2 && it == tensor.UInt64:
		return 1<<32 + uint64(rng.Int63n(int64(total)))
	case r == 3 && it == tensor.UInt64:
		return ^uint64(0) - uint64(rng.Intn(2))
	case r < 10:
		return uint64(rng.Int63n(int64(min(total, crowd))))
	}
	return uint64(rng.Int63n(int64(total)))
}

// draw returns a random case: rank-4 input and indices of one shape, an
// output of its own shape (N and C greater than 1 often), and indices
// from unpoolIndex.
func (g unpoolGen) draw(rng *rand.Rand) (*ops.MaxUnpooling, []*tensor.Tensor, string) {
	dt := g.types[rng.Intn(len(g.types))]
	it := g.idx[rng.Intn(len(g.idx))]
	inSizes := testutil.RandomSizes(rng, 4, 5, 300)
	outSizes := testutil.RandomSizes(rng, 4, 6, 600)
	layout := func() testutil.Layout {
		if !g.layouts {
			return testutil.Packed
		}
		return testutil.Layouts[rng.Intn(len(testutil.Layouts))]
	}
	total := uint64(outSizes[0]) * uint64(outSizes[1]) * uint64(outSizes[2]) * uint64(outSizes[3])
	crowd := uint64(1 + rng.Intn(4))
	in := testutil.NewTensor(rng, dt, inSizes, layout(), func([]uint32) uint64 { return testutil.RandomBits(rng, dt) })
	il := layout()
	idx := testutil.NewTensor(rng, it, inSizes, il, func([]uint32) uint64 { return unpoolIndex(rng, total, it, crowd) })
	ol := layout()
	if ol == testutil.Broadcast { // an output may not alias
		ol = testutil.Padded
	}
	var od tensor.Desc
	if st := testutil.Strides(rng, outSizes, ol); st == nil {
		od = tensor.NewDesc(dt, outSizes)
	} else {
		od = tensor.NewStridedDesc(dt, outSizes, st)
	}
	desc := &ops.MaxUnpooling{Input: in.Desc, Indices: idx.Desc, Output: od}
	name := fmt.Sprintf("%v %v->%v idx %v (%v) out %v", dt, inSizes, outSizes, it, il, ol)
	return desc, []*tensor.Tensor{in, idx}, name
}

func runUnpoolRandom(t *testing.T, d *dml.Device, g unpoolGen, n int) {
	t.Helper()
	rng := testutil.Rand(t)
	for i := 0; i < n; i++ {
		desc, ins, name := g.draw(rng)
		t.Run(fmt.Sprintf("%d %s", i, name), func(t *testing.T) {
			testutil.CheckOperator(t, d, desc, ins, rng)
		})
	}
}

var unpoolIdxTypes = []tensor.DataType{tensor.UInt32, tensor.UInt64}

// TestMaxUnpoolRandom: random shapes, types, layouts and indices (many
// duplicates, out of range ones), compared byte for byte with the
// reference, strided outputs' gaps checked for poison.
func TestMaxUnpoolRandom(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	runUnpoolRandom(t, d, unpoolGen{types: tensor.AllTypes, idx: unpoolIdxTypes, layouts: true}, testutil.CaseCount(60, 20))
}

// TestMaxUnpoolEveryType runs each value type with each index type.
func TestMaxUnpoolEveryType(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	eachTypePair(t, unpoolIdxTypes, func(t *testing.T, dt, it tensor.DataType) {
		runUnpoolRandom(t, d, unpoolGen{types: []tensor.DataType{dt}, idx: []tensor.DataType{it}, layouts: true}, 2)
	})
}

// TestMaxUnpoolWordStorage: without 8- and 16-bit storage the gather
// pass stores sub-word elements through atomics on their words, which
// must leave the neighbours (other elements, or the gaps of a strided
// output) as they are.
func TestMaxUnpoolWordStorage(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{Disable: caps.Features{StorageBuffer8Bit: true, StorageBuffer16Bit: true,
		ShaderInt8: true, ShaderInt16: true, ShaderFloat16: true}})
	narrow := []tensor.DataType{tensor.UInt8, tensor.Int8, tensor.Float16, tensor.UInt16, tensor.Int16}
	runUnpoolRandom(t, d, unpoolGen{types: narrow, idx: unpoolIdxTypes, layouts: true}, testutil.CaseCount(20, 8))
}

// TestMaxUnpoolManyDuplicates: thousands of inputs onto a handful of
// output elements, so that the scatter pass's invocations race for each;
// the last input in row-major order must win every time (rule 20).
func TestMaxUnpoolManyDuplicates(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Int64, tensor.UInt8} {
		for _, targets := range []uint64{1, 3, 17} {
			t.Run(fmt.Sprintf("%v into %d", dt, targets), func(t *testing.T) {
				sizes := []uint32{3, 4, 16, 20} // 3840 inputs
				in := testutil.NewTensor(rng, dt, sizes, testutil.Packed, func(c []uint32) uint64 {
					// distinct values, so that the winner shows
					return uint64(((c[0]*4+c[1])*16+c[2])*20+c[3]) & (1<<(8*dt.Size()) - 1)
				})
				idx := testutil.NewTensor(rng, tensor.UInt32, sizes, testutil.Packed, func([]uint32) uint64 { return uint64(rng.Int63n(int64(targets))) })
				desc := &ops.MaxUnpooling{Input: in.Desc, Indices: idx.Desc, Output: tensor.NewDesc(dt, []uint32{1, 1, 1, 20})}
				res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in, idx}, rng)
				// The reference's own rule, stated again: the winner of
				// target k is the last position whose index is k.
				last := map[uint64]uint64{}
				tensor.ForEachIndex(sizes, func(c []uint32) { last[idx.Uint64At(c...)] = in.Bits(c...) })
				for k, v := range last {
					if got := res.Outputs[0].Bits(0, 0, 0, uint32(k)); got != v {
						t.Errorf("element %d: %#x, want %#x (the last input with index %d)", k, got, v, k)
					}
				}
			})
		}
	}
}

// TestMaxUnpoolRoundTrip: MAX_POOLING2's values and indices, unpooled into
// the pooling's input shape, put every selected maximum back where it was
// and zeros elsewhere; N and C greater than 1, so that the flat indices
// cross planes.
func TestMaxUnpoolRoundTrip(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	for _, c := range []struct {
		dt      tensor.DataType
		it      tensor.DataType
		in      []uint32
		win, st []uint32
	}{
		{tensor.Float32, tensor.UInt32, []uint32{2, 3, 6, 6}, []uint32{2, 2}, []uint32{2, 2}},
		{tensor.Float16, tensor.UInt64, []uint32{3, 2, 5, 7}, []uint32{3, 3}, []uint32{2, 2}},
		{tensor.Int8, tensor.UInt32, []uint32{2, 2, 8, 8}, []uint32{3, 2}, []uint32{1, 1}},
	} {
		t.Run(fmt.Sprintf("%v %v %v", c.dt, c.in, c.win), func(t *testing.T) {
			x := testutil.NewTensor(rng, c.dt, c.in, testutil.Packed, func([]uint32) uint64 {
				return tensor.FromFloat64As(c.dt, []uint32{1}, []float64{float64(rng.Intn(100) - 50)}).Bits(0)
			})
			oh := ops.MaxPoolOutputSize(c.in[2], c.win[0], c.st[0], 0, 0, 1, false)
			ow := ops.MaxPoolOutputSize(c.in[3], c.win[1], c.st[1], 0, 0, 1, false)
			pooled := []uint32{c.in[0], c.in[1], uint32(oh), uint32(ow)}
			idxDesc := tensor.NewDesc(c.it, pooled)
			pool := &ops.MaxPooling2{Input: x.Desc, Output: tensor.NewDesc(c.dt, pooled), OutputIndices: &idxDesc,
				Strides: c.st, WindowSize: c.win, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
			p := testutil.CheckOperator(t, d, pool, []*tensor.Tensor{x}, rng)
			vals, idx := p.Outputs[0].ToPacked(), p.Outputs[1].ToPacked()
			un := &ops.MaxUnpooling{Input: vals.Desc, Indices: idx.Desc, Output: tensor.NewDesc(c.dt, c.in)}
			u := testutil.CheckOperator(t, d, un, []*tensor.Tensor{vals, idx}, rng)
			selected := map[uint64]bool{}
			for _, i := range idx.Uint64s() {
				selected[i] = true
			}
			flat := uint64(0)
			tensor.ForEachIndex(c.in, func(co []uint32) {
				want := uint64(0)
				if selected[flat] {
					want = x.Bits(co...)
				}
				if got := u.Outputs[0].Bits(co...); got != want {
					t.Errorf("%v: %#x, want %#x", co, got, want)
				}
				flat++
			})
		})
	}
}

// TestMaxUnpoolWindowCap runs random cases on devices whose bindings are
// capped (dml.DeviceOptions.BindingWindowCap), each on the smallest cap
// that holds one (batch, channel) plane of every tensor and of the
// winners but not the largest of them whole, so that the windowed plan
// runs: scatter and gather steps over every (output chunk, input chunk)
// pair, each writing output elements only once, duplicates resolved
// across steps by the shared winners.
func TestMaxUnpoolWindowCap(t *testing.T) {
	devices := testutil.WindowDevices(t)
	rng := testutil.Rand(t)
	g := unpoolGen{types: tensor.AllTypes, idx: unpoolIdxTypes, layouts: true}
	caps := []uint64{64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096}
	ran := 0
	for i := 0; i < 40 && ran < testutil.CaseCount(16, 6); i++ {
		desc, ins, name := g.draw(rng)
		winners := tensor.NewDesc(tensor.UInt32, desc.Output.Sizes)
		var plane, total uint64
		for _, td := range []*tensor.Desc{&desc.Input, &desc.Indices, &desc.Output, &winners} {
			st, es := td.EffectiveStrides(), uint64(td.DataType.Size())
			last := uint64(td.Sizes[2]-1)*uint64(st[2]) + uint64(td.Sizes[3]-1)*uint64(st[3])
			plane = max(plane, (last+1)*es)
			total = max(total, td.TotalTensorSizeInBytes)
		}
		win := testutil.SmallestWindowCap(caps, plane, total)
		if win == 0 {
			continue
		}
		ran++
		t.Run(fmt.Sprintf("%d %s cap %d", i, name, win), func(t *testing.T) {
			res := testutil.CheckOperator(t, devices(win), desc, ins, rng)
			if !strings.HasPrefix(res.Strategy, ops.MaxUnpoolStrategy+"-windows(") {
				t.Errorf("strategy %q under a cap below the tensors' size", res.Strategy)
			}
		})
	}
	if ran < testutil.CaseCount(16, 6) {
		t.Errorf("only %d cases ran under a window cap", ran)
	}
}
