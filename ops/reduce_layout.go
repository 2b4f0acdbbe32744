package ops

// argVecLayout says which vectorised layout (argmax_vec_row.comp,
// argmax_vec_col.comp) fits: "row"
// when the block is one contiguous run and the scalar choice lets lanes
// split blocks (group, splitk); else "col" when outputs come in aligned
// groups of argVecPer adjacent input elements; "" otherwise. Elements of
// other than 32 bits take a layout only where the device class's tuning
// allows it (argVecNarrowRow, argVecNarrowCol).
func argVecLayout(kept, red []dim, es uint64, strategy string, t *tuning) string {
	if len(red) == 0 {
		return ""
	}
	narrow := es != 4
	if strategy != ArgStrategyThread && len(red) == 1 && red[0].in == 1 {
		if narrow && !t.argVecNarrowRow {
			return ""
		}
		return "row"
	}
	if len(kept) == 0 || narrow && !t.argVecNarrowCol {
		return ""
	}
	if col8Phased(kept, red, es, t) {
		return "col"
	}
	in, per := kept[len(kept)-1], argVecPer(es)
	if in.in != 1 || in.size%per != 0 || !argVecAligned(kept, red, per) {
		return ""
	}
	return "col"
}

// col8Phased: 8-bit columns that vec-col8y's PHASED variant
// (argmax_col8y.comp) takes where the device class's tuning asks for it
// (argCol8Y and argCol8Phased): one kept dimension of stride 1 and one
// reduced axis, with the kept length or the row stride not a multiple
// of 16 elements (the aligned variant takes the rest).
func col8Phased(kept, red []dim, es uint64, t *tuning) bool {
	if !t.argCol8Y || !t.argCol8Phased || es != 1 || len(kept) != 1 || len(red) != 1 || kept[0].in != 1 {
		return false
	}
	return kept[0].size%16 != 0 || red[0].in%16 != 0
}

// argVecPer is the elements of one 16-byte load, which vec-col gives an
// invocation as its adjacent outputs (4 for 32-bit elements, whose col8
// variants take 8 when the layout allows).
func argVecPer(es uint64) uint64 { return 16 / es }

// argVecAligned: every input stride but the innermost kept one's is a
// multiple of n elements.
func argVecAligned(kept, red []dim, n uint64) bool {
	for _, d := range kept[:len(kept)-1] {
		if d.in%n != 0 {
			return false
		}
	}
	for _, d := range red {
		if d.in%n != 0 {
			return false
		}
	}
	return true
}

// argLayout is an operator's coalesced dimensions and the boxes its
// windows cover: outs over the kept dimensions, blocks over the reduced.
type argLayout struct {
	kept, red    []dim
	es, os       uint64 // input and output element sizes
	budget       uint64 // windowBudget: bytes one window's elements may span
	outs, blocks []box
	tune         *tuning // the device class's
	cus          uint64  // compute units (computeUnits)
	partial      uint64  // bytes per partial (argPartial, or reduceFloatPartial)
	// tree: the segments must follow MULTIPLY's canonical tree of floats
	// (rule 42, argOp.treeOrder): one power-of-two length, aligned.
	tree bool
}

// col8Y: a column layout that vec-col8y (argmax_col8y.comp) serves where
// the device class's tuning asks for it (argCol8Y): 8-bit integers over
// one reduced axis, whose lanes step one constant stride: ARGMAX, ARGMIN
// and REDUCE's MAX and MIN (the only functions of 8-bit types).
func (l *argLayout) col8Y() bool {
	return l.tune.argCol8Y && l.es == 1 && len(l.red) == 1
}

// col8Phased: the layout takes vec-col8y's PHASED variant (col8Phased).
func (l *argLayout) col8Phased() bool { return col8Phased(l.kept, l.red, l.es, l.tune) }
