package main

import (
	"flag"
	"fmt"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

func init() {
	registerRunner(opRunner{
		name:     "identity",
		synopsis: "IN.npy OUT.npy",
		summary:  "ELEMENT_WISE_IDENTITY: copy (a Fortran-order input comes out in C order)",
		flags: func(fs *flag.FlagSet) func(*runContext, []string) error {
			return func(ctx *runContext, pos []string) error {
				if len(pos) != 2 {
					return fmt.Errorf("%w: want IN.npy OUT.npy, got %d argument(s)", errUsage, len(pos))
				}
				in, err := readInput(pos[0])
				if err != nil {
					return err
				}
				desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(in.Desc.DataType, in.Desc.Sizes)}
				return ctx.compute(desc, in, pos[0], pos[1:])
			}
		},
	})
}
