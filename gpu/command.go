package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Pipeline stages and access masks used by vkdml's barriers.
const (
	computeStage  = 0x00000800 // VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
	transferStage = 0x00001000 // VK_PIPELINE_STAGE_TRANSFER_BIT
	hostStage     = 0x00004000 // VK_PIPELINE_STAGE_HOST_BIT
	indirectStage = 0x00000002 // VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT: DispatchIndirect's reads of its arguments
	allCommands   = 0x00010000 // VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
	// Access masks; each barrier pairs a mask only with stages that
	// support it (VUID-vkCmdPipelineBarrier-srcAccessMask-02815).
	memRW      = 0x00008000 | 0x00010000 // MEMORY_READ | MEMORY_WRITE: any stage
	shaderRW   = 0x00000020 | 0x00000040 // SHADER_READ | SHADER_WRITE
	transferRW = 0x00000800 | 0x00001000 // TRANSFER_READ | TRANSFER_WRITE
	hostRW     = 0x00002000 | 0x00004000 // HOST_READ | HOST_WRITE
	// INDIRECT_COMMAND_READ: DispatchIndirect's arguments.
	indirectRead = 0x00000001
)

type listState int

const (
	stateInitial listState = iota
	stateRecording
	stateExecutable
	statePending
)

// Range is a byte range of a Buffer bound to a kernel.
type Range struct {
	Buffer *Buffer // of the list's device, not freed
	Offset uint64  // bytes from the buffer's start; a multiple of 4 for a kernel binding
	Size   uint64  // bytes; Offset+Size must not pass the buffer's end
}

// CommandList is a command buffer with its own pools: it records many
// dispatches, is submitted, and can be submitted again without re-recording
// once the previous submission has completed.
//
// It is meant for one goroutine at a time (distinct lists may be recorded
// on distinct goroutines), but misuse is refused rather than crashing: its
// methods lock the list, a second Submit of a pending list fails with
// ErrPending, and after Destroy or Device.Close every method returns an
// error (ErrReleased, ErrDeviceClosed).
type CommandList struct {
	d  *Device
	mu sync.Mutex // guards everything below

	pool      C.VkCommandPool
	cmd       C.VkCommandBuffer
	fence     C.VkFence
	descPools []C.VkDescriptorPool
	poolUsed  int // sets taken from the last pool
	queries   C.VkQueryPool
	queryCap  uint32
	queryN    uint32 // timestamps recorded
	state     listState
	dispatchN int

	// Timestamps written by the pending submission and by the last
	// completed one: only those can be read back (a query never executed
	// has no result, and waiting for one may never end).
	querySubmitted, queryDone uint32

	// What the recording uses; a submission holds a use of each (held)
	// until it is seen to complete, so nothing it uses is freed early.
	bufs    map[*Buffer]struct{}
	kernels map[*Kernel]struct{}
	held    bool
	scratch []*Buffer        // the list's own copies of windows that cross segments
	views   []C.VkBufferView // the texel buffer views its dispatches bind

	destroyed bool // Destroy was called
	freed     bool // the Vulkan objects are gone
}

const setsPerPool = 64

// NewCommandList creates an empty list.
func (d *Device) NewCommandList() (*CommandList, error) {
	if err := d.enterUsable("NewCommandList"); err != nil {
		return nil, err
	}
	defer d.life.RUnlock()
	d.reap()
	return d.newList()
}

// newList creates and registers a list; the caller holds the life lock.
func (d *Device) newList() (*CommandList, error) {
	l := &CommandList{d: d, bufs: map[*Buffer]struct{}{}, kernels: map[*Kernel]struct{}{}}
	err := d.result("vkCreateCommandPool", C.vkdml_create_command_pool(d.dev, C.uint32_t(d.family), &l.pool))
	if err == nil {
		err = d.result("vkAllocateCommandBuffers", C.vkdml_allocate_command_buffer(d.dev, l.pool, &l.cmd))
	}
	if err == nil {
		err = d.result("vkCreateFence", C.vkdml_create_fence(d.dev, &l.fence))
	}
	if err != nil {
		l.free()
		return nil, err
	}
	d.trackList(l)
	return l, nil
}

// lock enters the device and locks the list for a public call; unlock
// undoes it.
func (l *CommandList) lock(call string) error {
	if l == nil || l.d == nil {
		return fmt.Errorf("gpu: CommandList.%s: nil command list: %w", call, ErrReleased)
	}
	if err := l.d.enter("CommandList." + call); err != nil {
		return err
	}
	l.mu.Lock()
	if l.destroyed {
		l.unlock()
		return fmt.Errorf("gpu: CommandList.%s: %w", call, ErrReleased)
	}
	return nil
}

func (l *CommandList) unlock() {
	l.mu.Unlock()
	l.d.life.RUnlock()
}

// Destroy frees the list. It is idempotent, and nil after the device is
// closed. A list whose submission has not been seen to complete (a Wait
// that timed out, or none) is kept, with everything it uses, until it has;
// its Vulkan objects are freed then.
func (l *CommandList) Destroy() error {
	err := l.lock("Destroy")
	if errors.Is(err, ErrReleased) || errors.Is(err, ErrDeviceClosed) {
		return nil
	}
	if err != nil {
		return err
	}
	defer l.unlock()
	l.destroyLocked()
	return nil
}

// destroyLocked marks the list destroyed and frees it, or leaves it to
// reap when it is still pending.
func (l *CommandList) destroyLocked() {
	l.destroyed = true
	if l.state == statePending && !l.poll() {
		return // still pending: reap frees it once it completes
	}
	l.free()
	l.d.untrackList(l)
}

// free destroys the Vulkan objects; the list is not pending.
func (l *CommandList) free() {
	d := l.d
	if l.freed {
		return
	}
	l.freed = true
	l.freeScratch()
	l.freeViews()
	for _, p := range l.descPools {
		C.vkdml_destroy_descriptor_pool(d.dev, p)
	}
	l.descPools = nil
	destroyHandle(&l.queries, func(q C.VkQueryPool) { C.vkdml_destroy_query_pool(d.dev, q) })
	destroyHandle(&l.fence, func(f C.VkFence) { C.vkdml_destroy_fence(d.dev, f) })
	destroyHandle(&l.pool, func(p C.VkCommandPool) { C.vkdml_destroy_command_pool(d.dev, p) }) // frees l.cmd too
}

// freeViews destroys the texel buffer views; the list is not pending, and
// its descriptor sets, which name them, are reset or freed with them.
func (l *CommandList) freeViews() {
	for _, v := range l.views {
		C.vkdml_destroy_buffer_view(l.d.dev, v)
	}
	l.views = nil
}

func (l *CommandList) begin(oneTime bool) error {
	if l.state == statePending {
		return fmt.Errorf("gpu: CommandList.Begin: %w; Wait first", ErrPending)
	}
	d := l.d
	if err := d.result("vkResetCommandPool", C.vkdml_reset_command_pool(d.dev, l.pool)); err != nil {
		return err
	}
	for _, p := range l.descPools {
		if err := d.result("vkResetDescriptorPool", C.vkdml_reset_descriptor_pool(d.dev, p)); err != nil {
			return err
		}
	}
	l.poolUsed = 0
	if len(l.descPools) > 1 { // keep one pool, sized for a typical list
		for _, p := range l.descPools[1:] {
			C.vkdml_destroy_descriptor_pool(d.dev, p)
		}
		l.descPools = l.descPools[:1]
	}
	clear(l.bufs)
	clear(l.kernels)
	l.freeScratch()
	l.freeViews()
	l.state = stateInitial
	one := C.int(0)
	if oneTime {
		one = 1
	}
	if err := d.result("vkBeginCommandBuffer", C.vkdml_begin(l.cmd, one)); err != nil {
		return err
	}
	l.queryN, l.dispatchN = 0, 0
	if l.queries != 0 {
		C.vkdml_cmd_reset_queries(l.cmd, l.queries, 0, C.uint32_t(l.queryCap))
	}
	l.state = stateRecording
	return nil
}

// Begin starts recording, discarding what the list held.
func (l *CommandList) Begin() error {
	if err := l.lock("Begin"); err != nil {
		return err
	}
	defer l.unlock()
	if err := l.d.usable("CommandList.Begin"); err != nil {
		return err
	}
	if err := l.begin(false); err != nil {
		return err
	}
	// Order everything before this list (host writes, earlier submissions)
	// before its first command.
	C.vkdml_cmd_memory_barrier(l.cmd, allCommands|hostStage, memRW|hostRW, allCommands, memRW)
	return nil
}

// lockRecording is lock for a call that records a command: the list must
// be recording (between Begin and End), and is not locked when it is not.
func (l *CommandList) lockRecording(call string) error {
	if err := l.lock(call); err != nil {
		return err
	}
	if err := l.recording(call); err != nil {
		l.unlock()
		return err
	}
	return nil
}

func (l *CommandList) recording(call string) error {
	if l.state != stateRecording {
		if l.state == statePending {
			return fmt.Errorf("gpu: CommandList.%s: %w; Wait, then Begin", call, ErrPending)
		}
		return fmt.Errorf("gpu: CommandList.%s: the list is not recording; call Begin", call)
	}
	return nil
}

func (l *CommandList) allocSet(layout C.VkDescriptorSetLayout) (C.VkDescriptorSet, error) {
	d := l.d
	if len(l.descPools) == 0 || l.poolUsed == setsPerPool {
		var p C.VkDescriptorPool
		if err := d.result("vkCreateDescriptorPool", C.vkdml_create_descriptor_pool(d.dev, setsPerPool, setsPerPool*MaxBindings, setsPerPool*MaxBindings, &p)); err != nil {
			return 0, err
		}
		l.descPools = append(l.descPools, p)
		l.poolUsed = 0
	}
	var s C.VkDescriptorSet
	if err := d.result("vkAllocateDescriptorSets", C.vkdml_allocate_set(d.dev, l.descPools[len(l.descPools)-1], layout, &s)); err != nil {
		return 0, err
	}
	l.poolUsed++
	return s, nil
}

// bindingRule is what one kind of descriptor needs of its range: the
// alignment of its offset, the multiple its size is rounded up to, and
// its largest size (named by limit).
type bindingRule struct {
	align, unit, max uint64
	limit            string
}

// ruleFor is the rule of a storage buffer, or with texel of a uniform
// texel buffer of 16-byte texels.
func (l *CommandList) ruleFor(texel bool) bindingRule {
	lim := l.d.Limits
	if texel {
		return bindingRule{align: max(lim.MinTexelBufferOffsetAlignment, 16), unit: 16,
			max: 16 * uint64(lim.MaxTexelBufferElements), limit: "maxTexelBufferElements of 16-byte texels"}
	}
	return bindingRule{align: max(lim.MinStorageBufferOffsetAlignment, 4), unit: 4,
		max: uint64(lim.MaxStorageBufferRange), limit: "maxStorageBufferRange"}
}

// fits checks that binding i of kernel name, size bytes, is within the
// rule's largest size.
func (rule bindingRule) fits(name string, i int, size uint64) error {
	if size > rule.max {
		return fmt.Errorf("gpu: Dispatch %s: binding %d covers %d bytes, over %s %d: %w", name, i, size, rule.limit, rule.max, ErrOutOfRange)
	}
	return nil
}

// descriptorRange is where binding r of a kernel points: the range of
// buf (a block's VkBuffer) from base, aligned down to the rule's alignment
// (minStorageBufferOffsetAlignment, or for a texel buffer
// minTexelBufferOffsetAlignment), of size bytes, and the word offset delta
// the shader adds. A window that crosses a segment boundary is bound as a
// scratch copy, returned as cross (see segment.go).
func (l *CommandList) descriptorRange(name string, i int, r Range, rule bindingRule) (buf C.VkBuffer, base, size, delta uint64, cross *crossing, err error) {
	if err := r.Buffer.usableBy(l.d, "Dispatch "+name, fmt.Sprintf("binding %d", i)); err != nil {
		return 0, 0, 0, 0, nil, err
	}
	if r.Offset%4 != 0 {
		return 0, 0, 0, 0, nil, fmt.Errorf("gpu: Dispatch %s: binding %d offset %d is not a multiple of 4: %w", name, i, r.Offset, ErrOutOfRange)
	}
	if err := r.Buffer.checkRange("Dispatch "+name, r.Offset, r.Size); err != nil {
		return 0, 0, 0, 0, nil, fmt.Errorf("binding %d: %w", i, err)
	}
	seg := r.Buffer.segmentFor(r.Offset)
	if end := r.Offset + r.Size; end > seg.start+seg.size { // within the buffer: no overflow
		return l.scratchRange(name, i, r, rule)
	}
	// The range lies inside its segment's block, so these sums cannot
	// overflow: a segment is at most its block, and rounding adds < 16
	// bytes within the 256-aligned range alloc handed out.
	abs := seg.offset + r.Offset - seg.start
	base = abs / rule.align * rule.align
	delta = abs - base
	size, _ = alignUp(max(r.Size, 4)+delta, rule.unit)
	if err := rule.fits(name, i, size); err != nil {
		return 0, 0, 0, 0, nil, err
	}
	if end, ok := addRange(base, size); !ok || end > seg.blk.size {
		// A bug in vkdml, not in the caller's ranges: report it rather than
		// bind a range the shader could overrun.
		return 0, 0, 0, 0, nil, fmt.Errorf("gpu: Dispatch %s: binding %d: descriptor range [%d,+%d) outside its block of %d bytes (internal error): %w",
			name, i, base, size, seg.blk.size, ErrOutOfRange)
	}
	return seg.blk.buf, base, size, delta, nil, nil
}

// scratchRange binds a window that crosses a segment boundary as a new
// scratch buffer of the list, which recordCrossing fills and copies back.
// Its offset, a multiple of BufferAlignment (256), meets every alignment
// rule (Vulkan's are at most 256).
func (l *CommandList) scratchRange(name string, i int, r Range, rule bindingRule) (C.VkBuffer, uint64, uint64, uint64, *crossing, error) {
	size, _ := alignUp(r.Size, rule.unit)
	if err := rule.fits(name, i, size); err != nil {
		return 0, 0, 0, 0, nil, err
	}
	scratch, err := l.d.newBuffer(l.d.mem.main, size)
	if err != nil {
		return 0, 0, 0, 0, nil, fmt.Errorf("gpu: Dispatch %s: binding %d: scratch for a window across allocations: %w", name, i, err)
	}
	l.scratch = append(l.scratch, scratch)
	sc := &scratch.segs[0]
	return sc.blk.buf, sc.offset, size, 0, &crossing{r: r, n: min(size, r.Buffer.size-r.Offset), scratch: scratch}, nil
}

// Dispatch records k over groups workgroups with the given bindings and
// parameters (len(params) must equal the kernel's ParamBytes).
func (l *CommandList) Dispatch(k *Kernel, bindings []Range, params []byte, groups [3]uint32) error {
	if err := l.lockRecording("Dispatch"); err != nil {
		return err
	}
	defer l.unlock()
	lim := l.d.Limits
	for i, g := range groups {
		if g == 0 || g > lim.MaxComputeWorkGroupCount[i] {
			return fmt.Errorf("gpu: Dispatch %s: group count %v outside [1,%v]", k.name, groups, lim.MaxComputeWorkGroupCount)
		}
	}
	return l.dispatch("Dispatch", k, bindings, params, func() {
		C.vkdml_cmd_dispatch(l.cmd, C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]))
	})
}

// DispatchIndirect records k like Dispatch, its group counts read by the
// device when the command runs from args: three uint32 words (x, y, z)
// at a multiple of 4 bytes, which an earlier command of the list writes
// (a Barrier between makes them visible). A count of 0 dispatches
// nothing: a planner's step that only some data needs costs no
// workgroup where none does (lavapipe runs a workgroup's whole code even
// when its rows are all idle). The writer must keep each count within
// maxComputeWorkGroupCount; Vulkan leaves a larger one undefined.
func (l *CommandList) DispatchIndirect(k *Kernel, bindings []Range, params []byte, args Range) error {
	if err := l.lockRecording("DispatchIndirect"); err != nil {
		return err
	}
	defer l.unlock()
	if err := args.Buffer.usableBy(l.d, "DispatchIndirect "+k.name, "arguments"); err != nil {
		return err
	}
	if args.Size != 12 || args.Offset%4 != 0 {
		return fmt.Errorf("gpu: DispatchIndirect %s: arguments [%d,+%d) are not 12 bytes at a multiple of 4: %w", k.name, args.Offset, args.Size, ErrOutOfRange)
	}
	if err := args.Buffer.checkRange("DispatchIndirect "+k.name+" arguments", args.Offset, args.Size); err != nil {
		return err
	}
	seg := args.Buffer.segmentFor(args.Offset)
	if args.Offset+args.Size > seg.start+seg.size {
		// Vulkan reads the words from one VkBuffer; a planner places
		// them at a multiple of 16, which never crosses a segment
		// boundary (a multiple of 256).
		return fmt.Errorf("gpu: DispatchIndirect %s: arguments [%d,+12) cross an allocation boundary of the buffer: %w", k.name, args.Offset, ErrOutOfRange)
	}
	buf, off := seg.blk.buf, seg.offset+args.Offset-seg.start
	l.bufs[args.Buffer] = struct{}{}
	return l.dispatch("DispatchIndirect", k, bindings, params, func() {
		C.vkdml_cmd_dispatch_indirect(l.cmd, buf, C.uint64_t(off))
	})
}

// dispatch binds k's bindings and parameters and records the dispatch
// command cmd for the method call (its name in errors); the caller holds
// the recording lock.
func (l *CommandList) dispatch(call string, k *Kernel, bindings []Range, params []byte, cmd func()) error {
	if err := k.usableBy(l.d, call); err != nil {
		return err
	}
	if len(bindings) != k.bindings {
		return fmt.Errorf("gpu: %s %s: %d bindings, kernel has %d", call, k.name, len(bindings), k.bindings)
	}
	if uint32(len(params)) != k.pushBytes-uint32(4*k.bindings) {
		return fmt.Errorf("gpu: %s %s: %d parameter bytes, kernel takes %d", call, k.name, len(params), k.pushBytes-uint32(4*k.bindings))
	}
	var bufs [MaxBindings]C.VkBuffer
	var views [MaxBindings]C.VkBufferView
	var offs, ranges [MaxBindings]C.uint64_t
	push := make([]byte, k.pushBytes)
	var crossings []crossing
	for i, r := range bindings {
		texel := k.texel>>i&1 != 0
		buf, base, size, delta, cross, err := l.descriptorRange(k.name, i, r, l.ruleFor(texel))
		if err != nil {
			return err
		}
		if cross != nil {
			crossings = append(crossings, *cross)
		}
		if texel {
			// The list owns the view until it is reset or freed.
			if err := l.d.result("vkCreateBufferView", C.vkdml_create_buffer_view(l.d.dev, buf, C.uint64_t(base), C.uint64_t(size), &views[i])); err != nil {
				return fmt.Errorf("gpu: Dispatch %s: binding %d: %w", k.name, i, err)
			}
			l.views = append(l.views, views[i])
		}
		bufs[i], offs[i], ranges[i] = buf, C.uint64_t(base), C.uint64_t(size)
		binary.LittleEndian.PutUint32(push[4*i:], uint32(delta/4))
	}
	copy(push[4*k.bindings:], params)
	set, err := l.allocSet(k.setLayout)
	if err != nil {
		return err
	}
	for _, r := range bindings {
		l.bufs[r.Buffer] = struct{}{}
	}
	l.kernels[k] = struct{}{}
	C.vkdml_write_set(l.d.dev, set, C.uint32_t(k.bindings), &bufs[0], &offs[0], &ranges[0], &views[0])
	dispatch := func() {
		C.vkdml_cmd_bind_pipeline(l.cmd, k.pipeline)
		C.vkdml_cmd_bind_set(l.cmd, k.layout, set)
		C.vkdml_cmd_push_constants(l.cmd, k.layout, C.uint32_t(len(push)), unsafe.Pointer(&push[0]))
		cmd()
	}
	if len(crossings) > 0 {
		l.recordCrossing(crossings, dispatch)
	} else {
		dispatch()
	}
	l.dispatchN++
	return nil
}

// Barrier makes every earlier shader and transfer write visible to every
// later command (DirectML's UAV barrier, for all resources).
func (l *CommandList) Barrier() error {
	if err := l.lockRecording("Barrier"); err != nil {
		return err
	}
	defer l.unlock()
	C.vkdml_cmd_memory_barrier(l.cmd, computeStage|transferStage|indirectStage, shaderRW|transferRW, computeStage|transferStage|indirectStage, shaderRW|transferRW|indirectRead)
	return nil
}

// Copy records a buffer-to-buffer copy of src.Size bytes. The ranges must
// have the same size, lie inside their buffers and not overlap; an empty
// copy records nothing.
func (l *CommandList) Copy(dst, src Range) error {
	if err := l.lockRecording("Copy"); err != nil {
		return err
	}
	defer l.unlock()
	if err := src.Buffer.usableBy(l.d, "Copy", "source"); err != nil {
		return err
	}
	if err := dst.Buffer.usableBy(l.d, "Copy", "destination"); err != nil {
		return err
	}
	if src.Size != dst.Size {
		return fmt.Errorf("gpu: Copy: source of %d bytes, destination of %d: %w", src.Size, dst.Size, ErrOutOfRange)
	}
	if err := src.Buffer.checkRange("Copy source", src.Offset, src.Size); err != nil {
		return err
	}
	if err := dst.Buffer.checkRange("Copy destination", dst.Offset, dst.Size); err != nil {
		return err
	}
	if src.Size == 0 {
		return nil
	}
	if src.Buffer == dst.Buffer && src.Offset < dst.Offset+dst.Size && dst.Offset < src.Offset+src.Size {
		return fmt.Errorf("gpu: Copy: source and destination overlap: %w", ErrOutOfRange)
	}
	l.bufs[src.Buffer], l.bufs[dst.Buffer] = struct{}{}, struct{}{}
	// Piece by piece where either buffer has several segments.
	for pos := uint64(0); pos < src.Size; {
		ss, ds := src.Buffer.segmentFor(src.Offset+pos), dst.Buffer.segmentFor(dst.Offset+pos)
		sAt, dAt := src.Offset+pos-ss.start, dst.Offset+pos-ds.start
		n := min(src.Size-pos, ss.size-sAt, ds.size-dAt)
		C.vkdml_cmd_copy_buffer(l.cmd, ss.blk.buf, C.uint64_t(ss.offset+sAt), ds.blk.buf, C.uint64_t(ds.offset+dAt), C.uint64_t(n))
		pos += n
	}
	return nil
}

// Fill records a fill of r (offset and size multiples of 4) with value; an
// empty range records nothing.
func (l *CommandList) Fill(r Range, value uint32) error {
	if err := l.lockRecording("Fill"); err != nil {
		return err
	}
	defer l.unlock()
	if err := r.Buffer.usableBy(l.d, "Fill", "range"); err != nil {
		return err
	}
	if r.Offset%4 != 0 || r.Size%4 != 0 {
		return fmt.Errorf("gpu: Fill: offset %d and size %d must be multiples of 4: %w", r.Offset, r.Size, ErrOutOfRange)
	}
	if err := r.Buffer.checkRange("Fill", r.Offset, r.Size); err != nil || r.Size == 0 {
		return err
	}
	l.bufs[r.Buffer] = struct{}{}
	for _, p := range r.Buffer.pieces(r.Offset, r.Size) {
		C.vkdml_cmd_fill_buffer(l.cmd, p.seg.blk.buf, C.uint64_t(p.seg.offset+p.at), C.uint64_t(p.n), C.uint32_t(value))
	}
	return nil
}
