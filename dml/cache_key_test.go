package dml

import (
	"testing"

	"github.com/vkdml/vkdml/ops"
)

// TestCacheKeyFollowsRegistry: every registered desc type is cacheable,
// and a desc type defined outside ops (here one wrapping a registered
// desc, which may add state the key would miss) is not.
func TestCacheKeyFollowsRegistry(t *testing.T) {
	for _, o := range ops.Registry {
		if _, ok := cacheKey(o.New()); !ok {
			t.Errorf("%s is registered but not cacheable", o.Type)
		}
	}
	type wrapped struct{ ops.Desc }
	if key, ok := cacheKey(wrapped{&ops.ArgMax{}}); ok {
		t.Errorf("a desc type outside ops got the cache key %q", key)
	}
}
