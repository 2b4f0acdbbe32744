package main

import (
	"fmt"
	"sync"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/ops"
)

// device is what a vkdml_device handle refers to.
type device struct {
	dev *dml.Device
	mu  sync.Mutex
	// live counts the operators being created or alive on the device
	// (one-shot vkdml_run operators included), so that the device cannot
	// be closed under them; closed is set once it is.
	live   int
	closed bool
	// runs caches vkdml_run's operators by desc; they count in live.
	runs *runCache
}

// acquire registers one more operator on d, unless d is closed.
func (d *device) acquire(call string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return invalidArg(call, "device", "was destroyed")
	}
	d.live++
	return nil
}

func (d *device) releaseOne() {
	d.mu.Lock()
	d.live--
	d.mu.Unlock()
}

// preparedOp is what a vkdml_operator handle refers to: a dml.Prepared
// (compiled, initialized, its dispatch recorded once) counted among its
// device's operators until released.
type preparedOp struct {
	dev  *device
	kind string
	p    *dml.Prepared

	mu       sync.Mutex
	released bool
}

// prepare validates, compiles and initializes desc on d.
func prepare(call string, d *device, desc ops.Desc) (*preparedOp, error) {
	if err := d.acquire(call); err != nil {
		return nil, err
	}
	p, err := d.dev.Prepare(desc, dml.PrepareOptions{})
	if err != nil {
		d.releaseOne()
		return nil, hresult.WithOp(call, err)
	}
	return &preparedOp{dev: d, kind: desc.OperatorType(), p: p}, nil
}

// hostBuffer is one vkdml_buffer, as a Go slice over C memory (nil for an
// absent tensor). It is used only during the call that received it.
type hostBuffer []byte

// run checks the host buffers, uploads the inputs, executes and reads the
// outputs back (only their elements' bytes: semantics rule 6).
func (op *preparedOp) run(ins, outs []hostBuffer) error {
	call := "vkdml_operator_run(" + op.kind + ")"
	in, out := asBytes(ins), asBytes(outs)
	if err := dml.CheckHost(call, "inputs", op.p.Inputs(), in); err != nil {
		return err
	}
	if err := dml.CheckHost(call, "outputs", op.p.Outputs(), out); err != nil {
		return err
	}
	return hresult.WithOp(call, op.p.Run(in, out))
}

func asBytes(bufs []hostBuffer) [][]byte {
	out := make([][]byte, len(bufs))
	for i, b := range bufs {
		out[i] = b
	}
	return out
}

// releaseLocked releases the operator after any run in progress; only
// the first call counts it off its device.
func (op *preparedOp) releaseLocked() {
	op.mu.Lock()
	first := !op.released
	op.released = true
	op.mu.Unlock()
	if first {
		op.p.Release()
		op.dev.releaseOne()
	}
}

// featureLevels answers vkdml_device_feature_levels.
func (d *device) featureLevels(requested []uint32) (uint32, error) {
	levels := make([]dml.FeatureLevel, len(requested))
	for i, l := range requested {
		levels[i] = dml.FeatureLevel(l)
	}
	best, err := d.dev.FeatureLevels(levels)
	return uint32(best), err
}

// close closes the device unless operators remain (those vkdml_run cached
// are released first).
func (d *device) close(call string) error {
	d.runs.Clear()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return invalidArg(call, "device", "was destroyed")
	}
	if d.live > 0 {
		return &hresult.Error{Code: hresult.E_INVALIDARG, Op: call, Field: "device",
			Rule: fmt.Sprintf("%d operators created on it still exist; destroy them first", d.live)}
	}
	d.closed = true
	return d.dev.Close()
}
