package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// The seed pages' examples (DML_ARGMAX_OPERATOR_DESC,
// DML_ARGMIN_OPERATOR_DESC) and their AxisDirection examples.
func init() {
	pageInput := []float32{1, 2, 3, 3, 0, 4, 2, 5, 2}
	type example struct {
		title string
		op    string
		input []float32
		sizes []uint32
		axes  []uint32
		dir   dml.AxisDirection
		want  []uint64
	}
	examples := []example{
		{"Example 1. Applying argmax to columns", "argmax", pageInput, []uint32{3, 3}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{1, 2, 1}},
		{"Example 2. Applying argmax to rows", "argmax", pageInput, []uint32{3, 3}, []uint32{1}, dml.AxisDirectionIncreasing, []uint64{2, 2, 1}},
		{"Example 3. Applying argmax to all axes (the entire tensor)", "argmax", pageInput, []uint32{3, 3}, []uint32{0, 1}, dml.AxisDirectionIncreasing, []uint64{7}},
		{"Example 1. Applying argmin to columns", "argmin", pageInput, []uint32{3, 3}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0, 1, 2}},
		{"Example 2. Applying argmin to rows", "argmin", pageInput, []uint32{3, 3}, []uint32{1}, dml.AxisDirectionIncreasing, []uint64{0, 1, 0}},
		{"Example 3. Applying argmin to all axes (the entire tensor)", "argmin", pageInput, []uint32{3, 3}, []uint32{0, 1}, dml.AxisDirectionIncreasing, []uint64{4}},
		{"AxisDirection: INCREASING returns the first maximum", "argmax", []float32{3, 2, 1, 2, 3}, []uint32{5}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0}},
		{"AxisDirection: DECREASING returns the last maximum", "argmax", []float32{3, 2, 1, 2, 3}, []uint32{5}, []uint32{0}, dml.AxisDirectionDecreasing, []uint64{4}},
		{"AxisDirection: INCREASING returns the first minimum", "argmin", []float32{1, 2, 3, 2, 1}, []uint32{5}, []uint32{0}, dml.AxisDirectionIncreasing, []uint64{0}},
		{"AxisDirection: DECREASING returns the last minimum", "argmin", []float32{1, 2, 3, 2, 1}, []uint32{5}, []uint32{0}, dml.AxisDirectionDecreasing, []uint64{4}},
	}
	for _, e := range examples {
		e := e
		registerDemo(demoCase{
			title: strings.ToUpper(e.op) + ": " + e.title,
			run: func(d *dml.Device, w io.Writer) error {
				return demoArg(d, w, e.op, e.input, e.sizes, e.axes, e.dir, e.want)
			},
		})
	}
}

func demoArg(d *dml.Device, w io.Writer, op string, vals []float32, sizes, axes []uint32, dir dml.AxisDirection, want []uint64) error {
	in := tensor.FromFloat32(sizes, vals)
	osizes := slices.Clone(sizes)
	for _, a := range axes {
		osizes[a] = 1
	}
	out := tensor.NewDesc(tensor.UInt32, osizes)
	var desc dml.OperatorDesc
	if op == "argmax" {
		desc = &dml.ArgMax{Input: in.Desc, Output: out, Axes: axes, AxisDirection: dir}
	} else {
		desc = &dml.ArgMin{Input: in.Desc, Output: out, Axes: axes, AxisDirection: dir}
	}
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	got := outs[0].Uint64s()

	// The pages' layout: the input, the fields, then the output with each
	// element's block in a comment.
	fmt.Fprintf(w, "InputTensor: (Sizes:%s, DataType:FLOAT32)\n%s\n\n", argBraces(sizes), argNested(in.Float64s(), sizes, nil))
	fmt.Fprintf(w, "AxisCount: %d\nAxes: %s\nAxisDirection: %v\n", len(axes), argBraces(axes), dir)
	comments := make([]string, len(got))
	tensor.ForEachIndex(osizes, func(c []uint32) {
		var block []string
		bsizes := make([]uint32, len(sizes))
		for i := range sizes {
			bsizes[i] = 1
		}
		for _, a := range axes {
			bsizes[a] = sizes[a]
		}
		tensor.ForEachIndex(bsizes, func(b []uint32) {
			x := make([]uint32, len(c))
			for i := range c {
				x[i] = c[i] + b[i]
			}
			block = append(block, strconv.FormatFloat(in.Float64At(x...), 'g', -1, 64))
		})
		var o uint64
		for i := range c {
			o = o*uint64(osizes[i]) + uint64(c[i])
		}
		comments[o] = fmt.Sprintf("%s({%s})", op, strings.Join(block, ", "))
	})
	fmt.Fprintf(w, "OutputTensor: (Sizes:%s, DataType:UINT32)\n%s\n", argBraces(osizes), argNested(toFloats(got), osizes, comments))

	if !slices.Equal(got, want) {
		return fmt.Errorf("got %v, the page says %v", got, want)
	}
	ref := &tensor.Tensor{Desc: out.Clone(), Data: make([]byte, out.TotalTensorSizeInBytes)}
	if err := desc.Reference([]*tensor.Tensor{in}, []*tensor.Tensor{ref}); err != nil {
		return err
	}
	if !slices.Equal(ref.Uint64s(), want) {
		return fmt.Errorf("the CPU reference gives %v, the page says %v", ref.Uint64s(), want)
	}
	return nil
}

func toFloats(v []uint64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func argBraces(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// argNested prints row-major values as nested brackets, one innermost row
// per line, or with comments one element per line ("1,  // argmax(...)"),
// as the seed pages do.
func argNested(vals []float64, sizes []uint32, comments []string) string {
	rank := len(sizes)
	var b strings.Builder
	for i, v := range vals {
		// Brackets opened at i and closed after it.
		open, close := 0, 0
		for d, stride := rank-1, 1; d >= 0; d-- {
			if (i/stride)%int(sizes[d]) == 0 && i%stride == 0 && open == rank-1-d {
				open++
			}
			stride *= int(sizes[d])
		}
		for d, stride := rank-1, 1; d >= 0; d-- {
			if (i/stride)%int(sizes[d]) == int(sizes[d])-1 && (i+1)%stride == 0 && close == rank-1-d {
				close++
			}
			stride *= int(sizes[d])
		}
		if i > 0 {
			if comments != nil || open > 0 {
				b.WriteString("\n" + strings.Repeat(" ", rank-open))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(strings.Repeat("[", open))
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		b.WriteString(strings.Repeat("]", close))
		if i < len(vals)-1 {
			b.WriteString(",")
		}
		if comments != nil {
			pad := " "
			if i < len(vals)-1 {
				pad = ""
			}
			b.WriteString(pad + strings.Repeat(" ", max(0, 2-close)) + "// " + comments[i])
		}
	}
	return b.String()
}
