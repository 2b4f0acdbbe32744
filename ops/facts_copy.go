package ops

// The facts of ELEMENT_WISE_IDENTITY's kernel families (copy.comp,
// copy_vec4.comp): grid-stride loops of one element, or one 16-byte
// vector, per invocation and iteration.

// copyFacts is copy.comp: total elements, each loaded (as its own
// element, or the 32-bit word holding it) and stored once.
func copyFacts(v *stepValues) (DispatchFacts, error) {
	es := v.define("ELEM_BITS", 32) / 8
	load := es
	if es < 4 && v.define("NATIVE", 1) == 0 {
		load = 4
	}
	total := v.p("total")
	f := v.gridFacts(total, load)
	f.BytesRead, f.BytesWritten = total*es, total*es
	f.Units, f.Unit = total, UnitElement
	return f, nil
}

// copyVec4Facts is copy_vec4.comp: count 16-byte vectors, its units
// 4-byte words.
func copyVec4Facts(v *stepValues) (DispatchFacts, error) {
	count := v.p("count")
	f := v.gridFacts(count, 16)
	f.BytesRead, f.BytesWritten = 16*count, 16*count
	f.Units, f.Unit = 4*count, UnitElement
	return f, nil
}
