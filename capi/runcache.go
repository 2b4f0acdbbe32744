package main

import (
	"container/list"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/vkdml/vkdml/ops"
)

// runCacheSize bounds each device's cache of one-shot operators.
const runCacheSize = 16

// runCache keeps the operators vkdml_run prepared, keyed by their desc, so
// that running a desc seen before skips validation, compilation,
// allocation and initialization, as dml.Device.Compute's cache does. The
// least recently used entry is released when a new one passes the bound;
// one still running is released by its last user.
type runCache struct {
	mu      sync.Mutex
	entries map[string]*list.Element // of *runEntry
	lru     list.List                // most recently used first
}

type runEntry struct {
	key     string
	op      *preparedOp
	users   int
	evicted bool
}

// runKey is desc's cache key: its Go type and its fields.
func runKey(desc ops.Desc) (string, bool) {
	b, err := json.Marshal(desc)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%T", desc) + string(b), true
}

// acquire returns the entry for key with one more user, or nil.
func (c *runCache) acquire(key string) *runEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*runEntry)
	e.users++
	return e
}

// add caches op under key with one user (its caller) and returns its
// entry; another thread's entry for the same key wins, and op is released.
func (c *runCache) add(key string, op *preparedOp) *runEntry {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*runEntry)
		e.users++
		c.mu.Unlock()
		op.releaseLocked()
		return e
	}
	if c.entries == nil {
		c.entries = map[string]*list.Element{}
	}
	e := &runEntry{key: key, op: op, users: 1}
	c.entries[key] = c.lru.PushFront(e)
	var idle []*preparedOp
	for c.lru.Len() > runCacheSize {
		idle = append(idle, c.evictLocked(c.lru.Back())...)
	}
	c.mu.Unlock()
	for _, p := range idle {
		p.releaseLocked()
	}
	return e
}

// done drops one user of e, releasing its operator when e was evicted
// meanwhile.
func (c *runCache) done(e *runEntry) {
	c.mu.Lock()
	e.users--
	release := e.evicted && e.users == 0
	c.mu.Unlock()
	if release {
		e.op.releaseLocked()
	}
}

// evictLocked removes el and returns its operator when nobody uses it
// (else its last user releases it).
func (c *runCache) evictLocked(el *list.Element) []*preparedOp {
	e := el.Value.(*runEntry)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	e.evicted = true
	if e.users == 0 {
		return []*preparedOp{e.op}
	}
	return nil
}

// clear evicts every entry: the device is being destroyed.
func (c *runCache) clear() {
	c.mu.Lock()
	var idle []*preparedOp
	for c.lru.Len() > 0 {
		idle = append(idle, c.evictLocked(c.lru.Front())...)
	}
	c.mu.Unlock()
	for _, p := range idle {
		p.releaseLocked()
	}
}
