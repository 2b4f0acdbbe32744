package ops

import (
	"slices"

	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// The GPU plan of the direct strategy (tuning.poolGrid): maxpool_grid.comp
// on a 3D grid of (output columns, output rows, planes), one invocation
// per output, instead of maxpool.comp's grid-stride loop, whose div/mod
// chain for the output coordinates costs a GPU more than the compares.

// gridTile is maxpool_grid.comp's tile for planes of cols × rows outputs
// with at most lanes lanes a workgroup: wgx columns by wgy rows. Wide rows
// take a tile one row high whose width (half the lanes to all of them)
// wastes the fewest lanes past the last column; narrower rows a tile of
// whole rows, as many as fit while the rows past the last one stay within
// 1% of the rows. So the grid is exact for any width, and nearly so in
// rows.
func gridTile(cols, rows uint64, lanes uint32) (wgx, wgy uint32) {
	if cols >= uint64(lanes) {
		wgx = lanes
		waste := func(x uint32) uint64 { return ceilDiv(cols, uint64(x))*uint64(x) - cols }
		for x := lanes - 1; x >= max(lanes/2, 1); x-- {
			if waste(x) < waste(wgx) {
				wgx = x
			}
		}
		return wgx, 1
	}
	wgx, wgy = uint32(cols), 1
	for y := uint64(2); y*cols <= uint64(lanes); y++ {
		if ceilDiv(rows, y)*y-rows <= rows/100 {
			wgy = uint32(y)
		}
	}
	return wgx, wgy
}

// planGrid is maxpool_grid.comp's steps (runs of tuning.poolGridOuts
// outputs per lane along W where the window preloads and the rows are at
// least a run wide): each chunk of planes of the cut,
// in dispatches of at most maxComputeWorkGroupCount planes (z) and row
// groups (y). ok is false (the caller keeps maxpool.comp) where the tile
// would have fewer than tuning.poolGridMinLanes lanes, where the columns
// need more workgroups than x allows, or where the plan has no runs and
// only poolGridOuts, not poolGrid, asked for the grid.
func (m *maxPool) planGrid(ctx *Context, g poolGeom, ts []poolTensor, cut planeCut, strategy string, kind uint32, idxBits int) (plan *Plan, ok bool, err error) {
	lim := ctx.Limits
	tun := ctx.tuning()
	taps := uint64(g.win[0]) * uint64(g.win[1]) * uint64(g.win[2])
	pre := taps <= min(uint64(tun.poolPreloadTaps), shaders.MaxPoolPreloadTaps)
	outs := uint32(1)
	if pre && slices.Contains(shaders.MaxPoolRunOuts, int(tun.poolGridOuts)) && g.out[2] >= tun.poolGridOuts {
		outs = tun.poolGridOuts
	}
	lanes := max(min(uint32(maxPoolWorkgroup), lim.MaxComputeWorkGroupInvocations, lim.MaxComputeWorkGroupSize[0]), 1)
	cols, rows := ceilDiv(uint64(g.out[2]), uint64(outs)), uint64(g.out[0])*uint64(g.out[1])
	wgx, wgy := gridTile(cols, rows, lanes)
	gx := ceilDiv(cols, uint64(wgx))
	if !tun.poolGrid && outs == 1 || wgx*wgy < tun.poolGridMinLanes || gx > uint64(lim.MaxComputeWorkGroupCount[0]) {
		return nil, false, nil
	}
	bits := 8 * m.in.DataType.Size()
	native := bits == 8 && ctx.Features.StorageBuffer8Bit || bits == 16 && ctx.Features.StorageBuffer16Bit
	variant := shaders.MaxPoolGridName(bits, native, idxBits, pre)
	switch {
	case outs > 1 && m.floatCompare(ctx):
		variant = shaders.MaxPoolRunFloatName(idxBits, int(outs))
	case outs > 1:
		variant = shaders.MaxPoolRunName(bits, native, idxBits, int(outs))
	}

	// Planes evenly spaced in every tensor (or one batch a chunk) need no
	// division into batch and channel: CSTEP 0.
	cstep := uint32(0)
	oneBatch := true
	for _, ch := range cut.chunks {
		oneBatch = oneBatch && ch.n1-ch.n0 == 1
	}
	for _, t := range ts {
		st := t.d.EffectiveStrides()
		if !oneBatch && uint64(st[0]) != uint64(cut.cstep)*uint64(st[1]) {
			cstep = cut.cstep
		}
	}
	spec := m.directSpec(variant, g, cstep, kind, wgx*wgy).Set("WGX", wgx)
	if m.idx != nil {
		m.idxSpec(spec)
	}
	k, err := kernelOf(spec)
	if err != nil {
		return nil, false, err
	}
	plan = &Plan{Strategy: strategy, Kernels: []Kernel{k}}
	C := m.in.Sizes[1]
	rowGroups := ceilDiv(rows, uint64(wgy))
	maxY, maxZ := uint64(max(lim.MaxComputeWorkGroupCount[1], 1)), uint64(max(lim.MaxComputeWorkGroupCount[2], 1))
	for _, ch := range cut.chunks {
		bind, e0 := m.chunkSlots(ts, cut, ch)
		planes := uint64(ch.n1-ch.n0) * uint64(ch.c1-ch.c0)
		for p0 := uint64(0); p0 < planes; p0 += maxZ {
			for y0 := uint64(0); y0 < rowGroups; y0 += maxY {
				push := shaders.NewPush(variant).Set("plane0", ch.n0*C+ch.c0).Set("p0", uint32(p0)).Set("r0", uint32(y0*uint64(wgy))).
					Set("in_e0", e0[0]).Set("out_e0", e0[1]).Set("idx_e0", e0[2])
				params, err := pushBytes(push)
				if err != nil {
					return nil, false, err
				}
				plan.Steps = append(plan.Steps, Step{
					Kernel:   0,
					Bindings: bind,
					Params:   params,
					Groups:   [3]uint32{uint32(gx), uint32(min(maxY, rowGroups-y0)), uint32(min(maxZ, planes-p0))},
				})
			}
		}
	}
	return plan, true, nil
}

// floatCompare: the runs may compare FLOAT32 values natively, a device
// fact: the device keeps 32-bit denormals and respects ±0, ±inf and NaN
// when a kernel asks (float controls), so IEEE v > best is rule 9's order.
func (m *maxPool) floatCompare(ctx *Context) bool {
	return m.in.DataType == tensor.Float32 && ctx.Features.DenormPreserveFloat32 && ctx.Features.SignedZeroInfNanPreserveFloat32
}

// chunkSlots is the bindings of one chunk of planes and the element
// offset of each window's first element (whole tensors: 0).
func (m *maxPool) chunkSlots(ts []poolTensor, cut planeCut, ch planeChunk) (bind []Slot, e0 [3]uint32) {
	for i, t := range ts {
		if cut.whole {
			bind = append(bind, Slot{Kind: t.kind, Index: t.index})
			continue
		}
		lo, hi := span(t.d, ch.n0, ch.n1, ch.c0, ch.c1)
		sl, first := windowSlot(t.kind, t.index, lo, hi, uint64(t.d.DataType.Size()), 4, t.d.TotalTensorSizeInBytes)
		bind = append(bind, sl)
		e0[i] = uint32(lo - first)
	}
	return bind, e0
}
