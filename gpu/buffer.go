package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// Buffer is a range of device memory usable as a storage buffer. Its
// methods are safe for concurrent use; concurrent writes to overlapping
// bytes are the caller's race, as with any memory.
type Buffer struct {
	d    *Device
	pool *pool
	segs []segment // its allocations: one, unless segmented (segment.go)
	size uint64

	// Lifetime, guarded by mu. users counts host copies in progress and
	// pending submissions that use the buffer; the memory goes back to the
	// allocator when the buffer is released and users drops to zero.
	mu       sync.Mutex
	released bool
	freed    bool
	users    int
}

// NewBuffer allocates size bytes of device memory. The contents are
// undefined until written. A size the device cannot allocate in one piece
// fails with an error wrapping ErrOutOfMemory.
func (d *Device) NewBuffer(size uint64) (*Buffer, error) {
	if err := d.enterUsable("NewBuffer"); err != nil {
		return nil, err
	}
	defer d.life.RUnlock()
	d.reap() // memory that timed-out work held may be free by now
	return d.newBuffer(d.mem.main, size)
}

// newBuffer allocates from p; the caller holds the life lock.
func (d *Device) newBuffer(p *pool, size uint64) (*Buffer, error) {
	limit := d.mem.maxBlock()
	if _, err := blockBytes(size, limit); err != nil && d.mem.segmented && p == d.mem.main {
		return d.newSegmented(p, size, limit)
	}
	blk, off, err := d.mem.alloc(p, size)
	if err != nil {
		return nil, err
	}
	return &Buffer{d: d, pool: p, segs: []segment{{blk: blk, offset: off, size: size}}, size: size}, nil
}

// Size is the usable size in bytes (0 for a nil Buffer).
func (b *Buffer) Size() uint64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Device returns the device the buffer belongs to.
func (b *Buffer) Device() *Device {
	if b == nil {
		return nil
	}
	return b.d
}

// Free returns the memory. It is idempotent, and nil after the device is
// closed (Close freed all memory). When a submitted command list that uses
// the buffer has not been seen to complete, or a host copy is in progress,
// the memory is returned once they are done; the buffer itself is unusable
// from now on.
func (b *Buffer) Free() error {
	if b == nil || b.d == nil {
		return nil
	}
	d := b.d
	if entered, err := d.enterRelease("Buffer.Free"); !entered {
		return err
	}
	defer d.life.RUnlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return nil
	}
	b.released = true
	if b.users == 0 {
		b.freeMemory()
	}
	return nil
}

// freeMemory returns the range to the allocator; the caller holds b.mu and
// the life lock.
func (b *Buffer) freeMemory() {
	if !b.freed {
		b.freed = true
		for _, s := range b.segs {
			b.d.mem.release(b.pool, s.blk, s.offset, s.size)
		}
	}
}

// acquire counts a use of the buffer; it fails once b is released.
func (b *Buffer) acquire() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return ErrReleased
	}
	b.users++
	return nil
}

// unuse ends a use counted by acquire, returning the memory if the buffer
// was released meanwhile. The caller holds the life lock.
func (b *Buffer) unuse() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.users--
	if b.users == 0 && b.released {
		b.freeMemory()
	}
}

// usableBy reports why device d cannot use b, or nil.
func (b *Buffer) usableBy(d *Device, call, what string) error {
	if b == nil || b.d == nil {
		return fmt.Errorf("gpu: %s: %s has no buffer: %w", call, what, ErrReleased)
	}
	if b.d != d {
		return fmt.Errorf("gpu: %s: %s: %w", call, what, ErrForeignDevice)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return fmt.Errorf("gpu: %s: %s: %w", call, what, ErrReleased)
	}
	return nil
}

// hostUse enters the device and counts a host copy; done ends both.
func (b *Buffer) hostUse(call string) (done func(), err error) {
	if b == nil || b.d == nil {
		return nil, fmt.Errorf("gpu: %s: nil buffer: %w", call, ErrReleased)
	}
	d := b.d
	if err := d.enter(call); err != nil {
		return nil, err
	}
	if err := b.acquire(); err != nil {
		d.life.RUnlock()
		return nil, fmt.Errorf("gpu: %s: %w", call, err)
	}
	return func() {
		b.unuse()
		d.life.RUnlock()
	}, nil
}

// checkRange reports whether [off, off+n) lies inside the buffer, with
// overflow-safe arithmetic.
func (b *Buffer) checkRange(call string, off, n uint64) error {
	if end, ok := addRange(off, n); !ok || end > b.size {
		return fmt.Errorf("gpu: %s: range of %d bytes at offset %d is outside the buffer's %d bytes: %w", call, n, off, b.size, ErrOutOfRange)
	}
	return nil
}

// Write copies data into the buffer at off. The GPU must not be using the
// range.
func (b *Buffer) Write(off uint64, data []byte) error {
	return b.hostCopy("Buffer.Write", off, data, true)
}

// Read copies len(out) bytes at off into out. Work that wrote the range
// must have completed.
func (b *Buffer) Read(off uint64, out []byte) error {
	return b.hostCopy("Buffer.Read", off, out, false)
}

// hostCopy copies between host and the buffer at off: host into the buffer
// when upload is set (Write), else the buffer into host (Read); each piece
// through its mapping, or through a staging buffer where it has none.
func (b *Buffer) hostCopy(call string, off uint64, host []byte, upload bool) error {
	done, err := b.hostUse(call)
	if err != nil {
		return err
	}
	defer done()
	if err := b.checkRange(call, off, uint64(len(host))); err != nil || len(host) == 0 {
		return err
	}
	for _, p := range b.pieces(off, uint64(len(host))) {
		part := host[p.pos : p.pos+p.n]
		m := p.seg.mapped()
		switch {
		case m != nil && upload:
			copy(m[p.at:], part)
		case m != nil:
			copy(part, m[p.at:])
		default:
			if err := b.d.stage(b, p.seg, p.at, part, upload); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fill writes value into every 32-bit word of [off, off+size); off and size
// must be multiples of 4. A size of 0 does nothing.
func (b *Buffer) Fill(off, size uint64, value uint32) error {
	done, err := b.hostUse("Buffer.Fill")
	if err != nil {
		return err
	}
	defer done()
	if off%4 != 0 || size%4 != 0 {
		return fmt.Errorf("gpu: Buffer.Fill: offset %d and size %d must be multiples of 4: %w", off, size, ErrOutOfRange)
	}
	if err := b.checkRange("Buffer.Fill", off, size); err != nil || size == 0 {
		return err
	}
	pieces := b.pieces(off, size) // segments are 256-byte multiples: pieces stay word-aligned
	if pieces[0].seg.mapped() != nil {
		for _, p := range pieces {
			m := p.seg.mapped()
			w := unsafe.Slice((*uint32)(unsafe.Pointer(&m[p.at])), p.n/4)
			for i := range w {
				w[i] = value
			}
		}
		return nil
	}
	what := fmt.Sprintf("Buffer.Fill: the fill of %d bytes at offset %d", size, off)
	return b.d.runOnce(what, []*Buffer{b}, func(cmd C.VkCommandBuffer) {
		C.vkdml_cmd_memory_barrier(cmd, allCommands, memRW, transferStage, transferRW)
		for _, p := range pieces {
			C.vkdml_cmd_fill_buffer(cmd, p.seg.blk.buf, C.uint64_t(p.seg.offset+p.at), C.uint64_t(p.n), C.uint32_t(value))
		}
		C.vkdml_cmd_memory_barrier(cmd, transferStage, transferRW, allCommands|hostStage, memRW|hostRW)
	})
}

// stage copies data to or from bytes [off, off+len(data)) of segment seg
// of b through a host-visible staging buffer, in chunks. The caller holds
// the life lock and a use of b.
func (d *Device) stage(b *Buffer, seg *segment, off uint64, data []byte, upload bool) error {
	if d.mem.staging == nil {
		return fmt.Errorf("gpu: the device has no host-visible memory for staging")
	}
	const chunk = 32 << 20
	for done := 0; done < len(data); {
		n := min(len(data)-done, chunk)
		sb, err := d.newBuffer(d.mem.staging, uint64(n))
		if err != nil {
			return err
		}
		ss := &sb.segs[0]
		host := ss.mapped()[:n]
		if upload {
			copy(host, data[done:done+n])
		}
		src, srcOff, dst, dstOff := ss.blk.buf, ss.offset, seg.blk.buf, seg.offset+off+uint64(done)
		if !upload {
			src, srcOff, dst, dstOff = dst, dstOff, src, srcOff
		}
		what := fmt.Sprintf("Buffer.Read: the staging readback of %d bytes at offset %d", n, seg.start+off+uint64(done))
		if upload {
			what = fmt.Sprintf("Buffer.Write: the staging upload of %d bytes at offset %d", n, seg.start+off+uint64(done))
		}
		err = d.runOnce(what, []*Buffer{b, sb}, func(cmd C.VkCommandBuffer) {
			C.vkdml_cmd_memory_barrier(cmd, allCommands|hostStage, memRW|hostRW, transferStage, transferRW)
			C.vkdml_cmd_copy_buffer(cmd, src, C.uint64_t(srcOff), dst, C.uint64_t(dstOff), C.uint64_t(n))
			C.vkdml_cmd_memory_barrier(cmd, transferStage, transferRW, allCommands|hostStage, memRW|hostRW)
		})
		if err == nil && !upload {
			copy(data[done:done+n], host)
		}
		// A copy that timed out still holds sb; its memory returns when
		// the copy is seen to complete.
		sb.mu.Lock()
		sb.released = true
		if sb.users == 0 {
			sb.freeMemory()
		}
		sb.mu.Unlock()
		if err != nil {
			return err
		}
		done += n
	}
	return nil
}
