package gpu_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestHugeBufferSizes: sizes near 2^64 used to wrap in the allocator's
// rounding and yield a buffer that owned no memory.
func TestHugeBufferSizes(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	limit := min(d.Limits.MaxMemoryAllocationSize, d.Limits.MaxBufferSize)
	t.Logf("maxMemoryAllocationSize %d, maxBufferSize %d", d.Limits.MaxMemoryAllocationSize, d.Limits.MaxBufferSize)
	for _, size := range []uint64{math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 - 254, math.MaxUint64 - 255,
		math.MaxUint64 - 256, math.MaxUint64 - 257, 1 << 63, 1<<63 + 1, 1<<63 - 1, limit + 1, limit + 255, limit + 256} {
		b, err := d.NewBuffer(size)
		if !errors.Is(err, gpu.ErrOutOfMemory) {
			t.Errorf("NewBuffer(%d): want ErrOutOfMemory, got buffer %v, error %v", size, b != nil, err)
			if b != nil {
				b.Free()
			}
		}
	}
	if n := d.Allocated(); n != 0 {
		t.Fatalf("refused allocations left %d bytes allocated", n)
	}
	// Just under the limit, rounding up to the allocation alignment must
	// not carry the size over it.
	if limit%gpu.BufferAlignment == 0 && limit <= 4<<30 {
		for _, size := range []uint64{limit, limit - 1, limit - 255} {
			b, err := d.NewBuffer(size)
			if err != nil {
				t.Fatalf("NewBuffer(%d) at the device's limit: %v", size, err)
			}
			last := make([]byte, 1)
			if err := b.Write(size-1, []byte{0x5A}); err != nil {
				t.Fatal(err)
			}
			if err := b.Read(size-1, last); err != nil || last[0] != 0x5A {
				t.Fatalf("last byte of a %d-byte buffer: %v %v", size, last, err)
			}
			if err := b.Write(size, []byte{1}); !errors.Is(err, gpu.ErrOutOfRange) {
				t.Fatalf("write past the end of a %d-byte buffer: %v", size, err)
			}
			b.Free()
		}
	}
}

// TestRangesNearTheEnd checks every host and recorded range against the
// buffer's end with offsets and sizes whose sums overflow.
func TestRangesNearTheEnd(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	const size = 1000
	b := testutil.NewGPUBuffer(t, d, size)
	type rng struct{ off, n uint64 }
	ok := []rng{{0, size}, {size, 0}, {size - 4, 4}, {996, 4}, {0, 0}}
	bad := []rng{{size, 4}, {size - 4, 8}, {size + 4, 0}, {math.MaxUint64 - 3, 4}, {4, math.MaxUint64 - 3},
		{math.MaxUint64 - 3, 8}, {1 << 63, 1 << 63}, {0, size + 4}, {math.MaxUint64 &^ 3, 0}}
	for _, r := range ok {
		if err := b.Fill(r.off, r.n, 7); err != nil {
			t.Errorf("Fill(%d, %d): %v", r.off, r.n, err)
		}
	}
	for _, r := range bad {
		if err := b.Fill(r.off, r.n, 7); !errors.Is(err, gpu.ErrOutOfRange) {
			t.Errorf("Fill(%d, %d): want ErrOutOfRange, got %v", r.off, r.n, err)
		}
		if r.n < 1<<20 {
			if err := b.Write(r.off, make([]byte, r.n)); !errors.Is(err, gpu.ErrOutOfRange) {
				t.Errorf("Write(%d, %d bytes): want ErrOutOfRange, got %v", r.off, r.n, err)
			}
			if err := b.Read(r.off, make([]byte, r.n)); !errors.Is(err, gpu.ErrOutOfRange) {
				t.Errorf("Read(%d, %d bytes): want ErrOutOfRange, got %v", r.off, r.n, err)
			}
		}
	}

	k, params := copyKernel(t, d)
	other := testutil.NewGPUBuffer(t, d, size)
	l := testutil.BeginGPUList(t, d)
	whole := gpu.Range{Buffer: other, Size: size}
	for _, r := range bad {
		in := gpu.Range{Buffer: b, Offset: r.off, Size: r.n}
		if err := l.Dispatch(k, []gpu.Range{in, whole}, params(1), [3]uint32{1, 1, 1}); !errors.Is(err, gpu.ErrOutOfRange) {
			t.Errorf("Dispatch over [%d,+%d): want ErrOutOfRange, got %v", r.off, r.n, err)
		}
		if err := l.Copy(gpu.Range{Buffer: other, Size: r.n}, in); !errors.Is(err, gpu.ErrOutOfRange) {
			t.Errorf("Copy from [%d,+%d): want ErrOutOfRange, got %v", r.off, r.n, err)
		}
		if err := l.Fill(in, 0); !errors.Is(err, gpu.ErrOutOfRange) {
			t.Errorf("Fill [%d,+%d): want ErrOutOfRange, got %v", r.off, r.n, err)
		}
	}
	if err := l.Dispatch(k, []gpu.Range{{Buffer: b, Offset: 2, Size: 4}, whole}, params(1), [3]uint32{1, 1, 1}); !errors.Is(err, gpu.ErrOutOfRange) {
		t.Errorf("unaligned binding offset: %v", err)
	}
	if err := l.Copy(gpu.Range{Buffer: b, Offset: 8, Size: 16}, gpu.Range{Buffer: b, Offset: 0, Size: 16}); !errors.Is(err, gpu.ErrOutOfRange) {
		t.Errorf("overlapping copy: %v", err)
	}
	// The last word of the buffer, as a binding and as a copy, is fine.
	if err := l.Dispatch(k, []gpu.Range{{Buffer: b, Offset: size - 4, Size: 4}, whole}, params(1), [3]uint32{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	l.Barrier()
	if err := l.Copy(gpu.Range{Buffer: other, Offset: size - 4, Size: 4}, gpu.Range{Buffer: b, Offset: size - 4, Size: 4}); err != nil {
		t.Fatal(err)
	}
	if err := l.Fill(gpu.Range{Buffer: other, Offset: size, Size: 0}, 0); err != nil {
		t.Fatal(err)
	}
	if err := l.End(); err != nil {
		t.Fatal(err)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
}

// TestUseAfterRelease: every method of a freed buffer, a destroyed kernel
// and a destroyed list returns ErrReleased; releasing twice is fine.
func TestUseAfterRelease(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	k, params := copyKernel(t, d)
	src, _ := d.NewBuffer(256)
	dst, _ := d.NewBuffer(256)
	defer dst.Free()
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatal(err)
	}
	l.Begin()
	if err := l.Dispatch(k, []gpu.Range{{Buffer: src, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	l.End()

	// A buffer freed after recording: the list is refused, not submitted
	// over memory another buffer may now own.
	releaseTwice(t, "Free", src.Free)
	reuse, _ := d.NewBuffer(256)
	defer reuse.Free()
	if err := l.Submit(); !errors.Is(err, gpu.ErrReleased) {
		t.Fatalf("Submit of a list using a freed buffer: %v", err)
	}
	wantErrors(t, gpu.ErrReleased, "freed buffer %s", map[string]error{
		"Write": src.Write(0, []byte{1}),
		"Read":  src.Read(0, []byte{1}),
		"Fill":  src.Fill(0, 4, 0),
	})
	l.Begin()
	wantErrors(t, gpu.ErrReleased, "%s", map[string]error{
		"Dispatch with a freed buffer": l.Dispatch(k, []gpu.Range{{Buffer: src, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}),
		"Copy from a freed buffer":     l.Copy(gpu.Range{Buffer: dst, Size: 4}, gpu.Range{Buffer: src, Size: 4}),
		"Fill of a freed buffer":       l.Fill(gpu.Range{Buffer: src, Size: 4}, 0),
		"Dispatch with a nil buffer":   l.Dispatch(k, []gpu.Range{{Buffer: nil, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}),
		"Dispatch with a zero Buffer":  l.Dispatch(k, []gpu.Range{{Buffer: &gpu.Buffer{}, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}),
	})

	// A kernel destroyed after recording.
	if err := l.Dispatch(k, []gpu.Range{{Buffer: reuse, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	l.End()
	releaseTwice(t, "Destroy", k.Destroy)
	if err := l.Submit(); !errors.Is(err, gpu.ErrReleased) {
		t.Fatalf("Submit of a list using a destroyed kernel: %v", err)
	}
	l.Begin()
	if err := l.Dispatch(k, []gpu.Range{{Buffer: reuse, Size: 256}, {Buffer: dst, Size: 256}}, params(64), [3]uint32{1, 1, 1}); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("Dispatch of a destroyed kernel: %v", err)
	}
	if err := l.Dispatch(nil, nil, nil, [3]uint32{1, 1, 1}); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("Dispatch of a nil kernel: %v", err)
	}

	// A destroyed list.
	releaseTwice(t, "Destroy", l.Destroy)
	checkListErrors(t, l, reuse, k, gpu.ErrReleased)
	var nilList *gpu.CommandList
	checkListErrors(t, nilList, reuse, k, gpu.ErrReleased)
	if n := d.Allocated(); n == 0 {
		t.Fatal("live buffers hold no memory")
	}
}

// releaseTwice calls release (Free or Destroy, named what) twice: the
// second call, on a released object, must be as harmless as the first.
func releaseTwice(t *testing.T, what string, release func() error) {
	t.Helper()
	if err := release(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := release(); err != nil {
		t.Fatalf("second %s: %v", what, err)
	}
}

// checkListErrors calls every method of l and wants each to fail with want.
func checkListErrors(t *testing.T, l *gpu.CommandList, b *gpu.Buffer, k *gpu.Kernel, want error) {
	t.Helper()
	_, tsErr := l.Timestamp()
	_, tssErr := l.Timestamps()
	wantErrors(t, want, "%s", map[string]error{
		"Begin":      l.Begin(),
		"Dispatch":   l.Dispatch(k, []gpu.Range{{Buffer: b, Size: 4}, {Buffer: b, Size: 4}}, nil, [3]uint32{1, 1, 1}),
		"Barrier":    l.Barrier(),
		"Copy":       l.Copy(gpu.Range{Buffer: b, Size: 4}, gpu.Range{Buffer: b, Offset: 4, Size: 4}),
		"Fill":       l.Fill(gpu.Range{Buffer: b, Size: 4}, 0),
		"Timestamp":  tsErr,
		"Timestamps": tssErr,
		"End":        l.End(),
		"Submit":     l.Submit(),
		"Wait":       l.Wait(),
		"Run":        l.Run(),
	})
	if err := l.Destroy(); err != nil {
		t.Errorf("Destroy: %v", err)
	}
}

// wantErrors fails t for every call in errs, by name, whose error is not
// want (nil: no error); format says what was called with the name.
func wantErrors(t *testing.T, want error, format string, errs map[string]error) {
	t.Helper()
	for name, err := range errs {
		if !errors.Is(err, want) {
			t.Errorf("%s: want %v, got %v", fmt.Sprintf(format, name), want, err)
		}
	}
}

// TestUseAfterClose: after Device.Close every object of the device returns
// ErrDeviceClosed, and releasing it is a harmless no-op.
func TestUseAfterClose(t *testing.T) {
	d := openUnmanaged(t, gpu.Options{Debug: true})
	k, params := copyKernelOn(t, d)
	b, _ := d.NewBuffer(4096)
	b2, _ := d.NewBuffer(100 << 20) // a dedicated block
	l, _ := d.NewCommandList()
	l.Begin()
	if err := l.Dispatch(k, []gpu.Range{{Buffer: b, Size: 256}, {Buffer: b2, Size: 256}}, params(64), [3]uint32{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	l.End()
	if err := l.Submit(); err != nil { // pending at Close: Close waits for it
		t.Fatal(err)
	}
	// Debug mode reports the kernel and list left alive.
	if err := d.Close(); !errors.Is(err, gpu.ErrValidation) {
		t.Fatalf("Close with a kernel and a list left alive: want them reported, got %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	wantErrors(t, gpu.ErrDeviceClosed, "%s after Close", map[string]error{
		"Write":    b.Write(0, []byte{1}),
		"Read":     b.Read(0, []byte{1}),
		"Fill":     b2.Fill(0, 4, 0),
		"WaitIdle": d.WaitIdle(),
	})
	if _, err := d.NewBuffer(4); !errors.Is(err, gpu.ErrDeviceClosed) {
		t.Errorf("NewBuffer after Close: %v", err)
	}
	if _, err := d.NewCommandList(); !errors.Is(err, gpu.ErrDeviceClosed) {
		t.Errorf("NewCommandList after Close: %v", err)
	}
	if _, err := d.NewKernel(gpu.KernelDesc{Name: "x"}); !errors.Is(err, gpu.ErrDeviceClosed) {
		t.Errorf("NewKernel after Close: %v", err)
	}
	checkListErrors(t, l, b, k, gpu.ErrDeviceClosed)
	wantErrors(t, nil, "%s after Close", map[string]error{"Buffer.Free": b.Free(), "Kernel.Destroy": k.Destroy(), "CommandList.Destroy": l.Destroy()})
	if n := d.Allocated(); n != 0 {
		t.Errorf("%d bytes allocated after Close", n)
	}
}

// TestForeignDevice: a buffer or kernel of another device is refused.
func TestForeignDevice(t *testing.T) {
	d1 := testutil.OpenGPU(t, gpu.Options{})
	d2 := testutil.OpenGPU(t, gpu.Options{})
	k1, params := copyKernel(t, d1)
	k2, _ := copyKernel(t, d2)
	a, _ := d1.NewBuffer(256)
	defer a.Free()
	x, _ := d2.NewBuffer(256)
	defer x.Free()
	l, _ := d1.NewCommandList()
	defer l.Destroy()
	l.Begin()
	wantErrors(t, gpu.ErrForeignDevice, "%s", map[string]error{
		"Dispatch with another device's buffer": l.Dispatch(k1, []gpu.Range{{Buffer: a, Size: 256}, {Buffer: x, Size: 256}}, params(64), [3]uint32{1, 1, 1}),
		"Dispatch of another device's kernel":   l.Dispatch(k2, []gpu.Range{{Buffer: a, Size: 256}, {Buffer: a, Size: 256}}, params(64), [3]uint32{1, 1, 1}),
		"Copy from another device's buffer":     l.Copy(gpu.Range{Buffer: a, Size: 4}, gpu.Range{Buffer: x, Size: 4}),
		"Fill of another device's buffer":       l.Fill(gpu.Range{Buffer: x, Size: 4}, 0),
	})
	if err := l.End(); err != nil {
		t.Fatal(err)
	}
}

// TestFreeWhilePending: memory freed while a submission uses it is not
// handed out again until the submission is seen to complete.
func TestFreeWhilePending(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	k, params := copyKernel(t, d)
	const n = 4096
	src, _ := d.NewBuffer(4 * n)
	dst, _ := d.NewBuffer(4 * n)
	defer dst.Free()
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(3*i+1))
	}
	src.Write(0, data)
	l, _ := d.NewCommandList()
	defer l.Destroy()
	l.Begin()
	if err := l.Dispatch(k, []gpu.Range{{Buffer: src, Size: 4 * n}, {Buffer: dst, Size: 4 * n}}, params(n), [3]uint32{n / 64, 1, 1}); err != nil {
		t.Fatal(err)
	}
	l.End()
	before := d.Allocated()
	if err := l.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := l.Submit(); !errors.Is(err, gpu.ErrPending) {
		t.Fatalf("second Submit of a pending list: %v", err)
	}
	if err := l.Begin(); !errors.Is(err, gpu.ErrPending) {
		t.Fatalf("Begin of a pending list: %v", err)
	}
	if err := src.Free(); err != nil {
		t.Fatal(err)
	}
	// The freed range is still held: a new buffer of its size must not
	// receive it, which poison written into the new buffer would show.
	squat, _ := d.NewBuffer(4 * n)
	defer squat.Free()
	if err := squat.Fill(0, 4*n, 0xDEADBEEF); err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4*n)
	dst.Read(0, got)
	for i := range n {
		if g := binary.LittleEndian.Uint32(got[4*i:]); g != uint32(3*i+1) {
			t.Fatalf("word %d = %#x: the source was reused while the copy ran", i, g)
		}
	}
	if after := d.Allocated(); after < before {
		t.Fatalf("allocated %d before, %d after", before, after)
	}
}

// TestConcurrentSubmit: of 8 concurrent Submits of one list exactly one
// reaches the queue; the others get ErrPending.
func TestConcurrentSubmit(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	k, params := copyKernel(t, d)
	a, _ := d.NewBuffer(1 << 16)
	b, _ := d.NewBuffer(1 << 16)
	defer a.Free()
	defer b.Free()
	l, _ := d.NewCommandList()
	defer l.Destroy()
	l.Begin()
	l.Dispatch(k, []gpu.Range{{Buffer: a, Size: 1 << 16}, {Buffer: b, Size: 1 << 16}}, params(1<<14), [3]uint32{1 << 8, 1, 1})
	l.End()
	for round := range 20 {
		ok, pending := 0, 0
		for _, err := range testutil.StartTogether(8, func(int) error { return l.Submit() })() {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, gpu.ErrPending):
				pending++
			default:
				t.Errorf("round %d: %v", round, err)
			}
		}
		if ok != 1 || pending != 7 {
			t.Fatalf("round %d: %d submits accepted, %d refused as pending", round, ok, pending)
		}
		if err := l.Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCloseDuringUse closes a device while goroutines use its objects:
// every call either works or fails with ErrDeviceClosed.
func TestCloseDuringUse(t *testing.T) {
	for round := range 10 {
		d := openUnmanaged(t, gpu.Options{})
		k, params := copyKernelOn(t, d)
		var wg, started sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			started.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					if i == 3 {
						started.Done()
					}
					b, err := d.NewBuffer(1024)
					if err == nil {
						err = b.Fill(0, 1024, uint32(i))
					}
					var l *gpu.CommandList
					if err == nil {
						l, err = d.NewCommandList()
					}
					if err == nil {
						err = errors.Join(l.Begin(), l.Dispatch(k, []gpu.Range{{Buffer: b, Size: 512}, {Buffer: b, Offset: 512, Size: 512}}, params(128), [3]uint32{2, 1, 1}),
							l.End(), l.Submit())
						if g%2 == 0 {
							err = errors.Join(err, l.Wait())
						}
						l.Destroy()
					}
					if b != nil {
						b.Free()
					}
					if err != nil {
						if !errors.Is(err, gpu.ErrDeviceClosed) {
							t.Errorf("round %d: %v", round, err)
						}
						if i < 3 {
							started.Done()
						}
						return
					}
				}
			}()
		}
		started.Wait()
		if err := d.Close(); err != nil && !errors.Is(err, gpu.ErrValidation) {
			t.Errorf("round %d: Close: %v", round, err)
		}
		wg.Wait()
		k.Destroy()
	}
}

// TestZeroValues: zero and nil objects return errors, never panic.
func TestZeroValues(t *testing.T) {
	var zero gpu.Device
	if _, err := zero.NewBuffer(4); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("NewBuffer on a zero Device: %v", err)
	}
	if _, err := zero.NewCommandList(); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("NewCommandList on a zero Device: %v", err)
	}
	if _, err := zero.NewKernel(gpu.KernelDesc{}); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("NewKernel on a zero Device: %v", err)
	}
	var nilDevice *gpu.Device
	if err := errors.Join(zero.WaitIdle(), nilDevice.WaitIdle()); !errors.Is(err, gpu.ErrReleased) {
		t.Errorf("WaitIdle: %v", err)
	}
	if zero.Close() != nil || nilDevice.Close() != nil || zero.TakeValidationError() != nil || zero.Allocated() != 0 || zero.Direct() {
		t.Error("Close, TakeValidationError, Allocated or Direct of a zero Device")
	}
	var b gpu.Buffer
	var nilBuffer *gpu.Buffer
	wantErrors(t, gpu.ErrReleased, "%s on a zero Buffer", map[string]error{
		"Write": b.Write(0, []byte{1}), "Read": b.Read(0, make([]byte, 1)), "Fill": b.Fill(0, 4, 0),
		"nil Write": nilBuffer.Write(0, nil), "nil Read": nilBuffer.Read(0, nil), "nil Fill": nilBuffer.Fill(0, 0, 0),
	})
	if b.Free() != nil || nilBuffer.Free() != nil || b.Size() != 0 || nilBuffer.Size() != 0 {
		t.Error("Free or Size of a zero Buffer")
	}
	var k gpu.Kernel
	var nilKernel *gpu.Kernel
	if k.Destroy() != nil || nilKernel.Destroy() != nil {
		t.Error("Destroy of a zero Kernel")
	}
	checkListErrors(t, &gpu.CommandList{}, &b, &k, gpu.ErrReleased)
}

// TestAccessorsOfNilAndZeroObjects: the plain accessors of a nil or zero
// Device or Kernel answer a zero value instead of panicking, as every
// other method of those objects returns an error.
func TestAccessorsOfNilAndZeroObjects(t *testing.T) {
	for name, d := range map[string]*gpu.Device{"nil": nil, "zero": {}} {
		if d.Debug() || d.Lost() || d.CachePath() != "" {
			t.Errorf("%s Device: Debug %v, Lost %v, CachePath %q", name, d.Debug(), d.Lost(), d.CachePath())
		}
		_ = d.Closed()
	}
	for name, k := range map[string]*gpu.Kernel{"nil": nil, "zero": {}} {
		if k.Name() != "" || k.Bindings() != 0 {
			t.Errorf("%s Kernel: Name %q, Bindings %d", name, k.Name(), k.Bindings())
		}
	}
}
