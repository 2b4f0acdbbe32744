package tests

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// checkDescPlan validates desc and, when it is valid, plans it and checks
// the plan with ops.CheckPlan; on a small input it also runs the CPU
// reference.
// It returns an error for any broken rule.
func checkDescPlan(ctx *ops.Context, desc ops.Desc, fill []byte) error {
	err := desc.Validate(ctx)
	if err != nil {
		var he *hresult.Error
		if !errors.As(err, &he) || he.Rule == "" {
			return fmt.Errorf("Validate returned %T %v, not an *hresult.Error with a rule", err, err)
		}
		if he.Code != hresult.E_INVALIDARG && he.Code != hresult.DXGI_ERROR_UNSUPPORTED {
			return fmt.Errorf("Validate returned %v", err)
		}
		return nil
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		var he *hresult.Error
		// A layout vkdml cannot cover, or a plan too large to build.
		if !errors.As(err, &he) || he.Rule == "" || he.Code != hresult.DXGI_ERROR_UNSUPPORTED && he.Code != hresult.E_OUTOFMEMORY {
			return fmt.Errorf("Plan of a valid desc failed without DXGI_ERROR_UNSUPPORTED or E_OUTOFMEMORY and a rule: %v", err)
		}
		return nil
	}
	// The one plan check CreateOperator also applies: kernels against their
	// SPIR-V and the device, steps against their resources and limits.
	if err := ops.CheckPlan(ctx, desc, p); err != nil {
		return err
	}
	// The CPU reference on small tensors: it must not panic.
	var ins, outs []*tensor.Tensor
	var bytes uint64
	for _, d := range desc.Inputs() {
		bytes += min(d.TotalTensorSizeInBytes, 1<<32) // no wrap on huge totals
	}
	for _, d := range desc.Outputs() {
		if d != nil {
			bytes += min(d.TotalTensorSizeInBytes, 1<<32)
		}
	}
	// Bound the reference's work: elements, and for pooling the window
	// (the reference scans a window of 8e8 positions as the desc says,
	// where the kernel clips it to the input).
	work := uint64(1)
	for _, d := range desc.Inputs() {
		work = max(work, d.ElementCount())
	}
	var window []uint32
	switch x := desc.(type) {
	case *ops.MaxPooling:
		window = x.WindowSize
	case *ops.MaxPooling1:
		window = x.WindowSize
	case *ops.MaxPooling2:
		window = x.WindowSize
	}
	if len(window) > 0 {
		work = desc.Outputs()[0].ElementCount()
		for _, w := range window {
			work = min(work*uint64(w), 1<<40)
		}
	}
	if bytes > 1<<16 || work > 1<<16 {
		return nil
	}
	for _, d := range desc.Inputs() {
		t := &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)}
		for i := range t.Data {
			if len(fill) > 0 {
				t.Data[i] = fill[i%len(fill)]
			}
		}
		ins = append(ins, t)
	}
	for _, d := range desc.Outputs() {
		if d == nil {
			outs = append(outs, nil)
			continue
		}
		outs = append(outs, &tensor.Tensor{Desc: d.Clone(), Data: make([]byte, d.TotalTensorSizeInBytes)})
	}
	if err := desc.Reference(ins, outs); err != nil {
		return fmt.Errorf("reference of a valid desc: %v", err)
	}
	return nil
}

// FuzzOperatorDesc decodes arbitrary bytes (internal/descfuzz) into the
// descs with a fuzz kind in ops' registry (ARGMAX, ARGMIN, REDUCE and
// MAX_POOLING{,1,2}), with sizes and strides up to
// 2^32-1, on a lavapipe-like or GPU-like context with features and limits
// turned down: validation must never panic and must answer with an
// *hresult.Error naming a rule; a desc it accepts must plan (or be refused
// with DXGI_ERROR_UNSUPPORTED or E_OUTOFMEMORY, promptly) into steps whose
// windows lie inside their tensors and within maxStorageBufferRange, and
// its CPU reference must run.
func FuzzOperatorDesc(f *testing.F) {
	for _, seed := range descfuzz.Seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx, desc, rest := descfuzz.Decode(b)
		if desc == nil { // a kind number no desc has yet
			return
		}
		if err := checkDescPlan(ctx, desc, rest); err != nil {
			t.Fatalf("%s %+v: %v", desc.OperatorType(), desc, err)
		}
	})
}
