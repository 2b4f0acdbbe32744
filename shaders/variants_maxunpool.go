package shaders

import "fmt"

// maxunpool.comp's three passes (PASS 0, 1, 2): clear the winners, scatter
// the input positions into them, gather the output.
const (
	// MaxUnpoolClearName clears the temporary's winner words.
	MaxUnpoolClearName = "maxunpool_clear"
)

// MaxUnpoolScatterName is the scatter pass for indices of idxBits bits (32
// or 64); it reads no element, so one variant serves every value type.
// windowed picks the variant over chunks of planes (WINDOWED=1).
func MaxUnpoolScatterName(idxBits int, windowed bool) string {
	return name("maxunpool_scatter", fmt.Sprintf("idx%d", idxBits), windowedName(windowed))
}

// MaxUnpoolGatherName is the gather pass for elements of elemBits bits (8,
// 16, 32 or 64); native picks 8/16-bit storage buffers over 32-bit words
// with atomic sub-word stores (it matters only below 32 bits); windowed
// the variant over chunks of planes.
func MaxUnpoolGatherName(elemBits int, native, windowed bool) string {
	storage := ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	return name("maxunpool_gather", fmt.Sprintf("b%d%s", elemBits, storage), windowedName(windowed))
}

func windowedName(windowed bool) string {
	if windowed {
		return "win"
	}
	return ""
}

// The passes' specialization constants after the workgroup size: the
// input's sizes (C, H, W), then the strides (N, C, H, W) of the indices
// (scatter) or of the input and the output's sizes and strides (gather).
// The windowed variants add the planes per batch of an input chunk
// (ICSTEP) and, gathering, of an output chunk (OCSTEP); their push words
// place the step's chunks.
var (
	maxUnpoolScatterSpec = []string{SpecWorkgroupSize, "IC", "IH", "IW", "IDX_SN", "IDX_SC", "IDX_SH", "IDX_SW"}
	maxUnpoolGatherSpec  = []string{SpecWorkgroupSize, "IC", "IH", "IW", "IN_SN", "IN_SC", "IN_SH", "IN_SW",
		"OC", "OH", "OW", "OUT_SN", "OUT_SC", "OUT_SH", "OUT_SW"}
	maxUnpoolScatterWinSpec = concat(maxUnpoolScatterSpec, []string{"ICSTEP"})
	maxUnpoolGatherWinSpec  = concat(maxUnpoolGatherSpec, []string{"ICSTEP", "OCSTEP"})
	maxUnpoolScatterWinPush = []string{"total", "p0", "idx_e0", "out_lo", "out_count"}
	maxUnpoolGatherWinPush  = []string{"total", "in_e0", "out_e0", "p_lo", "p_count", "zeros"}
)

func maxUnpoolVariants() []Variant {
	out := []Variant{{Name: MaxUnpoolClearName, Source: "maxunpool.comp", Defines: []string{"PASS=0"},
		Bindings: 1, Spec: []string{SpecWorkgroupSize}, Push: []string{"count"}}}
	for _, win := range []bool{false, true} {
		spec, push := maxUnpoolScatterSpec, []string{"total", "out_total"}
		if win {
			spec, push = maxUnpoolScatterWinSpec, maxUnpoolScatterWinPush
		}
		for _, ib := range []int{32, 64} {
			out = append(out, Variant{Name: MaxUnpoolScatterName(ib, win), Source: "maxunpool.comp",
				Defines:  []string{"PASS=1", fmt.Sprintf("IDX_BITS=%d", ib), fmt.Sprintf("WINDOWED=%d", b2i(win))},
				Bindings: 2, Spec: spec, Push: push})
		}
	}
	for _, win := range []bool{false, true} {
		spec, push := maxUnpoolGatherSpec, []string{"total"}
		if win {
			spec, push = maxUnpoolGatherWinSpec, maxUnpoolGatherWinPush
		}
		for _, bits := range []int{8, 16, 32, 64} {
			natives := []bool{false}
			if bits < 32 {
				natives = []bool{true, false}
			}
			for _, native := range natives {
				out = append(out, Variant{Name: MaxUnpoolGatherName(bits, native, win), Source: "maxunpool.comp",
					Defines: []string{"PASS=2", fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
						fmt.Sprintf("WINDOWED=%d", b2i(win))},
					Bindings: 3, Spec: spec, Push: push})
			}
		}
	}
	return out
}
