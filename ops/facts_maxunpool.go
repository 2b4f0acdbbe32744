package ops

// The facts of MAX_UNPOOLING's kernel family (maxunpool.comp): three
// grid-stride loops of one item per invocation and iteration, told apart
// by the PASS define.

// maxUnpoolFacts is maxunpool.comp. The clear pass writes count winner
// words; the scatter pass reads total indices and updates at most one
// winner word each (counted as written: an atomic writes); the gather pass
// reads total winner words and at most total input elements, and writes
// total output elements. Its units are each pass's work items.
func maxUnpoolFacts(v *stepValues) (DispatchFacts, error) {
	switch v.define("PASS", 0) {
	case 1:
		is := v.define("IDX_BITS", 32) / 8
		total := v.p("total")
		f := v.gridFacts(total, is)
		f.BytesRead, f.BytesWritten = total*is, total*4
		f.Units, f.Unit = total, UnitElement
		return f, nil
	case 2:
		es := v.define("ELEM_BITS", 32) / 8
		total := v.p("total")
		f := v.gridFacts(total, 4)
		f.BytesRead, f.BytesWritten = total*(4+es), total*es
		f.Units, f.Unit = total, UnitElement
		return f, nil
	}
	count := v.p("count")
	f := v.gridFacts(count, 0)
	f.BytesWritten = 4 * count
	f.Units, f.Unit = count, UnitElement
	return f, nil
}
