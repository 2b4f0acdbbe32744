package shaders

import "fmt"

// ArgMax kernel shapes (see argmax.comp).
const (
	ArgMaxThread = "thread" // one invocation per (output, segment)
	// ArgMaxThreadX8: ArgMaxThread loading eight block positions before
	// scanning them.
	ArgMaxThreadX8 = "threadx8"
	ArgMaxGroup    = "group"   // one workgroup per (output, segment), shared memory only
	ArgMaxGroupSG  = "groupsg" // one workgroup per (output, segment), subgroup arithmetic
)

// ArgMaxName is the first-pass ARGMAX/ARGMIN kernel for elemBits-bit inputs;
// native picks 8/16-bit storage buffers over 32-bit words (it matters only
// below 32 bits); shape is one of the ArgMax* shapes.
func ArgMaxName(elemBits int, native bool, shape string) string {
	storage := ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	return name("argmax", fmt.Sprintf("b%d%s", elemBits, storage), shape)
}

// ArgMaxCombineName is the second pass that combines split-K partials,
// one invocation per output.
const ArgMaxCombineName = "argmax_combine"

// ArgMaxCombineGroup and ArgMaxCombineGroupSG are second passes with one
// workgroup per output (argmax_combine_group.comp): lanes read the partials
// side by side, then combine through shared memory, or (SG) subgroup
// arithmetic and shared memory.
const (
	ArgMaxCombineGroup   = "argmax_combine_group"
	ArgMaxCombineGroupSG = "argmax_combine_groupsg"
)

// The contract every ARGMAX kernel shares (reduce.glsl, argmax.comp,
// argmax_combine.comp, argmax_combine_group.comp, argmax_vec_row.comp,
// argmax_vec_col.comp): two bindings; specialization
// constants: the workgroup size, FLAGS, and the sizes (DS), input strides
// (DI) and output strides (DO) of 8 dimension slots; push words after the
// base offsets: the first pass's step and segment ranges and windows, or
// the combine's.
const argBindings = 2

var (
	argSpec        = concat([]string{SpecWorkgroupSize, "FLAGS"}, numbered("DS", 8), numbered("DI", 8), numbered("DO", 8))
	argPush        = []string{"o_begin", "o_count", "j_begin", "j_count", "seg_len", "nloc", "seg_base", "nseg", "in_win", "dst_win"}
	argCombinePush = []string{"o_begin", "o_count", "nseg", "tmp_win", "out_win"}
)

func argmaxVariants() []Variant {
	out := []Variant{{Name: ArgMaxCombineName, Source: "argmax_combine.comp",
		Bindings: argBindings, Spec: argSpec, Push: argCombinePush}}
	for _, sg := range []bool{false, true} {
		name := ArgMaxCombineGroup
		if sg {
			name = ArgMaxCombineGroupSG
		}
		out = append(out, Variant{Name: name, Source: "argmax_combine_group.comp",
			Defines:  []string{fmt.Sprintf("SUBGROUP=%d", b2i(sg))},
			Bindings: argBindings, Spec: argSpec, Push: argCombinePush})
	}
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			for _, shape := range []string{ArgMaxThread, ArgMaxGroup, ArgMaxGroupSG, ArgMaxThreadX8} {
				thread := shape == ArgMaxThread || shape == ArgMaxThreadX8
				defines := []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
					fmt.Sprintf("GROUP=%d", b2i(!thread)), fmt.Sprintf("SUBGROUP=%d", b2i(shape == ArgMaxGroupSG))}
				if shape == ArgMaxThreadX8 {
					defines = append(defines, "LOADS=8")
				}
				out = append(out, Variant{
					Name: ArgMaxName(bits, native, shape), Source: "argmax.comp", Defines: defines,
					Bindings: argBindings, Spec: argSpec, Push: argPush,
				})
			}
		}
	}
	return out
}
