package gpu

import (
	"errors"
	"testing"
)

func TestCacheWrapper(t *testing.T) {
	body := []byte("driver cache data")
	w := wrapCache(body)
	if got := unwrapCache(w); string(got) != string(body) {
		t.Fatalf("round trip: %q", got)
	}
	for name, bad := range map[string][]byte{
		"truncated": w[:len(w)-1],
		"magic":     append([]byte("XXXXXXXX"), w[8:]...),
		"flipped":   func() []byte { c := append([]byte(nil), w...); c[len(c)-1] ^= 1; return c }(),
		"empty":     nil,
	} {
		if unwrapCache(bad) != nil {
			t.Errorf("%s: corrupt cache accepted", name)
		}
	}
}

func TestPickTypes(t *testing.T) {
	lavapipe := []MemoryType{{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent | MemoryHostCached, HeapSize: 2 << 30}}
	if m, s, direct := pickTypes(lavapipe); m != 0 || s != -1 || !direct {
		t.Fatalf("lavapipe: %d %d %v", m, s, direct)
	}
	// A discrete GPU with a small BAR: device-local for tensors, cached
	// host memory for staging.
	discrete := []MemoryType{
		{Flags: MemoryDeviceLocal, Heap: 0, HeapSize: 80 << 30},
		{Flags: MemoryHostVisible | MemoryHostCoherent, Heap: 1, HeapSize: 64 << 30},
		{Flags: MemoryHostVisible | MemoryHostCoherent | MemoryHostCached, Heap: 1, HeapSize: 64 << 30},
		{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent, Heap: 2, HeapSize: 256 << 20},
	}
	if m, s, direct := pickTypes(discrete); m != 0 || s != 2 || direct {
		t.Fatalf("discrete: %d %d %v", m, s, direct)
	}
	// Resizable BAR: the whole device-local heap is host-visible.
	rebar := []MemoryType{
		{Flags: MemoryDeviceLocal, Heap: 0, HeapSize: 80 << 30},
		{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent, Heap: 0, HeapSize: 80 << 30},
	}
	if m, _, direct := pickTypes(rebar); m != 1 || !direct {
		t.Fatalf("rebar: %d %v", m, direct)
	}
}

func TestBlockTakeGive(t *testing.T) {
	b := &block{size: 1024, free: []span{{0, 1024}}}
	a, _ := b.take(256)
	c, _ := b.take(256)
	d, _ := b.take(512)
	if _, ok := b.take(1); ok {
		t.Fatal("full block handed out more")
	}
	b.give(c, 256)
	b.give(a, 256)
	if len(b.free) != 1 || b.free[0] != (span{0, 512}) {
		t.Fatalf("not coalesced: %v", b.free)
	}
	b.give(d, 512)
	if !b.empty() {
		t.Fatalf("not empty: %v", b.free)
	}
}

func TestErrorNames(t *testing.T) {
	err := &Error{Call: "vkAllocateMemory", Result: -2}
	if err.Error() != "vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY" || !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("%v", err)
	}
	if !errors.Is(&Error{Call: "vkQueueSubmit", Result: -4}, ErrDeviceLost) {
		t.Fatal("device lost")
	}
	if Result(-12345).String() != "VkResult(-12345)" {
		t.Fatal("unknown result")
	}
}
