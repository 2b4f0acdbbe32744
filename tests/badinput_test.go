package tests

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// Bad input, everywhere: every case below is a distinct kind of mistake a
// user can make through the API or the CLI. Each must be refused with an
// error that carries DirectML's HRESULT and names the field at fault and
// the rule; none may panic, hang, lose the device or write a byte outside
// its output. API cases that bind or record point every binding into an
// "arena" buffer pre-filled with a pattern; after the rejected call, the
// command list is closed and executed anyway, a GOOD operator runs on the
// same device (with CheckOperator's own guard bands), and then every byte
// of the arena must still hold the pattern.

const (
	arenaSize    = 64 << 10
	arenaPattern = 0xA5C3E1F7
)

// badEnv is one API case's world: a device, an arena, an open list.
type badEnv struct {
	t     *testing.T
	d     *dml.Device
	arena *dml.Resource
	list  *dml.CommandList
	rec   *dml.CommandRecorder
	owned []func()
}

func (e *badEnv) cleanup(f func()) { e.owned = append(e.owned, f) }

// at binds size bytes of the arena at off.
func (e *badEnv) at(off, size uint64) *dml.BufferBinding {
	return &dml.BufferBinding{Buffer: e.arena, Offset: off, SizeInBytes: size}
}

// compile creates, compiles and initializes desc (with an optional forced
// kernel strategy); a failure here is a test bug, not the case's error.
func (e *badEnv) compile(desc dml.OperatorDesc, kernel string) *dml.CompiledOperator {
	e.t.Helper()
	cop := testutil.CompileInitialized(e.t, e.d, desc, kernel)
	e.cleanup(cop.Release)
	return cop
}

func (e *badEnv) table(disp dml.Dispatchable) *dml.BindingTable {
	e.t.Helper()
	tb, err := e.d.CreateBindingTable(disp)
	if err != nil {
		e.t.Fatal(err)
	}
	return tb
}

// The small operators the cases use.
func argDescSmall() *dml.ArgMax { // FLOAT32 [4,8] -> UINT32 [4,1]: 128 and 16 bytes
	return &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 8}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 1}), Axes: []uint32{1}}
}

func argDescTemp() *dml.ArgMax { // split-K over 256 elements needs a temporary resource
	return &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{2, 256}), Output: tensor.NewDesc(tensor.UInt32, []uint32{2, 1}), Axes: []uint32{1}}
}

func poolDesc() *dml.MaxPooling2 { // FLOAT32 [1,1,4,4] -> [1,1,2,2] + UINT32 indices
	idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 1, 2, 2})
	return &dml.MaxPooling2{
		Input: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 4, 4}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, 2, 2}),
		OutputIndices: &idx, Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2},
		StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1},
	}
}

type apiCase struct {
	name  string
	code  hresult.HRESULT
	field string // must occur in the error's Field
	rule  string // must occur in the error's Rule
	run   func(e *badEnv) error
}

// createOp is a case that only creates the operator.
func createOp(desc func() dml.OperatorDesc) func(e *badEnv) error {
	return func(e *badEnv) error {
		_, err := e.d.CreateOperator(desc())
		return err
	}
}

func withArg(f func(a *dml.ArgMax)) func() dml.OperatorDesc {
	return func() dml.OperatorDesc { a := argDescSmall(); f(a); return a }
}

func withPool(f func(p *dml.MaxPooling2)) func() dml.OperatorDesc {
	return func() dml.OperatorDesc { p := poolDesc(); f(p); return p }
}

var invalid = hresult.E_INVALIDARG

var apiCases = []apiCase{
	// Descriptor fields, each operator.
	{"argmax axis out of range", invalid, "Axes[1]", "not in [0", createOp(withArg(func(a *dml.ArgMax) { a.Axes = []uint32{1, 2} }))},
	{"argmax axis direction", invalid, "AxisDirection", "DML_AXIS_DIRECTION", createOp(withArg(func(a *dml.ArgMax) { a.AxisDirection = 2 }))},
	{"argmax reduced output size", invalid, "OutputTensor.Sizes[1]", "must be 1", createOp(withArg(func(a *dml.ArgMax) { a.Output = tensor.NewDesc(tensor.UInt32, []uint32{4, 8}) }))},
	{"argmax kept output size", invalid, "OutputTensor.Sizes[0]", "must equal", createOp(withArg(func(a *dml.ArgMax) { a.Output = tensor.NewDesc(tensor.UInt32, []uint32{3, 1}) }))},
	{"argmax float index type", invalid, "OutputTensor.DataType", "not supported", createOp(withArg(func(a *dml.ArgMax) { a.Output = tensor.NewDesc(tensor.Float32, []uint32{4, 1}) }))},
	{"argmax output rank", invalid, "OutputTensor.DimensionCount", "must equal", createOp(withArg(func(a *dml.ArgMax) { a.Output = tensor.NewDesc(tensor.UInt32, []uint32{4}) }))},
	{"argmax INT32 index of a block over 2^31", invalid, "OutputTensor.DataType", "INT32 cannot hold", createOp(func() dml.OperatorDesc {
		in := tensor.NewStridedDesc(tensor.Float32, []uint32{65536, 32769}, []uint32{0, 1}) // broadcast: 2^31+2^16 elements in 128 KiB
		return &dml.ArgMax{Input: in, Output: tensor.NewDesc(tensor.Int32, []uint32{1, 1}), Axes: []uint32{0, 1}}
	})},
	{"argmin input type", invalid, "InputTensor.DataType", "not supported", createOp(func() dml.OperatorDesc {
		a := argDescSmall()
		return &dml.ArgMin{Input: tensor.NewDesc(tensor.Float64, a.Input.Sizes), Output: a.Output, Axes: a.Axes}
	})},
	{"reduce unknown function", invalid, "Function", "not a DML_REDUCE_FUNCTION", createOp(func() dml.OperatorDesc {
		a := argDescSmall()
		return &dml.Reduce{Function: 99, Input: a.Input, Output: a.Output, Axes: a.Axes}
	})},
	{"maxpool zero stride", invalid, "Strides[1]", "at least 1", createOp(withPool(func(p *dml.MaxPooling2) { p.Strides = []uint32{2, 0} }))},
	{"maxpool zero window", invalid, "WindowSize[0]", "at least 1", createOp(withPool(func(p *dml.MaxPooling2) { p.WindowSize = []uint32{0, 2} }))},
	{"maxpool zero dilation", invalid, "Dilations[0]", "at least 1", createOp(withPool(func(p *dml.MaxPooling2) { p.Dilations = []uint32{0, 1} }))},
	{"maxpool missing dilations", invalid, "Dilations", "DimensionCount", createOp(withPool(func(p *dml.MaxPooling2) { p.Dilations = nil }))},
	{"maxpool padding array length", invalid, "StartPadding", "DimensionCount", createOp(withPool(func(p *dml.MaxPooling2) { p.StartPadding = []uint32{0, 0, 0} }))},
	{"maxpool window array length", invalid, "DimensionCount", "spatial axes", createOp(withPool(func(p *dml.MaxPooling2) { p.WindowSize = []uint32{2} }))},
	{"maxpool 3D input", invalid, "InputTensor.DimensionCount", "not in [4,5]", createOp(func() dml.OperatorDesc {
		return &dml.MaxPooling{Input: tensor.NewDesc(tensor.Float32, []uint32{1, 4, 4}), Output: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 2}),
			Strides: []uint32{2}, WindowSize: []uint32{2}, StartPadding: []uint32{0}, EndPadding: []uint32{0}}
	})},
	{"maxpool output type", invalid, "OutputTensor.DataType", "must equal", createOp(withPool(func(p *dml.MaxPooling2) { p.Output = tensor.NewDesc(tensor.Float16, p.Output.Sizes) }))},
	{"maxpool batch size", invalid, "OutputTensor.Sizes[0]", "batch", createOp(withPool(func(p *dml.MaxPooling2) { p.Output = tensor.NewDesc(tensor.Float32, []uint32{2, 1, 2, 2}) }))},
	{"maxpool index type", invalid, "OutputIndicesTensor.DataType", "not supported", createOp(func() dml.OperatorDesc {
		p := poolDesc()
		idx := tensor.NewDesc(tensor.Int32, p.Output.Sizes)
		return &dml.MaxPooling1{Input: p.Input, Output: p.Output, OutputIndices: &idx, Strides: p.Strides, WindowSize: p.WindowSize, StartPadding: p.StartPadding, EndPadding: p.EndPadding}
	})},
	{"maxpool index shape", invalid, "OutputIndicesTensor.Sizes[3]", "must equal", createOp(withPool(func(p *dml.MaxPooling2) {
		idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 1, 2, 3})
		p.OutputIndices = &idx
	}))},
	{"maxpool padding beyond the kernel's coordinates", hresult.DXGI_ERROR_UNSUPPORTED, "StartPadding[0]", "below 2^30", createOp(withPool(func(p *dml.MaxPooling2) { p.StartPadding = []uint32{math.MaxUint32, 0} }))},
	{"nil desc", invalid, "desc", "nil", func(e *badEnv) error { _, err := e.d.CreateOperator(nil); return err }},

	// Tensor descriptors: shapes, strides, sizes.
	{"zero size", invalid, "InputTensor.Sizes[1]", "zero", createOp(withArg(func(a *dml.ArgMax) {
		a.Input = tensor.Desc{DataType: tensor.Float32, Sizes: []uint32{4, 0}, TotalTensorSizeInBytes: 16}
	}))},
	{"rank 9", invalid, "InputTensor.DimensionCount", "between 1 and 8", createOp(func() dml.OperatorDesc {
		s := []uint32{1, 1, 1, 1, 1, 1, 1, 1, 2}
		o := []uint32{1, 1, 1, 1, 1, 1, 1, 1, 1}
		return &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, s), Output: tensor.NewDesc(tensor.UInt32, o), Axes: []uint32{8}}
	})},
	{"too many elements", invalid, "InputTensor.Sizes", "2^32-1", createOp(withArg(func(a *dml.ArgMax) {
		a.Input = tensor.NewStridedDesc(tensor.Float32, []uint32{65536, 65536}, []uint32{0, 0})
		a.Output = tensor.NewDesc(tensor.UInt32, []uint32{65536, 1})
	}))},
	{"strides length", invalid, "InputTensor.Strides", "DimensionCount", createOp(withArg(func(a *dml.ArgMax) { a.Input.Strides = []uint32{8} }))},
	{"strides overrun TotalTensorSizeInBytes", invalid, "InputTensor.TotalTensorSizeInBytes", "at least", createOp(withArg(func(a *dml.ArgMax) { a.Input.Strides = []uint32{16, 1} }))},
	// Rule 12: a total that is not a multiple of 4 is fine at or above the
	// minimum (TestTotalSizeNotMultipleOf4 runs such tensors); below it, by
	// one to three bytes, it is not.
	{"TotalTensorSizeInBytes 1 below the minimum", invalid, "OutputTensor.TotalTensorSizeInBytes", "at least the minimum implied size of 16", createOp(withPool(func(p *dml.MaxPooling2) { p.Output.TotalTensorSizeInBytes = 15 }))},
	{"TotalTensorSizeInBytes 3 below the minimum", invalid, "OutputIndicesTensor.TotalTensorSizeInBytes", "at least the minimum implied size of 16", createOp(withPool(func(p *dml.MaxPooling2) { p.OutputIndices.TotalTensorSizeInBytes = 13 }))},
	{"UINT8 total below the rounded-up minimum", invalid, "InputTensor.TotalTensorSizeInBytes", "at least the minimum implied size of 8", createOp(func() dml.OperatorDesc {
		return &dml.ArgMax{Input: tensor.Desc{DataType: tensor.UInt8, Sizes: []uint32{5}, TotalTensorSizeInBytes: 7}, Output: tensor.NewDesc(tensor.UInt32, []uint32{1}), Axes: []uint32{0}}
	})},
	{"output broadcast strides alias", invalid, "OutputTensor.Strides", "share memory", createOp(withArg(func(a *dml.ArgMax) { a.Output = tensor.NewStridedDesc(tensor.UInt32, []uint32{4, 1}, []uint32{0, 1}) }))},
	{"output interleaved strides alias", invalid, "OutputIndicesTensor.Strides", "share memory", createOp(withPool(func(p *dml.MaxPooling2) {
		idx := tensor.NewStridedDesc(tensor.UInt32, []uint32{1, 1, 2, 2}, []uint32{4, 4, 1, 1})
		p.OutputIndices = &idx
	}))},
	{"unknown data type", invalid, "InputTensor.DataType", "UNKNOWN", createOp(withPool(func(p *dml.MaxPooling2) { p.Input.DataType = tensor.Unknown }))},
	{"unknown tensor flags", invalid, "InputTensor.Flags", "DML_TENSOR_FLAG", createOp(withArg(func(a *dml.ArgMax) { a.Input.Flags = 2 }))},
	{"OWNED_BY_DML output", invalid, "OutputTensor.Flags", "inputs only", createOp(withArg(func(a *dml.ArgMax) { a.Output.Flags = tensor.FlagOwnedByDML }))},
	{"base offset alignment", invalid, "InputTensor.GuaranteedBaseOffsetAlignment", "power of two", createOp(withArg(func(a *dml.ArgMax) { a.Input.GuaranteedBaseOffsetAlignment = 3 }))},

	// Device and compile calls.
	{"zero-byte buffer", invalid, "size", "greater than 0", func(e *badEnv) error { _, err := e.d.CreateBuffer(0); return err }},
	// Sizes near 2^64, where rounding up once wrapped to 0, and just above
	// what the device allocates.
	{"buffer of 2^64-1 bytes", hresult.E_OUTOFMEMORY, "size", "largest buffer", createBuffer(math.MaxUint64)},
	{"buffer of 2^64-255 bytes", hresult.E_OUTOFMEMORY, "size", "largest buffer", createBuffer(math.MaxUint64 - 254)},
	{"buffer of 2^64-256 bytes", hresult.E_OUTOFMEMORY, "size", "largest buffer", createBuffer(math.MaxUint64 - 255)},
	{"buffer of 2^63 bytes", hresult.E_OUTOFMEMORY, "size", "largest buffer", createBuffer(1 << 63)},
	// A buffer may span several allocations, so the largest is the
	// device's largest device-local heap, not maxMemoryAllocationSize.
	{"buffer one byte over the device's memory", hresult.E_OUTOFMEMORY, "size", "largest buffer", func(e *badEnv) error {
		var heap uint64
		for _, t := range e.d.GPU().Info.MemoryTypes {
			if t.Flags&gpu.MemoryDeviceLocal != 0 {
				heap = max(heap, t.HeapSize)
			}
		}
		_, err := e.d.CreateBuffer(heap + 1)
		return err
	}},
	{"binding of 2^64-1 bytes", invalid, "bindings[0]", "outside", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(e.at(0, math.MaxUint64))
	}},
	{"binding 16 bytes past the end", invalid, "bindings[0]", "outside", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(e.at(16, arenaSize))
	}},
	{"temporary at offset 2^64-256", invalid, "binding", "outside", func(e *badEnv) error {
		cop := e.compile(argDescTemp(), dml.ArgStrategySplitK)
		return e.table(cop).BindTemporaryResource(e.at(math.MaxUint64-255, cop.BindingProperties().TemporaryResourceSize))
	}},
	{"output offset wrapping 2^64", invalid, "bindings[0]", "outside", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindOutputs(e.at(math.MaxUint64-15, 16))
	}},
	{"unknown execution flags", invalid, "flags", "unknown DML_EXECUTION_FLAGS", func(e *badEnv) error {
		op, err := e.d.CreateOperator(argDescSmall())
		if err != nil {
			return err
		}
		_, err = e.d.CompileOperator(op, 0x100)
		return err
	}},

	// Bindings: counts, sizes, offsets, overlaps.
	{"too many input bindings", invalid, "count", "must match exactly", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(e.at(0, 128), e.at(256, 128))
	}},
	{"too few output bindings", invalid, "count", "must match exactly", func(e *badEnv) error {
		return e.table(e.compile(poolDesc(), "")).BindOutputs(e.at(0, 16))
	}},
	{"misaligned binding offset", invalid, "bindings[0].Offset", "multiple of 16", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(e.at(8, 128))
	}},
	{"binding offset below GuaranteedBaseOffsetAlignment", invalid, "bindings[0].Offset", "GuaranteedBaseOffsetAlignment", func(e *badEnv) error {
		a := argDescSmall()
		a.Input.GuaranteedBaseOffsetAlignment = 256
		return e.table(e.compile(a, "")).BindInputs(e.at(16, 128))
	}},
	{"binding smaller than the tensor", invalid, "bindings[0].SizeInBytes", "less than TotalTensorSizeInBytes", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindOutputs(e.at(0, 12))
	}},
	{"binding past the buffer's end", invalid, "bindings[0]", "outside", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindOutputs(e.at(arenaSize-16, 32))
	}},
	{"binding offset past the buffer's end", invalid, "bindings[0]", "outside", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(e.at(math.MaxUint64-15, 128))
	}},
	{"binding without a buffer", invalid, "bindings[0].Buffer", "nil", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(&dml.BufferBinding{SizeInBytes: 128})
	}},
	{"buffer-array binding for an operator input", invalid, "bindings[0]", "DML_BINDING_TYPE_BUFFER", func(e *badEnv) error {
		return e.table(e.compile(argDescSmall(), "")).BindInputs(dml.BufferArrayBinding{*e.at(0, 128)})
	}},
	{"outputs overlap each other", invalid, "bindings[1]", "overlaps", func(e *badEnv) error {
		return e.table(e.compile(poolDesc(), "")).BindOutputs(e.at(0, 16), e.at(0, 16))
	}},
	{"temporary too small", invalid, "binding.SizeInBytes", "required resource size", func(e *badEnv) error {
		return e.table(e.compile(argDescTemp(), dml.ArgStrategySplitK)).BindTemporaryResource(e.at(0, 4))
	}},
	{"temporary misaligned", invalid, "binding.Offset", "multiple of 256", func(e *badEnv) error {
		return e.table(e.compile(argDescTemp(), dml.ArgStrategySplitK)).BindTemporaryResource(e.at(16, 4096))
	}},
	{"persistent resource on an initializer", invalid, "", "no persistent resource", func(e *badEnv) error {
		init, _ := e.d.CreateOperatorInitializer()
		return e.table(init).BindPersistentResource(e.at(0, 256))
	}},

	// Recording: hazards and missing bindings.
	{"input overlaps output", invalid, "inputs[0]", "does not run in place", recordBound(argDescSmall(), "", func(e *badEnv, tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(e.at(0, 128)), tb.BindOutputs(e.at(64, 16)))
	})},
	{"temporary overlaps an input", invalid, "temporary", "overlap", recordBound(argDescTemp(), dml.ArgStrategySplitK, func(e *badEnv, tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(e.at(0, 2048)), tb.BindOutputs(e.at(4096, 16)), tb.BindTemporaryResource(e.at(1024, 256)))
	})},
	{"temporary overlaps the output", invalid, "temporary", "overlap", recordBound(argDescTemp(), dml.ArgStrategySplitK, func(e *badEnv, tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(e.at(0, 2048)), tb.BindOutputs(e.at(4096, 16)), tb.BindTemporaryResource(e.at(4096, 256)))
	})},
	{"temporary not bound", invalid, "temporary", "needs a temporary resource", recordBound(argDescTemp(), dml.ArgStrategySplitK, func(e *badEnv, tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(e.at(0, 2048)), tb.BindOutputs(e.at(4096, 16)))
	})},
	{"output left unbound", invalid, "outputs[0]", "not bound", recordBound(poolDesc(), "", func(e *badEnv, tb *dml.BindingTable) error {
		return errors.Join(tb.BindInputs(e.at(0, 64)), tb.BindOutputs(nil, e.at(256, 16)))
	})},
	{"outputs never bound", invalid, "outputs", "not bound", recordBound(argDescSmall(), "", func(e *badEnv, tb *dml.BindingTable) error {
		return tb.BindInputs(e.at(0, 128))
	})},
	{"operator not initialized", invalid, "dispatchable", "not been initialized", func(e *badEnv) error {
		op, err := e.d.CreateOperator(argDescSmall())
		if err != nil {
			return err
		}
		cop, err := e.d.CompileOperator(op, 0)
		if err != nil {
			return err
		}
		e.cleanup(cop.Release)
		tb := e.table(cop)
		if err := errors.Join(tb.BindInputs(e.at(0, 128)), tb.BindOutputs(e.at(256, 16))); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		return e.rec.RecordDispatch(e.list, cop, tb)
	}},
	{"table for another dispatchable", invalid, "bindingTable", "another dispatchable", func(e *badEnv) error {
		a, b := e.compile(argDescSmall(), ""), e.compile(argDescSmall(), "")
		tb := e.table(a)
		if err := errors.Join(tb.BindInputs(e.at(0, 128)), tb.BindOutputs(e.at(256, 16))); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		return e.rec.RecordDispatch(e.list, b, tb)
	}},
	{"nil recording arguments", invalid, "", "must not be nil", func(e *badEnv) error {
		return e.rec.RecordDispatch(e.list, nil, nil)
	}},
	{"operator initialized twice", invalid, "operators[0]", "exactly once", func(e *badEnv) error {
		cop := e.compile(argDescSmall(), "")
		init, err := e.d.CreateOperatorInitializer(cop)
		if err != nil {
			return err
		}
		return e.rec.RecordDispatch(e.list, init, e.table(init))
	}},
	{"record into a closed list", hresult.E_FAIL, "", "closed", func(e *badEnv) error {
		cop := e.compile(argDescSmall(), "")
		tb := e.table(cop)
		if err := errors.Join(tb.BindInputs(e.at(0, 128)), tb.BindOutputs(e.at(256, 16))); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		l, err := e.d.CreateCommandList()
		if err != nil {
			return err
		}
		defer l.Release()
		if err := l.Close(); err != nil {
			return err
		}
		return e.rec.RecordDispatch(l, cop, tb)
	}},
	{"execute an open list", invalid, "", "still open", func(e *badEnv) error {
		l, err := e.d.CreateCommandList()
		if err != nil {
			return err
		}
		defer l.Release()
		return l.Execute()
	}},
	{"host tensor does not match the desc", invalid, "inputs[0]", "does not match", func(e *badEnv) error {
		in := tensor.FromFloat32([]uint32{8, 4}, make([]float32, 32))
		return e.d.Run(argDescSmall(), []*tensor.Tensor{in}, []*tensor.Tensor{tensor.New(tensor.UInt32, 4, 1)})
	}},
	{"host tensor too short", invalid, "inputs[0].Data", "fewer than TotalTensorSizeInBytes", func(e *badEnv) error {
		in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{4, 8}), Data: make([]byte, 100)}
		return e.d.Run(argDescSmall(), []*tensor.Tensor{in}, []*tensor.Tensor{tensor.New(tensor.UInt32, 4, 1)})
	}},
	// Compute validates, and sizes its outputs against the host and the
	// device, before it allocates anything.
	{"Compute: maxpool output 100000x100000", invalid, "OutputTensor.Sizes", "2^32-1", computePool(func(p *dml.MaxPooling2) {
		p.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 2, 100000, 100000})
		idx := tensor.NewDesc(tensor.UInt32, p.Output.Sizes)
		p.OutputIndices = &idx
	})},
	{"Compute: maxpool output 65536x65536", invalid, "OutputTensor.Sizes", "2^32-1", computePool(func(p *dml.MaxPooling2) {
		p.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 2, 65536, 65536})
		idx := tensor.NewDesc(tensor.UInt32, p.Output.Sizes)
		p.OutputIndices = &idx
	})},
	{"Compute: output TotalTensorSizeInBytes 2^62", hresult.E_OUTOFMEMORY, "outputs[0].TotalTensorSizeInBytes", "exceed", computePool(func(p *dml.MaxPooling2) { p.Output.TotalTensorSizeInBytes = 1 << 62 })},
	{"Compute: output TotalTensorSizeInBytes 2^64-1", hresult.E_OUTOFMEMORY, "outputs[0].TotalTensorSizeInBytes", "exceed", computePool(func(p *dml.MaxPooling2) { p.Output.TotalTensorSizeInBytes = math.MaxUint64 })},
	{"Compute: indices TotalTensorSizeInBytes 2^63", hresult.E_OUTOFMEMORY, "outputs[1].TotalTensorSizeInBytes", "exceed", computePool(func(p *dml.MaxPooling2) { p.OutputIndices.TotalTensorSizeInBytes = 1 << 63 })},
	{"Compute: argmax output TotalTensorSizeInBytes 2^40", hresult.E_OUTOFMEMORY, "outputs[0].TotalTensorSizeInBytes", "exceed", func(e *badEnv) error {
		desc := argDescSmall()
		desc.Output.TotalTensorSizeInBytes = 1 << 40
		_, err := e.d.Compute(desc, tensor.New(tensor.Float32, 4, 8))
		return err
	}},
	{"Run: output TotalTensorSizeInBytes 2^62 with a short host tensor", invalid, "outputs[0].Data", "fewer than", func(e *badEnv) error {
		desc := argDescSmall()
		desc.Output.TotalTensorSizeInBytes = 1 << 62
		out := &tensor.Tensor{Desc: desc.Output, Data: make([]byte, 16)}
		return e.d.Run(desc, []*tensor.Tensor{tensor.New(tensor.Float32, 4, 8)}, []*tensor.Tensor{out})
	}},
	{"Compute: nil desc", invalid, "desc", "nil", func(e *badEnv) error { _, err := e.d.Compute(nil); return err }},
	{"Compute: typed nil desc", invalid, "desc", "nil", func(e *badEnv) error { var p *dml.MaxPooling2; _, err := e.d.Compute(p); return err }},
	{"CreateOperator: typed nil desc", invalid, "desc", "nil", func(e *badEnv) error { var a *dml.ArgMax; _, err := e.d.CreateOperator(a); return err }},
	{"Run: typed nil desc", invalid, "desc", "nil", func(e *badEnv) error { var r *dml.Reduce; return e.d.Run(r, nil, nil) }},
	{"Compute: missing input", invalid, "inputs", "0 tensors for an operator with 1", func(e *badEnv) error { _, err := e.d.Compute(argDescSmall()); return err }},
}

// recordBound is a case that compiles desc (with kernel forced, "" for the
// planner's choice), binds what bind binds in a table for it and records
// its dispatch into the case's list.
func recordBound(desc dml.OperatorDesc, kernel string, bind func(e *badEnv, tb *dml.BindingTable) error) func(e *badEnv) error {
	return func(e *badEnv) error {
		cop := e.compile(desc, kernel)
		tb := e.table(cop)
		if err := bind(e, tb); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		return e.rec.RecordDispatch(e.list, cop, tb)
	}
}

// createBuffer tries to create a buffer of n bytes.
func createBuffer(n uint64) func(e *badEnv) error {
	return func(e *badEnv) error { _, err := e.d.CreateBuffer(n); return err }
}

// computePool runs Compute with a good [1,2,6,6] input on a 2x2 max
// pooling (with indices) changed by f.
func computePool(f func(p *dml.MaxPooling2)) func(e *badEnv) error {
	return func(e *badEnv) error {
		p := poolDesc()
		p.Input = tensor.NewDesc(tensor.Float32, []uint32{1, 2, 6, 6})
		p.Output = tensor.NewDesc(tensor.Float32, []uint32{1, 2, 3, 3})
		idx := tensor.NewDesc(tensor.UInt32, []uint32{1, 2, 3, 3})
		p.OutputIndices = &idx
		f(p)
		_, err := e.d.Compute(p, tensor.New(tensor.Float32, 1, 2, 6, 6))
		return err
	}
}

// TestBadInputAPI runs every API case on one device.
func TestBadInputAPI(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	good := &dml.ArgMax{Input: tensor.NewDesc(tensor.Int16, []uint32{3, 50}), Output: tensor.NewDesc(tensor.UInt32, []uint32{1, 50}), Axes: []uint32{0}}
	goodIn := &tensor.Tensor{Desc: good.Input, Data: make([]byte, good.Input.TotalTensorSizeInBytes)}
	rng.Read(goodIn.Data)
	rec, _ := d.CreateCommandRecorder()
	for _, c := range apiCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			arena, err := d.CreateBuffer(arenaSize)
			if err != nil {
				t.Fatal(err)
			}
			defer arena.Release()
			if err := arena.Fill(0, arenaSize, arenaPattern); err != nil {
				t.Fatal(err)
			}
			list, err := d.CreateCommandList()
			if err != nil {
				t.Fatal(err)
			}
			defer list.Release()
			e := &badEnv{t: t, d: d, arena: arena, list: list, rec: rec}
			defer func() {
				for i := len(e.owned) - 1; i >= 0; i-- {
					e.owned[i]()
				}
			}()
			err = runGuarded(t, func() error { return c.run(e) })
			checkHRESULT(t, err, c.code, c.field, c.rule)

			// What a careless caller does next: submit the list anyway.
			if err := errors.Join(list.Close(), list.Execute(), list.Wait()); err != nil {
				t.Fatalf("after the rejected call, the (empty) list failed: %v", err)
			}
			if err := d.GetDeviceRemovedReason(); err != nil {
				t.Fatalf("device lost: %v", err)
			}
			// A good operator on the same device, with its own guard bands.
			testutil.CheckOperator(t, d, good, []*tensor.Tensor{goodIn}, rng)
			checkArena(t, arena, arenaSize, "a rejected call wrote the arena")
		})
	}
	if n := len(apiCases); n < 30 {
		t.Errorf("only %d API cases", n)
	}
}

// checkArena fails t unless the first size bytes of r still hold
// arenaPattern, saying what wrote them (what) and where.
func checkArena(t *testing.T, r *dml.Resource, size int, what string) {
	t.Helper()
	got := make([]byte, size)
	if err := r.Read(0, got); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < size; i += 4 {
		if w := binary.LittleEndian.Uint32(got[i:]); w != arenaPattern {
			t.Fatalf("%s: byte %d changed to %#08x (the first bytes: % x)", what, i, w, got[:16])
		}
	}
}

// runGuarded runs f, turning a panic into a failure and a hang (30 s) into
// a fatal error.
func runGuarded(t *testing.T, f func() error) error {
	t.Helper()
	type result struct {
		err   error
		panic any
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{panic: p}
			}
		}()
		ch <- result{err: f()}
	}()
	select {
	case r := <-ch:
		if r.panic != nil {
			t.Fatalf("panic: %v", r.panic)
		}
		return r.err
	case <-time.After(120 * time.Second):
		t.Fatal("hung for 120 s")
		return nil
	}
}

func checkHRESULT(t *testing.T, err error, code hresult.HRESULT, field, rule string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want %v", code)
	}
	var he *hresult.Error
	if !errors.As(err, &he) {
		t.Fatalf("not an *hresult.Error: %T %v", err, err)
	}
	if !errors.Is(err, code) {
		t.Fatalf("code %v, want %v: %v", he.Code, code, err)
	}
	if !strings.Contains(he.Field, field) {
		t.Fatalf("field %q does not name %q: %v", he.Field, field, err)
	}
	if !strings.Contains(he.Rule, rule) {
		t.Fatalf("rule %q does not say %q: %v", he.Rule, rule, err)
	}
	if strings.TrimSpace(he.Rule) == "" {
		t.Fatalf("no rule in words: %v", err)
	}
	t.Logf("%v", err)
}

// TestResourceRanges: Write, Read and Fill check their ranges with
// overflow-safe arithmetic, and an empty range at the end is a no-op.
func TestResourceRanges(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	r, err := d.CreateBuffer(256)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if err := r.Fill(0, 256, arenaPattern); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, field string
		err         error
	}{
		{"Fill(size, 0)", "", r.Fill(256, 0, 1)},
		{"Write at the end, empty", "", r.Write(256, nil)},
		{"Read at the end, empty", "", r.Read(256, nil)},
		{"Fill past the end", "size", r.Fill(256, 4, 1)},
		{"Fill offset past the end, empty", "size", r.Fill(260, 0, 1)},
		{"Fill 4 bytes over", "size", r.Fill(0, 260, 1)},
		{"Fill size wrapping 2^64", "size", r.Fill(4, math.MaxUint64-3, 1)},
		{"Fill misaligned offset", "offset", r.Fill(2, 4, 1)},
		{"Fill misaligned size", "size", r.Fill(0, 6, 1)},
		{"Write one byte over", "data", r.Write(1, make([]byte, 256))},
		{"Write at offset 2^64-1", "data", r.Write(math.MaxUint64, []byte{1, 2})},
		{"Write offset past the end, empty", "data", r.Write(257, nil)},
		{"Read one byte over", "out", r.Read(255, make([]byte, 2))},
		{"Read at offset 2^64-1", "out", r.Read(math.MaxUint64, []byte{1})},
	} {
		if c.field == "" {
			if c.err != nil {
				t.Errorf("%s: %v", c.name, c.err)
			}
			continue
		}
		var he *hresult.Error
		if !errors.Is(c.err, hresult.E_INVALIDARG) || !errors.As(c.err, &he) || he.Field != c.field {
			t.Errorf("%s: want E_INVALIDARG naming %q, got %v", c.name, c.field, c.err)
		}
	}
	checkArena(t, r, 256, "a refused call wrote the buffer")
}
