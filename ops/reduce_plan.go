package ops

// The reduction planner that ARGMAX and ARGMIN (and REDUCE's functions)
// share: its strategies and limits, and plan, which drives the layout
// (reduce_layout.go), the kernel choice (reduce_kernel.go), the segment
// cutting (reduce_segments.go) and the emitted steps (reduce_emit.go).

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
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
	argPartial  = 16  // bytes per partial (reduce_part.glsl write_part)
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
	if a.treeOrder() && c.redChunk > 0 {
		// Block boxes at multiples of a power of two, so that rule 42's
		// aligned segments stay long (argLayout.treeSegmentLen).
		c.redChunk = pow2Floor64(c.redChunk)
	}
	l := &argLayout{kept: kept, red: red, es: es, os: os, budget: budget, tune: ctx.tuning(), cus: computeUnits(ctx),
		outs: boxes(kept, c.keptPeel, c.keptChunk), blocks: boxes(red, c.redPeel, c.redChunk), partial: a.partialBytes(), tree: a.treeOrder()}
	vec := ""
	if useVec {
		vec = argVecLayout(kept, red, es, strategy, l.tune)
		// Unless forced, columns of elements up to 32 bits take vec-col
		// only from as many outputs as the device class asks
		// (argVecColMinOutputs); FLOAT16 float columns whenever they
		// fit (reduce_half_col.comp: their scalar kernel widens each
		// element) except under split-K, and no other vectorised layout.
		// Split-K (few outputs, long columns) cuts segments for 256-lane
		// workgroups, not by the column split: vec-col's one lane per 8
		// outputs a segment would leave 4194304x8 a single workgroup of
		// 256 lanes where the thread kernel runs 262144.
		switch {
		case a.value == funcFloat && vec != "col":
			vec = ""
		case a.value == funcFloat && strategy == ArgStrategySplitK && ctx.Kernel == "":
			vec = ""
		case a.value == funcFloat:
		case vec == "col" && ctx.Kernel == "" && es <= 4 && product(kept) < l.tune.argVecColMinOutputs && !l.col8Y():
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
		// The vectorised kernels carry integer state (a score, or a sum
		// modulo 2^32 or 2^64): the float functions' exact accumulator
		// runs on the scalar kernels (REDUCE_FLOAT), but for FLOAT16
		// columns of the functions halfCol names (vec-col only).
		return strategy, a.value != funcFloat || a.halfCol(ctx), nil
	case ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK:
		return ctx.Kernel, false, nil
	}
	return "", false, hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: %v)", ctx.Kernel, a.typ, append(ArgStrategies[:len(ArgStrategies):len(ArgStrategies)], ArgStrategyVec))
}
