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

// TopKSelectVec2Name is TopKSelectName's 64-bit radix kernel whose scans
// of rows of input stride 1 read 16-byte vectors of two positions
// (topk_select.comp SCAN64; the GPU class's plans).
func TopKSelectVec2Name(runs bool) string {
	return name(TopKSelectName(64, false, TopKRadix, runs), "vec2")
}

// topKScan8Shapes are the shapes with a SCAN8 kernel: the lists', whose
// gate (the last entry) closes after K positions, and the filter's, whose
// SCAN8 kernel is the byte select (a sampled threshold byte, one gather
// of the positions at or above it, one sort).
var topKScan8Shapes = []string{TopKThread, TopKLane, TopKFilter}

// topKTexelShapes are the shapes with a texel kernel: the scans the CPU
// class's plans read 16-byte vectors with (K = 1's lane, radix).
var topKTexelShapes = []string{TopKLane, TopKRadix}

// TopKMaximaName is topk_maxima.comp's kernel: short rows of 32-bit
// elements of input stride 1, read through a uniform texel buffer (binding
// 0 in Variant.TexelBindings), written in one dispatch from the entries at
// or before the K-th best of its groups' bests (the CPU class's plans).
const TopKMaximaName = "topk_b32_maxima_texel"

// TopKMaximaLaneGroups is the most groups a lane of topk_maxima.comp
// scans (its LANE_GROUPS, kept in registers), TopKMaximaCands the most
// entries it gathers (CAND_MAX), and TopKMaximaRanks the most it ranks
// (RANK_MAX: beyond, it bisects them for the K-th first);
// TopKMaximaGroupMax the most groups the planner cuts a row into
// (ops topKMaximaGroupVecs: a wider subgroup gets longer groups, not
// more of them; the kernel itself is bound by LANE_GROUPS a lane).
const (
	TopKMaximaGroupMax   = 1024
	TopKMaximaLaneGroups = 128
	TopKMaximaCands      = 3584
	TopKMaximaRanks      = 256
)

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

// The split radix select's kernels (topk_split.glsl): 32-bit rows of
// input stride 1 read through a uniform texel buffer, one row a
// workgroup, each dispatch carrying only its own code (the CPU class's
// plans: ops tuning topKSplitMinLen).
const (
	TopKThreshSampleName = "topk_thresh_sample" // the threshold from a sample (topk_thresh.comp EXACT 0)
	TopKThreshExactName  = "topk_thresh_exact"  // the exact threshold of the FAILED rows (EXACT 1)
	TopKThreshGatherName = "topk_thresh_gather" // the threshold from a sample, then the SAMPLED rows' gather (EXACT 0, GATHER 1)
	TopKGatherName       = "topk_gather"        // the texels at or above the threshold (topk_gather.comp)
	TopKRankName         = "topk_rank"          // the passing entries ranked, the results written (topk_rank.comp)
)

// TopKSplitSortMax is the most passing entries topk_rank.comp orders
// (topk_split.glsl SPLIT_SORT_MAX), TopKSplitStateWords the words of a
// row's state before its regions (ST_REGION), TopKSplitMaxRegions the
// most regions a row (the gather's lanes), TopKSplitBucketMax the most
// entries of a bucket topk_rank.comp walks (BUCKET_MAX) and
// TopKSplitRankBuckets its buckets (RANK_BUCKETS).
const (
	TopKSplitBucketMax   = 256
	TopKSplitRankBuckets = 2048
	TopKSplitSortMax     = 2944
	TopKSplitStateWords  = 132
	TopKSplitMaxRegions  = 64
	// TopKSplitSubsample: the sampled threshold's bracket reads every
	// TopKSplitSubsample-th sampled texel (topk_thresh.comp SUBSAMPLE,
	// defined from it).
	TopKSplitSubsample = 8
)

// topKSplitPush is the split kernels' push words after the base offsets.
var topKSplitPush = []string{"r_begin", "r_count", "row_words", "cap", "samp_step", "gw", "want", "in_win", "v_win", "x_win"}

func topKSplitVariants() []Variant {
	texel := []int{0}
	subsample := fmt.Sprintf("SUBSAMPLE=%d", TopKSplitSubsample)
	return []Variant{
		{Name: TopKThreshSampleName, Source: "topk_thresh.comp", Defines: []string{"EXACT=0", subsample}, Bindings: 2, TexelBindings: texel, Spec: topKSpec[:topKSpecRows], Push: topKSplitPush},
		{Name: TopKThreshExactName, Source: "topk_thresh.comp", Defines: []string{"EXACT=1"}, Bindings: 2, TexelBindings: texel, Spec: topKSpec[:topKSpecRows], Push: topKSplitPush},
		{Name: TopKThreshGatherName, Source: "topk_thresh.comp", Defines: []string{"EXACT=0", "GATHER=1", subsample}, Bindings: 2, TexelBindings: texel, Spec: topKSpec[:topKSpecRows], Push: topKSplitPush},
		{Name: TopKGatherName, Source: "topk_gather.comp", Bindings: 2, TexelBindings: texel, Spec: topKSpec[:topKSpecRows], Push: topKSplitPush},
		{Name: TopKRankName, Source: "topk_rank.comp", Bindings: 4, TexelBindings: texel, Spec: topKSpec, Push: topKSplitPush},
	}
}

// The contract every TOP_K kernel shares (topk.glsl): specialization
// constants the workgroup size, FLAGS, K, N, the axis strides and four
// arrays of 7 kept dimension slots.
var (
	topKSpec        = concat([]string{SpecWorkgroupSize, "FLAGS", "K", "N", "AI", "AV", "AX"}, numbered("DS", 7), numbered("DI", 7), numbered("DV", 7), numbered("DX", 7))
	topKSelectPush  = []string{"r_begin", "r_count", "seg_len", "nseg", "run_cap", "sort_n", "list_n", "cand_n", "samp_step", "floor_step", "in_win", "v_win", "x_win"}
	topKMergePush   = []string{"r_begin", "r_count", "span", "cap_in", "nruns_in", "cap_out", "nruns_out", "in_win", "v_win", "x_win"}
	topKMaximaPush  = []string{"r_begin", "r_count", "in_win", "v_win", "x_win"}
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
	out := append(topKSplitVariants(), Variant{Name: TopKMaximaName, Source: "topk_maxima.comp", Defines: []string{"ELEM_BITS=32", "SUBGROUP=1"},
		Bindings: 3, TexelBindings: []int{0}, Spec: append(slices.Clip(topKSpec), "GV"), Push: topKMaximaPush})
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
					if bits == 64 && shape == TopKRadix {
						v.Name = TopKSelectVec2Name(runs)
						v.Defines = append(slices.Clip(v.Defines), "SCAN64=1")
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
