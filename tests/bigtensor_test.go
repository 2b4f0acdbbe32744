package tests

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// runBig runs desc once on host tensors and compares every output with the
// CPU reference, byte for byte (no poisoned copies: the tensors are big).
func runBig(t *testing.T, d *dml.Device, desc dml.OperatorDesc, kernel string, in *tensor.Tensor) string {
	t.Helper()
	start := time.Now()
	op, err := d.CreateOperatorWithKernel(desc, kernel)
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]*tensor.Tensor, len(desc.Outputs()))
	want := make([]*tensor.Tensor, len(outs))
	for i, od := range desc.Outputs() {
		if od != nil {
			outs[i] = &tensor.Tensor{Desc: od.Clone(), Data: bytes.Repeat([]byte{0xA7}, int(od.TotalTensorSizeInBytes))}
			want[i] = &tensor.Tensor{Desc: od.Clone(), Data: bytes.Repeat([]byte{0xA7}, int(od.TotalTensorSizeInBytes))}
		}
	}
	if err := d.RunOperator(op, []*tensor.Tensor{in}, outs); err != nil {
		t.Fatalf("%s: %v", desc.OperatorType(), err)
	}
	gpuTime := time.Since(start)
	start = time.Now()
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		t.Fatal(err)
	}
	for i := range outs {
		if outs[i] != nil && !bytes.Equal(want[i].Data, outs[i].Data) {
			t.Fatalf("%s %v (%s): output %d differs from the reference:\n%s", desc.OperatorType(), in.Desc, op.Strategy(), i, testutil.DiffTensors(want[i], outs[i], 8))
		}
	}
	t.Logf("%s %v: %s, device %v, reference %v", desc.OperatorType(), in.Desc.Sizes, op.Strategy(), gpuTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	return op.Strategy()
}

// TestBigMaxPool pools FLOAT32 tensors larger than one storage binding's
// range (maxStorageBufferRange: 128 MiB on lavapipe), with indices, and
// compares every output element with the CPU reference. In "split-c" one
// batch holds 17 channel planes of 8 MiB, so the planner must cut it into
// runs of channels; in "split-n" each batch fits one binding but the
// tensor does not, so it runs batch by batch.
func TestBigMaxPool(t *testing.T) {
	if testing.Short() {
		t.Skip("inputs over 128 MiB: skipped with -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	lim := uint64(d.GPU().Limits.MaxStorageBufferRange)
	const h, w = 1024, 2048
	plane := uint64(h * w * 4)
	for _, c := range []struct {
		name   string
		sizes  []uint32
		prefix string
	}{
		{"split-c", []uint32{1, uint32(lim/plane + 1), h, w}, "split-c"},
		{"split-n", []uint32{uint32(lim/(6*plane) + 1), 6, h, w}, "split-n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, c.sizes)}
			if n := in.Desc.TotalTensorSizeInBytes; n <= lim || n > 1<<30 {
				t.Skipf("maxStorageBufferRange %d: the input of %d bytes must exceed it and stay under 1 GiB", lim, n)
			}
			in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
			// Small integers: many ties inside windows (the first in window
			// order wins), negative values, and -0 beside +0.
			x := uint32(2463534242)
			for i := 0; i < len(in.Data); i += 4 {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				v := float32(int(x%41) - 20)
				if x%97 == 0 {
					v = float32(math.Copysign(0, -1))
				}
				bits := math.Float32bits(v)
				in.Data[i], in.Data[i+1], in.Data[i+2], in.Data[i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
			}
			out := []uint32{c.sizes[0], c.sizes[1], h / 2, w / 2}
			idx := tensor.NewDesc(tensor.UInt64, out)
			desc := &dml.MaxPooling2{Input: in.Desc, Output: tensor.NewDesc(tensor.Float32, out), OutputIndices: &idx,
				Strides: []uint32{2, 2}, WindowSize: []uint32{3, 2}, StartPadding: []uint32{1, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}
			if s := runBig(t, d, desc, "", in); len(s) < len(c.prefix) || s[:len(c.prefix)] != c.prefix {
				t.Errorf("strategy %q, want %s...: a tensor over the binding range must be split", s, c.prefix)
			}
		})
	}
}

// TestArgMaxOver2To31 reduces a block of 2^31 + 2^9 elements, exactly,
// through a broadcast input of 512 INT16 values: sizes {2^22+1, 2, 256}
// with strides {0, 256, 1}. The largest value sits only in the second
// row, so its occurrences are at r·512 + 256 + 77: INCREASING returns 333,
// DECREASING 2^31 + 333, an index past 2^31 that UINT32, INT64 and UINT64
// outputs hold. The smallest value ties in both rows at 0 and 251 (and
// 256 and 507). Lavapipe stops an invocation after 65535 loop iterations;
// the planner cuts the block into segments for that.
func TestArgMaxOver2To31(t *testing.T) {
	if testing.Short() {
		t.Skip("2^31-element reduction: skipped with -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	const reps = 1<<22 + 1
	in := &tensor.Tensor{Desc: tensor.NewStridedDesc(tensor.Int16, []uint32{reps, 2, 256}, []uint32{0, 256, 1})}
	in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
	for r := uint32(0); r < 2; r++ {
		for i := uint32(0); i < 256; i++ {
			in.SetFloat64([]uint32{0, r, i}, float64(int(i*37%251)-125))
		}
	}
	in.SetFloat64([]uint32{0, 1, 77}, 126)
	if n := in.Desc.ElementCount(); n <= 1<<31 {
		t.Fatalf("%d elements", n)
	}
	last := uint64(reps-1) * 512
	cases := []struct {
		argmin bool
		dir    dml.AxisDirection
		idx    tensor.DataType
		want   uint64
	}{
		{false, dml.AxisDirectionIncreasing, tensor.UInt64, 333},
		{false, dml.AxisDirectionDecreasing, tensor.UInt32, last + 333},
		{true, dml.AxisDirectionDecreasing, tensor.Int64, last + 256 + 251},
	}
	for _, c := range cases {
		out := tensor.NewDesc(c.idx, []uint32{1, 1, 1})
		var desc dml.OperatorDesc = &dml.ArgMax{Input: in.Desc, Output: out, Axes: []uint32{0, 1, 2}, AxisDirection: c.dir}
		if c.argmin {
			desc = &dml.ArgMin{Input: in.Desc, Output: out, Axes: []uint32{2, 0, 1}, AxisDirection: c.dir}
		}
		start := time.Now()
		op, err := d.CreateOperator(desc)
		if err != nil {
			t.Fatal(err)
		}
		got := []*tensor.Tensor{{Desc: out.Clone(), Data: make([]byte, out.TotalTensorSizeInBytes)}}
		if err := d.RunOperator(op, []*tensor.Tensor{in}, got); err != nil {
			t.Fatal(err)
		}
		if v := got[0].Uint64At(0, 0, 0); v != c.want {
			t.Errorf("%s %v %v: got %d, want %d", desc.OperatorType(), c.dir, c.idx, v, c.want)
		}
		t.Logf("%s %v %v (%s): %d in %v", desc.OperatorType(), c.dir, c.idx, op.Strategy(), c.want, time.Since(start).Round(time.Millisecond))
	}
}
