package ops

import (
	"encoding/binary"
	"sync"

	"github.com/vkdml/vkdml/tensor"
)

// Table is a read-only table of constants that a device computes once,
// uploads once and keeps until it is closed, for the plans whose steps
// bind it (a Slot of kind SlotTable, Index the Table): its bytes depend on
// nothing but the table, so every operator of a device shares one copy.
type Table int

// The tables.
const (
	// TableExpHalf is REDUCE LOG_SUM_EXP's FLOAT16 terms: word h is
	// expFloat32 of the FLOAT16 whose bits are h, widened exactly (rule
	// 41's term exp(x) rounded to FLOAT32), for all 65,536 halves; 256 KiB.
	// A FLOAT16 first pass reads a term where it would compute rule 40's
	// exp (reduce_part_float.glsl EXP_TABLE).
	TableExpHalf Table = iota
	tableCount
)

// TableExpHalfBytes is the size of TableExpHalf.
const TableExpHalfBytes = 4 << 16

// Size is the table's bytes, 0 for no table.
func (t Table) Size() uint64 {
	if t == TableExpHalf {
		return TableExpHalfBytes
	}
	return 0
}

// String names the table, e.g. "exp_half".
func (t Table) String() string {
	if t == TableExpHalf {
		return "exp_half"
	}
	return "table?"
}

var expHalfTable = sync.OnceValue(func() []byte {
	b := make([]byte, TableExpHalfBytes)
	for h := range 1 << 16 {
		binary.LittleEndian.PutUint32(b[4*h:], expFloat32(halfToFloat32Bits(uint16(h))))
	}
	return b
})

// Bytes is the table's contents, computed on the first call (about 20 ms
// for TableExpHalf) and shared afterwards: the caller must not modify
// them. Nil for no table.
func (t Table) Bytes() []byte {
	if t == TableExpHalf {
		return expHalfTable()
	}
	return nil
}

// Tables lists the tables p's steps bind, each once, in the order of
// their first binding.
func (p *Plan) Tables() []Table {
	var ts []Table
	seen := map[Table]bool{}
	for _, s := range p.Steps {
		for _, sl := range s.Bindings {
			if t := Table(sl.Index); sl.Kind == SlotTable && !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// expTable: a's first pass reads LOG_SUM_EXP's FLOAT16 terms from
// TableExpHalf (the ReduceFloatName variants ending in
// shaders.ReduceFloatExpTable) instead of computing rule 40's exp per
// element: a table read, against about 105 counted ops for the fast exp.
// The terms are the reference's by construction, so the bits are the
// same as the computing variants'. A device whose binding range cannot
// hold the table whole (a BindingWindowCap or a small MaxAllocation in
// tests) computes the exp.
func (a *argOp) expTable(ctx *Context) bool {
	if a.value != funcFloat || a.floatFn != ReduceFunctionLogSumExp || a.in.DataType != tensor.Float16 {
		return false
	}
	return windowDescriptor(ctx, TableExpHalfBytes) <= bindingRange(ctx)
}

// tableSlot is the binding of table t: the whole table.
func tableSlot(t Table) Slot { return Slot{Kind: SlotTable, Index: int(t)} }
