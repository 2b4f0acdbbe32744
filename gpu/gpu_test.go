package gpu_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/shaders"
)

// copyKernel builds the 32-bit copy kernel, destroyed at cleanup, with its
// parameter block for a packed 1D copy of n words.
func copyKernel(t *testing.T, d *gpu.Device) (*gpu.Kernel, func(n uint32) []byte) {
	t.Helper()
	k, params := copyKernelOn(t, d)
	t.Cleanup(func() { k.Destroy() })
	return k, params
}

// copyParams is the copy kernel's parameter block for n packed words.
func copyParams(n uint32) []byte {
	p := make([]byte, 4*26)
	binary.LittleEndian.PutUint32(p[0:], 1)  // rank
	binary.LittleEndian.PutUint32(p[4:], n)  // total
	binary.LittleEndian.PutUint32(p[8:], n)  // sizes[0]
	binary.LittleEndian.PutUint32(p[40:], 1) // in strides[0]
	binary.LittleEndian.PutUint32(p[72:], 1) // out strides[0]
	return p
}

func TestDeviceInfo(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	i := d.Info
	t.Logf("%s (%s), Vulkan %s, driver %s %s, subgroup %d", i.Name, i.TypeName, i.API, i.DriverName, i.DriverInfo, i.Limits.SubgroupSize)
	if i.Limits.MaxStorageBufferRange == 0 || i.Limits.MaxComputeWorkGroupInvocations == 0 || len(i.MemoryTypes) == 0 {
		t.Fatalf("limits not read: %+v", i.Limits)
	}
	if i.Limits.SubgroupSize == 0 || i.Limits.MinSubgroupSize > i.Limits.SubgroupSize {
		t.Fatalf("subgroup size not read: %+v", i.Limits)
	}
}

func TestCopyResubmitAndTimestamps(t *testing.T) {
	for _, staging := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "staging"}[staging], func(t *testing.T) {
			testCopyResubmit(t, testutil.OpenGPU(t, gpu.Options{ForceStaging: staging}))
		})
	}
}

func testCopyResubmit(t *testing.T, d *gpu.Device) {
	k, params := copyKernel(t, d)
	const n = 1000
	src, err := d.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	// A guard band of 64 words after the output catches writes past it.
	dst, err := d.NewBuffer(4*n + 256)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i*7+1))
	}
	if err := src.Write(0, data); err != nil {
		t.Fatal(err)
	}
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Destroy()
	if err := l.Begin(); err != nil {
		t.Fatal(err)
	}
	t0, _ := l.Timestamp()
	if err := l.Dispatch(k, []gpu.Range{{Buffer: src, Size: 4 * n}, {Buffer: dst, Size: 4 * n}}, params(n), [3]uint32{4, 1, 1}); err != nil {
		t.Fatal(err)
	}
	t1, _ := l.Timestamp()
	if err := l.End(); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if err := dst.Fill(0, dst.Size(), 0xDEADBEEF); err != nil {
			t.Fatal(err)
		}
		if err := l.Run(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got := make([]byte, dst.Size())
		if err := dst.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if g := binary.LittleEndian.Uint32(got[4*i:]); g != uint32(i*7+1) {
				t.Fatalf("round %d: word %d = %#x", round, i, g)
			}
		}
		for i := 4 * n; i < len(got); i += 4 {
			if g := binary.LittleEndian.Uint32(got[i:]); g != 0xDEADBEEF {
				t.Fatalf("round %d: guard word at byte %d overwritten: %#x", round, i, g)
			}
		}
	}
	if t0 >= 0 {
		ts, err := l.Timestamps()
		if err != nil {
			t.Fatal(err)
		}
		if ts[t1] < ts[t0] {
			t.Fatalf("timestamps go backwards: %v", ts)
		}
	}
}

// TestValidationCatchesHazard proves the validation layer is on and
// reported: a dispatch reading what the previous one wrote, with no barrier
// between them, is a read-after-write hazard for synchronization validation.
func TestValidationCatchesHazard(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	k, params := copyKernel(t, d)
	a, _ := d.NewBuffer(256)
	b, _ := d.NewBuffer(256)
	c, _ := d.NewBuffer(256)
	defer a.Free()
	defer b.Free()
	defer c.Free()
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Destroy()
	l.Begin()
	l.Dispatch(k, []gpu.Range{{Buffer: a, Size: 256}, {Buffer: b, Size: 256}}, params(64), [3]uint32{1, 1, 1})
	l.Dispatch(k, []gpu.Range{{Buffer: b, Size: 256}, {Buffer: c, Size: 256}}, params(64), [3]uint32{1, 1, 1})
	l.End()
	err = l.Run()
	if !errors.Is(err, gpu.ErrValidation) {
		t.Fatalf("want a synchronization hazard reported, got %v", err)
	}
	t.Logf("reported as expected: %.200s", err)
}

func TestAllocationTooLarge(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	_, err := d.NewBuffer(d.Limits.MaxMemoryAllocationSize + 1)
	if !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("want ErrOutOfMemory, got %v", err)
	}
	// The device stays usable.
	b, err := d.NewBuffer(1024)
	if err != nil {
		t.Fatal(err)
	}
	b.Free()
}

func TestCreateDestroyLoopLeavesNothing(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	code, _ := shaders.SPIRV(shaders.CopyName(32, false))
	for i := range 20 {
		k, err := d.NewKernel(gpu.KernelDesc{Name: "copy", SPIRV: code, Bindings: 2, ParamBytes: 4 * 26, Spec: []uint32{64}})
		if err != nil {
			t.Fatal(err)
		}
		bufs := []*gpu.Buffer{}
		for j := range 5 {
			b, err := d.NewBuffer(uint64(1024 << j))
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, b)
		}
		big, err := d.NewBuffer(40 << 20) // a dedicated block
		if err != nil {
			t.Fatal(err)
		}
		l, err := d.NewCommandList()
		if err != nil {
			t.Fatal(err)
		}
		l.Destroy()
		big.Free()
		for _, b := range bufs {
			b.Free()
		}
		k.Destroy()
		if n := d.Allocated(); n != 0 {
			t.Fatalf("iteration %d: %d bytes still allocated", i, n)
		}
	}
	if err := d.TakeValidationError(); err != nil {
		t.Fatal(err)
	}
}

func TestSelector(t *testing.T) {
	infos, def, err := gpu.Enumerate("")
	if err != nil {
		testutil.NoDevice(t, err)
	}
	if def < 0 {
		t.Fatalf("no default among %d devices", len(infos))
	}
	byName, _, _ := gpu.Enumerate(infos[def].Name[:4])
	if len(byName) != len(infos) {
		t.Fatal("enumeration changed")
	}
	if _, _, err := gpu.Enumerate("no-such-device-xyz"); err != nil {
		t.Fatal(err)
	}
	if _, err := gpu.Open(gpu.Options{Device: "no-such-device-xyz", PipelineCacheDir: "off"}); !errors.Is(err, gpu.ErrNoDevice) {
		t.Fatalf("want ErrNoDevice, got %v", err)
	}
	if _, err := gpu.Open(gpu.Options{Device: "99", PipelineCacheDir: "off"}); !errors.Is(err, gpu.ErrNoDevice) {
		t.Fatalf("want ErrNoDevice for index 99, got %v", err)
	}
}

// openUnmanaged opens a device the test closes itself.
func openUnmanaged(t *testing.T, opts gpu.Options) *gpu.Device {
	t.Helper()
	opts.PipelineCacheDir = "off"
	d, err := gpu.Open(opts)
	if err != nil {
		if errors.Is(err, gpu.ErrNoLoader) || errors.Is(err, gpu.ErrNoDevice) {
			testutil.NoDevice(t, err)
		}
		t.Fatal(err)
	}
	return d
}

// copyKernelOn is copyKernel for a device the test closes itself: the
// kernel is not destroyed at cleanup.
func copyKernelOn(t *testing.T, d *gpu.Device) (*gpu.Kernel, func(n uint32) []byte) {
	t.Helper()
	code := module(t, shaders.CopyName(32, false))
	k, err := d.NewKernel(gpu.KernelDesc{Name: "copy", SPIRV: code, Bindings: 2, ParamBytes: 4 * 26, Spec: []uint32{64}})
	if err != nil {
		t.Fatal(err)
	}
	return k, copyParams
}

// TestTimestampsBeforeSubmission asks for the timestamps of a list whose
// timestamps were recorded but never executed (first recording, and a
// second recording with more timestamps than the completed one): there
// are no results yet, and Timestamps must say so rather than wait on
// queries the GPU never wrote (vkGetQueryPoolResults with WAIT_BIT waits
// forever on them).
func TestTimestampsBeforeSubmission(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	if d.Limits.TimestampValidBits == 0 {
		t.Skip("the compute queue has no timestamps")
	}
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Destroy()
	record := func(n int) {
		t.Helper()
		if err := l.Begin(); err != nil {
			t.Fatal(err)
		}
		for range n {
			if _, err := l.Timestamp(); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
	}
	timestamps := func(what string) []float64 {
		t.Helper()
		type result struct {
			ts  []float64
			err error
		}
		done := make(chan result, 1)
		go func() {
			ts, err := l.Timestamps()
			done <- result{ts, err}
		}()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("%s: %v", what, r.err)
			}
			return r.ts
		case <-time.After(time.Minute): // a hang guard, not a timing
			t.Fatalf("%s: Timestamps waits for queries that were never executed", what)
		}
		return nil
	}
	record(2)
	if ts := timestamps("recorded, not submitted"); len(ts) != 0 {
		t.Fatalf("recorded, not submitted: %v; want none", ts)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if ts := timestamps("after a run"); len(ts) != 2 || ts[1] < ts[0] {
		t.Fatalf("after a run: %v; want 2 in order", ts)
	}
	record(4)
	if ts := timestamps("re-recorded with more, not submitted"); len(ts) != 2 {
		t.Fatalf("re-recorded, not submitted: %v; want the completed run's 2", ts)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if ts := timestamps("after the second run"); len(ts) != 4 {
		t.Fatalf("after the second run: %v; want 4", ts)
	}
}
