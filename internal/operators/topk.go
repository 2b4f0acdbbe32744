package operators

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// TOP_K and TOP_K1: the K largest (or smallest) elements along one axis,
// sorted, and their indices.

// topKHelp is the paragraph `vkdml run topk -h` prints after the flags
// (docs/semantics.md rules 31-37).
const topKHelp = `VALUES.npy gets the K selected elements of each sequence along --axis,
sorted (decreasing: largest first; increasing: smallest first), with the
input's type; INDICES.npy their positions along the axis (UINT32, or UINT64
with --index-type uint64). Both keep the input's rank, with K along --axis.

Equal values come in index order, the lower index first, in both
directions; -0 and +0 are equal (each keeps its bits). NaN comes after
every number in both directions, so it is selected only when K exceeds the
count of numbers, and then the lowest-indexed NaNs first. K may equal the
axis length (a full sort) but not exceed it.
`

func topKOperator() *Operator {
	return &Operator{
		Name:      "topk",
		Type:      "TOP_K1",
		Summary:   "TOP_K1: the K largest (or smallest) elements along an axis, sorted, and their indices",
		Synopsis:  "--k K [--axis A] [--direction decreasing|increasing] [--index-type uint32|uint64] IN.npy VALUES.npy INDICES.npy",
		Help:      topKHelp,
		Flags:     topKFlags,
		DMLTypes:  []string{"TOP_K", "TOP_K1"},
		FromCase:  topKFromCase,
		ONNXTypes: []string{"TopK"},
		FromONNX:  topKFromONNX,
		Demos: []Demo{
			{"TOP_K1: ties go to the lower index; NaN after every number", demoTopK},
		},
	}
}

// topKOptions are topk's parsed flags.
type topKOptions struct {
	k              uint
	axis, dir, idx string
}

func topKFlags(fs *flag.FlagSet, _ Use) *Builder {
	p := &topKOptions{}
	fs.UintVar(&p.k, "k", 0, "how many elements to select along the axis (required, at least 1)")
	fs.StringVar(&p.axis, "axis", "-1", "the axis to select along (negative counts from the end)")
	fs.StringVar(&p.dir, "direction", "decreasing", "decreasing (the K largest, largest first) or increasing (the K smallest, smallest first)")
	fs.StringVar(&p.idx, "index-type", "uint32", "index type: uint32 or uint64")
	return &Builder{Check: p.check, Desc: p.desc, Params: p.params}
}

func (p *topKOptions) check() error {
	if p.k == 0 {
		return fmt.Errorf("%w: --k is required: the number of elements to select, from 1 to the axis length (DirectML refuses K = 0)", ErrUsage)
	}
	if p.k > 1<<32-1 {
		return fmt.Errorf("%w: --k %d: give the number of elements to select, from 1 to the axis length", ErrUsage, p.k)
	}
	_, _, err := topKEnums(p.dir, p.idx)
	if err == nil {
		_, err = parseAxesFlag("--axis", p.axis, 0)
	}
	return err
}

func (p *topKOptions) params() map[string]any {
	return map[string]any{"k": p.k, "axis": p.axis, "direction": strings.ToLower(p.dir), "index_type": strings.ToLower(p.idx)}
}

// topKEnums parses --direction and --index-type.
func topKEnums(dirS, idxS string) (dml.AxisDirection, tensor.DataType, error) {
	dir, ok := parseDirection(dirS)
	if !ok {
		return 0, 0, fmt.Errorf("%w: --direction %q: want decreasing or increasing", ErrUsage, dirS)
	}
	idx := map[string]tensor.DataType{"uint32": tensor.UInt32, "uint64": tensor.UInt64}[strings.ToLower(idxS)]
	if idx == tensor.Unknown {
		return 0, 0, fmt.Errorf("%w: --index-type %q: want uint32 or uint64 (DirectML refuses signed indices)", ErrUsage, idxS)
	}
	return dir, idx, nil
}

func (p *topKOptions) desc(ins []Input) (dml.OperatorDesc, error) {
	dir, idx, err := topKEnums(p.dir, p.idx)
	if err != nil {
		return nil, err
	}
	in := *ins[0].Desc
	axes, err := parseAxesFlag("--axis", p.axis, in.Rank())
	if err != nil {
		return nil, err
	}
	if len(axes) != 1 {
		return nil, fmt.Errorf("%w: --axis %q: give one axis", ErrUsage, p.axis)
	}
	return TopKDesc(in, axes[0], uint32(p.k), dir, idx), nil
}

// TopKDesc is TOP_K1 over in along axis, with packed outputs of in's
// type and idx.
func TopKDesc(in tensor.Desc, axis, k uint32, dir dml.AxisDirection, idx tensor.DataType) *dml.TopK1 {
	out := slices.Clone(in.Sizes)
	out[axis] = k
	return &dml.TopK1{Input: in, OutputValue: tensor.NewDesc(in.DataType, out), OutputIndex: tensor.NewDesc(idx, out),
		Axis: axis, K: k, AxisDirection: dir}
}

// topKFromCase builds a parity case's TOP_K or TOP_K1: its indices are
// the case's second output.
func topKFromCase(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error) {
	if t.Indices == nil {
		return nil, fmt.Errorf("case %s: %s without an index output", c.Name, c.Operator)
	}
	axis, k := c.TopKParams()
	if c.Operator == "TOP_K" {
		return &dml.TopK{Input: t.Input, OutputValue: t.Output, OutputIndex: *t.Indices, Axis: axis, K: k}, nil
	}
	return &dml.TopK1{Input: t.Input, OutputValue: t.Output, OutputIndex: *t.Indices, Axis: axis, K: k, AxisDirection: t.Direction}, nil
}

// topKFromONNX maps TopK as ONNX Runtime's DirectML provider does onto
// TOP_K1: K from the attribute (opset 1) or the K input (opset 10 on,
// not bound), a negative axis counting from the end (default -1),
// largest=0 as INCREASING, and INT64 indices as UINT64 (they are
// non-negative, so the bits agree). sorted=0 allows any order, of which
// DirectML's sorted one is one.
func topKFromONNX(n *onnx.Node, ins []*tensor.Tensor, outputs int) (*ONNXMapping, error) {
	if len(ins) < 1 || len(ins) > 2 || outputs != 2 {
		return nil, fmt.Errorf("%d inputs and %d outputs; TopK takes X (and K) and gives Values and Indices", len(ins), outputs)
	}
	in := ins[0].Desc.Sizes
	rank := int64(len(in))
	axis := n.Int("axis", -1)
	if axis < -rank || axis >= rank {
		return nil, fmt.Errorf("axis %d is out of range for a rank-%d input", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	k := n.Int("k", 0)
	if len(ins) == 2 {
		v := ins[1].Int64s()
		if len(v) != 1 {
			return nil, fmt.Errorf("K holds %d values; want 1", len(v))
		}
		k = v[0]
	}
	if k < 1 || k > int64(in[axis]) {
		return nil, &NoEquivalentError{fmt.Sprintf("K = %d: DirectML's TOP_K takes K from 1 to the axis length %d", k, in[axis])}
	}
	dir := dml.AxisDirectionDecreasing
	if n.Int("largest", 1) == 0 {
		dir = dml.AxisDirectionIncreasing
	}
	desc := TopKDesc(tensor.NewDesc(tensor.Float32, in), uint32(axis), uint32(k), dir, tensor.UInt64)
	out := desc.OutputValue.Sizes
	m := &ONNXMapping{Desc: desc, InputSizes: in, OutputSizes: [][]uint32{out, out}, OutputNames: []string{"values", "indices"},
		Mapping: fmt.Sprintf("axis %d, K %d, %s, INT64 indices as UINT64", axis, k, strings.TrimPrefix(dir.String(), "DML_AXIS_DIRECTION_"))}
	m.Retype = func(dt tensor.DataType) {
		desc.Input, desc.OutputValue = tensor.NewDesc(dt, in), tensor.NewDesc(dt, out)
	}
	m.Bind = func(ins []*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{{Desc: tensor.NewDesc(ins[0].Desc.DataType, in), Data: ins[0].ToPacked().Data}}
	}
	m.View = func(outs []*tensor.Tensor) []*tensor.Tensor {
		return []*tensor.Tensor{outs[0], {Desc: tensor.NewDesc(tensor.Int64, out), Data: outs[1].Data}}
	}
	return m, nil
}

// demoTopK selects K = 3 of a row with ties and a NaN, both ways.
func demoTopK(d *dml.Device, w io.Writer) error {
	vals := []float32{3, 1, float32(math.NaN()), 3, 2, 1}
	in := tensor.FromFloat32([]uint32{uint32(len(vals))}, vals)
	for _, c := range []struct {
		dir        dml.AxisDirection
		want       []float64
		wantIndex  []uint64
		directions string
	}{
		{dml.AxisDirectionDecreasing, []float64{3, 3, 2}, []uint64{0, 3, 4}, "decreasing"},
		{dml.AxisDirectionIncreasing, []float64{1, 1, 2}, []uint64{1, 5, 4}, "increasing"},
	} {
		desc := TopKDesc(in.Desc, 0, 3, c.dir, tensor.UInt32)
		outs, err := d.Compute(desc, in)
		if err != nil {
			return err
		}
		got, idx := outs[0].Float64s(), outs[1].Uint64s()
		fmt.Fprintf(w, "  input %v, K 3, %s: values %v, indices %v\n", vals, c.directions, got, idx)
		if !slices.Equal(got, c.want) || !slices.Equal(idx, c.wantIndex) {
			return fmt.Errorf("TOP_K1 %s: got %v %v, want %v %v", c.directions, got, idx, c.want, c.wantIndex)
		}
	}
	return nil
}
