package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// demoCase is one example `vkdml demo` runs and checks.
type demoCase struct {
	title string
	run   func(d *dml.Device, w io.Writer) error
}

// demos lists the examples in the order they run; each operator's file
// registers its seed pages' examples in init.
var demos []demoCase

func registerDemo(c demoCase) { demos = append(demos, c) }

func init() {
	registerDemo(demoCase{"ELEMENT_WISE_IDENTITY: an NHWC-strided FLOAT16 tensor copied to NCHW", demoIdentity})
}

func demoCases() []demoCase { return demos }

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "demo [--device SEL] [--debug]", stderr)
	devOpts := deviceFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	d, err := createDevice(devOpts())
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.GPU().Info
	fmt.Fprintf(stdout, "device: %s (%s, Vulkan %s, %s)\n", info.Name, info.TypeName, info.API, info.DriverInfo)
	failed := 0
	for _, c := range demoCases() {
		fmt.Fprintf(stdout, "\n== %s\n", c.title)
		if err := c.run(d, stdout); err != nil {
			fmt.Fprintf(stdout, "FAILED: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintln(stdout, "ok")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d examples failed", failed, len(demoCases()))
	}
	fmt.Fprintf(stdout, "\nall %d examples match\n", len(demoCases()))
	return nil
}

// formatTensor prints a tensor's logical elements with rows on lines.
func formatTensor(t *tensor.Tensor) string {
	vals := t.Float64s()
	last := int(t.Desc.Sizes[len(t.Desc.Sizes)-1])
	var b strings.Builder
	for i, v := range vals {
		if i%last == 0 {
			if i > 0 {
				b.WriteString("]\n")
			}
			b.WriteString("  [")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g", v)
	}
	b.WriteString("]")
	return b.String()
}

func demoIdentity(d *dml.Device, w io.Writer) error {
	// Sizes {1,2,2,3} in NCHW order, stored NHWC: strides {12,1,6,2}.
	sizes := []uint32{1, 2, 2, 3}
	in := &tensor.Tensor{Desc: tensor.NewStridedDesc(tensor.Float16, sizes, []uint32{12, 1, 6, 2})}
	in.Data = make([]byte, in.Desc.TotalTensorSizeInBytes)
	n := 0.0
	tensor.ForEachIndex(sizes, func(c []uint32) { in.SetFloat64(c, n); n++ })
	desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(tensor.Float16, sizes)}
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "input  %v\noutput %v\n%s\n", in.Desc, outs[0].Desc, formatTensor(outs[0]))
	want := make([]*tensor.Tensor, 1)
	want[0] = &tensor.Tensor{Desc: desc.Output.Clone(), Data: make([]byte, desc.Output.TotalTensorSizeInBytes)}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		return err
	}
	if string(want[0].Data) != string(outs[0].Data) {
		return fmt.Errorf("GPU result differs from the CPU reference:\n%s", formatTensor(want[0]))
	}
	return nil
}
