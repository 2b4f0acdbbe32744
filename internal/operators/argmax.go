package operators

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// ARGMAX and ARGMIN (REDUCE, with its ARGMAX and ARGMIN functions too, is
// reduce.go's).

func argMaxOperator(name string) *Operator {
	op := argOperator(name, "largest")
	op.Type = "ARGMAX"
	op.DMLTypes = []string{"ARGMAX"}
	op.ONNXTypes = []string{"ArgMax"}
	return op
}

func argMinOperator(name string) *Operator {
	op := argOperator(name, "smallest")
	op.Type = "ARGMIN"
	op.DMLTypes = []string{"ARGMIN"}
	op.ONNXTypes = []string{"ArgMin"}
	return op
}

func argOperator(name, extreme string) *Operator {
	return &Operator{
		Name:     name,
		Summary:  strings.ToUpper(name) + ": index of the " + extreme + " element over the given axes (the output keeps the input's rank)",
		Synopsis: "--axes A[,B...] [--direction increasing|decreasing] [--index-type uint32|int32|uint64|int64] IN.npy OUT.npy",
		Help:     argHelp(name),
		Examples: argExamples(name),
		Flags:    func(fs *flag.FlagSet, _ Use) *Builder { return argFlags(name, fs) },
		FromCase: argFromCase,
		Source:   argSource,
		FromONNX: argFromONNX,
		Demos:    argDemos(name),
	}
}

// argHelp states DirectML's rules (docs/semantics.md rules 1, 4 and 5) for
// `vkdml run argmax -h`; argExamples shows each with numbers, and the
// command's tests run the examples, so the text cannot drift from what
// the program does.
func argHelp(name string) string {
	op, cmp, cmpEq := "ARGMAX", "greater", "greater or equal"
	if name == "argmin" {
		op, cmp, cmpEq = "ARGMIN", "less", "less or equal"
	}
	nan := fmt.Sprintf("NaN, as in DirectML: %s's result is what a scan of the block from its "+
		"first element gives, moving to a later element only when that one compares %s than "+
		"the current one (%s with --direction decreasing). Every comparison with NaN is false, "+
		"so a NaN is the result only when it is the block's first element, and a NaN anywhere "+
		"else never is (numpy's %s returns the first NaN instead). -0 and +0 are equal.", op, cmp, cmpEq, name)
	return `--axes counts from the end when negative, as numpy and ONNX do: on a rank-3
input, -1 is axis 2. The index counts row-major over the reduced axes only,
from the start of each block of reduced elements.

--direction chooses among equal extremes: increasing gives the first,
decreasing the last; either way the index counts from the block's start.

` + Wrap(nan, 76)
}

// Wrap breaks text into lines of at most width columns, at spaces (the
// command's help and reports).
func Wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		if col > 0 && col+1+len(w) > width {
			b.WriteString("\n")
			col = 0
		} else if col > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String() + "\n"
}

// argMatrix is the input of the examples over two axes.
const argMatrix = "[[1, 2, 3], [3, 0, 4], [2, 5, 2]]"

// argExampleRows are the rules of argHelp in numbers (docs/semantics.md's
// examples of rules 1, 4 and 5), each with argmax's input and output and
// argmin's, which mirror them.
var argExampleRows = []struct{ flags, maxIn, maxOut, minIn, minOut string }{
	{"--axes 0", "[1, NaN, 3]", "[2]", "[3, NaN, 1]", "[2]"},
	{"--axes 0", "[NaN, 1, 2]", "[0]", "[NaN, 1, 2]", "[0]"},
	{"--axes 0", "[3, 2, 1, 2, 3]", "[0]", "[1, 2, 3, 2, 1]", "[0]"},
	{"--axes 0 --direction decreasing", "[3, 2, 1, 2, 3]", "[4]", "[1, 2, 3, 2, 1]", "[4]"},
	{"--axes 0 --direction decreasing", "[0, -0]", "[1]", "[0, -0]", "[1]"},
	{"--axes 0,1", argMatrix, "[[7]]", argMatrix, "[[4]]"},
	{"--axes -1", argMatrix, "[[2], [2], [1]]", argMatrix, "[[0], [1], [0]]"},
}

// argExamples are argExampleRows for the operator called name.
func argExamples(name string) []Example {
	out := make([]Example, len(argExampleRows))
	for i, r := range argExampleRows {
		out[i] = Example{Flags: r.flags, Input: r.maxIn, Output: r.maxOut}
		if name == "argmin" {
			out[i].Input, out[i].Output = r.minIn, r.minOut
		}
	}
	return out
}

// argFlags registers --axes, --direction and --index-type.
func argFlags(name string, fs *flag.FlagSet) *Builder {
	axes := fs.String("axes", "", "comma-separated axes to reduce, e.g. 0,2 or -1 (required; negative counts from the end)")
	dir := fs.String("direction", "increasing", "which of equal extremes: increasing (the first) or decreasing (the last)")
	idx := fs.String("index-type", "uint32", "output index type: uint32, int32, uint64 or int64")
	check := func() error {
		_, _, err := argOptions(*axes, *dir, *idx)
		return err
	}
	return &Builder{
		Check: check,
		Desc: func(ins []Input) (dml.OperatorDesc, error) {
			return ArgDesc(name, *ins[0].Desc, *axes, *dir, *idx)
		},
		Params: func() map[string]any {
			return map[string]any{"axes": *axes, "direction": strings.ToLower(*dir), "index_type": strings.ToLower(*idx)}
		},
	}
}

// ParseAxes parses --axes "A[,B...]" for an input of the given rank: each
// axis in [-rank, rank), a negative one counting from the end. rank 0
// checks only the syntax.
func ParseAxes(s string, rank int) ([]uint32, error) {
	return parseAxesFlag("--axes", s, rank)
}

// parseAxesFlag is ParseAxes for the flag named flagName (topk's --axis),
// which its errors name.
func parseAxesFlag(flagName, s string, rank int) ([]uint32, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: %s is required (e.g. %s 0 or %s -1)", ErrUsage, flagName, flagName, flagName)
	}
	var axes []uint32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %q: %q is not an integer", ErrUsage, flagName, s, f)
		}
		if rank == 0 {
			continue
		}
		if v < -int64(rank) || v >= int64(rank) {
			return nil, fmt.Errorf("%w: %s %q: axis %d is out of range for a rank-%d input (axes are %d..%d)", ErrUsage, flagName, s, v, rank, -rank, rank-1)
		}
		if v < 0 {
			v += int64(rank)
		}
		axes = append(axes, uint32(v))
	}
	return axes, nil
}

// ArgDesc builds the ARGMAX (name "argmax") or ARGMIN desc of the flags for
// an input; the output keeps the input's rank.
func ArgDesc(name string, in tensor.Desc, axesS, dirS, typeS string) (dml.OperatorDesc, error) {
	dir, idx, err := argOptions(axesS, dirS, typeS)
	if err != nil {
		return nil, err
	}
	axes, sizes, err := reducedShape(in, axesS)
	if err != nil {
		return nil, err
	}
	out := tensor.NewDesc(idx, sizes)
	if name == "argmax" {
		return &dml.ArgMax{Input: in, Output: out, Axes: axes, AxisDirection: dir}, nil
	}
	return &dml.ArgMin{Input: in, Output: out, Axes: axes, AxisDirection: dir}, nil
}

// reducedShape parses --axes for input in and returns the axes and the
// output sizes: the input's, with the reduced axes of size 1.
func reducedShape(in tensor.Desc, axesS string) (axes, sizes []uint32, err error) {
	axes, err = ParseAxes(axesS, in.Rank())
	if err != nil {
		return nil, nil, err
	}
	sizes = slices.Clone(in.Sizes)
	for _, a := range axes {
		sizes[a] = 1
	}
	return axes, sizes, nil
}

// parseDirection reads --direction, in any case: ARGMAX's, ARGMIN's,
// REDUCE's and TOP_K's flag.
func parseDirection(s string) (dml.AxisDirection, bool) {
	switch strings.ToLower(s) {
	case "increasing":
		return dml.AxisDirectionIncreasing, true
	case "decreasing":
		return dml.AxisDirectionDecreasing, true
	}
	return 0, false
}

// argOptions checks the flags that do not depend on the input.
func argOptions(axesS, dirS, typeS string) (dml.AxisDirection, tensor.DataType, error) {
	dir, ok := parseDirection(dirS)
	if !ok {
		return 0, 0, fmt.Errorf("%w: --direction %q: want increasing or decreasing", ErrUsage, dirS)
	}
	idx := map[string]tensor.DataType{"uint32": tensor.UInt32, "int32": tensor.Int32, "uint64": tensor.UInt64, "int64": tensor.Int64}[strings.ToLower(typeS)]
	if idx == tensor.Unknown {
		return 0, 0, fmt.Errorf("%w: --index-type %q: want uint32, int32, uint64 or int64", ErrUsage, typeS)
	}
	if _, err := ParseAxes(axesS, 0); err != nil {
		return 0, 0, err
	}
	return dir, idx, nil
}

func argFromCase(c *parity.Case, t CaseTensors) (dml.OperatorDesc, error) {
	if t.Indices != nil {
		return nil, fmt.Errorf("case %s: %s has no indices tensor", c.Name, c.Operator)
	}
	switch c.Operator {
	case "ARGMAX":
		return &dml.ArgMax{Input: t.Input, Output: t.Output, Axes: c.Axes, AxisDirection: t.Direction}, nil
	}
	return &dml.ArgMin{Input: t.Input, Output: t.Output, Axes: c.Axes, AxisDirection: t.Direction}, nil
}

// argFromONNX maps ArgMax/ArgMin: a negative axis counts from the end, the
// default axis is 0; select_last_index=1 is DECREASING; DirectML keeps the
// rank, so keepdims=0 is a reshape of the result; the INT64 output is an
// INT64 index tensor.
func argFromONNX(n *onnx.Node, ins []*tensor.Tensor, _ int) (*ONNXMapping, error) {
	if len(ins) != 1 {
		return nil, fmt.Errorf("%d inputs; %s takes 1", len(ins), n.OpType)
	}
	in := ins[0].Desc.Sizes
	rank := int64(len(in))
	axis := n.Int("axis", 0)
	if axis < -rank || axis >= rank {
		return nil, fmt.Errorf("axis %d is out of range for a rank-%d input", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	keep := n.Int("keepdims", 1) != 0
	dir := dml.AxisDirectionIncreasing
	if n.Int("select_last_index", 0) != 0 {
		dir = dml.AxisDirectionDecreasing
	}
	out := slices.Clone(in)
	out[axis] = 1
	onnxOut := out
	if !keep {
		onnxOut = slices.Delete(slices.Clone(in), int(axis), int(axis)+1)
		if len(onnxOut) == 0 {
			onnxOut = []uint32{1}
		}
	}
	m := &ONNXMapping{InputSizes: in, OutputSizes: [][]uint32{onnxOut}, OutputNames: []string{"reduced"}}
	axes := []uint32{uint32(axis)}
	inD, outD := tensor.NewDesc(tensor.Float32, in), tensor.NewDesc(tensor.Int64, out)
	if n.OpType == "ArgMax" {
		a := &dml.ArgMax{Input: inD, Output: outD, Axes: axes, AxisDirection: dir}
		m.Desc, m.Retype = a, func(dt tensor.DataType) { a.Input = tensor.NewDesc(dt, a.Input.Sizes) }
	} else {
		a := &dml.ArgMin{Input: inD, Output: outD, Axes: axes, AxisDirection: dir}
		m.Desc, m.Retype = a, func(dt tensor.DataType) { a.Input = tensor.NewDesc(dt, a.Input.Sizes) }
	}
	m.Mapping = fmt.Sprintf("axes [%d], %s, INT64", axis, strings.TrimPrefix(dir.String(), "DML_AXIS_DIRECTION_"))
	if !keep {
		m.Mapping += ", keepdims=0 as a reshape"
	}
	return m, nil
}

// argDemos are the seed pages' examples (DML_ARGMAX_OPERATOR_DESC,
// DML_ARGMIN_OPERATOR_DESC) and their AxisDirection examples.
func argDemos(op string) []Demo {
	pageInput := []float32{1, 2, 3, 3, 0, 4, 2, 5, 2}
	type example struct {
		title string
		op    string
		input []float32
		sizes []uint32
		axes  []uint32
		dir   dml.AxisDirection
		want  []uint64
	}
	examples := []example{
		{"Example 1. Applying argmax to columns", "argmax", pageInput, []uint32{3, 3}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{1, 2, 1}},
		{"Example 2. Applying argmax to rows", "argmax", pageInput, []uint32{3, 3}, []uint32{1}, dml.AxisDirectionIncreasing, []uint64{2, 2, 1}},
		{"Example 3. Applying argmax to all axes (the entire tensor)", "argmax", pageInput, []uint32{3, 3}, []uint32{0, 1}, dml.AxisDirectionIncreasing, []uint64{7}},
		{"Example 1. Applying argmin to columns", "argmin", pageInput, []uint32{3, 3}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0, 1, 2}},
		{"Example 2. Applying argmin to rows", "argmin", pageInput, []uint32{3, 3}, []uint32{1}, dml.AxisDirectionIncreasing, []uint64{0, 1, 0}},
		{"Example 3. Applying argmin to all axes (the entire tensor)", "argmin", pageInput, []uint32{3, 3}, []uint32{0, 1}, dml.AxisDirectionIncreasing, []uint64{4}},
		{"AxisDirection: INCREASING returns the first maximum", "argmax", []float32{3, 2, 1, 2, 3}, []uint32{5}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0}},
		{"AxisDirection: DECREASING returns the last maximum", "argmax", []float32{3, 2, 1, 2, 3}, []uint32{5}, []uint32{0}, dml.AxisDirectionDecreasing, []uint64{4}},
		{"AxisDirection: INCREASING returns the first minimum", "argmin", []float32{1, 2, 3, 2, 1}, []uint32{5}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0}},
		{"AxisDirection: DECREASING returns the last minimum", "argmin", []float32{1, 2, 3, 2, 1}, []uint32{5}, []uint32{0}, dml.AxisDirectionDecreasing, []uint64{4}},
	}
	var demos []Demo
	for _, e := range examples {
		if e.op != op {
			continue
		}
		demos = append(demos, Demo{
			Title: strings.ToUpper(e.op) + ": " + e.title,
			Run: func(d *dml.Device, w io.Writer) error {
				return demoArg(d, w, e.op, e.input, e.sizes, e.axes, e.dir, e.want)
			},
		})
	}
	return demos
}

func demoArg(d *dml.Device, w io.Writer, op string, vals []float32, sizes, axes []uint32, dir dml.AxisDirection, want []uint64) error {
	in := tensor.FromFloat32(sizes, vals)
	osizes := slices.Clone(sizes)
	for _, a := range axes {
		osizes[a] = 1
	}
	out := tensor.NewDesc(tensor.UInt32, osizes)
	var desc dml.OperatorDesc
	if op == "argmax" {
		desc = &dml.ArgMax{Input: in.Desc, Output: out, Axes: axes, AxisDirection: dir}
	} else {
		desc = &dml.ArgMin{Input: in.Desc, Output: out, Axes: axes, AxisDirection: dir}
	}
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	got := outs[0].Uint64s()

	// The pages' layout: the input, the fields, then the output with each
	// element's block in a comment.
	fmt.Fprintf(w, "InputTensor: (Sizes:%s, DataType:FLOAT32)\n%s\n\n", tensor.Shape(sizes), nested(in.Float64s(), sizes, nil))
	fmt.Fprintf(w, "AxisCount: %d\nAxes: %s\nAxisDirection: %v\n", len(axes), tensor.Shape(axes), dir)
	fmt.Fprintf(w, "OutputTensor: (Sizes:%s, DataType:UINT32)\n%s\n", tensor.Shape(osizes), nested(convertAll[float64](got), osizes, argBlocks(op, in, axes, osizes)))

	if !slices.Equal(got, want) {
		return fmt.Errorf("got %v, the page says %v", got, want)
	}
	ref := &tensor.Tensor{Desc: out.Clone(), Data: make([]byte, out.TotalTensorSizeInBytes)}
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{ref}); err != nil {
		return err
	}
	if !slices.Equal(ref.Uint64s(), want) {
		return fmt.Errorf("the CPU reference gives %v, the page says %v", ref.Uint64s(), want)
	}
	return nil
}

// argBlocks describes each output element by the block it reduces:
// "argmax({1, 3, 2})".
func argBlocks(op string, in *tensor.Tensor, axes, osizes []uint32) []string {
	sizes := in.Desc.Sizes
	comments := make([]string, tensor.NewDesc(tensor.UInt32, osizes).ElementCount())
	tensor.ForEachIndex(osizes, func(c []uint32) {
		var block []string
		bsizes := make([]uint32, len(sizes))
		for i := range sizes {
			bsizes[i] = 1
		}
		for _, a := range axes {
			bsizes[a] = sizes[a]
		}
		tensor.ForEachIndex(bsizes, func(b []uint32) {
			x := make([]uint32, len(c))
			for i := range c {
				x[i] = c[i] + b[i]
			}
			block = append(block, strconv.FormatFloat(in.Float64At(x...), 'g', -1, 64))
		})
		var o uint64
		for i := range c {
			o = o*uint64(osizes[i]) + uint64(c[i])
		}
		comments[o] = fmt.Sprintf("%s({%s})", op, strings.Join(block, ", "))
	})
	return comments
}

// nested prints row-major values as nested brackets, one innermost row per
// line, or with comments one element per line ("1,  // argmax(...)"), as
// the seed pages do.
func nested(vals []float64, sizes []uint32, comments []string) string {
	rank := len(sizes)
	var b strings.Builder
	for i, v := range vals {
		// Brackets opened at i and closed after it.
		open, close := 0, 0
		for d, stride := rank-1, 1; d >= 0; d-- {
			if (i/stride)%int(sizes[d]) == 0 && i%stride == 0 && open == rank-1-d {
				open++
			}
			stride *= int(sizes[d])
		}
		for d, stride := rank-1, 1; d >= 0; d-- {
			if (i/stride)%int(sizes[d]) == int(sizes[d])-1 && (i+1)%stride == 0 && close == rank-1-d {
				close++
			}
			stride *= int(sizes[d])
		}
		if i > 0 {
			if comments != nil || open > 0 {
				b.WriteString("\n" + strings.Repeat(" ", rank-open))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(strings.Repeat("[", open))
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		b.WriteString(strings.Repeat("]", close))
		if i < len(vals)-1 {
			b.WriteString(",")
		}
		if comments != nil {
			pad := " "
			if i < len(vals)-1 {
				pad = ""
			}
			b.WriteString(pad + strings.Repeat(" ", max(0, 2-close)) + "// " + comments[i])
		}
	}
	return b.String()
}

// argSource is the block of input elements that output element coords of
// an ARGMAX, ARGMIN or REDUCE case reduces: every coordinate of the
// reduced axes, the element's own on the others.
func argSource(c *parity.Case, _ [][]byte, _ int, coords []uint32) *parity.Source {
	sizes := c.Input.Sizes
	if len(coords) != len(sizes) {
		return nil
	}
	s := &parity.Source{Kind: "block", Start: make([]int64, len(sizes)), End: make([]int64, len(sizes))}
	for a := range sizes {
		s.Start[a], s.End[a] = int64(coords[a]), int64(coords[a])+1
	}
	for _, a := range c.Axes {
		if int(a) >= len(sizes) {
			return nil
		}
		s.Start[a], s.End[a] = 0, int64(sizes[a])
	}
	switch {
	case c.Operator == "ARGMAX" || (c.Operator == "REDUCE" && c.ReduceFunction == "ARGMAX"):
		s.Extreme = "max"
	case c.Operator == "ARGMIN" || (c.Operator == "REDUCE" && c.ReduceFunction == "ARGMIN"):
		s.Extreme = "min"
	}
	return s
}
