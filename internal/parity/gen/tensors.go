// Tensor descs, physical buffers and the values that fill them.

package gen

import (
	"math"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

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

func ptr(t parity.Tensor) *parity.Tensor { return &t }

func iota(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

// ruleValues is the row-major input of several rule cases: n values in
// -5..5 in a fixed, scrambled order.
func ruleValues(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((i*7)%11) - 5
	}
	return v
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
