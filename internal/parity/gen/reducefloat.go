// REDUCE's floating-point functions (docs/semantics.md rules 39-44): per
// function x FLOAT32/FLOAT16, rows of random values, cancelling terms,
// huge and tiny magnitudes with denormals, ±0, ±inf and NaN (and for SUM
// random blocks over two axes), and
// for FLOAT16 blocks longer than 2^11 (where a FLOAT16 accumulator would
// stall); then the measured FLOAT32 examples. vkdml's answers are
// compared with DirectML's within rule 44's bound (parity.CheckReduceFloat).
// They come after every other family, so that no earlier case's inputs
// change.

package gen

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/tensor"
)

// reduceFloatFunctions are the float functions whose cases draw alike;
// MULTIPLY's (rule 42), added later, come after them (reduceFmul).
var reduceFloatFunctions = []string{"SUM", "AVERAGE", "L1", "SUM_SQUARE", "L2", "LOG_SUM", "LOG_SUM_EXP"}

// values sets the logical elements from float64 values (row-major), each
// rounded to the tensor's type.
func values(vals ...float64) func(*tensor.Tensor, []uint32, int) {
	return func(t *tensor.Tensor, c []uint32, i int) { t.SetFloat64(c, vals[i]) }
}

// reduceRows adds a REDUCE of fn over axis 1 of a rows x len(rows[0])
// input holding rows.
func (g *gen) reduceRows(name, fn string, covers []string, dt tensor.DataType, rows ...[]float64) {
	var flat []float64
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			panic("reduceRows: rows of different lengths in " + name)
		}
		flat = append(flat, r...)
	}
	g.reduceValue(name, fn, covers, dt, u32(uint32(len(rows)), uint32(len(rows[0]))), u32(1), values(flat...))
}

func (g *gen) reduceFloat() {
	for _, fn := range reduceFloatFunctions {
		for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
			g.reduceFloatCases(fn, dt)
		}
	}
	g.reduceFloatMeasured()
	g.reduceFmul()
}

// reduceFmul: MULTIPLY of FLOAT32 and FLOAT16 (rule 42's tree, rules 41,
// 43 and 44): rows of five (not a power of two) of random factors near 1,
// exact products, partial products that overflow or underflow in some
// orders, products sinking into the denormals and to zero, ±0, ±inf and
// NaN; a row of 3000 factors near 1; a block over axes 0 and 2 (the
// row-major order of a block of two axes); then the measured FLOAT32
// examples of rule 42.
func (g *gen) reduceFmul() {
	const fn = "MULTIPLY"
	inf, nan := math.Inf(1), math.NaN()
	negz := math.Copysign(0, -1)
	for _, dt := range []tensor.DataType{tensor.Float32, tensor.Float16} {
		base := "reduce_multiply_" + lower(dt.String())
		// big·big overflows, small·small underflows to 0 in FLOAT32;
		// tiny^2·tiny2 is a FLOAT32 (then FLOAT16) denormal, tiny^5 a
		// FLOAT16 0.
		big, small, tiny, tiny2 := 1e30, 1e-30, 0x1p-60, 0x1p-10
		if dt == tensor.Float16 {
			big, small, tiny, tiny2 = 60000, 0x1p-24, 0x1p-8, 0x1p-4
		}
		var random [][]float64
		for range 6 {
			row := make([]float64, 5)
			for i := range row {
				row[i] = g.reduceFmulValue(dt)
			}
			random = append(random, row)
		}
		g.reduceRows(base+"_rows", fn, []string{"random", "rule 41", "rule 42", "rule 43", "rule 44"}, dt, append(random,
			[]float64{2, 3, 4, 5, 6},
			[]float64{3, 1.0 / 3, 7, 1.0 / 7, 11},
			[]float64{big, big, small, small, 1}, // FLOAT32: inf·0 in the tree (FLOAT16: finite FLOAT32 products)
			[]float64{big, small, big, small, 1},
			[]float64{big, big, 1, 1, 1}, // past the overflow
			[]float64{tiny, tiny, tiny2, 3, 1},
			[]float64{small, small, small, small, small}, // to zero
			[]float64{negz, 5, 2, 1, 3},
			[]float64{negz, negz, 1, 1, 1},
			[]float64{0, -1, 1, 1, 1},
			[]float64{inf, 2, 3, 1, 1},
			[]float64{-inf, 2, -3, 1, 1},
			[]float64{inf, 0, 1, 1, 1},
			[]float64{1, nan, 2, 3, 4})...)
		long := make([]float64, 3000)
		for i := range long {
			long[i] = 1 + (g.rng.Float64()-0.5)/32
		}
		g.reduceRows(base+"_long", fn, []string{"rule 41", "rule 42", "rule 44"}, dt, long)
		g.reduceValue(base+"_random_axes02", fn, []string{"random", "rule 1", "rule 42", "rule 44"}, dt,
			u32(3, 4, 5), u32(0, 2), func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, g.reduceFmulValue(dt)) })
	}
	covers := []string{"rule 42", "rule 44", "fact:reduce float measured"}
	g.reduceRows("reduce_measured_multiply_order_overflow", fn, covers, tensor.Float32, []float64{1e30, 1e30, 1e-30, 1e-30})
	g.reduceRows("reduce_measured_multiply_thirds", fn, covers, tensor.Float32, []float64{3, 1.0 / 3, 7, 1.0 / 7, 11})
}

// reduceFmulValue is a random factor for MULTIPLY: ±(1 + d)·2^e with d
// in [0, 1) and e in [-4, 4) ([-2, 2) for FLOAT16), whose products over
// tens of values stay in range.
func (g *gen) reduceFmulValue(dt tensor.DataType) float64 {
	e := g.rng.Intn(8) - 4
	if dt == tensor.Float16 {
		e = g.rng.Intn(4) - 2
	}
	v := math.Ldexp(1+g.rng.Float64(), e)
	if g.rng.Intn(2) == 0 {
		v = -v
	}
	return v
}

// reduceFloatCases: the cases of one function and type.
func (g *gen) reduceFloatCases(fn string, dt tensor.DataType) {
	base := "reduce_" + lower(fn) + "_" + lower(dt.String())
	inf, nan := math.Inf(1), math.NaN()
	negz := math.Copysign(0, -1)
	// The type's scale: a large value whose square and exp overflow, a
	// small normal one, and the smallest denormal.
	big, small, denorm, cancel := 3e38, 1e-30, 0x1p-149, 1e8
	if dt == tensor.Float16 {
		big, small, denorm, cancel = 60000, 0x1p-14, 0x1p-24, 2048
	}
	// Each case compiles the float kernels, at about 0.3 s the corpus's
	// slowest: one case of many rows per function and type, and blocks
	// over two axes for SUM alone (the block's shape is no function's).
	if fn == "SUM" {
		g.reduceValue(base+"_random_axes02", fn, []string{"random", "rule 39", "rule 41", "rule 44"}, dt,
			u32(3, 4, 5), u32(0, 2), g.reduceFloatDraw(fn))
	}
	// Rows of four: random values, cancelling terms, huge and tiny
	// magnitudes with denormals, then ±0, ±inf and NaN.
	var random [][]float64
	for range 6 {
		random = append(random, []float64{g.reduceFloatValue(fn), g.reduceFloatValue(fn), g.reduceFloatValue(fn), g.reduceFloatValue(fn)})
	}
	g.reduceRows(base+"_rows", fn, []string{"random", "rule 39", "rule 40", "rule 41", "rule 43", "rule 44"}, dt, append(random,
		[]float64{cancel, 1, -cancel, 1},
		[]float64{cancel, -cancel, 0.5, -0.25},
		[]float64{1, cancel, 1, -cancel},
		[]float64{0.1, 0.2, 0.4, -0.7},
		[]float64{big, big, -big, 1},           // a partial sum may overflow
		[]float64{big, denorm, -big, denorm},   // the denormals survive the cancellation
		[]float64{small, small, small, -small}, // tiny terms (their squares underflow)
		[]float64{denorm, denorm, 3 * denorm, -denorm},
		[]float64{big, big, big, big}, // past the overflow
		[]float64{negz, negz, negz, negz},
		[]float64{negz, 0, negz, 0},
		[]float64{0, 0, 0, 0},
		[]float64{inf, 1, 2, 3},
		[]float64{-inf, 1, 2, 3},
		[]float64{inf, -inf, 2, 3},
		[]float64{1, nan, 2, 3},
		[]float64{-1, -2, -3, -4})...)
	if dt == tensor.Float16 {
		// Past 2^11 terms: ones, and values in [0, 1) (FLOAT16 sums
		// computed in FLOAT32, rule 41).
		const n = 3000
		ones, frac := make([]float64, n), make([]float64, n)
		for i := range ones {
			ones[i], frac[i] = 1, math.Round(g.rng.Float64()*1024)/1024
		}
		g.reduceRows(base+"_long", fn, []string{"rule 39", "rule 41", "rule 44"}, dt, ones, frac)
	}
}

// reduceFloatDraw draws values of varied magnitudes and signs: a
// significand in [-1, 1) times 2^[-8, 8); LOG_SUM's are positive (a
// negative sum's log is NaN), LOG_SUM_EXP's within [-30, 30] (no exp
// overflows).
func (g *gen) reduceFloatDraw(fn string) func(*tensor.Tensor, []uint32, int) {
	return func(t *tensor.Tensor, c []uint32, _ int) { t.SetFloat64(c, g.reduceFloatValue(fn)) }
}

// reduceFloatValue is one of reduceFloatDraw's values.
func (g *gen) reduceFloatValue(fn string) float64 {
	v := (g.rng.Float64()*2 - 1) * math.Ldexp(1, g.rng.Intn(16)-8)
	switch fn {
	case "LOG_SUM":
		v = math.Abs(v)
	case "LOG_SUM_EXP":
		v = g.rng.Float64()*60 - 30
	}
	return v
}

// reduceFloatMeasured: the FLOAT32 answers measured on DirectML 1.15.4
// (issue 32, docs/semantics.md rules 39 and 41).
func (g *gen) reduceFloatMeasured() {
	covers := []string{"rule 39", "rule 41", "rule 44", "fact:reduce float measured"}
	const p24 = 0x1p24
	g.reduceRows("reduce_measured_sum_cancelling", "SUM", covers, tensor.Float32, []float64{1e8, 1, -1e8, 1})
	g.reduceRows("reduce_measured_sum_2p24_four_ones", "SUM", covers, tensor.Float32, []float64{p24, 1, 1, 1, 1})
	ones := make([]float64, 64)
	for i := range ones {
		ones[i] = 1
	}
	ones[0] = p24
	g.reduceRows("reduce_measured_sum_2p24_63_ones", "SUM", covers, tensor.Float32, ones)
	g.reduceRows("reduce_measured_log_sum_exp_1000", "LOG_SUM_EXP", covers, tensor.Float32,
		[]float64{1000, 1000}, []float64{-1000, -1000})
	g.reduceRows("reduce_measured_l2_overflow", "L2", covers, tensor.Float32, []float64{3e30, 4e30})
	g.reduceRows("reduce_measured_log_sum_zeros", "LOG_SUM", covers, tensor.Float32, []float64{0, 0})
	g.reduceRows("reduce_measured_average_tenths", "AVERAGE", covers, tensor.Float32, []float64{0.1, 0.2, 0.4})
}

// randomReduceFloat: per round, each float function on FLOAT32 or FLOAT16
// over random sizes and a random set of axes (now and then rows of up to
// 3,500, past FLOAT16's 2^11), its values drawn as reduceFloatDraw's with
// an occasional special: ±0, ±inf, NaN, a denormal or a value whose
// square overflows.
func (g *gen) randomReduceFloat() {
	for _, fn := range reduceFloatFunctions {
		dt := []tensor.DataType{tensor.Float32, tensor.Float16}[g.rng.Intn(2)]
		var sizes, axes []uint32
		if g.rng.Intn(4) == 0 {
			sizes, axes = u32(uint32(1+g.rng.Intn(2)), uint32(500+g.rng.Intn(3000))), u32(1)
		} else {
			rank := 1 + g.rng.Intn(4)
			sizes = g.sizes(rank, 200)
			for a := 0; a < rank; a++ {
				if g.rng.Intn(2) == 0 {
					axes = append(axes, uint32(a))
				}
			}
			if len(axes) == 0 {
				axes = u32(uint32(g.rng.Intn(rank)))
			}
		}
		draw := g.reduceFloatDraw(fn)
		big, denorm := 3e38, 0x1p-149
		if dt == tensor.Float16 {
			big, denorm = 60000, 0x1p-24
		}
		specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), denorm, big}
		g.reduceValue(fmt.Sprintf("random_reduce_float_%s_%s", lower(fn), lower(dt.String())), fn,
			[]string{"random", "rule 39", "rule 44"}, dt, sizes, axes,
			func(t *tensor.Tensor, c []uint32, i int) {
				if g.rng.Intn(40) == 0 {
					t.SetFloat64(c, specials[g.rng.Intn(len(specials))])
					return
				}
				draw(t, c, i)
			})
	}
	// MULTIPLY (rule 42), after the others: factors near 1, so that
	// products over hundreds of values stay in range (rule 44 bounds
	// them there), with an occasional special.
	dt := []tensor.DataType{tensor.Float32, tensor.Float16}[g.rng.Intn(2)]
	rank := 1 + g.rng.Intn(3)
	sizes := g.sizes(rank, 200)
	axes := u32(uint32(g.rng.Intn(rank)))
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-30, 1e30}
	g.reduceValue(fmt.Sprintf("random_reduce_float_multiply_%s", lower(dt.String())), "MULTIPLY",
		[]string{"random", "rule 42", "rule 44"}, dt, sizes, axes,
		func(t *tensor.Tensor, c []uint32, _ int) {
			if g.rng.Intn(100) == 0 {
				t.SetFloat64(c, specials[g.rng.Intn(len(specials))])
				return
			}
			t.SetFloat64(c, 1+(g.rng.Float64()-0.5)/8)
		})
}
