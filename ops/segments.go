package ops

// This file is the arithmetic of a reduction whose blocks are cut into
// segments, over plain numbers. A first pass reduces each (output,
// segment) pair into a partial of a fixed size in the temporary resource,
// nseg partials per output, output-major (output o's segment s at entry
// o·nseg + s); a combine pass then reduces each output's partials. A
// planner decides what to pass (its kernels' lanes, its partial's bytes,
// its device-class tuning); ARGMAX's (reduce_plan.go) is the first user.

// segmentCut is how the block boxes of a reduction are cut into segments.
type segmentCut struct {
	segLen, nloc, segBase []uint64 // per block box: segment length, segment count, number of its first segment
	nseg                  uint64   // segments per output, over all block boxes
}

// cutSegments cuts block boxes of blocks[i] positions into segments of at
// most maxLen positions, and of splitLen when that is positive and
// shorter; a box's segments are numbered after the previous box's.
func cutSegments(blocks []uint64, maxLen, splitLen uint64) segmentCut {
	var s segmentCut
	for _, count := range blocks {
		n := min(count, maxLen)
		if splitLen > 0 {
			n = min(splitLen, n)
		}
		s.segLen = append(s.segLen, n)
		s.nloc = append(s.nloc, ceilDiv(count, n))
		s.segBase = append(s.segBase, s.nseg)
		s.nseg += s.nloc[len(s.nloc)-1]
	}
	return s
}

// segmentCap is the longest segment one reducer takes when it may loop
// iters times over lanes lanes that each take per positions an
// iteration: a thread is (1, 1), a workgroup whose lanes split the
// segment (wg, 1), with vector loads of vw elements (wg, vw).
func segmentCap(iters, lanes, per uint64) uint64 { return iters * lanes * per }

// splitKLen is split-K's segment length for nout outputs of nred
// positions each: about groups segments in all, none shorter than minLen
// unless a whole block is.
func splitKLen(nout, nred, groups, minLen uint64) uint64 {
	want := max(groups/nout, 1)
	want = min(want, max(nred/minLen, 1))
	return ceilDiv(nred, want)
}

// lanesFor is the lanes that keep inFlight bytes loading when each lane
// loads laneBytes at once.
func lanesFor(inFlight, laneBytes uint64) uint64 { return ceilDiv(inFlight, laneBytes) }

// segmentsOfAtLeast is the most segments n units (positions, or bytes)
// make with at least minLen units each (minLen 0 counts as 1).
func segmentsOfAtLeast(n, minLen uint64) uint64 { return n / max(minLen, 1) }

// partialSegments is the most segments a block of blockBytes may be cut
// into for their partials, partialBytes each, to add at most 1/div of the
// bytes the block reads (div 0 counts as 1).
func partialSegments(blockBytes, partialBytes, div uint64) uint64 {
	return blockBytes / (partialBytes * max(div, 1))
}

// splitLen is the segment length that cuts a block of n positions into
// want segments (at most maxSegs), rounded up to a multiple of q (0
// counts as 1); 0, the block left whole, when that is fewer than two.
func splitLen(n, want, maxSegs, q uint64) uint64 {
	want = min(want, maxSegs)
	if want < 2 {
		return 0
	}
	q = max(q, 1)
	return ceilDiv(ceilDiv(n, want), q) * q
}

// partialsBytes is the temporary that nout outputs' nseg partials of
// partialBytes each take, saturating at 2^64−1 (a planner refuses far
// less).
func partialsBytes(nout, nseg, partialBytes uint64) uint64 {
	return satMul(satMul(nout, nseg), partialBytes)
}

// combineOutputs is how many outputs' partials, nseg of partialBytes
// each, one window of budget bytes holds: what one combine step takes;
// 0 when one output's do not fit.
func combineOutputs(budget, nseg, partialBytes uint64) uint64 {
	return budget / (nseg * partialBytes)
}

// firstPassOutputs is how many outputs one first-pass step over a block
// box of nloc segments may cover so that the partials it writes, entries
// [o·nseg + base, (o+n−1)·nseg + base + nloc), fit one window of budget
// bytes. One output's nseg partials must fit (combineOutputs ≥ 1).
func firstPassOutputs(budget, nseg, nloc, partialBytes uint64) uint64 {
	return (budget/partialBytes-nloc)/nseg + 1
}

// combineShape is the combine pass's workgroup for nseg partials per
// output, at most maxOn outputs a step, and whether a workgroup (rather
// than an invocation) combines each output. From groupMin partials on (0:
// never), and at least a subgroup of them so that no lane starts empty,
// a workgroup per output of the largest power of two of lanes up to nseg
// and groupWG reads them side by side, so that no lane loops over more
// than ceil(nseg / lanes); fewer partials are cheaper read in a loop by
// one invocation per output, in workgroups of the largest power of two up
// to threadWG lanes, or with exact (grids without empty workgroups, GPUs)
// sized so that fewer than one lane a workgroup is left without an output
// (8 outputs get 8 lanes, not 64). threadWG and groupWG are already
// within the device's workgroup limit.
func combineShape(nseg, maxOn uint64, threadWG, groupWG uint32, groupMin uint64, subgroup uint32, exact bool) (wg uint32, perGroup bool) {
	if groupMin == 0 || nseg < max(groupMin, uint64(subgroup)) {
		wg = pow2Floor(threadWG)
		if exact && maxOn > 0 {
			g := ceilDiv(maxOn, uint64(wg))
			wg = uint32(ceilDiv(maxOn, g))
		}
		return wg, false
	}
	return pow2Floor(uint32(min(nseg, uint64(groupWG)))), true
}

// pow2Floor is the largest power of two at most n (1 for 0).
func pow2Floor(n uint32) uint32 {
	p := uint32(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}

// ceilDiv is ⌈a / b⌉ for b > 0, without a + b − 1 overflowing.
func ceilDiv(a, b uint64) uint64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
