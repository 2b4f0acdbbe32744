package dml

import (
	"sync"

	"github.com/vkdml/vkdml/internal/lru"
	"github.com/vkdml/vkdml/ops"
)

// DefaultComputeCacheSize is how many compiled operators a device keeps for
// Run and Compute unless DeviceOptions.ComputeCacheSize says otherwise.
// Each holds its pipelines (a few kilobytes of driver objects) and, for a
// plan with a persistent resource, that buffer (a ticket's one word, padded
// to PersistentBufferAlignment); the least recently used one is released
// beyond the bound.
const DefaultComputeCacheSize = 64

// computeCache keeps compiled, initialized operators for Run and Compute,
// keyed by their desc, so that repeating a desc skips validation and
// pipeline creation. An operator with a DML_TENSOR_FLAG_OWNED_BY_DML input
// is never kept: its initialization copies its caller's data. One with a
// persistent resource and no such input (a GPU plan whose last workgroup
// draws a ticket from it, ops' ticketCombine) is kept with its own
// persistent buffer, initialized (zeroed) by its first run and reused by
// every later one; the runs of such an entry take turns (cachedOperator.runs),
// since two at once would draw from one ticket, while runs of an entry
// without one may overlap. A run of it that fails after recording
// anything leaves the buffer in an unknown state: the entry is evicted,
// and the next call compiles afresh. A negative limit turns the cache off.
// An evicted entry, and its buffer, is released by its last user. Close
// drains it holding the device exclusively, releasing even the operators
// in use (their users fail with ErrDeviceClosed on their next call
// anyway); the device's memory, persistent buffers included, goes with it.
type computeCache = lru.Cache[*cachedOperator]

// cachedOperator is a compiled operator in the Compute cache, with the
// persistent resource its runs share.
type cachedOperator struct {
	cop *CompiledOperator
	// persistent is cop's persistent resource, nil when it has none. Runs
	// hold runs while they use it; ready, under runs, says the initializer
	// has run into it, and broken that a run failed after recording, so
	// that a caller that waited for the entry leaves it for a fresh one.
	persistent *Resource
	runs       sync.Mutex
	ready      bool
	broken     bool
}

// Release frees the operator and its persistent resource; the entry's
// last user calls it, after its run waited for the GPU.
func (c *cachedOperator) Release() {
	c.cop.Release()
	c.persistent.Release()
}

// release is Release inside the device guard, for Close, which frees the
// device's memory, the persistent resource included, right after.
func (c *cachedOperator) release() { c.cop.release() }

func newComputeCache(size int) *computeCache {
	if size == 0 {
		size = DefaultComputeCacheSize
	}
	return lru.New(size, (*cachedOperator).Release)
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
