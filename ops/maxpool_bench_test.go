//go:build cgo

package ops_test

import (
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// benchOperator records desc once with fresh buffers and times b.N
// executions, reporting GB/s over the bytes of every bound tensor (each
// read or written once). kernel forces a strategy ("" lets vkdml choose);
// inputs, when given, fill the input buffers (else every word is 1.0f).
func benchOperator(b *testing.B, d *dml.Device, desc ops.Desc, kernel string, inputs ...*tensor.Tensor) {
	b.Helper()
	op, err := d.CreateOperatorWithKernel(desc, kernel)
	if err != nil {
		b.Fatal(err)
	}
	cop, err := d.CompileOperator(op, dml.ExecutionFlagNone)
	if err != nil {
		b.Fatal(err)
	}
	defer cop.Release()
	init, err := d.CreateOperatorInitializer(cop)
	if err != nil {
		b.Fatal(err)
	}
	var bytes uint64
	bind := func(list []*tensor.Desc, data []*tensor.Tensor) []dml.Binding {
		out := make([]dml.Binding, len(list))
		for i, td := range list {
			if td == nil {
				continue
			}
			r, err := d.CreateBuffer(td.TotalTensorSizeInBytes)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(r.Release)
			if i < len(data) && data[i] != nil {
				err = r.Write(0, data[i].Data[:td.TotalTensorSizeInBytes])
			} else {
				err = r.Fill(0, td.TotalTensorSizeInBytes, 0x3f800000)
			}
			if err != nil {
				b.Fatal(err)
			}
			bytes += td.TotalTensorSizeInBytes
			out[i] = dml.WholeBuffer(r)
		}
		return out
	}
	ins, outs := bind(desc.Inputs(), inputs), bind(desc.Outputs(), nil)
	list, err := d.CreateCommandList()
	if err != nil {
		b.Fatal(err)
	}
	defer list.Release()
	rec, _ := d.CreateCommandRecorder()
	it, err := d.CreateBindingTable(init)
	if err != nil {
		b.Fatal(err)
	}
	table, err := d.CreateBindingTable(cop)
	if err != nil {
		b.Fatal(err)
	}
	var temp *dml.BufferBinding
	if size := cop.BindingProperties().TemporaryResourceSize; size > 0 {
		r, err := d.CreateBuffer(size)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(r.Release)
		temp = &dml.BufferBinding{Buffer: r, SizeInBytes: size}
	}
	for _, e := range []error{
		rec.RecordDispatch(list, init, it),
		list.ResourceBarrierUAV(),
		table.BindInputs(ins...),
		table.BindOutputs(outs...),
		table.BindTemporaryResource(temp),
		rec.RecordDispatch(list, cop, table),
		list.Close(),
	} {
		if e != nil {
			b.Fatal(e)
		}
	}
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := list.Execute(); err != nil {
			b.Fatal(err)
		}
		if err := list.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkMaxPool: [1,64,256,256] FLOAT32 with UINT32 indices, the two
// common shapes, and the copy kernel over the same input as the yardstick.
func BenchmarkMaxPool(b *testing.B) {
	d := testutil.OpenDML(b, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{1, 64, 256, 256})
	pool := func(w, s, p uint32) *ops.MaxPooling2 {
		o := uint32(ops.MaxPoolOutputSize(256, w, s, p, p, 1, false))
		sizes := []uint32{1, 64, o, o}
		idx := tensor.NewDesc(tensor.UInt32, sizes)
		return &ops.MaxPooling2{Input: in, Output: tensor.NewDesc(tensor.Float32, sizes), OutputIndices: &idx,
			Strides: []uint32{s, s}, WindowSize: []uint32{w, w}, StartPadding: []uint32{p, p}, EndPadding: []uint32{p, p}, Dilations: []uint32{1, 1}}
	}
	b.Run("2x2s2", func(b *testing.B) { benchOperator(b, d, pool(2, 2, 0), "") })
	b.Run("3x3s2p1", func(b *testing.B) { benchOperator(b, d, pool(3, 2, 1), "") })
	b.Run("copy", func(b *testing.B) {
		benchOperator(b, d, &ops.ElementWiseIdentity{Input: in, Output: tensor.NewDesc(tensor.Float32, in.Sizes)}, "")
	})
}
