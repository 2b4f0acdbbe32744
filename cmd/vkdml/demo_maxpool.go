package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

func init() {
	registerDemo(demoCase{"MAX_POOLING2: a dilated 2x2 window over a 4x4 input, 3x3 output, with indices", demoMaxPoolDilated})
	registerDemo(demoCase{"MAX_POOLING2: start padding, all-padding windows give -FLT_MAX and index 0", demoMaxPoolPadding})
}

// maxpoolNested prints a tensor's logical elements as nested lists, in the
// seed pages' layout.
func maxpoolNested(t *tensor.Tensor) string {
	var b strings.Builder
	sizes := t.Desc.Sizes
	rank := len(sizes)
	i := 0
	tensor.ForEachIndex(sizes, func(c []uint32) {
		// Open the brackets of every dimension that starts here.
		open := 0
		for d := rank - 1; d >= 0 && c[d] == 0; d-- {
			open++
		}
		if i > 0 {
			b.WriteString(",")
			if open > 0 {
				b.WriteString("\n" + strings.Repeat(" ", rank-open))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(strings.Repeat("[", open))
		switch dt := t.Desc.DataType; {
		case dt.IsFloat():
			v := t.Float64At(c...)
			if v == -math.MaxFloat32 {
				b.WriteString("-FLT_MAX")
			} else {
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
		case dt.IsSigned():
			b.WriteString(strconv.FormatInt(t.Int64At(c...), 10))
		default:
			b.WriteString(strconv.FormatUint(t.Uint64At(c...), 10))
		}
		close := 0
		for d := rank - 1; d >= 0 && c[d] == sizes[d]-1; d-- {
			close++
		}
		b.WriteString(strings.Repeat("]", close))
		i++
	})
	return b.String()
}

func maxpoolSizes(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// demoMaxPool runs desc on in, prints it in the seed pages' layout, and
// checks the GPU's outputs against the CPU reference and the values and
// indices real DirectML gave (as float64 values and indices).
func demoMaxPool(d *dml.Device, w io.Writer, desc *dml.MaxPooling2, in *tensor.Tensor, wantValues []float64, wantIdx []uint64) error {
	fmt.Fprintf(w, "InputTensor: (Sizes:%s, DataType:%v)\n%s\n\n", maxpoolSizes(in.Desc.Sizes), in.Desc.DataType, maxpoolNested(in))
	fmt.Fprintf(w, "DimensionCount: %d\nStrides: %s\nWindowSize: %s\nStartPadding: %s\nEndPadding: %s\nDilations: %s\n",
		len(desc.WindowSize), maxpoolSizes(desc.Strides), maxpoolSizes(desc.WindowSize), maxpoolSizes(desc.StartPadding), maxpoolSizes(desc.EndPadding), maxpoolSizes(desc.Dilations))
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "OutputTensor: (Sizes:%s, DataType:%v)\n%s\n", maxpoolSizes(outs[0].Desc.Sizes), outs[0].Desc.DataType, maxpoolNested(outs[0]))
	fmt.Fprintf(w, "OutputIndicesTensor: (Sizes:%s, DataType:%v)\n%s\n", maxpoolSizes(outs[1].Desc.Sizes), outs[1].Desc.DataType, maxpoolNested(outs[1]))

	want := make([]*tensor.Tensor, 2)
	for i, td := range desc.Outputs() {
		want[i] = &tensor.Tensor{Desc: td.Clone(), Data: make([]byte, td.TotalTensorSizeInBytes)}
	}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		return err
	}
	for i := range want {
		if !bytes.Equal(want[i].Data, outs[i].Data) {
			return fmt.Errorf("output %d differs from the CPU reference:\n%s", i, maxpoolNested(want[i]))
		}
	}
	got := outs[0].Float64s()
	for i, v := range wantValues {
		if got[i] != v {
			return fmt.Errorf("values %v differ from DirectML's %v", got, wantValues)
		}
	}
	gotIdx := outs[1].Uint64s()
	for i, v := range wantIdx {
		if gotIdx[i] != v {
			return fmt.Errorf("indices %v differ from DirectML's %v", gotIdx, wantIdx)
		}
	}
	return nil
}

func demoMaxPoolDilated(d *dml.Device, w io.Writer) error {
	vals := make([]float32, 16)
	for i := range vals {
		vals[i] = float32(i)
	}
	in := tensor.FromFloat32([]uint32{1, 1, 4, 4}, vals)
	out := []uint32{1, 1, 3, 3} // the floor extent is 2x2; 3x3 shows windows past the input
	idx := tensor.NewDesc(tensor.UInt32, out)
	desc := &dml.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, out), OutputIndices: &idx,
		Strides: []uint32{1, 1}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{2, 2}}
	return demoMaxPool(d, w, desc, in, []float64{10, 11, 10, 14, 15, 14, 10, 11, 10}, []uint64{10, 11, 10, 14, 15, 14, 10, 11, 10})
}

func demoMaxPoolPadding(d *dml.Device, w io.Writer) error {
	in := tensor.FromFloat32([]uint32{1, 1, 2, 2}, []float32{1, 2, 3, 4})
	out := []uint32{1, 1, 3, 3}
	idx := tensor.NewDesc(tensor.UInt32, out)
	desc := &dml.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, out), OutputIndices: &idx,
		Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1}, StartPadding: []uint32{1, 1}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
	m := -math.MaxFloat32
	return demoMaxPool(d, w, desc, in, []float64{m, m, m, m, 1, 2, m, 3, 4}, []uint64{0, 0, 0, 0, 0, 1, 0, 2, 3})
}
