package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// SubmitTimeout bounds every wait on the GPU, so that a runaway kernel
// becomes an error rather than a hang.
var SubmitTimeout = 5 * time.Minute

// Timestamp records the GPU time after all earlier commands and returns its
// index, for Timestamps. It returns -1 when the queue has no timestamps.
func (l *CommandList) Timestamp() (int, error) {
	if err := l.lockRecording("Timestamp"); err != nil {
		return -1, err
	}
	defer l.unlock()
	if l.d.Limits.TimestampValidBits == 0 {
		return -1, nil
	}
	if l.queries == 0 {
		if err := l.d.result("vkCreateQueryPool", C.vkdml_create_query_pool(l.d.dev, 256, &l.queries)); err != nil {
			return -1, err
		}
		l.queryCap = 256
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
// submission, in nanoseconds from an arbitrary origin; none before a
// submission has completed.
func (l *CommandList) Timestamps() ([]float64, error) {
	if err := l.lock("Timestamps"); err != nil {
		return nil, err
	}
	defer l.unlock()
	if l.state == statePending {
		return nil, fmt.Errorf("gpu: CommandList.Timestamps: %w", ErrPending)
	}
	if l.queryDone == 0 {
		return nil, nil
	}
	raw := make([]uint64, l.queryDone)
	if err := l.d.result("vkGetQueryPoolResults", C.vkdml_query_results(l.d.dev, l.queries, C.uint32_t(l.queryDone), (*C.uint64_t)(unsafe.Pointer(&raw[0])))); err != nil {
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
	if err := l.lockRecording("End"); err != nil {
		return err
	}
	defer l.unlock()
	C.vkdml_cmd_memory_barrier(l.cmd, allCommands, memRW, allCommands|hostStage, memRW|hostRW)
	if err := l.d.result("vkEndCommandBuffer", C.vkdml_end(l.cmd)); err != nil {
		return err
	}
	l.state = stateExecutable
	return nil
}

// Dispatches is the number of dispatches recorded (0 for a released list).
func (l *CommandList) Dispatches() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dispatchN
}

// Submit queues the list for execution. It must have ended, and an earlier
// submission of it must have been waited for: a second Submit of a pending
// list fails with ErrPending and reaches no queue. So does a list that uses
// a buffer or kernel released after it was recorded (ErrReleased).
func (l *CommandList) Submit() error {
	if err := l.lock("Submit"); err != nil {
		return err
	}
	defer l.unlock()
	l.d.reap()
	return l.submit()
}

func (l *CommandList) submit() error {
	d := l.d
	if err := d.usable("CommandList.Submit"); err != nil {
		return err
	}
	switch l.state {
	case stateExecutable:
	case statePending:
		return fmt.Errorf("gpu: CommandList.Submit: %w: the previous submission has not been waited for", ErrPending)
	default:
		return errors.New("gpu: CommandList.Submit: the list is not closed; call End")
	}
	if err := l.hold(); err != nil {
		return fmt.Errorf("gpu: CommandList.Submit: %w", err)
	}
	err := d.result("vkResetFences", C.vkdml_reset_fence(d.dev, l.fence))
	if err == nil {
		d.queueMu.Lock()
		r := C.vkdml_submit(d.queue, l.cmd, l.fence)
		d.queueMu.Unlock()
		err = d.result("vkQueueSubmit", r)
	}
	if err != nil {
		l.unhold()
		return err
	}
	l.state = statePending
	l.querySubmitted = l.queryN
	d.objMu.Lock()
	d.pending[l] = struct{}{}
	d.objMu.Unlock()
	return nil
}

// hold counts a use of everything the recording uses, failing (and holding
// nothing) when any of it was released.
func (l *CommandList) hold() error {
	var bufs []*Buffer
	var kernels []*Kernel
	fail := func(err error) error {
		for _, b := range bufs {
			b.unuse()
		}
		for _, k := range kernels {
			k.unuse()
		}
		return err
	}
	for b := range l.bufs {
		if err := b.acquire(); err != nil {
			return fail(fmt.Errorf("a buffer of %d bytes was freed after the list was recorded: %w", b.size, err))
		}
		bufs = append(bufs, b)
	}
	for k := range l.kernels {
		if err := k.acquire(); err != nil {
			return fail(err)
		}
		kernels = append(kernels, k)
	}
	l.held = true
	return nil
}

// unhold ends the uses hold counted.
func (l *CommandList) unhold() {
	if !l.held {
		return
	}
	l.held = false
	for b := range l.bufs {
		b.unuse()
	}
	for k := range l.kernels {
		k.unuse()
	}
}

// complete records that the pending submission is done.
func (l *CommandList) complete() {
	l.unhold()
	l.state = stateExecutable
	l.queryDone = l.querySubmitted
	d := l.d
	d.objMu.Lock()
	delete(d.pending, l)
	d.objMu.Unlock()
}

// poll reports whether the pending submission is done, completing it if so.
// A lost device counts as done: it runs nothing more.
func (l *CommandList) poll() bool {
	r := C.vkdml_fence_status(l.d.dev, l.fence)
	if r == C.VK_SUCCESS || l.d.result("vkGetFenceStatus", r) != nil && l.d.lost.Load() {
		l.complete()
		return true
	}
	return false
}

// waitFence waits up to timeout for the pending submission. On VK_TIMEOUT
// the list stays pending, with everything it uses, and the error says what
// timed out (what, a phrase naming the call and its work) and what is kept
// (keep).
func (l *CommandList) waitFence(timeout time.Duration, what, keep string) error {
	if l.state != statePending {
		return nil
	}
	d := l.d
	r := C.vkdml_wait_fence(d.dev, l.fence, C.uint64_t(max(timeout, 0).Nanoseconds()))
	if r == C.VK_TIMEOUT {
		return fmt.Errorf("gpu: %s did not finish within %v (vkWaitForFences: VK_TIMEOUT): %w; %s", what, timeout, ErrTimeout, keep)
	}
	if err := d.result("vkWaitForFences", r); err != nil {
		if d.lost.Load() {
			l.complete()
		}
		return fmt.Errorf("gpu: %s: %w", what, err)
	}
	l.complete()
	return nil
}

// keepList is what a list whose wait timed out keeps.
const keepList = "the list stays pending, with the buffers and kernels it uses, until a wait sees it finish (Wait again, or Destroy it)"

// Wait blocks until the last submission completes (at most SubmitTimeout),
// then reports any validation message it caused. After a timeout (an error
// wrapping ErrTimeout) the list is still pending: Wait again, or Destroy
// it, which frees it once the work is done.
func (l *CommandList) Wait() error {
	if err := l.lock("Wait"); err != nil {
		return err
	}
	defer l.unlock()
	if l.state != statePending {
		return nil
	}
	if err := l.waitFence(SubmitTimeout, "CommandList.Wait: the submitted list", keepList); err != nil {
		return err
	}
	return l.d.TakeValidationError()
}

// Run submits the list and waits for it.
func (l *CommandList) Run() error {
	if err := l.lock("Run"); err != nil {
		return err
	}
	defer l.unlock()
	l.d.reap()
	if err := l.submit(); err != nil {
		return err
	}
	if err := l.waitFence(SubmitTimeout, "CommandList.Run: the submitted list", keepList); err != nil {
		return err
	}
	return l.d.TakeValidationError()
}

// runOnce records fn into a transient list that uses the given buffers,
// submits it and waits; what names the call and its work in errors. The
// caller holds the life lock. After a timeout the list, and what it uses
// (a staging buffer included), are freed once a later call (reap), WaitIdle
// or Close sees the work done.
func (d *Device) runOnce(what string, uses []*Buffer, fn func(cmd C.VkCommandBuffer)) error {
	if err := d.usable("runOnce"); err != nil {
		return err
	}
	d.reap()
	l, err := d.newList()
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.destroyLocked()
	if err := l.begin(true); err != nil {
		return err
	}
	for _, b := range uses {
		l.bufs[b] = struct{}{}
	}
	fn(l.cmd)
	if err := d.result("vkEndCommandBuffer", C.vkdml_end(l.cmd)); err != nil {
		return err
	}
	l.state = stateExecutable
	if err := l.submit(); err != nil {
		return err
	}
	if err := l.waitFence(SubmitTimeout, what, "the buffers it copies stay allocated until a later call sees it finish"); err != nil {
		return err
	}
	return d.TakeValidationError()
}

// reap frees the destroyed lists whose submissions have completed since.
// The caller holds the life lock and no list's lock but its own.
func (d *Device) reap() {
	for _, l := range d.pendingLists() {
		if !l.mu.TryLock() {
			continue // busy: its owner is using it, or another reap is
		}
		if l.destroyed && !l.freed && l.state == statePending && l.poll() {
			l.free()
			d.untrackList(l)
		}
		l.mu.Unlock()
	}
}

func (d *Device) pendingLists() []*CommandList {
	d.objMu.Lock()
	defer d.objMu.Unlock()
	ls := make([]*CommandList, 0, len(d.pending))
	for l := range d.pending {
		ls = append(ls, l)
	}
	return ls
}

// waitPending waits for every pending submission, destroyed lists
// included, for at most timeout in all; it fails with ErrTimeout when some
// is still running then, naming call and how many. The caller holds the
// life lock.
func (d *Device) waitPending(call string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	lists := d.pendingLists()
	for i, l := range lists {
		l.mu.Lock()
		what := fmt.Sprintf("%s: submitted work (%d list(s) not yet seen to finish)", call, len(lists)-i)
		err := l.waitFence(time.Until(deadline), what, "it keeps what it uses")
		if err == nil && l.destroyed && !l.freed {
			l.free()
			d.untrackList(l)
		}
		l.mu.Unlock()
		if err != nil && !errors.Is(err, ErrDeviceLost) {
			return err
		}
	}
	return nil
}
