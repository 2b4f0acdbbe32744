//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// benchDevice opens the device without the validation layer (whose
// per-submit checks would be timed too), skipping when there is none.
func benchDevice(b *testing.B) *dml.Device {
	d := testutil.CreateDML(b, dml.DeviceOptions{})
	b.Cleanup(func() { d.Close() })
	return d
}

// benchSweepTypes are the element types the sweeps cover: the 32-bit types
// the vectorised kernels take, and one of each other width.
var benchSweepTypes = []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32, tensor.Float16, tensor.UInt8, tensor.Int64}

// BenchmarkArgMaxSweep: ARGMAX over shapes that take each strategy (one
// long row: split-K; many rows: lanes along the row; reduction over the
// outer axis: thread/vec-col) and every type width, reporting GB/s (bytes of
// the input and output per run) with the planner's strategy in the name.
//
//	go test ./ops -run '^$' -bench ArgMaxSweep -benchtime 5x
func BenchmarkArgMaxSweep(b *testing.B) {
	d := benchDevice(b)
	cases := []struct {
		sizes []uint32
		axis  uint32
	}{
		{[]uint32{1, 1 << 22}, 1},
		{[]uint32{1024, 4096}, 1},
		{[]uint32{64, 64}, 1},
		{[]uint32{1024, 4096}, 0},
		{[]uint32{65536, 64}, 0},
	}
	for _, dt := range benchSweepTypes {
		for _, c := range cases {
			out := argOutSizes(c.sizes, []uint32{c.axis})
			desc := &ops.ArgMax{Input: tensor.NewDesc(dt, c.sizes), Output: tensor.NewDesc(tensor.UInt32, out), Axes: []uint32{c.axis}}
			op, err := d.CreateOperator(desc)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("%v/%dx%d/axis%d/%s", dt, c.sizes[0], c.sizes[1], c.axis, op.Strategy())
			b.Run(name, func(b *testing.B) { benchOperator(b, d, desc, "") })
		}
	}
}

// BenchmarkMaxPoolSweep: MAX_POOLING2 with UINT32 indices, 2x2 stride 2
// (the vectorised kernel for 32-bit types) and 3x3 stride 2 padding 1, for
// every type width, reporting GB/s over input + output + indices bytes.
func BenchmarkMaxPoolSweep(b *testing.B) {
	d := benchDevice(b)
	for _, dt := range benchSweepTypes {
		for _, p := range []struct{ w, s, pad uint32 }{{2, 2, 0}, {3, 2, 1}} {
			const hw = 256
			in := tensor.NewDesc(dt, []uint32{1, 32, hw, hw})
			o := uint32(ops.MaxPoolOutputSize(hw, p.w, p.s, p.pad, p.pad, 1, false))
			sizes := []uint32{1, 32, o, o}
			idx := tensor.NewDesc(tensor.UInt32, sizes)
			desc := &ops.MaxPooling2{Input: in, Output: tensor.NewDesc(dt, sizes), OutputIndices: &idx,
				Strides: []uint32{p.s, p.s}, WindowSize: []uint32{p.w, p.w}, StartPadding: []uint32{p.pad, p.pad},
				EndPadding: []uint32{p.pad, p.pad}, Dilations: []uint32{1, 1}}
			op, err := d.CreateOperator(desc)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%v/%dx%ds%dp%d/%s", dt, p.w, p.w, p.s, p.pad, op.Strategy()), func(b *testing.B) { benchOperator(b, d, desc, "") })
		}
	}
}

// BenchmarkSubmit: re-submitting a pre-recorded 3x3 ARGMAX (Execute +
// Wait) against an empty command list's submit + fence wait, alternated in
// one loop; reports both medians and their ratio, which should stay at
// most 1.2: what vkdml adds to an Execute must stay small beside the
// driver's own submit and wait.
func BenchmarkSubmit(b *testing.B) {
	d := benchDevice(b)
	desc := &ops.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{3, 3}), Output: tensor.NewDesc(tensor.UInt32, []uint32{3, 1}), Axes: []uint32{1}}
	cop := testutil.CompileInitialized(b, d, desc, "")
	defer cop.Release()
	in, _ := d.CreateBuffer(64)
	out, _ := d.CreateBuffer(64)
	defer in.Release()
	defer out.Release()
	// The initializer has run on its own; the list holds only the
	// operator's dispatch, as an application re-submitting it would.
	rec, _ := d.CreateCommandRecorder()
	list, err := testutil.Record(d, rec, testutil.Dispatch{Dispatchable: cop, Bind: func(table *dml.BindingTable) error {
		return errors.Join(table.BindInputs(dml.WholeBuffer(in)), table.BindOutputs(dml.WholeBuffer(out)))
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer list.Release()
	empty, _ := d.CreateCommandList()
	defer empty.Release()
	if err := empty.Close(); err != nil {
		b.Fatal(err)
	}
	run := func(l *dml.CommandList) time.Duration {
		start := time.Now()
		if err := l.Execute(); err != nil {
			b.Fatal(err)
		}
		if err := l.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	run(list)
	run(empty)
	var a, e []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a = append(a, run(list))
		e = append(e, run(empty))
	}
	b.StopTimer()
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	sort.Slice(e, func(i, j int) bool { return e[i] < e[j] })
	ma, me := a[len(a)/2], e[len(e)/2]
	b.ReportMetric(float64(ma.Nanoseconds())/1e3, "argmax-µs")
	b.ReportMetric(float64(me.Nanoseconds())/1e3, "empty-µs")
	b.ReportMetric(float64(ma)/float64(me), "ratio")
}
