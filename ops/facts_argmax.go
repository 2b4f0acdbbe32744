package ops

import "fmt"

// The facts of ARGMAX/ARGMIN's kernel families (argmax.comp,
// argmax_vec_row.comp, argmax_vec_col.comp, argmax_combine.comp,
// argmax_combine_group.comp), read from the push words and
// specialization constants reduce.glsl documents.

// argOutputBytes is the bytes a first pass writes for items (output,
// segment) pairs of oCount outputs: a 16-byte (score, index) partial per
// pair into the temporary resource (OUT_MODE 2), else a 4- or 8-byte index
// (or REDUCE's value, OUT_MODE 3) per output.
func argOutputBytes(v *stepValues, oCount, items uint64) uint64 {
	switch (v.s("FLAGS") >> 4) & 3 {
	case 0:
		return 4 * oCount
	case 1:
		return 8 * oCount
	case 3: // REDUCE's values, of 2^VAL_LOG bytes
		return (1 << ((v.s("FLAGS") >> 24) & 3)) * oCount
	}
	return argPartialOf(v) * items
}

// argPartialOf is the bytes a partial of v's kernel moves: 16, 48 for
// REDUCE's float functions' exact accumulators (REDUCE_FLOAT), 4 for
// MULTIPLY's tree nodes (reduce_fmul.comp: one FLOAT32 word of a 48-byte
// entry).
func argPartialOf(v *stepValues) uint64 {
	switch {
	case v.row.Source == "reduce_fmul.comp":
		return 4
	case v.define("REDUCE_FLOAT", 0) == 1:
		return reduceFloatPartial
	}
	return argPartial
}

// argFirstPassBytes sets f's bytes for a first pass over a's elements of
// es bytes each: their bytes read, the outputs or partials written, and
// the elements as its units.
func argFirstPassBytes(v *stepValues, f *DispatchFacts, a argStepItems, es uint64) {
	f.BytesRead = a.oCount * a.jCount * es
	f.BytesWritten = argOutputBytes(v, a.oCount, a.items())
	if argWritesPartials(v) {
		f.PartialBytes = f.BytesWritten
	}
	f.Units, f.Unit = a.oCount*a.jCount, UnitElement
}

// argWritesPartials reports whether a first pass writes partials (OUT_MODE
// 2) rather than outputs: indices (0, 1) or REDUCE's values (3).
func argWritesPartials(v *stepValues) bool { return (v.s("FLAGS")>>4)&3 == 2 }

// argCombineBytes sets f's bytes for a combine of nseg partials per output
// over oCount outputs.
func argCombineBytes(v *stepValues, f *DispatchFacts, oCount, nseg uint64) {
	f.BytesRead = argPartialOf(v) * oCount * nseg
	f.BytesWritten = argOutputBytes(v, oCount, oCount)
	f.PartialBytes = f.BytesRead
	f.Units, f.Unit = oCount*nseg, UnitPartial
}

// argStepItems is a first pass's (output, segment) items: o_count outputs
// of a j_count-element block cut into nloc segments of seg_len, and the
// length of segment sl.
type argStepItems struct {
	oCount, jCount, segLen, nloc uint64
}

func argStepItemsOf(v *stepValues) argStepItems {
	return argStepItems{oCount: v.p("o_count"), jCount: v.p("j_count"), segLen: v.p("seg_len"), nloc: v.p("nloc")}
}

func (a argStepItems) items() uint64 { return a.oCount * a.nloc }

// length is the elements of item it (outputs slowest: it / nloc is the
// output, it % nloc the segment).
func (a argStepItems) length(it uint64) uint64 {
	jb := (it % a.nloc) * a.segLen
	if jb >= a.jCount {
		return 0
	}
	return min(a.segLen, a.jCount-jb)
}

// groupPerItemEmpty is the empty lanes of a kernel whose workgroups each
// take one item at a time (it = workgroup, workgroup + groups, ...), lanes
// 0..active(n)-1 of the workgroup touching an element of an n-element
// item. Segments take at most two lengths (seg_len, and the last one's),
// so the common case needs no enumeration.
func groupPerItemEmpty(v *stepValues, a argStepItems, active func(n uint64) uint64) (uint64, error) {
	return perItemEmpty(v.groupCount(), v.wg(), a, active)
}

// perItemEmpty is groupPerItemEmpty for groups sets of wg lanes (the
// workgroups, or the subgroups of a kernel with one per item).
func perItemEmpty(groups, wg uint64, a argStepItems, active func(n uint64) uint64) (uint64, error) {
	items := a.items()
	full := min(wg, active(min(a.segLen, a.jCount)))
	last := min(wg, active(a.length(a.nloc-1)))
	if full == last || a.nloc == 1 {
		used := min(groups, items)
		return groups*wg - used*full, nil
	}
	return workgroupEmpty(groups, wg, items, func(it uint64) uint64 { return active(a.length(it)) })
}

// argScalarFacts is argmax.comp: GROUP=0 is one invocation per item in a
// grid-stride loop, scalar loads (LOADS of them issued before use);
// GROUP=1 a workgroup per item, lane t loading elements t, t+WG, ...
func argScalarFacts(v *stepValues) (DispatchFacts, error) {
	es := v.define("ELEM_BITS", 32) / 8
	load := es
	if es < 4 && v.define("NATIVE", 1) == 0 {
		load = 4 // one 32-bit word holds the element
	}
	a := argStepItemsOf(v)
	f := DispatchFacts{BytesPerLaneInFlight: load}
	if v.define("GROUP", 0) == 0 {
		f = v.gridFacts(a.items(), load*v.define("LOADS", 1))
	} else {
		empty, err := groupPerItemEmpty(v, a, func(n uint64) uint64 { return n })
		if err != nil {
			return f, err
		}
		f.Lanes, f.EmptyLanes = v.lanes(), empty
		if v.define("REDUCE_FLOAT", 0) == 1 && (v.s("FLAGS")>>12)&15 == 1 {
			// The float functions' lanes, where one dimension is
			// reduced, load LOADS positions a trip (WG apart) before
			// their fast scan uses any.
			f.BytesPerLaneInFlight = load * v.define("LOADS", 1)
		}
	}
	argFirstPassBytes(v, &f, a, es)
	return f, nil
}

// argVecRowFacts is argmax_vec_row.comp (vec-row): a workgroup per item,
// lane t loading vectors t, t+WG, ... of VW elements (the block's head and
// tail, shorter than a vector, by scalar loads of lanes 0..); the count
// below takes the block to start on a vector boundary, as it does for
// packed rows whose length is a multiple of VW. ROWS: a subgroup per item
// instead.
func argVecRowFacts(v *stepValues) (DispatchFacts, error) {
	bits := v.define("ELEM_BITS", 32)
	vw, load := 128/bits, uint64(16)
	if bits == 32 && v.define("WIDE", 0) == 1 {
		vw, load = 8, 32
	}
	a := argStepItemsOf(v)
	active := func(n uint64) uint64 { return max(n/vw, n%vw) }
	var empty uint64
	var err error
	if v.define("ROWS", 0) == 1 {
		// A subgroup of the kernel's required size per item; lanes of
		// subgroups past the workgroup's whole ones would be empty too.
		sg := uint64(v.subgroup)
		if sg == 0 || v.wg()%sg != 0 {
			return DispatchFacts{}, fmt.Errorf("%s needs a required subgroup size dividing its workgroup (%d, %d)", v.row.Name, sg, v.wg())
		}
		empty, err = perItemEmpty(v.groupCount()*(v.wg()/sg), sg, a, active)
	} else {
		empty, err = groupPerItemEmpty(v, a, active)
	}
	if err != nil {
		return DispatchFacts{}, err
	}
	f := DispatchFacts{Lanes: v.lanes(), EmptyLanes: empty, BytesPerLaneInFlight: load}
	argFirstPassBytes(v, &f, a, bits/8)
	if v.define("TICKET", 0) == 1 {
		argTicketFacts(v, &f, a)
	}
	return f, nil
}

// argTicketFacts adds to a TICKET first pass's facts (argmax_vec_row.comp)
// what its last workgroup does in place of a combine pass: every item
// writes a 16-byte partial, which the last workgroup reads back, a lane
// per output in a serial loop (TICKET_GROUP 0) or the workgroup per
// output, ceil(nseg / WG) partials a lane; it writes the indices or
// values (OUT_MODE 0, 1 or 3, which argFirstPassBytes counted).
func argTicketFacts(v *stepValues, f *DispatchFacts, a argStepItems) {
	part := 16 * a.items()
	f.BytesWritten += part
	f.BytesRead += part
	f.PartialBytes = 2 * part
	nseg := v.p("nseg")
	f.SerialPartials = nseg
	if (v.s("FLAGS")>>18)&1 == 1 && v.wg() > 0 {
		f.SerialPartials = (nseg + v.wg() - 1) / v.wg()
	}
}

// argVecColFacts is argmax_vec_col.comp (vec-col), and REDUCE's FLOAT16
// columns (reduce_half_col.comp, PER 8): one invocation per (PER
// adjacent outputs, segment) in a grid-stride loop, each load a vector
// across the PER outputs, LOADS of them issued before they are used.
func argVecColFacts(v *stepValues) (DispatchFacts, error) {
	bits := v.define("ELEM_BITS", 32)
	per, load := 128/bits, 16*v.define("LOADS", 1)
	if bits == 32 && v.define("WIDE", 0) == 1 {
		per, load = 8, 32
	}
	a := argStepItemsOf(v)
	f := v.gridFacts(a.oCount/per*a.nloc, load)
	argFirstPassBytes(v, &f, a, bits/8)
	return f, nil
}

// argCol8YFacts is argmax_col8y.comp (vec-col8y): COLY lanes per (16
// adjacent outputs, segment) item, each loading LOADS rows' 16-byte
// vectors before their scans; a workgroup takes WG / COLY items a trip.
// PHASED: the last item may hold fewer outputs, and a row's load is five
// 4-byte words.
func argCol8YFacts(v *stepValues) (DispatchFacts, error) {
	a := argStepItemsOf(v)
	groups, load := a.oCount/16, uint64(16)
	if v.define("PHASED", 0) == 1 {
		groups, load = (a.oCount+15)/16, 20
	}
	f := v.gridFacts(groups*a.nloc*v.define("COLY", 1), load*v.define("LOADS", 1))
	argFirstPassBytes(v, &f, a, 1)
	return f, nil
}

// argCombineFacts is argmax_combine.comp: one invocation per output in a
// grid-stride loop, reading its nseg 16-byte partials one after another.
func argCombineFacts(v *stepValues) (DispatchFacts, error) {
	oCount, nseg := v.p("o_count"), v.p("nseg")
	f := v.gridFacts(oCount, argPartialOf(v))
	f.SerialPartials = nseg
	argCombineBytes(v, &f, oCount, nseg)
	return f, nil
}

// argCombineGroupFacts is argmax_combine_group.comp: a workgroup per
// output, lane t reading partials t, t+WG, ... of its nseg, then a
// workgroup reduction: a lane combines ceil(nseg / WG) partials in its
// loop.
func argCombineGroupFacts(v *stepValues) (DispatchFacts, error) {
	oCount, nseg, wg := v.p("o_count"), v.p("nseg"), v.wg()
	groups := v.groupCount()
	f := DispatchFacts{Lanes: groups * wg, BytesPerLaneInFlight: argPartialOf(v)}
	f.EmptyLanes = f.Lanes - min(groups, oCount)*min(wg, nseg)
	if wg > 0 {
		f.SerialPartials = (nseg + wg - 1) / wg
	}
	argCombineBytes(v, &f, oCount, nseg)
	return f, nil
}

// reduceFmulFacts is reduce_fmul.comp (REDUCE MULTIPLY of floats, rule
// 42's tree): the first pass has argmax.comp's shapes, but a lane of the
// group shape scans an aligned run of c = max(1, P/WG) positions (P the
// segment length rounded up to a power of two), so ceil(n/c) lanes hold
// elements, and a lane has LOADS loads in flight only where its run (the
// thread shape's: a segment) holds LOADS positions; the combines read
// partials as argmax_combine*.comp's, a lane of the group combine a run
// of them. The FLOAT16 column kernel (COL) has reduce_half_col.comp's
// lanes and loads.
func reduceFmulFacts(v *stepValues) (DispatchFacts, error) {
	wg := v.wg()
	chunk := func(n uint64) uint64 {
		p := uint64(1)
		for p < n {
			p *= 2
		}
		return max(1, p/max(wg, 1))
	}
	if v.define("COMBINE", 0) == 1 {
		if v.define("GROUP", 0) == 0 {
			return argCombineFacts(v)
		}
		f, err := argCombineGroupFacts(v)
		if err != nil {
			return f, err
		}
		oCount, nseg := v.p("o_count"), v.p("nseg")
		c := chunk(nseg)
		f.EmptyLanes = f.Lanes - min(v.groupCount(), oCount)*min(wg, (nseg+c-1)/c)
		f.SerialPartials = c
		return f, nil
	}
	if v.define("COL", 0) == 1 {
		// The FLOAT16 column kernel: reduce_half_col.comp's lanes.
		return argVecColFacts(v)
	}
	a := argStepItemsOf(v)
	// loadsInFlight is the loads a lane issues before using them on runs
	// of run positions.
	loadsInFlight := func(run uint64) uint64 {
		if loads := v.define("LOADS", 1); run >= loads {
			return loads
		}
		return 1
	}
	if v.define("GROUP", 0) == 0 {
		f, err := argScalarFacts(v)
		if loads := v.define("LOADS", 1); loads > 1 {
			f.BytesPerLaneInFlight = f.BytesPerLaneInFlight / loads * loadsInFlight(min(a.segLen, a.jCount))
		}
		return f, err
	}
	c := chunk(a.segLen)
	empty, err := groupPerItemEmpty(v, a, func(n uint64) uint64 { return (n + c - 1) / c })
	if err != nil {
		return DispatchFacts{}, err
	}
	f := DispatchFacts{Lanes: v.lanes(), EmptyLanes: empty, BytesPerLaneInFlight: v.define("ELEM_BITS", 32) / 8}
	if f.BytesPerLaneInFlight < 4 && v.define("NATIVE", 1) == 0 {
		f.BytesPerLaneInFlight = 4 // one 32-bit word holds the element
	}
	f.BytesPerLaneInFlight *= loadsInFlight(min(c, a.segLen, a.jCount))
	if v.define("HALF_VEC", 0) == 1 && min(c, a.segLen, a.jCount) >= 16 && (v.s("FLAGS")>>12)&15 == 1 && v.s("DI7") == 1 {
		// two 16-byte vectors of FLOAT16: reduce_fmul.comp takes its
		// vector run only for one reduced axis of unit stride (NR, DI7)
		f.BytesPerLaneInFlight = 32
	}
	argFirstPassBytes(v, &f, a, v.define("ELEM_BITS", 32)/8)
	return f, nil
}
