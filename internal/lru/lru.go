// Package lru is a bounded cache of values shared by concurrent users,
// keyed by string, the least recently used evicted first: dml's Compute
// cache and libvkdml's vkdml_run cache of prepared operators. A value may
// still be in use when it is evicted; then its last user's Done releases
// it, so eviction never pulls an operator from under a running call.
package lru

import (
	"container/list"
	"encoding/json"
	"fmt"
	"sync"
)

// Cache holds at most its limit of values. All methods are safe for
// concurrent use, and on a nil Cache they find nothing and do nothing.
type Cache[V any] struct {
	mu      sync.Mutex
	limit   int
	release func(V)
	entries map[string]*list.Element // of *Entry[V]
	order   list.List                // front: most recently used
}

// Entry is one cached value with its users: the calls between the Acquire
// or Add that returned it and their Done.
type Entry[V any] struct {
	Value   V
	key     string
	users   int
	evicted bool
}

// New is a cache of at most limit values; release frees a value that
// leaves it, outside the cache's lock.
func New[V any](limit int, release func(V)) *Cache[V] {
	return &Cache[V]{limit: limit, release: release, entries: map[string]*list.Element{}}
}

// Detached is an entry of v in no cache, with one user: Done releases v.
// It serves a value that cannot be cached the same way as one that is.
func Detached[V any](v V) *Entry[V] { return &Entry[V]{Value: v, users: 1, evicted: true} }

// Limit is the bound the cache was made with.
func (c *Cache[V]) Limit() int {
	if c == nil {
		return 0
	}
	return c.limit
}

// Acquire returns the entry for key with one more user, or nil.
func (c *Cache[V]) Acquire(key string) *Entry[V] {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	e := el.Value.(*Entry[V])
	e.users++
	return e
}

// Add caches v under key and returns its entry with one user (the
// caller). When another call added key meanwhile, that entry wins and v
// is released. The least recently used entries beyond the limit are
// evicted.
func (c *Cache[V]) Add(key string, v V) *Entry[V] {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*Entry[V])
		e.users++
		c.mu.Unlock()
		c.release(v)
		return e
	}
	e := &Entry[V]{Value: v, key: key, users: 1}
	c.entries[key] = c.order.PushFront(e)
	var idle []V
	for c.order.Len() > c.limit {
		idle = append(idle, c.evictLocked(c.order.Back())...)
	}
	c.mu.Unlock()
	for _, v := range idle {
		c.release(v)
	}
	return e
}

// Done ends one use of e, releasing its value if e was evicted meanwhile
// (or is Detached) and this was its last user.
func (c *Cache[V]) Done(e *Entry[V]) {
	if c == nil || e == nil {
		return
	}
	c.mu.Lock()
	e.users--
	last := e.evicted && e.users == 0
	c.mu.Unlock()
	if last {
		c.release(e.Value)
	}
}

// Evict removes e, which the caller uses, from the cache if it is still
// there, for a value that must not serve another call (a run that failed
// left it in an unknown state); the last user's Done releases it.
func (c *Cache[V]) Evict(e *Entry[V]) {
	if c == nil || e == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.evicted {
		return
	}
	if el, ok := c.entries[e.key]; ok && el.Value.(*Entry[V]) == e {
		c.order.Remove(el)
		delete(c.entries, e.key)
	}
	e.evicted = true
}

// Len is how many values the cache holds.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Clear evicts every entry: those nobody uses are released now, the others
// by their last Done.
func (c *Cache[V]) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	var idle []V
	for c.order.Len() > 0 {
		idle = append(idle, c.evictLocked(c.order.Front())...)
	}
	c.mu.Unlock()
	for _, v := range idle {
		c.release(v)
	}
}

// Drain empties the cache, passing every value, in use or not, to free
// under the cache's lock (for a caller that must free them now and holds
// what release would wait for). A value in use stays evicted, so its last
// Done releases it again: release must then do nothing.
func (c *Cache[V]) Drain(free func(V)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*Entry[V])
		e.evicted = true
		free(e.Value)
	}
	c.entries = map[string]*list.Element{}
	c.order.Init()
}

// evictLocked removes el and returns its value when nobody uses it (else
// its last user releases it).
func (c *Cache[V]) evictLocked(el *list.Element) []V {
	e := c.order.Remove(el).(*Entry[V])
	delete(c.entries, e.key)
	e.evicted = true
	if e.users == 0 {
		return []V{e.Value}
	}
	return nil
}

// Key identifies v by its dynamic type and its JSON encoding, which is
// every exported field; false when v does not encode. It suits values
// whose exported fields are all they hold, as the operator descs are.
func Key(v any) (string, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%T", v) + string(b), true
}
