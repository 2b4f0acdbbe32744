package gpu_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
)

// segAlloc is the allocation cap the tests lower the device to, so that
// buffers of a few hundred KiB span several allocations on any device.
const segAlloc = 64 << 10

// segSize is the size of testSegmented's buffers: six allocations, the
// last one small.
const segSize = 5*segAlloc + 12

// TestSegmentedBuffer: with Options.MaxAllocation, a buffer larger than one
// allocation spans several; host copies and fills, list copies and fills,
// and kernel bindings whose windows cross allocation boundaries all see one
// contiguous buffer, under the validation layer with synchronization
// validation.
func TestSegmentedBuffer(t *testing.T) {
	for _, staging := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "staging"}[staging], func(t *testing.T) {
			d := testutil.OpenGPU(t, gpu.Options{MaxAllocation: segAlloc + 100, ForceStaging: staging})
			if d.Limits.MaxMemoryAllocationSize != segAlloc || uint64(d.Limits.MaxStorageBufferRange) > segAlloc {
				t.Fatalf("limits not lowered: allocation %d, storage range %d", d.Limits.MaxMemoryAllocationSize, d.Limits.MaxStorageBufferRange)
			}
			testSegmented(t, d, testutil.Rand(t))
		})
	}
}

func testSegmented(t *testing.T, d *gpu.Device, rng *rand.Rand) {
	a := testutil.NewGPUBuffer(t, d, segSize)
	b := testutil.NewGPUBuffer(t, d, segSize)
	if n := d.Allocated(); n < 2*segSize {
		t.Fatalf("%d bytes allocated for two buffers of %d", n, segSize)
	}
	data := segmentedHostCopies(t, a, rng)
	want := segmentedFill(t, b)
	segmentedListCopies(t, d, a, b, data, want)

	// Buffers larger than their heap are refused before any allocation.
	heap := d.Info.MemoryTypes[0].HeapSize
	for _, mt := range d.Info.MemoryTypes {
		heap = max(heap, mt.HeapSize)
	}
	before := d.Allocated()
	if _, err := d.NewBuffer(heap + 1); !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("a buffer over the heap: %v", err)
	}
	if d.Allocated() != before {
		t.Fatal("a refused buffer left memory allocated")
	}
}

// segmentedHostCopies writes random bytes to a, whole and across each
// allocation boundary, checks that they read back, and returns them.
func segmentedHostCopies(t *testing.T, a *gpu.Buffer, rng *rand.Rand) []byte {
	data := make([]byte, segSize)
	rng.Read(data)
	if err := a.Write(0, data); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, segSize)
	if err := a.Read(0, got); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("whole read back differs (%v)", err)
	}
	for k := uint64(1); k <= 5; k++ {
		off := k*segAlloc - 10
		part := make([]byte, 20)
		rng.Read(part)
		copy(data[off:], part)
		if err := a.Write(off, part); err != nil {
			t.Fatal(err)
		}
		end := min(off+30, segSize)
		back := make([]byte, end-(off-10))
		if err := a.Read(off-10, back); err != nil || !bytes.Equal(back, data[off-10:end]) {
			t.Fatalf("boundary %d: read back differs (%v)", k, err)
		}
	}
	return data
}

// segmentedFill fills b, and then a range across a boundary, checks it
// and returns what b holds.
func segmentedFill(t *testing.T, b *gpu.Buffer) []byte {
	if err := b.Fill(0, segSize&^3, 0xDEADBEEF); err != nil {
		t.Fatal(err)
	}
	if err := b.Fill(2*segAlloc-8, 16, 7); err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte{0xEF, 0xBE, 0xAD, 0xDE}, segSize/4)
	want = append(want, make([]byte, segSize%4)...)
	for i := 2*segAlloc - 8; i < 2*segAlloc+8; i += 4 {
		binary.LittleEndian.PutUint32(want[i:], 7)
	}
	got := make([]byte, segSize)
	if err := b.Read(0, got); err != nil || !bytes.Equal(got[:segSize&^3], want[:segSize&^3]) {
		t.Fatalf("fill across a boundary: %v", err)
	}
	return want
}

// segmentedListCopies runs copy kernels whose windows cross allocation
// boundaries from a (holding data) into b (holding want), then a list copy
// and fill across boundaries of both, and checks b twice over.
func segmentedListCopies(t *testing.T, d *gpu.Device, a, b *gpu.Buffer, data, want []byte) {
	k, params := copyKernel(t, d)
	type copyCase struct{ src, dst, words uint64 }
	cases := []copyCase{
		{segAlloc - 400, 3*segAlloc - 1000, 4000},  // both windows cross a boundary
		{4 * segAlloc, segAlloc + 4096, 2048},      // neither does
		{2*segAlloc - 4, 4*segAlloc - 4, 2},        // two words straddling, both sides
		{5*segAlloc - 16000, 5*segAlloc - 8, 3},    // the destination ends in the small last allocation
		{16, 2 * segAlloc, segAlloc / 4},           // a whole allocation's worth into another
		{3*segAlloc + 4, 2*segAlloc - 8000, 10000}, // source from a's other allocations
	}
	l := testutil.BeginGPUList(t, d)
	for _, c := range cases {
		in := gpu.Range{Buffer: a, Offset: c.src, Size: 4 * c.words}
		out := gpu.Range{Buffer: b, Offset: c.dst, Size: 4 * c.words}
		if err := l.Dispatch(k, []gpu.Range{in, out}, params(uint32(c.words)), [3]uint32{uint32(c.words+63) / 64, 1, 1}); err != nil {
			t.Fatal(err)
		}
		if err := l.Barrier(); err != nil {
			t.Fatal(err)
		}
		copy(want[c.dst:c.dst+4*c.words], data[c.src:c.src+4*c.words])
	}
	// A list copy and fill across boundaries of both buffers, after the
	// kernels (the barrier above orders them).
	if err := l.Copy(gpu.Range{Buffer: b, Offset: 3*segAlloc + 20000, Size: 70000}, gpu.Range{Buffer: a, Offset: 100, Size: 70000}); err != nil {
		t.Fatal(err)
	}
	copy(want[3*segAlloc+20000:], data[100:70100])
	if err := l.Fill(gpu.Range{Buffer: b, Offset: segAlloc - 64, Size: 128}, 0x01020304); err != nil {
		t.Fatal(err)
	}
	for i := segAlloc - 64; i < segAlloc+64; i += 4 {
		binary.LittleEndian.PutUint32(want[i:], 0x01020304)
	}
	if err := l.End(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, segSize)
	for round := range 2 {
		if err := l.Run(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := b.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < segSize&^3; i += 4 {
			if g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]); g != w {
				t.Fatalf("round %d: byte %d (allocation %d): %#x, want %#x", round, i, i/segAlloc, g, w)
			}
		}
	}
}

// TestMaxAllocationOption: values below the minimum are refused; the
// device's own limits are what Info reports.
func TestMaxAllocationOption(t *testing.T) {
	if _, err := gpu.Open(gpu.Options{MaxAllocation: gpu.MinAllocation - 1, PipelineCacheDir: "off"}); err == nil {
		t.Fatal("MaxAllocation below the minimum accepted")
	}
	d := testutil.OpenGPU(t, gpu.Options{MaxAllocation: ^uint64(0)})
	if d.Limits.MaxMemoryAllocationSize > d.Info.Limits.MaxMemoryAllocationSize || d.Limits.MaxMemoryAllocationSize == 0 {
		t.Fatalf("cap %d over the device's %d", d.Limits.MaxMemoryAllocationSize, d.Info.Limits.MaxMemoryAllocationSize)
	}
}
