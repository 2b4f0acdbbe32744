package onnx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

// ---- an encoder for the tests (what onnx's Python helpers write) ----

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendVarints writes a repeated varint field, packed or one tag per value.
func appendVarints(b []byte, num protowire.Number, vs []uint64, packed bool) []byte {
	if !packed {
		for _, v := range vs {
			b = appendVarint(b, num, v)
		}
		return b
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, v)
	}
	return appendBytes(b, num, p)
}

func appendFixed32s(b []byte, num protowire.Number, vs []uint32, packed bool) []byte {
	if !packed {
		for _, v := range vs {
			b = protowire.AppendTag(b, num, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, v)
		}
		return b
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendFixed32(p, v)
	}
	return appendBytes(b, num, p)
}

type encoding int

const (
	raw encoding = iota
	typedPacked
	typedUnpacked
)

// encodeTensor serializes a packed host tensor as a TensorProto of ONNX
// type onnxType.
func encodeTensor(t *tensor.Tensor, onnxType int32, name string, enc encoding) []byte {
	var b []byte
	dims := make([]uint64, len(t.Desc.Sizes))
	for i, s := range t.Desc.Sizes {
		dims[i] = uint64(s)
	}
	b = appendVarints(b, 1, dims, enc == typedPacked)
	b = appendVarint(b, 2, uint64(onnxType))
	b = appendBytes(b, 8, []byte(name))
	if enc == raw {
		return appendBytes(b, 9, t.Data[:t.Desc.ElementCount()*uint64(t.Desc.DataType.Size())])
	}
	var vals []uint64
	tensor.ForEachIndex(t.Desc.Sizes, func(c []uint32) {
		switch onnxType {
		case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
			vals = append(vals, uint64(t.Int64At(c...)))
		default:
			vals = append(vals, t.Bits(c...))
		}
	})
	switch onnxType {
	case TypeFloat:
		w := make([]uint32, len(vals))
		for i, v := range vals {
			w[i] = uint32(v)
		}
		return appendFixed32s(b, 4, w, enc == typedPacked)
	case TypeInt64:
		return appendVarints(b, 7, vals, enc == typedPacked)
	case TypeUint32, TypeUint64:
		return appendVarints(b, 11, vals, enc == typedPacked)
	default:
		return appendVarints(b, 5, vals, enc == typedPacked)
	}
}

var onnxTypes = []int32{TypeFloat, TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeInt32, TypeInt64, TypeBool, TypeFloat16, TypeUint32, TypeUint64}

func sampleTensor(dt tensor.DataType, sizes []uint32) *tensor.Tensor {
	n := 1
	for _, s := range sizes {
		n *= int(s)
	}
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i*37%11) - 5
	}
	if !dt.IsSigned() {
		for i := range vals {
			vals[i] = int64(i * 7919 % 251)
		}
	}
	if dt.IsFloat() {
		f := make([]float64, n)
		for i, v := range vals {
			f[i] = float64(v) / 4
		}
		if n > 2 {
			f[0], f[1] = math.Inf(-1), math.Copysign(0, -1)
		}
		return tensor.FromFloat64As(dt, sizes, f)
	}
	t := tensor.FromInt64As(dt, sizes, vals)
	if n > 1 { // the extremes
		bits := 8 * dt.Size()
		flat := make([]uint32, len(sizes))
		flat[len(flat)-1] = 1
		t.SetBits(flat, uint64(math.MaxUint64)>>(64-bits))
	}
	return t
}

func TestTensorRoundTrip(t *testing.T) {
	for _, ot := range onnxTypes {
		dt, ok := DataType(ot)
		if !ok {
			t.Fatalf("type %d unmapped", ot)
		}
		for _, sizes := range [][]uint32{{1}, {3}, {2, 3}, {1, 2, 3, 4}} {
			want := sampleTensor(dt, sizes)
			if ot == TypeBool {
				want = tensor.FromInt64As(dt, sizes, make([]int64, want.Desc.ElementCount()))
				want.Data[0] = 1
			}
			for _, enc := range []encoding{raw, typedPacked, typedUnpacked} {
				b := encodeTensor(want, ot, "x", enc)
				p, err := ParseTensorProto(b)
				if err != nil {
					t.Fatalf("type %d sizes %v enc %d: %v", ot, sizes, enc, err)
				}
				got, err := p.Tensor()
				if err != nil {
					t.Fatalf("type %d sizes %v enc %d: %v", ot, sizes, enc, err)
				}
				if p.Name != "x" || !slices.Equal(got.Desc.Sizes, sizes) || got.Desc.DataType != dt || !bytes.Equal(got.Data, want.Data) {
					t.Errorf("type %d sizes %v enc %d: got %v %v %v, want %v %v", ot, sizes, enc, p.Name, got.Desc, got.Data, want.Desc, want.Data)
				}
			}
		}
	}
}

func TestScalar(t *testing.T) {
	var b []byte
	b = appendVarint(b, 2, TypeInt64)
	b = appendVarint(b, 7, uint64(1<<63|5))
	p, err := ParseTensorProto(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Tensor()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Desc.Sizes, []uint32{1}) || got.Int64At(0) != math.MinInt64+5 {
		t.Errorf("got %v %v", got.Desc, got.Int64s())
	}
}

func TestTensorErrors(t *testing.T) {
	good := encodeTensor(tensor.FromFloat32([]uint32{2}, []float32{1, 2}), TypeFloat, "x", raw)
	withDims := func(dims ...uint64) []byte {
		b := appendVarints(nil, 1, dims, true)
		b = appendVarint(b, 2, TypeFloat)
		return appendBytes(b, 9, make([]byte, 8))
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "field 9"},
		{"bad tag", []byte{0x80}, "bad field tag"},
		{"raw length", withDims(3), "raw_data has 8 bytes, want 12"},
		{"dim 0 with data", withDims(2, 0), "dims [2 0] hold no elements, but its data has 8"},
		{"dim 0 and a negative dim", appendVarint(appendVarints(nil, 1, []uint64{0, 1<<64 - 1}, true), 2, TypeInt64), "dims[1] = -1 is not in [0, 2^32-1]"},
		{"negative dim", withDims(uint64(1<<64-1), 2), "dims[0] = -1"},
		{"too many elements", withDims(1<<20, 1<<20), "more than 2^32-1 elements"},
		{"string type", appendVarint(withDims(2), 2, TypeString), "STRING elements: a data type vkdml has no tensors of"},
		{"double type", appendVarint(withDims(1), 2, TypeDouble), "DOUBLE (FLOAT64) elements"},
		{"external", appendVarint(good, 14, 1), "external data"},
		{"typed count", appendFixed32s(appendVarint(appendVarints(nil, 1, []uint64{3}, false), 2, TypeFloat), 4, []uint32{1, 2}, true), "float_data has 2 elements, want 3"},
		{"wire type", appendVarint(nil, 9, 1), "field 9 has wire type 0"},
		{"packed garbage", appendBytes(nil, 4, []byte{1, 2, 3}), "packed field 4"},
		{"nine dims", withDims(1, 1, 1, 1, 1, 1, 1, 1, 1), "9 dimensions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseTensorProto(c.b)
			if err == nil {
				_, err = p.Tensor()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestTensorSentinels: an empty tensor (ReduceSum's empty axes input) is
// ErrEmpty, a DOUBLE one ErrDataType, so that the conformance runner can
// tell them from a broken file.
func TestTensorSentinels(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty axes", appendVarint(appendVarints(nil, 1, []uint64{0}, true), 2, TypeInt64), ErrEmpty},
		{"empty 2D", appendVarint(appendVarints(nil, 1, []uint64{3, 0}, true), 2, TypeFloat), ErrEmpty},
		{"double", appendBytes(appendVarint(appendVarints(nil, 1, []uint64{1}, true), 2, TypeDouble), 9, make([]byte, 8)), ErrDataType},
		{"empty double", appendVarint(appendVarints(nil, 1, []uint64{0}, true), 2, TypeDouble), ErrDataType},
	} {
		p, err := ParseTensorProto(c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := p.Tensor(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

// encodeModel builds ModelProto{graph: {node: [n], input, output}}.
func encodeModel(n []byte, inputs, outputs []string) []byte {
	var g []byte
	g = appendBytes(g, 1, n)
	g = appendBytes(g, 2, []byte("g"))
	for _, s := range inputs {
		g = appendBytes(g, 11, appendBytes(nil, 1, []byte(s)))
	}
	for _, s := range outputs {
		g = appendBytes(g, 12, appendBytes(nil, 1, []byte(s)))
	}
	m := appendVarint(nil, 1, 7) // ir_version
	return appendBytes(m, 7, g)
}

func TestModel(t *testing.T) {
	attr := func(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
	var n []byte
	n = appendBytes(n, 1, []byte("x"))
	n = appendBytes(n, 2, []byte("y"))
	n = appendBytes(n, 2, []byte("z"))
	n = appendBytes(n, 4, []byte("MaxPool"))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("kernel_shape")), appendVarints(nil, 8, []uint64{2, 3}, true), appendVarint(nil, 20, AttrInts)))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("pads")), appendVarints(nil, 8, []uint64{0, 1, uint64(1<<64 - 1), 2}, false), appendVarint(nil, 20, AttrInts)))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("ceil_mode")), appendVarint(nil, 3, 1), appendVarint(nil, 20, AttrInt)))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("auto_pad")), appendBytes(nil, 4, []byte("SAME_UPPER")), appendVarint(nil, 20, AttrString)))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("alpha")), protowire.AppendFixed32(protowire.AppendTag(nil, 2, protowire.Fixed32Type), math.Float32bits(0.5))))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("scales")), appendFixed32s(nil, 7, []uint32{math.Float32bits(1), math.Float32bits(2)}, false)))
	n = appendBytes(n, 5, attr(appendBytes(nil, 1, []byte("value")), appendBytes(nil, 5, encodeTensor(tensor.FromFloat32([]uint32{1}, []float32{3}), TypeFloat, "v", raw))))
	n = appendBytes(n, 99, []byte("unknown field, skipped"))
	g, err := ParseModel(encodeModel(n, []string{"x"}, []string{"y", "z"}))
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "g" || len(g.Nodes) != 1 || !slices.Equal(g.Inputs, []string{"x"}) || !slices.Equal(g.Outputs, []string{"y", "z"}) {
		t.Fatalf("graph %+v", g)
	}
	node := &g.Nodes[0]
	if node.OpType != "MaxPool" || !slices.Equal(node.Inputs, []string{"x"}) || !slices.Equal(node.Outputs, []string{"y", "z"}) {
		t.Errorf("node %+v", node)
	}
	if got := node.Ints("kernel_shape", nil); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("kernel_shape %v", got)
	}
	if got := node.Ints("pads", nil); !slices.Equal(got, []int64{0, 1, -1, 2}) {
		t.Errorf("pads %v", got)
	}
	if got := node.Ints("strides", []int64{1, 1}); !slices.Equal(got, []int64{1, 1}) {
		t.Errorf("strides default %v", got)
	}
	if node.Int("ceil_mode", 0) != 1 || node.Int("storage_order", 7) != 7 {
		t.Errorf("ints %v %v", node.Int("ceil_mode", 0), node.Int("storage_order", 7))
	}
	if node.String("auto_pad", "NOTSET") != "SAME_UPPER" || node.String("missing", "d") != "d" {
		t.Errorf("strings")
	}
	if a, _ := node.Attr("alpha"); a.F != 0.5 {
		t.Errorf("alpha %v", a.F)
	}
	if a, _ := node.Attr("scales"); !slices.Equal(a.Floats, []float32{1, 2}) {
		t.Errorf("scales %v", a.Floats)
	}
	if a, _ := node.Attr("value"); a.T == nil || a.T.Name != "v" {
		t.Errorf("tensor attribute %+v", a.T)
	}
	if _, err := ParseModel(appendVarint(nil, 1, 7)); err == nil {
		t.Errorf("a model without a graph parsed")
	}
	if _, err := ParseModel(encodeModel([]byte{0x0a, 0x05, 'x'}, nil, nil)); err == nil {
		t.Errorf("a truncated node parsed")
	}
}

// testData is where Debian's libonnx-testdata puts ONNX's node tests.
const testData = "/usr/share/libonnx-testdata/data/node"

func TestRealTestData(t *testing.T) {
	dir := filepath.Join(testData, "test_maxpool_with_argmax_2d_precomputed_pads")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("ONNX test data not installed (apt-get install libonnx-testdata): %v", err)
	}
	g, err := ReadModel(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 1 || g.Nodes[0].OpType != "MaxPool" || !slices.Equal(g.Nodes[0].Ints("pads", nil), []int64{2, 2, 2, 2}) {
		t.Errorf("graph %+v", g)
	}
	x, name, err := ReadTensor(filepath.Join(dir, "test_data_set_0", "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if name != "x" || x.Desc.String() != "FLOAT32[1,1,5,5]" || x.Float64s()[24] != 25 {
		t.Errorf("input %s %v %v", name, x.Desc, x.Float64s())
	}
	z, _, err := ReadTensor(filepath.Join(dir, "test_data_set_0", "output_1.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if z.Desc.DataType != tensor.Int64 || z.Int64s()[0] != 12 {
		t.Errorf("indices %v %v", z.Desc, z.Int64s())
	}
	// Every maxpool data set of the package parses.
	dirs, _ := filepath.Glob(filepath.Join(testData, "test_*pool*", "test_data_set_*", "*.pb"))
	for _, f := range dirs {
		if _, _, err := ReadTensor(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	models, _ := filepath.Glob(filepath.Join(testData, "test_*", "model.onnx"))
	for _, f := range models {
		if _, err := ReadModel(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	t.Logf("%d tensors, %d models parsed", len(dirs), len(models))
}

func FuzzParseTensorProto(f *testing.F) {
	for _, ot := range onnxTypes {
		dt, _ := DataType(ot)
		for _, enc := range []encoding{raw, typedPacked, typedUnpacked} {
			f.Add(encodeTensor(sampleTensor(dt, []uint32{2, 3}), ot, "x", enc))
		}
	}
	f.Add([]byte{})
	f.Add(binary.AppendUvarint(nil, 0x0a))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseTensorProto(b)
		if err != nil {
			return
		}
		x, err := p.Tensor()
		if err != nil {
			return
		}
		// A tensor that decodes re-encodes to the same tensor.
		ot := p.DataType
		back, err := ParseTensorProto(encodeTensor(x, ot, p.Name, raw))
		if err != nil {
			t.Fatal(err)
		}
		y, err := back.Tensor()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x.Data, y.Data) || !slices.Equal(x.Desc.Sizes, y.Desc.Sizes) {
			t.Fatalf("round trip changed the tensor")
		}
	})
}

func FuzzParseModel(f *testing.F) {
	var n []byte
	n = appendBytes(n, 4, []byte("MaxPool"))
	n = appendBytes(n, 5, appendVarints(appendBytes(nil, 1, []byte("pads")), 8, []uint64{1, 2}, true))
	f.Add(encodeModel(n, []string{"x"}, []string{"y"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseModel(b)
		if err == nil && g == nil {
			t.Fatal("nil graph without an error")
		}
	})
}
