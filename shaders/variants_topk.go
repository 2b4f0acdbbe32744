package shaders

import (
	"fmt"
	"slices"
)

// TOP_K kernel shapes (topk_select.comp's SHAPE).
const (
	TopKThread = "thread" // one invocation per (row, segment), an insertion list
	TopKLane   = "lane"   // one workgroup per (row, segment): lanes' lists sorted together
	TopKSort   = "sort"   // one workgroup per (row, segment): the segment sorted in shared memory
	TopKFilter = "filter" // one workgroup per (row, segment): a sorted list in shared memory, fed by a threshold
	TopKRadix  = "radix"  // one workgroup per (row, segment): a radix select on the order key, then a sort of the few left
)

// TopKSortMax is the most entries topk_select.comp sorts in shared memory
// (its SORT_MAX), and TopKListMax the longest insertion list (LIST_MAX).
const (
	TopKSortMax = 2048
	TopKListMax = 16
	// TopKRadixBits is the bits of one digit of the radix strategy
	// (topk_select.comp's RADIX_BITS).
	TopKRadixBits = 11
)

// TopKSelectName is the first pass for elemBits-bit elements (native:
// 8/16-bit storage buffers) of shape shape, writing runs to the temporary
// resource or, without runs, the results.
func TopKSelectName(elemBits int, native bool, shape string, runs bool) string {
	storage, out := "", ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	if runs {
		out = "runs"
	}
	return name("topk", fmt.Sprintf("b%d%s", elemBits, storage), shape, out)
}

// TopKSelectTexelName is TopKSelectName's 32-bit kernel of shape shape
// (lane or radix) reading its input through a uniform texel buffer
// (topk_select.comp TEXEL; binding 0 in Variant.TexelBindings).
func TopKSelectTexelName(shape string, runs bool) string {
	return name(TopKSelectName(32, true, shape, runs), "texel")
}

// TopKSelectScan8Name is TopKSelectName's 8-bit kernel of shape shape
// (thread, lane or filter) whose scans of rows of input stride 1 read
// 16-byte vectors of sixteen positions and test them with SWAR gates
// (topk_select.comp SCAN8; the GPU class's plans).
func TopKSelectScan8Name(native bool, shape string, runs bool) string {
	return name(TopKSelectName(8, native, shape, runs), "vec16")
}

// topKScan8Shapes are the shapes with a SCAN8 kernel: the lists', whose
// gate (the last entry) closes after K positions, and the filter's, whose
// SCAN8 kernel is the byte select (a sampled threshold byte, one gather
// of the positions at or above it, one sort).
var topKScan8Shapes = []string{TopKThread, TopKLane, TopKFilter}

// topKTexelShapes are the shapes with a texel kernel: the scans the CPU
// class's plans read 16-byte vectors with (K = 1's lane, radix).
var topKTexelShapes = []string{TopKLane, TopKRadix}

// TopKMergeName is a merge pass: the last one (final) writes the results
// of elemBits-bit elements (native as for TopKSelectName); the others
// write runs of entries for 64-bit elements or narrower ones.
func TopKMergeName(elemBits int, native, final bool) string {
	if !final {
		if elemBits == 64 {
			return "topk_merge_key64"
		}
		return "topk_merge"
	}
	storage := ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	return name("topk_merge", fmt.Sprintf("b%d%s", elemBits, storage))
}

// The contract every TOP_K kernel shares (topk.glsl): specialization
// constants the workgroup size, FLAGS, K, N, the axis strides and four
// arrays of 7 kept dimension slots.
var (
	topKSpec        = concat([]string{SpecWorkgroupSize, "FLAGS", "K", "N", "AI", "AV", "AX"}, numbered("DS", 7), numbered("DI", 7), numbered("DV", 7), numbered("DX", 7))
	topKSelectPush  = []string{"r_begin", "r_count", "seg_len", "nseg", "run_cap", "sort_n", "list_n", "cand_n", "samp_step", "floor_step", "in_win", "v_win", "x_win"}
	topKMergePush   = []string{"r_begin", "r_count", "span", "cap_in", "nruns_in", "cap_out", "nruns_out", "in_win", "v_win", "x_win"}
	topKShapeDefine = map[string]int{TopKThread: 0, TopKLane: 1, TopKSort: 2, TopKFilter: 3, TopKRadix: 4}
)

// A kernel that writes runs reads no output strides: its row declares
// the constants up to the input's (topKSpecRows); a merge that writes runs
// reads no strides at all (topKSpecRuns). The planner sets the ones a row
// declares.
const (
	topKSpecRows = 21
	topKSpecRuns = 4
)

func topKVariants() []Variant {
	var out []Variant
	for _, key64 := range []bool{false, true} {
		out = append(out, Variant{Name: TopKMergeName(32+32*b2i(key64), true, false), Source: "topk_merge.comp",
			Defines: []string{"FINAL=0", fmt.Sprintf("KEY64=%d", b2i(key64))}, Bindings: 2, Spec: topKSpec[:topKSpecRuns], Push: topKMergePush})
	}
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			elem := []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native))}
			out = append(out, Variant{Name: TopKMergeName(bits, native, true), Source: "topk_merge.comp",
				Defines: append([]string{"FINAL=1"}, elem...), Bindings: 4, Spec: topKSpec, Push: topKMergePush})
			for _, shape := range []string{TopKThread, TopKLane, TopKSort, TopKFilter, TopKRadix} {
				for _, runs := range []bool{false, true} {
					spec := topKSpec
					if runs {
						spec = topKSpec[:topKSpecRows]
					}
					v := Variant{
						Name: TopKSelectName(bits, native, shape, runs), Source: "topk_select.comp",
						Defines:  append([]string{fmt.Sprintf("SHAPE=%d", topKShapeDefine[shape]), fmt.Sprintf("RUNS=%d", b2i(runs))}, elem...),
						Bindings: 3 - b2i(runs), Spec: spec, Push: topKSelectPush,
					}
					out = append(out, v)
					if bits == 32 && slices.Contains(topKTexelShapes, shape) {
						v.Name, v.TexelBindings = TopKSelectTexelName(shape, runs), []int{0}
						v.Defines = append(slices.Clip(v.Defines), "TEXEL=1")
						out = append(out, v)
					}
					if bits == 8 && slices.Contains(topKScan8Shapes, shape) {
						v.Name = TopKSelectScan8Name(native, shape, runs)
						v.Defines = append(slices.Clip(v.Defines), "SCAN8=1")
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}
