package operators

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// ELEMENT_WISE_IDENTITY: the copy kernel, and bench's bandwidth ceiling.

func identityOperator() *Operator {
	return &Operator{
		Name:     "identity",
		Type:     "ELEMENT_WISE_IDENTITY",
		Aliases:  []string{"copy"},
		Summary:  "ELEMENT_WISE_IDENTITY: copy (a Fortran-order input comes out in C order); bench calls it copy",
		Synopsis: "IN.npy OUT.npy",
		Flags: func(fs *flag.FlagSet, _ Use) *Builder {
			return &Builder{
				Check: func() error { return nil },
				Desc: func(ins []Input) (dml.OperatorDesc, error) {
					in := *ins[0].Desc
					return &dml.ElementWiseIdentity{Input: in, Output: tensor.NewDesc(in.DataType, in.Sizes)}, nil
				},
				Params: func() map[string]any { return map[string]any{} },
			}
		},
		Demos: []Demo{{"ELEMENT_WISE_IDENTITY: an NHWC-strided FLOAT16 tensor copied to NCHW", demoIdentity}},
	}
}

func demoIdentity(d *dml.Device, w io.Writer) error {
	// Sizes [1,2,2,3] in NCHW order, stored NHWC: strides [12,1,6,2].
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
	fmt.Fprintf(w, "input  %v\noutput %v\n%s\n", in.Desc, outs[0].Desc, rows(outs[0]))
	want := []*tensor.Tensor{{Desc: desc.Output.Clone(), Data: make([]byte, desc.Output.TotalTensorSizeInBytes)}}
	if err := desc.Reference([]*tensor.Tensor{in}, want); err != nil {
		return err
	}
	if string(want[0].Data) != string(outs[0].Data) {
		return fmt.Errorf("GPU result differs from the CPU reference:\n%s", rows(want[0]))
	}
	return nil
}

// rows prints a tensor's logical elements with its innermost rows on lines.
func rows(t *tensor.Tensor) string {
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
