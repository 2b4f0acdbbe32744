package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/shaders"
)

// emit builds the plan misfit accepted: first-pass steps over every
// (output box, block box) pair, cut so that the partials fit a window, then
// the combine pass, or where ticketCombine says so none: the first pass's
// last workgroup combines.
func (a *argOp) emit(ctx *Context, l *argLayout, k argKernel, s *argSegments) (*Plan, error) {
	outMode := uint32(0)
	switch {
	case a.value != funcIndex:
		outMode = 3
	case l.os == 8:
		outMode = 1
	}
	firstMode := outMode
	ticket, ticketGroup := a.ticketCombine(ctx, l, k, s)
	expTable := a.expTable(ctx)
	if ticket && expTable {
		// The ticket variants' bindings (below) have none for a table,
		// so a plan that reads one cannot take them (no planner asks for
		// both today).
		return nil, fmt.Errorf("ops: the ticket variant of %s has no binding for table %v", k.variant, TableExpHalf)
	}
	variant := k.variant
	switch {
	case ticket:
		// The ticket variant writes partials whatever its OUT_MODE,
		// which says how its last workgroup writes the indices or
		// values (it merges Parts, so every function takes it).
		variant = shaders.ArgMaxVecTicket(k.variant)
	case s.partial:
		firstMode = 2
	}
	align := uint64(16) // a multiple of every element size, for 16-byte loads
	if k.align8 {
		align = 32
	}
	// vec-row's raw-interval load filter (argmax_vec_row.comp ROW_FILTER)
	// where the device class asks for it; 64-bit elements have none.
	rowFilter := k.vec == "row" && l.es < 8 && l.tune.argRowFilter
	first, err := kernelOf(a.spec(variant, l, k.wg, firstMode, b2u(k.align8)<<16|b2u(rowFilter)<<17|b2u(ticketGroup)<<18))
	if err != nil {
		return nil, err
	}
	first.SubgroupSize, first.FullSubgroups = k.sgSize, k.sgSize != 0
	plan := &Plan{Strategy: k.label, Kernels: []Kernel{first}, TemporarySize: s.temp}
	if ticket {
		plan.PersistentSize = argTicketBytes
	}
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
					dst, dstFirst = Slot{Kind: SlotTemporary, Offset: first * l.partial, Size: (last - first) * l.partial}, first
				} else {
					dst, dstFirst = windowSlot(SlotOutput, 0, ro.outLo, ro.outLo+ro.outSpan+1, l.os, 16, a.out.TotalTensorSizeInBytes)
				}
				items := on * s.nloc[i]
				if k.vec == "col" {
					items = k.colItems(on) * s.nloc[i]
				}
				groups := gridFor(ctx, items, 1)
				switch {
				case k.y > 0:
					groups = gridFor(ctx, items, k.wg/uint32(k.y))
				case perLane:
					groups = gridFor(ctx, items, k.wg)
				case k.rows:
					groups = gridFor(ctx, items, k.wg/k.sgSize)
				}
				push := shaders.NewPush(variant).
					Set("o_begin", uint32(o0)).Set("o_count", uint32(on)).
					Set("j_begin", uint32(rj.begin)).Set("j_count", uint32(rj.count)).
					Set("seg_len", uint32(s.segLen[i])).Set("nloc", uint32(s.nloc[i])).
					Set("seg_base", uint32(s.segBase[i])).Set("nseg", uint32(s.nseg)).
					Set("in_win", uint32(inFirst)).Set("dst_win", uint32(dstFirst))
				bindings := []Slot{in, dst}
				if expTable {
					bindings = append(bindings, tableSlot(TableExpHalf))
				}
				if ticket {
					out, outFirst := windowSlot(SlotOutput, 0, ro.outLo, ro.outLo+ro.outSpan+1, l.os, 16, a.out.TotalTensorSizeInBytes)
					push.Set("out_win", uint32(outFirst))
					bindings = []Slot{in, out, dst, {Kind: SlotPersistent, Size: argTicketBytes}}
				}
				params, err := pushBytes(push)
				if err != nil {
					return nil, err
				}
				plan.Steps = append(plan.Steps, Step{Bindings: bindings, Params: params, Groups: groups})
			}
		}
	}
	if s.partial && !ticket {
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
	oStep := combineOutputs(l.budget, s.nseg, l.partial)
	maxOn := uint64(0) // the most outputs one combine step takes
	for _, ro := range l.outs {
		maxOn = max(maxOn, min(ro.count, oStep))
	}
	variant, cwg, perGroup := argCombineKernel(ctx, l.tune, s.nseg, maxOn, a.subgroups(ctx))
	if a.value == funcFloat {
		variant = reduceFloatCombine(perGroup, a.treeOrder(), a.hwMul(ctx))
	}
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
				Bindings: []Slot{{Kind: SlotTemporary, Offset: o0 * s.nseg * l.partial, Size: on * s.nseg * l.partial}, out},
				Params:   params,
				Groups:   groups,
				Barrier:  barrier,
			})
			barrier = false
		}
	}
	return nil
}

// argTicketBytes is the persistent resource of a plan whose first pass
// combines through a ticket: the ticket, one word, which the operator's
// initializer zeroes and the combining workgroup puts back to 0.
const argTicketBytes = 4

// ticketCombine reports whether the first pass's last workgroup to finish
// combines the partials (argmax_vec_row.comp TICKET) in place of a
// combine pass, and whether it then gives each output the workgroup
// (ticketGroup, as argmax_combine_group.comp) or a lane (as
// argmax_combine.comp). It does where the device class's tuning allows
// (argTicketOutputs), the first pass is vec-row's workgroup per item in
// one step of at most argTicketOutputs outputs, and its combine would be
// one step of one workgroup: the ticket saves that dispatch and the
// barrier before it, and the last workgroup does the combine's work with
// as many lanes.
func (a *argOp) ticketCombine(ctx *Context, l *argLayout, k argKernel, s *argSegments) (ticket, ticketGroup bool) {
	if !s.partial || k.vec != "row" || len(l.outs) != 1 || len(l.blocks) != 1 {
		return false, false
	}
	if _, err := shaders.Lookup(shaders.ArgMaxVecTicket(k.variant)); err != nil {
		return false, false // a subgroup per item: no ticket variant
	}
	n := l.outs[0].count
	if n > l.tune.argTicketOutputs || l.outputsPerStep(k, s, l.outs[0], 0) < n || combineOutputs(l.budget, s.nseg, argPartial) < n {
		return false, false
	}
	_, cwg, perGroup := argCombineKernel(ctx, l.tune, s.nseg, n, a.subgroups(ctx))
	if perGroup && n > 1 || n > uint64(cwg) {
		return false, false // the combine pass would run several workgroups at once
	}
	return true, perGroup
}

// argCombineKernel is the combine pass for nseg partials per output, of
// at most maxOn outputs a step (combineShape, with the device class's
// argCombineGroupMin): argmax_combine.comp's one invocation per output, or
// argmax_combine_group.comp's workgroup per output, with subgroup
// arithmetic where sg.
func argCombineKernel(ctx *Context, t *tuning, nseg, maxOn uint64, sg bool) (variant string, wg uint32, perGroup bool) {
	wgLimit := max(min(ctx.Limits.MaxComputeWorkGroupInvocations, ctx.Limits.MaxComputeWorkGroupSize[0]), 1)
	wg, perGroup = combineShape(nseg, maxOn, min(argThreadWG, wgLimit), min(argGroupWG, wgLimit), t.argCombineGroupMin, ctx.Limits.SubgroupSize, t.exactGrid)
	switch {
	case !perGroup:
		return shaders.ArgMaxCombineName, wg, false
	case sg:
		return shaders.ArgMaxCombineGroupSG, wg, true
	}
	return shaders.ArgMaxCombineGroup, wg, true
}

// spec is variant's specialization constants (reduce.glsl), by
// name: the workgroup size, FLAGS (extra holds its kernel-specific bits:
// 16 vec-col's ALIGN8, 17 vec-row's ROW_FILTER; FUNC and VAL_LOG are
// REDUCE's value functions'), then the sizes (DS),
// input strides (DI) and output strides (DO) of 8 dimension slots: kept
// dimension i (innermost first) in slot i, reduced dimension i in slot 7-i.
func (a *argOp) spec(variant string, l *argLayout, wg, mode, extra uint32) *shaders.Values {
	kind := shaders.ElemKind(a.in.DataType.IsFloat(), a.in.DataType.IsSigned())
	// REDUCE's MAX and MIN take the later of equal values (LAST).
	last := a.dir == AxisDirectionDecreasing || a.value == funcExtreme
	flags := kind | b2u(a.isMin)<<2 | b2u(last)<<3 | mode<<4 | extra |
		uint32(len(l.kept))<<8 | uint32(len(l.red))<<12 | uint32(a.value)<<20 | a.valueLog()<<24 | uint32(a.floatFn)<<26
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
