package shaders

import "fmt"

// ArgMax kernel shapes (see argmax.comp).
const (
	ArgMaxThread  = "thread"  // one invocation per (output, segment)
	ArgMaxGroup   = "group"   // one workgroup per (output, segment), shared memory only
	ArgMaxGroupSG = "groupsg" // one workgroup per (output, segment), subgroup arithmetic
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

// ArgMaxCombineName is the second pass that combines split-K partials.
const ArgMaxCombineName = "argmax_combine"

func argmaxVariants() []Variant {
	out := []Variant{{Name: ArgMaxCombineName, Source: "argmax_combine.comp"}}
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			for _, shape := range []string{ArgMaxThread, ArgMaxGroup, ArgMaxGroupSG} {
				n, g, sg := 0, 0, 0
				if native {
					n = 1
				}
				if shape != ArgMaxThread {
					g = 1
				}
				if shape == ArgMaxGroupSG {
					sg = 1
				}
				out = append(out, Variant{
					Name:   ArgMaxName(bits, native, shape),
					Source: "argmax.comp",
					Defines: []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", n),
						fmt.Sprintf("GROUP=%d", g), fmt.Sprintf("SUBGROUP=%d", sg)},
				})
			}
		}
	}
	return out
}
