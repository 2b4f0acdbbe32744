package ops

// The facts of TOP_K's kernel families (topk_select.comp,
// topk_merge.comp), read from the push words and specialization
// constants topk.glsl documents.

// topKEntryBytes is the bytes of one run entry: (score, index), with a
// second score word for 64-bit elements.
func topKEntryBytes(v *stepValues) uint64 {
	if v.define("ELEM_BITS", 32) == 64 || v.define("KEY64", 0) == 1 {
		return 12
	}
	return 8
}

// topKResultBytes is the bytes the results of rows rows take: K values
// of es bytes and K indices.
func topKResultBytes(v *stepValues, rows, es uint64) uint64 {
	xs := uint64(4)
	if (v.s("FLAGS")>>4)&1 == 1 {
		xs = 8
	}
	return rows * v.s("K") * (es + xs)
}

// topKSelectFacts is topk_select.comp: SHAPE 0 one invocation per (row,
// segment) item in a grid-stride loop; the others a workgroup per item,
// lane t loading positions t, t+WG, ... of the segment, or with VEC
// (32- or 16-bit elements, input stride 1) the thread and lane scans
// (SHAPE 0, 1; SCAN8's of 8-bit rows too), the radix scans of 32- and
// 16-bit rows (SHAPE 4; SCAN64's of 64-bit rows, two positions a vector:
// with FLAGS STRIDED every WG-th vector from t, else a block of them a
// lane) and the filter's with samp_step vw (SHAPE 3) 16-byte vectors
// of vw = 4, 8 or (SCAN8) 16 positions t, t+WG, ... of its aligned
// middle (scan_split), with at most vw-1 scalar positions before and after it. It reads every
// position of its rows once and writes each item's run (RUNS: split-K
// partials, PartialBytes) or the rows' results.
func topKSelectFacts(v *stepValues) (DispatchFacts, error) {
	es := v.define("ELEM_BITS", 32) / 8
	load := es
	if es < 4 && v.define("NATIVE", 1) == 0 {
		load = 4
	}
	shape := v.define("SHAPE", 0)
	active := func(n uint64) uint64 { return n }
	scan8 := es == 1 && v.define("SCAN8", 0) == 1
	vec2 := es == 8 && v.define("SCAN64", 0) == 1 && shape == 4
	if vw := 16 / es; (es == 4 || es == 2 || scan8 || vec2) && v.s("AI") == 1 && (shape == 0 || shape == 1 || shape == 4 && (es == 4 || es == 2 || vec2) || shape == 3 && v.p("samp_step") == vw) {
		// A lane is busy when it has a vector, or a head or tail
		// position: at least the vectors left after a head of vw-1.
		load = 16
		active = func(n uint64) uint64 { return topKRowLanes(n, vw) }
		if shape == 4 && (v.s("FLAGS")>>5)&1 == 0 {
			// The radix scans without STRIDED give lane t a block of
			// ceil(vectors / WG) (topk_select.comp lane_vectors): only
			// ceil(vectors / block) lanes have one.
			wg := v.wg()
			active = func(n uint64) uint64 {
				head := min(n, vw-1)
				nv := (n - head) / vw
				if nv == 0 {
					return head
				}
				return max(ceilDiv(nv, ceilDiv(nv, wg)), head)
			}
		}
	}
	a := argStepItems{oCount: v.p("r_count"), jCount: v.s("N"), segLen: v.p("seg_len"), nloc: v.p("nseg")}
	f := v.gridFacts(a.items(), load)
	if shape != 0 {
		empty, err := groupPerItemEmpty(v, a, active)
		if err != nil {
			return f, err
		}
		f = DispatchFacts{Lanes: v.lanes(), EmptyLanes: empty, BytesPerLaneInFlight: load}
	}
	f.BytesRead = a.oCount * a.jCount * es
	f.Units, f.Unit = a.oCount*a.jCount, UnitElement
	if v.define("RUNS", 0) == 1 {
		f.BytesWritten = a.items() * v.p("run_cap") * topKEntryBytes(v)
		f.PartialBytes = f.BytesWritten
	} else {
		f.BytesWritten = topKResultBytes(v, a.oCount, es)
	}
	return f, nil
}

// topKMergeFacts is topk_merge.comp: one invocation per input entry slot
// (2·cap_in per output run) in a grid-stride loop. It reads its rows' runs
// (and, FINAL, the K selected input elements of each row) and writes the
// merged runs or the results. Runs are split-K partials: PartialBytes
// counts those it reads and, but for FINAL, those it writes (the input
// elements and the results are not partials).
func topKMergeFacts(v *stepValues) (DispatchFacts, error) {
	eb := topKEntryBytes(v)
	rows := v.p("r_count")
	slots := rows * v.p("nruns_out") * 2 * v.p("cap_in")
	f := v.gridFacts(slots, eb)
	f.Units, f.Unit = slots, UnitPartial // an invocation places one entry slot
	f.BytesRead = rows * v.p("nruns_in") * v.p("cap_in") * eb
	f.PartialBytes = f.BytesRead
	if v.define("FINAL", 0) == 1 {
		es := v.define("ELEM_BITS", 32) / 8
		f.BytesRead += rows * v.s("K") * es
		f.BytesWritten = topKResultBytes(v, rows, es)
	} else {
		f.BytesWritten = rows * v.p("nruns_out") * v.p("cap_out") * eb
		f.PartialBytes += f.BytesWritten
	}
	return f, nil
}

// topKSplitFacts is the split select's kernels (topk_split.glsl), one row
// of the step a workgroup. topk_thresh.comp SAMPLE reads every
// samp_step-th 16-byte texel of the row (its four positions, the row
// counted as aligned); the indirect dispatches after the sampled
// ranking (topk_rank.comp over the ROW_WIDE rows, then EXACT,
// topk_gather.comp and topk_rank.comp over the rows whose sample failed)
// work only on the rows listed for them, and the facts count them at the
// common case's: none listed, every lane of their largest grid empty, no
// element (the gather and the ranking of the first dispatches every
// row's texels and passing entries; topk_thresh.comp GATHER 1 counts
// both the sample's and the gather's). topk_gather.comp reads the row once, 16 bytes a lane
// and load, and writes at most a texel number a texel it keeps;
// topk_rank.comp reads the kept texels (about K plus the sample's margin
// a row, counted as K) and writes the results. Lanes past the rows are
// empty. CPU class only: no GPU plan runs these kernels.
func topKSplitFacts(v *stepValues) (DispatchFacts, error) {
	rows := v.p("r_count")
	wg := v.wg()
	f := DispatchFacts{Lanes: v.lanes(), BytesPerLaneInFlight: 4, Unit: UnitElement}
	f.EmptyLanes = f.Lanes - min(f.Lanes, rows*wg)
	const rowSampled = 1
	mine := v.p("want") == rowSampled || v.define("EXACT", 1) == 0 && v.row.Source == "topk_thresh.comp"
	if !mine {
		f.EmptyLanes = f.Lanes
		return f, nil
	}
	n := v.s("N")
	switch v.row.Source {
	case "topk_thresh.comp":
		nt := (ceilDiv(n, 4)-1)/v.p("samp_step") + 1
		f.BytesPerLaneInFlight = 16
		f.Units, f.BytesRead = rows*min(n, 4*nt), rows*nt*16
		f.BytesWritten = rows * 16
		if v.define("GATHER", 0) == 1 {
			// The gather's too (the sampled rows, counted as every row).
			f.Units += rows * n
			f.BytesRead += rows * n * 4
			f.BytesWritten += rows * 4 * wg
		}
	case "topk_gather.comp":
		f.BytesPerLaneInFlight = 16
		f.Units, f.BytesRead = rows*n, rows*n*4
		f.BytesWritten = rows * 4 * wg
	default:
		f.Units, f.BytesRead = rows*v.s("K"), rows*v.s("K")*4
		f.BytesWritten = topKResultBytes(v, rows, 4)
	}
	return f, nil
}

// topKMaximaFacts is topk_maxima.comp: a workgroup per row, lane t
// scanning groups t, t+WG, ... of GV 16-byte vectors. It reads
// its rows once for the groups' bests (and again only the few groups the
// gather visits, not counted) and writes the results.
func topKMaximaFacts(v *stepValues) (DispatchFacts, error) {
	a := argStepItems{oCount: v.p("r_count"), jCount: v.s("N"), segLen: v.s("N"), nloc: 1}
	gv := max(v.s("GV"), 1)
	empty, err := groupPerItemEmpty(v, a, func(n uint64) uint64 { return ceilDiv(n, 4*gv) })
	if err != nil {
		return DispatchFacts{}, err
	}
	return DispatchFacts{Lanes: v.lanes(), EmptyLanes: empty, BytesPerLaneInFlight: 16,
		BytesRead: a.oCount * a.jCount * 4, BytesWritten: topKResultBytes(v, a.oCount, 4),
		Units: a.oCount * a.jCount, Unit: UnitElement}, nil
}
