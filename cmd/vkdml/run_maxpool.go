package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

// uintList is a flag holding a comma-separated list of unsigned integers.
type uintList struct {
	v   []uint32
	set bool
}

func (l *uintList) String() string {
	s := make([]string, len(l.v))
	for i, x := range l.v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

func (l *uintList) Set(s string) error {
	l.v, l.set = nil, true
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return fmt.Errorf("%q is not a list of unsigned integers", s)
		}
		l.v = append(l.v, uint32(x))
	}
	return nil
}

// spatial returns the list for dims spatial axes: def when unset, one value
// repeated, or exactly dims values.
func (l *uintList) spatial(name string, dims int, def uint32) ([]uint32, error) {
	switch {
	case !l.set:
		out := make([]uint32, dims)
		for i := range out {
			out[i] = def
		}
		return out, nil
	case len(l.v) == 1:
		out := make([]uint32, dims)
		for i := range out {
			out[i] = l.v[0]
		}
		return out, nil
	case len(l.v) == dims:
		return l.v, nil
	}
	return nil, fmt.Errorf("%w: --%s has %d values; the input has %d spatial axes (give 1 or %d)", errUsage, name, len(l.v), dims, dims)
}

// poolFlags are the window flags `vkdml run maxpool` and `vkdml bench --op
// maxpool` share.
type poolFlags struct {
	window, strides, dilations, start, end, outSize uintList
	indexType                                       *string
}

func (p *poolFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.window, "window", "window size per spatial axis, {H,W} or {D,H,W} (required; one value applies to every axis)")
	fs.Var(&p.strides, "strides", "window strides (default 1)")
	fs.Var(&p.dilations, "dilations", "window dilations (default 1)")
	fs.Var(&p.start, "start-padding", "padding before each spatial axis (default 0)")
	fs.Var(&p.end, "end-padding", "padding after each spatial axis (default 0)")
	fs.Var(&p.outSize, "output-size", "output extent per spatial axis (default: floor((In+Start+End-(1+(Window-1)*Dilation))/Stride)+1); any extent ≥ 1 is accepted")
	p.indexType = fs.String("index-type", "uint32", "index data type: uint32 or uint64 (argmax/argmin also int32, int64)")
}

// checkFlags validates what does not depend on the input.
func (p *poolFlags) checkFlags() (tensor.DataType, error) {
	if !p.window.set {
		return 0, fmt.Errorf("%w: --window is required", errUsage)
	}
	switch strings.ToLower(*p.indexType) {
	case "uint32", "u32":
		return tensor.UInt32, nil
	case "uint64", "u64":
		return tensor.UInt64, nil
	}
	return 0, fmt.Errorf("%w: --index-type %q: want uint32 or uint64", errUsage, *p.indexType)
}

// desc builds the MAX_POOLING2 desc for an input (what = its name in
// errors), with an indices output when withIndices.
func (p *poolFlags) desc(what string, in tensor.Desc, withIndices bool) (*dml.MaxPooling2, error) {
	idxType, err := p.checkFlags()
	if err != nil {
		return nil, err
	}
	rank := in.Rank()
	if rank != 4 && rank != 5 {
		return nil, fmt.Errorf("%w: %s has %d dimensions %v; max pooling takes 4D (N,C,H,W) or 5D (N,C,D,H,W) tensors", errUsage, what, rank, in.Sizes)
	}
	dims := rank - 2
	lists := []*uintList{&p.window, &p.strides, &p.dilations, &p.start, &p.end}
	names := []string{"window", "strides", "dilations", "start-padding", "end-padding"}
	defs := []uint32{0, 1, 1, 0, 0}
	vals := make([][]uint32, len(lists))
	for i, l := range lists {
		if vals[i], err = l.spatial(names[i], dims, defs[i]); err != nil {
			return nil, err
		}
	}
	w, s, dl, a, b := vals[0], vals[1], vals[2], vals[3], vals[4]
	sizes := []uint32{in.Sizes[0], in.Sizes[1]}
	if p.outSize.set {
		o, err := p.outSize.spatial("output-size", dims, 0)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, o...)
	} else {
		for i := 0; i < dims; i++ {
			if w[i] == 0 || s[i] == 0 || dl[i] == 0 {
				// No extent to derive: CreateOperator names the zero field
				// (WindowSize, Strides or Dilations) and its rule.
				sizes = append(sizes, 1)
				continue
			}
			o := dml.MaxPoolOutputSize(in.Sizes[2+i], w[i], s[i], a[i], b[i], dl[i], false)
			if o < 1 || o > 1<<32-1 {
				return nil, fmt.Errorf("%w: spatial axis %d: the dilated window 1+(%d-1)*%d is larger than the padded input %d+%d+%d, so the output would be empty; give --output-size to choose an extent",
					errUsage, i, w[i], dl[i], in.Sizes[2+i], a[i], b[i])
			}
			sizes = append(sizes, uint32(o))
		}
	}
	desc := &dml.MaxPooling2{
		Input: in, Output: tensor.NewDesc(in.DataType, sizes),
		Strides: s, WindowSize: w, StartPadding: a, EndPadding: b, Dilations: dl,
	}
	if withIndices {
		id := tensor.NewDesc(idxType, sizes)
		desc.OutputIndices = &id
	}
	return desc, nil
}

func init() {
	registerRunner(opRunner{
		name: "maxpool",
		synopsis: "--window W[,..] [--strides ..] [--dilations ..] [--start-padding ..] [--end-padding ..] " +
			"[--output-size ..] [--indices IDX.npy] [--index-type uint32|uint64] IN.npy OUT.npy",
		summary: "MAX_POOLING2: max pooling of a 4D (NCHW) or 5D (NCDHW) tensor, with flat indices",
		flags: func(fs *flag.FlagSet) func(*runContext, []string) error {
			var pf poolFlags
			pf.register(fs)
			indices := fs.String("indices", "", "also write the indices of the maxima, flat over the whole input, to this .npy file")
			return func(ctx *runContext, pos []string) error {
				if len(pos) != 2 {
					return fmt.Errorf("%w: want IN.npy OUT.npy, got %d argument(s)", errUsage, len(pos))
				}
				if _, err := pf.checkFlags(); err != nil {
					return err
				}
				in, err := readInput(pos[0])
				if err != nil {
					return err
				}
				desc, err := pf.desc(pos[0], in.Desc, *indices != "")
				if err != nil {
					return err
				}
				paths := pos[1:]
				if *indices != "" {
					paths = append(paths, *indices)
				}
				return ctx.compute(desc, in, pos[0], paths)
			}
		},
	})
}
