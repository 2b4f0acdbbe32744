package main

import (
	"fmt"
	"io"
	"math/rand"
	"sort"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// runSubmitBench is `vkdml bench --op submit`: the host-side cost of
// re-submitting a pre-recorded tiny operator. It records desc (a 3x3 ARGMAX
// by default) once into a command list without timestamps, and an empty
// closed list, then alternates Execute + Wait on the two (so both see the
// same machine state) and compares the wall-clock medians.
func runSubmitBench(d *dml.Device, desc dml.OperatorDesc, base *recordBase, kernel string, repeat, warmup int, format string, stdout io.Writer, rng *rand.Rand) error {
	m, list, release, err := recordBench(d, desc, kernel, dml.PrepareOptions{}, rng)
	defer release()
	if err != nil {
		return err
	}
	empty, err := d.CreateCommandList()
	if err != nil {
		return err
	}
	defer empty.Release()
	if err := empty.Close(); err != nil {
		return err
	}
	run := func(l *dml.CommandList) (float64, error) {
		elapsed := wallStart()
		if err := l.Execute(); err != nil {
			return 0, err
		}
		if err := l.Wait(); err != nil {
			return 0, err
		}
		return float64(elapsed()) / 1e6, nil
	}
	repeat = max(repeat, 200) // microsecond timings need many samples
	var op, bare []float64
	for i := 0; i < warmup+repeat; i++ {
		a, err := run(list)
		if err != nil {
			return err
		}
		b, err := run(empty)
		if err != nil {
			return err
		}
		if i >= warmup {
			op, bare = append(op, a), append(bare, b)
		}
	}
	sort.Float64s(op)
	sort.Float64s(bare)
	r := base.benchRecord
	r.Shape, r.Kernel, r.KernelRequested, r.Bytes = desc.Inputs()[0].Sizes, m.Kernel, kernel, m.Bytes
	r.WallMedianMS, r.MinMS, r.MaxMS = median(op), op[0], op[len(op)-1]
	r.EmptyWallMedianMS = median(bare)
	r.Repeat, r.Warmup = repeat, warmup
	if r.EmptyWallMedianMS > 0 {
		r.SubmitRatio = r.WallMedianMS / r.EmptyWallMedianMS
	}
	summarize(&r, op, r.WallMedianMS)
	if format != formatTable {
		out := newBenchOutput(format, stdout)
		out.begin(base)
		out.record(&r)
		out.end()
		return nil
	}
	fmt.Fprintf(stdout, "device: %s (%s)\n", r.Device, r.Driver)
	fmt.Fprintf(stdout, "pre-recorded ARGMAX %s %s (%s), Execute + Wait: median %.1f us (min %.1f, max %.1f)\n",
		tensor.Shape(r.Shape), r.DType, r.Kernel, 1e3*r.WallMedianMS, 1e3*r.MinMS, 1e3*r.MaxMS)
	fmt.Fprintf(stdout, "empty command list, Execute + Wait:       median %.1f us\n", 1e3*r.EmptyWallMedianMS)
	fmt.Fprintf(stdout, "ratio: %.2fx (%d interleaved runs each)\n", r.SubmitRatio, repeat)
	return nil
}
