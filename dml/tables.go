package dml

import (
	"fmt"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/ops"
)

// A device's tables (ops.Table): read-only constants that plans bind,
// such as REDUCE LOG_SUM_EXP's FLOAT16 terms (ops.TableExpHalf, 256 KiB).
// A table is computed and uploaded by the first CompileOperator whose plan
// binds it, and kept until Close frees the device's memory: no operator
// or command list owns it, so releasing an operator, or a list still
// executing when its operator is released, never frees what another uses,
// and a device that never compiles such a plan never allocates one.

// table returns the device's buffer of table t, creating and filling it
// on first use. The caller holds the device guard (enter).
func (d *Device) table(t ops.Table) (*gpu.Buffer, error) {
	d.tablesMu.Lock()
	defer d.tablesMu.Unlock()
	if b := d.tables[t]; b != nil {
		return b, nil
	}
	data := t.Bytes()
	if len(data) == 0 {
		return nil, fmt.Errorf("dml: no table %v (internal error)", t)
	}
	b, err := d.gpu.NewBuffer(uint64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("table %v: %w", t, err)
	}
	if err := b.Write(0, data); err != nil {
		b.Free()
		return nil, fmt.Errorf("table %v: %w", t, err)
	}
	if d.tables == nil {
		d.tables = map[ops.Table]*gpu.Buffer{}
	}
	d.tables[t] = b
	return b, nil
}
