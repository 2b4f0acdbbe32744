package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// The C interface itself is tested from C (capi/tests/abi_test.c, make
// capi-test) and Python (python/tests); these cover the Go helpers that
// decide what a handle or a host buffer may be.

func TestHandlesAreNeverZeroAndDieOnRemove(t *testing.T) {
	d := &device{}
	h := handles.add(d)
	if h == 0 {
		t.Fatal("handle 0 was issued; 0 must stay invalid")
	}
	got, err := lookup[*device]("call", "device", h, "device")
	if err != nil || got != d {
		t.Fatalf("lookup(%d) = %v, %v; want the device", h, got, err)
	}
	if _, err := lookup[*preparedOp]("call", "op", h, "operator"); !errors.Is(err, hresult.E_INVALIDARG) {
		t.Fatalf("a device handle looked up as an operator: %v; want E_INVALIDARG", err)
	}
	handles.remove(h)
	if _, err := lookup[*device]("call", "device", h, "device"); !errors.Is(err, hresult.E_INVALIDARG) {
		t.Fatalf("a removed handle: %v; want E_INVALIDARG", err)
	}
	if h2 := handles.add(d); h2 == h {
		t.Fatalf("handle %d was reused after removal", h)
	}
}

func TestSpanBytesIsTheLastAddressedByte(t *testing.T) {
	for _, c := range []struct {
		desc tensor.Desc
		want uint64
	}{
		{tensor.NewDesc(tensor.Int8, []uint32{3}), 3}, // not rounded up to 4
		{tensor.NewDesc(tensor.Float32, []uint32{2, 3}), 24},
		{tensor.NewStridedDesc(tensor.Int16, []uint32{3, 2}, []uint32{1, 3}), 12},
		{tensor.NewStridedDesc(tensor.UInt64, []uint32{4, 5}, []uint32{0, 1}), 40}, // broadcast rows
		{tensor.NewStridedDesc(tensor.Int8, []uint32{3}, []uint32{3}), 7},
	} {
		if got := c.desc.SpanBytes(); got != c.want {
			t.Errorf("SpanBytes(%v) = %d, want %d", c.desc, got, c.want)
		}
	}
}

func TestDeviceRefusesCloseWhileOperatorsLive(t *testing.T) {
	d := &device{}
	if err := d.acquire("create"); err != nil {
		t.Fatal(err)
	}
	if err := d.close("destroy"); !errors.Is(err, hresult.E_INVALIDARG) {
		t.Fatalf("close with a live operator: %v; want E_INVALIDARG", err)
	}
	d.releaseOne()
	d.closed = true // as close does, without a real device
	if err := d.acquire("create"); !errors.Is(err, hresult.E_INVALIDARG) {
		t.Fatalf("acquire on a closed device: %v; want E_INVALIDARG", err)
	}
}

// TestRunCacheReusesAndBoundsOperators: vkdml_run's cache hands out one
// operator per desc, keeps at most runCacheSize, releases the least
// recently used (an evicted one still running only when its run ends),
// and clear releases the rest, so the device can close.
func TestRunCacheReusesAndBoundsOperators(t *testing.T) {
	d := &device{}
	c := newRunCache()
	newOp := func() *preparedOp {
		if err := d.acquire("run"); err != nil {
			t.Fatal(err)
		}
		return &preparedOp{dev: d}
	}
	first := c.Add("k0", newOp())
	if again := c.Acquire("k0"); again != first {
		t.Fatal("a second acquire of one key gave another entry")
	}
	c.Done(first)
	// first still has a user (the add's): evicting it must not release it.
	for i := 1; i <= runCacheSize; i++ {
		c.Done(c.Add(fmt.Sprint("k", i), newOp()))
	}
	if c.Acquire("k0") != nil {
		t.Fatal("the least recently used entry was not evicted")
	}
	if first.Value.released {
		t.Fatal("an evicted operator was released while in use")
	}
	c.Done(first)
	if !first.Value.released {
		t.Fatal("an evicted operator was not released by its last user")
	}
	if d.live != runCacheSize {
		t.Fatalf("%d operators live, want the %d cached", d.live, runCacheSize)
	}
	// A racing add of a key already cached keeps the first and releases
	// the newcomer.
	dup := newOp()
	e := c.Add("k1", dup)
	if e.Value == dup || !dup.released {
		t.Fatal("a duplicate add replaced the cached operator or leaked the new one")
	}
	c.Done(e)
	c.Clear()
	if d.live != 0 {
		t.Fatalf("%d operators live after clear, want 0", d.live)
	}
}

// TestExportTurnsPanicIntoEUnexpected: a panic in an export's body is
// returned to C as E_UNEXPECTED instead of crashing the calling program
// (TestPanicAtTheBoundary checks its message), and an error keeps its
// HRESULT.
func TestExportTurnsPanicIntoEUnexpected(t *testing.T) {
	if hr := hresult.HRESULT(uint32(export("vkdml_test", func(string) error { panic("boom") }))); hr != hresult.E_UNEXPECTED {
		t.Errorf("a panicking body returned %#x, want E_UNEXPECTED", uint32(hr))
	}
	runtimePanic := func(string) error {
		var m map[string]int
		m["x"] = 1 // a runtime panic, as a planner bug would raise
		return nil
	}
	if hr := hresult.HRESULT(uint32(export("vkdml_test", runtimePanic))); hr != hresult.E_UNEXPECTED {
		t.Errorf("a runtime panic returned %#x, want E_UNEXPECTED", uint32(hr))
	}
	if hr := hresult.HRESULT(uint32(export("vkdml_test", func(call string) error { return invalidArg(call, "x", "bad") }))); hr != hresult.E_INVALIDARG {
		t.Errorf("an E_INVALIDARG body returned %#x", uint32(hr))
	}
	if hr := export("vkdml_test", func(string) error { return nil }); hr != 0 {
		t.Errorf("a body without error returned %#x, want S_OK", uint32(hr))
	}
}

// TestVersionIsTheFilesRelease: vkdml_version()'s string (made once, in C
// memory) is the repository's VERSION file's release, with no build
// metadata in a plain go test build.
func TestVersionIsTheFilesRelease(t *testing.T) {
	file, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	p := unsafe.Pointer(vkdmlgo_version())
	if p != unsafe.Pointer(vkdmlgo_version()) {
		t.Error("vkdml_version() returned two pointers; its string is static storage")
	}
	var got []byte
	for i := 0; *(*byte)(unsafe.Add(p, i)) != 0; i++ {
		got = append(got, *(*byte)(unsafe.Add(p, i)))
	}
	if want := strings.TrimSpace(string(file)); string(got) != want {
		t.Errorf("vkdml_version() = %q; VERSION holds %q", got, want)
	}
}
