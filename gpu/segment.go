package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"unsafe"
)

// A buffer is one allocation unless Options.MaxAllocation is set and the
// buffer is larger than one allocation may be; then it is several, its
// segments, each a dedicated block of the same size but the last. Every
// operation splits at segment boundaries: host copies and fills, and the
// list's Copy and Fill, piece by piece; a kernel binding, which is one
// descriptor, through a scratch copy when its window crosses a boundary
// (see recordCrossing). Device.Limits.MaxStorageBufferRange is lowered to
// the segment size, so every window a planner cuts fits one scratch buffer.

// segment is one allocation of a buffer: bytes [start, start+size) of the
// buffer live at offset in blk.
type segment struct {
	blk    *block
	offset uint64
	start  uint64
	size   uint64
}

// mapped returns the segment's bytes when host-visible, nil otherwise.
func (s *segment) mapped() []byte {
	if s.blk.mapped == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(s.blk.mapped, s.offset)), s.size)
}

// segmentFor returns the segment holding byte off of the buffer (the last
// one for off == size).
func (b *Buffer) segmentFor(off uint64) *segment {
	if len(b.segs) == 1 {
		return &b.segs[0]
	}
	i := sort.Search(len(b.segs), func(i int) bool { return b.segs[i].start+b.segs[i].size > off })
	return &b.segs[min(i, len(b.segs)-1)]
}

// piece is the part of a byte range of the buffer that lies in one segment.
type piece struct {
	seg *segment
	at  uint64 // offset in the segment
	pos uint64 // offset from the range's start
	n   uint64
}

// pieces cuts [off, off+n), which lies inside the buffer, at segment
// boundaries.
func (b *Buffer) pieces(off, n uint64) []piece {
	var out []piece
	for pos := uint64(0); pos < n; {
		s := b.segmentFor(off + pos)
		at := off + pos - s.start
		k := min(n-pos, s.size-at)
		out = append(out, piece{seg: s, at: at, pos: pos, n: k})
		pos += k
	}
	return out
}

// newSegmented allocates a buffer of size bytes from p as segments of at
// most limit bytes; the caller holds the life lock.
func (d *Device) newSegmented(p *pool, size, limit uint64) (*Buffer, error) {
	a := d.mem
	step := limit &^ (BufferAlignment - 1)
	if heap := d.Info.MemoryTypes[p.typeIndex].HeapSize; size > heap || step == 0 {
		return nil, fmt.Errorf("gpu: a buffer of %d bytes exceeds its memory heap of %d bytes: %w",
			size, heap, &Error{Call: "vkAllocateMemory", Result: resultOutOfDeviceMemory})
	}
	b := &Buffer{d: d, pool: p, size: size}
	for start := uint64(0); start < size; start += step {
		n := min(step, size-start)
		blk, off, err := a.alloc(p, n)
		if err != nil {
			for _, s := range b.segs {
				a.release(p, s.blk, s.offset, s.size)
			}
			return nil, fmt.Errorf("gpu: allocation %d of a %d-byte buffer: %w", len(b.segs), size, err)
		}
		b.segs = append(b.segs, segment{blk: blk, offset: off, start: start, size: n})
	}
	return b, nil
}

// crossing is a kernel binding whose window crosses a segment boundary: it
// is bound as scratch, a one-segment buffer holding a copy of the window.
type crossing struct {
	r       Range
	n       uint64 // the window's bytes that exist: [r.Offset, r.Offset+n)
	scratch *Buffer
}

// recordCopyPieces records copies between [off, off+n) of b, piece by
// piece, and scratch from its start, in the direction given.
func (l *CommandList) recordCopyPieces(b *Buffer, off, n uint64, scratch *Buffer, toScratch bool) {
	sc := &scratch.segs[0]
	for _, p := range b.pieces(off, n) {
		src, srcOff := p.seg.blk.buf, p.seg.offset+p.at
		dst, dstOff := sc.blk.buf, sc.offset+p.pos
		if !toScratch {
			src, srcOff, dst, dstOff = dst, dstOff, src, srcOff
		}
		C.vkdml_cmd_copy_buffer(l.cmd, src, C.uint64_t(srcOff), dst, C.uint64_t(dstOff), C.uint64_t(p.n))
	}
}

// recordCrossing records a dispatch (dispatch records it) whose crossing
// bindings are bound as their scratch copies: everything before is
// finished, the windows are copied in, the kernel runs, the windows are
// copied back, and everything after waits for that. Copying back a window
// the kernel only read rewrites the bytes it read, which nothing else can
// touch between the two full barriers.
func (l *CommandList) recordCrossing(cs []crossing, dispatch func()) {
	C.vkdml_cmd_memory_barrier(l.cmd, allCommands, memRW, transferStage, transferRW)
	for _, c := range cs {
		l.recordCopyPieces(c.r.Buffer, c.r.Offset, c.n, c.scratch, true)
	}
	C.vkdml_cmd_memory_barrier(l.cmd, transferStage, transferRW, computeStage, shaderRW)
	dispatch()
	C.vkdml_cmd_memory_barrier(l.cmd, computeStage, shaderRW, transferStage, transferRW)
	for i, c := range cs {
		if i > 0 { // two windows of one dispatch may overlap
			C.vkdml_cmd_memory_barrier(l.cmd, transferStage, transferRW, transferStage, transferRW)
		}
		l.recordCopyPieces(c.r.Buffer, c.r.Offset, c.n, c.scratch, false)
	}
	C.vkdml_cmd_memory_barrier(l.cmd, transferStage, transferRW, allCommands, memRW)
}

// freeScratch returns the list's scratch buffers; the list is not pending.
func (l *CommandList) freeScratch() {
	for _, s := range l.scratch {
		s.mu.Lock()
		s.released = true
		s.freeMemory()
		s.mu.Unlock()
	}
	l.scratch = l.scratch[:0]
}
