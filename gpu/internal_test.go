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

func TestAlignAndBlockBytes(t *testing.T) {
	const max64 = ^uint64(0)
	for _, c := range []struct {
		v, want uint64
		ok      bool
	}{{0, 0, true}, {1, 256, true}, {256, 256, true}, {257, 512, true}, {max64 - 255, max64 - 255, true},
		{max64 - 256, max64 - 255, true}, {max64 - 254, 0, false}, {max64, 0, false}, {1 << 63, 1 << 63, true}} {
		got, ok := alignUp(c.v, 256)
		if got != c.want || ok != c.ok {
			t.Errorf("alignUp(%d, 256) = %d, %v; want %d, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	if _, ok := addRange(max64, 1); ok {
		t.Error("addRange(2^64-1, 1) did not overflow")
	}
	if end, ok := addRange(max64-1, 1); !ok || end != max64 {
		t.Error("addRange(2^64-2, 1)")
	}
	limit := uint64(4292870144) // NVIDIA's maxMemoryAllocationSize
	for _, c := range []struct {
		size, want uint64
		ok         bool
	}{{0, 256, true}, {1, 256, true}, {limit, limit, true}, {limit - 1, limit, true}, {limit - 255, limit, true},
		{limit + 1, 0, false}, {max64, 0, false}, {max64 - 255, 0, false}, {max64 - 256, 0, false}, {1 << 63, 0, false}} {
		got, err := blockBytes(c.size, limit)
		if got != c.want || (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrOutOfMemory)) {
			t.Errorf("blockBytes(%d) = %d, %v; want %d, ok %v", c.size, got, err, c.want, c.ok)
		}
	}
	// A limit that is not a multiple of the alignment: a size under it
	// that rounds up over it is refused, not allocated over the limit.
	if _, err := blockBytes(1000, 900); err == nil {
		t.Error("blockBytes(1000, 900) accepted")
	}
	if _, err := blockBytes(1000, 1023); err == nil {
		t.Error("blockBytes(1000, 1023): 1024 bytes over a 1023-byte limit accepted")
	}
}

// TestComputeSizeControl: a device whose requiredSubgroupSizeStages leaves
// out the compute stage reports no subgroup size control, so that no
// compute pipeline requires a size there (invalid usage).
func TestComputeSizeControl(t *testing.T) {
	for _, c := range []struct {
		feature bool
		stages  uint32
		want    bool
	}{
		{true, stageCompute, true},
		{true, stageCompute | 0x1, true}, // vertex too
		{true, 0x1 | 0x10, false},        // vertex and fragment only
		{true, 0, false},
		{false, stageCompute, false},
	} {
		if got := computeSizeControl(c.feature, c.stages); got != c.want {
			t.Errorf("computeSizeControl(%v, %#x) = %v, want %v", c.feature, c.stages, got, c.want)
		}
	}
}
