package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

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
