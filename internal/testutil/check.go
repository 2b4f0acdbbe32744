package testutil

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// guardBytes surround every bound tensor; a kernel that writes outside its
// output, or reads outside its input into an output, shows up there.
const guardBytes = 256

// Checked is the outcome of CheckOperator.
type Checked struct {
	Outputs  []*tensor.Tensor // what the GPU produced (with poison where nothing was addressed)
	Expected []*tensor.Tensor // what the reference produced
	Strategy string
}

// CheckOperator runs desc on d through the whole DirectML-shaped API
// (create, compile, initialize, bind, record, execute, read back) and
// compares every output byte with desc.Reference:
//
//   - each tensor lives at a random 16-byte-aligned offset inside its own
//     buffer, between guard bands filled with a poison byte that must
//     survive;
//   - outputs are poisoned before the run, so an element the kernel forgot
//     to write differs from the reference, and bytes between strided
//     elements must stay poisoned (semantics.md rule 6);
//   - the temporary resource is poisoned too.
//
// It fails the test on any difference and returns both results.
func CheckOperator(t testing.TB, d *dml.Device, desc ops.Desc, inputs []*tensor.Tensor, rng *rand.Rand) Checked {
	t.Helper()
	res, err := RunPoisoned(d, desc, inputs, rng)
	if err != nil {
		t.Fatalf("%s: %v", desc.OperatorType(), err)
	}
	for i := range res.Outputs {
		if res.Outputs[i] == nil {
			continue
		}
		if diff := DiffTensorsWithin(res.Expected[i], res.Outputs[i], ops.ToleranceOf(desc, i), 8); diff != "" {
			t.Fatalf("%s (%s): output %d differs from the CPU reference:\n%s", desc.OperatorType(), res.Strategy, i, diff)
		}
	}
	return res
}

// RunPoisoned is CheckOperator without the comparison: it returns the GPU's
// and the reference's outputs, or the first error (a guard band that was
// overwritten is an error).
func RunPoisoned(d *dml.Device, desc ops.Desc, inputs []*tensor.Tensor, rng *rand.Rand) (Checked, error) {
	var res Checked
	poison := byte(rng.Intn(256))
	op, err := d.CreateOperator(desc)
	if err != nil {
		return res, err
	}
	res.Strategy = op.Strategy()
	cop, err := d.CompileOperator(op, dml.ExecutionFlagNone)
	if err != nil {
		return res, err
	}
	defer cop.Release()
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		return res, err
	}

	type placed struct {
		r      *dml.Resource
		kind   string // input, output, temporary
		off    uint64
		size   uint64
		before []byte // the whole buffer as uploaded
	}
	var all []*placed
	defer func() {
		for _, p := range all {
			p.r.Release()
		}
	}()
	place := func(kind string, data []byte, size uint64) (*placed, error) {
		off := guardBytes + 16*uint64(rng.Intn(16))
		if kind == "temporary" {
			off = guardBytes // DirectML: 256-byte aligned
		}
		total := off + size + guardBytes
		r, err := d.CreateBuffer(total)
		if err != nil {
			return nil, err
		}
		buf := bytes.Repeat([]byte{poison}, int(total))
		copy(buf[off:], data)
		if err := r.Write(0, buf); err != nil {
			r.Release()
			return nil, err
		}
		p := &placed{r: r, kind: kind, off: off, size: size, before: buf}
		all = append(all, p)
		return p, nil
	}

	ins := desc.Inputs()
	if len(inputs) != len(ins) {
		return res, fmt.Errorf("%d inputs for %d", len(inputs), len(ins))
	}
	execIn := make([]dml.Binding, len(ins))
	initIn := make(dml.BufferArrayBinding, len(ins))
	owned := false
	for i, td := range ins {
		if td == nil {
			continue
		}
		p, err := place("input", inputs[i].Data[:td.TotalTensorSizeInBytes], td.TotalTensorSizeInBytes)
		if err != nil {
			return res, err
		}
		b := &dml.BufferBinding{Buffer: p.r, Offset: p.off, SizeInBytes: p.size}
		if td.Flags&tensor.FlagOwnedByDML != 0 {
			initIn[i], owned = *b, true
		} else {
			execIn[i] = b
		}
	}
	outs := desc.Outputs()
	execOut := make([]dml.Binding, len(outs))
	outPlaced := make([]*placed, len(outs))
	res.Outputs = make([]*tensor.Tensor, len(outs))
	res.Expected = make([]*tensor.Tensor, len(outs))
	for i, td := range outs {
		if td == nil {
			continue
		}
		fill := bytes.Repeat([]byte{poison}, int(td.TotalTensorSizeInBytes))
		p, err := place("output", fill, td.TotalTensorSizeInBytes)
		if err != nil {
			return res, err
		}
		outPlaced[i] = p
		execOut[i] = &dml.BufferBinding{Buffer: p.r, Offset: p.off, SizeInBytes: p.size}
		res.Expected[i] = &tensor.Tensor{Desc: td.Clone(), Data: append([]byte(nil), fill...)}
	}
	props := cop.BindingProperties()
	var temp, pers *dml.BufferBinding
	if props.TemporaryResourceSize > 0 {
		p, err := place("temporary", nil, props.TemporaryResourceSize)
		if err != nil {
			return res, err
		}
		temp = &dml.BufferBinding{Buffer: p.r, Offset: p.off, SizeInBytes: p.size}
	}
	if props.PersistentResourceSize > 0 {
		r, err := d.CreateBuffer(props.PersistentResourceSize)
		if err != nil {
			return res, err
		}
		all = append(all, &placed{r: r, kind: "persistent"})
		pers = &dml.BufferBinding{Buffer: r, SizeInBytes: props.PersistentResourceSize}
	}

	list, err := d.CreateCommandList()
	if err != nil {
		return res, err
	}
	defer list.Release()
	rec, err := d.CreateCommandRecorder()
	if err != nil {
		return res, err
	}
	it, err := d.CreateBindingTable(init)
	if err != nil {
		return res, err
	}
	if owned {
		if err := it.BindInputs(initIn); err != nil {
			return res, err
		}
	}
	if pers != nil {
		if err := it.BindOutputs(pers); err != nil {
			return res, err
		}
	}
	if err := rec.RecordDispatch(list, init, it); err != nil {
		return res, err
	}
	if err := list.ResourceBarrierUAV(); err != nil {
		return res, err
	}
	table, err := d.CreateBindingTable(cop)
	if err != nil {
		return res, err
	}
	for _, step := range []error{
		table.BindInputs(execIn...),
		table.BindOutputs(execOut...),
		table.BindTemporaryResource(temp),
		table.BindPersistentResource(pers),
		rec.RecordDispatch(list, cop, table),
		list.Close(),
		list.Execute(),
		list.Wait(),
	} {
		if step != nil {
			return res, step
		}
	}

	// Guards and inputs must be untouched; outputs are read back.
	for _, p := range all {
		if p.before == nil {
			continue
		}
		after := make([]byte, len(p.before))
		if err := p.r.Read(0, after); err != nil {
			return res, err
		}
		for i := range after {
			inTensor := uint64(i) >= p.off && uint64(i) < p.off+p.size
			if !inTensor && after[i] != p.before[i] {
				return res, fmt.Errorf("guard byte %d (tensor at [%d,%d)) changed from %#02x to %#02x: a write outside the bound range", i, p.off, p.off+p.size, p.before[i], after[i])
			}
		}
		for i, op := range outPlaced {
			if op == p {
				res.Outputs[i] = &tensor.Tensor{Desc: outs[i].Clone(), Data: after[p.off : p.off+p.size]}
			}
		}
		if p.kind == "input" && !bytes.Equal(after, p.before) {
			return res, fmt.Errorf("an input buffer changed: DirectML never writes inputs")
		}
	}
	if err := desc.Reference(inputs, res.Expected); err != nil {
		return res, fmt.Errorf("reference: %w", err)
	}
	return res, nil
}

// DiffTensors compares two tensors with one desc bit for bit over their
// whole bytes (addressed elements and the bytes between them) and
// describes up to max differing elements; "" when equal.
func DiffTensors(want, got *tensor.Tensor, max int) string {
	return DiffTensorsWithin(want, got, ops.Tolerance{}, max)
}

// DiffTensorsWithin is DiffTensors with addressed elements compared within
// tol (ops.ToleranceOf the operator's output; the zero Tolerance is bit for
// bit); the bytes between strided elements must still be unchanged.
func DiffTensorsWithin(want, got *tensor.Tensor, tol ops.Tolerance, max int) string {
	if bytes.Equal(want.Data, got.Data) {
		return ""
	}
	var b strings.Builder
	n := 0
	tensor.ForEachIndex(want.Desc.Sizes, func(c []uint32) {
		w, g := want.Bits(c...), got.Bits(c...)
		if !tol.Accepts(want.Desc.DataType, w, g) {
			if n < max {
				fmt.Fprintf(&b, "  at %v: want %s, got %s\n", c, formatBits(want.Desc.DataType, w, want, c), formatBits(got.Desc.DataType, g, got, c))
			}
			n++
		}
	})
	if n == 0 {
		// Every addressed element is within tol: the rest must be unchanged.
		masked := &tensor.Tensor{Desc: got.Desc, Data: append([]byte(nil), got.Data...)}
		tensor.ForEachIndex(want.Desc.Sizes, func(c []uint32) { masked.SetBits(c, want.Bits(c...)) })
		if bytes.Equal(masked.Data, want.Data) {
			return ""
		}
		b.WriteString("  every addressed element matches, but bytes between strided elements changed (semantics.md rule 6)\n")
	} else if n > max {
		fmt.Fprintf(&b, "  ... %d elements differ in all\n", n)
	}
	return b.String()
}

func formatBits(dt tensor.DataType, bits uint64, t *tensor.Tensor, c []uint32) string {
	if dt.IsFloat() {
		return fmt.Sprintf("%g (%#x)", t.Float64At(c...), bits)
	}
	if dt.IsSigned() {
		return fmt.Sprint(t.Int64At(c...))
	}
	return fmt.Sprint(t.Uint64At(c...))
}
