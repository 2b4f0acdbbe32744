package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

func argWriteNpy(t *testing.T, path string, x *tensor.Tensor) {
	t.Helper()
	if err := tensor.WriteNpyFile(path, x); err != nil {
		t.Fatal(err)
	}
}

// argWriteFortranNpy writes x (packed, C order) as a Fortran-order file:
// the header says fortran_order True and the data is column-major.
func argWriteFortranNpy(t *testing.T, path string, x *tensor.Tensor) {
	t.Helper()
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
	in := filepath.Join(dir, "in.npy")
	argWriteNpy(t, in, page)
	fortran := filepath.Join(dir, "fortran.npy")
	argWriteFortranNpy(t, fortran, page)
	if f := readNpy(t, fortran); f.Desc.IsPacked() {
		t.Fatalf("the Fortran-order file reads back packed: %v", f.Desc)
	}
	dirIn := filepath.Join(dir, "dir.npy")
	argWriteNpy(t, dirIn, tensor.FromFloat32([]uint32{5}, []float32{3, 2, 1, 2, 3}))
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
	in := filepath.Join(dir, "in.npy")
	argWriteNpy(t, in, tensor.FromFloat32([]uint32{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	out := filepath.Join(dir, "out.npy")
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"argmax", in, out}, "--axes is required"},
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
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("vkdml %v: wrote %s despite failing", args, out)
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
