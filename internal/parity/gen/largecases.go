// Large random cases: tensors of one to tens of MiB, so that a live
// comparison reaches the paths small cases never take (reductions split
// across workgroups and dispatches, binding windows, buffers of several
// allocations). Their inputs are made when asked for (Set.Input), from a
// seed drawn with the case, so a run holds one at a time.

package gen

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// Bounds of the large cases.
const (
	// MinLargeBytes and MaxLargeBytes bound a large case's input.
	MinLargeBytes = 1 << 20
	// MinLargeInputBytes is the least input a large case has: MAX_UNPOOLING
	// draws its output's bytes (4 times its input's) and the plane height
	// rounds down, so its input may fall a little under MinLargeBytes/4.
	MinLargeInputBytes = MinLargeBytes / 8
	MaxLargeBytes      = 48 << 20
	// LargePlaneBytes bounds one (batch, channel) plane of a large
	// pooling or unpooling case's input and output, so that a binding
	// window of LiveBindingWindow bytes holds one with room to spare:
	// vkdml cuts those tensors into windows of whole planes.
	LargePlaneBytes = 1 << 20
	// LiveBindingWindow and LiveMaxAllocation are the binding-window cap
	// and allocation size `vkdml parity --live --random` opens vkdml's
	// device with (dml.DeviceOptions), below the tensors of the large
	// cases, so that their windowed and split paths run on every device.
	LiveBindingWindow = 4 << 20
	LiveMaxAllocation = 16 << 20
	// maxUnpoolLargeBytes bounds a large MAX_UNPOOLING input, whose
	// indices the generator holds as a list.
	maxUnpoolLargeBytes = 8 << 20
)

// largeBytes draws an input size between MinLargeBytes and limit,
// log-uniformly.
func (g *gen) largeBytes(limit uint64) uint64 {
	lo, hi := math.Log(MinLargeBytes), math.Log(float64(limit))
	return uint64(math.Exp(lo + g.rng.Float64()*(hi-lo)))
}

// addLarge adds case c, whose input (and indices) make builds with a
// generator of its own seed when Set.Input asks for them.
func (g *gen) addLarge(c parity.Case, make func(sub *gen) (in, idx *tensor.Tensor)) {
	seed := g.rng.Int63()
	name := g.add(c, nil)
	g.set.lazy[name] = func() (*tensor.Tensor, *tensor.Tensor) {
		return make(&gen{rng: rand.New(rand.NewSource(seed))})
	}
}

// randomLarge adds one large ARGMAX or ARGMIN, one large max pooling and
// one large MAX_UNPOOLING, of random data types.
func (g *gen) randomLarge() {
	g.largeArg()
	g.largePool()
	g.largeUnpool()
}

func (g *gen) largeArg() {
	dt := allTypes[g.rng.Intn(len(allTypes))]
	elems := g.largeBytes(MaxLargeBytes) / uint64(dt.Size())
	// Rank 2 or 3: the reduced and kept extents each between 1 and most
	// of the tensor, so that long rows, many short rows and blocks over
	// several axes all come up.
	rank := 2 + g.rng.Intn(2)
	sizes := make([]uint32, rank)
	left := elems
	for i := 0; i < rank-1; i++ {
		e := uint64(math.Exp(g.rng.Float64() * math.Log(float64(left))))
		sizes[i] = uint32(max(1, min(e, left, math.MaxUint32)))
		left /= uint64(sizes[i])
	}
	sizes[rank-1] = uint32(max(1, min(left, math.MaxUint32)))
	var axes []uint32
	for a := 0; a < rank; a++ {
		if g.rng.Intn(2) == 0 {
			axes = append(axes, uint32(a))
		}
	}
	if len(axes) == 0 {
		axes = u32(uint32(g.rng.Intn(rank)))
	}
	op := []string{"ARGMAX", "ARGMIN"}[g.rng.Intn(2)]
	dir := []string{"INCREASING", "DECREASING"}[g.rng.Intn(2)]
	in := desc(dt, sizes, nil)
	out := argOut(indexTypes[g.rng.Intn(len(indexTypes))], sizes, axes)
	ties := g.rng.Intn(2) == 0
	c := parity.Case{Name: fmt.Sprintf("random_large_%s_%s", lower(op), lower(dt.String())), Covers: []string{"random", "large", "rule 1", "rule 4"},
		Note: fmt.Sprintf("%d MiB input", in.TotalTensorSizeInBytes>>20), Operator: op, Input: in, Output: out, Axes: axes, AxisDirection: dir}
	g.addLarge(c, func(sub *gen) (*tensor.Tensor, *tensor.Tensor) {
		return buffer(in, gapValue(dt, op), sub.draw(dt, ties)), nil
	})
}

// largePlanes draws (batch, channel) planes of h×w elements of es bytes,
// each at most LargePlaneBytes, as many as make about total bytes.
func (g *gen) largePlanes(total uint64, es int) (n, c, h, w uint32) {
	w = uint32(16 << g.rng.Intn(6)) // 16 ... 512
	h = uint32(max(1, LargePlaneBytes/uint64(es)/uint64(w)/uint64(1+g.rng.Intn(4))))
	planes := max(1, total/(uint64(h)*uint64(w)*uint64(es)))
	n = uint32(1 + g.rng.Intn(2))
	if planes%uint64(n) != 0 {
		// Two batches of planes/2 would drop a plane (3 planes as 2×1, a
		// third of the bytes drawn): one batch keeps them all.
		n = 1
	}
	c = uint32(planes / uint64(n))
	return n, c, h, w
}

func (g *gen) largePool() {
	dt := allTypes[g.rng.Intn(len(allTypes))]
	n, ch, h, wd := g.largePlanes(g.largeBytes(MaxLargeBytes), dt.Size())
	op := []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"}[g.rng.Intn(3)]
	in := desc(dt, u32(n, ch, h, wd), nil)
	var win, str, st, en, dil []uint32
	out := u32(n, ch)
	for _, size := range []uint32{h, wd} {
		w, s, d := uint32(1+g.rng.Intn(3)), uint32(1+g.rng.Intn(2)), uint32(1)
		if op == "MAX_POOLING2" && g.rng.Intn(3) == 0 {
			d = 2
		}
		k := 1 + (w-1)*d
		a, b := uint32(g.rng.Intn(int(k))), uint32(g.rng.Intn(int(k)))
		win, str, st, en, dil = append(win, w), append(str, s), append(st, a), append(en, b), append(dil, d)
		out = append(out, uint32(tensorOut(size, w, s, a, b, d)))
	}
	if op != "MAX_POOLING2" {
		dil = nil
	}
	var idx *parity.Tensor
	if op != "MAX_POOLING" && g.rng.Intn(2) == 0 {
		idx = ptr(desc([]tensor.DataType{tensor.UInt32, tensor.UInt64}[g.rng.Intn(2)], out, nil))
	}
	ties := g.rng.Intn(2) == 0
	c := parity.Case{Name: fmt.Sprintf("random_large_%s_%s", lower(op), lower(dt.String())), Covers: []string{"random", "large", "rule 7", "rule 10"},
		Note: fmt.Sprintf("%d MiB input", in.TotalTensorSizeInBytes>>20), Operator: op, Input: in, Output: desc(dt, out, nil), OutputIndices: idx,
		Strides: str, WindowSize: win, StartPadding: st, EndPadding: en, Dilations: dil}
	g.addLarge(c, func(sub *gen) (*tensor.Tensor, *tensor.Tensor) {
		return buffer(in, gapValue(dt, op), sub.draw(dt, ties)), nil
	})
}

// largeUnpool is a MAX_UNPOOLING of 2×2 windows, as a max pooling's
// indices give, with a few indices anywhere in the output, which
// duplicate another element's, and a few past its end (rules 17, 19 and
// 20). On tensors this large DirectML 1.15.4's choice among duplicates
// changes from run to run (semantics.md rule 20): the comparison explains
// a difference there when DirectML holds one of the duplicates' values
// and vkdml the last's (parity.DuplicateIndexReason), and anything else
// still differs.
func (g *gen) largeUnpool() {
	dt := allTypes[g.rng.Intn(len(allTypes))]
	// The output has 4 times the input's elements, within the plane bound.
	n, ch, h, wd := g.largePlanes(g.largeBytes(maxUnpoolLargeBytes), 4*dt.Size())
	it := []tensor.DataType{tensor.UInt32, tensor.UInt64}[g.rng.Intn(2)]
	sizes, outSizes := u32(n, ch, h, wd), u32(n, ch, 2*h, 2*wd)
	in, out, idxT := desc(dt, sizes, nil), desc(dt, outSizes, nil), desc(it, sizes, nil)
	c := parity.Case{Name: fmt.Sprintf("random_large_max_unpooling_%s_%s", lower(dt.String()), lower(it.String())),
		Covers: []string{"random", "large", "rule 17", "rule 19", "rule 20"}, Note: fmt.Sprintf("%d MiB input", in.TotalTensorSizeInBytes>>20),
		Operator: "MAX_UNPOOLING", Input: in, Indices: &idxT, Output: out}
	total := uint64(n) * uint64(ch) * uint64(4*h) * uint64(wd)
	g.addLarge(c, func(sub *gen) (*tensor.Tensor, *tensor.Tensor) {
		values := buffer(in, gapValue(dt, "MAX_UNPOOLING"), sub.draw(dt, false))
		idx := buffer(idxT, 0, func(t *tensor.Tensor, cs []uint32, _ int) {
			plane := (uint64(cs[0])*uint64(ch) + uint64(cs[1])) * uint64(4*h) * uint64(wd)
			v := plane + uint64(2*cs[2]+uint32(sub.rng.Intn(2)))*uint64(2*wd) + uint64(2*cs[3]+uint32(sub.rng.Intn(2)))
			switch r := sub.rng.Intn(100); {
			case r < 3:
				v = uint64(sub.rng.Int63n(int64(total)))
			case r < 4:
				v = total + uint64(sub.rng.Intn(5))
			}
			t.SetUint64(cs, v)
		})
		return values, idx
	})
}
