package conformance

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/tensor"
)

// shaped is one FLOAT32 input of the given sizes, as Map takes its inputs.
func shaped(sizes ...uint32) []*tensor.Tensor {
	return []*tensor.Tensor{tensor.New(tensor.Float32, sizes...)}
}

func node(op string, attrs ...onnx.Attribute) *onnx.Node {
	return &onnx.Node{OpType: op, Attributes: attrs}
}

func ints(name string, v ...int64) onnx.Attribute {
	return onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
}
func i64(name string, v int64) onnx.Attribute {
	return onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
}
func str(name, v string) onnx.Attribute {
	return onnx.Attribute{Name: name, Type: onnx.AttrString, S: []byte(v)}
}

// TestMapArg checks the ArgMax/ArgMin translation without a device.
func TestMapArg(t *testing.T) {
	m, err := Map(node("ArgMin", i64("axis", -1), i64("keepdims", 0), i64("select_last_index", 1)), shaped(2, 3, 4), 1)
	if err != nil {
		t.Fatal(err)
	}
	a := m.Desc.(*dml.ArgMin)
	if !slices.Equal(a.Axes, []uint32{2}) || a.AxisDirection != dml.AxisDirectionDecreasing ||
		!slices.Equal(a.Output.Sizes, []uint32{2, 3, 1}) || !slices.Equal(m.OutputSizes[0], []uint32{2, 3}) {
		t.Fatalf("got %+v / %v", a, m.OutputSizes)
	}
	m, err = Map(node("ArgMax"), shaped(5), 1) // default axis 0, keepdims 1
	if err != nil || !slices.Equal(m.Desc.(*dml.ArgMax).Axes, []uint32{0}) || !slices.Equal(m.OutputSizes[0], []uint32{1}) {
		t.Fatalf("default axis: %v %+v", err, m)
	}
	if _, err := Map(node("ArgMax", i64("axis", 3)), shaped(2, 3), 1); err == nil {
		t.Fatal("axis 3 of a rank-2 input was accepted")
	}
}

// TestMapReduce checks the ReduceMax/ReduceMin translation without a
// device: negative axes, all axes by default, keepdims=0, the axes input
// (opset 18) and noop_with_empty_axes.
func TestMapReduce(t *testing.T) {
	cases := []struct {
		name      string
		n         *onnx.Node
		ins       []*tensor.Tensor
		fn        dml.ReduceFunction
		axes, out []uint32
	}{
		{"negative", node("ReduceMin", ints("axes", -1, 0), i64("keepdims", 0)), shaped(2, 3, 4), dml.ReduceFunctionMin, []uint32{2, 0}, []uint32{3}},
		{"default", node("ReduceMax"), shaped(2, 3), dml.ReduceFunctionMax, []uint32{0, 1}, []uint32{1, 1}},
		{"axes input", node("ReduceMax"), append(shaped(2, 3), tensor.FromInt64As(tensor.Int64, []uint32{1}, []int64{-1})), dml.ReduceFunctionMax, []uint32{1}, []uint32{2, 1}},
		{"noop", node("ReduceMax", i64("noop_with_empty_axes", 1)), shaped(2, 3), dml.ReduceFunctionMax, nil, []uint32{2, 3}},
		// ReduceSum-13's empty axes input reads as nil (onnx.ErrEmpty).
		{"empty axes input", node("ReduceSum"), append(shaped(2, 3), nil), dml.ReduceFunctionSum, []uint32{0, 1}, []uint32{1, 1}},
		{"empty axes input noop", node("ReduceSum", i64("noop_with_empty_axes", 1)), append(shaped(2, 3), nil), dml.ReduceFunctionSum, nil, []uint32{2, 3}},
		{"mean", node("ReduceMean", ints("axes", 1), i64("keepdims", 0)), shaped(2, 3), dml.ReduceFunctionAverage, []uint32{1}, []uint32{2}},
		{"l1", node("ReduceL1"), shaped(2), dml.ReduceFunctionL1, []uint32{0}, []uint32{1}},
		{"l2", node("ReduceL2"), shaped(2), dml.ReduceFunctionL2, []uint32{0}, []uint32{1}},
		{"log_sum", node("ReduceLogSum"), shaped(2), dml.ReduceFunctionLogSum, []uint32{0}, []uint32{1}},
		{"log_sum_exp", node("ReduceLogSumExp"), shaped(2), dml.ReduceFunctionLogSumExp, []uint32{0}, []uint32{1}},
		{"sum_square", node("ReduceSumSquare"), shaped(2), dml.ReduceFunctionSumSquare, []uint32{0}, []uint32{1}},
	}
	for _, c := range cases {
		m, err := Map(c.n, c.ins, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := m.Desc.(*dml.Reduce)
		if r.Function != c.fn || !slices.Equal(r.Axes, c.axes) || !slices.Equal(m.OutputSizes[0], c.out) {
			t.Errorf("%s: %v axes %v output %v, want %v %v %v", c.name, r.Function, r.Axes, m.OutputSizes[0], c.fn, c.axes, c.out)
		}
		exact := c.fn == dml.ReduceFunctionMax || c.fn == dml.ReduceFunctionMin
		if exact != (m.Tolerance == nil) {
			t.Errorf("%s: tolerance %v; MAX and MIN compare bit for bit, the sums within ONNX's tolerance", c.name, m.Tolerance)
		}
		if m.Bind != nil && len(m.Bind(c.ins)) != 1 {
			t.Errorf("%s: binds %d inputs, want the data only", c.name, len(m.Bind(c.ins)))
		}
	}
	if _, err := Map(node("ReduceMax", ints("axes", 2)), shaped(2, 3), 1); err == nil {
		t.Fatal("axis 2 of a rank-2 input was accepted")
	}
}

// TestDiffsTolerance: within ONNX's tolerance a few ULPs pass and a
// relative 2e-3 does not; NaN matches NaN only and an infinity itself;
// without a tolerance any bit differs.
func TestDiffsTolerance(t *testing.T) {
	tol := &operators.ONNXTolerance
	f32 := func(v ...float32) []byte { return tensor.FromFloat32([]uint32{uint32(len(v))}, v).Data }
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	next := math.Nextafter32(1000, 2000)
	for _, c := range []struct {
		name string
		w, g []byte
		tol  *operators.Tolerance
		want string // "" for no difference
	}{
		{"ulps", f32(1000, 0, nan, inf), f32(next, 5e-8, nan, inf), tol, ""},
		{"ulps exact", f32(1000), f32(next), nil, "1 of 1 elements differ: [0] want 1000 got 1000.00006"},
		{"relative", f32(1, 2, 3), f32(1, 2.004, 3), tol, "1 of 3 elements differ beyond rtol 0.001, atol 1e-07: [1] want 2 got 2.004"},
		{"atol", f32(0), f32(2e-7), tol, "beyond"},
		{"nan", f32(nan, 1), f32(1, nan), tol, "2 of 2"},
		{"inf", f32(inf, inf), f32(float32(math.MaxFloat32), float32(math.Inf(-1))), tol, "2 of 2"},
	} {
		err := diffs(tensor.Float32, c.w, c.g, c.tol)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMapMaxPool checks padding, ceil_mode, 1D and storage_order.
func TestMapMaxPool(t *testing.T) {
	cases := []struct {
		name       string
		n          *onnx.Node
		in         []uint32
		start, end []uint32
		out        []uint32
	}{
		{"same_lower", node("MaxPool", ints("kernel_shape", 2, 2), str("auto_pad", "SAME_LOWER")), []uint32{1, 3, 32, 32}, []uint32{1, 1}, []uint32{0, 0}, []uint32{1, 3, 32, 32}},
		{"same_upper_stride", node("MaxPool", ints("kernel_shape", 3, 3), ints("strides", 2, 2), str("auto_pad", "SAME_UPPER")), []uint32{1, 1, 5, 5}, []uint32{1, 1}, []uint32{1, 1}, []uint32{1, 1, 3, 3}},
		{"ceil", node("MaxPool", ints("kernel_shape", 3, 3), ints("strides", 2, 2), i64("ceil_mode", 1)), []uint32{1, 1, 4, 4}, []uint32{0, 0}, []uint32{0, 0}, []uint32{1, 1, 2, 2}},
		// ceil would give a window starting in the end padding: dropped.
		{"ceil_drop", node("MaxPool", ints("kernel_shape", 2), ints("strides", 2), ints("pads", 1, 1), i64("ceil_mode", 1)), []uint32{1, 1, 5}, nil, nil, []uint32{1, 1, 3}},
		{"1d", node("MaxPool", ints("kernel_shape", 2)), []uint32{1, 3, 32}, []uint32{0, 0}, []uint32{0, 0}, []uint32{1, 3, 31}},
	}
	for _, c := range cases {
		m, err := Map(c.n, shaped(c.in...), 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := m.Desc.(*dml.MaxPooling2)
		if !slices.Equal(m.OutputSizes[0], c.out) {
			t.Errorf("%s: output %v, want %v", c.name, m.OutputSizes[0], c.out)
		}
		if len(c.in) == 3 {
			if len(p.Input.Sizes) != 4 || p.Input.Sizes[2] != 1 || p.WindowSize[0] != 1 {
				t.Errorf("%s: 1D is not 2D with a unit H axis: %+v", c.name, p)
			}
			continue
		}
		if !slices.Equal(p.StartPadding, c.start) || !slices.Equal(p.EndPadding, c.end) {
			t.Errorf("%s: padding %v/%v, want %v/%v", c.name, p.StartPadding, p.EndPadding, c.start, c.end)
		}
	}
	_, err := Map(node("MaxPool", ints("kernel_shape", 2, 2), i64("storage_order", 1)), shaped(1, 1, 4, 4), 2)
	var se *skipError
	if !errors.As(err, &se) {
		t.Fatalf("storage_order=1: want a skip, got %v", err)
	}
}

// TestMapMaxUnpool: X and I are bound (I as UINT64), the output is the
// inferred shape, and a larger output_shape makes it a strided view into
// output_shape's buffer; a smaller one, or other batch or channels, has no
// DirectML equivalent.
func TestMapMaxUnpool(t *testing.T) {
	x := tensor.New(tensor.Float32, 1, 2, 2, 3)
	i := tensor.New(tensor.Int64, 1, 2, 2, 3)
	n := node("MaxUnpool", ints("kernel_shape", 2, 2), ints("strides", 2, 2))
	m, err := Map(n, []*tensor.Tensor{x, i}, 1)
	if err != nil {
		t.Fatal(err)
	}
	u := m.Desc.(*dml.MaxUnpooling)
	if !slices.Equal(u.Output.Sizes, []uint32{1, 2, 4, 6}) || u.Output.Strides != nil || u.Indices.DataType != tensor.UInt64 {
		t.Errorf("without output_shape: %+v", u)
	}
	if ins := m.Bind([]*tensor.Tensor{x, i}); len(ins) != 2 || ins[1].Desc.DataType != tensor.UInt64 {
		t.Errorf("bound inputs %v", ins)
	}
	shape := func(v ...int64) *tensor.Tensor { return tensor.FromInt64As(tensor.Int64, []uint32{4}, v) }
	m, err = Map(n, []*tensor.Tensor{x, i, shape(1, 2, 5, 7)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	u = m.Desc.(*dml.MaxUnpooling)
	if !slices.Equal(u.Output.Sizes, []uint32{1, 2, 4, 6}) || !slices.Equal(u.Output.Strides, []uint32{70, 35, 7, 1}) ||
		u.Output.TotalTensorSizeInBytes != 4*70 || !slices.Equal(m.OutputSizes[0], []uint32{1, 2, 5, 7}) {
		t.Errorf("output_shape [1,2,5,7]: output %+v, ONNX sizes %v", u.Output, m.OutputSizes[0])
	}
	for _, bad := range [][]int64{{1, 2, 3, 7}, {1, 3, 4, 6}} {
		var se *skipError
		if _, err := Map(n, []*tensor.Tensor{x, i, shape(bad...)}, 1); !errors.As(err, &se) {
			t.Errorf("output_shape %v: want a skip, got %v", bad, err)
		}
	}
}
