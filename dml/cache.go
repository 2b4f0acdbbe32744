package dml

import (
	"container/list"
	"encoding/json"
	"fmt"
	"sync"

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
// any other one must be initialized with its caller's data every time.
type computeCache struct {
	mu      sync.Mutex
	limit   int
	entries map[string]*list.Element // of *cacheEntry
	lru     *list.List               // front: most recently used
}

// cacheEntry is one cached operator. users counts the calls running it; an
// evicted entry is released when its last user is done.
type cacheEntry struct {
	key     string
	cop     *CompiledOperator
	users   int
	evicted bool
}

func newComputeCache(size int) *computeCache {
	if size == 0 {
		size = DefaultComputeCacheSize
	}
	return &computeCache{limit: size, entries: map[string]*list.Element{}, lru: list.New()}
}

// cacheKey identifies desc by its type and every exported field. Only the
// desc types in ops' registry qualify: a caller's own desc type may keep
// state in unexported fields that the key would miss, and the registry's
// test holds every registered type to exported fields that survive JSON.
func cacheKey(desc ops.Desc) (string, bool) {
	if _, ok := ops.OperatorOf(desc); !ok {
		return "", false
	}
	b, err := json.Marshal(desc)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%T", desc) + string(b), true
}

// acquire returns the entry for key with one more user, or nil.
func (c *computeCache) acquire(key string) *cacheEntry {
	if c == nil || c.limit < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	e.users++
	return e
}

// put adds cop under key and returns its entry with one user. When another
// call added the key meanwhile, that entry is returned and cop released.
// The least recently used entries beyond the bound are evicted.
func (c *computeCache) put(key string, cop *CompiledOperator) *cacheEntry {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*cacheEntry)
		e.users++
		c.mu.Unlock()
		cop.Release()
		return e
	}
	e := &cacheEntry{key: key, cop: cop, users: 1}
	c.entries[key] = c.lru.PushFront(e)
	var idle []*CompiledOperator
	for c.lru.Len() > c.limit {
		old := c.lru.Remove(c.lru.Back()).(*cacheEntry)
		delete(c.entries, old.key)
		old.evicted = true
		if old.users == 0 {
			idle = append(idle, old.cop)
		}
	}
	c.mu.Unlock()
	for _, o := range idle {
		o.Release()
	}
	return e
}

// done ends one use of e, releasing it if it was evicted meanwhile.
func (c *computeCache) done(e *cacheEntry) {
	if e == nil {
		return
	}
	c.mu.Lock()
	e.users--
	last := e.evicted && e.users == 0
	c.mu.Unlock()
	if last {
		e.cop.Release()
	}
}

// len is the number of cached operators.
func (c *computeCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// releaseAll releases every cached operator; Close calls it holding the
// device exclusively. Entries still in use are released too: their users
// fail with ErrDeviceClosed on their next call anyway.
func (c *computeCache) releaseAll() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		e.evicted = true
		e.cop.release()
	}
	c.entries = map[string]*list.Element{}
	c.lru.Init()
}

// CachedOperators is how many compiled operators Run and Compute hold in
// the device's cache (see DeviceOptions.ComputeCacheSize).
func (d *Device) CachedOperators() int {
	if d == nil {
		return 0
	}
	return d.cache.len()
}
