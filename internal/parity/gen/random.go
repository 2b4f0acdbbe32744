// Random cases: operator × data type × feature.

package gen

import (
	"fmt"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

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
