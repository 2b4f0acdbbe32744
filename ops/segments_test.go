package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/vkdml/vkdml/shaders"
)

// TestCutSegments: each block box is cut into segments of at most maxLen
// (and splitLen when shorter), numbered on from the previous box's, the
// last one short; counts near 2^31 and 2^32 do not wrap.
func TestCutSegments(t *testing.T) {
	for _, c := range []struct {
		name             string
		blocks           []uint64
		maxLen, splitLen uint64
		want             segmentCut
	}{
		{"one whole block", []uint64{100}, 16384, 0, segmentCut{segLen: []uint64{100}, nloc: []uint64{1}, segBase: []uint64{0}, nseg: 1}},
		{"cut at the cap", []uint64{16385}, 16384, 0, segmentCut{segLen: []uint64{16384}, nloc: []uint64{2}, segBase: []uint64{0}, nseg: 2}},
		{"exact multiple", []uint64{3 * 16384}, 16384, 0, segmentCut{segLen: []uint64{16384}, nloc: []uint64{3}, segBase: []uint64{0}, nseg: 3}},
		{"split shorter than the cap", []uint64{1000}, 16384, 300, segmentCut{segLen: []uint64{300}, nloc: []uint64{4}, segBase: []uint64{0}, nseg: 4}},
		{"split longer than the cap", []uint64{1000}, 256, 300, segmentCut{segLen: []uint64{256}, nloc: []uint64{4}, segBase: []uint64{0}, nseg: 4}},
		{"split longer than the block", []uint64{10}, 256, 300, segmentCut{segLen: []uint64{10}, nloc: []uint64{1}, segBase: []uint64{0}, nseg: 1}},
		{"boxes numbered on", []uint64{100, 100, 30}, 40, 0, segmentCut{segLen: []uint64{40, 40, 30}, nloc: []uint64{3, 3, 1}, segBase: []uint64{0, 3, 6}, nseg: 7}},
		{"2^31 under a workgroup's cap", []uint64{1 << 31}, 16384 * 256 * 4, 0, segmentCut{segLen: []uint64{1 << 24}, nloc: []uint64{128}, segBase: []uint64{0}, nseg: 128}},
		{"2^32-1 by a thread", []uint64{math.MaxUint32}, 16384, 0, segmentCut{segLen: []uint64{16384}, nloc: []uint64{1 << 18}, segBase: []uint64{0}, nseg: 1 << 18}},
		{"2^32-1 split", []uint64{math.MaxUint32}, math.MaxUint32, 1 << 31, segmentCut{segLen: []uint64{1 << 31}, nloc: []uint64{2}, segBase: []uint64{0}, nseg: 2}},
		{"2^32 boxes", []uint64{1 << 32, 1 << 32}, 1 << 31, 0, segmentCut{segLen: []uint64{1 << 31, 1 << 31}, nloc: []uint64{2, 2}, segBase: []uint64{0, 2}, nseg: 4}},
	} {
		got := cutSegments(c.blocks, c.maxLen, c.splitLen)
		if !slices.Equal(got.segLen, c.want.segLen) || !slices.Equal(got.nloc, c.want.nloc) || !slices.Equal(got.segBase, c.want.segBase) || got.nseg != c.want.nseg {
			t.Errorf("%s: cutSegments(%v, %d, %d) = %+v, want %+v", c.name, c.blocks, c.maxLen, c.splitLen, got, c.want)
		}
		for i, n := range c.blocks {
			if got.segLen[i]*got.nloc[i] < n || got.segLen[i]*(got.nloc[i]-1) >= n {
				t.Errorf("%s: box %d: %d segments of %d do not cover %d positions exactly", c.name, i, got.nloc[i], got.segLen[i], n)
			}
		}
	}
}

// TestSegmentLengths: the split lengths, lane counts and caps, on ARGMAX's
// constants and at counts near 2^31 and 2^32.
func TestSegmentLengths(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"thread cap", segmentCap(16384, 1, 1), 16384},
		{"workgroup cap", segmentCap(16384, 256, 1), 1 << 22},
		{"vector cap", segmentCap(16384, 256, 8), 1 << 25},

		{"split-K one output", splitKLen(1, 1<<24, 1024, 4096), 1 << 14},
		{"split-K short block", splitKLen(1, 1<<16, 1024, 4096), 1 << 12},
		{"split-K block under minLen", splitKLen(4, 100, 1024, 4096), 100},
		{"split-K many outputs", splitKLen(2048, 1<<20, 1024, 4096), 1 << 20},
		{"split-K uneven", splitKLen(3, 1_000_000, 1024, 4096), 4099}, // 244 segments of at least 4096, not 341
		{"split-K 2^31", splitKLen(1, 1<<31, 1024, 4096), 1 << 21},
		{"split-K 2^32-1", splitKLen(1, math.MaxUint32, 1024, 4096), 1 << 22},
		{"split-K 2^32-1 by 64", splitKLen(64, math.MaxUint32, 1024, 4096), 1 << 28},

		{"lanes exact", lanesFor(64*16384, 16), 1 << 16},
		{"lanes rounded up", lanesFor(100, 32), 4},
		{"lanes 2^32", lanesFor(1<<32, 1), 1 << 32},

		{"at least, positions", segmentsOfAtLeast(1000, 128), 7},
		{"at least 0 counts as 1", segmentsOfAtLeast(1000, 0), 1000},
		{"at least, bytes near 2^32", segmentsOfAtLeast(math.MaxUint32*4, 8192), 2097151},

		{"partials 1/8", partialSegments(4096*4, 16, 8), 128},
		{"partials div 0 counts as 1", partialSegments(4096*4, 16, 0), 1024},
		{"partials of 8 bytes", partialSegments(4096*4, 8, 8), 256},
		{"partials 2^32 bytes", partialSegments(1<<32, 16, 8), 1 << 25},

		{"split fewer than two", splitLen(1000, 1, 8192, 1), 0},
		{"split none wanted", splitLen(1000, 0, 8192, 1), 0},
		{"split capped to one", splitLen(1000, 5, 1, 1), 0},
		{"split even", splitLen(1000, 4, 8192, 1), 250},
		{"split rounded up", splitLen(1000, 3, 8192, 1), 334},
		{"split capped", splitLen(1<<20, 1<<16, 8192, 1), 128},
		{"split quantum", splitLen(1000, 3, 8192, 64), 384},
		{"split quantum 0 counts as 1", splitLen(1000, 3, 8192, 0), 334},
		{"split 2^31", splitLen(1<<31, 8192, 8192, 2048), 1 << 18},
		{"split 2^32-1", splitLen(math.MaxUint32, 8192, 8192, 1), 1 << 19},
		{"split 2^32-1 quantum", splitLen(math.MaxUint32, 3, 8192, 8192), 1431658496}, // ⌈(2^32−1)/3⌉ = 1431655765 up to 8192s
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestPartials: the temporary's size and the outputs a window of partials
// takes, for partials of any size, saturating rather than wrapping.
func TestPartials(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"temporary", partialsBytes(4096, 128, 16), 4096 * 128 * 16},
		{"temporary of 8-byte partials", partialsBytes(4096, 128, 8), 4096 * 128 * 8},
		{"temporary at 2^32 outputs", partialsBytes(1<<32, 16384, 16), 1 << 50},
		{"temporary saturates", partialsBytes(1<<40, 1<<20, 16), math.MaxUint64},
		{"temporary saturates in the size", partialsBytes(1<<32, 1<<28, 32), math.MaxUint64},

		{"combine window", combineOutputs(1<<20, 16, 16), 4096},
		{"combine window of 12-byte partials", combineOutputs(1000, 10, 12), 8},
		{"combine window too small", combineOutputs(255, 16, 16), 0},
		{"combine window exact", combineOutputs(256, 16, 16), 1},
		{"combine window near 2^32", combineOutputs(math.MaxUint32-80, 1024, 16), 262143},

		// A step over a box of nloc of nseg segments: the last output's
		// partials end at (n−1)·nseg + nloc entries.
		{"first pass whole window", firstPassOutputs(1<<20, 16, 16, 16), 4096},
		{"first pass partial box", firstPassOutputs(1<<20, 16, 4, 16), 4096},
		{"first pass one more", firstPassOutputs(16*16+4*16, 16, 4, 16), 2},
		{"first pass tight", firstPassOutputs(16*16+4*16-1, 16, 4, 16), 1},
		{"first pass 8-byte partials", firstPassOutputs(1000, 10, 3, 8), 13},
		{"first pass near 2^32", firstPassOutputs(math.MaxUint32-80, 1024, 1, 16), 262144},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
	// The first pass never needs more than the window: (n−1)·nseg + nloc
	// entries of its n outputs fit, n+1 outputs' would not.
	for _, c := range []struct{ budget, nseg, nloc, size uint64 }{
		{1 << 20, 16, 4, 16}, {1000, 10, 3, 8}, {math.MaxUint32 - 80, 1024, 1, 16}, {4096, 256, 256, 16}, {1<<31 + 7, 7, 5, 12},
	} {
		n := firstPassOutputs(c.budget, c.nseg, c.nloc, c.size)
		if used := ((n-1)*c.nseg + c.nloc) * c.size; used > c.budget {
			t.Errorf("%+v: %d outputs use %d bytes of %d", c, n, used, c.budget)
		}
		if more := (n*c.nseg + c.nloc) * c.size; more <= c.budget {
			t.Errorf("%+v: %d outputs, but %d would fit (%d bytes of %d)", c, n, n+1, more, c.budget)
		}
	}
}

// TestCombineShape: below groupMin (or a subgroup) partials, one
// invocation per output in power-of-two workgroups, shrunk to the outputs
// on exact grids; from it on, a workgroup per output of the largest power
// of two up to the partials and the group cap.
func TestCombineShape(t *testing.T) {
	for _, c := range []struct {
		name              string
		nseg, maxOn       uint64
		threadWG, groupWG uint32
		groupMin          uint64
		subgroup          uint32
		exact             bool
		wantWG            uint32
		wantPerGroup      bool
	}{
		{"serial on a CPU", 1024, 4096, 64, 256, 0, 8, false, 64, false},
		{"serial below groupMin", 16, 4096, 64, 256, 32, 32, true, 64, false},
		{"serial below a subgroup", 40, 4096, 64, 256, 32, 64, true, 64, false},
		{"serial few outputs", 16, 8, 64, 256, 32, 32, true, 8, false},
		{"serial uneven outputs", 16, 100, 64, 256, 32, 32, true, 50, false},
		{"serial outputs not exact", 16, 8, 64, 256, 32, 32, false, 64, false},
		{"serial no outputs", 16, 0, 64, 256, 32, 32, true, 64, false},
		{"serial device limit", 16, 4096, 48, 48, 32, 32, true, 32, false},
		{"group split-K", 1024, 1, 64, 256, 32, 32, true, 256, true},
		{"group at groupMin", 32, 1, 64, 256, 32, 32, true, 32, true},
		{"group rounds down", 100, 1, 64, 256, 32, 32, true, 64, true},
		{"group device limit", 1024, 1, 64, 128, 32, 32, true, 128, true},
		{"group 2^31 partials", 1 << 31, 1, 64, 256, 32, 32, true, 256, true},
		{"group 2^32-1 partials", math.MaxUint32, 1, 64, 256, 32, 32, true, 256, true},
		{"serial 2^32-1 outputs", 16, math.MaxUint32, 64, 256, 32, 32, true, 64, false},
		{"serial 2^31+1 outputs", 16, 1<<31 + 1, 64, 256, 32, 32, true, 64, false},
	} {
		wg, perGroup := combineShape(c.nseg, c.maxOn, c.threadWG, c.groupWG, c.groupMin, c.subgroup, c.exact)
		if wg != c.wantWG || perGroup != c.wantPerGroup {
			t.Errorf("%s: combineShape = %d, %v, want %d, %v", c.name, wg, perGroup, c.wantWG, c.wantPerGroup)
		}
	}
}

func TestCeilDiv(t *testing.T) {
	for _, c := range []struct{ a, b, want uint64 }{
		{0, 1, 0}, {1, 1, 1}, {7, 2, 4}, {8, 2, 4}, {math.MaxUint32, 1 << 31, 2}, {1 << 32, 1 << 31, 2},
		{math.MaxUint64, 2, 1 << 63}, {math.MaxUint64, math.MaxUint64, 1},
	} {
		if got := ceilDiv(c.a, c.b); got != c.want {
			t.Errorf("ceilDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestTopKMaximaGroupsFit: whatever the workgroup (topKMaximaWG: the
// device's subgroup, 1..1024), topKMaximaGroupVecs makes groups long
// enough that a row's groups keep within topk_maxima.comp's
// shaders.TopKMaximaGroupMax and a lane's fit its registers
// (shaders.TopKMaximaLaneGroups); before the row cap, 4x64000 K=8 at 64
// lanes planned 8000 groups into the 1024 entries.
func TestTopKMaximaGroupsFit(t *testing.T) {
	for _, wg := range []uint64{1, 8, 16, 64, 256, 1024} {
		for _, n := range []uint64{4, 1000, 32000, 64000, 65536, 1 << 20} {
			for _, k := range []uint64{1, 8, 17, 64, 256} {
				gv := topKMaximaGroupVecs(n, k, wg)
				if gv == 0 {
					continue
				}
				groups := ceilDiv(n/4, gv)
				if groups > shaders.TopKMaximaGroupMax || ceilDiv(groups, wg) > shaders.TopKMaximaLaneGroups {
					t.Errorf("n=%d K=%d wg=%d: GV %d makes %d groups (%d a lane), over %d a row or %d a lane",
						n, k, wg, gv, groups, ceilDiv(groups, wg), shaders.TopKMaximaGroupMax, shaders.TopKMaximaLaneGroups)
				}
			}
		}
	}
}
