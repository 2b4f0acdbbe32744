package tests

import (
	"encoding/binary"
	"math"
	"os"
	"testing"
	"time"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// hugeRows x hugeCols FLOAT32 is 4 GiB + 128 KiB: past maxStorageBufferRange
// (4 GiB - 1 on every driver seen) and past maxMemoryAllocationSize (just
// under 4 GiB on the H100), so the input needs several bindings and
// several allocations.
const hugeRows, hugeCols = 1<<15 + 1, 1 << 15

// hugeMemory is the device-local memory TestArgMaxOver4GiB asks for: the
// 4 GiB input, its staging and the partials, with room to spare.
const hugeMemory = 12 << 30

// hugeValue is element i's value: small integers, so that every row has
// many ties, with a row-dependent rise so that rows differ.
func hugeValue(i uint64) float32 {
	h := i * 0x9E3779B97F4A7C15
	return float32((h>>40)%251) - 125
}

// TestArgMaxOver4GiB reduces a FLOAT32 tensor of more than 4 GiB on a GPU
// with the memory for it, exactly: the whole tensor and each row, in both
// directions, against a plain scan. The whole tensor's largest value (and
// a tie of it) sit past the 4 GiB boundary and before it. CPU devices
// (lavapipe) skip it unless VKDML_HUGE=1: a 4 GiB scan there takes
// minutes of CI's two cores.
func TestArgMaxOver4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 GiB input: skipped with -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	info := d.GPU().Info
	if info.Type == caps.DeviceTypeCPU && os.Getenv("VKDML_HUGE") != "1" {
		t.Skip("a 4 GiB input on a CPU device: set VKDML_HUGE=1 to run it")
	}
	if local := deviceLocalBytes(info); local < hugeMemory {
		t.Skipf("%d bytes of device-local memory: the test needs %d", local, uint64(hugeMemory))
	}
	n := uint64(hugeRows) * hugeCols
	in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{hugeRows, hugeCols})}
	if in.Desc.TotalTensorSizeInBytes <= 1<<32 {
		t.Fatalf("input of %d bytes is not over 4 GiB", in.Desc.TotalTensorSizeInBytes)
	}
	in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
	for i := uint64(0); i < n; i++ {
		binary.LittleEndian.PutUint32(in.Data[4*i:], math.Float32bits(hugeValue(i)))
	}
	// The largest value: once before the 4 GiB boundary, once after it.
	first, last := uint64(1<<29+12345), n-hugeCols/2-7
	for _, i := range []uint64{first, last} {
		binary.LittleEndian.PutUint32(in.Data[4*i:], math.Float32bits(1000))
	}

	for _, dir := range []dml.AxisDirection{dml.AxisDirectionIncreasing, dml.AxisDirectionDecreasing} {
		want := map[dml.AxisDirection]uint64{dml.AxisDirectionIncreasing: first, dml.AxisDirectionDecreasing: last}[dir]
		out := tensor.NewDesc(tensor.UInt64, []uint32{1, 1})
		got := runHuge(t, d, &dml.ArgMax{Input: in.Desc, Output: out, Axes: []uint32{0, 1}, AxisDirection: dir}, in)
		if v := got.Uint64At(0, 0); v != want {
			t.Errorf("whole tensor, %v: got %d, want %d", dir, v, want)
		}

		out = tensor.NewDesc(tensor.UInt32, []uint32{hugeRows, 1})
		got = runHuge(t, d, &dml.ArgMax{Input: in.Desc, Output: out, Axes: []uint32{1}, AxisDirection: dir}, in)
		bad := 0
		for r := uint64(0); r < hugeRows; r++ {
			if g, w := uint64(got.Uint64At(uint32(r), 0)), hugeRowArgMax(in.Data, r, dir); g != w {
				if bad++; bad <= 5 {
					t.Errorf("row %d, %v: got %d, want %d", r, dir, g, w)
				}
			}
		}
		if bad > 0 {
			t.Errorf("rows, %v: %d of %d rows differ", dir, bad, hugeRows)
		}
	}
}

// runHuge runs desc once and returns its one output.
func runHuge(t *testing.T, d *dml.Device, desc dml.OperatorDesc, in *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	start := time.Now()
	op, err := d.CreateOperator(desc)
	if err != nil {
		t.Fatal(err)
	}
	od := desc.Outputs()[0]
	out := &tensor.Tensor{Desc: od.Clone(), Data: make([]byte, od.TotalTensorSizeInBytes)}
	for i := range out.Data {
		out.Data[i] = 0xA7
	}
	if err := d.RunOperator(op, []*tensor.Tensor{in}, []*tensor.Tensor{out}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %v (%s): %v", desc.OperatorType(), desc.(*dml.ArgMax).AxisDirection, op.Strategy(), time.Since(start).Round(time.Millisecond))
	return out
}

// hugeRowArgMax is row r's ARGMAX, read literally: the first largest
// value's column for INCREASING, the last for DECREASING (no NaN here).
func hugeRowArgMax(data []byte, r uint64, dir dml.AxisDirection) uint64 {
	best, at := float32(math.Inf(-1)), uint64(0)
	for c := uint64(0); c < hugeCols; c++ {
		v := math.Float32frombits(binary.LittleEndian.Uint32(data[4*(r*hugeCols+c):]))
		if v > best || v == best && dir == dml.AxisDirectionDecreasing {
			best, at = v, c
		}
	}
	return at
}

// deviceLocalBytes is the largest device-local heap.
func deviceLocalBytes(info *gpu.DeviceInfo) uint64 {
	var most uint64
	for _, m := range info.MemoryTypes {
		if m.Flags&gpu.MemoryDeviceLocal != 0 {
			most = max(most, m.HeapSize)
		}
	}
	return most
}
