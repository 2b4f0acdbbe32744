package operators

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// MAX_UNPOOLING: the input's values written back to the output positions
// its indices name (flat over the whole output), zeros elsewhere.

// maxUnpoolHelp is the paragraph `vkdml run maxunpool -h` prints after the
// flags.
const maxUnpoolHelp = `X and I are 4D (N,C,H,W) tensors of one shape: X any of the ten types, I
UINT32 or UINT64 (MAX_POOLING2's --indices output is one). The output has
X's type and --output-shape's sizes, which DirectML does not check against
X's (each spatial axis unpooling a 2x2 window of stride 2 doubles).

Each element of X goes to the output element its index in I names,
counting over the whole output in row-major order, N and C included. Output
elements no index names are 0. An index past the output's end writes
nothing (no error). When several elements of X name one output element,
the last of them in row-major order wins.
`

func maxUnpoolOperator() *Operator {
	return &Operator{
		Name:      "maxunpool",
		Type:      "MAX_UNPOOLING",
		Synopsis:  "--output-shape N,C,H,W X.npy I.npy OUT.npy",
		Summary:   "MAX_UNPOOLING: X's values written to the output elements I names (flat indices), zeros elsewhere",
		Help:      maxUnpoolHelp,
		Flags:     unpoolFlags,
		DMLTypes:  []string{"MAX_UNPOOLING"},
		FromCase:  unpoolFromCase,
		Source:    unpoolSource,
		ONNXTypes: []string{"MaxUnpool"},
		FromONNX:  unpoolFromONNX,
		Demos:     []Demo{{"MAX_UNPOOLING: two channels unpooled from 2x2 into 4x4, indices flat across both", demoMaxUnpool}},
	}
}

// unpoolOptions are maxunpool's parsed flags.
type unpoolOptions struct {
	outShape uintList
	use      Use
}

func unpoolFlags(fs *flag.FlagSet, use Use) *Builder {
	p := &unpoolOptions{use: use}
	def := "required"
	if use == UseBench {
		def = "default: N, C, 2H, 2W"
	}
	fs.Var(&p.outShape, "output-shape", "the output's sizes N,C,H,W ("+def+")")
	return &Builder{Check: p.check, Desc: p.desc, Params: p.params}
}

func (p *unpoolOptions) check() error {
	switch {
	case p.outShape.set && len(p.outShape.v) != 4:
		return fmt.Errorf("%w: --output-shape has %d values; MAX_UNPOOLING's output is 4D (N,C,H,W)", ErrUsage, len(p.outShape.v))
	case !p.outShape.set && p.use == UseRun:
		return fmt.Errorf("%w: --output-shape N,C,H,W is required", ErrUsage)
	}
	return nil
}

func (p *unpoolOptions) params() map[string]any {
	return map[string]any{"output_shape": p.outShape.v}
}

// desc is MAX_UNPOOLING of ins[0] (X) by ins[1] (I). Bench's I has
// --dtype like X, so bench gives it UINT32 instead; `vkdml run` keeps the
// file's type, which DirectML's rules check.
func (p *unpoolOptions) desc(ins []Input) (dml.OperatorDesc, error) {
	x, idx := *ins[0].Desc, *ins[1].Desc
	if len(x.Sizes) != 4 {
		return nil, fmt.Errorf("%w: %s is %dD; MAX_UNPOOLING takes 4D (N,C,H,W) tensors", ErrUsage, ins[0].Name, len(x.Sizes))
	}
	out := p.outShape.v
	if !p.outShape.set {
		out = []uint32{x.Sizes[0], x.Sizes[1], 2 * x.Sizes[2], 2 * x.Sizes[3]}
	}
	if p.use == UseBench {
		idx = tensor.NewDesc(tensor.UInt32, idx.Sizes)
	}
	return &dml.MaxUnpooling{Input: x, Indices: idx, Output: tensor.NewDesc(x.DataType, out)}, nil
}

// unpoolFromCase builds a parity case's MAX_UNPOOLING, whose indices are
// its second input.
func unpoolFromCase(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error) {
	if t.InputIndices == nil {
		return nil, fmt.Errorf("case %s: MAX_UNPOOLING without an indices input", c.Name)
	}
	return &dml.MaxUnpooling{Input: t.Input, Indices: *t.InputIndices, Output: t.Output}, nil
}

// unpoolFromONNX maps MaxUnpool. DirectML binds X and I only (as ONNX
// Runtime's DirectML provider does), I's INT64 values read as UINT64 (they
// are non-negative, so the bits agree). ONNX's indices count over the
// inferred shape, (In - 1)·Stride + Kernel − pads per spatial axis, and an
// output_shape input only pads that result with zeros at the end of each
// axis; so a larger output_shape becomes an OutputTensor of the inferred
// sizes with output_shape's packed strides, lying in output_shape's whole
// buffer, whose other elements Compute's zeroed output keeps (rule 6).
// ONNX Runtime's DirectML provider instead binds output_shape as the
// output's sizes, which moves every index of this data set.
func unpoolFromONNX(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*ONNXMapping, error) {
	if len(ins) < 2 || len(ins) > 3 || outputs != 1 {
		return nil, fmt.Errorf("%d inputs and %d outputs; MaxUnpool takes X, I and optional output_shape, and gives Y", len(ins), outputs)
	}
	in := ins[0].Desc.Sizes
	if len(in) != 4 {
		return nil, &NoEquivalentError{fmt.Sprintf("a rank-%d X: DirectML's MAX_UNPOOLING takes 4D tensors only", len(in))}
	}
	inferred, err := unpoolInferredShape(n, in)
	if err != nil {
		return nil, err
	}
	shape := inferred
	if len(ins) == 3 {
		if shape, err = unpoolOutputShape(ins[2], inferred); err != nil {
			return nil, err
		}
	}
	outDesc := func(dt tensor.DataType) tensor.Desc {
		d := tensor.NewDesc(dt, inferred)
		if !slices.Equal(shape, inferred) {
			whole := tensor.NewDesc(dt, shape)
			d = tensor.NewStridedDesc(dt, inferred, whole.EffectiveStrides())
			d.TotalTensorSizeInBytes = whole.TotalTensorSizeInBytes
		}
		return d
	}
	desc := &dml.MaxUnpooling{Input: tensor.NewDesc(tensor.Float32, in), Indices: tensor.NewDesc(tensor.UInt64, in), Output: outDesc(tensor.Float32)}
	m := &ONNXMapping{Desc: desc, InputSizes: in, OutputSizes: [][]uint32{shape}, OutputNames: []string{"output"},
		Mapping: fmt.Sprintf("output %s, INT64 indices as UINT64", tensor.Shape(inferred))}
	if !slices.Equal(shape, inferred) {
		m.Mapping += fmt.Sprintf(", strided into output_shape %s", tensor.Shape(shape))
	}
	m.Retype = func(dt tensor.DataType) {
		desc.Input, desc.Output = tensor.NewDesc(dt, in), outDesc(dt)
	}
	m.Bind = func(ins []*tensor.Tensor) []*tensor.Tensor {
		x := &tensor.Tensor{Desc: tensor.NewDesc(ins[0].Desc.DataType, in), Data: ins[0].ToPacked().Data}
		return []*tensor.Tensor{x, {Desc: tensor.NewDesc(tensor.UInt64, in), Data: ins[1].ToPacked().Data}}
	}
	m.View = func(outs []*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{{Desc: tensor.NewDesc(outs[0].Desc.DataType, shape), Data: outs[0].Data}}
	}
	return m, nil
}

// unpoolInferredShape is ONNX's MaxUnpool output shape from the
// attributes: (In - 1)·Stride + Kernel − pads per spatial axis.
func unpoolInferredShape(n *onnx.Node, in []uint32) ([]uint32, error) {
	k := n.Ints("kernel_shape", nil)
	s := n.Ints("strides", []int64{1, 1})
	pads := n.Ints("pads", []int64{0, 0, 0, 0})
	if len(k) != 2 || len(s) != 2 || len(pads) != 4 {
		return nil, fmt.Errorf("kernel_shape %v, strides %v, pads %v do not match 2 spatial axes", k, s, pads)
	}
	out := []uint32{in[0], in[1], 0, 0}
	for i := 0; i < 2; i++ {
		e := (int64(in[2+i])-1)*s[i] + k[i] - pads[i] - pads[2+i]
		if e < 1 || e > 1<<32-1 {
			return nil, fmt.Errorf("spatial axis %d: the output extent (In-1)*Stride + Kernel - pads = %d is out of range", i, e)
		}
		out[2+i] = uint32(e)
	}
	return out, nil
}

// unpoolOutputShape checks MaxUnpool's output_shape input against the
// inferred shape: the same batch and channels, and no spatial extent
// smaller (the result is padded, never cut).
func unpoolOutputShape(t *tensor.Tensor, inferred []uint32) ([]uint32, error) {
	v := t.Int64s()
	if len(v) != 4 || slices.ContainsFunc(v, func(x int64) bool { return x < 1 || x > 1<<32-1 }) {
		return nil, fmt.Errorf("output_shape %v is not 4 sizes of at least 1", v)
	}
	shape := convertAll[uint32](v)
	for i := range shape {
		if i < 2 && shape[i] != inferred[i] || shape[i] < inferred[i] {
			return nil, &NoEquivalentError{fmt.Sprintf("output_shape %s against the inferred shape %s: ONNX pads the inferred result, which fits no DirectML output view unless batch and channels agree and no axis shrinks", tensor.Shape(shape), tensor.Shape(inferred))}
		}
	}
	return shape, nil
}

// demoMaxUnpool unpools two 2x2 channels into 4x4: each index counts over
// the whole output, so channel 1's indices start at 16; one index is out
// of range (skipped) and two name one element (the later wins).
func demoMaxUnpool(d *dml.Device, w io.Writer) error {
	x := tensor.FromFloat64As(tensor.Float32, []uint32{1, 2, 2, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	idx := tensor.FromUint64As(tensor.UInt32, []uint32{1, 2, 2, 2}, []uint64{5, 7, 13, 15, 16, 16, 99, 31})
	desc := &dml.MaxUnpooling{Input: x.Desc, Indices: idx.Desc, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 2, 4, 4})}
	outs, err := d.Compute(desc, x, idx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "X %v\nI %v (16 is named twice, 99 is past the end)\noutput, channel 0 then 1:\n%s\n", x.Float64s(), idx.Uint64s(), rows(outs[0]))
	want := []float64{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8}
	if got := outs[0].Float64s(); !slices.Equal(got, want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

// maxUnpoolSourceElements bounds the input elements a difference's source
// lists.
const maxUnpoolSourceElements = 8

// unpoolSource lists the input elements of a MAX_UNPOOLING case whose
// index names output element coords (its row-major position, semantics.md
// rule 17), and hints at an index of 2^32 or more whose low 32 bits name
// it, which DirectML wraps and vkdml does not (rule 19).
func unpoolSource(c *parity.Case, inputs [][]byte, _ int, coords []uint32) *parity.Source {
	if c.Indices == nil || len(inputs) < 2 || len(coords) != len(c.Output.Sizes) {
		return nil
	}
	d, err := c.Indices.Desc()
	if err != nil || !d.DataType.Valid() || uint64(len(inputs[1])) < d.SpanBytes() {
		return nil
	}
	var pos uint64
	for a, x := range coords {
		pos = pos*uint64(c.Output.Sizes[a]) + uint64(x)
	}
	idx := &tensor.Tensor{Desc: d, Data: inputs[1]}
	s := &parity.Source{Kind: "elements", Elements: [][]uint32{}}
	wrapped := false
	tensor.ForEachIndex(d.Sizes, func(cs []uint32) {
		v := idx.Uint64At(cs...)
		if v == pos && len(s.Elements) < maxUnpoolSourceElements {
			s.Elements = append(s.Elements, slices.Clone(cs))
		}
		if v>>32 != 0 && v&0xffffffff == pos && !wrapped {
			wrapped = true
			s.Hints = append(s.Hints, parity.Hint{Kind: parity.HintOutOfRangeIndex,
				Detail: fmt.Sprintf("index %d at %s is past the output; DirectML reads its low 32 bits, %d, this element (semantics.md rule 19)", v, tensor.Shape(cs), pos)})
		}
	})
	return s
}
