package testutil

import (
	"testing"

	"github.com/vkdml/vkdml/gpu"
)

// NewGPUBuffer is a buffer of size bytes on d, freed when the test ends.
func NewGPUBuffer(t testing.TB, d *gpu.Device, size uint64) *gpu.Buffer {
	t.Helper()
	b, err := d.NewBuffer(size)
	if err != nil {
		t.Fatalf("NewBuffer(%d): %v", size, err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

// BeginGPUList is a new command list of d, begun for recording and
// destroyed when the test ends.
func BeginGPUList(t testing.TB, d *gpu.Device) *gpu.CommandList {
	t.Helper()
	l, err := d.NewCommandList()
	if err != nil {
		t.Fatalf("NewCommandList: %v", err)
	}
	t.Cleanup(func() { l.Destroy() })
	if err := l.Begin(); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return l
}
