package dml

import (
	"maps"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/ops"
)

// PrepareCached holds desc's operator as a Compute call holds it, from the
// cache or compiled for it, until done: the compiled operator and the
// persistent resource the cache entry keeps for it (nil where it has none
// or is not cached). A held entry with a persistent resource is this
// caller's turn: other calls of desc wait for done.
func PrepareCached(d *Device, desc OperatorDesc) (cop *CompiledOperator, persistent *Resource, done func(), err error) {
	p, err := d.prepare("Compute", desc)
	if err != nil {
		return nil, nil, nil, err
	}
	if p.persistent != nil {
		persistent = p.persistent.Buffer
	}
	return p.cop, persistent, p.done, nil
}

// ClearComputeCache evicts every operator Compute cached: those not in
// use are released now, with their persistent resources.
func ClearComputeCache(d *Device) { d.cache.Clear() }

// CompiledKernels are c's pipelines, in its plan's order.
func CompiledKernels(c *CompiledOperator) []*gpu.Kernel { return c.kernels }

// Tables are the device's table buffers (tables.go), by table.
func Tables(d *Device) map[ops.Table]*gpu.Buffer {
	d.tablesMu.Lock()
	defer d.tablesMu.Unlock()
	return maps.Clone(d.tables)
}
