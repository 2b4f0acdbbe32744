package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// Pipeline stages and access masks used by vkdml's barriers.
const (
	computeStage  = 0x00000800 // VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
	transferStage = 0x00001000 // VK_PIPELINE_STAGE_TRANSFER_BIT
	hostStage     = 0x00004000 // VK_PIPELINE_STAGE_HOST_BIT
	allCommands   = 0x00010000 // VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
	// Access masks; each barrier pairs a mask only with stages that
	// support it (VUID-vkCmdPipelineBarrier-srcAccessMask-02815).
	memRW      = 0x00008000 | 0x00010000 // MEMORY_READ | MEMORY_WRITE: any stage
	shaderRW   = 0x00000020 | 0x00000040 // SHADER_READ | SHADER_WRITE
	transferRW = 0x00000800 | 0x00001000 // TRANSFER_READ | TRANSFER_WRITE
	hostRW     = 0x00002000 | 0x00004000 // HOST_READ | HOST_WRITE
)

// SubmitTimeout bounds every wait on the GPU, so that a runaway kernel
// becomes an error rather than a hang.
var SubmitTimeout = 5 * time.Minute

// runOnce records fn into a transient command buffer, submits it and waits.
func (d *Device) runOnce(fn func(cmd C.VkCommandBuffer)) error {
	if err := d.alive(); err != nil {
		return err
	}
	l, err := d.NewCommandList()
	if err != nil {
		return err
	}
	defer l.Destroy()
	if err := l.begin(true); err != nil {
		return err
	}
	fn(l.cmd)
	if err := d.result("vkEndCommandBuffer", C.vkdml_end(l.cmd)); err != nil {
		return err
	}
	l.state = stateExecutable
	if err := l.Submit(); err != nil {
		return err
	}
	return l.Wait()
}

type listState int

const (
	stateInitial listState = iota
	stateRecording
	stateExecutable
	statePending
)

// Range is a byte range of a Buffer bound to a kernel.
type Range struct {
	Buffer *Buffer
	Offset uint64 // a multiple of 4
	Size   uint64
}

// CommandList is a command buffer with its own pools: it records many
// dispatches, is submitted, and can be submitted again without re-recording
// once the previous submission has completed. It is not safe for concurrent
// use; distinct lists may be recorded on distinct goroutines.
type CommandList struct {
	d         *Device
	pool      C.VkCommandPool
	cmd       C.VkCommandBuffer
	fence     C.VkFence
	descPools []C.VkDescriptorPool
	poolUsed  int // sets taken from the last pool
	queries   C.VkQueryPool
	queryCap  uint32
	queryN    uint32
	state     listState
	dispatchN int
}

const setsPerPool = 64

// NewCommandList creates an empty list.
func (d *Device) NewCommandList() (*CommandList, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	l := &CommandList{d: d}
	err := d.result("vkCreateCommandPool", C.vkdml_create_command_pool(d.dev, C.uint32_t(d.family), &l.pool))
	if err == nil {
		err = d.result("vkAllocateCommandBuffers", C.vkdml_allocate_command_buffer(d.dev, l.pool, &l.cmd))
	}
	if err == nil {
		err = d.result("vkCreateFence", C.vkdml_create_fence(d.dev, &l.fence))
	}
	if err != nil {
		l.Destroy()
		return nil, err
	}
	return l, nil
}

// Destroy frees the list. It must not be pending.
func (l *CommandList) Destroy() {
	d := l.d
	if l.state == statePending {
		l.Wait()
	}
	for _, p := range l.descPools {
		C.vkdml_destroy_descriptor_pool(d.dev, p)
	}
	l.descPools = nil
	if l.queries != 0 {
		C.vkdml_destroy_query_pool(d.dev, l.queries)
		l.queries = 0
	}
	if l.fence != 0 {
		C.vkdml_destroy_fence(d.dev, l.fence)
		l.fence = 0
	}
	if l.pool != 0 {
		C.vkdml_destroy_command_pool(d.dev, l.pool) // frees l.cmd too
		l.pool = 0
	}
}

func (l *CommandList) begin(oneTime bool) error {
	if l.state == statePending {
		return errors.New("gpu: command list is pending; Wait first")
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
	if err := l.d.alive(); err != nil {
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

func (l *CommandList) recording() error {
	if l.state != stateRecording {
		return errors.New("gpu: command list is not recording; call Begin")
	}
	return nil
}

func (l *CommandList) allocSet(layout C.VkDescriptorSetLayout) (C.VkDescriptorSet, error) {
	d := l.d
	if len(l.descPools) == 0 || l.poolUsed == setsPerPool {
		var p C.VkDescriptorPool
		if err := d.result("vkCreateDescriptorPool", C.vkdml_create_descriptor_pool(d.dev, setsPerPool, setsPerPool*MaxBindings, &p)); err != nil {
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

// Dispatch records k over groups workgroups with the given bindings and
// parameters (len(params) must equal the kernel's ParamBytes).
func (l *CommandList) Dispatch(k *Kernel, bindings []Range, params []byte, groups [3]uint32) error {
	if err := l.recording(); err != nil {
		return err
	}
	if len(bindings) != k.bindings {
		return fmt.Errorf("gpu: Dispatch %s: %d bindings, kernel has %d", k.name, len(bindings), k.bindings)
	}
	if uint32(len(params)) != k.pushBytes-uint32(4*k.bindings) {
		return fmt.Errorf("gpu: Dispatch %s: %d parameter bytes, kernel takes %d", k.name, len(params), k.pushBytes-uint32(4*k.bindings))
	}
	lim := l.d.Limits
	for i, g := range groups {
		if g == 0 || g > lim.MaxComputeWorkGroupCount[i] {
			return fmt.Errorf("gpu: Dispatch %s: group count %v outside [1,%v]", k.name, groups, lim.MaxComputeWorkGroupCount)
		}
	}
	var bufs [MaxBindings]C.VkBuffer
	var offs, ranges [MaxBindings]C.uint64_t
	push := make([]byte, k.pushBytes)
	align := max(lim.MinStorageBufferOffsetAlignment, 4)
	for i, r := range bindings {
		if r.Buffer == nil {
			return fmt.Errorf("gpu: Dispatch %s: binding %d has no buffer", k.name, i)
		}
		if r.Offset%4 != 0 || r.Offset > r.Buffer.size || r.Size > r.Buffer.size-r.Offset {
			return fmt.Errorf("gpu: Dispatch %s: binding %d range [%d,+%d) is not word-aligned inside the buffer's %d bytes", k.name, i, r.Offset, r.Size, r.Buffer.size)
		}
		abs := r.Buffer.offset + r.Offset
		base := abs / align * align
		delta := abs - base
		size := alignUp(max(r.Size, 4)+delta, 4)
		if size > uint64(lim.MaxStorageBufferRange) {
			return fmt.Errorf("gpu: Dispatch %s: binding %d covers %d bytes, over maxStorageBufferRange %d", k.name, i, size, lim.MaxStorageBufferRange)
		}
		if base+size > r.Buffer.blk.size {
			size = r.Buffer.blk.size - base
		}
		bufs[i], offs[i], ranges[i] = r.Buffer.blk.buf, C.uint64_t(base), C.uint64_t(size)
		binary.LittleEndian.PutUint32(push[4*i:], uint32(delta/4))
	}
	copy(push[4*k.bindings:], params)
	set, err := l.allocSet(k.setLayout)
	if err != nil {
		return err
	}
	C.vkdml_write_set(l.d.dev, set, C.uint32_t(k.bindings), &bufs[0], &offs[0], &ranges[0])
	C.vkdml_cmd_bind_pipeline(l.cmd, k.pipeline)
	C.vkdml_cmd_bind_set(l.cmd, k.layout, set)
	C.vkdml_cmd_push_constants(l.cmd, k.layout, C.uint32_t(len(push)), unsafe.Pointer(&push[0]))
	C.vkdml_cmd_dispatch(l.cmd, C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]))
	l.dispatchN++
	return nil
}

// Barrier makes every earlier shader and transfer write visible to every
// later command (DirectML's UAV barrier, for all resources).
func (l *CommandList) Barrier() error {
	if err := l.recording(); err != nil {
		return err
	}
	C.vkdml_cmd_memory_barrier(l.cmd, computeStage|transferStage, shaderRW|transferRW, computeStage|transferStage, shaderRW|transferRW)
	return nil
}

// Copy records a buffer-to-buffer copy.
func (l *CommandList) Copy(dst, src Range) error {
	if err := l.recording(); err != nil {
		return err
	}
	if src.Size != dst.Size || src.Offset+src.Size > src.Buffer.size || dst.Offset+dst.Size > dst.Buffer.size {
		return fmt.Errorf("gpu: Copy: ranges [%d,+%d) and [%d,+%d) do not fit their buffers", src.Offset, src.Size, dst.Offset, dst.Size)
	}
	C.vkdml_cmd_copy_buffer(l.cmd, src.Buffer.blk.buf, C.uint64_t(src.Buffer.offset+src.Offset), dst.Buffer.blk.buf, C.uint64_t(dst.Buffer.offset+dst.Offset), C.uint64_t(src.Size))
	return nil
}

// Fill records a fill of r (offset and size multiples of 4) with value.
func (l *CommandList) Fill(r Range, value uint32) error {
	if err := l.recording(); err != nil {
		return err
	}
	if r.Offset%4 != 0 || r.Size%4 != 0 || r.Offset+r.Size > r.Buffer.size {
		return fmt.Errorf("gpu: Fill: range [%d,+%d) is not word-aligned inside the buffer", r.Offset, r.Size)
	}
	C.vkdml_cmd_fill_buffer(l.cmd, r.Buffer.blk.buf, C.uint64_t(r.Buffer.offset+r.Offset), C.uint64_t(r.Size), C.uint32_t(value))
	return nil
}

// Timestamp records the GPU time after all earlier commands and returns its
// index, for Timestamps. It returns -1 when the queue has no timestamps.
func (l *CommandList) Timestamp() (int, error) {
	if err := l.recording(); err != nil {
		return -1, err
	}
	if l.d.Limits.TimestampValidBits == 0 {
		return -1, nil
	}
	if l.queries == 0 {
		l.queryCap = 256
		if err := l.d.result("vkCreateQueryPool", C.vkdml_create_query_pool(l.d.dev, C.uint32_t(l.queryCap), &l.queries)); err != nil {
			return -1, err
		}
		// This list began without a reset of the new pool.
		C.vkdml_cmd_reset_queries(l.cmd, l.queries, 0, C.uint32_t(l.queryCap))
	}
	if l.queryN == l.queryCap {
		return -1, fmt.Errorf("gpu: Timestamp: more than %d timestamps in one list", l.queryCap)
	}
	C.vkdml_cmd_timestamp(l.cmd, l.queries, C.uint32_t(l.queryN))
	l.queryN++
	return int(l.queryN - 1), nil
}

// Timestamps returns the recorded timestamps of the last completed
// submission, in nanoseconds from an arbitrary origin.
func (l *CommandList) Timestamps() ([]float64, error) {
	if l.queryN == 0 {
		return nil, nil
	}
	if l.state == statePending {
		return nil, errors.New("gpu: Timestamps: command list is pending")
	}
	raw := make([]uint64, l.queryN)
	if err := l.d.result("vkGetQueryPoolResults", C.vkdml_query_results(l.d.dev, l.queries, C.uint32_t(l.queryN), (*C.uint64_t)(unsafe.Pointer(&raw[0])))); err != nil {
		return nil, err
	}
	bits := l.d.Limits.TimestampValidBits
	out := make([]float64, len(raw))
	for i, t := range raw {
		if bits < 64 {
			t &= 1<<bits - 1
		}
		out[i] = float64(t) * float64(l.d.Limits.TimestampPeriod)
	}
	return out, nil
}

// End finishes recording. A final barrier makes the list's writes visible
// to the host and to later transfers.
func (l *CommandList) End() error {
	if err := l.recording(); err != nil {
		return err
	}
	C.vkdml_cmd_memory_barrier(l.cmd, allCommands, memRW, allCommands|hostStage, memRW|hostRW)
	if err := l.d.result("vkEndCommandBuffer", C.vkdml_end(l.cmd)); err != nil {
		return err
	}
	l.state = stateExecutable
	return nil
}

// Dispatches is the number of dispatches recorded.
func (l *CommandList) Dispatches() int { return l.dispatchN }

// Submit queues the list for execution. It must have ended, and any
// earlier submission of it must have been waited for.
func (l *CommandList) Submit() error {
	d := l.d
	if err := d.alive(); err != nil {
		return err
	}
	switch l.state {
	case stateExecutable:
	case statePending:
		return errors.New("gpu: Submit: the list's previous submission has not been waited for")
	default:
		return errors.New("gpu: Submit: the list is not closed; call End")
	}
	if err := d.result("vkResetFences", C.vkdml_reset_fence(d.dev, l.fence)); err != nil {
		return err
	}
	d.queueMu.Lock()
	r := C.vkdml_submit(d.queue, l.cmd, l.fence)
	d.queueMu.Unlock()
	if err := d.result("vkQueueSubmit", r); err != nil {
		return err
	}
	l.state = statePending
	return nil
}

// Wait blocks until the last submission completes (at most SubmitTimeout),
// then reports any validation message it caused.
func (l *CommandList) Wait() error {
	if l.state != statePending {
		return nil
	}
	d := l.d
	r := C.vkdml_wait_fence(d.dev, l.fence, C.uint64_t(SubmitTimeout.Nanoseconds()))
	if r == C.VK_TIMEOUT {
		return fmt.Errorf("gpu: vkWaitForFences: VK_TIMEOUT after %v", SubmitTimeout)
	}
	if err := d.result("vkWaitForFences", r); err != nil {
		return err
	}
	l.state = stateExecutable
	return d.TakeValidationError()
}

// Run submits the list and waits for it.
func (l *CommandList) Run() error {
	if err := l.Submit(); err != nil {
		return err
	}
	return l.Wait()
}
