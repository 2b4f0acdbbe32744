package dml_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// ARGMAX over the rows of a matrix in one call. This is the README's quick
// start, verbatim (TestREADMEQuickStart checks it).
func ExampleDevice_Compute() {
	dev, err := dml.CreateDevice(dml.DeviceOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	// ARGMAX over the rows of a 3x3 matrix: the column of each row's maximum.
	in := tensor.FromFloat32([]uint32{3, 3}, []float32{
		1, 2, 3,
		3, 0, 4,
		2, 5, 2,
	})
	desc := &dml.ArgMax{
		Input:  in.Desc,
		Output: tensor.NewDesc(tensor.UInt32, []uint32{3, 1}),
		Axes:   []uint32{1},
	}
	outs, err := dev.Compute(desc, in) // validate, compile (cached), run, read back
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(outs[0].Uint64s())
	// Output: [2 2 1]
}

// REDUCE MAX over rows, NaN ignored and the later of equal zeros winning,
// and SUM of INT32, which wraps (semantics.md rules 23, 24 and 26).
func ExampleDevice_Compute_reduce() {
	dev, err := dml.CreateDevice(dml.DeviceOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	nan, negZero := float32(math.NaN()), float32(math.Copysign(0, -1))
	x := tensor.FromFloat32([]uint32{2, 3}, []float32{nan, 1, 3, 0, negZero, -5})
	rowMax := &dml.Reduce{Function: dml.ReduceFunctionMax, Input: x.Desc,
		Output: tensor.NewDesc(tensor.Float32, []uint32{2, 1}), Axes: []uint32{1}}
	outs, err := dev.Compute(rowMax, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(outs[0].Float64s())

	n := tensor.FromInt64As(tensor.Int32, []uint32{2}, []int64{math.MaxInt32, 1})
	sum := &dml.Reduce{Function: dml.ReduceFunctionSum, Input: n.Desc,
		Output: tensor.NewDesc(tensor.Int32, []uint32{1}), Axes: []uint32{0}}
	if outs, err = dev.Compute(sum, n); err != nil {
		log.Fatal(err)
	}
	fmt.Println(outs[0].Int64s())
	// Output:
	// [3 -0]
	// [-2147483648]
}

// MAX_POOLING2 with indices: a 2x2 window with stride 2 over a 4x4 image.
// The indices are flat over the whole input tensor (semantics.md rule 10).
func ExampleDevice_Compute_maxPooling2() {
	dev, err := dml.CreateDevice(dml.DeviceOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	in := tensor.FromFloat32([]uint32{1, 1, 4, 4}, []float32{
		1, 5, 2, 0,
		3, 4, 8, 6,
		9, 7, 11, 10,
		12, 15, 13, 14,
	})
	indices := tensor.NewDesc(tensor.UInt32, []uint32{1, 1, 2, 2})
	desc := &dml.MaxPooling2{
		Input:         in.Desc,
		Output:        tensor.NewDesc(tensor.Float32, []uint32{1, 1, 2, 2}),
		OutputIndices: &indices,
		Strides:       []uint32{2, 2},
		WindowSize:    []uint32{2, 2},
		StartPadding:  []uint32{0, 0},
		EndPadding:    []uint32{0, 0},
		Dilations:     []uint32{1, 1},
	}
	outs, err := dev.Compute(desc, in)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("values: ", outs[0].Float64s())
	fmt.Println("indices:", outs[1].Uint64s())
	// Output:
	// values:  [5 8 15 14]
	// indices: [1 6 13 15]
}

// The full DirectML object sequence: create and compile the operator,
// initialize it, bind its buffers in a binding table, record a command list
// once, then execute the pre-recorded list for each new input.
func Example_directMLSequence() {
	dev, err := dml.CreateDevice(dml.DeviceOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	// ARGMIN over the rows of a FLOAT32 [2,4] tensor, UINT32 indices.
	desc := &dml.ArgMin{
		Input:  tensor.NewDesc(tensor.Float32, []uint32{2, 4}),
		Output: tensor.NewDesc(tensor.UInt32, []uint32{2, 1}),
		Axes:   []uint32{1},
	}
	op, err := dev.CreateOperator(desc) // validates every rule
	if err != nil {
		log.Fatal(err)
	}
	compiled, err := dev.CompileOperator(op, dml.ExecutionFlagNone)
	if err != nil {
		log.Fatal(err)
	}
	defer compiled.Release()
	props := compiled.BindingProperties()

	// Buffers: input, output, and the temporary and persistent resources
	// the operator asks for (either may be 0 bytes).
	input, err := dev.CreateBuffer(desc.Input.TotalTensorSizeInBytes)
	if err != nil {
		log.Fatal(err)
	}
	defer input.Release()
	output, err := dev.CreateBuffer(desc.Output.TotalTensorSizeInBytes)
	if err != nil {
		log.Fatal(err)
	}
	defer output.Release()
	var scratch []*dml.Resource
	defer func() {
		for _, r := range scratch {
			r.Release()
		}
	}()
	optional := func(size uint64) *dml.BufferBinding {
		if size == 0 {
			return nil // nothing to bind
		}
		r, err := dev.CreateBuffer(size)
		if err != nil {
			log.Fatal(err)
		}
		scratch = append(scratch, r)
		return dml.WholeBuffer(r)
	}
	temporary := optional(props.TemporaryResourceSize)
	persistent := optional(props.PersistentResourceSize)

	// record records one dispatch into a new command list and closes it,
	// ready to execute.
	recorder, err := dev.CreateCommandRecorder()
	if err != nil {
		log.Fatal(err)
	}
	record := func(disp dml.Dispatchable, table *dml.BindingTable) *dml.CommandList {
		list, err := dev.CreateCommandList()
		if err != nil {
			log.Fatal(err)
		}
		if err := recorder.RecordDispatch(list, disp, table); err != nil {
			log.Fatal(err)
		}
		if err := list.Close(); err != nil {
			log.Fatal(err)
		}
		return list
	}

	// Initialize the operator, once.
	initializer, err := dev.CreateOperatorInitializer(compiled)
	if err != nil {
		log.Fatal(err)
	}
	initTable, err := dev.CreateBindingTable(initializer)
	if err != nil {
		log.Fatal(err)
	}
	if persistent != nil {
		if err := initTable.BindOutputs(persistent); err != nil {
			log.Fatal(err)
		}
	}
	initList := record(initializer, initTable)
	defer initList.Release()
	if err := initList.Execute(); err != nil {
		log.Fatal(err)
	}
	if err := initList.Wait(); err != nil {
		log.Fatal(err)
	}

	// Bind and record the dispatch once.
	table, err := dev.CreateBindingTable(compiled)
	if err != nil {
		log.Fatal(err)
	}
	if err := table.BindInputs(dml.WholeBuffer(input)); err != nil {
		log.Fatal(err)
	}
	if err := table.BindOutputs(dml.WholeBuffer(output)); err != nil {
		log.Fatal(err)
	}
	if err := table.BindTemporaryResource(temporary); err != nil {
		log.Fatal(err)
	}
	if err := table.BindPersistentResource(persistent); err != nil {
		log.Fatal(err)
	}
	list := record(compiled, table)
	defer list.Release()

	// Execute the pre-recorded list for each input.
	for _, rows := range [][]float32{
		{4, 3, 2, 1, 1, 2, 3, 4},
		{0, -1, -1, 5, 7, 7, 6, 6},
	} {
		data := make([]byte, 4*len(rows))
		for i, v := range rows {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
		if err := input.Write(0, data); err != nil {
			log.Fatal(err)
		}
		if err := list.Execute(); err != nil {
			log.Fatal(err)
		}
		if err := list.Wait(); err != nil {
			log.Fatal(err)
		}
		got := make([]byte, 8)
		if err := output.Read(0, got); err != nil {
			log.Fatal(err)
		}
		fmt.Println(binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(got[4:]))
	}
	// Output:
	// 3 0
	// 1 2
}
