package main

import (
	"bytes"
	"fmt"
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

// writeFortranNpy writes x (packed, C order) as the Fortran-order file
// dir/name and returns its path: the header says fortran_order True and the
// data is column-major.
func writeFortranNpy(t *testing.T, dir, name string, x *tensor.Tensor) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var b bytes.Buffer
	if err := tensor.WriteNpy(&b, x); err != nil {
		t.Fatal(err)
	}
	file := b.Bytes()
	hdrEnd := bytes.IndexByte(file, '\n') + 1
	hdr := bytes.Replace(file[:hdrEnd], []byte("'fortran_order': False"), []byte("'fortran_order': True "), 1)
	col := &tensor.Tensor{Desc: tensor.NewStridedDesc(x.Desc.DataType, x.Desc.Sizes, fortranStrides(x.Desc.Sizes))}
	col.Data = make([]byte, col.Desc.TotalTensorSizeInBytes)
	tensor.ForEachIndex(x.Desc.Sizes, func(c []uint32) { col.SetBits(c, x.Bits(c...)) })
	if err := os.WriteFile(path, append(hdr, col.Data[:x.Desc.ElementCount()*uint64(x.Desc.DataType.Size())]...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fortranStrides(sizes []uint32) []uint32 {
	s := make([]uint32, len(sizes))
	n := uint32(1)
	for i := range sizes {
		s[i] = n
		n *= sizes[i]
	}
	return s
}

// TestRunArg answers the seed pages' examples from .npy files, with flags
// before or after the files, every index type, both directions, and a
// Fortran-order input.
func TestRunArg(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips (or fails under CI) without a device
	dir := t.TempDir()
	page := tensor.FromFloat32([]uint32{3, 3}, []float32{1, 2, 3, 3, 0, 4, 2, 5, 2})
	in := writeNpy(t, dir, "in.npy", page)
	fortran := writeFortranNpy(t, dir, "fortran.npy", page)
	if f := readNpy(t, fortran); f.Desc.IsPacked() {
		t.Fatalf("the Fortran-order file reads back packed: %v", f.Desc)
	}
	dirIn := writeNpy(t, dir, "dir.npy", tensor.FromFloat32([]uint32{5}, []float32{3, 2, 1, 2, 3}))
	out := filepath.Join(dir, "out.npy")

	cases := []struct {
		args  []string
		sizes []uint32
		dt    tensor.DataType
		want  []uint64
	}{
		{[]string{"argmax", "--axes", "0", in, out}, []uint32{1, 3}, tensor.UInt32, []uint64{1, 2, 1}},
		{[]string{"argmax", in, out, "--axes", "1"}, []uint32{3, 1}, tensor.UInt32, []uint64{2, 2, 1}},
		{[]string{"argmax", "--axes=1,0", in, out, "--index-type", "int64"}, []uint32{1, 1}, tensor.Int64, []uint64{7}},
		{[]string{"argmin", "--axes", "0", in, out, "--index-type", "uint64"}, []uint32{1, 3}, tensor.UInt64, []uint64{0, 1, 2}},
		{[]string{"argmin", in, "--axes", "1", out, "--index-type", "int32"}, []uint32{3, 1}, tensor.Int32, []uint64{0, 1, 0}},
		{[]string{"argmin", "--axes", "0,1", in, out}, []uint32{1, 1}, tensor.UInt32, []uint64{4}},
		{[]string{"argmax", "--axes", "0", fortran, out}, []uint32{1, 3}, tensor.UInt32, []uint64{1, 2, 1}},
		{[]string{"argmin", "--axes", "1", fortran, out}, []uint32{3, 1}, tensor.UInt32, []uint64{0, 1, 0}},
		{[]string{"argmax", "--axes", "0", dirIn, out}, []uint32{1}, tensor.UInt32, []uint64{0}},
		{[]string{"argmax", "--axes", "-1", in, out}, []uint32{3, 1}, tensor.UInt32, []uint64{2, 2, 1}},
		{[]string{"argmin", "--axes=-2,-1", in, out}, []uint32{1, 1}, tensor.UInt32, []uint64{4}},
		{[]string{"argmax", "--axes", "-1", dirIn, out}, []uint32{1}, tensor.UInt32, []uint64{0}},
		{[]string{"argmax", "--axes", "0", "--direction", "decreasing", dirIn, out}, []uint32{1}, tensor.UInt32, []uint64{4}},
	}
	for _, c := range cases {
		os.Remove(out)
		args := append([]string{"run"}, c.args...)
		args = append(args, "--debug")
		code, _, stderr := vkdml(args...)
		if code != 0 {
			t.Fatalf("vkdml %v: exit %d: %s", args, code, stderr)
		}
		got := readNpy(t, out)
		if got.Desc.DataType != c.dt || !slices.Equal(got.Desc.Sizes, c.sizes) || !slices.Equal(got.Uint64s(), c.want) {
			t.Errorf("vkdml %v: got %v %v, want %v %v %v", args, got.Desc, got.Uint64s(), c.dt, c.sizes, c.want)
		}
	}
}

// TestRunArgErrors: bad flags and arguments exit non-zero with a clear
// message, and no output file appears.
func TestRunArgErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeNpy(t, dir, "in.npy", tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	out := filepath.Join(dir, "out.npy")
	idx := filepath.Join(dir, "idx.npy")
	i8 := writeNpy(t, dir, "i8.npy", tensor.FromInt64As(tensor.Int8, []uint32{3}, []int64{1, 2, 3}))
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"argmax", in, out}, "--axes is required"},
		{[]string{"reduce", "--axes", "0", in, out}, `--function "": want one of`},
		{[]string{"reduce", "--function", "sum", "--axes", "0", i8, out}, "INT8 is not supported by REDUCE DML_REDUCE_FUNCTION_SUM"},
		{[]string{"reduce", "--function", "average", "--axes", "0", i8, out}, "E_INVALIDARG"},
		// topk's errors name its own flags: --axis (not --axes), --k.
		{[]string{"topk", in, out, idx}, "--k is required"},
		{[]string{"topk", "--k", "2", "--axis", "2", in, out, idx}, `--axis "2": axis 2 is out of range for a rank-2 input`},
		{[]string{"topk", "--k", "2", "--axis", "", in, out, idx}, "--axis is required"},
		{[]string{"topk", "--k", "2", "--axis", "x", in, out, idx}, `--axis "x": "x" is not an integer`},
		{[]string{"topk", "--k", "2", "--axis", "0,1", in, out, idx}, `--axis "0,1": give one axis`},
		{[]string{"topk", "--k", "4", in, out, idx}, "K: 4 is larger than InputTensor.Sizes[1] = 3"},
		{[]string{"topk", "--k", "2", "--index-type", "int32", in, out, idx}, "want uint32 or uint64"},
		{[]string{"topk", "--k", "2", in, out}, "want IN.npy"},
		{[]string{"argmax", "--axes", "", in, out}, "--axes is required"},
		{[]string{"argmax", "--axes", "x", in, out}, "not an integer"},
		{[]string{"argmax", "--axes", "-3", in, out}, "out of range for a rank-2 input (axes are -2..1)"},
		{[]string{"argmax", "--axes", "2", in, out}, "out of range for a rank-2 input"},
		{[]string{"argmin", "--axes", "0", "--direction", "up", in, out}, "--direction"},
		{[]string{"argmin", "--axes", "0", "--index-type", "float32", in, out}, "--index-type"},
		{[]string{"argmin", "--axes", "0", "--index-type", "uint16", in, out}, "--index-type"},
		{[]string{"argmax", "--axes", "0", in}, "want IN.npy OUT.npy"},
		{[]string{"argmax", "--axes", "0", in, out, "extra.npy"}, "want IN.npy OUT.npy"},
		{[]string{"argmax", "--axes", "0", filepath.Join(dir, "missing.npy"), out}, "missing.npy"},
		{[]string{"argmax", "--bogus", "0", in, out}, "bogus"},
		{[]string{"argmax", "--axes", "0", in, filepath.Join(dir, "no-such-dir", "out.npy")}, "no-such-dir"},
	}
	for _, c := range cases {
		args := append([]string{"run"}, c.args...)
		code, _, stderr := vkdml(args...)
		if code == 0 || !strings.Contains(stderr, c.msg) {
			if strings.Contains(stderr, "no usable Vulkan device") {
				testutil.NoDevice(t, stderrError(stderr))
			}
			t.Errorf("vkdml %v: exit %d, stderr %q; want non-zero and %q", args, code, stderr, c.msg)
		}
		for _, f := range []string{out, idx} {
			if _, err := os.Stat(f); err == nil {
				t.Fatalf("vkdml %v: wrote %s despite failing", args, f)
			}
		}
		matches, _ := filepath.Glob(filepath.Join(dir, ".*tmp"))
		if len(matches) > 0 {
			t.Fatalf("vkdml %v: left temporary files %v", args, matches)
		}
	}
}

// TestDemoArg: `vkdml demo` prints the pages' examples and they match.
func TestDemoArg(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{})
	code, stdout, stderr := vkdml("demo", "--debug")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		"[[1,  // argmax({1, 3, 2})\n  2,  // argmax({2, 0, 5})\n  1]] // argmax({3, 4, 2})",
		"[[0], // argmin({1, 2, 3})\n [1], // argmin({3, 0, 4})\n [0]] // argmin({2, 5, 2})",
		"[[7]] // argmax({1, 2, 3, 3, 0, 4, 2, 5, 2})",
		"[[4]] // argmin({1, 2, 3, 3, 0, 4, 2, 5, 2})",
		"AxisDirection: DML_AXIS_DIRECTION_DECREASING\nOutputTensor: (Sizes:[1], DataType:UINT32)\n[4]  // argmax({3, 2, 1, 2, 3})",
		"AxisDirection: DML_AXIS_DIRECTION_DECREASING\nOutputTensor: (Sizes:[1], DataType:UINT32)\n[4]  // argmin({1, 2, 3, 2, 1})",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
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

// TestRunMaxUnpool: `vkdml run maxunpool --output-shape N,C,H,W X.npy
// I.npy OUT.npy` reads both inputs in binding order and writes the
// unpooled values; a missing --output-shape or input file, and INT32
// indices, are refused naming what is wrong.
func TestRunMaxUnpool(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips (or fails under CI) without a device
	dir := t.TempDir()
	x := writeNpy(t, dir, "x.npy", tensor.FromFloat32([]uint32{1, 2, 1, 2}, []float32{1, 2, 3, 4}))
	i := writeNpy(t, dir, "i.npy", tensor.FromUint64As(tensor.UInt64, []uint32{1, 2, 1, 2}, []uint64{7, 5, 5, 4000000000}))
	out := filepath.Join(dir, "out.npy")
	if code, _, stderr := vkdml("run", "maxunpool", "--output-shape", "1,2,2,2", x, i, out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	y := readNpy(t, out)
	if !slices.Equal(y.Desc.Sizes, []uint32{1, 2, 2, 2}) || !slices.Equal(y.Float64s(), []float64{0, 0, 0, 0, 0, 3, 0, 1}) {
		t.Errorf("got %v %v", y.Desc.Sizes, y.Float64s())
	}
	i32 := writeNpy(t, dir, "i32.npy", tensor.FromInt64As(tensor.Int32, []uint32{1, 2, 1, 2}, []int64{0, 1, 2, 3}))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{x, i, out}, 2, "--output-shape"},
		{[]string{"--output-shape", "2,2,2", x, i, out}, 2, "--output-shape"},
		{[]string{"--output-shape", "1,2,2,2", x, out}, 2, "IN1.npy IN2.npy OUT.npy"},
		{[]string{"--output-shape", "1,2,2,2", x, i32, out}, 1, "IndicesTensor.DataType"},
	} {
		code, _, stderr := vkdml(append([]string{"run", "maxunpool"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestRunKernelSameBits runs REDUCE SUM under every strategy the case
// admits, forced with --kernel (and one with --tune), and requires the
// output files to be byte-identical to the unforced run's: a FLOAT32 sum
// of cancelling terms of random magnitudes, which the scalar strategies
// run (vec is refused: TestRunKernelErrors), and an INT32 sum under vec
// (vec-col), which the float one cannot run.
func TestRunKernelSameBits(t *testing.T) {
	testutil.OpenDML(t, dml.DeviceOptions{}) // skips (or fails under CI) without a device
	rng := testutil.Rand(t)
	dir := t.TempDir()
	const rows, cols = 64, 8
	f := make([]float32, rows*cols)
	ints := make([]int64, rows*cols)
	for i := range f {
		f[i] = float32(math.Ldexp(rng.Float64()-0.5, rng.Intn(80)-40))
		if i%cols == 0 && i >= cols { // a column's cancelling partner
			f[i] = -f[i-cols]
		}
		ints[i] = rng.Int63n(1<<32) - 1<<31
	}
	floatIn := tensor.FromFloat32([]uint32{rows, cols}, f)
	cases := []struct {
		name    string
		in      *tensor.Tensor
		kernels []string
	}{
		{"float32", floatIn, []string{"thread", "group", "splitk", "splitk --tune computeUnits=1"}},
		{"int32", tensor.FromInt64As(tensor.Int32, []uint32{rows, cols}, ints), []string{"vec"}},
	}
	for _, c := range cases {
		in := writeNpy(t, dir, c.name+".npy", c.in)
		runs := [][]string{nil}
		for _, k := range c.kernels {
			runs = append(runs, append([]string{"--kernel"}, strings.Fields(k)...))
		}
		var first []byte
		for i, flags := range runs {
			out := filepath.Join(dir, c.name+"-"+strings.Join(flags, "")+".npy")
			args := append([]string{"run", "reduce", "--function", "sum", "--axes", "0"}, flags...)
			if code, _, stderr := vkdml(append(args, in, out)...); code != 0 {
				t.Fatalf("vkdml %v: exit %d: %s", args, code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b
				checkReduceReference(t, c.in, readNpy(t, out))
			} else if !bytes.Equal(b, first) {
				t.Errorf("%s: %v wrote %v, the unforced run %v", c.name, flags, readNpy(t, out).Float64s(), readNpy(t, filepath.Join(dir, c.name+"-.npy")).Float64s())
			}
		}
	}
}

// checkReduceReference holds the unforced run's output to the CPU
// reference of SUM over axis 0, so that byte-identical files are also
// the right ones.
func checkReduceReference(t *testing.T, in, got *tensor.Tensor) {
	t.Helper()
	desc, err := operators.ReduceDesc(in.Desc, "sum", "0", "")
	if err != nil {
		t.Fatal(err)
	}
	out := desc.Outputs()[0]
	ref := &tensor.Tensor{Desc: out.Clone(), Data: make([]byte, out.TotalTensorSizeInBytes)}
	if err := desc.(*dml.Reduce).Reference([]*tensor.Tensor{in}, []*tensor.Tensor{ref}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ref.Data, got.ToPacked().Data) {
		t.Errorf("%v: got %v, the CPU reference %v", in.Desc.DataType, got.Float64s(), ref.Float64s())
	}
}

// TestRunKernelErrors: an unknown strategy, all (bench's alone), a
// strategy that cannot run the case and a malformed --tune are usage
// errors (exit 2) naming the flag and the rule, and write nothing.
func TestRunKernelErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeNpy(t, dir, "in.npy", tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	row := make([]float32, 20)
	for i := range row {
		row[i] = float32(i % 7)
	}
	long := writeNpy(t, dir, "row.npy", tensor.FromFloat32([]uint32{1, 20}, row))
	out := filepath.Join(dir, "out.npy")
	sum := []string{"reduce", "--function", "sum", "--axes", "0"}
	cases := []struct {
		args []string
		msg  []string
	}{
		{append(sum, "--kernel", "bogus", in, out), []string{`--kernel "bogus" is not a strategy of reduce (strategies: thread, group, splitk, vec)`}},
		{append(sum, "--kernel", "all", in, out), []string{`--kernel "all" is not a strategy of reduce`}},
		{append(sum, "--kernel", "vec", in, out), []string{"--kernel vec cannot run this REDUCE", "only SUM, AVERAGE, L1, LOG_SUM, SUM_SQUARE, L2 and MULTIPLY of FLOAT16 columns", "would run thread"}},
		{[]string{"topk", "--k", "17", "--axis", "1", "--kernel", "lane", long, out, filepath.Join(dir, "idx.npy")}, []string{"--kernel lane", `strategy "lane" keeps lists of at most 16 entries; K is 17`}},
		{append(sum, "--tune", "argColLoads", in, out), []string{"--tune", `"argColLoads" is not key=value`}},
		{append(sum, "--tune", "nosuchknob=1", in, out), []string{"--tune", `unknown knob "nosuchknob"`}},
		{append(sum, "--tune", "argColLoads=3", in, out), []string{"--tune", "argColLoads", "want one of 0, 1, 4"}},
	}
	for _, c := range cases {
		args := append([]string{"run"}, c.args...)
		code, _, stderr := vkdml(args...)
		if strings.Contains(stderr, "no usable Vulkan device") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		for _, m := range c.msg {
			if code != 2 || !strings.Contains(stderr, m) {
				t.Errorf("vkdml %v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr, m)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("vkdml %v: wrote %s despite failing", args, out)
		}
	}
}

// TestRunForcingExamples: each operator's `vkdml run OP -h` shows its own
// --kernel example (not another operator's), with strategies it has, and
// the example's two runs write the same bytes (under -short, topk's only).
func TestRunForcingExamples(t *testing.T) {
	dir := t.TempDir()
	vals := make([]float32, 4*64)
	for i := range vals {
		vals[i] = float32((i*37)%101) - 50
	}
	inputs := map[string]string{
		"matrix":  writeNpy(t, dir, "m.npy", tensor.FromFloat32([]uint32{4, 64}, vals)),
		"maxpool": writeNpy(t, dir, "p.npy", tensor.FromFloat32([]uint32{1, 4, 8, 8}, vals)),
	}
	for _, name := range operators.Names() {
		op, _ := operators.Lookup(name)
		_, help, _ := vkdml("run", name, "-h")
		ex, ok := runForcingExamples[name]
		if !ok {
			if len(op.Kernels()) > 1 {
				t.Errorf("run %s -h: no --kernel example for an operator of strategies %v", name, op.Kernels())
			}
			continue
		}
		runs := 0
		for _, line := range strings.Split(help, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "vkdml" && f[1] == "run" && slices.Contains(f, "--kernel") {
				runs++
				if f[2] != name {
					t.Errorf("run %s -h: example %q runs another operator", name, line)
				}
			}
		}
		if runs != 2 {
			t.Errorf("run %s -h: %d example runs with --kernel; want 2:\n%s", name, runs, help)
		}
		if testing.Short() && name != "topk" { // -short runs one example (CI time)
			continue
		}
		in := inputs["matrix"]
		if name == "maxpool" {
			in = inputs["maxpool"]
		}
		var outs [2][]string
		for i, k := range ex.kernels {
			if !slices.Contains(op.Kernels(), k) {
				t.Fatalf("run %s -h: example kernel %q is none of %v", name, k, op.Kernels())
			}
			for j := 0; j < op.RequiredOutputs(); j++ {
				outs[i] = append(outs[i], filepath.Join(dir, fmt.Sprintf("%s_%s_%d.npy", name, k, j)))
			}
			args := append(append([]string{"run", name}, strings.Fields(ex.flags)...), "--kernel", k, in)
			if code, _, stderr := vkdml(append(args, outs[i]...)...); code != 0 {
				if strings.Contains(stderr, "no usable Vulkan device") {
					testutil.NoDevice(t, stderrError(stderr))
				}
				t.Fatalf("vkdml %v: exit %d: %s", args, code, stderr)
			}
		}
		for j := range outs[0] {
			a, errA := os.ReadFile(outs[0][j])
			b, errB := os.ReadFile(outs[1][j])
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("run %s %s: --kernel %s and %s wrote different files (%v, %v)", name, ex.flags, ex.kernels[0], ex.kernels[1], errA, errB)
			}
		}
	}
}
