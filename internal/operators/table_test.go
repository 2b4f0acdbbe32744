package operators

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// sampleInput and sampleFlags give each operator an input and flags its
// desc builds from, for the checks below.
var sampleInput = map[string][]uint32{"argmax": {4, 64}, "argmin": {4, 64}, "reduce": {4, 64}, "maxpool": {1, 2, 8, 8}, "maxunpool": {1, 2, 4, 4}, "identity": {256}, "topk": {4, 64}}

var sampleFlags = map[string][]string{"argmax": {"--axes", "-1"}, "argmin": {"--axes", "1"}, "reduce": {"--function", "max", "--axes", "0"}, "maxpool": {"--window", "2", "--strides", "2"},
	"maxunpool": {"--output-shape", "1,2,8,8"}, "topk": {"--k", "5"}}

// sampleTypes are the types of an operator's inputs, where not all FLOAT32.
var sampleTypes = map[string][]tensor.DataType{"maxunpool": {tensor.Float32, tensor.UInt32}}

func build(t *testing.T, op *Operator, use Use) dml.OperatorDesc {
	t.Helper()
	fs := flag.NewFlagSet(op.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b := op.Flags(fs, use)
	if err := fs.Parse(sampleFlags[op.Name]); err != nil {
		t.Fatal(err)
	}
	if err := b.Check(); err != nil {
		t.Fatalf("%s: %v", op.Name, err)
	}
	ins := make([]Input, len(op.Inputs()))
	for i := range ins {
		dt := tensor.Float32
		if ts := sampleTypes[op.Name]; ts != nil {
			dt = ts[i]
		}
		d := tensor.NewDesc(dt, sampleInput[op.Name])
		ins[i] = Input{Name: fmt.Sprintf("x%d", i), Desc: &d}
	}
	desc, err := b.Desc(ins)
	if err != nil {
		t.Fatalf("%s: %v", op.Name, err)
	}
	if b.Params() == nil {
		t.Fatalf("%s: no params", op.Name)
	}
	return desc
}

// TestTable: names are unique, every row is complete, and every kernel a
// row lists is a strategy the operator accepts on the device.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range Table {
		for _, n := range append([]string{op.Name}, op.Aliases...) {
			if seen[n] {
				t.Errorf("name %q twice", n)
			}
			seen[n] = true
			if got, ok := Lookup(n); !ok || got != op {
				t.Errorf("Lookup(%q) = %v", n, got)
			}
		}
		if op.Summary == "" || op.Synopsis == "" || op.Flags == nil || len(op.Kernels()) == 0 || len(op.Demos) == 0 {
			t.Errorf("%s: incomplete row", op.Name)
		}
		if (len(op.DMLTypes) > 0) != (op.FromCase != nil) || (len(op.ONNXTypes) > 0) != (op.FromONNX != nil) {
			t.Errorf("%s: mapping types without a mapping, or the reverse", op.Name)
		}
		build(t, op, UseBench)
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	for _, op := range Table {
		desc := build(t, op, UseRun)
		for _, k := range op.Kernels() {
			if _, err := d.CreateOperatorWithKernel(desc, k); err != nil && strings.Contains(err.Error(), "not a strategy") {
				t.Errorf("%s lists kernel %q, which the operator refuses: %v", op.Name, k, err)
			}
		}
		if _, err := d.CreateOperatorWithKernel(desc, "no-such-kernel"); err == nil {
			t.Errorf("%s accepted a kernel name it does not have", op.Name)
		}
	}
}

// TestTableCoversRegistry: each row builds a registered desc type, and
// every registered type is exactly one row's Type or DMLTypes, so the
// command and bench offer every operator ops has and no other; a row's
// optional inputs follow its required ones (vkdml run reads files in
// order).
func TestTableCoversRegistry(t *testing.T) {
	coveredBy := map[string]string{}
	for _, op := range Table {
		o, ok := ops.LookupOperator(op.Type)
		if !ok {
			t.Errorf("%s builds %q, which ops' registry does not list", op.Name, op.Type)
			continue
		}
		if desc := build(t, op, UseRun); desc.OperatorType() != o.Type {
			t.Errorf("%s builds %s descs; its Type is %s", op.Name, desc.OperatorType(), o.Type)
		}
		for _, typ := range append([]string{op.Type}, op.DMLTypes...) {
			if _, ok := ops.LookupOperator(typ); !ok {
				t.Errorf("%s maps %q, which ops' registry does not list", op.Name, typ)
			}
			if prev, ok := coveredBy[typ]; ok && prev != op.Name {
				t.Errorf("%s is both %s's and %s's", typ, prev, op.Name)
			}
			coveredBy[typ] = op.Name
		}
		for i, f := range op.Inputs() {
			if !f.Optional && i >= op.RequiredInputs() {
				t.Errorf("%s: the required input %s follows an optional one", op.Name, f.Name)
			}
		}
	}
	for _, o := range ops.Registry {
		if _, ok := coveredBy[o.Type]; !ok {
			t.Errorf("%s is registered but no row of Table builds or maps it", o.Type)
		}
	}
}

// TestEveryCaseMaps: every case of the parity corpus builds through the
// table, and an unknown operator is an error.
func TestEveryCaseMaps(t *testing.T) {
	c, err := parity.LoadCorpus("../../tests/parity")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for i := range c.Cases {
		cs := &c.Cases[i]
		desc, err := FromCase(cs)
		if err != nil {
			t.Fatalf("case %s: %v", cs.Name, err)
		}
		if got := desc.OperatorType(); got != cs.Operator {
			t.Errorf("case %s: %s built as %s", cs.Name, cs.Operator, got)
		}
		types[cs.Operator]++
	}
	if len(types) < 6 {
		t.Errorf("the corpus covers %v; want ARGMAX, ARGMIN, REDUCE, MAX_POOLING, MAX_POOLING1, MAX_POOLING2", types)
	}
	bad := c.Cases[0]
	bad.Operator = "CONVOLUTION"
	if _, err := FromCase(&bad); err == nil || !strings.Contains(err.Error(), "unknown operator") {
		t.Errorf("an unknown operator: %v", err)
	}
	var ne *NoEquivalentError
	if _, err := FromONNX(&onnx.Node{OpType: "Conv"}, []*tensor.Tensor{tensor.New(tensor.Float32, 1, 1, 2, 2)}, 1); !errors.As(err, &ne) {
		t.Errorf("ONNX Conv: %v", err)
	}
}

// TestParseAxes: negative axes count from the end; the range is
// [-rank, rank).
func TestParseAxes(t *testing.T) {
	for _, c := range []struct {
		s    string
		rank int
		want string
	}{
		{"-1", 3, "[2]"}, {"0,-1", 2, "[0,1]"}, {"-3", 3, "[0]"}, {"2", 3, "[2]"},
		{"-4", 3, "out of range"}, {"3", 3, "out of range"}, {"x", 3, "not an integer"}, {"", 3, "required"},
	} {
		axes, err := ParseAxes(c.s, c.rank)
		got := tensor.Shape(axes)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("ParseAxes(%q, %d) = %s; want %s", c.s, c.rank, got, c.want)
		}
	}
}

// TestCeilMode: --ceil-mode follows ONNX and PyTorch, dropping a last
// window that would start in the end padding.
func TestCeilMode(t *testing.T) {
	for _, c := range []struct {
		in, w, s, pad uint32
		ceil          bool
		want          uint32
	}{
		{5, 2, 2, 0, false, 2}, {5, 2, 2, 0, true, 3}, {4, 2, 2, 0, true, 2},
		{5, 3, 2, 1, true, 3}, // floor((5+2-3)/2)+1 = 3 already
		{6, 3, 2, 1, true, 4}, // ceil gives 4; the 4th window starts at 6-1=5 < 6+1: kept
		{2, 1, 2, 1, true, 2}, // ceil gives 3; the 3rd starts at 4 >= 2+1: dropped
	} {
		got, err := poolExtent(0, c.in, c.w, c.s, c.pad, c.pad, 1, c.ceil)
		if err != nil || got != c.want {
			t.Errorf("in %d window %d stride %d pad %d ceil %v: %d %v; want %d", c.in, c.w, c.s, c.pad, c.ceil, got, err, c.want)
		}
	}
}

// TestPoolExtentErrors: an output extent of 0 and one above 2^32-1 are
// both usage errors, each saying what happened.
func TestPoolExtentErrors(t *testing.T) {
	for _, c := range []struct {
		name               string
		in, w, s, a, b, dl uint32
		want               string
	}{
		{"window over the padded input", 3, 5, 1, 0, 0, 1, "empty"},
		{"padding past 2^32-1", 1<<32 - 1, 1, 1, 1<<32 - 1, 0, 1, "2^32-1"},
	} {
		_, err := poolExtent(0, c.in, c.w, c.s, c.a, c.b, c.dl, false)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a usage error saying %q", c.name, err, c.want)
		}
	}
}
