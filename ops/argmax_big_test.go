//go:build cgo

package ops_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestArgWindowed caps the bytes one step may bind to a few hundred, so
// that small random tensors take the paths big ones take over
// maxStorageBufferRange: several steps with input and output windows, cut
// blocks with partials in the temporary resource and the combine pass,
// kept-side cuts, partial windows.
func TestArgWindowed(t *testing.T) {
	devices := testutil.WindowDevices(t)
	rng := testutil.Rand(t)
	n := testutil.CaseCount(60, 20)
	var multi, partial, refused int
	covered := func() bool { return multi >= n/3 && partial >= n/10 }
	drawn := drawCases(n, covered, func(i int) {
		win := []uint64{256, 1024, 4096, 16384}[rng.Intn(4)]
		d := devices(win)
		c := argRandomCase(rng, 2000)
		strat := append([]string{""}, ops.ArgStrategies...)[i%4]
		ctx := testutil.PlanContext(d)
		ctx.Kernel, ctx.BindingWindowCap = strat, win
		if err := c.desc.Validate(ctx); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		p, err := c.desc.Plan(ctx)
		if err != nil {
			// Many tiny windows can exceed the step or partial limits;
			// that must be a clean DXGI_ERROR_UNSUPPORTED.
			if !errors.Is(err, hresult.DXGI_ERROR_UNSUPPORTED) {
				t.Fatalf("%s window %d: %v", c.what, win, err)
			}
			refused++
			return
		}
		if len(p.Steps) > 1 {
			multi++
		}
		if p.TemporarySize > 0 {
			partial++
		}
		c.what += fmt.Sprintf(" window %d (%d steps, temp %d)", win, len(p.Steps), p.TemporarySize)
		argCheckCase(t, d, c, strat, rng)
	})
	t.Logf("%d cases: %d with several steps, %d with partials, %d refused", drawn, multi, partial, refused)
	if !covered() {
		t.Errorf("the windowed paths were not exercised enough: %d multi-step, %d partial of %d", multi, partial, drawn)
	}
}

// TestArgLarge runs tensors over lavapipe's 128 MiB maxStorageBufferRange:
// a 160 Mi-element UINT8 row (two input windows, partials and the combine
// pass) and a FLOAT32 [4, 10Mi] reduced over axis 0 (kept-side windows).
// The extreme sits in the second window with ties in both. The results are
// compared exactly with the CPU reference (without CheckOperator's
// poisoned copies, to keep memory and time down).
func TestArgLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large tensors: skipped with -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	lim := uint64(d.GPU().Limits.MaxStorageBufferRange)
	t.Run("uint8-row", func(t *testing.T) {
		n := uint32(160 << 20)
		if uint64(n) <= lim {
			n = uint32(min(lim+lim/4, 1<<32-4))
		}
		in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.UInt8, []uint32{n})}
		in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
		for i := range in.Data {
			in.Data[i] = byte(i*7) % 200
		}
		in.Data[12345] = 250
		in.Data[n-1000] = 250 // last maximum, second window
		in.Data[n-10] = 0
		in.Data[3] = 0 // first minimum is 0 at position 0 anyway
		for _, kind := range []string{"argmax", "argmin"} {
			for dir := ops.AxisDirection(0); dir < 2; dir++ {
				desc := argDesc(kind, in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{1}), []uint32{0}, dir)
				argCompareLarge(t, d, desc, in)
			}
		}
	})
	t.Run("float32-columns", func(t *testing.T) {
		rows, cols := uint32(4), uint32(10<<20)
		in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{rows, cols})}
		in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
		for r := uint32(0); r < rows; r++ {
			for c := uint32(0); c < cols; c += 1 + c%5 {
				in.SetFloat64([]uint32{r, c}, float64((r*c)%3))
			}
		}
		desc := argDesc("argmax", in.Desc, tensor.NewDesc(tensor.UInt64, []uint32{1, cols}), []uint32{0}, ops.AxisDirectionDecreasing)
		argCompareLarge(t, d, desc, in)
	})
}

func argCompareLarge(t *testing.T, d *dml.Device, desc ops.Desc, in *tensor.Tensor) {
	t.Helper()
	start := time.Now()
	op, err := d.CreateOperator(desc)
	if err != nil {
		t.Fatal(err)
	}
	outs := []*tensor.Tensor{{Desc: desc.Outputs()[0].Clone()}}
	outs[0].Data = make([]byte, outs[0].Desc.TotalTensorSizeInBytes)
	if err := d.RunOperator(op, []*tensor.Tensor{in}, outs); err != nil {
		t.Fatalf("%s: %v", desc.OperatorType(), err)
	}
	gpuTime := time.Since(start)
	want := []*tensor.Tensor{{Desc: outs[0].Desc.Clone(), Data: make([]byte, len(outs[0].Data))}}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want[0].Data, outs[0].Data) {
		t.Fatalf("%s %v (%s): GPU differs from the reference:\n%s", desc.OperatorType(), in.Desc, op.Strategy(), testutil.DiffTensors(want[0], outs[0], 8))
	}
	t.Logf("%s %v: %s, GPU run %v", desc.OperatorType(), in.Desc, op.Strategy(), gpuTime)
}

// TestArgHugeBlock reduces a 2^26-element block (a broadcast input, so it
// occupies a few KiB) to check 32-bit index arithmetic at large positions:
// the extreme of each repetition ties, so INCREASING returns its first
// occurrence and DECREASING its last, near 2^26. Every strategy needs
// the planner's segments here: lavapipe stops an invocation after 65535 loop
// iterations.
func TestArgHugeBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("2^26-element block: skipped with -short")
	}
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	sizes := []uint32{1 << 18, 256}
	in := &tensor.Tensor{Desc: tensor.NewStridedDesc(tensor.Int16, sizes, []uint32{0, 1})}
	in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
	for i := uint32(0); i < 256; i++ {
		in.SetFloat64([]uint32{0, i}, float64(int(i*37%251)-125))
	}
	for _, strat := range ops.ArgStrategies {
		for dir := ops.AxisDirection(0); dir < 2; dir++ {
			desc := argDesc("argmin", in.Desc, tensor.NewDesc(tensor.UInt32, []uint32{1, 1}), []uint32{1, 0}, dir)
			got := argRunArgKernel(t, d, desc, in, strat, rng)
			want := uint64(0) // the minimum -125 sits at row positions 0 and 251
			if dir == ops.AxisDirectionDecreasing {
				want = (1<<18-1)*256 + 251
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("%s dir %d: got %v, want %d", strat, dir, got, want)
			}
		}
	}
}

// BenchmarkArgMax reports input bandwidth (GB/s) over a few shapes,
// reducing each axis.
func BenchmarkArgMax(b *testing.B) {
	d := testutil.OpenDML(b, dml.DeviceOptions{})
	shapes := []struct {
		name  string
		sizes []uint32
		axes  []uint32
	}{
		{"16M-row", []uint32{16 << 20}, []uint32{0}},
		{"4096x4096-axis1", []uint32{4096, 4096}, []uint32{1}},
		{"4096x4096-axis0", []uint32{4096, 4096}, []uint32{0}},
		{"16x1M-axis1", []uint32{16, 1 << 20}, []uint32{1}},
	}
	for _, s := range shapes {
		in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, s.sizes)}
		in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
		for i := range in.Data {
			in.Data[i] = byte(i * 13)
		}
		for _, strat := range append([]string{""}, ops.ArgStrategies...) {
			name := s.name + "/" + strat
			if strat == "" {
				name = s.name + "/auto"
			}
			b.Run(name, func(b *testing.B) {
				desc := argDesc("argmax", in.Desc, tensor.NewDesc(tensor.UInt32, argOutSizes(s.sizes, s.axes)), s.axes, 0)
				benchOperator(b, d, desc, strat, in)
			})
		}
	}
}
