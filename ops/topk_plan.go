package ops

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
)

// TOP_K strategies (Plan.Strategy; Context.Kernel forces one). Each cuts
// the axis of every row into segments; a row of one segment is written by
// the first pass, a row of several gets runs of its segments' best
// entries in the temporary resource, merged in pairs by topk_merge.comp
// until one is left (split-K's shape, with sorted runs of up to K entries
// as the partials).
const (
	// TopKStrategyThread: one invocation per (row, segment) keeps an
	// insertion-sorted list (K <= 16). Chosen for short rows and for an
	// axis that is not contiguous, where neighbouring invocations (rows)
	// read neighbouring elements.
	TopKStrategyThread = "thread"
	// TopKStrategyLane: one workgroup per (row, segment); each lane keeps a
	// list over its strided share, then the lanes' lists are sorted
	// together in shared memory (K <= 16). Chosen for long contiguous rows.
	TopKStrategyLane = "lane"
	// TopKStrategySort: one workgroup per (row, segment of at most
	// shaders.TopKSortMax positions) sorts its segment in shared memory
	// (a bitonic sort of (score, index) entries) and keeps min(K, length);
	// any K. Chosen when K > 1024.
	TopKStrategySort = "sort"
	// TopKStrategyFilter: one workgroup per (row, segment) keeps its best
	// entries sorted in shared memory; lanes test a chunk of positions
	// against the K-th best so far and append the better ones to a
	// candidate buffer, sorted into the list when it could overflow.
	// After the first chunks few positions pass, so a position costs
	// about one compare rather than the sort's log² (measured on
	// lavapipe: 128x256000 K=50 about 27 s of CPU with sort). K <= 1024;
	// chosen for 16 < K <= 1024.
	TopKStrategyFilter = "filter"
	// TopKStrategyRadix: one workgroup per (row, segment) finds the K-th
	// entry's order key a digit at a time (histogram passes over
	// topk_select.comp's 11-bit digits, each over the entries whose higher
	// digits match the ones chosen) until the entries at or above the
	// chosen prefix fit shared memory, then gathers and orders them
	// (ranking or a bitonic sort): a few scans of the row whatever K
	// (two or three on random floats), where filter's threshold pays two
	// barriers per chunk and sort a bitonic sort of every position. Keys
	// take the position after the score, so every key differs and the
	// passes end at exactly K entries at worst (all-equal rows). K <=
	// shaders.TopKSortMax; chosen for rows of at least
	// tuning.topKRadixMinLen positions with K at least
	// tuning.topKRadixMinK. Below 64 bits the CPU tuning first tries a
	// threshold from a sample (tuning.topKRadixSample) and ranks many
	// gathered entries in buckets (tuning.topKRadixBucketMin).
	TopKStrategyRadix = "radix"
	// TopKStrategyMaxima: one workgroup per row (topk_maxima.comp) takes
	// the best entry of each group of a few 16-byte vectors, bisects for
	// the K-th best of those, gathers the entries at or before it (about
	// K on random rows, at most (K-1) times a group's positions) and
	// ranks them: one dispatch, two scans of the row, and no path that a
	// row does not take (lavapipe runs every path a kernel carries).
	// 32-bit rows of input stride 1 read through a texel buffer whose
	// bound fits (topKMaximaGroupVecs); chosen on the CPU class for K in
	// [tuning.topKMaximaMinK, tuning.topKMaximaMaxK].
	TopKStrategyMaxima = "maxima"
)

// TopKStrategies lists the strategy names Context.Kernel may force.
var TopKStrategies = []string{TopKStrategyThread, TopKStrategyLane, TopKStrategyFilter, TopKStrategySort, TopKStrategyRadix, TopKStrategyMaxima}

const (
	// topKIters bounds one invocation's loop iterations, for argIters'
	// reasons (lavapipe's 65535 in all, watchdogs on GPUs): a list
	// insertion counts K+1 for each position scanned.
	topKIters = 16384
	// topKRadixItersMax bounds them for the radix strategy, whose bound
	// (topKRadixIters) counts every pass at its worst at once: half of
	// lavapipe's 65535.
	topKRadixItersMax = 32768
	// topKRadixBuckets is topk_select.comp's BUCKETS (bucket_rank_emit).
	topKRadixBuckets = 1024
	// topKRadixScanBlock and topKRadixSampleBlock are topk_select.comp's
	// SCAN_BLOCK and SAMPLE_BLOCK.
	topKRadixScanBlock   = 8 // 1 without texel scans
	topKRadixSampleBlock = 32
	// topKThrCands and topKThrPasses are topk_select.comp thr_search's
	// THR_CANDS and its most passes (each leaves 2^-4 of the scores: 32
	// bits in 8).
	topKThrCands  = 16
	topKThrPasses = 8
	topKSortWG    = 256
	// topKThreadWG is the thread strategy's workgroup: an invocation an
	// item.
	topKThreadWG = 64
	// topKMergeWG is topk_merge.comp's workgroup, an invocation an entry
	// slot: 2 cap_in slots a merged pair, which at K just past a power of
	// two (17, 33) round a pass's grid up by most of a workgroup; 32
	// lanes (one NVIDIA or Intel subgroup, half an AMD wave64) keep that
	// under 1% of the plan's lanes where 64 did not (the h100 grid's
	// 8x32000 and 1x1000000 at K = 17 and 33). The kernel has no barrier
	// or shared memory, so the size costs lavapipe nothing.
	topKMergeWG = 32
	// topKRadixMinWG is the radix strategy's least workgroup size.
	topKRadixMinWG = 64
	// topKShortRow: rows up to this long take the thread strategy (K <=
	// 16) even when contiguous: a workgroup per row would leave most
	// lanes idle.
	topKShortRow = 256
	// topKTempStep bounds the temporary bytes one batch of rows uses; the
	// batches run one after the other, reusing them.
	topKTempStep = 256 << 20
	// topKAlign is the window alignment TOP_K's kernels ask for (scalar
	// loads; 16 covers every element size).
	topKAlign = 16
)

// topKDim is one coalesced kept dimension: its size and its strides in the
// input, the values and the indices.
type topKDim struct {
	size uint64
	s    [3]uint64
}

// coalesce is the kept dimensions (every one but Axis), outermost first,
// size-1 ones dropped and neighbours whose three strides chain merged, and
// the axis's length and three strides.
func (t *topKOp) coalesce() (kept []topKDim, n uint64, axis [3]uint64) {
	strides := [3][]uint32{t.in.EffectiveStrides(), t.vals.EffectiveStrides(), t.idx.EffectiveStrides()}
	for i, size := range t.in.Sizes {
		d := topKDim{size: uint64(size)}
		for x := range 3 {
			d.s[x] = uint64(strides[x][i])
		}
		if uint32(i) == t.axis {
			n, axis = d.size, d.s
			continue
		}
		if size == 1 {
			continue
		}
		if m := len(kept); m > 0 {
			p := &kept[m-1]
			if p.s[0] == d.size*d.s[0] && p.s[1] == d.size*d.s[1] && p.s[2] == d.size*d.s[2] {
				*p = topKDim{size: p.size * d.size, s: d.s}
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept, n, axis
}

// topKBox is a box of rows (a few outer kept dimensions fixed, one cut to
// a chunk, the rest whole) and, per tensor, the element offset of its
// first element and the span of its elements, axis included.
type topKBox struct {
	begin, count uint64
	lo, span     [3]uint64
}

// topKBoxes covers the rows with boxes whose windows fit budget bytes in
// each tensor (element sizes es), as splitWindows does for ARGMAX with a
// third tensor: the outermost dimensions are fixed one at a time until
// one can be cut into chunks that fit.
func topKBoxes(kept []topKDim, n uint64, axis, es [3]uint64, budget uint64) ([]topKBox, error) {
	var lim [3]uint64
	for x := range 3 {
		if budget/es[x] == 0 {
			return nil, hresult.Unsupported("InputTensor", "a binding window of %d bytes holds no element", budget)
		}
		lim[x] = budget/es[x] - 1
	}
	spans := func(ds []topKDim) (sp [3]uint64) {
		for x := range 3 {
			sp[x] = (n - 1) * axis[x]
			for _, d := range ds {
				sp[x] += (d.size - 1) * d.s[x]
			}
		}
		return sp
	}
	steps := uint64(1)
	for peel := 0; peel <= len(kept); peel++ {
		other := spans(kept[min(peel+1, len(kept)):])
		fits := true
		chunk := uint64(1)
		if peel < len(kept) {
			chunk = kept[peel].size
		}
		for x := range 3 {
			if other[x] > lim[x] {
				fits = false
				break
			}
			if peel < len(kept) && kept[peel].s[x] > 0 {
				chunk = min(chunk, (lim[x]-other[x])/kept[peel].s[x]+1)
			}
		}
		if fits {
			if peel < len(kept) {
				steps = satMul(steps, ceilDiv(kept[peel].size, chunk))
			}
			if steps > maxPlanSteps {
				break
			}
			return topKCutBoxes(kept, n, axis, peel, chunk), nil
		}
		if peel < len(kept) {
			if steps = satMul(steps, kept[peel].size); steps > maxPlanSteps {
				break
			}
		}
	}
	return nil, hresult.Unsupported("InputTensor", "covering the tensors with windows of at most %d bytes (one binding each) would take more than %d dispatches, or one row along Axis does not fit one: the tensor is too large for the binding range, or its strides scatter its elements too widely", budget, maxPlanSteps)
}

// windows is the box's binding windows in the input, the values and the
// indices (element sizes es, tensor sizes sizes) and the element offset
// of each one's first element.
func (b topKBox) windows(es, sizes [3]uint64) (win [3]Slot, first [3]uint64) {
	kinds := [3]SlotKind{SlotInput, SlotOutput, SlotOutput}
	index := [3]int{0, 0, 1}
	for x := range 3 {
		win[x], first[x] = windowSlot(kinds[x], index[x], b.lo[x], b.lo[x]+b.span[x]+1, es[x], topKAlign, sizes[x])
	}
	return win, first
}

// topKCutBoxes enumerates the boxes: dimensions [0,peel) fixed, dimension
// peel cut into chunks of chunk.
func topKCutBoxes(kept []topKDim, n uint64, axis [3]uint64, peel int, chunk uint64) []topKBox {
	var out []topKBox
	inner := func(ds []topKDim) (rows uint64, sp [3]uint64) {
		rows = 1
		for x := range 3 {
			sp[x] = (n - 1) * axis[x]
		}
		for _, d := range ds {
			rows *= d.size
			for x := range 3 {
				sp[x] += (d.size - 1) * d.s[x]
			}
		}
		return rows, sp
	}
	var rec func(i int, begin uint64, lo [3]uint64)
	rec = func(i int, begin uint64, lo [3]uint64) {
		if i < peel {
			for c := uint64(0); c < kept[i].size; c++ {
				next := lo
				for x := range 3 {
					next[x] += c * kept[i].s[x]
				}
				rec(i+1, begin*kept[i].size+c, next)
			}
			return
		}
		if i == len(kept) {
			_, sp := inner(nil)
			out = append(out, topKBox{begin: begin, count: 1, lo: lo, span: sp})
			return
		}
		d := kept[i]
		rest, _ := inner(kept[i+1:])
		for c := uint64(0); c < d.size; c += chunk {
			l := min(chunk, d.size-c)
			_, sp := inner(append([]topKDim{{size: l, s: d.s}}, kept[i+1:]...))
			b := topKBox{begin: (begin*d.size + c) * rest, count: l * rest, span: sp}
			for x := range 3 {
				b.lo[x] = lo[x] + c*d.s[x]
			}
			out = append(out, b)
		}
	}
	rec(0, 0, [3]uint64{})
	return out
}

// topKPass is one merge pass: its input runs cover span positions and hold
// capIn entries each, nrunsIn per row; it makes nrunsOut runs of capOut.
type topKPass struct {
	span, capIn, nrunsIn, capOut, nrunsOut uint64
}

// topKSegments is how the axis is cut: the first pass's segments and the
// merge passes after it.
type topKSegments struct {
	shape          string
	wg             uint32
	segLen, nseg   uint64
	sortN          uint64 // sort: segments padded to; lane: lanes x list length; filter: entries of a merge
	listN, candN   uint64 // filter: the list's and the candidate buffer's entries
	texel          bool   // the first pass reads the input through a texel buffer (shaders.TopKSelectTexelName)
	scan8          bool   // the first pass scans 8-bit rows 16 bytes a load (shaders.TopKSelectScan8Name; filter: the byte select)
	vec2           bool   // radix: the scans read 64-bit rows two positions a 16-byte load (shaders.TopKSelectVec2Name)
	strided        bool   // radix: lane t scans every WG-th 16-byte vector from t, not a block (topk.glsl FLAGS STRIDED)
	groupVecs      uint64 // maxima: specialization constant GV, 16-byte vectors a group
	floorStep      uint64 // push word floor_step: radix, positions between two of the floor's sample (0: none); the byte select (filter with scan8), between two of the threshold's
	sampStep       uint64 // push word samp_step: radix, positions between two of the threshold's sample (0: none); filter, the positions of a 16-byte vector (4, 8, or 16 for the byte select) when a chunk's lanes test one each
	split          bool   // radix: the split select (emitSplit), one row a workgroup, splitWG gather lanes
	splitWG        uint32
	threshWG       uint32 // split: the sampled threshold's lanes (topk_thresh.comp EXACT 0)
	threshGather   bool   // split: the sampled rows' gather runs in the sampled threshold's dispatch (topk_thresh.comp GATHER 1)
	exactWG        uint32 // split: the exact threshold's lanes (EXACT 1)
	passes         []topKPass
	entryBytes     uint64
	rowA, rowB     uint64 // temporary bytes per row of the two regions
	rowsPerStep    uint64
	tempA, tempTot uint64
}

// plan is planStrategy's plan where the device holds its kernels' shared
// memory (maxComputeSharedMemorySize: Vulkan's least, 16384 bytes, is
// less than the radix, filter, maxima and split kernels declare; the
// Raspberry Pi's V3DV and some mobile GPUs report it); elsewhere the
// plan of the thread strategy (lists in registers, no shared memory) or,
// for K above its lists, the sort's, or an error naming the limit.
func (t *topKOp) plan(ctx *Context) (*Plan, error) {
	p, err := t.planStrategy(ctx)
	if err != nil {
		return nil, err
	}
	over := planSharedOver(ctx, p)
	if over == "" {
		return p, nil
	}
	small := *ctx
	small.Kernel = TopKStrategySort
	if uint64(t.k) <= shaders.TopKListMax {
		small.Kernel = TopKStrategyThread
	}
	fallback, err := t.planStrategy(&small)
	smallOver := ""
	if err == nil {
		smallOver = planSharedOver(&small, fallback)
	} else if ctx.Kernel == "" {
		return nil, err
	}
	if ctx.Kernel != "" {
		// A forced strategy is refused, with the one the planner would
		// take instead where that one fits.
		switch {
		case err == nil && smallOver == "" && small.Kernel != ctx.Kernel:
			return nil, hresult.Unsupported("Kernel", "strategy %q: its %s (%q fits)", ctx.Kernel, over, small.Kernel)
		case err == nil && smallOver != "":
			return nil, hresult.Unsupported("Kernel", "strategy %q: its %s (no TOP_K strategy fits the device at K = %d)", ctx.Kernel, over, t.k)
		}
		return nil, hresult.Unsupported("Kernel", "strategy %q: its %s", ctx.Kernel, over)
	}
	if smallOver != "" {
		return nil, hresult.Unsupported("K", "no TOP_K strategy fits the device at K = %d: the %s strategy's %s", t.k, small.Kernel, smallOver)
	}
	return fallback, nil
}

// planSharedOver is sharedOver's account of the first kernel of p that
// declares more shared memory than the device allows, or "".
func planSharedOver(ctx *Context, p *Plan) string {
	for _, k := range p.Kernels {
		if over := sharedOver(ctx, k.Variant); over != "" {
			return over
		}
	}
	return ""
}

// planStrategy chooses the strategy, cuts the axis into segments, covers
// the rows with windows and emits, for each batch of rows, the first pass
// and the merge passes.
func (t *topKOp) planStrategy(ctx *Context) (*Plan, error) {
	kept, n, axis := t.coalesce()
	if len(kept) > 7 {
		return nil, fmt.Errorf("ops: %s: %d coalesced kept dimensions", t.typ, len(kept))
	}
	rows := uint64(1)
	for _, d := range kept {
		rows *= d.size
	}
	k := uint64(t.k)
	seg, err := t.segments(ctx, rows, n, axis[0], k)
	if err != nil {
		return nil, err
	}
	es, xs := uint64(t.in.DataType.Size()), uint64(t.idx.DataType.Size())
	budget := windowBudget(ctx, topKAlign)
	if seg.split {
		// A row's state and its two words in the header's lists; the
		// header's own words (with its rounding to 16 bytes) at most 44
		// bytes more: 4*topKSplitHeaderWords(r) <= 8r + 44.
		rowBytes := 4 * topKSplitRowWords(uint64(seg.splitWG))
		lim := min(budget, topKTempStep)
		seg.rowsPerStep = 1
		if lim > 44 {
			seg.rowsPerStep = max(1, min(rows, (lim-44)/(rowBytes+8), maxSplitRows))
		}
		seg.tempTot = 4*topKSplitHeaderWords(seg.rowsPerStep) + seg.rowsPerStep*rowBytes
	} else if seg.nseg > 1 {
		if max(seg.rowA, seg.rowB) > budget {
			return nil, hresult.Unsupported("InputTensor", "one row's runs take %d bytes of temporary, more than one binding window (%d bytes) holds", max(seg.rowA, seg.rowB), budget)
		}
		seg.rowsPerStep = max(1, min(rows, min(budget, topKTempStep)/max(seg.rowA, seg.rowB)))
		seg.tempA = (seg.rowsPerStep*seg.rowA + 255) &^ 255
		seg.tempTot = seg.tempA + seg.rowsPerStep*seg.rowB
	}
	boxes, err := topKBoxes(kept, n, axis, [3]uint64{es, es, xs}, budget)
	if err != nil {
		return nil, err
	}
	if seg.split {
		return t.emitSplit(ctx, kept, n, axis, boxes, seg)
	}
	return t.emit(ctx, kept, n, axis, boxes, seg)
}

// maxSplitRows bounds the rows of one step of the split select: one row
// a workgroup, within every device's grid.
const maxSplitRows = 65535

// emitSplit builds the split select's steps (topk_split.glsl): for each
// box of rows, for each batch of at most rowsPerStep of its rows, the
// sampled threshold, its gather and ranking, then the exact threshold,
// gather and ranking of the rows whose sample failed, all one row a
// workgroup, the rows' states in the temporary resource. The steps after
// the sampled ranking are indirect (Step.Indirect): their groups are the
// rows the rankings list for them, none on random rows.
func (t *topKOp) emitSplit(ctx *Context, kept []topKDim, n uint64, axis [3]uint64, boxes []topKBox, s *topKSegments) (*Plan, error) {
	// Row states (topk_split.glsl ROW_SAMPLED, ROW_FAILED, ROW_EXACT,
	// ROW_WIDE).
	const rowSampled, rowFailed, rowExact, rowWide = 1, 2, 3, 5
	plan := &Plan{Strategy: s.shape, TemporarySize: s.tempTot}
	// The ranking twice: the sampled rows' in topKSplitRankWG lanes, the
	// rows those leave (ROW_WIDE) and the exact rows' in topKSplitWG.
	names := []string{shaders.TopKThreshSampleName, shaders.TopKGatherName, shaders.TopKRankName, shaders.TopKThreshExactName, shaders.TopKRankName}
	if s.threshGather {
		names[0] = shaders.TopKThreshGatherName
	}
	for i, name := range names {
		wg := uint32(topKSplitWG)
		switch {
		case name == shaders.TopKGatherName:
			wg = s.splitWG
		case i == 0:
			wg = s.threshWG
		case name == shaders.TopKThreshExactName:
			wg = s.exactWG
		case i == 2:
			wg = topKSplitRankWG
		}
		spec, err := t.spec(name, kept, n, axis, wg, false, 0)
		if err != nil {
			return nil, err
		}
		k, err := kernelOf(spec)
		if err != nil {
			return nil, err
		}
		plan.Kernels = append(plan.Kernels, k)
	}
	sizes := [3]uint64{t.in.TotalTensorSizeInBytes, t.vals.TotalTensorSizeInBytes, t.idx.TotalTensorSizeInBytes}
	dt := t.in.DataType
	es := [3]uint64{uint64(dt.Size()), uint64(dt.Size()), uint64(t.idx.DataType.Size())}
	rowWords := topKSplitRowWords(uint64(s.splitWG))
	for _, b := range boxes {
		win, wfirst := b.windows(es, sizes)
		for r0 := b.begin; r0 < b.begin+b.count; r0 += s.rowsPerStep {
			rc := min(s.rowsPerStep, b.begin+b.count-r0)
			temp := Slot{Kind: SlotTemporary, Size: 4 * (topKSplitHeaderWords(rc) + rc*rowWords)}
			// kernel (index into names) over the rows in state want.
			step := func(kernel int, want uint32) error {
				bind := []Slot{win[0], temp}
				if names[kernel] == shaders.TopKRankName {
					bind = append(bind, win[1], win[2])
				}
				push, err := pushBytes(shaders.NewPush(plan.Kernels[kernel].Variant).
					Set("r_begin", uint32(r0)).Set("r_count", uint32(rc)).Set("row_words", uint32(rowWords)).
					Set("cap", topKSplitCap).Set("samp_step", uint32(s.sampStep)).Set("gw", s.splitWG).Set("want", want).
					Set("in_win", uint32(wfirst[0])).Set("v_win", uint32(wfirst[1])).Set("x_win", uint32(wfirst[2])))
				if err != nil {
					return err
				}
				st := Step{Kernel: kernel, Bindings: bind, Params: push, Groups: gridFor(ctx, rc, 1), Barrier: len(plan.Steps) > 0}
				// The header's arguments (topk_split.glsl HDR_WIDE,
				// HDR_EXACT): at most rc groups, in x (rc <=
				// maxSplitRows, within every device's grid).
				switch want {
				case rowWide:
					st.Indirect, st.Groups = &Slot{Kind: SlotTemporary, Offset: 0, Size: 12}, [3]uint32{uint32(rc), 1, 1}
				case rowFailed, rowExact:
					st.Indirect, st.Groups = &Slot{Kind: SlotTemporary, Offset: 16, Size: 12}, [3]uint32{uint32(rc), 1, 1}
				}
				plan.Steps = append(plan.Steps, st)
				return nil
			}
			steps := []struct {
				kernel int
				want   uint32
			}{{0, 0}, {1, rowSampled}, {2, rowSampled}, {4, rowWide}, {3, rowFailed}, {1, rowExact}, {4, rowExact}}
			if s.threshGather {
				steps = append(steps[:1], steps[2:]...)
			}
			for _, st := range steps {
				if err := step(st.kernel, st.want); err != nil {
					return nil, err
				}
			}
		}
	}
	return plan, nil
}

// segments chooses the strategy (or takes the forced one) and cuts the
// axis for it. Where the tuning bounds the runs' bytes (topKRunPercent)
// and the strategy chosen cannot cut segments long enough to keep within
// it, the planner takes radix where radix can run the case.
func (t *topKOp) segments(ctx *Context, rows, n, axisIn, k uint64) (*topKSegments, error) {
	wgLimit := uint64(max(min(ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0]), 1))
	// The scans of 32-bit rows of stride 1 read four positions a load
	// (topk_select.comp VEC4); the lists', the filter's and the radix
	// scans of 16-bit rows eight (VEC8). vw is the positions a load, 0
	// without.
	vw := uint64(0)
	if es := t.in.DataType.Size(); (es == 4 || es == 2) && axisIn == 1 {
		vw = 16 / uint64(es)
	}
	vec4 := vw == 4
	// The radix scans of 64-bit rows of stride 1 read two positions a
	// load where the tuning asks (topKRadixVec2): vector scans for
	// topKRadixVecOnly.
	vec := vw > 0 || t.in.DataType.Size() == 8 && axisIn == 1 && ctx.tuning().topKRadixVec2
	// The maxima kernel's groups where its bounds allow (0: not).
	gv := uint64(0)
	if wg := topKMaximaWG(ctx, wgLimit); vec4 && texelFits(ctx.Limits) && wg > 0 {
		gv = topKMaximaGroupVecs(n, k, wg)
	}
	shape, err := topKStrategy(ctx, t.typ, n, axisIn, k, wgLimit, vec, gv)
	if err != nil {
		return nil, err
	}
	s := t.cut(ctx, shape, rows, n, axisIn, k, wgLimit, vw)
	rowBytes := n * uint64(t.in.DataType.Size())
	if ctx.Kernel == "" && shape != TopKStrategyRadix && !topKRunsFit(s.runBytes(k), rowBytes, ctx.tuning().topKRunPercent) {
		if topKRadixRuns(ctx, k, wgLimit, vec) {
			s = t.cut(ctx, TopKStrategyRadix, rows, n, axisIn, k, wgLimit, vw)
		} else if b := (&topKSegments{entryBytes: 8}); t.in.DataType.Size() == 1 && axisIn == 1 && ctx.tuning().topKScan8 && b.cutByteWhole(n, k, wgLimit) {
			s = b
		}
	}
	return s, nil
}

// cut cuts the axis for strategy shape and lays out the merges of its
// runs.
func (t *topKOp) cut(ctx *Context, shape string, rows, n, axisIn, k, wgLimit, vw uint64) *topKSegments {
	vec4 := vw == 4
	s := &topKSegments{shape: shape, entryBytes: 8}
	// The lists' scans of 8-bit rows sixteen positions a load (tuning
	// topKScan8).
	s.scan8 = t.in.DataType.Size() == 1 && axisIn == 1 && ctx.tuning().topKScan8 && (shape == TopKStrategyThread || shape == TopKStrategyLane)
	s.texel = vec4 && ctx.tuning().topKTexel && texelFits(ctx.Limits) && (shape == TopKStrategyLane || shape == TopKStrategyRadix)
	// The radix scans' lanes read every WG-th 16-byte vector, not a
	// block each (tuning topKRadixStrided; topk_select.comp
	// lane_vectors). The texel scans' floor blocks need the blocks.
	s.strided = shape == TopKStrategyRadix && ctx.tuning().topKRadixStrided && !s.texel
	if t.in.DataType.Size() == 8 {
		s.entryBytes = 12
		s.vec2 = shape == TopKStrategyRadix && axisIn == 1 && ctx.tuning().topKRadixVec2
	}
	switch shape {
	case TopKStrategyThread:
		s.wg = topKThreadWG
		s.segLen = min(n, max(topKIters/(k+1), 1))
	case TopKStrategyLane:
		laneLimit := wgLimit
		if fit := uint64(ctx.tuning().topKLaneFitMinWG); fit > 0 {
			lw := vw
			if s.scan8 {
				lw = 16
			}
			laneLimit = min(wgLimit, max(topKRowLanes(n, lw), fit))
		}
		s.cutLane(ctx, rows, n, k, laneLimit, uint64(t.in.DataType.Size()))
	case TopKStrategyFilter:
		if t.in.DataType.Size() == 1 && axisIn == 1 && ctx.tuning().topKScan8 && s.cutByteSelect(rows, n, k, wgLimit) {
			break
		}
		if !ctx.tuning().topKFilterVec {
			vw = 0
		}
		s.cutFilter(ctx, rows, n, k, wgLimit, vw, uint64(t.in.DataType.Size()))
	case TopKStrategyRadix:
		radixLimit := wgLimit
		fitLanes := ctx.tuning().topKLaneFitMinWG > 0 && (vw > 0 || s.vec2)
		lw := vw
		if s.vec2 {
			lw = 2
		}
		if fitLanes {
			// The strided scans' lanes as the lane strategy's: within the
			// row's vectors (1024x1000 FLOAT16 K=1000: 124 of 1024 lanes
			// had work), not under the strategy's least.
			radixLimit = min(wgLimit, max(topKRowLanes(n, lw), topKRadixMinWG))
		}
		before := *s
		s.cutRadix(ctx, rows, n, k, radixLimit, vec4, uint64(t.in.DataType.Size()))
		// And within a segment's, where split-K cut the row and the same
		// segments keep within the trip bound on fewer lanes (h100
		// 8x32000 FLOAT16 K=17: segments of 667 vectors in workgroups of
		// 1024, 34% of the lanes empty).
		if fit := min(radixLimit, max(uint64(pow2Floor(uint32(min(topKRowLanes(s.segLen, lw), 1<<31)))), topKRadixMinWG)); fitLanes && !s.split && fit < uint64(s.wg) {
			alt := before
			alt.cutRadix(ctx, rows, n, k, fit, vec4, uint64(t.in.DataType.Size()))
			if !alt.split && alt.segLen == s.segLen {
				*s = alt
			}
		}
	case TopKStrategyMaxima:
		s.wg = uint32(topKMaximaWG(ctx, wgLimit))
		s.segLen, s.groupVecs = n, topKMaximaGroupVecs(n, k, uint64(s.wg))
	case TopKStrategySort:
		s.segLen = min(n, shaders.TopKSortMax)
		s.sortN = uint64(pow2Ceil(uint32(s.segLen)))
		s.wg = uint32(pow2Floor(uint32(min(topKSortWG, wgLimit, max(s.sortN/2, 1)))))
	}
	s.wg = uint32(min(uint64(s.wg), wgLimit))
	s.nseg = ceilDiv(n, s.segLen)
	if s.nseg > 1 {
		s.mergeRuns(k)
	}
	return s
}

// topKRunsFit reports whether runs of runBytes a row keep within percent
// (0: no bound) of the row's rowBytes of input.
func topKRunsFit(runBytes, rowBytes uint64, percent uint32) bool {
	return percent == 0 || runBytes*100 <= rowBytes*uint64(percent)
}

// topKRadixRuns reports whether the radix strategy can run a case of K =
// k that topKStrategy would otherwise give filter, lane or sort: K within
// its sort, workgroups of its least size, and 16-byte scans (vec: 32- or
// 16-bit rows of stride 1) where the tuning asks them (topKRadixVecOnly).
func topKRadixRuns(ctx *Context, k, wgLimit uint64, vec bool) bool {
	return k <= shaders.TopKSortMax && wgLimit >= topKRadixMinWG && (vec || !ctx.tuning().topKRadixVecOnly)
}

// topKStrategy is the strategy for rows of n positions (axisIn the axis's
// stride in elements; vec when the scans read 16-byte vectors) and K =
// k: the planner's choice, or ctx.Kernel when forced and able to run the
// case. gv is the maxima strategy's group size (0 where it cannot run).
func topKStrategy(ctx *Context, typ string, n, axisIn, k, wgLimit uint64, vec bool, gv uint64) (string, error) {
	shape := TopKStrategySort
	if k <= shaders.TopKSortMax/2 {
		shape = TopKStrategyFilter
	}
	if k <= shaders.TopKListMax {
		shape = TopKStrategyLane
		if axisIn != 1 || n <= topKShortRow {
			shape = TopKStrategyThread
		}
	}
	if tun := ctx.tuning(); tun.topKRadixMinLen > 0 && n >= tun.topKRadixMinLen && k >= uint64(tun.topKRadixMinK) && topKRadixRuns(ctx, k, wgLimit, vec) {
		shape = TopKStrategyRadix
	}
	if tun := ctx.tuning(); gv > 0 && k >= uint64(tun.topKMaximaMinK) && k <= uint64(tun.topKMaximaMaxK) && tun.topKTexel {
		shape = TopKStrategyMaxima
	}
	switch ctx.Kernel {
	case "":
	case TopKStrategyRadix:
		if k > shaders.TopKSortMax {
			return "", hresult.Unsupported("Kernel", "strategy %q sorts at most %d entries; K is %d (use %q)", ctx.Kernel, shaders.TopKSortMax, k, TopKStrategySort)
		}
		if wgLimit < topKRadixMinWG {
			return "", hresult.Unsupported("Kernel", "strategy %q needs workgroups of %d lanes; the device allows %d", ctx.Kernel, topKRadixMinWG, wgLimit)
		}
		shape = ctx.Kernel
	case TopKStrategyThread, TopKStrategyLane:
		if k > shaders.TopKListMax {
			return "", hresult.Unsupported("Kernel", "strategy %q keeps lists of at most %d entries; K is %d (use %q)", ctx.Kernel, shaders.TopKListMax, k, TopKStrategySort)
		}
		shape = ctx.Kernel
	case TopKStrategyFilter:
		if k > shaders.TopKSortMax/2 {
			return "", hresult.Unsupported("Kernel", "strategy %q keeps at most %d entries; K is %d (use %q)", ctx.Kernel, shaders.TopKSortMax/2, k, TopKStrategySort)
		}
		shape = ctx.Kernel
	case TopKStrategySort:
		shape = ctx.Kernel
	case TopKStrategyMaxima:
		if gv == 0 {
			return "", hresult.Unsupported("Kernel", "strategy %q needs workgroups of one full subgroup with subgroup arithmetic, reads 32-bit rows of input stride 1 through a texel buffer the binding range fits, at least K = %d groups a row of at most %d a lane, and gathers at most %d entries (K-1 groups' positions and 7); this case is not one (use %q)",
				ctx.Kernel, k, shaders.TopKMaximaLaneGroups, shaders.TopKMaximaCands, TopKStrategyRadix)
		}
		shape = ctx.Kernel
	default:
		return "", hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: %v)", ctx.Kernel, typ, TopKStrategies)
	}
	return shape, nil
}

// topKMaximaWG is topk_maxima.comp's workgroup: one subgroup of the
// device's size, which the kernel requires full (its counts are
// subgroupAdd, its exchanges need only the subgroup's barrier), or 0
// where the device cannot require it or lacks subgroup arithmetic.
func topKMaximaWG(ctx *Context, wgLimit uint64) uint64 {
	f, lim := ctx.Features, ctx.Limits
	sg := lim.SubgroupSize
	if !f.SubgroupArithmetic || !f.SubgroupSizeControl || !f.ComputeFullSubgroups || sg == 0 || sg&(sg-1) != 0 ||
		sg < lim.MinSubgroupSize || sg > lim.MaxSubgroupSize || uint64(sg) > wgLimit {
		return 0
	}
	return uint64(sg)
}

// topKMaximaGroupVecs is the 16-byte vectors a group of topk_maxima.comp
// (its specialization constant GV) for rows of n positions, K = k and wg
// lanes, or 0 where its bounds do not hold: at most
// shaders.TopKMaximaLaneGroups groups a lane and
// shaders.TopKMaximaGroupMax a row, at least K groups (the aligned
// middle is at least (n-3)/4 vectors), at most shaders.TopKMaximaCands
// entries gathered ((K-1) groups' positions, the K-th group's best, and
// the head's and tail's 3 each; the kernel's early stop keeps within
// the same bound), and a lane's loop trips within topKRadixItersMax
// (lavapipe's bound on them all).
func topKMaximaGroupVecs(n, k, wg uint64) uint64 {
	if n < 4 || k == 0 || wg == 0 {
		return 0
	}
	gv := max(ceilDiv(n/4, min(shaders.TopKMaximaLaneGroups*wg, shaders.TopKMaximaGroupMax)), 1)
	cands := (k-1)*4*gv + 7
	if (n-3)/4/gv < k || cands > shaders.TopKMaximaCands || k > shaders.TopKMaximaRanks {
		return 0
	}
	// Lane trips, each loop's first counted even where masked: its
	// groups' vectors in the scan and at most as many in the gather,
	// with their positions; 32 score and at most 32 index trials over
	// the slots (unrolled); the head and tail; then step 4 (as many
	// trials over its share of the gathered, the move to the front of
	// its share) either after the tied groups' bests read again (a trip
	// a tied slot and one a vector; at most cands gathered) or, where
	// the score's bisection stops early, over at most KC groups'
	// positions and the head's and tail's (more than cands: KC is K and
	// a quarter); the ranking's passes (topk_maxima.comp RANK_SLOTS
	// entries a lane), each over every entry ranked.
	const rankSlots = 8
	lg := uint64(shaders.TopKMaximaLaneGroups)
	vecs := lg * gv
	step4 := func(c uint64) uint64 {
		share := ceilDiv(c, wg)
		return 66*(share+1) + share + 1
	}
	after := (lg + 4) + (vecs + lg) + step4(cands)
	if kc := min(k+k/4, (shaders.TopKMaximaCands-6)/(4*gv)); kc >= k {
		after = max(after, step4(kc*4*gv+6))
	}
	iters := (vecs + lg) + 66 + (lg + 4) + (vecs + lg) + 5*vecs + ceilDiv(6, wg) + 1 + after +
		ceilDiv(shaders.TopKMaximaRanks, rankSlots*wg)*(shaders.TopKMaximaRanks+1) + 1
	if iters > topKRadixItersMax {
		return 0
	}
	return gv
}

// topKRowLanes is the lanes that can have work on a row of n positions
// whose scans read vw positions a 16-byte load (0: one a load): its
// vectors after a head of at most vw-1 positions (topkSelectFacts'
// active lanes), at least one. A workgroup wider than that leaves lanes
// idle on every row (1024x1000 FLOAT16 in the lane strategy's 256: 132
// of 256), so the lane strategy's workgroup keeps within its power of
// two below where the tuning asks (topKLaneFitMinWG).
func topKRowLanes(n, vw uint64) uint64 {
	if vw <= 1 {
		return max(n, 1)
	}
	head := min(n, vw-1)
	return max((n-head)/vw, head, 1)
}

// cutLane cuts the axis for the lane strategy: a sorted list of K per
// lane, then one sort of the workgroup's lists. Rows shorter than
// tuning.topKLaneSplitMinLen are cut by the iteration bound alone (K = 1:
// one segment up to about 65,000 positions, no merge passes).
func (s *topKSegments) cutLane(ctx *Context, rows, n, k, wgLimit, es uint64) {
	lk := uint64(pow2Ceil(uint32(k)))
	wg := uint64(pow2Floor(uint32(min(uint64(ctx.tuning().topKLaneWG), wgLimit, shaders.TopKSortMax/lk))))
	s.wg, s.sortN = uint32(wg), wg*lk
	// The sort of wg*lk entries takes stages*(wg*lk/2/wg) iterations;
	// the lists the rest.
	sortIters := topKStages(s.sortN) * max(lk/2, 1)
	s.segLen = min(n, max((topKIters-sortIters)/(k+1), 1)*wg)
	if n < ctx.tuning().topKLaneSplitMinLen {
		return
	}
	if split := s.runsSplit(ctx, rows, n, k, es); split < s.segLen {
		s.segLen = split
	}
}

// cutFilter cuts the axis for the filter strategy; vw > 0 says a chunk's
// lanes test a 16-byte vector of vw positions each (topk_select.comp's
// samp_step vw).
func (s *topKSegments) cutFilter(ctx *Context, rows, n, k, wgLimit, vw, es uint64) {
	// The list (listN >= K), a candidate buffer of at least four
	// chunks, both in one sort of sortN entries. A chunk is wg
	// positions, or wg vectors and in the first one the head's and the
	// tail's at most vw-1 positions each.
	s.listN = uint64(pow2Ceil(uint32(k)))
	wg := uint64(pow2Floor(uint32(min(topKSortWG, wgLimit, max(s.listN/2, uint64(ctx.tuning().topKFilterMinWG), 1)))))
	if vw > 0 && n < vw*wg {
		// Fewer 16-byte vectors than lanes: one position a lane, so
		// that every lane has one (h100 65536x64 K = 17 to 64: 16 of 64
		// lanes had a vector, 76.6% of the plan's lanes empty).
		vw = 0
	}
	chunk := func(wg uint64) uint64 { return wg }
	if vw > 0 {
		s.sampStep = vw
		chunk = func(wg uint64) uint64 { return vw*wg + 2*(vw-1) }
	}
	s.candN = max(s.listN, 4*chunk(wg))
	s.sortN = uint64(pow2Ceil(uint32(s.listN + s.candN)))
	if s.sortN > shaders.TopKSortMax {
		s.candN = shaders.TopKSortMax - s.listN
		s.sortN = shaders.TopKSortMax
		for wg > 1 && 4*chunk(wg) > s.candN {
			wg /= 2
		}
	}
	if vw > 0 {
		// The sort has room for more candidates: fewer sorts.
		s.candN = s.sortN - s.listN
	}
	s.wg = uint32(wg)
	// Iterations: a chunk each chunk(wg) positions (wg loads), and at
	// worst (every position a candidate) a sort each candN-chunk
	// positions.
	mergeIters := topKStages(s.sortN)*max(s.sortN/2/wg, 1) + s.sortN/wg
	chunks := min(topKIters/2, (topKIters/2)/mergeIters*(s.candN-chunk(wg))/chunk(wg))
	// Segments of whole chunks: with vectors, every lane of every chunk
	// has one when the segment starts aligned.
	step := wg
	if vw > 0 {
		step = vw * wg
	}
	s.segLen = min(n, max(chunks, 1)*step)
	if split := s.runsSplit(ctx, rows, n, k, es); split < s.segLen {
		s.segLen = split
		if vw > 0 {
			s.segLen = min(n, ceilDiv(split, step)*step)
		}
	}
}

// The byte select (topk_select.comp's SCAN8 filter): the gather's
// positions at or above the sampled threshold byte cost a trip of its
// inner loop each, which opcount counts at topKByteTrips a 16-byte
// vector (internal/opcount's family table). The planner takes it only
// where uniformly random bytes keep the expected trips within that (a
// share of at most topKByteTrips/16 of the segment's positions at or
// above the threshold) and the expected gather within topKByteGather
// entries, three quarters of the sort's shaders.TopKSortMax (the
// shader's own test before it gathers): a gather past that falls back
// to exact counts at or above the threshold and a second gather, two
// more scans (three with the ranked ties). Whole rows at larger K take
// that route on purpose (cutByteWhole).
const (
	topKByteTrips   = 0.75
	topKByteGather  = shaders.TopKSortMax * 3 / 4
	topKByteSampMax = 64 // the sparsest sample: every 64th position
	topKByteSampMin = 4  // the densest: every position of every 32-bit word
)

// topKByteGathered is the expected positions of a segment of segLen
// uniformly random bytes at or above the byte select's threshold from a
// sample of every step-th position: the sample's target (K's share,
// three standard deviations and four positions) over the sample, and
// half a byte's share for the byte the threshold stops in.
func topKByteGathered(segLen, k, step uint64) float64 {
	return float64(k) + 3*math.Sqrt(float64(k*step)) + 4*float64(step) + float64(segLen)/512
}

// topKByteFits says whether the byte select's expected gather on a
// segment of segLen uniformly random bytes keeps its bounds.
func topKByteFits(segLen, k, step uint64) bool {
	g := topKByteGathered(segLen, k, step)
	return g <= topKByteGather && 16*g <= topKByteTrips*float64(segLen)
}

// cutByteSelect cuts the axis for the byte select and reports whether it
// takes the case: the sparsest sample step (a power of two from
// topKByteSampMin to topKByteSampMax) that keeps topKByteFits on the shortest segment (of
// the row halved) that does, or split-K's longer one where rows are few.
func (s *topKSegments) cutByteSelect(rows, n, k, wgLimit uint64) bool {
	wg := uint64(pow2Floor(uint32(min(topKSortWG, wgLimit))))
	maxLen := n
	for maxLen > 1 && topKByteIters(maxLen, wg, 1) > topKIters {
		maxLen = ceilDiv(maxLen, 2)
	}
	for step := uint64(topKByteSampMax); step >= topKByteSampMin; step /= 2 {
		minLen := uint64(0)
		for l := maxLen; l >= k && l > 0; l /= 2 {
			if topKByteFits(l, k, step) {
				minLen = l
			} else if minLen > 0 {
				break
			}
		}
		if minLen == 0 {
			continue
		}
		segLen := min(maxLen, max(minLen, splitKLen(rows, n, argSplitKGroups, argSplitKMinSeg)))
		if !topKByteFits(segLen, k, step) {
			segLen = minLen
		}
		s.shape, s.scan8, s.wg = TopKStrategyFilter, true, uint32(wg)
		s.sampStep, s.floorStep = 16, step
		s.sortN, s.listN = shaders.TopKSortMax, uint64(pow2Ceil(uint32(k)))
		s.segLen = segLen
		return true
	}
	return false
}

// topKByteIters bounds the loop iterations of one lane of the byte
// select on a segment of segLen positions with wg lanes and a sample
// every step positions: the sample's histogram (and lane 0's walk of 256
// bins), a gather of 16-byte vectors whose inner loop takes up to 16
// trips, the sort of shaders.TopKSortMax entries; when the gather misses
// (or is not tried), two counts of the bytes at or above a threshold
// (the sample's, then every byte: gathers' trips) and their walks, and
// either a second gather or bsel_rank_ties: a count of the ties in a
// lane's block of vectors (and the head or tail, at most 15 positions),
// the lanes before it, and the ranked gather of its block.
func topKByteIters(segLen, wg, step uint64) uint64 {
	walk := uint64(256)
	gather := (ceilDiv(segLen, 16*wg)+1)*17 + 1
	sort := topKStages(shaders.TopKSortMax)*max(shaders.TopKSortMax/2/wg, 1) + 2*ceilDiv(shaders.TopKSortMax, wg)
	hist := ceilDiv(ceilDiv(segLen, step), wg) + ceilDiv(256, wg) + walk
	count := gather + ceilDiv(256, wg) + walk
	block := ceilDiv(segLen, 16*wg)
	ties := (block + 15) + wg + (block*17 + 15)
	return hist + gather + 2*count + max(gather, ties) + sort
}

// topKByteWholeTrips bounds the byte select's expected trips a 16-byte
// vector (topKByteGathered's positions over its vectors) where it takes
// a whole row that its gather at the sample's threshold would not fit
// (cutByteWhole): the exact counts and the ranked gather loop over the
// positions at or above the threshold, as the gather does. opcount
// counts the family at topKByteTrips a vector; at 1.25 the h100
// profile's INT8/UINT8 8x32000 K=2048 (sample every 4th position: 1.20
// trips expected) counts 3.17-3.23 ops per byte against 2.79-2.83 at
// 0.75 (budget 4), and 128x256000 K=1024/2048 (every 64th: 0.16 and
// 0.24 trips expected) 3.55-3.66 at 0.75.
const topKByteWholeTrips = 1.25

// cutByteWhole cuts the axis for the byte select on rows of n positions
// as one segment (no runs) for any K up to shaders.TopKSortMax, and
// reports whether it takes the case: where its loop bound holds, and a
// sample step (the sparsest power of two from topKByteSampMin to
// topKByteSampMax) keeps the expected trips within topKByteWholeTrips.
// The planner takes it where the strategy chosen writes runs over the
// tuning's budget (topKRunPercent): 8-bit rows at large K, whose filter
// and sort cut short segments of K entries each.
func (s *topKSegments) cutByteWhole(n, k, wgLimit uint64) bool {
	wg := uint64(pow2Floor(uint32(min(topKSortWG, wgLimit))))
	if k > shaders.TopKSortMax || n < k || topKByteIters(n, wg, topKByteSampMin) > topKIters {
		return false
	}
	for step := uint64(topKByteSampMax); step >= topKByteSampMin; step /= 2 {
		if 16*topKByteGathered(n, k, step) > topKByteWholeTrips*float64(n) {
			continue
		}
		*s = topKSegments{shape: TopKStrategyFilter, scan8: true, wg: uint32(wg), entryBytes: s.entryBytes,
			sampStep: 16, floorStep: step, sortN: shaders.TopKSortMax, listN: uint64(pow2Ceil(uint32(k))), segLen: n, nseg: 1}
		return true
	}
	return false
}

// cutRadix cuts the axis for the radix strategy; vec4 says the scans read
// four positions a load. 16-bit rows' scans of eight (VEC8) are bounded
// as scalar ones: a lane's trips are at most those (a vector a trip, a
// head and a tail position), and lavapipe's plans keep the segments
// they were timed with.
func (s *topKSegments) cutRadix(ctx *Context, rows, n, k, wgLimit uint64, vec4 bool, es uint64) {
	// At least 64 lanes (wgLimit is, above): a lane ranks at most
	// TopKSortMax/64 entries (topk_select.comp's OWN_MAX).
	wg := uint64(pow2Floor(uint32(max(min(uint64(ctx.tuning().topKRadixWG), wgLimit), topKRadixMinWG))))
	s.wg, s.sortN = uint32(wg), shaders.TopKSortMax
	s.listN = uint64(ctx.tuning().topKRadixRankMax)
	s.candN = uint64(ctx.tuning().topKRadixBucketMin)
	if mul := uint64(ctx.tuning().topKRadixSortMul); mul > 0 {
		s.sortN = min(s.sortN, uint64(pow2Ceil(uint32(k)))*mul)
	}
	// The sampled threshold (topk_select.comp radix_sampled): the
	// sparsest sample (of power-of-two steps up to topKRadixSample)
	// whose gather is expected to keep at most topKRadixSampleCap
	// entries: the shader's margin, 3 standard deviations and 4
	// samples, is about 3*sqrt(K*step) + 4*step entries.
	tun := ctx.tuning()
	if s.entryBytes == 8 {
		for st := uint64(pow2Floor(tun.topKRadixSample)); st > 1; st /= 2 {
			if float64(k)+3*math.Sqrt(float64(k*st))+4*float64(st) <= float64(tun.topKRadixSampleCap) {
				s.sampStep = st
				break
			}
		}
	}
	vec := uint64(1)
	if vec4 {
		vec = 4
	}
	// A floor (and with it the texel scans' blocks) where it pays, and
	// only in the texel variants (topk_select.comp RADIX_FLOOR: the
	// storage-buffer scans compare no score with one, for the GPUs' ops
	// per byte).
	floorFor := func(segLen uint64) uint64 {
		if s.entryBytes == 8 && s.texel && topKRadixFloorPays(segLen, k, uint64(tun.topKRadixFloor), uint64(tun.topKRadixFloorShare)) {
			return uint64(tun.topKRadixFloor)
		}
		return 0
	}
	s.segLen = n
	for {
		s.floorStep = floorFor(s.segLen)
		if s.segLen <= 1 || topKRadixIters(s.segLen, wg, s.entryBytes, vec, s.sampStep, s.floorStep, s.texel) <= topKRadixItersMax {
			break
		}
		s.segLen = ceilDiv(s.segLen, 2)
	}
	if split := s.runsSplit(ctx, rows, n, k, es); ctx.tuning().topKRadixSplit && split < s.segLen {
		s.segLen = split
		s.floorStep = floorFor(s.segLen)
	}
	gw := uint64(pow2Floor(uint32(max(min(uint64(tun.topKSplitWG), wgLimit, shaders.TopKSplitMaxRegions), 1))))
	// The split select ranks up to shaders.TopKSplitSortMax entries, more
	// than topk_select.comp's sample allows (topKRadixSampleCap): where
	// that left no sample (K = 2048), its own, by the same margin.
	sampStep := s.sampStep
	if sampStep == 0 && s.entryBytes == 8 {
		for st := uint64(pow2Floor(tun.topKRadixSample)); st > 1; st /= 2 {
			if float64(k)+3*math.Sqrt(float64(k*st))+4*float64(st) <= topKSplitSampleCap {
				sampStep = st
				break
			}
		}
	}
	// The thresholds on as few lanes as the gather (one SIMD row on
	// lavapipe: no barrier switches between rows, and the code of each
	// pass once) where a lane's trips keep within the bound, else on
	// more.
	tw, ew := gw, gw
	for tw < topKSplitWG && sampStep > 1 && topKSplitSampleIters(n, tw, sampStep) > topKRadixItersMax {
		tw *= 2
	}
	for ew < topKSplitWG && topKSplitExactIters(n, ew) > topKRadixItersMax {
		ew *= 2
	}
	if tun.topKSplitMinLen > 0 && n >= tun.topKSplitMinLen && s.texel && s.entryBytes == 8 && sampStep > 1 &&
		wgLimit >= topKSplitWG && topKSplitIters(n, gw, tw, ew, sampStep) <= topKRadixItersMax {
		s.split, s.splitWG, s.threshWG, s.exactWG, s.segLen, s.sampStep = true, uint32(gw), uint32(tw), uint32(ew), n, sampStep
		// The sampled rows' gather in the threshold's dispatch where both
		// run on the same lanes and a lane's trips of the two keep within
		// the bound.
		s.threshGather = tun.topKSplitThreshGather && tw == gw && topKSplitSampleIters(n, tw, sampStep)+topKSplitGatherIters(n, gw) <= topKRadixItersMax
	}
}

// topKSplitSampleCap bounds the entries the split select's sampled
// threshold is expected to pass (K and the margin of topk_thresh.comp,
// about 3*sqrt(K*step) + 4*step) where topKRadixSampleCap gave no
// sample: K = 2048 at every 8th texel expects about 2,460, and a row
// passes more than shaders.TopKSplitSortMax (2,944; the sample's count
// has a standard deviation of about 140 there) and takes the exact
// fallback about once in 3,000 rows on random data.
const topKSplitSampleCap = 2500

// topKSplitWG is the split select's workgroup size but the gather's and
// the sampled rows' ranking (topk_thresh.comp, topk_rank.comp of the
// exact rows).
const topKSplitWG = 64

// topKSplitRankWG is topk_rank.comp's workgroup size for the sampled
// rows: one SIMD row of lavapipe at its 256-bit vectors, whose fixed
// costs a workgroup of 64 lanes pays 8 times (8x32000 K = 1024, single
// thread: 1.78 ms with the one 64-lane ranking, 1.67 with this one and
// the 64-lane one after it, measured when that one still ran idle on
// every row; K = 2048: 2.58, 2.40). The rows it cannot rank within
// topKSplitIters (big buckets, full regions) it lists for that second
// dispatch (topk_split.glsl ROW_WIDE), which has no workgroup on random
// rows.
const topKSplitRankWG = 8

// topKSplitRowWords is the words of one row's state in the temporary
// resource (topk_split.glsl): the state and gw regions of
// topKSplitCap texels, so that no gather against an exact threshold (at
// most shaders.TopKSplitSortMax passing entries, and three kept texels
// that pass none) loses a texel.
func topKSplitRowWords(gw uint64) uint64 {
	return shaders.TopKSplitStateWords + gw*topKSplitCap
}

// topKSplitHeaderWords is the words of a step's header before its rc
// rows' states (topk_split.glsl HDR_LISTS): the indirect dispatches'
// arguments at words 0 and 4 (multiples of 16 bytes, as Step.Indirect
// asks) and two lists of rc rows, rounded up to 16 bytes.
func topKSplitHeaderWords(rc uint64) uint64 { return (8 + 2*rc + 3) &^ 3 }

// topKSplitCap is the texels a region of the split select holds: every
// texel an exact threshold passes (at most shaders.TopKSplitSortMax) and
// three that may pass none: the row's two end texels, which hold other
// rows' positions too, and the threshold's own texel (positions tied
// with it after its index). With one gather lane (topKSplitWG 1) all
// three land in the one region.
const topKSplitCap = shaders.TopKSplitSortMax + 3

// topKSplitIters bounds the loop iterations of one lane of the split
// select's kernels on a row of n positions (gw gather lanes, tw and ew
// the sampled and exact thresholds' lanes, a sample of every step-th
// texel), the most of the three: topk_thresh.comp's
// (topKSplitSampleIters, topKSplitExactIters), topk_gather.comp's
// (topKSplitGatherIters; where the sampled threshold's dispatch runs it
// too, the planner bounds their sum apart), and topk_rank.comp's at either of its workgroup sizes: the
// regions' counts and bests, two reads of every region (a trip a region,
// a trip a texel and one for each of its four positions that passes; at
// topKSplitRankWG, the sampled rows, the regions hold at most
// shaders.TopKSplitSortMax and 3 texels or the row is left unread), its
// buckets' zeroing and two sweeps of a lane's share, lane 0's sums of
// the shares, and then the walks of the entries before K (two loops
// over a bucket of at most shaders.TopKSplitBucketMax at 64 lanes, in
// proportion fewer at fewer) or, at topKSplitWG only, the whole ranking
// in chunks of 8 entries a lane.
func topKSplitIters(n, gw, tw, ew, step uint64) uint64 {
	gather := topKSplitGatherIters(n, gw)
	// walks: the trips of a lane's walks at wg lanes.
	walks := func(wg uint64) uint64 {
		return ceilDiv(shaders.TopKSplitSortMax, wg) * 2 * (shaders.TopKSplitBucketMax * wg / 64)
	}
	rank := gw + 2*(gw+5*gw*ceilDiv(topKSplitCap, topKSplitWG)) + 3*shaders.TopKSplitRankBuckets/topKSplitWG + topKSplitWG +
		max(ceilDiv(shaders.TopKSplitSortMax, 8*topKSplitWG)*shaders.TopKSplitSortMax, walks(topKSplitWG))
	const rw = topKSplitRankWG
	rankSampled := gw + 2*(gw+5*(ceilDiv(shaders.TopKSplitSortMax+3, rw)+gw)) + 3*shaders.TopKSplitRankBuckets/rw + rw + walks(rw)
	return max(topKSplitExactIters(n, ew), topKSplitSampleIters(n, tw, step), gather, rank, rankSampled)
}

// topKSplitGatherIters bounds the loop iterations of one lane of
// topk_gather.glsl on gw lanes, a row of n positions: its blocks of 32
// texels (at most a trip of its append loop a block and one a texel it
// keeps, at most a region's capacity and one), and as many again
// reading the kept texels for the row's best score.
func topKSplitGatherIters(n, gw uint64) uint64 {
	nv := n/4 + 2
	return 2*ceilDiv(ceilDiv(nv, gw), 32) + 2*(topKSplitCap+1)
}

// topKSplitExactIters bounds the loop iterations of one lane of
// topk_thresh.comp EXACT 1 on ew lanes, a row of n positions: a pass a
// digit of the key's bits (the score's 32 and the position's), each
// zeroing the bins, a trip a texel of the lane's block of the row, the
// bins' group sums (at most 64 groups, their bins) and lane 0's walk
// over the groups and one group's bins.
func topKSplitExactIters(n, ew uint64) uint64 {
	const bins = 1 << shaders.TopKRadixBits
	keyBits := uint64(32)
	for p := n - 1; p > 0; p >>= 1 {
		keyBits++
	}
	nv := n/4 + 2
	return ceilDiv(keyBits, shaders.TopKRadixBits) * (2*ceilDiv(bins, ew) + ceilDiv(64, ew) + ceilDiv(nv, ew) + 64 + bins/8)
}

// topKSplitSampleIters bounds the loop iterations of one lane of
// topk_thresh.comp EXACT 0 on tw lanes, a row of n positions sampled at
// every step-th texel. A histogram pass over t texels zeroes at most
// 2048 bins, takes a trip a texel and one a key it counts (at most
// four), sums the bins in at most 64 groups and walks the groups and
// one group's bins on lane 0. The bracket (bracket_pass) takes the
// subsample's best score (a trip a subsampled texel, every
// shaders.TopKSplitSubsample-th sampled one) and at most four passes
// over the subsample (an 11-bit digit, then 7-bit ones of the score's
// 32 bits); then at most four passes over the sample: the bracket's and
// at most three 7-bit ones after its bin, or, where the bracket does
// not run, the four of the whole passes (a bracket that misses fails
// the row instead of running them too).
func topKSplitSampleIters(n, tw, step uint64) uint64 {
	const bins = 1 << shaders.TopKRadixBits
	nt := (n/4+1)/step + 1
	sub := ceilDiv(nt, shaders.TopKSplitSubsample)
	pass := func(texels uint64) uint64 {
		return 2*ceilDiv(bins, tw) + ceilDiv(64, tw) + 5*ceilDiv(texels, tw) + 64 + bins/8
	}
	return ceilDiv(sub, tw) + 4*pass(sub) + 4*pass(nt)
}

// runsSplit is the split-K segment length for rows of n positions of es
// bytes: splitKLen's, or, where the runs of its segments would exceed
// the tuning's budget (topKRunPercent), the length of the most segments
// whose runs keep within it (n: one segment, no runs).
func (s *topKSegments) runsSplit(ctx *Context, rows, n, k, es uint64) uint64 {
	split := splitKLen(rows, n, argSplitKGroups, argSplitKMinSeg)
	fits := func(segLen uint64) bool {
		seg := topKSegments{segLen: segLen, nseg: ceilDiv(n, segLen), entryBytes: s.entryBytes}
		if seg.nseg > 1 {
			seg.mergeRuns(k)
		}
		return topKRunsFit(seg.runBytes(k), n*es, ctx.tuning().topKRunPercent)
	}
	if split >= n || fits(split) {
		return split
	}
	for nseg := ceilDiv(n, split) - 1; nseg > 1; nseg-- {
		if segLen := ceilDiv(n, nseg); fits(segLen) {
			return segLen
		}
	}
	return n
}

// topKRadixFloorPays says whether a radix segment of segLen positions
// takes a floor from every floor-th position (floor > 1), and with it
// the texel scans' blocks (topk_select.comp radix_scan): where at most
// 1/share of its positions (share 0: any) are expected at the floor on
// random data, the floor's sample target (radix_threshold: the sample's
// expected count above the K-th best, plus three standard deviations
// and four) over the sample's size. Where many are, the floor's passes
// save the exact passes little and a block's trips (a reload and the
// offers a vector) cost more than its tests save: on lavapipe 8x32000
// K=2048 (11% at a floor every 64th position) took 16.3 ms with both
// against 13.3 without, and 128x256000 K=50/1024/2048 (0.2 to 1.3%)
// 1.3-1.9x less time with them (BENCHMARKS.md).
func topKRadixFloorPays(segLen, k, floor, share uint64) bool {
	if floor <= 1 || segLen == 0 {
		return false
	}
	if share == 0 {
		return true
	}
	nq := ceilDiv(segLen, floor)
	q := float64(k) * float64(nq) / float64(segLen)
	return (q+3*math.Sqrt(q)+4)*float64(share) <= float64(nq)
}

// mergeRuns lays out the merge passes of a row's nseg runs and the
// temporary bytes per row of the two regions they alternate between.
func (s *topKSegments) mergeRuns(k uint64) {
	span, nruns := s.segLen, s.nseg
	capIn := min(k, span)
	s.rowA = nruns * capIn * s.entryBytes
	for i := 0; nruns > 1; i++ {
		p := topKPass{span: span, capIn: capIn, nrunsIn: nruns, capOut: min(k, 2*span), nrunsOut: ceilDiv(nruns, 2)}
		s.passes = append(s.passes, p)
		span, nruns, capIn = 2*span, p.nrunsOut, p.capOut
		if nruns > 1 { // the last pass writes the results
			b := nruns * capIn * s.entryBytes
			if i%2 == 0 {
				s.rowB = max(s.rowB, b)
			} else {
				s.rowA = max(s.rowA, b)
			}
		}
	}
}

// runBytes is the bytes of one row's runs: written by the first pass,
// read by every merge and written by all but the last (topk_select.comp's
// RUNS and topk_merge.comp's, as topKSelectFacts and topKMergeFacts count
// them); 0 for a row of one segment. mergeRuns has laid out the passes.
func (s *topKSegments) runBytes(k uint64) uint64 {
	if s.nseg <= 1 {
		return 0
	}
	b := s.nseg * min(k, s.segLen) * s.entryBytes
	for i, p := range s.passes {
		b += p.nrunsIn * p.capIn * s.entryBytes
		if i < len(s.passes)-1 {
			b += p.nrunsOut * p.capOut * s.entryBytes
		}
	}
	return b
}

// topKRadixIters bounds the loop iterations of one lane of the radix
// strategy on a segment of segLen positions with wg lanes: a scan of the
// segment for each digit of the key (the score's 32 or 64 bits and the
// position's) and one to gather, each digit's bin sums and search, and
// the ranking or sort of at most shaders.TopKSortMax gathered entries;
// with a floor from a sample every floor positions (floor > 1), the
// floor's sample passes and the first pass and gather of an exact
// select from the floor that may fail; with a sample every step
// positions (step > 1), the sample's passes and a gather that may fail.
// A scan's lane reads vec positions a load (and at most one head and one
// tail position) in blocks of topKRadixScanBlock loads (texel over a
// floor; the threshold's gather with texel: else one), the
// positions that may pass a trip each (topk_select.comp radix_scan: a
// block takes at most its loads and 2 trips of its loops); a sample's in
// blocks of topKRadixSampleBlock (texel: else one, one trip).
func topKRadixIters(segLen, wg, entryBytes, vec, step, floor uint64, texel bool) uint64 {
	keyBits := uint64(32)
	if entryBytes == 12 {
		keyBits = 64
	}
	for p := segLen - 1; p > 0; p >>= 1 {
		keyBits++
	}
	digits := ceilDiv(keyBits+1, shaders.TopKRadixBits)
	bins := ceilDiv(1<<shaders.TopKRadixBits, wg)
	sort := max(shaders.TopKSortMax, topKStages(shaders.TopKSortMax)*max(shaders.TopKSortMax/2/wg, 1)+ceilDiv(shaders.TopKSortMax, wg))
	if entryBytes == 8 {
		// Before it, bucket_rank_emit may run: its buckets cleared, the
		// entries' score range, counted, the buckets' sums (lane 0's
		// over the lanes'), their first slots, the entries placed, and
		// the walks of buckets of at most 64 entries (its BUCKET_MAX) in
		// place of the ranking or sort.
		bk := ceilDiv(topKRadixBuckets, wg)
		per := ceilDiv(shaders.TopKSortMax, wg)
		sort = 3*bk + wg + 3*per + max(sort, per*65)
	}
	blocked := func(per, block uint64) uint64 { return ceilDiv(per, block) * (block + 2) }
	block, tblock, sblock := uint64(topKRadixScanBlock), uint64(topKRadixScanBlock), uint64(topKRadixSampleBlock)
	if !texel {
		tblock, sblock = 1, 1
	}
	if !texel || floor <= 1 {
		block = 1
	}
	scanIn := func(block uint64) uint64 { return blocked(ceilDiv(segLen, wg*vec), block) + 3 }
	scan := scanIn(block)
	// A histogram pass: zero the bins, scan, sum, lane 0's total and
	// search.
	pass := 3*bins + 2*wg
	iters := (digits+1)*scan + digits*pass + sort
	sample := func(step uint64) uint64 {
		return digits * (blocked(ceilDiv(ceilDiv(segLen, step), wg), sblock) + pass)
	}
	if texel && entryBytes == 8 {
		// thr_search: at most topKThrPasses passes, each the candidates'
		// counts zeroed, the lane's sampled positions, and lane 0's search
		// of the candidates.
		sample = func(step uint64) uint64 {
			return topKThrPasses * (ceilDiv(topKThrCands, wg) + ceilDiv(ceilDiv(segLen, step), wg) + topKThrCands)
		}
	}
	if floor > 1 {
		iters += sample(floor) + scan + pass
	}
	if step > 1 {
		// The threshold's gather (thr_collect) takes a trip for each
		// position of a block that passes: up to vec a load.
		gather := ceilDiv(ceilDiv(segLen, wg*vec), tblock)*(tblock+tblock*vec+2) + 3
		iters += sample(step) + gather
	}
	return iters
}

// topKStages is the compare-exchange stages of a bitonic sort of p (a
// power of two) entries.
func topKStages(p uint64) uint64 {
	l := uint64(0)
	for q := uint64(1); q < p; q <<= 1 {
		l++
	}
	return l * (l + 1) / 2
}

// pow2Ceil is the least power of two at least n (1 for 0).
func pow2Ceil(n uint32) uint32 {
	p := uint32(1)
	for p < n {
		p *= 2
	}
	return p
}

// emit builds the steps: for each box of rows, for each batch of at most
// rowsPerStep of its rows, the first pass and then the merge passes, the
// runs alternating between the temporary's regions A and B.
func (t *topKOp) emit(ctx *Context, kept []topKDim, n uint64, axis [3]uint64, boxes []topKBox, s *topKSegments) (*Plan, error) {
	f := ctx.Features
	dt := t.in.DataType
	bits := 8 * dt.Size()
	native := bits == 8 && f.StorageBuffer8Bit || bits == 16 && f.StorageBuffer16Bit
	runs := s.nseg > 1
	sizes := [3]uint64{t.in.TotalTensorSizeInBytes, t.vals.TotalTensorSizeInBytes, t.idx.TotalTensorSizeInBytes}
	es := [3]uint64{uint64(dt.Size()), uint64(dt.Size()), uint64(t.idx.DataType.Size())}
	kernel := func(variant string, wg uint32, strided bool) (Kernel, error) {
		spec, err := t.spec(variant, kept, n, axis, wg, strided, s.groupVecs)
		if err != nil {
			return Kernel{}, err
		}
		return kernelOf(spec)
	}
	firstName := shaders.TopKSelectName(bits, native, s.shape, runs)
	if s.texel {
		firstName = shaders.TopKSelectTexelName(s.shape, runs)
	}
	if s.scan8 {
		firstName = shaders.TopKSelectScan8Name(native, s.shape, runs)
	}
	if s.vec2 {
		firstName = shaders.TopKSelectVec2Name(runs)
	}
	if s.shape == TopKStrategyMaxima {
		firstName = shaders.TopKMaximaName
	}
	first, err := kernel(firstName, s.wg, s.strided)
	if err != nil {
		return nil, err
	}
	if s.shape == TopKStrategyMaxima {
		// One full subgroup a workgroup (topKMaximaWG).
		first.SubgroupSize, first.FullSubgroups = s.wg, true
	}
	plan := &Plan{Strategy: s.shape, Kernels: []Kernel{first}, TemporarySize: s.tempTot}
	mergeKernel, finalKernel := -1, -1
	if runs {
		if len(s.passes) > 1 {
			mk, err := kernel(shaders.TopKMergeName(bits, native, false), topKMergeWG, false)
			if err != nil {
				return nil, err
			}
			mergeKernel = len(plan.Kernels)
			plan.Kernels = append(plan.Kernels, mk)
		}
		fk, err := kernel(shaders.TopKMergeName(bits, native, true), topKMergeWG, false)
		if err != nil {
			return nil, err
		}
		finalKernel = len(plan.Kernels)
		plan.Kernels = append(plan.Kernels, fk)
	}
	region := func(pass int, rc, nruns, capacity uint64) Slot {
		off := uint64(0)
		if pass%2 == 1 {
			off = s.tempA
		}
		return Slot{Kind: SlotTemporary, Offset: off, Size: rc * nruns * capacity * s.entryBytes}
	}
	for _, b := range boxes {
		win, wfirst := b.windows(es, sizes)
		step := b.count
		if runs {
			step = s.rowsPerStep
		}
		for r0 := b.begin; r0 < b.begin+b.count; r0 += step {
			rc := min(step, b.begin+b.count-r0)
			bind := []Slot{win[0], win[1], win[2]}
			if runs {
				bind = []Slot{win[0], region(0, rc, s.nseg, min(uint64(t.k), s.segLen))}
			}
			pv := shaders.NewPush(first.Variant).Set("r_begin", uint32(r0)).Set("r_count", uint32(rc))
			if s.shape != TopKStrategyMaxima {
				pv.Set("seg_len", uint32(s.segLen)).
					Set("nseg", uint32(s.nseg)).Set("run_cap", uint32(min(uint64(t.k), s.segLen))).Set("sort_n", uint32(s.sortN)).
					Set("list_n", uint32(s.listN)).Set("cand_n", uint32(s.candN)).Set("samp_step", uint32(s.sampStep)).Set("floor_step", uint32(s.floorStep))
			}
			push, err := pushBytes(pv.Set("in_win", uint32(wfirst[0])).Set("v_win", uint32(wfirst[1])).Set("x_win", uint32(wfirst[2])))
			if err != nil {
				return nil, err
			}
			groups := gridFor(ctx, rc*s.nseg, 1)
			if s.shape == TopKStrategyThread {
				groups = gridFor(ctx, rc*s.nseg, s.wg)
			}
			plan.Steps = append(plan.Steps, Step{Bindings: bind, Params: push, Groups: groups, Barrier: runs && len(plan.Steps) > 0})
			for i, p := range s.passes {
				final := i == len(s.passes)-1
				kernel := mergeKernel
				bind := []Slot{region(i, rc, p.nrunsIn, p.capIn)}
				if final {
					kernel = finalKernel
					bind = append(bind, win[0], win[1], win[2])
				} else {
					bind = append(bind, region(i+1, rc, p.nrunsOut, p.capOut))
				}
				push, err := pushBytes(shaders.NewPush(plan.Kernels[kernel].Variant).
					Set("r_begin", uint32(r0)).Set("r_count", uint32(rc)).Set("span", uint32(p.span)).
					Set("cap_in", uint32(p.capIn)).Set("nruns_in", uint32(p.nrunsIn)).
					Set("cap_out", uint32(p.capOut)).Set("nruns_out", uint32(p.nrunsOut)).
					Set("in_win", uint32(wfirst[0])).Set("v_win", uint32(wfirst[1])).Set("x_win", uint32(wfirst[2])))
				if err != nil {
					return nil, err
				}
				plan.Steps = append(plan.Steps, Step{Kernel: kernel, Bindings: bind, Params: push,
					Groups: gridFor(ctx, rc*p.nrunsOut*2*p.capIn, topKMergeWG), Barrier: true})
			}
		}
	}
	return plan, nil
}

// spec is a TOP_K kernel's specialization constants (topk.glsl), by name:
// kept dimension i (innermost first) in slot i. Kernels that write runs
// declare only the first of them (shaders' topKSpecRows, topKSpecRuns);
// the rest are left out. gv is the maxima kernel's GV (topkSegments
// groupVecs).
func (t *topKOp) spec(variant string, kept []topKDim, n uint64, axis [3]uint64, wg uint32, strided bool, gv uint64) (*shaders.Values, error) {
	row, err := shaders.Lookup(variant)
	if err != nil {
		return nil, err
	}
	kind := shaders.ElemKind(t.in.DataType.IsFloat(), t.in.DataType.IsSigned())
	flags := kind | b2u(t.dir == AxisDirectionDecreasing)<<3 | b2u(t.idx.DataType.Size() == 8)<<4 | b2u(strided)<<5 | uint32(len(kept))<<8
	vals := map[string]uint32{shaders.SpecWorkgroupSize: wg, "FLAGS": flags, "K": t.k, "N": uint32(n),
		"AI": uint32(axis[0]), "AV": uint32(axis[1]), "AX": uint32(axis[2]), "GV": uint32(gv)}
	for i := range 7 {
		d := topKDim{size: 1}
		if i < len(kept) {
			d = kept[len(kept)-1-i]
		}
		vals[fmt.Sprintf("DS%d", i)], vals[fmt.Sprintf("DI%d", i)] = uint32(d.size), uint32(d.s[0])
		vals[fmt.Sprintf("DV%d", i)], vals[fmt.Sprintf("DX%d", i)] = uint32(d.s[1]), uint32(d.s[2])
	}
	s := shaders.NewSpec(variant)
	for _, name := range row.Spec {
		s.Set(name, vals[name])
	}
	return s, nil
}
