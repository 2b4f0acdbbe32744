package dml_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// argmaxRows is ARGMAX over the rows of a 3x2 FLOAT32 tensor into out.
func argmaxRows(out tensor.Desc) *dml.ArgMax {
	return &dml.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{3, 2}), Output: out, Axes: []uint32{1}}
}

func float32Bytes(v ...float32) []byte {
	return tensor.FromFloat32([]uint32{uint32(len(v))}, v).Data
}

// TestPreparedRunsKeepBytesOutsideElements: a prepared operator runs many
// times, and only its outputs' element bytes change (semantics rule 6):
// the spare bytes of a host buffer larger than a packed output, and the
// gaps of a strided one, keep their contents on every run.
func TestPreparedRunsKeepBytesOutsideElements(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	packed := tensor.NewDesc(tensor.UInt32, []uint32{3, 1})
	packed.TotalTensorSizeInBytes = 16
	strided := tensor.NewStridedDesc(tensor.UInt32, []uint32{3, 1}, []uint32{2, 1})
	for _, c := range []struct {
		name  string
		out   tensor.Desc
		bytes int
		elems []int // the uint32 words the elements occupy
	}{
		{"packed, 4 spare bytes", packed, 16, []int{0, 1, 2}},
		{"strided, gaps between", strided, 20, []int{0, 2, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := d.Prepare(argmaxRows(c.out), dml.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			for run, x := range [][]float32{{1, 2, 4, 3, 5, 5}, {9, 0, 0, 9, -1, 7}} {
				out := bytes.Repeat([]byte{byte(0xA0 + run)}, c.bytes)
				if err := p.Run([][]byte{float32Bytes(x...)}, [][]byte{out}); err != nil {
					t.Fatal(err)
				}
				want := map[int]uint32{}
				for row := 0; row < 3; row++ {
					if x[2*row+1] > x[2*row] {
						want[c.elems[row]] = 1
					} else {
						want[c.elems[row]] = 0
					}
				}
				for w := 0; w < c.bytes/4; w++ {
					got := binary.LittleEndian.Uint32(out[4*w:])
					if v, ok := want[w]; ok && got != v {
						t.Errorf("run %d: word %d = %d, want %d", run, w, got, v)
					} else if !ok && got != uint32(0x01010101)*uint32(0xA0+run) {
						t.Errorf("run %d: word %d outside the elements changed to %#x", run, w, got)
					}
				}
			}
		})
	}
}

// TestPreparedMisuse: host buffers are checked, a released Prepared
// refuses to run, Release is idempotent, a kernel can be forced, and
// tensors too large for the device are refused before any allocation.
func TestPreparedMisuse(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	p, err := d.Prepare(argmaxRows(tensor.NewDesc(tensor.UInt32, []uint32{3, 1})), dml.PrepareOptions{Kernel: "thread"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Strategy() != "thread" {
		t.Errorf("Strategy() = %q, want the forced kernel", p.Strategy())
	}
	in, out := float32Bytes(1, 2, 3, 4, 5, 6), make([]byte, 12)
	for _, c := range []struct {
		ins, outs [][]byte
		field     string
	}{
		{[][]byte{in[:23]}, [][]byte{out}, "inputs[0].size_in_bytes"},
		{[][]byte{in}, [][]byte{out[:11]}, "outputs[0].size_in_bytes"},
		{[][]byte{in, in}, [][]byte{out}, "input_count"},
		{[][]byte{in}, [][]byte{nil}, "outputs[0].data"},
	} {
		err := p.Run(c.ins, c.outs)
		var he *hresult.Error
		if !errors.As(err, &he) || he.Code != hresult.E_INVALIDARG || he.Field != c.field {
			t.Errorf("Run with a bad %s: %v; want E_INVALIDARG naming it", c.field, err)
		}
	}
	p.Release()
	p.Release()
	if err := p.Run([][]byte{in}, [][]byte{out}); !errors.Is(err, hresult.E_INVALIDARG) {
		t.Errorf("Run after Release: %v; want E_INVALIDARG", err)
	}
	huge := &dml.MaxPooling1{
		Input:   tensor.NewDesc(tensor.Int64, []uint32{65535, 1, 1, 1}),
		Output:  tensor.NewDesc(tensor.Int64, []uint32{65535, 1, 256, 256}),
		Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{255, 255},
	}
	if _, err := d.Prepare(huge, dml.PrepareOptions{}); !errors.Is(err, hresult.E_OUTOFMEMORY) {
		t.Errorf("Prepare of 34 GB of outputs: %v; want E_OUTOFMEMORY", err)
	}
}

// TestPreparedConcurrentRunsTakeTurns: runs from several goroutines share
// the buffers and the list, so each must see its own input's answer.
func TestPreparedConcurrentRunsTakeTurns(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	p, err := d.Prepare(argmaxRows(tensor.NewDesc(tensor.UInt32, []uint32{3, 1})), dml.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	testutil.InParallel(t, 4, func(g int) error {
		for i := 0; i < 10; i++ {
			x := []float32{0, 0, 0, 0, 0, 0}
			x[2*((g+i)%3)+1] = 1 // row (g+i)%3 has its maximum in column 1
			out := make([]byte, 12)
			if err := p.Run([][]byte{float32Bytes(x...)}, [][]byte{out}); err != nil {
				return err
			}
			for row := 0; row < 3; row++ {
				want := uint32(0)
				if row == (g+i)%3 {
					want = 1
				}
				if got := binary.LittleEndian.Uint32(out[4*row:]); got != want {
					t.Errorf("goroutine %d run %d: row %d = %d, want %d", g, i, row, got, want)
				}
			}
		}
		return nil
	})
}

// TestStepTimes: with step profiling, StepTimes gives a time for each of
// the operator's dispatches (a TOP_K whose long row takes a scan and
// merge passes); with profiling alone, one time a dispatchable; with
// neither, none.
func TestStepTimes(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{1, 200000})
	desc := &dml.TopK1{Input: in, OutputValue: tensor.NewDesc(tensor.Float32, []uint32{1, 1}),
		OutputIndex: tensor.NewDesc(tensor.UInt32, []uint32{1, 1}), Axis: 1, K: 1}
	plan, err := dml.PlanOperator(d.Context(), desc, "lane")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) < 2 {
		t.Fatalf("the lane plan of %v has %d dispatches; the test needs several", in.Sizes, len(plan.Steps))
	}
	for _, c := range []struct {
		name       string
		opts       dml.PrepareOptions
		wantSteps  int // times of the one dispatchable; 0: none
		wantRecord bool
	}{
		{"steps", dml.PrepareOptions{StepProfiling: true}, len(plan.Steps), true},
		{"profiling", dml.PrepareOptions{Profiling: true}, 1, true},
		{"neither", dml.PrepareOptions{}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Kernel = "lane"
			p, err := d.Prepare(desc, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			list := p.List()
			if err := list.Execute(); err != nil {
				t.Fatal(err)
			}
			if err := list.Wait(); err != nil {
				t.Fatal(err)
			}
			steps, err := list.StepTimes()
			if err != nil {
				t.Fatal(err)
			}
			total, err := list.DispatchTimes()
			if err != nil {
				t.Fatal(err)
			}
			if !c.wantRecord {
				if len(steps) != 0 || len(total) != 0 {
					t.Fatalf("unprofiled: StepTimes %v, DispatchTimes %v, want none", steps, total)
				}
				return
			}
			if len(steps) != 1 || len(steps[0]) != c.wantSteps || len(total) != 1 {
				t.Fatalf("StepTimes %v, DispatchTimes %v: want one dispatchable of %d times", steps, total, c.wantSteps)
			}
			// (DispatchTimes sums the same marks: the steps' times add up
			// to it by construction.)
			var sum time.Duration
			for i, st := range steps[0] {
				if st < 0 {
					t.Fatalf("step %d took %v", i, st)
				}
				sum += st
			}
			if sum <= 0 {
				t.Fatalf("steps %v took no time", steps[0])
			}
		})
	}
}
