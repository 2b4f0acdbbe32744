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
//   - the temporary and persistent resources are poisoned too.
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
	r := &poisonRun{d: d, rng: rng, poison: byte(rng.Intn(256))}
	defer r.release()
	b, err := r.bind(desc, cop, inputs, &res)
	if err != nil {
		return res, err
	}
	if err := r.execute(cop, b); err != nil {
		return res, err
	}
	if err := r.readBack(desc, b.outPlaced, &res); err != nil {
		return res, err
	}
	if err := desc.Reference(inputs, res.Expected); err != nil {
		return res, fmt.Errorf("reference: %w", err)
	}
	return res, nil
}

// poisonRun is one RunPoisoned: its buffers, each a tensor between guard
// bands of poison.
type poisonRun struct {
	d      *dml.Device
	rng    *rand.Rand
	poison byte
	all    []*placed
}

// placed is one buffer of a run and where its tensor lies in it.
type placed struct {
	r      *dml.Resource
	kind   string // input, output, temporary, persistent
	off    uint64
	size   uint64
	before []byte // the whole buffer as uploaded (nil: not checked)
}

// runBindings are the bindings of one run.
type runBindings struct {
	execIn, execOut []dml.Binding
	initIn          dml.BufferArrayBinding
	owned           bool // some input is OWNED_BY_DML: bind initIn at initialization
	temp, pers      *dml.BufferBinding
	outPlaced       []*placed
}

func (r *poisonRun) release() {
	for _, p := range r.all {
		p.r.Release()
	}
}

// place puts data (size bytes) at a random aligned offset of a new buffer
// filled with poison.
func (r *poisonRun) place(kind string, data []byte, size uint64) (*placed, error) {
	off := guardBytes + 16*uint64(r.rng.Intn(16))
	if kind == "temporary" {
		off = guardBytes // DirectML: 256-byte aligned
	}
	total := off + size + guardBytes
	res, err := r.d.CreateBuffer(total)
	if err != nil {
		return nil, err
	}
	buf := bytes.Repeat([]byte{r.poison}, int(total))
	copy(buf[off:], data)
	if err := res.Write(0, buf); err != nil {
		res.Release()
		return nil, err
	}
	p := &placed{r: res, kind: kind, off: off, size: size, before: buf}
	r.all = append(r.all, p)
	return p, nil
}

func (p *placed) binding() *dml.BufferBinding {
	return &dml.BufferBinding{Buffer: p.r, Offset: p.off, SizeInBytes: p.size}
}

// bind places every tensor and the temporary and persistent resources,
// and sets res.Expected to the poisoned outputs.
func (r *poisonRun) bind(desc ops.Desc, cop *dml.CompiledOperator, inputs []*tensor.Tensor, res *Checked) (*runBindings, error) {
	ins, outs := desc.Inputs(), desc.Outputs()
	if len(inputs) != len(ins) {
		return nil, fmt.Errorf("%d inputs for %d", len(inputs), len(ins))
	}
	b := &runBindings{execIn: make([]dml.Binding, len(ins)), initIn: make(dml.BufferArrayBinding, len(ins)),
		execOut: make([]dml.Binding, len(outs)), outPlaced: make([]*placed, len(outs))}
	for i, td := range ins {
		if td == nil {
			continue
		}
		p, err := r.place("input", inputs[i].Data[:td.TotalTensorSizeInBytes], td.TotalTensorSizeInBytes)
		if err != nil {
			return nil, err
		}
		if td.Flags&tensor.FlagOwnedByDML != 0 {
			b.initIn[i], b.owned = *p.binding(), true
		} else {
			b.execIn[i] = p.binding()
		}
	}
	res.Outputs = make([]*tensor.Tensor, len(outs))
	res.Expected = make([]*tensor.Tensor, len(outs))
	for i, td := range outs {
		if td == nil {
			continue
		}
		fill := bytes.Repeat([]byte{r.poison}, int(td.TotalTensorSizeInBytes))
		p, err := r.place("output", fill, td.TotalTensorSizeInBytes)
		if err != nil {
			return nil, err
		}
		b.outPlaced[i], b.execOut[i] = p, p.binding()
		res.Expected[i] = &tensor.Tensor{Desc: td.Clone(), Data: append([]byte(nil), fill...)}
	}
	props := cop.BindingProperties()
	if props.TemporaryResourceSize > 0 {
		p, err := r.place("temporary", nil, props.TemporaryResourceSize)
		if err != nil {
			return nil, err
		}
		b.temp = p.binding()
	}
	if props.PersistentResourceSize > 0 {
		res, err := r.d.CreateBuffer(props.PersistentResourceSize)
		if err != nil {
			return nil, err
		}
		r.all = append(r.all, &placed{r: res, kind: "persistent"})
		// Poisoned as well: what a plan keeps there (a split's ticket),
		// the initializer must set.
		if err := res.Write(0, bytes.Repeat([]byte{r.poison}, int(props.PersistentResourceSize))); err != nil {
			return nil, err
		}
		b.pers = &dml.BufferBinding{Buffer: res, SizeInBytes: props.PersistentResourceSize}
	}
	return b, nil
}

// execute initializes cop and dispatches it in one list, and waits.
func (r *poisonRun) execute(cop *dml.CompiledOperator, b *runBindings) error {
	init, err := r.d.CreateOperatorInitializer(cop)
	if err != nil {
		return err
	}
	rec, err := r.d.CreateCommandRecorder()
	if err != nil {
		return err
	}
	bindInit := func(it *dml.BindingTable) error {
		if b.owned {
			if err := it.BindInputs(b.initIn); err != nil {
				return err
			}
		}
		if b.pers != nil {
			return it.BindOutputs(b.pers)
		}
		return nil
	}
	bindExec := func(table *dml.BindingTable) error {
		for _, bind := range []func() error{
			func() error { return table.BindInputs(b.execIn...) },
			func() error { return table.BindOutputs(b.execOut...) },
			func() error { return table.BindTemporaryResource(b.temp) },
			func() error { return table.BindPersistentResource(b.pers) },
		} {
			if err := bind(); err != nil {
				return err
			}
		}
		return nil
	}
	list, err := Record(r.d, rec, Dispatch{Dispatchable: init, Bind: bindInit}, Dispatch{Dispatchable: cop, Bind: bindExec})
	if err != nil {
		return err
	}
	defer list.Release()
	if err := list.Execute(); err != nil {
		return err
	}
	return list.Wait()
}

// readBack checks that guards and inputs are untouched and reads the
// outputs into res.Outputs.
func (r *poisonRun) readBack(desc ops.Desc, outPlaced []*placed, res *Checked) error {
	outs := desc.Outputs()
	for _, p := range r.all {
		if p.before == nil {
			continue
		}
		after := make([]byte, len(p.before))
		if err := p.r.Read(0, after); err != nil {
			return err
		}
		for i := range after {
			inTensor := uint64(i) >= p.off && uint64(i) < p.off+p.size
			if !inTensor && after[i] != p.before[i] {
				return fmt.Errorf("guard byte %d (tensor at [%d,%d)) changed from %#02x to %#02x: a write outside the bound range", i, p.off, p.off+p.size, p.before[i], after[i])
			}
		}
		for i, op := range outPlaced {
			if op == p {
				res.Outputs[i] = &tensor.Tensor{Desc: outs[i].Clone(), Data: after[p.off : p.off+p.size]}
			}
		}
		if p.kind == "input" && !bytes.Equal(after, p.before) {
			return fmt.Errorf("an input buffer changed: DirectML never writes inputs")
		}
	}
	return nil
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
