package ops

import (
	"math"
	"slices"
	"testing"

	"github.com/vkdml/vkdml/tensor"
)

// packedF32 is a packed FLOAT32 NCHW tensor as cutPlanes sees it.
func packedF32(n, c, h, w uint32) planeTensor {
	hw := uint64(h) * uint64(w)
	return planeTensor{es: 4, nStride: uint64(c) * hw, cStride: hw, plane: hw, total: 4 * uint64(n) * uint64(c) * hw}
}

// TestCutPlanes: whole tensors when they fit; else runs of whole batches
// when one batch fits every tensor's window, else runs of channels of one
// batch; a plane too wide names its tensor; a cut past maxPlanSteps is
// counted but not made.
func TestCutPlanes(t *testing.T) {
	type chunk = planeChunk
	for _, c := range []struct {
		name       string
		n, c       uint32
		ts         []planeTensor
		budget     uint64
		whole      bool
		axis       int
		per, cstep uint32
		wide       int
		steps      uint64
		chunks     []planeChunk // nil: not checked beyond their count
	}{
		{"whole", 2, 3, []planeTensor{packedF32(2, 3, 4, 4), packedF32(2, 3, 2, 2)}, 1024, true, 0, 2, 3, -1, 1, []chunk{{0, 2, 0, 3}}},
		{"one tensor too big: batches", 4, 3, []planeTensor{packedF32(4, 3, 4, 4), packedF32(4, 3, 2, 2)}, 500, false, 0, 2, 3, -1, 2, []chunk{{0, 2, 0, 3}, {2, 4, 0, 3}}},
		{"batches, last run short", 5, 3, []planeTensor{packedF32(5, 3, 4, 4)}, 400, false, 0, 2, 3, -1, 3, []chunk{{0, 2, 0, 3}, {2, 4, 0, 3}, {4, 5, 0, 3}}},
		{"channels of one batch", 2, 5, []planeTensor{packedF32(2, 5, 4, 4)}, 130, false, 1, 2, 2, -1, 6,
			[]chunk{{0, 1, 0, 2}, {0, 1, 2, 4}, {0, 1, 4, 5}, {1, 2, 0, 2}, {1, 2, 2, 4}, {1, 2, 4, 5}}},
		{"the tightest tensor decides", 1, 8, []planeTensor{packedF32(1, 8, 2, 2), packedF32(1, 8, 4, 4)}, 127, false, 1, 1, 1, -1, 8, nil},
		{"plane too wide", 2, 3, []planeTensor{packedF32(2, 3, 2, 2), packedF32(2, 3, 8, 8)}, 255, false, 1, 0, 0, 1, 0, nil},
		{"plane exactly fits", 1, 2, []planeTensor{packedF32(1, 2, 8, 8)}, 256, false, 1, 1, 1, -1, 2, []chunk{{0, 1, 0, 1}, {0, 1, 1, 2}}},
		// A strided tensor: channels 100 elements apart, planes of 4, so a
		// run of k channels spans 100·(k−1)+4 elements: 4 channels are
		// exactly the budget's 304.
		{"strided channels", 1, 10, []planeTensor{{es: 4, nStride: 1000, cStride: 100, plane: 4, total: 4000}}, 1216, false, 1, 4, 4, -1, 3, []chunk{{0, 1, 0, 4}, {0, 1, 4, 8}, {0, 1, 8, 10}}},
		// Broadcast batches (stride 0) cost nothing: every batch fits.
		{"broadcast batches", 1000, 2, []planeTensor{{es: 2, nStride: 0, cStride: 64, plane: 64, total: 1 << 20}}, 1024, false, 0, 1000, 2, -1, 1, []chunk{{0, 1000, 0, 2}}},
		{"batches near 2^32 counted, not made", math.MaxUint32, 1, []planeTensor{{es: 4, nStride: 1 << 20, cStride: 1 << 20, plane: 1 << 20, total: math.MaxUint64}}, 1 << 22, false, 0, 1, 1, -1, math.MaxUint32, nil},
		{"2^31 batches of 2^16 at a time", 1 << 31, 1, []planeTensor{{es: 1, nStride: 1, cStride: 1, plane: 1, total: 1 << 31}}, 1 << 16, false, 0, 1 << 16, 1, -1, 1 << 15, nil},
		{"channels near 2^32 counted, not made", 2, math.MaxUint32, []planeTensor{{es: 8, nStride: 1 << 40, cStride: 1 << 8, plane: 1 << 8, total: math.MaxUint64}}, 1 << 12, false, 1, 2, 2, -1, 2 * (1 << 31), nil},
	} {
		got := cutPlanes(c.n, c.c, c.ts, c.budget)
		if got.whole != c.whole || got.axis != c.axis || got.per != c.per || got.cstep != c.cstep || got.wide != c.wide || got.steps != c.steps {
			t.Errorf("%s: cutPlanes = {whole %v axis %d per %d cstep %d wide %d steps %d}, want {%v %d %d %d %d %d}",
				c.name, got.whole, got.axis, got.per, got.cstep, got.wide, got.steps, c.whole, c.axis, c.per, c.cstep, c.wide, c.steps)
			continue
		}
		switch {
		case c.chunks != nil && !slices.Equal(got.chunks, c.chunks):
			t.Errorf("%s: chunks %v, want %v", c.name, got.chunks, c.chunks)
		case got.steps > maxPlanSteps || got.wide >= 0:
			if got.chunks != nil {
				t.Errorf("%s: %d chunks made for a refused cut", c.name, len(got.chunks))
			}
		case uint64(len(got.chunks)) != got.steps:
			t.Errorf("%s: %d chunks, %d steps counted", c.name, len(got.chunks), got.steps)
		}
		checkChunksFit(t, c.name, got, c.n, c.c, c.ts, c.budget)
	}
}

// checkChunksFit: every chunk of a made cut is a box of planes (whole
// batches, or channels of one batch) spanning at most budget bytes of
// every tensor (unless the cut binds them whole), and the chunks cover
// the N·C planes once, in row-major order.
func checkChunksFit(t *testing.T, name string, cut planeCut, N, C uint32, ts []planeTensor, budget uint64) {
	t.Helper()
	if cut.chunks == nil {
		return
	}
	next := uint64(0) // the first plane not yet covered, row-major
	for _, ch := range cut.chunks {
		if ch.n1 != ch.n0+1 && (ch.c0 != 0 || ch.c1 != C) {
			t.Errorf("%s: chunk %v is not a box of planes", name, ch)
		}
		if first := uint64(ch.n0)*uint64(C) + uint64(ch.c0); first != next {
			t.Errorf("%s: chunk %v starts at plane %d, want %d", name, ch, first, next)
		}
		next = uint64(ch.n1-1)*uint64(C) + uint64(ch.c1)
		for i, pt := range ts {
			span := uint64(ch.n1-ch.n0-1)*pt.nStride + uint64(ch.c1-ch.c0-1)*pt.cStride + pt.plane
			if !cut.whole && span*pt.es > budget {
				t.Errorf("%s: chunk %v spans %d bytes of tensor %d, budget %d", name, ch, span*pt.es, i, budget)
			}
		}
	}
	if next != uint64(N)*uint64(C) {
		t.Errorf("%s: the chunks end at plane %d of %d", name, next, uint64(N)*uint64(C))
	}
}

// TestPoolTensorPlanes: a pooling tensor's plane numbers give the spans
// span() gives, for one plane and for one batch, on packed, strided and
// broadcast 4D and 5D tensors.
func TestPoolTensorPlanes(t *testing.T) {
	for _, d := range []tensor.Desc{
		tensor.NewDesc(tensor.Float32, []uint32{2, 3, 5, 7}),
		tensor.NewDesc(tensor.Int8, []uint32{2, 3, 4, 5, 7}),
		tensor.NewStridedDesc(tensor.Float16, []uint32{2, 3, 5, 7}, []uint32{1, 2, 6 * 7, 6}),
		tensor.NewStridedDesc(tensor.UInt64, []uint32{4, 3, 5, 7}, []uint32{0, 40, 8, 1}),
		tensor.NewStridedDesc(tensor.Float32, []uint32{2, 3, 2, 5, 7}, []uint32{1000, 300, 100, 10, 1}),
	} {
		pt := poolTensor{d: &d}.planes()
		C := d.Sizes[1]
		plo, phi := span(&d, 0, 1, 0, 1)
		blo, bhi := span(&d, 0, 1, 0, C)
		st := d.EffectiveStrides()
		if pt.plane != phi-plo || uint64(C-1)*pt.cStride+pt.plane != bhi-blo || pt.nStride != uint64(st[0]) || pt.cStride != uint64(st[1]) ||
			pt.es != uint64(d.DataType.Size()) || pt.total != d.TotalTensorSizeInBytes {
			t.Errorf("%v: planes %+v; span: plane %d, batch %d", d, pt, phi-plo, bhi-blo)
		}
	}
}
