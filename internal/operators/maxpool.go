package operators

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 (the command runs
// MAX_POOLING2, which holds the other two).

// maxPoolHelp is the paragraph `vkdml run maxpool -h` prints after the
// flags.
const maxPoolHelp = `The output extent per spatial axis is, unless --output-size is given,
  floor((In + Start + End - (1 + (Window-1)*Dilation)) / Stride) + 1,
or with --ceil-mode the ceiling, dropping a last window that would start in
the end padding (as ONNX and PyTorch do). --padding P sets both sides.

ONNX's auto_pad: NOTSET (its default) is the explicit pads, given here as
--start-padding (ONNX's pads[:n]) and --end-padding (pads[n:]); VALID is no
padding. SAME_UPPER and SAME_LOWER
give Out = ceil(In / Stride) and a total padding of
  max((Out-1)*Stride + (Window-1)*Dilation + 1 - In, 0)
split as Start = total/2, End = total - Start (SAME_UPPER), or with the odd
element at the start (SAME_LOWER); pass those as --start-padding and
--end-padding.

A window's taps are visited row-major, and a tap wins only when it is
greater than the best so far, which starts at the type's lowest value
(-FLT_MAX for FLOAT32; for FLOAT16 just below -65504, as DirectML compares
FLOAT16 in 32-bit floats, so a -65504 after a NaN or -inf takes the index):
ties keep the first tap, NaN never wins, and padding never wins, so a window
entirely in padding gives -FLT_MAX and index 0.

--indices are flat over the whole input tensor (N, C and the spatial axes),
row-major. They are UINT32 or UINT64 only: DirectML's MAX_POOLING2 accepts
no other type for OutputIndicesTensor (signed types are refused with
E_INVALIDARG), so vkdml, which follows DirectML exactly, does the same.
`

func maxPoolOperator() *Operator {
	return &Operator{
		Name: "maxpool",
		Type: "MAX_POOLING2",
		Synopsis: "--window W[,..] [--strides ..] [--dilations ..] [--padding P | --start-padding .. --end-padding ..] " +
			"[--ceil-mode | --output-size ..] [--indices IDX.npy] [--index-type uint32|uint64] IN.npy OUT.npy",
		Summary: "MAX_POOLING2: max pooling of a 4D (NCHW) or 5D (NCDHW) tensor, with flat indices",
		Help:    maxPoolHelp,
		Examples: []Example{
			{Flags: "--window 2 --strides 2", Input: "[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]", Output: "[[[[5]]]]"},
			{Flags: "--window 2 --strides 2 --ceil-mode", Input: "[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]", Output: "[[[[5, 6], [8, 9]]]]"},
			{Flags: "--window 2", Input: "[[[[NaN, 5], [5, 2]]]]", Output: "[[[[5]]]]", Indices: "[[[[1]]]]"},
			{Flags: "--window 1 --start-padding 1,0", Input: "[[[[1, 2]]]]", Output: "[[[[-FLT_MAX, -FLT_MAX], [1, 2]]]]", Indices: "[[[[0, 0], [0, 1]]]]"},
			{Flags: "--window 2", Input: "[[[[1, 2], [3, 4]], [[5, 6], [8, 7]]]]", Output: "[[[[4]], [[8]]]]", Indices: "[[[[3]], [[6]]]]"},
		},
		Flags:     poolFlags,
		DMLTypes:  []string{"MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"},
		FromCase:  poolFromCase,
		Source:    poolSource,
		ONNXTypes: []string{"MaxPool"},
		FromONNX:  poolFromONNX,
		Demos: []Demo{
			{"MAX_POOLING2: a dilated 2x2 window over a 4x4 input, 3x3 output, with indices", demoMaxPoolDilated},
			{"MAX_POOLING2: start padding, all-padding windows give -FLT_MAX and index 0", demoMaxPoolPadding},
		},
	}
}

// uintList is a flag holding a comma-separated list of unsigned integers.
type uintList struct {
	v   []uint32
	set bool
}

func (l *uintList) String() string {
	s := make([]string, len(l.v))
	for i, x := range l.v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

func (l *uintList) Set(s string) error {
	l.v, l.set = nil, true
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return fmt.Errorf("%q is not a list of unsigned integers", s)
		}
		l.v = append(l.v, uint32(x))
	}
	return nil
}

// spatial returns the list for dims spatial axes: def when unset, one value
// repeated, or exactly dims values.
func (l *uintList) spatial(name string, dims int, def uint32) ([]uint32, error) {
	switch {
	case !l.set:
		return slices.Repeat([]uint32{def}, dims), nil
	case len(l.v) == 1:
		return slices.Repeat([]uint32{l.v[0]}, dims), nil
	case len(l.v) == dims:
		return l.v, nil
	}
	return nil, fmt.Errorf("%w: --%s has %d values; the input has %d spatial axes (give 1 or %d)", ErrUsage, name, len(l.v), dims, dims)
}

// poolOptions are maxpool's parsed flags.
type poolOptions struct {
	window, strides, dilations, start, end, padding, outSize uintList
	ceil                                                     *bool
	indexType                                                *string
	indicesPath                                              *string // UseRun
	indices                                                  *bool   // UseBench
}

func poolFlags(fs *flag.FlagSet, use Use) *Builder {
	p := &poolOptions{}
	fs.Var(&p.window, "window", "window size per spatial axis, H,W or D,H,W (required; one value applies to every axis)")
	fs.Var(&p.strides, "strides", "window strides (default 1)")
	fs.Var(&p.dilations, "dilations", "window dilations (default 1)")
	fs.Var(&p.start, "start-padding", "padding before each spatial axis (default 0)")
	fs.Var(&p.end, "end-padding", "padding after each spatial axis (default 0)")
	fs.Var(&p.padding, "padding", "padding on both sides of each spatial axis: --start-padding P --end-padding P")
	fs.Var(&p.outSize, "output-size", "output extent per spatial axis (default: the floor formula below); any extent >= 1 is accepted")
	p.ceil = fs.Bool("ceil-mode", false, "round the output extent up, as ONNX's and PyTorch's ceil_mode=1")
	p.indexType = fs.String("index-type", "uint32", "indices data type: uint32 or uint64 (DirectML's rule, see below)")
	b := &Builder{Check: p.check, Desc: p.desc, Params: p.params}
	if use == UseBench {
		p.indices = fs.Bool("indices", false, "also produce the indices output")
	} else {
		p.indicesPath = fs.String("indices", "", "also write the indices of the maxima, flat over the whole input, to this .npy file")
		b.ExtraOutputs = func() []string {
			if *p.indicesPath == "" {
				return nil
			}
			return []string{*p.indicesPath}
		}
	}
	return b
}

func (p *poolOptions) withIndices() bool {
	if p.indices != nil {
		return *p.indices
	}
	return *p.indicesPath != ""
}

func (p *poolOptions) params() map[string]any {
	m := map[string]any{"window": p.window.v, "index_type": strings.ToLower(*p.indexType), "indices": p.withIndices(), "ceil_mode": *p.ceil}
	for name, l := range map[string]*uintList{"strides": &p.strides, "dilations": &p.dilations, "start_padding": &p.start,
		"end_padding": &p.end, "padding": &p.padding, "output_size": &p.outSize} {
		if l.set {
			m[name] = l.v
		}
	}
	return m
}

// check validates what does not depend on the input.
func (p *poolOptions) check() error {
	_, err := p.indexDataType()
	return err
}

func (p *poolOptions) indexDataType() (tensor.DataType, error) {
	if !p.window.set {
		return 0, fmt.Errorf("%w: --window is required", ErrUsage)
	}
	if p.padding.set && (p.start.set || p.end.set) {
		return 0, fmt.Errorf("%w: --padding sets both sides; give it or --start-padding/--end-padding, not both", ErrUsage)
	}
	if *p.ceil && p.outSize.set {
		return 0, fmt.Errorf("%w: --ceil-mode chooses the output extent; give it or --output-size, not both", ErrUsage)
	}
	switch strings.ToLower(*p.indexType) {
	case "uint32", "u32":
		return tensor.UInt32, nil
	case "uint64", "u64":
		return tensor.UInt64, nil
	}
	return 0, fmt.Errorf("%w: --index-type %q: want uint32 or uint64 (DirectML's MAX_POOLING2 takes no other indices type)", ErrUsage, *p.indexType)
}

// desc builds the MAX_POOLING2 desc for its input.
func (p *poolOptions) desc(ins []Input) (dml.OperatorDesc, error) {
	what, in := ins[0].Name, *ins[0].Desc
	idxType, err := p.indexDataType()
	if err != nil {
		return nil, err
	}
	rank := in.Rank()
	if rank != 4 && rank != 5 {
		return nil, fmt.Errorf("%w: %s has %d dimensions %s; max pooling takes 4D (N,C,H,W) or 5D (N,C,D,H,W) tensors", ErrUsage, what, rank, tensor.Shape(in.Sizes))
	}
	dims := rank - 2
	start, end := &p.start, &p.end
	if p.padding.set {
		start, end = &p.padding, &p.padding
	}
	lists := []*uintList{&p.window, &p.strides, &p.dilations, start, end}
	names := []string{"window", "strides", "dilations", "start-padding", "end-padding"}
	if p.padding.set {
		names[3], names[4] = "padding", "padding"
	}
	defs := []uint32{0, 1, 1, 0, 0}
	vals := make([][]uint32, len(lists))
	for i, l := range lists {
		if vals[i], err = l.spatial(names[i], dims, defs[i]); err != nil {
			return nil, err
		}
	}
	w, s, dl, a, b := vals[0], vals[1], vals[2], vals[3], vals[4]
	sizes := []uint32{in.Sizes[0], in.Sizes[1]}
	if p.outSize.set {
		o, err := p.outSize.spatial("output-size", dims, 0)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, o...)
	} else {
		for i := 0; i < dims; i++ {
			o, err := poolExtent(i, in.Sizes[2+i], w[i], s[i], a[i], b[i], dl[i], *p.ceil)
			if err != nil {
				return nil, err
			}
			sizes = append(sizes, o)
		}
	}
	desc := &dml.MaxPooling2{
		Input: in, Output: tensor.NewDesc(in.DataType, sizes),
		Strides: s, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: dl,
	}
	if p.withIndices() {
		id := tensor.NewDesc(idxType, sizes)
		desc.OutputIndices = &id
	}
	return desc, nil
}

// poolExtent is spatial axis i's output extent: the floor formula, or with
// ceil ONNX's ceil_mode (a last window that would start in the end padding
// is dropped).
func poolExtent(i int, in, w, s, a, b, dl uint32, ceil bool) (uint32, error) {
	if w == 0 || s == 0 || dl == 0 {
		// No extent to derive: CreateOperator names the zero field
		// (WindowSize, Strides or Dilations) and its rule.
		return 1, nil
	}
	o := dml.MaxPoolOutputSize(in, w, s, a, b, dl, ceil)
	if ceil && o > 1 && (o-1)*uint64(s) >= uint64(in)+uint64(a) {
		o--
	}
	if o > math.MaxUint32 {
		return 0, fmt.Errorf("%w: spatial axis %d: the output extent %d (from input %d, padding %d+%d, stride %d) is over DirectML's 2^32-1; give --output-size to choose an extent",
			ErrUsage, i, o, in, a, b, s)
	}
	if o < 1 {
		return 0, fmt.Errorf("%w: spatial axis %d: the dilated window 1+(%d-1)*%d is larger than the padded input %d+%d+%d, so the output would be empty; give --output-size to choose an extent",
			ErrUsage, i, w, dl, in, a, b)
	}
	return uint32(o), nil
}

func poolFromCase(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error) {
	switch c.Operator {
	case "MAX_POOLING":
		if t.Indices != nil {
			return nil, fmt.Errorf("case %s: MAX_POOLING has no indices tensor", c.Name)
		}
		return &dml.MaxPooling{Input: t.Input, Output: t.Output, Strides: c.Strides, WindowSize: c.WindowSize,
			StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	case "MAX_POOLING1":
		return &dml.MaxPooling1{Input: t.Input, Output: t.Output, OutputIndices: t.Indices, Strides: c.Strides, WindowSize: c.WindowSize,
			StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	}
	return &dml.MaxPooling2{Input: t.Input, Output: t.Output, OutputIndices: t.Indices, Strides: c.Strides, WindowSize: c.WindowSize,
		StartPadding: c.StartPadding, EndPadding: c.EndPadding, Dilations: c.Dilations}, nil
}

// demoMaxPool runs desc on in, prints it in the seed pages' layout, and
// checks the GPU's outputs against the CPU reference and the values and
// indices real DirectML gave.
func demoMaxPool(d *dml.Device, w io.Writer, desc *dml.MaxPooling2, in *tensor.Tensor, wantValues []float64, wantIdx []uint64) error {
	fmt.Fprintf(w, "InputTensor: (Sizes:%s, DataType:%v)\n%s\n\n", tensor.Shape(in.Desc.Sizes), in.Desc.DataType, poolNested(in))
	fmt.Fprintf(w, "DimensionCount: %d\nStrides: %s\nWindowSize: %s\nStartPadding: %s\nEndPadding: %s\nDilations: %s\n",
		len(desc.WindowSize), tensor.Shape(desc.Strides), tensor.Shape(desc.WindowSize), tensor.Shape(desc.StartPadding), tensor.Shape(desc.EndPadding), tensor.Shape(desc.Dilations))
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "OutputTensor: (Sizes:%s, DataType:%v)\n%s\n", tensor.Shape(outs[0].Desc.Sizes), outs[0].Desc.DataType, poolNested(outs[0]))
	fmt.Fprintf(w, "OutputIndicesTensor: (Sizes:%s, DataType:%v)\n%s\n", tensor.Shape(outs[1].Desc.Sizes), outs[1].Desc.DataType, poolNested(outs[1]))

	want := make([]*tensor.Tensor, 2)
	for i, td := range desc.Outputs() {
		want[i] = &tensor.Tensor{Desc: td.Clone(), Data: make([]byte, td.TotalTensorSizeInBytes)}
	}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		return err
	}
	for i := range want {
		if !bytes.Equal(want[i].Data, outs[i].Data) {
			return fmt.Errorf("output %d differs from the CPU reference:\n%s", i, poolNested(want[i]))
		}
	}
	if got := outs[0].Float64s(); !slices.Equal(got, wantValues) {
		return fmt.Errorf("values %v differ from DirectML's %v", got, wantValues)
	}
	if got := outs[1].Uint64s(); !slices.Equal(got, wantIdx) {
		return fmt.Errorf("indices %v differ from DirectML's %v", got, wantIdx)
	}
	return nil
}

// poolNested prints a tensor's logical elements as nested lists, in the
// seed pages' layout.
func poolNested(t *tensor.Tensor) string {
	var b strings.Builder
	sizes := t.Desc.Sizes
	rank := len(sizes)
	i := 0
	tensor.ForEachIndex(sizes, func(c []uint32) {
		open := 0 // brackets of the dimensions that start here
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

// poolFromONNX maps MaxPool: auto_pad SAME_UPPER/SAME_LOWER become explicit
// start and end padding, VALID none; ceil_mode chooses the output extent;
// 1D pooling runs as 2D with a unit H axis; the INT64 Indices output is a
// UINT64 index tensor (its values are non-negative, so the bits agree);
// storage_order=1 (column-major indices) has no DirectML equivalent.
func poolFromONNX(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*ONNXMapping, error) {
	if len(ins) != 1 {
		return nil, fmt.Errorf("%d inputs; MaxPool takes 1", len(ins))
	}
	in := ins[0].Desc.Sizes
	if so := n.Int("storage_order", 0); so != 0 {
		return nil, &NoEquivalentError{fmt.Sprintf("storage_order=%d (column-major indices) has no DirectML equivalent: MAX_POOLING2's indices are row-major", so)}
	}
	if len(in) < 3 || len(in) > 5 {
		return nil, fmt.Errorf("input rank %d; MaxPool takes N,C and 1-3 spatial axes", len(in))
	}
	if outputs < 1 || outputs > 2 {
		return nil, fmt.Errorf("%d outputs; MaxPool has Y and optional Indices", outputs)
	}
	dims := len(in) - 2
	ones := slices.Repeat([]int64{1}, dims)
	k := n.Ints("kernel_shape", nil)
	s := n.Ints("strides", ones)
	dl := n.Ints("dilations", ones)
	pads := n.Ints("pads", make([]int64, 2*dims))
	if len(k) != dims || len(s) != dims || len(dl) != dims || len(pads) != 2*dims {
		return nil, fmt.Errorf("kernel_shape %v, strides %v, dilations %v, pads %v do not match %d spatial axes", k, s, dl, pads, dims)
	}
	for i := 0; i < dims; i++ {
		if k[i] < 1 || s[i] < 1 || dl[i] < 1 || pads[i] < 0 || pads[dims+i] < 0 ||
			k[i] > 1<<31 || s[i] > 1<<31 || dl[i] > 1<<31 || pads[i] > 1<<31 || pads[dims+i] > 1<<31 {
			return nil, fmt.Errorf("spatial axis %d: kernel %d, stride %d, dilation %d, pads %d/%d out of range", i, k[i], s[i], dl[i], pads[i], pads[dims+i])
		}
	}
	start, end := slices.Clone(pads[:dims]), slices.Clone(pads[dims:])
	ceil := n.Int("ceil_mode", 0) != 0
	ap := n.String("auto_pad", "NOTSET")
	out, err := onnxPoolExtents(in, k, s, dl, start, end, ceil, ap)
	if err != nil {
		return nil, err
	}
	return poolMapping(in, convertAll[uint32](k), convertAll[uint32](s), convertAll[uint32](dl), convertAll[uint32](start), convertAll[uint32](end), convertAll[uint32](out), outputs, ceil, ap), nil
}

// onnxPoolExtents computes MaxPool's output extents, rewriting start and
// end for auto_pad.
func onnxPoolExtents(in []uint32, k, s, dl, start, end []int64, ceil bool, ap string) ([]int64, error) {
	dims := len(k)
	out := make([]int64, dims)
	for i := 0; i < dims; i++ {
		x := int64(in[2+i])
		win := (k[i]-1)*dl[i] + 1
		switch ap {
		case "NOTSET", "":
			padded := x + start[i] + end[i] - win
			if padded < 0 {
				return nil, fmt.Errorf("spatial axis %d: the dilated window %d is larger than the padded input %d", i, win, x+start[i]+end[i])
			}
			out[i] = padded/s[i] + 1
			if ceil && padded%s[i] != 0 {
				out[i]++
				// ONNX (like PyTorch) drops a last window that would start
				// in the end padding.
				if (out[i]-1)*s[i] >= x+start[i] {
					out[i]--
				}
			}
		case "VALID":
			start[i], end[i] = 0, 0
			if win > x {
				return nil, fmt.Errorf("spatial axis %d: the dilated window %d is larger than the input %d", i, win, x)
			}
			out[i] = (x-win)/s[i] + 1
		case "SAME_UPPER", "SAME_LOWER":
			out[i] = (x + s[i] - 1) / s[i]
			total := max((out[i]-1)*s[i]+win-x, 0)
			start[i], end[i] = total/2, total-total/2
			if ap == "SAME_LOWER" {
				start[i], end[i] = end[i], start[i]
			}
		default:
			return nil, fmt.Errorf("auto_pad %q is not an ONNX value", ap)
		}
	}
	return out, nil
}

// poolMapping builds the MAX_POOLING2 mapping of MaxPool's attributes.
func poolMapping(in, w, st, di, a, b, o []uint32, outputs int, ceil bool, ap string) *ONNXMapping {
	onnxOut := append(slices.Clone(in[:2]), o...)
	m := &ONNXMapping{InputSizes: in, OutputSizes: [][]uint32{onnxOut}, OutputNames: []string{"Y"}}
	inSizes, outSizes := slices.Clone(in), slices.Clone(onnxOut)
	var what []string
	if len(w) == 1 { // ONNX Runtime runs 1D pooling as 2D with a unit H axis
		w, st, di, a, b, o = append([]uint32{1}, w...), append([]uint32{1}, st...), append([]uint32{1}, di...),
			append([]uint32{0}, a...), append([]uint32{0}, b...), append([]uint32{1}, o...)
		inSizes = []uint32{in[0], in[1], 1, in[2]}
		outSizes = []uint32{in[0], in[1], 1, o[1]}
		what = append(what, "1D as 2D")
	}
	m.InputSizes = inSizes
	desc := &dml.MaxPooling2{
		Input: tensor.NewDesc(tensor.Float32, inSizes), Output: tensor.NewDesc(tensor.Float32, outSizes),
		Strides: st, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: di,
	}
	if outputs == 2 {
		id := tensor.NewDesc(tensor.UInt64, outSizes)
		desc.OutputIndices = &id
		m.OutputSizes = append(m.OutputSizes, onnxOut)
		m.OutputNames = append(m.OutputNames, "Indices")
		what = append(what, "Indices as UINT64")
	}
	m.Desc = desc
	m.Retype = func(dt tensor.DataType) {
		desc.Input = tensor.NewDesc(dt, desc.Input.Sizes)
		desc.Output = tensor.NewDesc(dt, desc.Output.Sizes)
	}
	if ap != "NOTSET" && ap != "" {
		what = append(what, "auto_pad "+ap)
	}
	if ceil {
		what = append(what, "ceil_mode")
	}
	m.Mapping = fmt.Sprintf("window %s strides %s dilations %s pads %s/%s", tensor.Shape(w), tensor.Shape(st), tensor.Shape(di), tensor.Shape(a), tensor.Shape(b))
	if len(what) > 0 {
		m.Mapping += ", " + strings.Join(what, ", ")
	}
	return m
}

// poolSource is the window of input elements that output element coords
// (of the values or the indices) of a MAX_POOLING* case reads: the
// element's batch and channel, and per spatial axis the coordinates
// o·stride − startPadding + k·dilation for k below the window size, some
// of them in the padding.
func poolSource(c *parity.Case, _ [][]byte, _ int, coords []uint32) *parity.Source {
	n := len(c.WindowSize)
	if len(coords) != n+2 || len(c.Input.Sizes) != n+2 || len(c.Strides) != n || len(c.StartPadding) != n {
		return nil
	}
	s := &parity.Source{Kind: "window", Extreme: "max", Start: []int64{int64(coords[0]), int64(coords[1])},
		End: []int64{int64(coords[0]) + 1, int64(coords[1]) + 1}, Step: []uint32{1, 1}}
	for i := range n {
		dil := uint32(1)
		if len(c.Dilations) == n && c.Dilations[i] > 0 {
			dil = c.Dilations[i]
		}
		start := int64(coords[2+i])*int64(c.Strides[i]) - int64(c.StartPadding[i])
		s.Start = append(s.Start, start)
		s.End = append(s.End, start+int64(max(c.WindowSize[i], 1)-1)*int64(dil)+1)
		s.Step = append(s.Step, dil)
	}
	return s
}
