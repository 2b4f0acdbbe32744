package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"unsafe"
)

const (
	// BufferAlignment is the alignment of every sub-allocation: it covers
	// any minStorageBufferOffsetAlignment (at most 256 by the spec) and
	// DirectML's 256-byte temporary and persistent resource alignment.
	BufferAlignment = 256
	// blockSize is the size of the shared blocks small buffers are carved
	// from; a request over half of it gets a block of its own.
	blockSize = 64 << 20

	usageStorage      = 0x20 // VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
	usageUniformTexel = 0x04 // VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT: KernelDesc.TexelBindings
	usageTransferSrc  = 0x01
	usageTransferDst  = 0x02
	usageIndirect     = 0x100 // VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT: CommandList.DispatchIndirect's arguments
)

type span struct{ off, size uint64 }

// block is one VkDeviceMemory with one VkBuffer over all of it; buffers are
// ranges of that VkBuffer, so a sub-allocation needs no Vulkan call at all.
type block struct {
	mem       C.VkDeviceMemory
	buf       C.VkBuffer
	size      uint64
	mapped    unsafe.Pointer // nil unless host-visible
	free      []span         // sorted by offset, coalesced
	dedicated bool
}

// pool hands out ranges of blocks of one memory type.
type pool struct {
	typeIndex uint32
	mapped    bool
	blocks    []*block
}

// allocator owns the device's memory: one pool for tensors and, when
// that memory is not host-visible, one for staging.
type allocator struct {
	d       *Device
	mu      sync.Mutex
	main    *pool
	staging *pool // nil when main is host-visible
	closed  bool  // destroy has run; guarded by mu
	// segmented lets a tensor buffer span several allocations
	// (Options.MaxAllocation).
	segmented bool
}

// pickTypes chooses the memory types. When a type is device-local,
// host-visible and coherent and lives in the largest device-local heap (all
// of lavapipe's memory; resizable-BAR GPUs), buffers use it directly with no
// staging copy. Otherwise buffers are device-local and staged through a
// host-visible coherent type (cached preferred, for readback).
func pickTypes(types []MemoryType) (main, staging int, direct bool) {
	main, staging = -1, -1
	var bigHeap uint64
	for _, t := range types {
		if t.Flags&MemoryDeviceLocal != 0 && t.HeapSize > bigHeap {
			bigHeap = t.HeapSize
		}
	}
	const directFlags = MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent
	for i, t := range types {
		if t.Flags&directFlags == directFlags && t.HeapSize == bigHeap {
			return i, -1, true
		}
	}
	for i, t := range types {
		if t.Flags&MemoryDeviceLocal != 0 && main < 0 {
			main = i
		}
	}
	const hostFlags = MemoryHostVisible | MemoryHostCoherent
	for i, t := range types {
		if t.Flags&hostFlags == hostFlags && (staging < 0 || t.Flags&MemoryHostCached != 0 && types[staging].Flags&MemoryHostCached == 0) {
			staging = i
		}
	}
	if main < 0 { // no device-local type at all: use host memory directly
		return staging, -1, true
	}
	return main, staging, false
}

func newAllocator(d *Device, forceStaging bool) *allocator {
	m, s, direct := pickTypes(d.Info.MemoryTypes)
	if forceStaging && d.Info.MemoryTypes[m].Flags&MemoryHostVisible != 0 {
		s, direct = m, false // same memory, but used through staging copies
	}
	a := &allocator{d: d, main: &pool{typeIndex: uint32(max(m, 0)), mapped: direct}}
	if !direct && s >= 0 {
		a.staging = &pool{typeIndex: uint32(s), mapped: true}
	}
	return a
}

// Direct reports whether tensors live in host-visible memory, so that
// uploads and readbacks are plain copies with no staging.
func (d *Device) Direct() bool { return d != nil && d.mem != nil && d.mem.main.mapped }

// maxBlock is the largest single allocation the device allows for one
// buffer.
func (a *allocator) maxBlock() uint64 {
	m := a.d.Limits.MaxMemoryAllocationSize
	if b := a.d.Limits.MaxBufferSize; b != 0 && b < m {
		m = b
	}
	if m == 0 {
		m = 1 << 30
	}
	return m
}

// alignUp rounds v up to a multiple of a (a power of two), reporting false
// when the result does not fit in 64 bits.
func alignUp(v, a uint64) (uint64, bool) {
	sum, carry := bits.Add64(v, a-1, 0)
	if carry != 0 {
		return 0, false
	}
	return sum &^ (a - 1), true
}

// addRange returns off+size, reporting false on overflow.
func addRange(off, size uint64) (uint64, bool) {
	end, carry := bits.Add64(off, size, 0)
	return end, carry == 0
}

// blockBytes is how much of a block a buffer of size bytes takes: size
// (at least 4) rounded up to BufferAlignment. It fails when that exceeds
// limit, the largest allocation the device allows, or overflows.
func blockBytes(size, limit uint64) (uint64, error) {
	size = max(size, 4)
	aligned, ok := alignUp(size, BufferAlignment)
	if !ok || aligned > limit {
		return 0, fmt.Errorf("gpu: a buffer of %d bytes exceeds the device's largest allocation (%d bytes): %w",
			size, limit, &Error{Call: "vkAllocateMemory", Result: resultOutOfDeviceMemory})
	}
	return aligned, nil
}

func (a *allocator) newBlock(p *pool, size uint64, dedicated bool) (*block, error) {
	d := a.d
	b := &block{size: size, dedicated: dedicated}
	if err := d.result("vkCreateBuffer", C.vkdml_create_buffer(d.dev, C.uint64_t(size), usageStorage|usageUniformTexel|usageTransferSrc|usageTransferDst|usageIndirect, &b.buf)); err != nil {
		return nil, err
	}
	var reqSize, reqAlign C.uint64_t
	var types C.uint32_t
	C.vkdml_buffer_requirements(d.dev, b.buf, &reqSize, &reqAlign, &types)
	if uint32(types)&(1<<p.typeIndex) == 0 {
		C.vkdml_destroy_buffer(d.dev, b.buf)
		return nil, fmt.Errorf("gpu: memory type %d is not allowed for storage buffers (allowed mask %#x)", p.typeIndex, uint32(types))
	}
	if err := d.result("vkAllocateMemory", C.vkdml_allocate_memory(d.dev, reqSize, C.uint32_t(p.typeIndex), &b.mem)); err != nil {
		C.vkdml_destroy_buffer(d.dev, b.buf)
		return nil, err
	}
	if err := d.result("vkBindBufferMemory", C.vkdml_bind_buffer_memory(d.dev, b.buf, b.mem)); err != nil {
		C.vkdml_free_memory(d.dev, b.mem)
		C.vkdml_destroy_buffer(d.dev, b.buf)
		return nil, err
	}
	if p.mapped {
		if err := d.result("vkMapMemory", C.vkdml_map_memory(d.dev, b.mem, &b.mapped)); err != nil {
			C.vkdml_free_memory(d.dev, b.mem)
			C.vkdml_destroy_buffer(d.dev, b.buf)
			return nil, err
		}
	}
	b.free = []span{{0, size}}
	return b, nil
}

func (a *allocator) freeBlock(b *block) {
	if b.mapped != nil {
		C.vkdml_unmap_memory(a.d.dev, b.mem)
	}
	C.vkdml_destroy_buffer(a.d.dev, b.buf)
	C.vkdml_free_memory(a.d.dev, b.mem)
}

// take carves size bytes out of b, or reports false.
func (b *block) take(size uint64) (uint64, bool) {
	for i, s := range b.free {
		if s.size >= size {
			off := s.off
			if s.size == size {
				b.free = append(b.free[:i], b.free[i+1:]...)
			} else {
				b.free[i] = span{s.off + size, s.size - size}
			}
			return off, true
		}
	}
	return 0, false
}

// give returns a range to b, merging it with its neighbours.
func (b *block) give(off, size uint64) {
	i := sort.Search(len(b.free), func(i int) bool { return b.free[i].off > off })
	b.free = append(b.free, span{})
	copy(b.free[i+1:], b.free[i:])
	b.free[i] = span{off, size}
	if i+1 < len(b.free) && b.free[i].off+b.free[i].size == b.free[i+1].off {
		b.free[i].size += b.free[i+1].size
		b.free = append(b.free[:i+1], b.free[i+2:]...)
	}
	if i > 0 && b.free[i-1].off+b.free[i-1].size == b.free[i].off {
		b.free[i-1].size += b.free[i].size
		b.free = append(b.free[:i], b.free[i+1:]...)
	}
}

func (b *block) empty() bool { return len(b.free) == 1 && b.free[0].size == b.size }

// alloc carves a range for a buffer of size bytes out of p and returns its
// block and offset; the range is blockBytes(size) long.
func (a *allocator) alloc(p *pool, size uint64) (*block, uint64, error) {
	size, err := blockBytes(size, a.maxBlock())
	if err != nil {
		return nil, 0, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, 0, fmt.Errorf("gpu: alloc: %w", ErrDeviceClosed)
	}
	shared := min(blockSize, a.maxBlock()&^(BufferAlignment-1))
	if size <= shared/2 {
		for _, b := range p.blocks {
			if !b.dedicated {
				if off, ok := b.take(size); ok {
					return b, off, nil
				}
			}
		}
	}
	bs, dedicated := shared, false
	if size > shared/2 {
		bs, dedicated = size, true
	}
	b, err := a.newBlock(p, bs, dedicated)
	if err != nil {
		return nil, 0, err
	}
	p.blocks = append(p.blocks, b)
	off, _ := b.take(size)
	return b, off, nil
}

// release returns a range that alloc handed out for size bytes. After the
// allocator is destroyed it does nothing: the blocks are gone.
func (a *allocator) release(p *pool, b *block, off, size uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	n, err := blockBytes(size, a.maxBlock())
	if err != nil {
		panic("gpu: release of a range alloc could not have handed out") // unreachable: alloc checked the same size
	}
	b.give(off, n)
	if b.empty() {
		for i, x := range p.blocks {
			if x == b {
				p.blocks = append(p.blocks[:i], p.blocks[i+1:]...)
				break
			}
		}
		a.freeBlock(b)
	}
}

// Allocated returns the bytes of device memory held in blocks, for tests
// that check nothing is left behind. A dml device's shared tables (the
// FLOAT16 exp table of REDUCE LOG_SUM_EXP, dml/tables.go) stay allocated
// from the first operator that binds one until the device is closed, so
// such a test counts from after that operator, or runs none.
func (d *Device) Allocated() uint64 {
	if d == nil || d.mem == nil {
		return 0
	}
	a := d.mem
	a.mu.Lock()
	defer a.mu.Unlock()
	var n uint64
	for _, p := range []*pool{a.main, a.staging} {
		if p != nil {
			for _, b := range p.blocks {
				n += b.size
			}
		}
	}
	return n
}

// destroy frees every block; the device is closing.
func (a *allocator) destroy() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for _, p := range []*pool{a.main, a.staging} {
		if p == nil {
			continue
		}
		for _, b := range p.blocks {
			a.freeBlock(b)
		}
		p.blocks = nil
	}
}
