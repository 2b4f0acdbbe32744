package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/tensor"
)

func init() {
	for _, name := range []string{"argmax", "argmin"} {
		name := name
		registerRunner(opRunner{
			name:     name,
			synopsis: "--axes A[,B...] [--direction increasing|decreasing] [--index-type uint32|int32|uint64|int64] IN.npy OUT.npy",
			summary:  strings.ToUpper(name) + ": index of the " + map[string]string{"argmax": "largest", "argmin": "smallest"}[name] + " element over the given axes (the output keeps the input's rank)",
			flags: func(fs *flag.FlagSet) func(*runContext, []string) error {
				axesFlag := fs.String("axes", "", "comma-separated axes to reduce, e.g. 0,2 (required; the index runs row-major over them)")
				dirFlag := fs.String("direction", "increasing", "which of equal extremes: increasing (the first) or decreasing (the last)")
				typeFlag := fs.String("index-type", "uint32", "output index type: uint32, int32, uint64 or int64")
				return func(ctx *runContext, pos []string) error {
					return runArg(ctx, name, pos, *axesFlag, *dirFlag, *typeFlag)
				}
			},
		})
	}
}

// parseArgAxes parses "A[,B...]": axes in [0, rank).
func parseArgAxes(s string, rank int) ([]uint32, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: --axes is required (e.g. --axes 0 or --axes 0,1)", errUsage)
	}
	var axes []uint32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: --axes %q: %q is not a non-negative integer", errUsage, s, f)
		}
		if rank > 0 && v >= uint64(rank) {
			return nil, fmt.Errorf("%w: --axes %q: axis %d is out of range for a rank-%d input (axes are 0..%d)", errUsage, s, v, rank, rank-1)
		}
		axes = append(axes, uint32(v))
	}
	return axes, nil
}

// argDesc builds the ARGMAX or ARGMIN desc for an input; the output keeps
// the input's rank.
func argDesc(name string, in tensor.Desc, axesS, dirS, typeS string) (dml.OperatorDesc, error) {
	dir, idx, err := argFlags(axesS, dirS, typeS)
	if err != nil {
		return nil, err
	}
	axes, err := parseArgAxes(axesS, in.Rank())
	if err != nil {
		return nil, err
	}
	sizes := append([]uint32(nil), in.Sizes...)
	for _, a := range axes {
		sizes[a] = 1
	}
	out := tensor.NewDesc(idx, sizes)
	if name == "argmax" {
		return &dml.ArgMax{Input: in, Output: out, Axes: axes, AxisDirection: dir}, nil
	}
	return &dml.ArgMin{Input: in, Output: out, Axes: axes, AxisDirection: dir}, nil
}

// argFlags checks the flags that do not depend on the input.
func argFlags(axesS, dirS, typeS string) (dml.AxisDirection, tensor.DataType, error) {
	var dir dml.AxisDirection
	switch strings.ToLower(dirS) {
	case "increasing":
		dir = dml.AxisDirectionIncreasing
	case "decreasing":
		dir = dml.AxisDirectionDecreasing
	default:
		return 0, 0, fmt.Errorf("%w: --direction %q: want increasing or decreasing", errUsage, dirS)
	}
	idx := map[string]tensor.DataType{"uint32": tensor.UInt32, "int32": tensor.Int32, "uint64": tensor.UInt64, "int64": tensor.Int64}[strings.ToLower(typeS)]
	if idx == tensor.Unknown {
		return 0, 0, fmt.Errorf("%w: --index-type %q: want uint32, int32, uint64 or int64", errUsage, typeS)
	}
	if _, err := parseArgAxes(axesS, 0); err != nil {
		return 0, 0, err
	}
	return dir, idx, nil
}

func runArg(ctx *runContext, name string, pos []string, axesS, dirS, typeS string) error {
	if _, _, err := argFlags(axesS, dirS, typeS); err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: want IN.npy OUT.npy, got %d argument(s)", errUsage, len(pos))
	}
	in, err := readInput(pos[0])
	if err != nil {
		return err
	}
	desc, err := argDesc(name, in.Desc, axesS, dirS, typeS)
	if err != nil {
		return err
	}
	return ctx.compute(desc, in, pos[0], pos[1:])
}
