package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/hresult"
)

// This file is the layout toolkit the planners share: coalescing a strided
// tensor pair into few dimensions, cutting dimensions into boxes whose
// elements fit one binding, and the one rule by which a box becomes a
// binding window (a Slot). The device-class tuning knobs of every planner
// are here too, in one struct.

// dim is one coalesced dimension: its size, its input stride and its output
// stride in elements (0 on a reduced dimension, which the output does not
// have).
type dim struct {
	size uint64
	in   uint64
	out  uint64
}

// coalesce drops size-1 dimensions and merges neighbours whose strides make
// them one dimension, in row-major order within each side: kept dimensions
// when both the input and the output strides chain, reduced ones (reduced
// true) when the input strides chain. The row-major position inside a
// block is unchanged by merging reduced dimensions, so an index counted
// over the merged dimensions is the one DirectML defines.
func coalesce(sizes, inStrides, outStrides []uint32, reduced []bool) (kept, red []dim) {
	for i, s := range sizes {
		if s == 1 {
			continue
		}
		d := dim{size: uint64(s), in: uint64(inStrides[i]), out: uint64(outStrides[i])}
		if reduced[i] {
			if n := len(red); n > 0 && red[n-1].in == d.size*d.in {
				red[n-1] = dim{size: red[n-1].size * d.size, in: d.in}
				continue
			}
			d.out = 0
			red = append(red, d)
			continue
		}
		if n := len(kept); n > 0 && kept[n-1].in == d.size*d.in && kept[n-1].out == d.size*d.out {
			kept[n-1] = dim{size: kept[n-1].size * d.size, in: d.in, out: d.out}
			continue
		}
		kept = append(kept, d)
	}
	return kept, red
}

// product is the number of elements of ds.
func product(ds []dim) uint64 {
	n := uint64(1)
	for _, d := range ds {
		n *= d.size
	}
	return n
}

// spanIn and spanOut are the element offset of ds's last element from its
// first, in the input and in the output.
func spanIn(ds []dim) uint64 {
	var s uint64
	for _, d := range ds {
		s += (d.size - 1) * d.in
	}
	return s
}

func spanOut(ds []dim) uint64 {
	var s uint64
	for _, d := range ds {
		s += (d.size - 1) * d.out
	}
	return s
}

// satMul is a·b, saturating at 2^64−1 instead of wrapping.
func satMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// box is a contiguous run of row-major positions of one side (outputs, or
// positions in a block) that is also a box of the dimensions: a few outer
// dimensions fixed, one cut to a chunk, the rest whole; so its elements lie
// between two corner offsets.
type box struct {
	begin, count   uint64 // row-major positions
	inLo, inSpan   uint64 // element offsets of the first and last−first
	outLo, outSpan uint64
}

// boxes enumerates the boxes of one side: dimensions [0,peel) fixed at each
// coordinate, dimension peel (when chunk > 0) cut into chunks of chunk.
func boxes(ds []dim, peel int, chunk uint64) []box {
	var out []box
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
			n := product(inner)
			out = append(out, box{begin: begin * n, count: n, inLo: in, inSpan: spanIn(inner), outLo: o, outSpan: spanOut(inner)})
			return
		}
		d, rest := ds[peel], ds[peel+1:]
		n := product(rest)
		for c := uint64(0); c < d.size; c += chunk {
			l := min(chunk, d.size-c)
			b := append([]dim{{size: l, in: d.in, out: d.out}}, rest...)
			out = append(out, box{
				begin: (begin*d.size + c) * n, count: l * n,
				inLo: in + c*d.in, inSpan: spanIn(b),
				outLo: o + c*d.out, outSpan: spanOut(b),
			})
		}
	}
	rec(0, 0, 0, 0)
	return out
}

// maxPlanSteps bounds the windows (and so the dispatches) a planner may cut
// one side into; a plan that would need more is refused rather than built.
const maxPlanSteps = 1 << 16

// cut is how splitWindows cuts a kept/reduced pair: dimensions [0,peel)
// of a side fixed, dimension peel cut into chunks of chunk (0: whole).
type cut struct {
	keptPeel  int
	keptChunk uint64
	redPeel   int
	redChunk  uint64
}

// splitWindows decides the boxes so that every step's input window spans
// at most limIn bytes and its output window at most limOut bytes (es and
// os bytes an element): it peels outer dimensions (fixing them, one step
// per coordinate) and cuts one into chunks, on the kept side while that can
// suffice, else on the reduced side (whose cuts need partials).
func splitWindows(kept, red []dim, es, os, limBytes uint64) (cut, error) {
	limIn, limOut := limBytes/es-1, limBytes/os-1 // largest span in elements
	var c cut
	steps := uint64(1)
	for {
		inS, outS := spanIn(kept[c.keptPeel:])+spanIn(red[c.redPeel:]), spanOut(kept[c.keptPeel:])
		if inS <= limIn && outS <= limOut {
			return c, nil
		}
		// Prefer cutting the kept side: it needs no partials. Only when
		// the remaining block alone overflows a window is the block cut.
		var useKept bool
		switch {
		case outS > limOut:
			useKept = true // only kept dimensions move the output
		case c.keptPeel < len(kept) && spanIn(red[c.redPeel:]) <= limIn:
			useKept = true
		default:
			useKept = c.redPeel >= len(red)
		}
		var d dim
		if useKept {
			d = kept[c.keptPeel]
		} else {
			d = red[c.redPeel]
		}
		otherIn, otherOut := inS-(d.size-1)*d.in, outS
		if useKept {
			otherOut -= (d.size - 1) * d.out
		}
		if otherIn <= limIn && otherOut <= limOut {
			n := d.size
			if d.in > 0 {
				n = min(n, (limIn-otherIn)/d.in+1)
			}
			if useKept && d.out > 0 {
				n = min(n, (limOut-otherOut)/d.out+1)
			}
			if steps = satMul(steps, (d.size+n-1)/n); steps > maxPlanSteps {
				break
			}
			if useKept {
				c.keptChunk = n
			} else {
				c.redChunk = n
			}
			return c, nil
		}
		if steps = satMul(steps, d.size); steps > maxPlanSteps {
			break
		}
		if useKept {
			c.keptPeel++
		} else {
			c.redPeel++
		}
	}
	return cut{}, hresult.Unsupported("InputTensor", "covering the tensors with windows of at most %d bytes (one binding each) would take more than %d dispatches: the tensor is too large for the binding range, or its strides scatter its elements too widely", limBytes, maxPlanSteps)
}

// The binding-window rule. A step binds a window of a tensor as a Slot:
//
//   - the slot's offset is the byte offset of its first element rounded
//     down to align (4, or the width of the kernel's vector loads; a
//     multiple of the element size), and its end is the end of its last
//     element rounded up to 4, but never past the tensor's
//     TotalTensorSizeInBytes;
//   - gpu's Dispatch then rounds the descriptor's offset down to
//     minStorageBufferOffsetAlignment and its size up to 4.
//
// So a window whose elements span n bytes makes a descriptor of less than
// n + align + 4 + minStorageBufferOffsetAlignment bytes, and windowBudget
// is the most n may be for that to fit maxStorageBufferRange (or the
// context's BindingWindowCap). Whole-tensor slots (Offset 0, Size 0) follow
// the same budget with their TotalTensorSizeInBytes as n.

// bindingRange is the most bytes one descriptor may bind:
// maxStorageBufferRange, or the context's BindingWindowCap where lower.
func bindingRange(ctx *Context) uint64 {
	r := uint64(ctx.Limits.MaxStorageBufferRange)
	if ctx.BindingWindowCap > 0 {
		r = min(r, ctx.BindingWindowCap)
	}
	return r
}

// windowDescriptor is the most bytes the descriptor of an n-byte window
// binds: Dispatch rounds its offset down to the device's alignment and its
// size up to 4 (the rule above).
func windowDescriptor(ctx *Context, n uint64) uint64 {
	return (n+3)&^3 + max(ctx.Limits.MinStorageBufferOffsetAlignment, 4) - 4
}

// windowBudget is the most bytes the elements of one window may span for
// kernels that need window offsets aligned to align bytes.
func windowBudget(ctx *Context, align uint64) uint64 {
	r := bindingRange(ctx)
	slack := align + 4 + max(ctx.Limits.MinStorageBufferOffsetAlignment, 4)
	if r <= slack {
		return 0
	}
	return r - slack
}

// windowSlot is the slot of the elements at element offsets [lo, hi) of a
// tensor of es-byte elements and total bytes, by the rule above, and the
// element offset its first byte has in the tensor (what a shader subtracts
// from a tensor offset to address the window).
func windowSlot(kind SlotKind, index int, lo, hi, es, align, total uint64) (Slot, uint64) {
	off := lo * es &^ (align - 1)
	end := min((hi*es+3)&^3, max(total, off))
	return Slot{Kind: kind, Index: index, Offset: off, Size: end - off}, off / es
}

// errTooManySteps refuses a plan that would need more than maxPlanSteps
// dispatches, naming the field that makes it so.
func errTooManySteps(field string, steps, budget uint64) error {
	return &hresult.Error{Code: hresult.E_OUTOFMEMORY, Field: field, Rule: fmt.Sprintf(
		"covering the tensors with bindings of at most %d bytes would take %d dispatches, more than vkdml's limit of %d per operator", budget, steps, maxPlanSteps)}
}

// planeTensor is one tensor of a plane cut, as plain numbers: the bytes
// of an element, its batch and channel strides in elements, the elements
// one (batch, channel) plane spans (its last element's offset from its
// first, plus one) and the tensor's total bytes.
type planeTensor struct {
	es, nStride, cStride, plane, total uint64
}

// planeBytes is the bytes one of t's planes spans.
func (t planeTensor) planeBytes() uint64 { return t.plane * t.es }

// planeChunk is the planes one step covers: batches [n0,n1), channels
// [c0,c1).
type planeChunk struct{ n0, n1, c0, c1 uint32 }

// planeCut is how cutPlanes cuts the (n, c) planes of tensors that share
// N and C over steps.
type planeCut struct {
	whole  bool   // one chunk, every tensor bound whole
	axis   int    // 0: runs of whole batches; 1: runs of channels of one batch
	per    uint32 // batches, or channels, a chunk (0: a plane fits no window)
	cstep  uint32 // channels per batch of a chunk
	wide   int    // the first tensor one of whose planes fits no window, or -1
	steps  uint64 // chunks
	chunks []planeChunk
}

// cutPlanes covers the (n, c) planes of N batches of C channels of the
// tensors ts with chunks whose elements fit one window of budget bytes in
// every tensor: one chunk when every tensor fits whole; otherwise runs of
// whole batches when one batch fits, else runs of channels of one batch.
// The chunks are counted before they are made: past maxPlanSteps, or when
// a plane fits no window (wide), the cut has none, for the caller to
// refuse in its operator's words.
func cutPlanes(N, C uint32, ts []planeTensor, budget uint64) planeCut {
	whole := true
	for _, t := range ts {
		whole = whole && t.total <= budget
	}
	if whole {
		return planeCut{whole: true, per: N, cstep: C, wide: -1, steps: 1, chunks: []planeChunk{{0, N, 0, C}}}
	}
	if kn := planesPerWindow(ts, N, budget, C, 0); kn > 0 {
		cut := planeCut{per: kn, cstep: C, wide: -1, steps: ceilDiv(uint64(N), uint64(kn))}
		if cut.steps > maxPlanSteps {
			return cut
		}
		for n := uint64(0); n < uint64(N); n += uint64(kn) {
			cut.chunks = append(cut.chunks, planeChunk{uint32(n), uint32(min(uint64(N), n+uint64(kn))), 0, C})
		}
		return cut
	}
	kc := planesPerWindow(ts, C, budget, C, 1)
	cut := planeCut{axis: 1, per: kc, cstep: kc, wide: -1}
	if kc == 0 {
		for i, t := range ts {
			if t.planeBytes() > budget {
				cut.wide = i
				return cut
			}
		}
	}
	cut.steps = uint64(N) * ceilDiv(uint64(C), uint64(kc))
	if cut.steps > maxPlanSteps {
		return cut
	}
	for n := uint64(0); n < uint64(N); n++ {
		for ch := uint64(0); ch < uint64(C); ch += uint64(kc) {
			cut.chunks = append(cut.chunks, planeChunk{uint32(n), uint32(n + 1), uint32(ch), uint32(min(uint64(C), ch+uint64(kc)))})
		}
	}
	return cut
}

// planesPerWindow is how many units (axis 0: batches of C channels; axis
// 1: channels of one batch) one window of budget bytes holds in every
// tensor, at most units; 0 when not one does. A run of k units of stride s
// spans (k−1)·s elements plus one unit's.
func planesPerWindow(ts []planeTensor, units uint32, budget uint64, C uint32, axis int) uint32 {
	k := uint64(units)
	for _, t := range ts {
		span, stride := t.plane, t.cStride
		if axis == 0 {
			span, stride = uint64(C-1)*t.cStride+t.plane, t.nStride
		}
		bytes := span * t.es
		if bytes > budget {
			return 0
		}
		if s := stride * t.es; s > 0 {
			k = min(k, (budget-bytes)/s+1)
		}
	}
	return uint32(k)
}

// tuning is every planner's device-class cost model in one place. On a CPU
// device (lavapipe) a workgroup runs as loops over its subgroups and pays
// per lane for every load, so per-workgroup overhead dominates and long
// per-invocation loops are cheap; on a GPU the reverse holds.
type tuning struct {
	// argSmallWG: ARGMAX kernels whose lanes split a block first try a
	// workgroup of one subgroup (at least 4 lanes), and vec-col tries
	// argColWG4/argColWG8 lanes; a plan whose segments do not fit falls
	// back to the standard sizes. Measured on lavapipe: 16-byte loads
	// 5.2 GB/s at 8 lanes, 0.75 GB/s at 64; 4096x16384 FLOAT32 over axis 0
	// with 8 outputs per lane: 8 lanes ~120 ms, 2 lanes 115-160 ms, 4 lanes
	// ~240 ms; with 4 outputs per lane 4 lanes beat 8 by about 2x.
	// argColWG4 and argColWG8 range over 1..256: a workgroup of one lane
	// at least, and at most argmax.comp's WG_MAX (argGroupWG), to which
	// the planner clamps anyway.
	argSmallWG bool
	argColWG4  uint32 `tune:"1..256"`
	argColWG8  uint32 `tune:"1..256"`
	// argColSplitItems and argColSplitMinBytes split the blocks of the
	// kernels with one invocation per output (thread, vec-col) into
	// segments when the outputs alone give too few invocations: a
	// reduction over a non-innermost axis of 4096 columns is 4096 (or
	// 512, 8 per vec-col invocation) threads, each walking a whole column,
	// which leaves a GPU almost idle (measured on one: 4096x16384 axis 0 at
	// 4% of copy bandwidth). The first pass then runs over (output, segment)
	// pairs, outputs fastest so that neighbouring invocations still read
	// neighbouring elements, aiming at about argColSplitItems invocations
	// (a few hundred per compute unit of a large GPU, enough loads in
	// flight) with segments of at least argColSplitMinBytes bytes of one
	// output's block, so that the partials (16 bytes each, written once
	// and read once by the combine pass) add at most 6% to the bytes
	// moved. Both are first guesses, to be measured on a GPU
	// (scripts/gpu_compare.py). 0 never splits: on a CPU
	// device the outputs' loops already keep every core busy and partials
	// only add work. Range: 0..2^32 invocations (no device keeps more in
	// flight by orders of magnitude) and 0..2^32 bytes (a segment longer
	// than maxStorageBufferRange, at most 2^32-1, cannot be bound).
	argColSplitItems    uint64 `tune:"0..4294967296"`
	argColSplitMinBytes uint64 `tune:"0..4294967296"`
	// argVecNarrowRow and argVecNarrowCol let ARGMAX's vectorised kernels
	// (vec-row, vec-col) take 8-, 16- and 64-bit elements with 16-byte
	// loads, as they take 32-bit ones: on a GPU the scalar kernels' 1-, 2-
	// and 8-byte loads leave most of the bandwidth unused (measured:
	// 4096x16384 INT8 axis 0 at 5% of copy). On lavapipe vec-row is far
	// faster (median of 5, old vs new binary: 4096x4096 axis 1 INT8 167 ->
	// 20 ms, FLOAT16 263 -> 11 ms; 2048x4096 INT64 127 -> 14 ms; 64x65536
	// INT8 50 -> 1.8 ms), while vec-col was mixed (4096x4096 axis 0 INT8
	// 208 -> 65 ms but FLOAT16 108 -> 265 ms, 2048x4096 INT64 54 -> 152
	// ms), so lavapipe keeps its scalar column kernels.
	argVecNarrowRow, argVecNarrowCol bool
	// argVecColMinOutputs: ARGMAX's reductions over a non-innermost axis
	// take vec-col (several adjacent outputs per invocation, one 16-byte
	// load per row) only from this many outputs on, and thread (one output
	// per invocation, argThreadLoads rows' loads in flight) below. On the
	// H100 (scripts/gpu_compare.py --sweep, 2026-11-25) thread beat vec-col
	// on 4096x16384 over axis 0 for every type (FLOAT32 0.137 vs 0.153 ms,
	// INT32 0.108 vs 0.153, FLOAT16 0.111 vs 0.121, INT8 0.072 vs 0.088)
	// and on 16384x4096 (0.112 vs 0.153), while vec-col won on 1024x64x1024
	// over axis 1, a million outputs of 64 rows (0.47 vs 0.67 ms). 0 always
	// allows vec-col: lavapipe's fastest 32-bit column kernel. Range:
	// 0..2^32, DirectML's most elements in a tensor (any more is "never").
	argVecColMinOutputs uint64 `tune:"0..4294967296"`
	// argRowFilter: vec-row skips a load none of whose elements can
	// replace its component's best (argmax_vec_row.comp ROW_FILTER, a raw
	// interval from the best, tested with a subtraction and a minimum per
	// element), which takes the row scans' SPIR-V ops per element on the
	// h100 profile from 13.75 to 2.62 (FLOAT32), 15.62 to 3.12 (FLOAT16)
	// and 6.3-7.6 to about 3 (8/16-bit integers; internal/opcount): on the
	// H100 the 8-bit and FLOAT16 row scans ran at 54-69% of copy where
	// 32-bit integers ran at 95%, integer-ALU bound. Lavapipe keeps the
	// plain scan: with the filter its 4096x4096 rows ran slower (INT8
	// 2.8-4.3 -> 4.4-6.7 ms, FLOAT16 6.3-7.6 -> 8.5-8.8 ms).
	argRowFilter bool
	// argRowTexel: 32-bit vec-row scans in one-subgroup workgroups
	// (argmax_vec_rowsg1's shape) read their input as a uniform texel
	// buffer (shaders.ArgMaxVecRowTexelSG1), the same 32-byte vectors in
	// the same order, where the device's texel buffers can hold any
	// binding window (texelFits). Mesa 22.3's llvmpipe lowers a storage
	// buffer load to a loop over the lanes with a bounds-check branch per
	// lane and component (lp_bld_nir_soa.c emit_load_mem), and a texel
	// fetch to one branch-free 16-byte load per lane (lp_bld_sample_soa.c
	// lp_build_fetch_texel, lp_build_fetch_rgba_soa). Measured on
	// 2026-11-27 under load (BENCHMARKS.md, "lavapipe load paths,
	// measured"): a standalone MAX over 64M FLOAT32 read 2.8-4.9 GB/s
	// with 32-byte SSBO loads and 6.0-11.6 GB/s with four texel fetches a
	// trip (medians of 14 runs, two runs); with the knob on, vkdml's 64M
	// MAX, SUM INT32 and ARGMAX ran 1.4-4.6x faster (medians 2.1-3.6x)
	// and 4096x16384 MAX over axis 1 1.1-1.5x. A GPU keeps its storage
	// buffers: it was not measured there.
	argRowTexel bool
	// reduceFloatTexel: the group first passes of REDUCE's FLOAT32 float
	// functions (SUM, AVERAGE, L1, LOG_SUM, SUM_SQUARE, L2; rows, whole
	// tensors, split-K) read their input as a uniform texel
	// buffer (the ReduceFloatName variants ending in
	// shaders.ReduceFloatTexel, argmax.comp TEXEL), where texelFits: a
	// contiguous block a 16-byte texel of four elements at a time, each a
	// branch-free fetch, for argRowTexel's reason. The sum is exact, so
	// the bits are the storage-buffer kernels'. Measured on lavapipe
	// under load (BENCHMARKS.md, "Exact FLOAT32 SUM through texel
	// buffers"): 64M whole 2.3-4.4x faster; columns (the thread kernel)
	// reading a texel an element were not faster and keep storage
	// buffers. LOG_SUM_EXP keeps them too: its exp, not its loads, bounds
	// it, and with texels 256x16384 over axis 1 took 150 ms against 123
	// (2026-11-28, one run of 3 repeats each), while its texel pipeline
	// compiled in 17 s against 6. A GPU keeps its storage buffers.
	reduceFloatTexel bool
	// poolVecWG and poolVecGroups shape maxpool_vec.comp's grid: on a CPU
	// a few hundred workgroups of a few lanes each, every one streaming
	// through its own part of the tensors. Range: 1..1024 lanes (a
	// workgroup needs one; no device runs more than 1024, and the planner
	// clamps to the device's limit) and 1..2^32 workgroups (one at least:
	// the planner divides the quads among poolVecWG*poolVecGroups lanes;
	// gridFor spreads any count over the device's grid).
	poolVecWG     uint32 `tune:"1..1024"`
	poolVecGroups uint64 `tune:"1..4294967296"`
	// exactGrid: dispatches use ExactGrid (x up to the device's limit, no
	// empty workgroups) rather than GridGroups' 65535-wide rows, which
	// launch 131,070 workgroups for 65,536 items. Lavapipe keeps
	// GridGroups: its grids were measured that way, and an empty
	// workgroup costs it nothing but a loop test.
	exactGrid bool
	// argCombineGroupMin: from this many partials per output on, ARGMAX's
	// combine pass gives each output a workgroup whose lanes read the
	// partials side by side (argmax_combine_group.comp) instead of one
	// invocation reading them in a serial loop, which on an H100 costs a
	// dependent L2 round trip (~150 ns) per partial: ~155 us for split-K's
	// 1024. 0 keeps the serial combine: on lavapipe a workgroup runs on one
	// thread, so its lanes gain nothing over one invocation's loop.
	// Range: 0..16384 (argIters), the most partials a combine pass takes.
	argCombineGroupMin uint64 `tune:"0..16384"`
	// argTicketOutputs: where a split's combine pass would be one
	// workgroup over at most this many outputs (a whole tensor, split-K's
	// few rows), the first pass's last workgroup to finish combines the
	// partials instead, through a ticket in the persistent resource
	// (argmax_vec_row.comp TICKET; ticketCombine): one dispatch and no
	// barrier in place of two, which on the H100 cost about 5-8 us for
	// the second dispatch on a 45-200 us stream (issue 29, 2026-11-25).
	// 0 never: on lavapipe a dispatch costs little beside its threads'
	// start, and its plans keep the shape they were measured with.
	// Range: 0..256, the lanes of the largest first-pass workgroup
	// (argGroupWG), one output each in the serial combine.
	argTicketOutputs uint64 `tune:"0..256"`
	// computeUnits is the compute units planners assume when the device
	// reports none (caps.Limits.ComputeUnits, from VK_NV_shader_sm_builtins
	// and the like): a mid-sized discrete GPU's. Range: 1..65536, a
	// device has one at least, and the largest have a few hundred.
	computeUnits uint64 `tune:"1..65536"`
	// argRowGroupsPerCU and argRowSplitMinBytes: when the kernels whose
	// workgroups split a block (group, vec-row) would get fewer than
	// argRowGroupsPerCU workgroups per compute unit from the outputs
	// alone (128 rows of 256,000 are 128 workgroups on an H100's 132 SMs:
	// ~8 KiB in flight per SM where ~16 KiB are needed), each block is cut
	// into segments of at least argRowSplitMinBytes, reduced into partials
	// and combined, as split-K does for the fewest outputs. 0 never cuts:
	// lavapipe's threads are busy with one workgroup each. On the H100
	// (gpu_compare.py --sweep, 2026-11-25) 32 per SM ran 128x256000
	// FLOAT32 over axis 1 in 0.052 ms where 8 took 0.066 (torch 0.066),
	// and no other long-row or whole-tensor case moved. Range: 0..4096
	// workgroups per compute unit (an SM keeps 32 resident at most) and
	// 0..2^32 bytes (longer segments than a binding holds cannot be bound).
	argRowGroupsPerCU   uint64 `tune:"0..4096"`
	argRowSplitMinBytes uint64 `tune:"0..4294967296"`
	// argColInFlightPerCU and argColPartialDiv size the column split from
	// the bytes the device needs in flight, in place of argColSplitItems
	// and argColSplitMinBytes (whose per-output minimum left 8- and 16-bit
	// columns with 8 to 16 segments: 128-512 KiB in flight on an H100,
	// which needs ~2 MiB): the kernels with one invocation per output
	// (thread, vec-col) get enough (output, segment) lanes for
	// argColInFlightPerCU bytes per compute unit at the bytes one lane
	// loads at once, with partials (16 bytes per segment and output) at
	// most 1/argColPartialDiv of the bytes read. 0 keeps the older rule.
	// On the H100 (gpu_compare.py on the 14 column cases, torch in the
	// same run, 2026-11-25), 16384, 32768 and 65536 bytes per SM summed
	// regrets of 15.80, 14.74 and 15.77 over the cases' best: 32768 gave
	// 4096x16384 FLOAT32 over axis 0 0.115 ms (16384: 0.138, 65536:
	// 0.135) and 4097x16383 0.117 ms (0.140, 0.141), while 8- and 16-bit
	// columns ran best at 16384 (UINT8 0.070 vs 0.078 ms, INT16 0.075 vs
	// 0.084) and 64-bit ones at 65536 (0.199 vs 0.204 ms). Range:
	// 0..2^30 bytes per compute unit (a thousand times an H100 SM's 256 KiB
	// register file, and no product with the compute units overflows) and
	// 0..65536 (0 counts as 1: partials of at most all the bytes read).
	argColInFlightPerCU uint64 `tune:"0..1073741824"`
	argColPartialDiv    uint64 `tune:"0..65536"`
	// argColMinInFlight (bytes) overrides argColPartialDiv's cap where the
	// cap would leave fewer bytes loading: 8-bit columns, whose lanes load
	// 8 bytes each, reach 2 MiB only with partials of 12.5% of the bytes
	// read. On the H100 (2026-11-25), UINT8 and INT16 columns ran best at
	// 16 segments (0.070 and 0.075 ms) against 32 (0.078, 0.084). Issue
	// 29 sets argColPartialDiv to 40: partials written and read again
	// within 5% of the bytes read (vkdml plan --check's partial_bytes).
	// Range: 0..2^30 bytes (argColBigRead times it does not overflow).
	argColMinInFlight uint64 `tune:"0..1073741824"`
	// argColLoads: 4 gives 8-, 16- and 64-bit vec-col lanes four rows'
	// loads in flight (argmax_vec_col.comp LOADS), so that fewer segments
	// (fewer partials) reach the bytes in flight; 0 or 1 one row's. Only
	// these values: the shader has no other variant, and 2 or 3 would
	// silently run as 1.
	argColLoads uint32 `tune:"0,1,4"`
	// argCol8Y: 8-bit integer columns over one reduced axis take
	// vec-col8y (argmax_col8y.comp): 32 lanes of a workgroup split an
	// item's rows and combine in shared memory, so the bytes in flight
	// need few segments or none (4096x16384 INT8 over axis 0 on the h100
	// profile: 16 segments, partials of 12.5% of the bytes read, become
	// one dispatch without partials), and a SWAR filter on whole words
	// takes the scan from 7.06 SPIR-V ops per byte (the thread kernel) to
	// about 2.4 (internal/opcount). A GPU-only choice: lavapipe keeps its
	// scalar column kernels, and a shared-memory combine per item costs
	// its one-thread workgroups more than the scan saves.
	argCol8Y bool
	// argCol8Phased: with argCol8Y, 8-bit columns of one kept dimension
	// whose length or row stride is not a multiple of 16 bytes take
	// vec-col8y's PHASED variant (five aligned 4-byte words a row, the
	// bytes at a lane-constant phase) rather than the thread kernel's
	// byte loads: 4097x16383 INT8 over axis 0 on the h100 profile goes
	// from 7.03 SPIR-V ops per byte and partials of 13.3% of the bytes
	// read to within the budget of 4 (internal/opcount). GPU-only, as
	// argCol8Y.
	argCol8Phased bool
	// argRowSubgroups: vec-row gives each (output, segment) a subgroup
	// rather than a workgroup when segments are at most half a workgroup
	// of vector loads (subgroupRows): 65,536 rows of 1,000 floats left
	// half of every 256-lane workgroup idle. Lavapipe keeps a workgroup
	// per row (its small one-subgroup workgroups do the same job).
	argRowSubgroups bool
	// argThreadLoads: 8 gives the scalar one-invocation-per-output kernel
	// (thread; the column layouts vec-col cannot take, such as rows of
	// 16,383) eight block positions' loads in flight per lane (argmax.comp
	// LOADS): one 1- to 8-byte element per resident lane is at most 270
	// KiB to 2 MiB on an H100, short of the ~2 MiB it needs. 0 or 1: one.
	// Only these values: the shader has no other variant.
	argThreadLoads uint32 `tune:"0,1,8"`
	// poolPreloadTaps: max pooling's direct kernel loads an interior
	// window's taps before comparing them (maxpool.comp PRELOAD) for
	// windows of at most this many taps (and shaders.MaxPoolPreloadTaps):
	// one 4-byte tap at a time per resident lane is 1 MiB in flight on an
	// H100, a 3x3 window's nine 9 MiB. 0 never: lavapipe's lanes gain
	// nothing from holding the window. Range: 0..16
	// (shaders.MaxPoolPreloadTaps), the most taps the shader's array holds.
	poolPreloadTaps uint32 `tune:"0..16"`
	// poolGrid: max pooling's direct strategy runs maxpool_grid.comp, one
	// invocation per output on a 3D grid of (columns, rows, planes) with
	// tiles sized for an exact grid, in place of maxpool.comp's
	// grid-stride loop and its div/mod chain for each output's
	// coordinates. Both scan a window with maxpool_window.glsl, so
	// h100-profile op counts per output of a 3x3 window are close: 163
	// (grid) vs 154 (maxpool.comp) with UINT64 indices, 137 vs 127
	// without. Off for every class until a GPU times it: the measured
	// maxpool.comp (before its window scan got lighter: 265 and 209
	// ops) ran 1.15-1.35x torch on the H100, and
	// gpu_compare.py --sweep tries poolGrid=true (VKDML_TUNING or --tune
	// poolGrid=true select it meanwhile). Lavapipe keeps maxpool.comp: its
	// plans were measured that way.
	poolGrid bool
	// poolGridOuts: maxpool_grid.comp gives each lane a run of this many
	// outputs of a row (one of shaders.MaxPoolRunOuts; other values: one
	// output a lane) where the window preloads: the run's windows share
	// the input columns they overlap (a 3x3 window of stride 2 reads 9
	// columns for 4 outputs, not 12) and each element's order key is taken
	// once, which brings the h100 profile's counted ops per output of a
	// 3x3 window from 127-154 (maxpool.comp) to 47-63 where FLOAT32 is
	// compared natively (a device fact: the float controls) and 80-94
	// with the order key: 2.2-3.5 and 3.4-5.0 ops per byte moved against
	// the budget of 4 (internal/opcount). 0 on a CPU: lavapipe keeps
	// maxpool.comp, the plans its timings were taken with (on 2026-11-27
	// the shared machine's load, 5-9 on 2 cores, made runs and
	// maxpool.comp indistinguishable there).
	poolGridOuts uint32 `tune:"0,1,2,4,8"`
	// poolGridMinLanes: planes whose tile would have fewer lanes (a few
	// outputs a plane) keep maxpool.comp, whose grid-stride loop packs
	// many planes into one workgroup. Range: 0..1024, the most lanes a
	// workgroup has on any device (more would refuse every plane).
	poolGridMinLanes uint32 `tune:"0..1024"`
	// topKLaneWG is the lane strategy's workgroup size (at most the
	// device's and shaders.TopKSortMax over K rounded up to a power of
	// two; rounded down to a power of two). On lavapipe (128x256000
	// FLOAT32 K=1, 2026-11-27, loaded 4-6 on 2 cores) 8 lanes (one
	// subgroup, as ARGMAX's vec-row has) ran in 140 ms where 64 lanes
	// took 645, both with 16-byte loads. GPUs take 256: 64 lanes of
	// 16-byte loads on 128 rows of 256,000 (8 segments a row) kept 1 MiB
	// loading on the h100 profile, under vkdml plan --check's 2 MiB, and
	// on 8 rows of 32,000 the merges' idle lanes were 2.1% of a plan of
	// few first-pass lanes (256: 4 MiB and 0.6%).
	topKLaneWG uint32 `tune:"1..1024"`
	// topKLaneFitMinWG: where non-zero, the lane strategy's workgroup
	// keeps within the lanes a row has work for (its 16-byte vectors
	// after a head; topk_plan.go topKRowLanes), rounded down to a power
	// of two but not under this (a GPU's subgroup: lanes under it idle
	// anyway). On the h100 profile 1024x1000 in workgroups of 256 left
	// 2.7% (FLOAT32), 51.6% (FLOAT16) and 76.2% (INT8) of the lanes
	// empty, over vkdml plan --check's 1%; 128, 64 and 32 leave none.
	// The radix strategy's 16-byte scans too, not under its least 64
	// (1024x1000 FLOAT16 K=1000: 64 lanes, not 1024 with 900 empty).
	// Lavapipe: 0 (its 8 lanes; its plans were timed that way).
	// Range: 0..1024.
	topKLaneFitMinWG uint32 `tune:"0..1024"`
	// topKMaximaMinK and topKMaximaMaxK: TOP_K's 32-bit rows of input
	// stride 1 with K in [topKMaximaMinK, topKMaximaMaxK] take the
	// maxima strategy (topk_maxima.comp: one dispatch, one workgroup a
	// row, of one full subgroup: topk_plan.go topKMaximaWG) where its
	// bounds allow (topk_plan.go topKMaximaGroupVecs: up
	// to about 32K positions at K = 64, 64K at K = 32) and topKTexel
	// holds. 0 never (the GPUs: a workgroup a row leaves them idle).
	// Range: 0..2048.
	topKMaximaMinK uint32 `tune:"0..2048"`
	topKMaximaMaxK uint32 `tune:"0..2048"`
	// topKLaneSplitMinLen: the lane strategy cuts rows of at least this
	// many positions into split-K segments when there are too few rows to
	// fill the device (splitKLen); shorter rows are cut by the iteration
	// bound alone (topKIters: K = 1 keeps one segment up to about 65,000
	// positions), so a row is one workgroup and no merge passes run. GPUs
	// take 0 (always split: 8 rows would be 8 workgroups). On lavapipe
	// (2026-11-28, load 1-2 on 2 cores) 8x32000 FLOAT32 K=1 took 0.20 ms
	// in one dispatch where 7 segments a row and three merges took 0.39,
	// 1x32000 0.09 against 0.15, 1x65000 0.10 against 0.46: a merge pass
	// is a dispatch's fixed cost (~0.04 ms) and the lanes' scans are as
	// fast on one workgroup a row as ARGMAX's vec-row (which does not
	// split such rows either). Range: 0..2^32 positions.
	topKLaneSplitMinLen uint64 `tune:"0..4294967296"`
	// topKFilterVec: the filter strategy's lanes test a 16-byte vector
	// of four positions a chunk on 32-bit rows of input stride 1
	// (topk_select.comp), where one position a lane capped a GPU's bytes
	// in flight at 4 per resident lane (1 MiB on an H100, under vkdml
	// plan --check's 2 MiB); rows of fewer vectors than the workgroup's
	// lanes keep one position a lane, which leaves none idle
	// (topk_plan.go cutFilter). Lavapipe keeps one position: its plans
	// were timed that way.
	topKFilterVec bool
	// topKScan8: the thread and lane strategies' scans of 8-bit integer
	// rows of input stride 1 read 16-byte vectors of sixteen positions
	// and test them with SWAR gates (topk_select.comp SCAN8), where one
	// byte a load counted 7.4-13 SPIR-V ops per byte on the h100
	// profile (the budget is 4; BENCHMARKS.md TOP_K). The filter
	// strategy's 8-bit rows take the byte select instead where it fits
	// (topKSegments.cutByteSelect). Lavapipe keeps the byte scans: its
	// plans were timed that way.
	topKScan8 bool
	// topKTexel: the lane and radix strategies read 32-bit rows of input
	// stride 1 through a uniform texel buffer (topk_select.comp TEXEL),
	// where the device's texel buffers hold a binding window (texelFits):
	// the same loads in the same order, for lavapipe, where a texel fetch
	// has no per-lane loop (argRowTexel's reason; BENCHMARKS.md "TOP_K's
	// texel scans" has the timings). GPUs keep storage buffers.
	topKTexel bool
	// topKRadixMinLen and topKRadixMinK: TOP_K rows of at least
	// topKRadixMinLen positions with K in [topKRadixMinK,
	// shaders.TopKSortMax] take the radix strategy (a radix select on the
	// order key, then a sort of the entries left; topk_plan.go) in place
	// of lane, filter and sort. 0 never. Range: 0..2^32 positions (a row
	// is at most 2^32-1 long) and 0..2048 (shaders.TopKSortMax). GPUs
	// take radix (with topKRadixSplit) from 65,536 positions and K = 256,
	// not timed there yet: on the h100 profile, 128x256000 FLOAT32
	// K=1024 with filter (16-byte vectors, topKFilterVec) is cut into 106
	// segments a row by the iteration bound of its sorts (111 MB of runs
	// for 131 MB read), and sort (K=2048) wrote twice the input in runs;
	// radix scans 16-byte vectors (4 MiB in flight) and writes K entries
	// for each of 8 segments a row. Below K = 256 filter's one scan is
	// kept (K=50: 41 segments, 2.6 MiB in flight, 2 MB of runs). Radix's
	// BytesRead counts one scan of the row; it scans two or three times
	// on random floats (more on rows of few distinct values).
	topKRadixMinLen uint64 `tune:"0..4294967296"`
	topKRadixMinK   uint32 `tune:"0..2048"`
	// topKRadixVecOnly: the planner takes radix (topKRadixMinLen) only
	// for rows its scans read 16-byte vectors of (32- and 16-bit elements
	// of input stride 1). On the h100 profile the scalar scans of
	// 128x256000 FLOAT16 counted 17-21 SPIR-V ops per byte (the budget
	// is 4; filter 5-6) with 512 KiB in flight; its 16-byte scans
	// (topk_select.comp VEC8, testing eight keys made two to a word)
	// 2.9-3.5.
	topKRadixVecOnly bool
	// topKRadixVec2: the radix scans of 64-bit rows of input stride 1
	// read 16-byte vectors of two positions and test both keys' bits
	// that may pass at once (topk_select.comp SCAN64), where the scalar
	// scans counted 4.3 SPIR-V ops per byte on the h100 profile
	// (128x256000 INT64 K=2048; the budget is 4) and topKRadixVecOnly
	// kept 64-bit rows off radix: their filter runs and sort merges
	// wrote and read 19-3200% of the input in partials. Lavapipe keeps
	// the scalar scans its plans were timed with.
	topKRadixVec2 bool
	// topKRadixStrided: the radix scans' lanes read every WG-th 16-byte
	// vector from their own (topk_select.comp lane_vectors, FLAGS
	// STRIDED): a subgroup's loads are neighbouring vectors, and every
	// lane has work wherever a segment has WG vectors or more, where
	// blocks of ceil(vectors / WG) left the last lanes idle (8x32000
	// FLOAT32 K=1024 on h100: 24 of 1024, 2.3%, over the 1% goal).
	// Lavapipe keeps the blocks it was timed with (a lane's loads stay
	// in its cache lines).
	topKRadixStrided bool
	// topKRadixSplit: the radix strategy cuts rows into split-K segments
	// (as lane and filter do) when there are too few rows to fill the
	// device. Lavapipe keeps a row per workgroup: its few threads are
	// busy with a handful of rows, and every segment's K entries would
	// have to be merged again.
	topKRadixSplit bool
	// topKRadixWG is the radix strategy's workgroup size (at most the
	// device's; rounded down to a power of two). GPUs take 1024: where the
	// runs' budget (topKRunPercent) leaves a row one segment, 128 rows of
	// 256 lanes loading 16 bytes each kept 512 KiB in flight on the h100
	// profile (vkdml plan --check asks 2 MiB), 1024 lanes 2 MiB.
	topKRadixWG uint32 `tune:"1..1024"`
	// topKRunPercent: the split-K segments of a row are at most as many as
	// keep the bytes of its runs, written by the first pass and read and
	// written by the merges, within this percentage of the row's input
	// bytes (topk_plan.go runBytes), and where the strategy chosen
	// cannot cut segments that long (filter's and sort's are bounded by
	// their sorts) and radix can run the case, the planner takes radix.
	// A run holds K entries of 8 or 12 bytes whatever the segment's
	// length, so on the h100 profile 128x256000 FLOAT16 K=1024 with
	// filter's 768-position segments wrote 262 MB of runs for 65 MB of
	// input and its merges moved 940 MB more (that case still misses:
	// radix does not take 16-bit rows on GPUs, topKRadixVecOnly, until
	// its scans of them read 16-byte vectors). GPUs take vkdml plan
	// --check's partial_bytes goal, 5; 0 no bound (lavapipe: its plans
	// were timed that way). Range: 0..100.
	topKRunPercent uint32 `tune:"0..100"`
	// topKFilterMinWG: the filter strategy's workgroups have at least
	// this many lanes (at most 256 and the device's; by default K's
	// power of two over 2): 64-bit rows load 8 bytes a lane, and on the
	// h100 profile 128x256000 INT64 K=50 in workgroups of 32 kept 1632
	// KiB in flight, under vkdml plan --check's 2 MiB (64: 2 MiB, and
	// segments of 8256 in place of 5088). 0 or 1: K's. Range: 0..256.
	topKFilterMinWG uint32 `tune:"0..256"`
	// topKRadixSortMul: the radix strategy stops its digit passes once
	// the entries left fit a sort of min(topKRadixSortMul times K rounded
	// up to a power of two, shaders.TopKSortMax) entries; 0 counts as
	// shaders.TopKSortMax. A smaller sort for more passes (scans of the
	// segment). Range: 0..2048.
	topKRadixSortMul uint32 `tune:"0..2048"`
	// topKRadixRankMax: the radix strategy orders at most this many
	// gathered entries by ranking (each lane counts the entries before
	// its own: n^2 compares in all, reading shared memory in the same
	// order in every lane) and more by a bitonic sort (n log^2 n
	// compare-exchanges at scattered addresses, a barrier per stage).
	// Range: 0..2048 (shaders.TopKSortMax, the most it gathers).
	// On lavapipe (8x32000 FLOAT32, 2026-11-27, two rounds on a machine
	// loaded 8 on 2 cores): topKRadixSortMul 1 ran K=1024 in 15-24 ms
	// where 0 (up to 2048 gathered) took 41-58; ranking 2048 entries ran
	// K=2048 in 34-80 ms where the sort took 22-28, and ranking 1024
	// entries K=1024 in 13-24 where the sort took 40. Workgroups of 64
	// and 256 lanes were within the noise of each other.
	topKRadixRankMax uint32 `tune:"0..2048"`
	// topKRadixSample: the radix strategy first tries a threshold from a
	// sample of every step-th position (topk_select.comp radix_sampled:
	// histogram passes over the sample, one gather scan of the segment,
	// the exact passes only where that gather holds fewer than K or more
	// than shaders.TopKSortMax entries), for elements of up to 32 bits:
	// step is the largest power of two up to topKRadixSample whose
	// gather is expected to keep at most topKRadixSampleCap entries
	// (topk_plan.go). 0 or 1 never. Range: 0..4096 and 0..2048
	// (shaders.TopKSortMax).
	topKRadixSample    uint32 `tune:"0..4096"`
	topKRadixSampleCap uint32 `tune:"0..2048"`
	// topKRadixFloor: the radix strategy first takes a floor from a
	// sample of every topKRadixFloor-th position (topk_select.comp
	// radix_select; elements of up to 32 bits), a score that at least K
	// entries reach on random data, and the later passes (the denser
	// sample's, the exact ones) count only the entries at the floor, each
	// scan testing a 16-byte vector on one compare. 0 or 1 never (the
	// GPUs' plans, not timed there). Range: 0..4096.
	topKRadixFloor uint32 `tune:"0..4096"`
	// topKRadixFloorShare: the floor (and the texel scans' blocks) only
	// where at most 1/topKRadixFloorShare of a segment's positions are
	// expected at it (topk_plan.go topKRadixFloorPays); 0: wherever
	// topKRadixFloor asks. Range: 0..65536.
	topKRadixFloorShare uint32 `tune:"0..65536"`
	// topKRadixBucketMin: the radix strategy orders at least this many
	// gathered entries of up to 32-bit elements in buckets of equal
	// score ranges (topk_select.comp bucket_rank_emit: each entry ranked
	// against its bucket's few, not all of them), where their spread
	// allows, before topKRadixRankMax's choice. 0 never (the GPUs'
	// plans, not timed there). Range: 0..2048.
	topKRadixBucketMin uint32 `tune:"0..2048"`
	// topKSplitMinLen: radix rows of at least this many positions whose
	// plan takes a sampled threshold (topKRadixSample; where
	// topKRadixSampleCap allows none, as at K = 2048, the split select's
	// own of up to topk_plan.go topKSplitSampleCap entries) and reads
	// 32-bit rows through texels (topKTexel) run the split select instead: a
	// threshold dispatch, a gather of the texels at or above it and a
	// ranking dispatch, each kernel carrying only its own code, and the
	// rows whose sample fails redone exactly by three more (topk_split.glsl;
	// topk_plan.go emitSplit). On lavapipe a kernel costs its whole code
	// once per SIMD row whether a branch is taken or not (BENCHMARKS.md
	// "TOP_K radix on 128x256000: where the time goes"). 0 never (GPUs:
	// one row a workgroup). The CPU class's 8192: lavapipe, one thread,
	// the split was faster than topk_select.comp's radix from 8x4096 up
	// (8x32000 K=1024 2.9 -> 1.5 ms, K=2048 6.3 -> 2.2; BENCHMARKS.md
	// "TOP_K split select takes 8x32000"), but one row of 4096 at K=1024
	// was slower on two threads (0.37 against 0.31 ms: six dispatches
	// for one workgroup's work). Range: 0..2^32 positions.
	topKSplitMinLen uint64 `tune:"0..4294967296"`
	// topKSplitWG is the split select's gather workgroup size and so its
	// regions a row (topk_gather.comp; rounded down to a power of two, at
	// most shaders.TopKSplitMaxRegions): lavapipe's 8, one SIMD row, as
	// the lane strategy's topKLaneWG. The thresholds (topk_thresh.comp)
	// take it too where a lane's trips keep within the bound
	// (topk_plan.go cutRadix), else twice it, up to 64.
	topKSplitWG uint32 `tune:"1..64"`
	// topKSplitThreshGather: the split select's sampled threshold and the
	// sampled rows' gather run in one dispatch (topk_thresh.comp GATHER
	// 1) where they take the same lanes and a lane's trips of both keep
	// within the bound (topk_plan.go cutRadix), rather than two. On two
	// threads llvmpipe's dispatch costs a wake of its threads and the
	// rows' imbalance: 8x32000, 30 interleaved rounds of 10 runs, median
	// of minimums K=1024 0.78 against 0.88 ms, K=2048 1.14 against 1.25.
	topKSplitThreshGather bool
}

var (
	tuningGPU = tuning{argColSplitItems: 1 << 17, argColSplitMinBytes: 512, argVecNarrowRow: true, argVecNarrowCol: true, argVecColMinOutputs: 1 << 18, argRowFilter: true, poolVecWG: 64, poolVecGroups: 1 << 16, exactGrid: true,
		argCombineGroupMin: 32, argTicketOutputs: 64, computeUnits: 64, argRowGroupsPerCU: 32, argRowSplitMinBytes: 8192,
		argColInFlightPerCU: 32768, argColPartialDiv: 40, argColMinInFlight: 2 << 20, argColLoads: 4, argCol8Y: true, argCol8Phased: true,
		argRowSubgroups: true, argThreadLoads: 8, poolPreloadTaps: 16, poolGridMinLanes: 32, poolGridOuts: 8,
		argColWG4: 4, argColWG8: 8, // unused without argSmallWG; in range
		topKLaneWG: 256, topKFilterVec: true, topKScan8: true, topKRadixMinLen: 65536, topKRadixMinK: 256, topKRadixVecOnly: true, topKRadixVec2: true, topKRadixStrided: true, topKRadixSplit: true, topKRadixWG: 1024, topKRadixRankMax: 256, topKSplitWG: 8,
		topKRunPercent: 5, topKFilterMinWG: 64, topKLaneFitMinWG: 32}
	tuningCPU = tuning{argVecNarrowRow: true, argSmallWG: true, argRowTexel: true, reduceFloatTexel: true, argColWG4: 4, argColWG8: 8, poolVecWG: 8, poolVecGroups: 256,
		computeUnits: 64, // unused without the splits; in range
		topKLaneWG:   8, topKLaneSplitMinLen: 65537, topKTexel: true, topKRadixMinLen: 4096, topKRadixMinK: 17, topKRadixWG: 64, topKRadixSortMul: 1, topKRadixRankMax: 1024,
		topKRadixSample: 64, topKRadixSampleCap: 1400, topKRadixBucketMin: 256, topKRadixFloor: 64, topKRadixFloorShare: 32,
		topKSplitMinLen: 8192, topKSplitWG: 8, topKSplitThreshGather: true, topKMaximaMinK: 17, topKMaximaMaxK: 64}
)

// tuningFor returns the tuning of a device type.
func tuningFor(t caps.DeviceType) *tuning {
	if t == caps.DeviceTypeCPU {
		return &tuningCPU
	}
	return &tuningGPU
}
