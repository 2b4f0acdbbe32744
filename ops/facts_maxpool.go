package ops

// The facts of the max-pooling kernel families (maxpool.comp,
// maxpool_vec.comp), read from the specialization constants and push
// words shaders/variants_maxpool*.go name.

// maxPoolLaneLoad is a max pooling lane's element size and the bytes it
// loads before it compares: one element (a 32-bit word where 8/16-bit
// elements are read as words), or with PRELOAD an interior window's taps.
func maxPoolLaneLoad(v *stepValues) (es, load uint64) {
	es = v.define("ELEM_BITS", 32) / 8
	load = es
	if es < 4 && v.define("NATIVE", 1) == 0 {
		load = 4 // one 32-bit word holds the element
	}
	if v.define("PRELOAD", 0) == 1 {
		load *= v.s("KD") * v.s("KH") * v.s("KW") // an interior window's taps
	}
	return es, load
}

// maxPoolDirectFacts is maxpool.comp: one invocation per output in a
// grid-stride loop over the step's total outputs, each visiting its
// window's taps with one scalar load at a time, or with PRELOAD all of an
// interior window's taps loaded first. The step covers
// total / (OD·OH·OW) whole (n, c) planes, whose input it reads.
func maxPoolDirectFacts(v *stepValues) (DispatchFacts, error) {
	es, load := maxPoolLaneLoad(v)
	total := v.p("total")
	f := v.gridFacts(total, load)
	outPlane := v.s("OD") * v.s("OH") * v.s("OW")
	inPlane := v.s("ID") * v.s("IH") * v.s("IW")
	if outPlane > 0 {
		f.BytesRead = (total + outPlane - 1) / outPlane * inPlane * es
	}
	f.BytesWritten = total * (es + v.define("IDX_BITS", 0)/8)
	f.Units, f.Unit = total, UnitOutput
	return f, nil
}

// maxPoolVec2x2Facts is maxpool_vec.comp: workgroup g's lane l takes
// quads (4 adjacent outputs of a row) g·per·WG + l + k·WG for k < per,
// each with four 16-byte loads (two rows, two vectors) before the first
// compare. A lane is empty when its first quad is past the last.
func maxPoolVec2x2Facts(v *stepValues) (DispatchFacts, error) {
	quads, per, wg := v.p("quads"), v.p("per"), v.wg()
	groups := v.groupCount()
	f := DispatchFacts{Lanes: groups * wg, BytesPerLaneInFlight: 64}
	var active uint64
	if span := per * wg; span > 0 {
		full := min(groups, quads/span)
		active = full * wg
		if full < groups {
			active += min(wg, quads-full*span)
		}
	}
	f.EmptyLanes = f.Lanes - min(f.Lanes, active)
	outputs := 4 * quads
	if outPlane := v.s("OH") * v.s("OW"); outPlane > 0 {
		f.BytesRead = (outputs + outPlane - 1) / outPlane * v.s("IH") * v.s("IW") * 4
	}
	f.BytesWritten = outputs * (4 + v.define("IDX_BITS", 0)/8)
	f.Units, f.Unit = outputs, UnitOutput
	return f, nil
}

// maxPoolGridFacts is maxpool_grid.comp: one invocation per output (or,
// with OUTS, per run of OUTS outputs of a row) on a grid of (columns,
// rows, planes), a workgroup a tile of WGX columns by WG / WGX rows; the
// dispatch covers z planes from the step's p0 and the rows from r0 its y
// row groups reach. A lane is empty when its column or row is past the
// last. Its loads are maxpool.comp's; a run's are its columns of each
// window row.
func maxPoolGridFacts(v *stepValues) (DispatchFacts, error) {
	es, load := maxPoolLaneLoad(v)
	outs := max(v.define("OUTS", 1), 1)
	if outs > 1 {
		runCols := (outs-1)*v.s("SW") + (v.s("KW")-1)*v.s("DW") + 1
		load = load / max(v.s("KW"), 1) * runCols
	}
	wgx := max(v.s("WGX"), 1)
	wgy := v.wg() / wgx
	rows := v.s("OD") * v.s("OH")
	r0 := v.p("r0")
	rowsHere := min(uint64(v.groups[1])*wgy, rows-min(rows, r0))
	planes := uint64(v.groups[2])
	outputs := v.s("OW") * rowsHere * planes
	lanes := v.lanes()
	busy := ceilDiv(v.s("OW"), outs) * rowsHere * planes
	f := DispatchFacts{Lanes: lanes, EmptyLanes: lanes - min(lanes, busy), BytesPerLaneInFlight: load}
	inPlane := v.s("ID") * v.s("IH") * v.s("IW")
	if rows > 0 {
		f.BytesRead = planes * ceilDiv(inPlane*rowsHere, rows) * es
	}
	f.BytesWritten = outputs * (es + v.define("IDX_BITS", 0)/8)
	f.Units, f.Unit = outputs, UnitOutput
	return f, nil
}
