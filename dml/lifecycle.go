package dml

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
)

// Sentinel errors for objects used after their end of life. Every error a
// method returns for such a use wraps one of them and carries E_INVALIDARG,
// so both errors.Is(err, dml.ErrReleased) and
// errors.Is(err, hresult.E_INVALIDARG) hold.
var (
	// ErrReleased: the object (or a resource or operator it refers to) was
	// released.
	ErrReleased = errors.New("dml: object released")
	// ErrDeviceClosed: the device the object belongs to was closed.
	ErrDeviceClosed = errors.New("dml: device closed")
	// ErrNotCreated: the object is nil or a zero value, not one that a
	// Create function returned.
	ErrNotCreated = errors.New("dml: object not created by its Create function")
	// ErrForeignDevice: the object belongs to another device.
	ErrForeignDevice = errors.New("dml: object of another device")
	// ErrPending: the command list is still executing.
	ErrPending = errors.New("dml: command list pending")
)

// lifeErr is the E_INVALIDARG error of call when the object named field
// cannot be used: rule says why, cause is the sentinel.
func lifeErr(call, field, rule string, cause error) error {
	return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: field, Rule: rule, Err: cause}
}

// nop is the leave function of a guard that took nothing.
func nop() {}

// isNil reports whether v is nil or a typed nil pointer (a nil *ArgMax
// passed as an OperatorDesc is not == nil, and its methods would dereference
// it).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// enter guards one call on the device or an object of it: it fails after
// Close (and, for an ordinary call, after a device loss) and otherwise holds
// the device open until the returned function is called, so that Close
// never frees what a running call is using. Calls never nest enter: a
// reader waiting behind a pending Close would deadlock.
func (d *Device) enter(call string) (func(), error) {
	leave, err := d.enterAny(call)
	return guardThen(leave, err, func() error { return d.removed(call) })
}

// guardThen completes a guard that took leave (or failed with err) with
// one more check: when check fails, it releases what the guard took and
// returns check's error.
func guardThen(leave func(), err error, check func() error) (func(), error) {
	if err != nil {
		return nop, err
	}
	if err := check(); err != nil {
		leave()
		return nop, err
	}
	return leave, nil
}

// enterAny is enter for calls that must work on a lost device too (reading
// back, waiting, releasing): only a closed device stops them.
func (d *Device) enterAny(call string) (func(), error) {
	if d == nil || d.gpu == nil {
		return nop, lifeErr(call, "device", "is nil or a zero value; use CreateDevice", ErrNotCreated)
	}
	d.life.RLock()
	if d.closed {
		d.life.RUnlock()
		return nop, lifeErr(call, "device", "the device was closed", ErrDeviceClosed)
	}
	return d.life.RUnlock, nil
}

// isLifecycleErr reports whether err is a use of a released, closed or
// foreign object, which vkdml reports as E_INVALIDARG.
func isLifecycleErr(err error) bool {
	for _, target := range lifecycleSentinels {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// lifecycleSentinels are dml's own and the host layer's lifecycle errors
// (a range outside a buffer included: a caller's mistake, E_INVALIDARG).
var lifecycleSentinels = []error{ErrReleased, ErrDeviceClosed, ErrNotCreated, ErrForeignDevice, ErrPending,
	gpu.ErrReleased, gpu.ErrDeviceClosed, gpu.ErrForeignDevice, gpu.ErrPending, gpu.ErrOutOfRange}

// gpuToDML pairs the host layer's lifecycle sentinels with dml's.
var gpuToDML = []struct{ gpu, dml error }{
	{gpu.ErrReleased, ErrReleased},
	{gpu.ErrDeviceClosed, ErrDeviceClosed},
	{gpu.ErrForeignDevice, ErrForeignDevice},
	{gpu.ErrPending, ErrPending},
}

// withDMLSentinel makes a host-layer lifecycle error also match dml's
// sentinel, so that callers of dml test one set of errors.
func withDMLSentinel(err error) error {
	for _, p := range gpuToDML {
		if errors.Is(err, p.gpu) && !errors.Is(err, p.dml) {
			return fmt.Errorf("%w: %w", p.dml, err)
		}
	}
	return err
}
