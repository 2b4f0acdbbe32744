package lru

import (
	"slices"
	"testing"
)

// recorder is a cache of ints whose releases are recorded in order.
func recorder(limit int) (*Cache[int], *[]int) {
	var released []int
	return New(limit, func(v int) { released = append(released, v) }), &released
}

// TestEvictsLeastRecentlyUsed: past the limit the entry used longest ago
// goes, and an Acquire counts as a use.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c, released := recorder(2)
	c.Done(c.Add("a", 1))
	c.Done(c.Add("b", 2))
	c.Done(c.Acquire("a"))
	c.Done(c.Add("c", 3))
	if !slices.Equal(*released, []int{2}) {
		t.Fatalf("released %v, want [2] (b, the least recently used)", *released)
	}
	if c.Acquire("b") != nil || c.Len() != 2 {
		t.Fatalf("b still cached or %d entries, want 2", c.Len())
	}
}

// TestDrainFreesEveryValue: Drain passes in-use and idle values alike and
// empties the cache; an in-use one is released again by its last Done.
func TestDrainFreesEveryValue(t *testing.T) {
	c, released := recorder(4)
	inUse := c.Add("a", 1)
	c.Done(c.Add("b", 2))
	var freed []int
	c.Drain(func(v int) { freed = append(freed, v) })
	slices.Sort(freed)
	if !slices.Equal(freed, []int{1, 2}) || c.Len() != 0 || c.Acquire("b") != nil {
		t.Fatalf("freed %v with %d left, want [1 2] and none", freed, c.Len())
	}
	c.Done(inUse)
	if !slices.Equal(*released, []int{1}) {
		t.Fatalf("released %v after the last Done, want [1]", *released)
	}
}

// TestDetachedAndNil: a Detached entry is released by its Done; a nil
// cache holds nothing and ignores everything.
func TestDetachedAndNil(t *testing.T) {
	c, released := recorder(1)
	c.Done(Detached(7))
	if !slices.Equal(*released, []int{7}) {
		t.Fatalf("released %v, want [7]", *released)
	}
	var none *Cache[int]
	none.Done(Detached(1))
	none.Clear()
	none.Drain(func(int) { t.Fatal("a nil cache drained a value") })
	if none.Acquire("a") != nil || none.Len() != 0 || none.Limit() != 0 {
		t.Fatal("a nil cache is not empty")
	}
}

// TestKey: the key tells types and fields apart.
func TestKey(t *testing.T) {
	type a struct{ X int }
	type b struct{ X int }
	ka, _ := Key(a{1})
	kb, _ := Key(b{1})
	k2, _ := Key(a{2})
	if ka == kb || ka == k2 {
		t.Fatalf("keys collide: %q %q %q", ka, kb, k2)
	}
	if _, ok := Key(func() {}); ok {
		t.Fatal("a value JSON cannot encode has a key")
	}
}

// TestEvictInUse: Evict takes an entry in use out of the cache at once
// (a later Acquire misses, Add makes a new one) and its last Done
// releases it; evicting it again, or after Clear, does nothing.
func TestEvictInUse(t *testing.T) {
	c, released := recorder(4)
	e := c.Add("a", 1)
	c.Evict(e)
	if c.Acquire("a") != nil || c.Len() != 0 || len(*released) != 0 {
		t.Fatalf("after Evict: still cached (%d entries) or released %v while in use", c.Len(), *released)
	}
	fresh := c.Add("a", 2)
	c.Evict(e)
	if got := c.Acquire("a"); got != fresh {
		t.Fatal("evicting the old entry again took the new one out")
	}
	c.Done(e)
	if !slices.Equal(*released, []int{1}) {
		t.Fatalf("released %v after the evicted entry's last Done, want [1]", *released)
	}
}
