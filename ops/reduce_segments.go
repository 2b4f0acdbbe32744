package ops

import (
	"fmt"
	"math/bits"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
)

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
	maxLen, colSplit := segmentCap(argIters, lanes, per), split > 0 && strategy != ArgStrategySplitK
	if l.tree {
		maxLen, split = l.treeSegmentLen(lanes, split), 0
	}
	s := &argSegments{segmentCut: cutSegments(blocks, maxLen, split), colSplit: colSplit}
	s.partial = s.nseg > 1 || strategy == ArgStrategySplitK
	if s.partial {
		s.temp = partialsBytes(nout, s.nseg, l.partial)
	}
	return s
}

// treeSegmentLen is the segment length of MULTIPLY's canonical tree
// (rule 42, reduce_fmul.comp) for a reducer of lanes lanes and the split
// length split (0: none): a power of two L, so that a segment starting at
// a multiple of L is one node of the tree and the combine pass, taking the
// partials in order, builds the nodes above; every block box starts at a
// multiple of L (the boxes' segments are numbered on). A lane scans at
// most argIters/2 positions, leaving lavapipe's loop limit room for the
// scan's stack merges (one per position at most). A block no longer than
// L is one segment, the whole tree.
func (l *argLayout) treeSegmentLen(lanes, split uint64) uint64 {
	n := pow2Floor64(segmentCap(argIters/2, lanes, 1))
	if split > 0 {
		n = min(n, pow2Floor64(split))
	}
	for _, r := range l.blocks {
		for r.begin%n != 0 {
			n /= 2
		}
	}
	return n
}

// pow2Floor64 is the largest power of two at most n (1 for 0).
func pow2Floor64(n uint64) uint64 {
	if n == 0 {
		return 1
	}
	return 1 << (bits.Len64(n) - 1)
}

// argColBigRead: a column reduction reading at least this many times
// tuning.argColMinInFlight keeps that many bytes loading whatever its
// partials cost (2 MiB in flight for 64 MiB read: vkdml plan --check's
// bytes_in_flight goal).
const argColBigRead = 32

// colSplitLen is the segment length for a kernel with one invocation per
// output (or per vw outputs, vec-col) when the outputs alone give too few
// invocations; 0 when they are enough or the blocks too short to split.
// With tuning.argColInFlightPerCU: split only when the outputs alone have
// less than 90% of that many bytes per compute unit loading, into as many
// segments as reach it rounded down (as rowSplitLen rounds: outputs just
// short of the target already fill the device, and each further segment
// writes and reads partials), with partials written at most
// 1/argColPartialDiv of the bytes read, unless that cap leaves less than
// argColMinInFlight bytes loading in a reduction that reads
// argColBigRead times that or more. Otherwise about tuning.argColSplitItems
// invocations, with segments of at least tuning.argColSplitMinBytes.
func (l *argLayout) colSplitLen(k argKernel) uint64 {
	nred := product(l.red)
	items := product(l.kept)
	if k.vec == "col" {
		items = max(k.colItems(items), 1) * max(k.y, 1)
	}
	var want uint64
	switch {
	case l.tune.argColInFlightPerCU > 0:
		laneBytes := k.laneBytes(l.es)
		target := l.cus * l.tune.argColInFlightPerCU
		if satMul(satMul(items, laneBytes), 10) >= satMul(target, 9) {
			return 0
		}
		want = target / laneBytes / items
		cap := partialSegments(nred*l.es, l.partial, l.tune.argColPartialDiv)
		if satMul(product(l.kept)*nred, l.es) >= argColBigRead*l.tune.argColMinInFlight {
			cap = max(cap, ceilDiv(lanesFor(l.tune.argColMinInFlight, laneBytes), items))
		}
		want = min(want, cap)
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
		if combineOutputs(l.budget, s.nseg, l.partial) == 0 {
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
	if k.phased {
		// Any run of outputs; but only vec-col8y takes the layout.
		if k.y == 0 {
			return hresult.Unsupported("Kernel", "vec-col8y's misaligned 8-bit columns need a workgroup of at least %d lanes", 2*shaders.ArgMaxCol8YRows)
		}
		return nil
	}
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
			per := max(combineOutputs(l.budget, s.nseg, l.partial), 1)
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
		n = min(n, firstPassOutputs(l.budget, s.nseg, s.nloc[i], l.partial))
	}
	if k.vec == "col" && !k.phased {
		n -= n % k.vw
	}
	return n
}
