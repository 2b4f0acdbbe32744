package gpu_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestDispatchIndirect runs the copy kernel with its group counts taken
// from a buffer that an earlier command of the list writes (a copy, then
// a barrier): four groups copy every word, zero groups copy none and
// leave the poison, and arguments that are not three aligned words, or
// that cross an allocation boundary of a segmented buffer, are refused
// before anything is recorded. "segmented": the arguments in the second
// allocation of a buffer of two (Options.MaxAllocation).
func TestDispatchIndirect(t *testing.T) {
	t.Run("one-allocation", func(t *testing.T) {
		testDispatchIndirect(t, testutil.OpenGPU(t, gpu.Options{}), 256, 48, nil)
	})
	t.Run("segmented", func(t *testing.T) {
		const seg = gpu.MinAllocation
		testDispatchIndirect(t, testutil.OpenGPU(t, gpu.Options{MaxAllocation: seg}), 2*seg, seg+48, []uint64{seg - 4, seg - 8})
	})
}

// testDispatchIndirect runs the test on d with the arguments at byte at
// of a buffer of argsSize bytes; crossing: offsets whose 12 bytes cross
// an allocation boundary.
func testDispatchIndirect(t *testing.T, d *gpu.Device, argsSize, at uint64, crossing []uint64) {
	k, params := copyKernel(t, d)
	const n = 1000
	newBuf := func(size uint64) *gpu.Buffer {
		b, err := d.NewBuffer(size)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Free() })
		return b
	}
	src, dst, args, staged := newBuf(4*n), newBuf(4*n+256), newBuf(argsSize), newBuf(256)
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i*3+5))
	}
	if err := src.Write(0, data); err != nil {
		t.Fatal(err)
	}
	for _, groups := range []uint32{4, 0, 1} {
		words := make([]byte, 12)
		binary.LittleEndian.PutUint32(words[0:], groups)
		binary.LittleEndian.PutUint32(words[4:], 1)
		binary.LittleEndian.PutUint32(words[8:], 1)
		if err := staged.Write(16, words); err != nil {
			t.Fatal(err)
		}
		if err := args.Fill(0, args.Size(), 0xFFFFFFFF); err != nil {
			t.Fatal(err)
		}
		if err := dst.Fill(0, dst.Size(), 0xDEADBEEF); err != nil {
			t.Fatal(err)
		}
		l, err := d.NewCommandList()
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := l.Copy(gpu.Range{Buffer: args, Offset: at, Size: 12}, gpu.Range{Buffer: staged, Offset: 16, Size: 12}); err != nil {
			t.Fatal(err)
		}
		if err := l.Barrier(); err != nil {
			t.Fatal(err)
		}
		bind := []gpu.Range{{Buffer: src, Size: 4 * n}, {Buffer: dst, Size: 4 * n}}
		bad := []gpu.Range{{Buffer: args, Offset: at, Size: 8}, {Buffer: args, Offset: at + 2, Size: 12}, {Buffer: args, Offset: argsSize - 8, Size: 12}}
		for _, off := range crossing {
			bad = append(bad, gpu.Range{Buffer: args, Offset: off, Size: 12})
		}
		for _, b := range bad {
			if err := l.DispatchIndirect(k, bind, params(n), b); !errors.Is(err, gpu.ErrOutOfRange) {
				t.Fatalf("arguments [%d,+%d): %v, want ErrOutOfRange", b.Offset, b.Size, err)
			}
		}
		if err := l.DispatchIndirect(k, bind, params(n), gpu.Range{Buffer: args, Offset: at, Size: 12}); err != nil {
			t.Fatal(err)
		}
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		l.Destroy()
		got := make([]byte, dst.Size())
		if err := dst.Read(0, got); err != nil {
			t.Fatal(err)
		}
		// The copy kernel's groups stride over the words: one group or
		// four copy them all.
		for i := range len(got) / 4 {
			want := uint32(0xDEADBEEF)
			if groups > 0 && i < n {
				want = uint32(i*3 + 5)
			}
			if g := binary.LittleEndian.Uint32(got[4*i:]); g != want {
				t.Fatalf("%d groups: word %d = %#x, want %#x", groups, i, g, want)
			}
		}
	}
}
