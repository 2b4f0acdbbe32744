package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/onnx"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// requiredMaxPool are the data sets vkdml must reproduce; the other
// maxpool sets of the package run too when they map onto MAX_POOLING2.
var requiredMaxPool = []string{"test_maxpool_2d_dilations", "test_maxpool_with_argmax_2d_precomputed_pads"}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// maxPoolFlags turns an ONNX MaxPool node into `vkdml run maxpool` flags
// for an input with the given spatial extents, or says why it cannot.
func maxPoolFlags(n *onnx.Node, spatial []uint32) ([]string, error) {
	dims := len(spatial)
	ones := slices.Repeat([]int64{1}, dims)
	k := n.Ints("kernel_shape", nil)
	s := n.Ints("strides", ones)
	d := n.Ints("dilations", ones)
	pads := n.Ints("pads", make([]int64, 2*dims))
	if len(k) != dims || len(s) != dims || len(d) != dims || len(pads) != 2*dims {
		return nil, fmt.Errorf("attribute lengths do not match %d spatial axes", dims)
	}
	if so := n.Int("storage_order", 0); so != 0 {
		return nil, fmt.Errorf("storage_order %d (column-major indices) has no DirectML equivalent", so)
	}
	start, end := slices.Clone(pads[:dims]), slices.Clone(pads[dims:])
	out := make([]int64, dims)
	ceil := n.Int("ceil_mode", 0) != 0
	switch ap := n.String("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		for i := range out {
			out[i] = int64(dml.MaxPoolOutputSize(spatial[i], uint32(k[i]), uint32(s[i]), uint32(start[i]), uint32(end[i]), uint32(d[i]), ceil))
		}
	case "VALID":
		for i := range out {
			start[i], end[i] = 0, 0
			out[i] = int64(dml.MaxPoolOutputSize(spatial[i], uint32(k[i]), uint32(s[i]), 0, 0, uint32(d[i]), false))
		}
	case "SAME_UPPER", "SAME_LOWER":
		for i := range out {
			in := int64(spatial[i])
			out[i] = (in + s[i] - 1) / s[i]
			total := max((out[i]-1)*s[i]+(k[i]-1)*d[i]+1-in, 0)
			start[i], end[i] = total/2, total-total/2
			if ap == "SAME_LOWER" {
				start[i], end[i] = end[i], start[i]
			}
		}
	default:
		return nil, fmt.Errorf("auto_pad %q", ap)
	}
	return []string{"--window", joinInts(k), "--strides", joinInts(s), "--dilations", joinInts(d),
		"--start-padding", joinInts(start), "--end-padding", joinInts(end), "--output-size", joinInts(out)}, nil
}

// reshape4D gives a 3D (1D pooling) tensor a unit H axis, as ONNX Runtime
// does before calling DirectML.
func reshape4D(t *tensor.Tensor) *tensor.Tensor {
	s := t.Desc.Sizes
	sizes := []uint32{s[0], s[1], 1, s[2]}
	return &tensor.Tensor{Desc: tensor.NewDesc(t.Desc.DataType, sizes), Data: t.Data}
}

func TestONNXMaxPool(t *testing.T) {
	onnxNodeData := onnxData(t)
	if _, err := os.Stat(filepath.Join(onnxNodeData, requiredMaxPool[0])); err != nil {
		t.Fatalf("%s lacks %s: %v", onnxNodeData, requiredMaxPool[0], err)
	}
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips, or fails under CI, without a device
	bin := vkdmlBin(t)

	sets, _ := filepath.Glob(filepath.Join(onnxNodeData, "test_maxpool_*"))
	ran := map[string]bool{}
	for _, dir := range sets {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			g, err := onnx.ReadModel(filepath.Join(dir, "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Nodes) != 1 || g.Nodes[0].OpType != "MaxPool" {
				t.Fatalf("not a single MaxPool node: %+v", g.Nodes)
			}
			node := &g.Nodes[0]
			data, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
			for _, ds := range data {
				x, _, err := onnx.ReadTensor(filepath.Join(ds, "input_0.pb"))
				if err != nil {
					t.Fatal(err)
				}
				y, _, err := onnx.ReadTensor(filepath.Join(ds, "output_0.pb"))
				if err != nil {
					t.Fatal(err)
				}
				if x.Desc.Rank() == 3 {
					x, y = reshape4D(x), reshape4D(y)
				}
				pool := node
				if len(node.Ints("kernel_shape", nil)) == 1 {
					// 1D attributes on the reshaped input: the unit H axis pools 1:1.
					pool = &onnx.Node{Attributes: prependUnitAxis(node.Attributes)}
				}
				flags, err := maxPoolFlags(pool, x.Desc.Sizes[2:])
				if err != nil {
					if slices.Contains(requiredMaxPool, name) {
						t.Fatal(err)
					}
					t.Skip(err)
				}
				tmp := t.TempDir()
				in, out, idx := filepath.Join(tmp, "x.npy"), filepath.Join(tmp, "y.npy"), filepath.Join(tmp, "z.npy")
				if err := tensor.WriteNpyFile(in, x); err != nil {
					t.Fatal(err)
				}
				args := append([]string{"run", "maxpool", "--debug"}, flags...)
				var z *tensor.Tensor
				if len(node.Outputs) > 1 {
					if z, _, err = onnx.ReadTensor(filepath.Join(ds, "output_1.pb")); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--indices", idx, "--index-type", "uint64")
				}
				args = append(args, in, out)
				cmd := exec.Command(bin, args...)
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("vkdml %s: %v\n%s", strings.Join(args, " "), err, msg)
				}
				got, err := tensor.ReadNpyFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Desc.Sizes, y.Desc.Sizes) || got.Desc.DataType != y.Desc.DataType || string(got.ToPacked().Data) != string(y.ToPacked().Data) {
					t.Fatalf("vkdml %s:\ngot  %v %v\nwant %v %v", strings.Join(args, " "), got.Desc, got.Float64s(), y.Desc, y.Float64s())
				}
				if z != nil {
					gi, err := tensor.ReadNpyFile(idx)
					if err != nil {
						t.Fatal(err)
					}
					want := make([]uint64, 0, z.Desc.ElementCount())
					for _, v := range z.Int64s() { // ONNX's INT64 indices: flat over N,C,H,W (storage_order 0)
						want = append(want, uint64(v))
					}
					if !slices.Equal(gi.Uint64s(), want) {
						t.Fatalf("indices:\ngot  %v\nwant %v", gi.Uint64s(), want)
					}
				}
				t.Logf("vkdml %s: %d outputs match", strings.Join(flags, " "), len(node.Outputs))
				ran[name] = true
			}
		})
	}
	for _, r := range requiredMaxPool {
		if !ran[r] {
			t.Errorf("required data set %s did not run", r)
		}
	}
}

// prependUnitAxis gives a 1D node's spatial attributes a leading unit axis.
func prependUnitAxis(attrs []onnx.Attribute) []onnx.Attribute {
	out := make([]onnx.Attribute, len(attrs))
	for i, a := range attrs {
		out[i] = a
		switch a.Name {
		case "kernel_shape", "strides", "dilations":
			out[i].Ints = append([]int64{1}, a.Ints...)
		case "pads": // [begin..., end...]
			out[i].Ints = []int64{0, a.Ints[0], 0, a.Ints[1]}
		}
	}
	return out
}
