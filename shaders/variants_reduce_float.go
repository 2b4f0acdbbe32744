package shaders

import (
	"fmt"
	"slices"
)

// REDUCE's float functions (AVERAGE, L1, L2, LOG_SUM, LOG_SUM_EXP, SUM,
// SUM_SQUARE of FLOAT32 and FLOAT16) run ARGMAX's kernels compiled with REDUCE_FLOAT 1, whose Part is
// reduce_part_float.glsl's exact accumulator: the same contract (bindings,
// specialization constants, push words) with 48-byte partials, in the
// thread shape and the group shape without subgroup arithmetic (an exact
// accumulator merges through shared memory), whose lanes load four
// positions a trip (argmax.comp LOADS, reduce_part_float.glsl's fast
// scan). MULTIPLY's canonical tree (rule 42) runs reduce_fmul.comp in the
// same contract.

// ReduceFloatName is the first pass for elemBits-bit floats (16 or 32),
// native as in ArgMaxName, shape ArgMaxThread or ArgMaxGroup.
func ReduceFloatName(elemBits int, native bool, shape string) string {
	return "reduce_float" + ArgMaxName(elemBits, native, shape)[len("argmax"):]
}

// The float functions' combine passes, as ArgMaxCombineName and
// ArgMaxCombineGroup; the ReduceFmul ones are MULTIPLY's
// (reduce_fmul.comp), whose partials continue rule 42's tree in order.
const (
	ReduceFloatCombine      = "reduce_float_combine"
	ReduceFloatCombineGroup = "reduce_float_combine_group"
	ReduceFmulCombine       = "reduce_fmul_combine"
	ReduceFmulCombineGroup  = "reduce_fmul_combine_group"
)

// ReduceFloatHalfVec ends the name of the FLOAT16 group first passes that
// scan a contiguous block in 16-byte vectors into a 64-bit lane sum
// (argmax.comp HALF_FAST, reduce_half_fast.glsl; other blocks as the
// variant without it): they need shaderInt64.
// MULTIPLY's FLOAT16 group first passes have one too (reduce_fmul.comp
// HALF_VEC, after ReduceFmulHW where they have it), for devices with
// shaderInt64.
const ReduceFloatHalfVec = "_vec"

// ReduceFloatHalfCol is the FLOAT16 column first pass of SUM, AVERAGE,
// LOG_SUM, L1, SUM_SQUARE and L2 (reduce_half_col.comp: 8 adjacent
// outputs an invocation, a 16-byte vector a block position, LOADS of them
// in flight, a 64-bit exact sum a column, 128-bit for squares): needs
// shaderInt64. HALF_FAST=1
// says what the variant tables' tests ask of argmax.comp's HALF_FAST: the
// conversion's exact power-of-two products and 64-bit sums.
const ReduceFloatHalfCol = "reduce_float_vec_b16_col"

// ReduceFmulHalfCol is MULTIPLY's FLOAT16 column first pass
// (reduce_fmul.comp COL, HALF_VEC): ReduceFloatHalfCol's layout and
// loads, each column's tree in rule 42's order, the halves widened as the
// vector run's; needs shaderInt64. With ReduceFmulHW after it, the
// native multiply.
const ReduceFmulHalfCol = "reduce_fmul_vec_b16_col"

// ReduceFloatTexel ends the names of the FLOAT32 group first passes that
// read their input as a uniform texel buffer of R32G32B32A32_UINT texels
// (argmax.comp TEXEL: contiguous blocks a texel of four elements at a
// time, other blocks a texel fetch an element), for the CPU class (the
// tuning knob reduceFloatTexel); after ReduceFmulHW where a variant has
// it. The thread shape has none: its columns read a 16-byte texel for
// one element, and on lavapipe that measured no faster (BENCHMARKS.md,
// "Exact FLOAT32 SUM through texel buffers").
const ReduceFloatTexel = "_texel"

// ReduceFloatExpTable ends the names of the FLOAT16 first passes of
// LOG_SUM_EXP that read each half's term exp(h) from binding 2, a table
// of the reference's exp rounded to FLOAT32 for every FLOAT16
// (argmax.comp EXP_TABLE, ops.TableExpHalf), where the others compute
// rule 40's exp per element: the thread and group shapes on both storage
// paths, with expTableBindings bindings.
const ReduceFloatExpTable = "_exptab"

// expTableBindings: the input, the output or partials, and the table.
const expTableBindings = 3

// withExpTable is v's LOG_SUM_EXP variant whose terms come from the table
// (ReduceFloatExpTable).
func withExpTable(v Variant) Variant {
	v.Name += ReduceFloatExpTable
	v.Defines = append(slices.Clone(v.Defines), "EXP_TABLE=1")
	v.Bindings = expTableBindings
	return v
}

// ReduceFmulHW ends the names of MULTIPLY's native-multiply variants
// (reduce_fmul.comp HW_MUL=1): each first pass and combine has one, whose
// products are the hardware's FLOAT32 multiply under the float controls
// DenormPreserve, SignedZeroInfNanPreserve and RoundingModeRTE (rule 42:
// the same bits), for devices that report all three. The FLOAT32 first
// passes of the other float functions have one too (argmax.comp
// REDUCE_FLOAT with HW_MUL=1), whose SUM_SQUARE and L2 terms x·x are that
// multiply (rule 41: x·x rounded to FLOAT32, the same bits).
const ReduceFmulHW = "_hw"

// ReduceFmulName is MULTIPLY's first pass (reduce_fmul.comp) for
// elemBits-bit floats, native and shape as ReduceFloatName's.
func ReduceFmulName(elemBits int, native bool, shape string) string {
	return "reduce_fmul" + ArgMaxName(elemBits, native, shape)[len("argmax"):]
}

// withHWMul is MULTIPLY's variant v and its native-multiply twin.
func withHWMul(v Variant) []Variant {
	hw := v
	hw.Name += ReduceFmulHW
	hw.Defines = append(slices.Clone(v.Defines), "HW_MUL=1")
	hw.FloatControls32, hw.RoundingRTE32 = true, true
	return []Variant{v, hw}
}

func reduceFloatVariants() []Variant {
	out := []Variant{
		{Name: ReduceFloatCombine, Source: "argmax_combine.comp", Defines: []string{"REDUCE_FLOAT=1"},
			Bindings: argBindings, Spec: argSpec, Push: argCombinePush},
		{Name: ReduceFloatCombineGroup, Source: "argmax_combine_group.comp", Defines: []string{"REDUCE_FLOAT=1", "SUBGROUP=0"},
			Bindings: argBindings, Spec: argSpec, Push: argCombinePush},
	}
	halfCol := Variant{Name: ReduceFloatHalfCol, Source: "reduce_half_col.comp", Defines: []string{"REDUCE_FLOAT=1", "ELEM_BITS=16", "LOADS=16", "HALF_FAST=1"},
		Bindings: argBindings, Spec: argSpec, Push: argPush}
	// And LOG_SUM_EXP's, its terms from the table.
	out = append(out, halfCol, withExpTable(halfCol))
	out = append(out, withHWMul(Variant{Name: ReduceFmulHalfCol, Source: "reduce_fmul.comp",
		Defines:  []string{"COMBINE=0", "ELEM_BITS=16", "NATIVE=0", "GROUP=0", "COL=1", "HALF_VEC=1", "LOADS=16"},
		Bindings: argBindings, Spec: argSpec, Push: argPush})...)
	out = append(out, withHWMul(Variant{Name: ReduceFmulCombine, Source: "reduce_fmul.comp", Defines: []string{"COMBINE=1", "GROUP=0"},
		Bindings: argBindings, Spec: argSpec, Push: argCombinePush})...)
	out = append(out, withHWMul(Variant{Name: ReduceFmulCombineGroup, Source: "reduce_fmul.comp", Defines: []string{"COMBINE=1", "GROUP=1"},
		Bindings: argBindings, Spec: argSpec, Push: argCombinePush})...)
	for _, bits := range []int{16, 32} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			for _, shape := range []string{ArgMaxThread, ArgMaxGroup} {
				v := Variant{
					Name: ReduceFloatName(bits, native, shape), Source: "argmax.comp",
					Defines: []string{"REDUCE_FLOAT=1", fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
						fmt.Sprintf("GROUP=%d", b2i(shape == ArgMaxGroup)), "SUBGROUP=0", "LOADS=4"},
					Bindings: argBindings, Spec: argSpec, Push: argPush,
				}
				switch {
				case bits == 32:
					// SUM_SQUARE's and L2's terms x·x by the native
					// multiply (reduce_part_float.glsl part_term);
					// each group variant also reading texels.
					for _, v := range withHWMul(v) {
						out = append(out, v)
						if shape == ArgMaxGroup {
							texel := v
							texel.Name += ReduceFloatTexel
							texel.Defines = append(slices.Clone(v.Defines), "TEXEL=1")
							texel.TexelBindings = []int{0}
							out = append(out, texel)
						}
					}
				case shape == ArgMaxGroup:
					fast := v
					fast.Name += ReduceFloatHalfVec
					fast.Defines = append(slices.Clone(v.Defines), "HALF_FAST=1")
					out = append(out, v, fast)
				default:
					out = append(out, v)
				}
				if bits == 16 {
					// LOG_SUM_EXP's terms from the table.
					tab := withExpTable(v)
					out = append(out, tab)
					if shape == ArgMaxGroup {
						// A contiguous block's vector scan
						// (reduce_half_fast.glsl lse_scan).
						fast := tab
						fast.Name += ReduceFloatHalfVec
						fast.Defines = append(slices.Clone(tab.Defines), "HALF_FAST=1")
						out = append(out, fast)
					}
				}
				fmul := withHWMul(Variant{
					Name: ReduceFmulName(bits, native, shape), Source: "reduce_fmul.comp",
					Defines: []string{"COMBINE=0", fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
						fmt.Sprintf("GROUP=%d", b2i(shape == ArgMaxGroup)), "LOADS=8"},
					Bindings: argBindings, Spec: argSpec, Push: argPush,
				})
				out = append(out, fmul...)
				if bits == 16 && shape == ArgMaxGroup {
					// FLOAT16's vector run (reduce_fmul.comp
					// HALF_VEC): two 16-byte loads a trip, widened on
					// 64-bit words; with each multiply.
					for _, v := range fmul {
						v.Name += ReduceFloatHalfVec
						v.Defines = append(slices.Clone(v.Defines), "HALF_VEC=1")
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}
