package ops

import (
	"errors"
	"fmt"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
)

// ARGMAX/ARGMIN strategies (Plan.Strategy; Context.Kernel forces one).
const (
	// ArgStrategyThread: one invocation per output scans its block in
	// order. Chosen when the reduced axes are not the fastest-varying, so
	// neighbouring invocations read neighbouring elements (and for short
	// blocks). Blocks longer than argIters are cut into segments whose
	// partials a second pass combines, as in split-K.
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
	// ArgStrategyVec: 16- or 32-byte vector loads for 32-bit elements
	// (argmax_vec.comp), in one of two layouts, reported in Plan.Strategy:
	// "vec-row" when the block is contiguous (lanes of a workgroup split
	// it, as group/splitk do), "vec-col" when the innermost kept dimension
	// is contiguous (an invocation scans 4 or 8 adjacent outputs' blocks at
	// once, as thread does). The planner picks it whenever the layout
	// allows; forced on a layout it does not fit, the planner's own choice
	// of the other strategies is used (and reported).
	ArgStrategyVec = "vec"
)

// ArgStrategies lists the scalar strategy names, whose plans report exactly
// the forced name; ArgStrategyVec may be forced as well.
var ArgStrategies = []string{ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK}

// errArgReplan: a candidate plan does not work out (vec-col's 4-output
// groups not aligned to the steps, or a CPU-sized workgroup cutting blocks
// into more segments than the combine takes); the planner tries the next.
var errArgReplan = errors.New("ops: replan")

const (
	argThreadWG = 64
	argGroupWG  = 256 // argmax.comp's WG_MAX
	argPartial  = 16  // bytes per (score, index) partial
	argMaxSteps = 1 << 16
	// argIters bounds the loop iterations of one invocation: lavapipe
	// (gallivm) stops every shader after 65535 loop iterations in all
	// (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop), silently, and
	// long-running invocations risk watchdogs (TDR) on real GPUs. A thread
	// scans at most argIters elements, a lane at most argIters, the combine
	// reads at most argIters partials; longer blocks are cut into
	// segments.
	argIters      = 16384
	argMaxTempMiB = 4096
)

// argDim is one coalesced dimension.
type argDim struct {
	size uint64
	in   uint64 // input stride, elements
	out  uint64 // output stride (kept dimensions)
}

// coalesce drops size-1 dimensions and merges neighbours (in row-major
// order within each side) whose strides make them one dimension: kept
// dimensions when both the input and output strides chain, reduced ones
// when the input strides chain. The row-major block index is unchanged by
// merging reduced dimensions, so rule 1 still holds.
func (a *argOp) coalesce() (kept, red []argDim) {
	reduced := a.reducedAxes()
	istr, ostr := a.in.EffectiveStrides(), a.out.EffectiveStrides()
	for i, s := range a.in.Sizes {
		if s == 1 {
			continue
		}
		d := argDim{size: uint64(s), in: uint64(istr[i]), out: uint64(ostr[i])}
		if reduced[i] {
			if n := len(red); n > 0 && red[n-1].in == d.size*d.in {
				red[n-1] = argDim{size: red[n-1].size * d.size, in: d.in}
				continue
			}
			d.out = 0
			red = append(red, d)
		} else {
			if n := len(kept); n > 0 && kept[n-1].in == d.size*d.in && kept[n-1].out == d.size*d.out {
				kept[n-1] = argDim{size: kept[n-1].size * d.size, in: d.in, out: d.out}
				continue
			}
			kept = append(kept, d)
		}
	}
	return kept, red
}

func argProduct(ds []argDim) uint64 {
	n := uint64(1)
	for _, d := range ds {
		n *= d.size
	}
	return n
}

func argSpanIn(ds []argDim) uint64 {
	var s uint64
	for _, d := range ds {
		s += (d.size - 1) * d.in
	}
	return s
}

func argSpanOut(ds []argDim) uint64 {
	var s uint64
	for _, d := range ds {
		s += (d.size - 1) * d.out
	}
	return s
}

// argRange is a contiguous run of output numbers (or block positions) that
// is also a box: a few outer dimensions fixed, one cut to a chunk, the rest
// whole; so its elements lie between two corner offsets.
type argRange struct {
	begin, count uint64
	inLo, inSpan uint64 // element offsets
	outLo        uint64
	outSpan      uint64
}

// ranges enumerates the boxes of one side: dimensions [0,peel) fixed at
// each coordinate, dimension peel (if chunk > 0) cut into chunks of chunk.
func argRanges(ds []argDim, peel int, chunk uint64) []argRange {
	var out []argRange
	inner := ds[peel:]
	if chunk == 0 || peel >= len(ds) {
		chunk = 0
	}
	var rec func(i int, begin, in, o uint64)
	rec = func(i int, begin, in, o uint64) {
		if i < peel {
			for c := uint64(0); c < ds[i].size; c++ {
				rec(i+1, begin*ds[i].size+c, in+c*ds[i].in, o+c*ds[i].out)
			}
			return
		}
		if chunk == 0 {
			n := argProduct(inner)
			out = append(out, argRange{begin: begin * n, count: n, inLo: in, inSpan: argSpanIn(inner), outLo: o, outSpan: argSpanOut(inner)})
			return
		}
		d, rest := ds[peel], ds[peel+1:]
		n := argProduct(rest)
		for c := uint64(0); c < d.size; c += chunk {
			l := min(chunk, d.size-c)
			box := append([]argDim{{size: l, in: d.in, out: d.out}}, rest...)
			out = append(out, argRange{
				begin: (begin*d.size + c) * n, count: l * n,
				inLo: in + c*d.in, inSpan: argSpanIn(box),
				outLo: o + c*d.out, outSpan: argSpanOut(box),
			})
		}
	}
	rec(0, 0, 0, 0)
	return out
}

func argSatMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// split decides the boxes so that each step's input and output windows fit
// in win bytes: it peels outer dimensions (fixing them, one step per
// coordinate) and cuts one into chunks, on the kept side while that can
// suffice, else on the reduced side (whose cuts need partials).
func argSplit(kept, red []argDim, es, os, win uint64) (kPeel int, kChunk uint64, rPeel int, rChunk uint64, err error) {
	limIn, limOut := win/es-1, win/os-1 // largest span (elements) a window holds
	steps := uint64(1)
	for {
		inS, outS := argSpanIn(kept[kPeel:])+argSpanIn(red[rPeel:]), argSpanOut(kept[kPeel:])
		if inS <= limIn && outS <= limOut {
			return
		}
		// Prefer cutting the kept side: it needs no partials. Only when
		// the remaining block alone overflows a window is the block cut.
		var useKept bool
		switch {
		case outS > limOut:
			useKept = true // only kept dimensions move the output
		case kPeel < len(kept) && argSpanIn(red[rPeel:]) <= limIn:
			useKept = true
		default:
			useKept = rPeel >= len(red)
		}
		var d argDim
		if useKept {
			d = kept[kPeel]
		} else {
			d = red[rPeel]
		}
		otherIn := inS - (d.size-1)*d.in
		otherOut := outS
		if useKept {
			otherOut -= (d.size - 1) * d.out
		}
		c := d.size
		if otherIn <= limIn && otherOut <= limOut {
			if d.in > 0 {
				c = min(c, (limIn-otherIn)/d.in+1)
			}
			if useKept && d.out > 0 {
				c = min(c, (limOut-otherOut)/d.out+1)
			}
			chunks := (d.size + c - 1) / c
			if steps = argSatMul(steps, chunks); steps > argMaxSteps {
				break
			}
			if useKept {
				kChunk = c
			} else {
				rChunk = c
			}
			return
		}
		if steps = argSatMul(steps, d.size); steps > argMaxSteps {
			break
		}
		if useKept {
			kPeel++
		} else {
			rPeel++
		}
	}
	return 0, 0, 0, 0, hresult.Unsupported("InputTensor.Strides", "the tensor cannot be covered with at most %d windows of maxStorageBufferRange (%d bytes): its strides scatter the elements too widely", argMaxSteps, win)
}

// window returns the slot byte range covering element offsets
// [lo, lo+span] of es-byte elements: offset rounded down to 16 bytes (a
// multiple of every element size), size rounded up to 4.
func argWindow(lo, span, es uint64) (off, size uint64) {
	off = lo * es &^ 15
	end := (lo + span + 1) * es
	return off, (end - off + 3) &^ 3
}

func (a *argOp) plan(ctx *Context) (*Plan, error) {
	kept, red := a.coalesce()
	if len(kept)+len(red) > 8 {
		return nil, fmt.Errorf("ops: %s: %d coalesced dimensions", a.typ, len(kept)+len(red))
	}
	nout, nred := argProduct(kept), argProduct(red)
	es := uint64(a.in.DataType.Size())

	// Strategy from the layout (PyTorch's Reduce rule): lanes go along the
	// block when its fastest dimension is faster than the kept one's.
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
	strategy := ArgStrategyThread
	switch {
	case nout <= 64 && nred >= 1<<16:
		strategy = ArgStrategySplitK
	case reducedFast && nred >= 256:
		strategy = ArgStrategyGroup
	case nred > argIters*argIters/4:
		strategy = ArgStrategyGroup // thread would need too many segments
	}
	useVec := true
	if ctx.Kernel != "" {
		switch ctx.Kernel {
		case ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK:
			strategy = ctx.Kernel
			useVec = false
		case ArgStrategyVec:
		default:
			return nil, hresult.InvalidArg("Kernel", "%q is not a strategy of %s (strategies: %v)", ctx.Kernel, a.typ, append(ArgStrategies[:len(ArgStrategies):len(ArgStrategies)], ArgStrategyVec))
		}
	}
	vec := ""
	if useVec {
		vec = argVecLayout(kept, red, es, strategy)
	}
	// Candidates, best first: vectorised if the layout allows, and on a CPU
	// device a workgroup of one subgroup; each falls back to the next.
	type cand struct {
		vec   string
		cpuWG bool
	}
	cpu := ctx.DeviceType == caps.DeviceTypeCPU
	var cands []cand
	for _, v := range []string{vec, ""} {
		if cpu {
			cands = append(cands, cand{v, true})
		}
		cands = append(cands, cand{v, false})
		if vec == "" {
			break
		}
	}
	var p *Plan
	var err error
	for i, c := range cands {
		p, err = a.planWith(ctx, kept, red, strategy, c.vec, c.cpuWG, i == len(cands)-1)
		if !errors.Is(err, errArgReplan) {
			break
		}
	}
	return p, err
}

// argVecLayout says which vectorised layout (argmax_vec.comp) fits: "row"
// when the block is one contiguous run and the scalar choice lets lanes
// split blocks (group, splitk); else "col" when outputs come in aligned
// groups of 4 adjacent input elements; "" otherwise.
func argVecLayout(kept, red []argDim, es uint64, strategy string) string {
	if es != 4 || len(red) == 0 {
		return ""
	}
	if strategy != ArgStrategyThread && len(red) == 1 && red[0].in == 1 {
		return "row"
	}
	if len(kept) == 0 {
		return ""
	}
	in := kept[len(kept)-1]
	if in.in != 1 || in.size%4 != 0 {
		return ""
	}
	for _, d := range kept[:len(kept)-1] {
		if d.in%4 != 0 {
			return ""
		}
	}
	for _, d := range red {
		if d.in%4 != 0 {
			return ""
		}
	}
	return "col"
}

// argVecAligned: the innermost kept dimension is contiguous and every other
// input stride is a multiple of n elements.
func argVecAligned(kept, red []argDim, n uint64) bool {
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

// planWith builds the plan for a strategy and vectorised layout ("", "row"
// or "col"), with CPU-sized workgroups when cpuWG is set. Unless last, a
// candidate that does not work out returns errArgReplan.
func (a *argOp) planWith(ctx *Context, kept, red []argDim, strategy, vec string, cpuWG, last bool) (*Plan, error) {
	nout, nred := argProduct(kept), argProduct(red)
	es, os := uint64(a.in.DataType.Size()), uint64(a.out.DataType.Size())

	wgLimit := min(ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0])
	pow2 := func(n uint32) uint32 {
		p := uint32(1)
		for p*2 <= n {
			p *= 2
		}
		return p
	}
	bits := 8 * int(es)
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	shape, wg := shaders.ArgMaxThread, uint32(argThreadWG)
	if strategy != ArgStrategyThread {
		shape, wg = shaders.ArgMaxGroup, uint32(argGroupWG)
		if ctx.Features.SubgroupArithmetic {
			shape = shaders.ArgMaxGroupSG
		}
	}
	variant, label := "", strategy
	vw := uint64(4) // elements per vector load (row), outputs per invocation (col)
	align8 := false // col8w64: every input stride a multiple of 8 elements
	switch vec {
	case "row":
		variant = shaders.ArgMaxVecRow
		switch {
		case ctx.Features.ShaderInt64 && ctx.Features.SubgroupArithmetic:
			variant, vw = shaders.ArgMaxVecRow64SG, 8
		case ctx.Features.ShaderInt64:
			variant, vw = shaders.ArgMaxVecRow64, 8
		case ctx.Features.SubgroupArithmetic:
			variant = shaders.ArgMaxVecRowSG
		}
		label = "vec-row"
	case "col":
		variant, wg = shaders.ArgMaxVecCol, argThreadWG
		if kept[len(kept)-1].size%8 == 0 {
			variant, vw = shaders.ArgMaxVecCol8, 8
			if ctx.Features.ShaderInt64 {
				variant = shaders.ArgMaxVecCol8W64
				align8 = argVecAligned(kept, red, 8)
			}
		}
		label = "vec-col"
	}
	if cpuWG {
		// lavapipe runs a workgroup as loops over its subgroups, and pays
		// per lane for every load: a workgroup of one subgroup is fastest
		// for lanes splitting a block (measured: 16-byte loads 5.2 GB/s at
		// 8 lanes, 0.75 GB/s at 64), and long per-invocation loops are
		// cheap.
		wg = max(ctx.Limits.SubgroupSize, 4)
		if vec == "col" {
			// Measured on lavapipe (4096x16384 FLOAT32, axis 0): 8
			// outputs per lane, 8 lanes (256 bytes per row and
			// workgroup) ~120 ms, 2 lanes 115-160 ms, 4 lanes ~240 ms;
			// 4 outputs per lane: 4 lanes beat 8 by about 2x.
			wg = 4
			if vw == 8 {
				wg = 8
			}
		}
	}
	wg = pow2(min(wg, max(wgLimit, 1), argGroupWG))
	// A workgroup of exactly one full subgroup combines without shared
	// memory or barriers (measured on lavapipe: 64M FLOAT32 55 -> 35 ms,
	// 4096x16384 axis 1 78 -> 26 ms).
	var sgSize uint32
	if vec == "row" && cpuWG && ctx.Features.SubgroupArithmetic && ctx.Features.SubgroupSizeControl &&
		ctx.Features.ComputeFullSubgroups && wg == ctx.Limits.SubgroupSize &&
		wg >= ctx.Limits.MinSubgroupSize && wg <= ctx.Limits.MaxSubgroupSize {
		sgSize = wg
		if variant == shaders.ArgMaxVecRow64SG {
			variant = shaders.ArgMaxVecRow64SG1
		} else {
			variant = shaders.ArgMaxVecRowSG1
		}
	}

	// Windows: a binding's range is rounded out to the device's offset
	// alignment (at most 256 bytes) on the GPU side, so keep that slack
	// (and the 16-byte rounding of window starts).
	win := uint64(ctx.Limits.MaxStorageBufferRange)
	if win > 1024 {
		win -= 512
	}
	if ctx.BindingWindowCap > 0 {
		win = min(win, ctx.BindingWindowCap)
	}
	win &^= 15
	kPeel, kChunk, rPeel, rChunk, err := argSplit(kept, red, es, os, win)
	if err != nil {
		return nil, err
	}
	oRanges, jRanges := argRanges(kept, kPeel, kChunk), argRanges(red, rPeel, rChunk)

	// Segments: one per block range, or split-K's fixed length.
	segLen := make([]uint64, len(jRanges))
	nloc := make([]uint64, len(jRanges))
	segBase := make([]uint64, len(jRanges))
	var nseg uint64
	var splitLen uint64
	if strategy == ArgStrategySplitK {
		// About 1024 workgroups in all, segments of at least 4096
		// elements (16 per lane).
		want := max(1024/nout, 1)
		want = min(want, max(nred/4096, 1))
		splitLen = (nred + want - 1) / want
	}

	maxSeg := uint64(argIters)
	switch {
	case vec == "row":
		maxSeg *= vw * uint64(wg) // plus a head and a tail under vw each
	case vec == "col":
	case shape != shaders.ArgMaxThread:
		maxSeg *= uint64(wg)
	}
	for i, r := range jRanges {
		segLen[i] = min(r.count, maxSeg)
		if splitLen > 0 {
			segLen[i] = min(splitLen, segLen[i])
		}
		nloc[i] = (r.count + segLen[i] - 1) / segLen[i]
		segBase[i] = nseg
		nseg += nloc[i]
	}
	partial := nseg > 1 || strategy == ArgStrategySplitK
	if !last && partial && nseg > argIters {
		return nil, errArgReplan
	}
	var temp uint64
	if partial {
		temp = argSatMul(argSatMul(nout, nseg), argPartial)
		if temp > argMaxTempMiB<<20 {
			return nil, hresult.Unsupported("InputTensor", "the split reduction needs %d bytes of temporary partials, more than vkdml's %d MiB limit", temp, argMaxTempMiB)
		}
		if nseg > argIters {
			hint := ""
			if strategy != ArgStrategySplitK {
				hint = fmt.Sprintf("; use %q", ArgStrategySplitK)
			}
			return nil, hresult.Unsupported("Kernel", "strategy %q would cut each block into %d segments, more than the combine pass takes (%d)%s", strategy, nseg, argIters, hint)
		}
		if nseg*argPartial > win {
			return nil, hresult.Unsupported("InputTensor", "%d partials per output do not fit one storage binding", nseg)
		}
	}

	kind := uint32(0)
	switch {
	case a.in.DataType.IsFloat():
		kind = 2
	case a.in.DataType.IsSigned():
		kind = 1
	}
	outMode := uint32(0)
	if os == 8 {
		outMode = 1
	}
	// Specialization constants (argmax_common.glsl): workgroup size,
	// flags, then sizes, input strides and output strides of 8 dimension
	// slots: kept dimension i (innermost first) in slot i, reduced
	// dimension i in slot 7-i.
	spec := func(wg, mode uint32) []uint32 {
		flags := kind | argB2u(a.isMin)<<2 | argB2u(a.dir == AxisDirectionDecreasing)<<3 | mode<<4 | argB2u(align8)<<16 |
			uint32(len(kept))<<8 | uint32(len(red))<<12
		var ds, di, do [8]uint32
		for i := range ds {
			ds[i] = 1
		}
		for i := range kept {
			d := kept[len(kept)-1-i]
			ds[i], di[i], do[i] = uint32(d.size), uint32(d.in), uint32(d.out)
		}
		for i := range red {
			d := red[len(red)-1-i]
			ds[7-i], di[7-i] = uint32(d.size), uint32(d.in)
		}
		s := []uint32{wg, flags}
		s = append(s, ds[:]...)
		s = append(s, di[:]...)
		return append(s, do[:]...)
	}
	firstMode := outMode
	if partial {
		firstMode = 2
	}
	if variant == "" {
		variant = shaders.ArgMaxName(bits, native, shape)
	}
	plan := &Plan{
		Strategy: label,
		Kernels: []Kernel{{
			Variant:       variant,
			Bindings:      2,
			ParamBytes:    40,
			Spec:          spec(wg, firstMode),
			SubgroupSize:  sgSize,
			FullSubgroups: sgSize != 0,
		}},
		TemporarySize: temp,
	}
	groupsFor := func(items uint64) [3]uint32 {
		if vec == "col" || vec == "" && shape == shaders.ArgMaxThread {
			return GridGroups(items, wg, ctx.Limits)
		}
		return GridGroups(items, 1, ctx.Limits)
	}
	slot := func(kind SlotKind, off, size uint64) Slot { return Slot{Kind: kind, Offset: off, Size: size} }

	for _, ro := range oRanges {
		if vec == "col" && (ro.begin%vw != 0 || ro.count%vw != 0) {
			return nil, errArgReplan
		}
		for i, rj := range jRanges {
			inOff, inSize := argWindow(ro.inLo+rj.inLo, ro.inSpan+rj.inSpan, es)
			if align8 {
				// 32-byte aligned windows, for 32-byte loads.
				inSize += inOff & 16
				inOff &^= 31
			}
			inWin := uint32(inOff / es)
			// Output numbers of this box, cut so the partials fit a window.
			oStep := ro.count
			if partial {
				// entries [o*nseg+segBase, (o+n-1)*nseg+segBase+nloc)
				oStep = min(oStep, (win/argPartial-nloc[i])/nseg+1)
			}
			if vec == "col" {
				if oStep -= oStep % vw; oStep == 0 {
					return nil, errArgReplan
				}
			}
			for ob := uint64(0); ob < ro.count; ob += oStep {
				on := min(oStep, ro.count-ob)
				o0 := ro.begin + ob
				var dst Slot
				var dstWin uint32
				if partial {
					first := o0*nseg + segBase[i]
					last := (o0+on-1)*nseg + segBase[i] + nloc[i]
					dst = slot(SlotTemporary, first*argPartial, (last-first)*argPartial)
					dstWin = uint32(first)
				} else {
					off, size := argWindow(ro.outLo, ro.outSpan, os)
					dst = slot(SlotOutput, off, size)
					dstWin = uint32(off / os)
				}
				items := on * nloc[i]
				if vec == "col" {
					items = on / vw * nloc[i]
				}
				plan.Steps = append(plan.Steps, Step{
					Kernel:   0,
					Bindings: []Slot{slot(SlotInput, inOff, inSize), dst},
					Params: Params{}.U32(uint32(o0), uint32(on), uint32(rj.begin), uint32(rj.count),
						uint32(segLen[i]), uint32(nloc[i]), uint32(segBase[i]), uint32(nseg), inWin, dstWin),
					Groups: groupsFor(items),
				})
			}
		}
	}
	if partial {
		cwg := pow2(min(uint32(argThreadWG), max(wgLimit, 1)))
		plan.Kernels = append(plan.Kernels, Kernel{
			Variant:    shaders.ArgMaxCombineName,
			Bindings:   2,
			ParamBytes: 20,
			Spec:       spec(cwg, outMode),
		})
		oStep := win / (nseg * argPartial)
		barrier := true
		for _, ro := range oRanges {
			outOff, outSize := argWindow(ro.outLo, ro.outSpan, os)
			for ob := uint64(0); ob < ro.count; ob += oStep {
				on := min(oStep, ro.count-ob)
				o0 := ro.begin + ob
				plan.Steps = append(plan.Steps, Step{
					Kernel:   1,
					Bindings: []Slot{slot(SlotTemporary, o0*nseg*argPartial, on*nseg*argPartial), slot(SlotOutput, outOff, outSize)},
					Params:   Params{}.U32(uint32(o0), uint32(on), uint32(nseg), uint32(o0*nseg), uint32(outOff/os)),
					Groups:   GridGroups(on, cwg, ctx.Limits),
					Barrier:  barrier,
				})
				barrier = false
			}
		}
	}
	if len(plan.Steps) > 2*argMaxSteps {
		return nil, hresult.Unsupported("InputTensor", "the operator would need %d dispatches", len(plan.Steps))
	}
	return plan, nil
}

func argB2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
