package dml

import (
	"github.com/vkdml/vkdml/internal/lru"
	"github.com/vkdml/vkdml/ops"
)

// DefaultComputeCacheSize is how many compiled operators a device keeps for
// Run and Compute unless DeviceOptions.ComputeCacheSize says otherwise.
// Each holds its pipelines (a few kilobytes of driver objects, no buffer
// memory); the least recently used one is released beyond the bound.
const DefaultComputeCacheSize = 64

// computeCache keeps compiled, initialized operators for Run and Compute,
// keyed by their desc, so that repeating a desc skips validation and
// pipeline creation. Only operators whose initialization records nothing
// (no persistent resource, no DML_TENSOR_FLAG_OWNED_BY_DML input) are kept:
// any other one must be initialized with its caller's data every time. A
// negative limit turns it off. Close drains it holding the device
// exclusively, releasing even the operators in use: their users fail with
// ErrDeviceClosed on their next call anyway.
type computeCache = lru.Cache[*CompiledOperator]

func newComputeCache(size int) *computeCache {
	if size == 0 {
		size = DefaultComputeCacheSize
	}
	return lru.New(size, (*CompiledOperator).Release)
}

// cacheKey identifies desc by its type and every exported field. Only the
// desc types in ops' registry qualify: a caller's own desc type may keep
// state in unexported fields that the key would miss, and the registry's
// test holds every registered type to exported fields that survive JSON.
func cacheKey(desc OperatorDesc) (string, bool) {
	if _, ok := ops.OperatorOf(desc); !ok {
		return "", false
	}
	return lru.Key(desc)
}

// CachedOperators is how many compiled operators Run and Compute hold in
// the device's cache (see DeviceOptions.ComputeCacheSize).
func (d *Device) CachedOperators() int {
	if d == nil {
		return 0
	}
	return d.cache.Len()
}
