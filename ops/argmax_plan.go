package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
)

// ARGMAX/ARGMIN strategies (Plan.Strategy; Context.Kernel forces one).
const (
	// ArgStrategyThread: one invocation per output scans its block in
	// order. Chosen when the reduced axes are not the fastest-varying, so
	// neighbouring invocations read neighbouring elements (and for short
	// blocks). Blocks longer than argIters are cut into segments whose
	// partials a second pass combines, as in split-K; on a GPU so are
	// shorter ones when the outputs alone give too few invocations (the
	// column split, tuning.argColSplitItems; vec-col likewise).
	ArgStrategyThread = "thread"
	// ArgStrategyGroup: one workgroup per output, lanes strided along the
	// block, combined with subgroup operations (when the device has
	// subgroup arithmetic) and shared memory. Chosen when the reduction
	// runs along the contiguous axis and blocks are long.
	ArgStrategyGroup = "group"
	// ArgStrategySplitK: blocks are cut into segments reduced by one
	// workgroup each into (score, index) partials in the temporary
	// resource, then a second pass combines each output's partials.
	// Chosen when few outputs each reduce many elements.
	ArgStrategySplitK = "splitk"
	// ArgStrategyVec: 16- or 32-byte vector loads for 32-bit elements, and
	// where the device class's tuning allows (argVecNarrowRow,
	// argVecNarrowCol) 16-byte loads of 8-, 16- and 64-bit elements
	// (argmax_vec_row.comp, argmax_vec_col.comp), in one of two layouts,
	// reported in Plan.Strategy: "vec-row" when the block is contiguous (lanes of a workgroup split
	// it, as group/splitk do), "vec-col" when the innermost kept dimension
	// is contiguous (an invocation scans the 4 or 8 (32-bit), 16 (8-bit),
	// 8 (16-bit) or 2 (64-bit) adjacent outputs of 16 or 32 bytes at once,
	// as thread does). The planner picks it whenever the layout
	// allows; forced on a layout it does not fit, the planner's own choice
	// of the other strategies is used (and reported).
	ArgStrategyVec = "vec"
)

// ArgStrategies lists the scalar strategy names, whose plans report exactly
// the forced name; ArgStrategyVec may be forced as well.
var ArgStrategies = []string{ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK}

const (
	argThreadWG = 64
	argGroupWG  = 256 // argmax.comp's WG_MAX
	argPartial  = 16  // bytes per (score, index) partial (argmax_partial.glsl)
	// argIters bounds the loop iterations of one invocation: lavapipe
	// (gallivm) stops every shader after 65535 loop iterations in all
	// (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop), silently, and
	// long-running invocations risk watchdogs (TDR) on real GPUs. A thread
	// scans at most argIters elements, a lane at most argIters, the combine
	// reads at most argIters partials; longer blocks are cut into
	// segments.
	argIters      = 16384
	argMaxTempMiB = 4096
	// Split-K aims at about argSplitKGroups workgroups in all, with
	// segments of at least argSplitKMinSeg elements (16 per lane).
	argSplitKGroups = 1024
	argSplitKMinSeg = 4096
	// argWindowAlign is the widest window alignment an ARGMAX kernel asks
	// for (32-byte loads of argmax_vec_col.comp's col8w64 layout); windows are
	// budgeted for it whatever the kernel.
	argWindowAlign = 32
)

// plan is choose the strategy → per candidate kernel: choose the variant
// (chooseVariant) → choose the workgroup (chooseWorkgroup, with the
// device-class tuning) → cut segments → check that they fit (misfit) →
// emit the steps.
func (a *argOp) plan(ctx *Context) (*Plan, error) {
	kept, red := coalesce(a.in.Sizes, a.in.EffectiveStrides(), a.out.EffectiveStrides(), a.reducedAxes())
	if len(kept)+len(red) > 8 {
		return nil, fmt.Errorf("ops: %s: %d coalesced dimensions", a.typ, len(kept)+len(red))
	}
	strategy, useVec, err := a.chooseStrategy(ctx, kept, red)
	if err != nil {
		return nil, err
	}
	es, os := uint64(a.in.DataType.Size()), uint64(a.out.DataType.Size())
	budget := windowBudget(ctx, argWindowAlign)
	c, err := splitWindows(kept, red, es, os, budget)
	if err != nil {
		return nil, err
	}
	l := &argLayout{kept: kept, red: red, es: es, os: os, budget: budget, tune: ctx.tuning(), cus: computeUnits(ctx),
		outs: boxes(kept, c.keptPeel, c.keptChunk), blocks: boxes(red, c.redPeel, c.redChunk)}
	vec := ""
	if useVec {
		vec = argVecLayout(kept, red, es, strategy, l.tune)
		// Unless forced, columns of elements up to 32 bits take vec-col
		// only from as many outputs as the device class asks
		// (argVecColMinOutputs).
		if vec == "col" && ctx.Kernel == "" && es <= 4 && product(kept) < l.tune.argVecColMinOutputs {
			vec = ""
		}
	}
	// Candidates, best first: vectorised if the layout allows, and on a CPU
	// device small workgroups; the first whose segments fit is planned.
	small := l.tune.argSmallWG
	var cands []argKernel
	for _, v := range []string{vec, ""} {
		if small {
			cands = append(cands, a.chooseKernel(ctx, l, strategy, v, true))
		}
		cands = append(cands, a.chooseKernel(ctx, l, strategy, v, false))
		if vec == "" {
			break
		}
	}
	for i, k := range cands {
		segs := l.segments(k, strategy, true)
		err := l.misfit(k, segs, strategy)
		if err != nil && segs.colSplit {
			// The column split only adds segments: without it the
			// kernel may still fit (tiny binding windows).
			segs = l.segments(k, strategy, false)
			err = l.misfit(k, segs, strategy)
		}
		if err != nil {
			if i == len(cands)-1 {
				return nil, err
			}
			continue
		}
		return a.emit(ctx, l, subgroupRows(ctx, l, k, segs), segs)
	}
	panic("unreachable: the last candidate returns")
}

// chooseStrategy picks the scalar strategy from the layout (PyTorch's
// Reduce rule: lanes go along the block when its fastest dimension is
// faster than the kept one's), or the one ctx.Kernel forces, and whether
// the vectorised kernels may be used.
func (a *argOp) chooseStrategy(ctx *Context, kept, red []dim) (strategy string, useVec bool, err error) {
	nout, nred := product(kept), product(red)
	reducedFast := len(red) > 0
	if len(red) > 0 && len(kept) > 0 {
		minR, minK := red[0].in, kept[0].in
		for _, d := range red {
			minR = min(minR, d.in)
		}
		for _, d := range kept {
			minK = min(minK, d.in)
		}
		reducedFast = minR < minK
	}
	strategy = ArgStrategyThread
	switch {
	case nout <= 64 && nred >= 1<<16:
		strategy = ArgStrategySplitK
	case reducedFast && nred >= 256:
		strategy = ArgStrategyGroup
	case nred > argIters*argIters/4:
		strategy = ArgStrategyGroup // thread would need too many segments
	}
	switch ctx.Kernel {
	case "", ArgStrategyVec:
		return strategy, true, nil
	case ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK:
		return ctx.Kernel, false, nil
	}
	return "", false, hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: %v)", ctx.Kernel, a.typ, append(ArgStrategies[:len(ArgStrategies):len(ArgStrategies)], ArgStrategyVec))
}

// argVecLayout says which vectorised layout (argmax_vec_row.comp,
// argmax_vec_col.comp) fits: "row"
// when the block is one contiguous run and the scalar choice lets lanes
// split blocks (group, splitk); else "col" when outputs come in aligned
// groups of argVecPer adjacent input elements; "" otherwise. Elements of
// other than 32 bits take a layout only where the device class's tuning
// allows it (argVecNarrowRow, argVecNarrowCol).
func argVecLayout(kept, red []dim, es uint64, strategy string, t *tuning) string {
	if len(red) == 0 {
		return ""
	}
	narrow := es != 4
	if strategy != ArgStrategyThread && len(red) == 1 && red[0].in == 1 {
		if narrow && !t.argVecNarrowRow {
			return ""
		}
		return "row"
	}
	if len(kept) == 0 || narrow && !t.argVecNarrowCol {
		return ""
	}
	in, per := kept[len(kept)-1], argVecPer(es)
	if in.in != 1 || in.size%per != 0 || !argVecAligned(kept, red, per) {
		return ""
	}
	return "col"
}

// argVecPer is the elements of one 16-byte load, which vec-col gives an
// invocation as its adjacent outputs (4 for 32-bit elements, whose col8
// variants take 8 when the layout allows).
func argVecPer(es uint64) uint64 { return 16 / es }

// argVecAligned: every input stride but the innermost kept one's is a
// multiple of n elements.
func argVecAligned(kept, red []dim, n uint64) bool {
	for _, d := range kept[:len(kept)-1] {
		if d.in%n != 0 {
			return false
		}
	}
	for _, d := range red {
		if d.in%n != 0 {
			return false
		}
	}
	return true
}

// argLayout is an operator's coalesced dimensions and the boxes its
// windows cover: outs over the kept dimensions, blocks over the reduced.
type argLayout struct {
	kept, red    []dim
	es, os       uint64 // input and output element sizes
	budget       uint64 // windowBudget: bytes one window's elements may span
	outs, blocks []box
	tune         *tuning // the device class's
	cus          uint64  // compute units (computeUnits)
}

// argKernel is a candidate first-pass kernel: its variant, workgroup and
// vector shape.
type argKernel struct {
	variant string
	label   string // Plan.Strategy
	shape   string // shaders.ArgMax* (scalar kernels)
	vec     string // "", "row" or "col"
	wg      uint32
	vw      uint64 // elements per vector load (row), outputs per invocation (col)
	bits    int    // element width (vectorised variants)
	align8  bool   // col8w64 with every input stride a multiple of 8 elements
	sgSize  uint32 // required subgroup size, 0 for any
	small   bool   // the small-workgroup candidate
	loads   uint64 // block positions a vec-col or thread lane loads before scanning them (0: 1)
	words   bool   // a scalar kernel reading 8/16-bit elements as 32-bit words
	rows    bool   // vec-row with a subgroup (of sgSize lanes) per item
}

// laneBytes is the bytes one lane of a kernel with one invocation per
// output (or per vw outputs) loads before it uses the first of them.
func (k argKernel) laneBytes(es uint64) uint64 {
	switch {
	case k.vec == "col" && k.bits == 32 && k.vw == 8:
		return 32
	case k.vec == "col":
		return 16 * max(k.loads, 1)
	case k.words:
		return 4 * max(k.loads, 1)
	}
	return es * max(k.loads, 1)
}

// chooseKernel is a candidate's variant, then its workgroup: vector
// layout vec ("", "row", "col") and, when small, tuning's small
// workgroups.
func (a *argOp) chooseKernel(ctx *Context, l *argLayout, strategy, vec string, small bool) argKernel {
	k := a.chooseVariant(ctx, l, strategy, vec)
	k.small = small
	chooseWorkgroup(ctx, &k)
	if k.variant == "" {
		f := ctx.Features
		bits := 8 * int(l.es)
		native := bits == 8 && f.StorageBuffer8Bit || bits == 16 && f.StorageBuffer16Bit
		k.words = bits < 32 && !native
		shape := k.shape
		if shape == shaders.ArgMaxThread && l.tune.argThreadLoads == 8 {
			shape, k.loads = shaders.ArgMaxThreadX8, 8
		}
		k.variant = shaders.ArgMaxName(bits, native, shape)
	}
	return k
}

// chooseVariant picks the kernel shape or vectorised variant, its
// standard workgroup and vector width, from the strategy, the layout and
// the features. Scalar variants are named once the workgroup is known.
func (a *argOp) chooseVariant(ctx *Context, l *argLayout, strategy, vec string) argKernel {
	f := ctx.Features
	k := argKernel{shape: shaders.ArgMaxThread, wg: argThreadWG, vec: vec, label: strategy, vw: 4}
	if strategy != ArgStrategyThread {
		k.shape, k.wg = shaders.ArgMaxGroup, argGroupWG
		if f.SubgroupArithmetic {
			k.shape = shaders.ArgMaxGroupSG
		}
	}
	bits := 8 * int(l.es)
	k.bits = bits
	if vec != "" && bits != 32 {
		// 16-byte loads only: no wide variants below or above 32 bits.
		k.vw = argVecPer(l.es)
		if vec == "row" {
			k.variant, k.label = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecRow), "vec-row"
			if f.SubgroupArithmetic {
				k.variant = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecRowSG)
			}
		} else {
			k.variant, k.label, k.wg = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecCol), "vec-col", argThreadWG
			if l.tune.argColLoads == 4 {
				k.variant, k.loads = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecColX4), 4
			}
		}
		return k
	}
	switch vec {
	case "row":
		k.variant, k.label = shaders.ArgMaxVecRow, "vec-row"
		switch {
		case f.ShaderInt64 && f.SubgroupArithmetic:
			k.variant, k.vw = shaders.ArgMaxVecRow64SG, 8
		case f.ShaderInt64:
			k.variant, k.vw = shaders.ArgMaxVecRow64, 8
		case f.SubgroupArithmetic:
			k.variant = shaders.ArgMaxVecRowSG
		}
	case "col":
		k.variant, k.label, k.wg = shaders.ArgMaxVecCol, "vec-col", argThreadWG
		if l.kept[len(l.kept)-1].size%8 == 0 {
			k.variant, k.vw = shaders.ArgMaxVecCol8, 8
			if f.ShaderInt64 {
				k.variant = shaders.ArgMaxVecCol8W64
				k.align8 = argVecAligned(l.kept, l.red, 8)
			}
		}
	}
	return k
}

// chooseWorkgroup sizes k's workgroup: the standard size, or with k.small
// the tuning's small one, clamped to the device and a power of two; a
// vec-row workgroup of exactly one full subgroup switches to the variant
// that combines without shared memory or barriers (measured on lavapipe:
// 64M FLOAT32 55 -> 35 ms, 4096x16384 axis 1 78 -> 26 ms).
func chooseWorkgroup(ctx *Context, k *argKernel) {
	f, lim := ctx.Features, ctx.Limits
	if k.small {
		t := ctx.tuning()
		k.wg = max(lim.SubgroupSize, 4)
		if k.vec == "col" {
			k.wg = t.argColWG4
			if k.vw >= 8 {
				k.wg = t.argColWG8
			}
		}
	}
	wgLimit := min(lim.MaxComputeWorkGroupInvocations, lim.MaxComputeWorkGroupSize[0])
	k.wg = pow2Floor(min(k.wg, max(wgLimit, 1), argGroupWG))
	if k.vec == "row" && k.small && f.SubgroupArithmetic && f.SubgroupSizeControl && f.ComputeFullSubgroups &&
		k.wg == lim.SubgroupSize && k.wg >= lim.MinSubgroupSize && k.wg <= lim.MaxSubgroupSize {
		k.sgSize = k.wg
		if k.variant == shaders.ArgMaxVecRow64SG {
			k.variant = shaders.ArgMaxVecRow64SG1
		} else {
			k.variant = shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSG1)
		}
	}
}

// subgroupRows switches a vec-row kernel to its variant with one subgroup
// per (output, segment) where the device class's tuning asks for it
// (argRowSubgroups), the segments are short (at most half a workgroup of
// vector loads: 1,000 floats are 125 loads, which leave 131 of 256 lanes
// idle), and the device can require full subgroups of its size.
func subgroupRows(ctx *Context, l *argLayout, k argKernel, s *argSegments) argKernel {
	f, lim := ctx.Features, ctx.Limits
	sg := lim.SubgroupSize
	if k.vec != "row" || k.small || !l.tune.argRowSubgroups || !f.SubgroupArithmetic || !f.SubgroupSizeControl || !f.ComputeFullSubgroups ||
		sg == 0 || sg < lim.MinSubgroupSize || sg > lim.MaxSubgroupSize || k.wg <= sg || k.wg%sg != 0 {
		return k
	}
	vecs := uint64(0) // the longest segment's vector loads
	for _, n := range s.segLen {
		vecs = max(vecs, (n+k.vw-1)/k.vw)
	}
	if 2*vecs > uint64(k.wg) {
		return k
	}
	switch k.variant {
	case shaders.ArgMaxVecRow64SG:
		k.variant = shaders.ArgMaxVecRow64Sub
	case shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSG):
		k.variant = shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSub)
	default:
		return k
	}
	// Eight subgroups a workgroup: a workgroup with a required subgroup
	// size may hold at most maxComputeWorkgroupSubgroups of them (32 on
	// lavapipe and NVIDIA, 16 on AMD at wave64), which caps doesn't carry.
	k.rows, k.sgSize, k.wg = true, sg, min(k.wg, 8*sg)
	return k
}

// argSegments is how a kernel cuts each block box into segments: one
// invocation (thread) or workgroup (group, splitk, vec-row) reduces a
// segment; more than one segment per output leaves partials for the
// combine pass.
type argSegments struct {
	segmentCut
	partial  bool
	colSplit bool   // cut by the tuning's column split
	temp     uint64 // bytes of partials
}

// segments cuts the block boxes for kernel k: segments no longer than one
// invocation may loop over, or split-K's fixed length, or for kernels with
// one invocation per output (when colSplit) the tuning's column split.
func (l *argLayout) segments(k argKernel, strategy string, colSplit bool) *argSegments {
	nout, nred := product(l.kept), product(l.red)
	var split uint64
	switch {
	case strategy == ArgStrategySplitK:
		split = splitKLen(nout, nred, argSplitKGroups, argSplitKMinSeg)
	case colSplit && k.perLane():
		split = l.colSplitLen(k)
	case colSplit:
		split = l.rowSplitLen()
	}
	lanes, per := uint64(1), uint64(1)
	switch {
	case k.vec == "row":
		lanes, per = uint64(k.wg), k.vw // plus a head and a tail under vw each
	case k.vec == "col":
	case k.shape != shaders.ArgMaxThread:
		lanes = uint64(k.wg)
	}
	blocks := make([]uint64, len(l.blocks))
	for i, r := range l.blocks {
		blocks[i] = r.count
	}
	s := &argSegments{segmentCut: cutSegments(blocks, segmentCap(argIters, lanes, per), split),
		colSplit: split > 0 && strategy != ArgStrategySplitK}
	s.partial = s.nseg > 1 || strategy == ArgStrategySplitK
	if s.partial {
		s.temp = partialsBytes(nout, s.nseg, argPartial)
	}
	return s
}

// colSplitLen is the segment length for a kernel with one invocation per
// output (or per vw outputs, vec-col) when the outputs alone give too few
// invocations; 0 when they are enough or the blocks too short to split.
// With tuning.argColInFlightPerCU, enough (output, segment) lanes to keep
// that many bytes per compute unit loading, with partials at most
// 1/argColPartialDiv of the bytes read; otherwise about
// tuning.argColSplitItems invocations, with segments of at least
// tuning.argColSplitMinBytes.
func (l *argLayout) colSplitLen(k argKernel) uint64 {
	nred := product(l.red)
	items := product(l.kept)
	if k.vec == "col" {
		items = max(items/k.vw, 1)
	}
	var want uint64
	switch {
	case l.tune.argColInFlightPerCU > 0:
		lanes := lanesFor(l.cus*l.tune.argColInFlightPerCU, k.laneBytes(l.es))
		want = min(ceilDiv(lanes, items), partialSegments(nred*l.es, argPartial, l.tune.argColPartialDiv))
	case l.tune.argColSplitItems > 0:
		want = min(l.tune.argColSplitItems/items, segmentsOfAtLeast(nred, l.tune.argColSplitMinBytes/l.es))
	}
	return splitLen(nred, want, argIters/2, 1)
}

// rowSplitLen is the segment length that gives the kernels whose
// workgroups split a block (group, vec-row) about tuning.argRowGroupsPerCU
// workgroups per compute unit when the outputs alone give fewer, with
// segments a multiple of tuning.argRowSplitMinBytes (a workgroup's worth
// of vector loads at least, so that a row's last segment too keeps most
// lanes busy, and loads stay aligned where the block is); 0 when
// the outputs are enough or the blocks too short to split.
func (l *argLayout) rowSplitLen() uint64 {
	if l.tune.argRowGroupsPerCU == 0 {
		return 0
	}
	nout, nred := product(l.kept), product(l.red)
	target := l.cus * l.tune.argRowGroupsPerCU
	if nout >= target {
		return 0
	}
	// Rounded down: outputs just short of the target (4097 rows on 132
	// SMs x 32) already fill the device, and a second segment each would
	// leave most of its lanes empty.
	want := min(target/nout, segmentsOfAtLeast(nred*l.es, l.tune.argRowSplitMinBytes))
	return splitLen(nred, want, argIters/2, l.tune.argRowSplitMinBytes/l.es)
}

// perLane: k's invocations each reduce one output's segment in order
// (thread, vec-col), rather than a workgroup's lanes splitting it.
func (k argKernel) perLane() bool {
	return k.vec == "col" || k.vec == "" && k.shape == shaders.ArgMaxThread
}

// misfit says why kernel k with segments s cannot run the layout, or nil
// when it fits: the combine pass takes at most argIters partials per
// output, the partials must fit vkdml's temporary limit and one output's
// partials one window, and vec-col needs output boxes (and every step's
// run of outputs) aligned to its vw outputs per invocation.
func (l *argLayout) misfit(k argKernel, s *argSegments, strategy string) error {
	if s.partial {
		if s.nseg > argIters {
			hint := ""
			if strategy != ArgStrategySplitK {
				hint = fmt.Sprintf("; use %q", ArgStrategySplitK)
			}
			return hresult.Unsupported("Kernel", "strategy %q would cut each block into %d segments, more than the combine pass takes (%d)%s", strategy, s.nseg, argIters, hint)
		}
		if s.temp > argMaxTempMiB<<20 {
			return hresult.Unsupported("InputTensor", "the split reduction needs %d bytes of temporary partials, more than vkdml's %d MiB limit", s.temp, argMaxTempMiB)
		}
		if combineOutputs(l.budget, s.nseg, argPartial) == 0 {
			return hresult.Unsupported("InputTensor", "%d partials per output do not fit one storage binding", s.nseg)
		}
	}
	if k.vec == "col" {
		if err := l.colMisfit(k, s); err != nil {
			return err
		}
	}
	// Count the dispatches before making any: tiny windows over many
	// outputs would otherwise build millions of steps only to refuse them.
	if n := l.countSteps(k, s); n > 2*maxPlanSteps {
		return errTooManySteps("InputTensor", n, l.budget)
	}
	return nil
}

// colMisfit says why vec-col cannot run the layout: its output boxes and
// every step's run of outputs must be multiples of its vw outputs per
// invocation.
func (l *argLayout) colMisfit(k argKernel, s *argSegments) error {
	for _, ro := range l.outs {
		if ro.begin%k.vw != 0 || ro.count%k.vw != 0 {
			return hresult.Unsupported("Kernel", "vec-col needs runs of %d outputs; a window holds %d from output %d", k.vw, ro.count, ro.begin)
		}
		for i := range l.blocks {
			if l.outputsPerStep(k, s, ro, i) == 0 {
				return hresult.Unsupported("Kernel", "vec-col needs runs of %d outputs; a window of partials holds fewer", k.vw)
			}
		}
	}
	return nil
}

// countSteps is how many dispatches emit will make.
func (l *argLayout) countSteps(k argKernel, s *argSegments) uint64 {
	var n uint64
	for _, ro := range l.outs {
		for i := range l.blocks {
			if per := l.outputsPerStep(k, s, ro, i); per > 0 {
				n += (ro.count + per - 1) / per
			}
		}
		if s.partial {
			per := max(combineOutputs(l.budget, s.nseg, argPartial), 1)
			n += (ro.count + per - 1) / per
		}
	}
	return n
}

// outputsPerStep is how many outputs of box ro one first-pass step over
// block box i covers: all of them, unless their partials would not fit one
// window; for vec-col a multiple of vw.
func (l *argLayout) outputsPerStep(k argKernel, s *argSegments, ro box, i int) uint64 {
	n := ro.count
	if s.partial {
		// entries [o*nseg+segBase, (o+n-1)*nseg+segBase+nloc)
		n = min(n, firstPassOutputs(l.budget, s.nseg, s.nloc[i], argPartial))
	}
	if k.vec == "col" {
		n -= n % k.vw
	}
	return n
}

// emit builds the plan misfit accepted: first-pass steps over every
// (output box, block box) pair, cut so that the partials fit a window, then
// the combine pass.
func (a *argOp) emit(ctx *Context, l *argLayout, k argKernel, s *argSegments) (*Plan, error) {
	outMode := uint32(0)
	if l.os == 8 {
		outMode = 1
	}
	firstMode := outMode
	if s.partial {
		firstMode = 2
	}
	align := uint64(16) // a multiple of every element size, for 16-byte loads
	if k.align8 {
		align = 32
	}
	// vec-row's raw-interval load filter (argmax_vec_row.comp ROW_FILTER)
	// where the device class asks for it; 64-bit elements have none.
	rowFilter := k.vec == "row" && l.es < 8 && l.tune.argRowFilter
	first, err := kernelOf(a.spec(k.variant, l, k.wg, firstMode, b2u(k.align8)<<16|b2u(rowFilter)<<17))
	if err != nil {
		return nil, err
	}
	first.SubgroupSize, first.FullSubgroups = k.sgSize, k.sgSize != 0
	plan := &Plan{Strategy: k.label, Kernels: []Kernel{first}, TemporarySize: s.temp}
	perLane := k.perLane()
	for _, ro := range l.outs {
		for i, rj := range l.blocks {
			in, inFirst := windowSlot(SlotInput, 0, ro.inLo+rj.inLo, ro.inLo+rj.inLo+ro.inSpan+rj.inSpan+1, l.es, align, a.in.TotalTensorSizeInBytes)
			oStep := l.outputsPerStep(k, s, ro, i)
			for ob := uint64(0); ob < ro.count; ob += oStep {
				on := min(oStep, ro.count-ob)
				o0 := ro.begin + ob
				var dst Slot
				var dstFirst uint64
				if s.partial {
					first := o0*s.nseg + s.segBase[i]
					last := (o0+on-1)*s.nseg + s.segBase[i] + s.nloc[i]
					dst, dstFirst = Slot{Kind: SlotTemporary, Offset: first * argPartial, Size: (last - first) * argPartial}, first
				} else {
					dst, dstFirst = windowSlot(SlotOutput, 0, ro.outLo, ro.outLo+ro.outSpan+1, l.os, 16, a.out.TotalTensorSizeInBytes)
				}
				items := on * s.nloc[i]
				if k.vec == "col" {
					items = on / k.vw * s.nloc[i]
				}
				groups := gridFor(ctx, items, 1)
				switch {
				case perLane:
					groups = gridFor(ctx, items, k.wg)
				case k.rows:
					groups = gridFor(ctx, items, k.wg/k.sgSize)
				}
				params, err := pushBytes(shaders.NewPush(k.variant).
					Set("o_begin", uint32(o0)).Set("o_count", uint32(on)).
					Set("j_begin", uint32(rj.begin)).Set("j_count", uint32(rj.count)).
					Set("seg_len", uint32(s.segLen[i])).Set("nloc", uint32(s.nloc[i])).
					Set("seg_base", uint32(s.segBase[i])).Set("nseg", uint32(s.nseg)).
					Set("in_win", uint32(inFirst)).Set("dst_win", uint32(dstFirst)))
				if err != nil {
					return nil, err
				}
				plan.Steps = append(plan.Steps, Step{Bindings: []Slot{in, dst}, Params: params, Groups: groups})
			}
		}
	}
	if s.partial {
		if err := a.emitCombine(ctx, l, k, s, plan, outMode); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// emitCombine appends the second pass: each output's nseg partials reduced
// into its index, by one invocation per output, or where the device
// class's tuning asks for it (argCombineGroupMin) by one workgroup per
// output (argCombineKernel).
func (a *argOp) emitCombine(ctx *Context, l *argLayout, k argKernel, s *argSegments, plan *Plan, outMode uint32) error {
	oStep := combineOutputs(l.budget, s.nseg, argPartial)
	maxOn := uint64(0) // the most outputs one combine step takes
	for _, ro := range l.outs {
		maxOn = max(maxOn, min(ro.count, oStep))
	}
	variant, cwg, perGroup := argCombineKernel(ctx, l.tune, s.nseg, maxOn)
	// The combine ignores the align8 flag; it keeps the first pass's flags
	// otherwise, so both kernels share one spec layout.
	combine, err := kernelOf(a.spec(variant, l, cwg, outMode, b2u(k.align8)<<16))
	if err != nil {
		return err
	}
	plan.Kernels = append(plan.Kernels, combine)
	barrier := true
	for _, ro := range l.outs {
		out, outFirst := windowSlot(SlotOutput, 0, ro.outLo, ro.outLo+ro.outSpan+1, l.os, 16, a.out.TotalTensorSizeInBytes)
		for ob := uint64(0); ob < ro.count; ob += oStep {
			on := min(oStep, ro.count-ob)
			o0 := ro.begin + ob
			params, err := pushBytes(shaders.NewPush(variant).
				Set("o_begin", uint32(o0)).Set("o_count", uint32(on)).Set("nseg", uint32(s.nseg)).
				Set("tmp_win", uint32(o0*s.nseg)).Set("out_win", uint32(outFirst)))
			if err != nil {
				return err
			}
			groups := gridFor(ctx, on, cwg)
			if perGroup {
				groups = gridFor(ctx, on, 1)
			}
			plan.Steps = append(plan.Steps, Step{
				Kernel:   1,
				Bindings: []Slot{{Kind: SlotTemporary, Offset: o0 * s.nseg * argPartial, Size: on * s.nseg * argPartial}, out},
				Params:   params,
				Groups:   groups,
				Barrier:  barrier,
			})
			barrier = false
		}
	}
	return nil
}

// argCombineKernel is the combine pass for nseg partials per output, of
// at most maxOn outputs a step (combineShape, with the device class's
// argCombineGroupMin): argmax_combine.comp's one invocation per output, or
// argmax_combine_group.comp's workgroup per output.
func argCombineKernel(ctx *Context, t *tuning, nseg, maxOn uint64) (variant string, wg uint32, perGroup bool) {
	wgLimit := max(min(ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0]), 1)
	wg, perGroup = combineShape(nseg, maxOn, min(argThreadWG, wgLimit), min(argGroupWG, wgLimit), t.argCombineGroupMin, ctx.Limits.SubgroupSize, t.exactGrid)
	switch {
	case !perGroup:
		return shaders.ArgMaxCombineName, wg, false
	case ctx.Features.SubgroupArithmetic:
		return shaders.ArgMaxCombineGroupSG, wg, true
	}
	return shaders.ArgMaxCombineGroup, wg, true
}

// spec is variant's specialization constants (reduce.glsl), by
// name: the workgroup size, FLAGS (extra holds its kernel-specific bits:
// 16 vec-col's ALIGN8, 17 vec-row's ROW_FILTER), then the sizes (DS),
// input strides (DI) and output strides (DO) of 8 dimension slots: kept
// dimension i (innermost first) in slot i, reduced dimension i in slot 7-i.
func (a *argOp) spec(variant string, l *argLayout, wg, mode, extra uint32) *shaders.Values {
	kind := shaders.ElemKind(a.in.DataType.IsFloat(), a.in.DataType.IsSigned())
	flags := kind | b2u(a.isMin)<<2 | b2u(a.dir == AxisDirectionDecreasing)<<3 | mode<<4 | extra |
		uint32(len(l.kept))<<8 | uint32(len(l.red))<<12
	var ds, di, do [8]uint32
	for i := range ds {
		ds[i] = 1
	}
	for i := range l.kept {
		d := l.kept[len(l.kept)-1-i]
		ds[i], di[i], do[i] = uint32(d.size), uint32(d.in), uint32(d.out)
	}
	for i := range l.red {
		d := l.red[len(l.red)-1-i]
		ds[7-i], di[7-i] = uint32(d.size), uint32(d.in)
	}
	s := shaders.NewSpec(variant).Set(shaders.SpecWorkgroupSize, wg).Set("FLAGS", flags)
	for i := range 8 {
		s.Set(fmt.Sprintf("DS%d", i), ds[i]).Set(fmt.Sprintf("DI%d", i), di[i]).Set(fmt.Sprintf("DO%d", i), do[i])
	}
	return s
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
