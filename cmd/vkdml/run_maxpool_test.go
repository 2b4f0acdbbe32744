package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

func writeNpy(t *testing.T, dir, name string, x *tensor.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := tensor.WriteNpyFile(p, x); err != nil {
		t.Fatal(err)
	}
	return p
}

func readNpy(t *testing.T, p string) *tensor.Tensor {
	t.Helper()
	x, err := tensor.ReadNpyFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestRunMaxPool(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips (or fails under CI) without a device
	dir := t.TempDir()
	vals := make([]float32, 16)
	for i := range vals {
		vals[i] = float32(i)
	}
	in := writeNpy(t, dir, "in.npy", tensor.FromFloat32([]uint32{1, 1, 4, 4}, vals))
	out, idx := filepath.Join(dir, "out.npy"), filepath.Join(dir, "idx.npy")

	cases := []struct {
		name    string
		args    []string
		sizes   []uint32
		values  []float64
		indices []uint64
		idxType tensor.DataType
	}{
		{"dilation 2, floor extent", []string{"--window", "2,2", "--dilations", "2"}, []uint32{1, 1, 2, 2},
			[]float64{10, 11, 14, 15}, []uint64{10, 11, 14, 15}, tensor.UInt32},
		{"dilation 2, 3x3 output, flags after files", []string{"--window", "2", "--dilations", "2,2", "--output-size", "3,3", "--index-type", "uint64"}, []uint32{1, 1, 3, 3},
			[]float64{10, 11, 10, 14, 15, 14, 10, 11, 10}, []uint64{10, 11, 10, 14, 15, 14, 10, 11, 10}, tensor.UInt64},
		{"3x3 stride 2 padding 1", []string{"--window", "3,3", "--strides", "2,2", "--start-padding", "1,1", "--end-padding", "1,1"}, []uint32{1, 1, 2, 2},
			[]float64{5, 7, 13, 15}, []uint64{5, 7, 13, 15}, tensor.UInt32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "maxpool", "--debug", "--indices", idx}, c.args...)
			if strings.Contains(c.name, "after files") {
				args = append([]string{"run", "maxpool", in, out, "--debug", "--indices", idx}, c.args...)
			} else {
				args = append(args, in, out)
			}
			code, stdout, stderr := vkdml(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, stdout, stderr)
			}
			y, z := readNpy(t, out), readNpy(t, idx)
			if !slices.Equal(y.Desc.Sizes, c.sizes) || !slices.Equal(y.Float64s(), c.values) {
				t.Errorf("output %v %v, want %v %v", y.Desc, y.Float64s(), c.sizes, c.values)
			}
			if z.Desc.DataType != c.idxType || !slices.Equal(z.Uint64s(), c.indices) {
				t.Errorf("indices %v %v, want %v %v", z.Desc, z.Uint64s(), c.idxType, c.indices)
			}
		})
	}

	t.Run("no indices", func(t *testing.T) {
		out2 := filepath.Join(dir, "out2.npy")
		if code, _, stderr := vkdml("run", "maxpool", "--window", "1", "--start-padding", "1,0", in, out2); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		y := readNpy(t, out2)
		if !slices.Equal(y.Desc.Sizes, []uint32{1, 1, 5, 4}) || y.Float64s()[0] != -math.MaxFloat32 || y.Float64s()[4] != 0 {
			t.Errorf("got %v %v", y.Desc, y.Float64s())
		}
	})
}

func TestRunMaxPoolErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeNpy(t, dir, "in.npy", tensor.FromFloat32([]uint32{1, 1, 4, 4}, make([]float32, 16)))
	in3 := writeNpy(t, dir, "in3.npy", tensor.FromFloat32([]uint32{1, 4, 4}, make([]float32, 16)))
	out := filepath.Join(dir, "out.npy")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no window", []string{in, out}, 2, "--window is required"},
		{"one file", []string{"--window", "2", in}, 2, "want IN.npy OUT.npy"},
		{"bad list", []string{"--window", "2,x", in, out}, 2, "not a list of unsigned integers"},
		{"list length", []string{"--window", "2,2,2", in, out}, 2, "--window has 3 values"},
		{"rank 3", []string{"--window", "2", in3, out}, 2, "4D (N,C,H,W) or 5D"},
		{"empty output", []string{"--window", "3", "--dilations", "2", in, out}, 2, "output would be empty"},
		{"index type", []string{"--window", "2", "--index-type", "int64", in, out}, 2, "want uint32 or uint64"},
		{"missing input", []string{"--window", "2", filepath.Join(dir, "nope.npy"), out}, 1, "nope.npy"},
		{"same output twice", []string{"--window", "2", "--indices", out, in, out}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.code == 0 { // needs a device to get as far as writing
				testutil.OpenDML(t, dml.DeviceOptions{})
				c.code, c.want = 2, "named twice"
			}
			code, _, stderr := vkdml(append([]string{"run", "maxpool"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
	t.Run("zero stride reaches validation", func(t *testing.T) {
		testutil.OpenDML(t, dml.DeviceOptions{})
		code, _, stderr := vkdml("run", "maxpool", "--window", "2", "--strides", "0", "--output-size", "2", in, out)
		if code != 1 || !strings.Contains(stderr, "Strides[0]") || !strings.Contains(stderr, "E_INVALIDARG") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

func TestDemoMaxPool(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	for _, c := range operators.Demos() {
		if !strings.HasPrefix(c.Title, "MAX_POOLING") {
			continue
		}
		var b bytes.Buffer
		if err := c.Run(d, &b); err != nil {
			t.Errorf("%s: %v\n%s", c.Title, err, b.String())
		}
		t.Logf("%s\n%s", c.Title, b.String())
	}
}
