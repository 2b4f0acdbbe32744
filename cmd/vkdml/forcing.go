package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/ops"
)

// planForcing is --kernel and --tune, which bench, plan and run take
// alike: a kernel strategy forced on the planner, and tuning knobs over
// $VKDML_TUNING's file.
type planForcing struct {
	kernel string
	tune   stringList
}

// flags registers --kernel, with kernelUsage, and --tune on fs.
func (f *planForcing) flags(fs *flag.FlagSet, kernelUsage string) {
	fs.StringVar(&f.kernel, "kernel", "", kernelUsage)
	fs.Var(&f.tune, "tune", "set a tuning knob, KEY=VALUE (repeatable; over $VKDML_TUNING's file; knobs and their ranges: "+tuningKnobs()+")")
}

// kernels checks --kernel against op's strategies: "" (vkdml chooses),
// one strategy, or, where all is allowed (bench), every one.
func (f *planForcing) kernels(op *operators.Operator, allowAll bool) ([]string, error) {
	switch {
	case f.kernel == "":
		return []string{""}, nil
	case f.kernel == "all" && allowAll:
		return op.Kernels(), nil
	}
	for _, s := range op.Kernels() {
		if s == f.kernel {
			return []string{s}, nil
		}
	}
	also := ""
	if allowAll {
		also = ", or all"
	}
	return nil, fmt.Errorf("%w: --kernel %q is not a strategy of %s (strategies: %s%s)", errUsage, f.kernel, op.Name, strings.Join(op.Kernels(), ", "), also)
}

// device is the device flags' options with --tune's knobs.
func (f *planForcing) device(devOpts func() dml.DeviceOptions) (dml.DeviceOptions, error) {
	tuning, err := ops.ParseTuning(f.tune)
	if err != nil {
		return dml.DeviceOptions{}, fmt.Errorf("%w: --tune: %v", errUsage, err)
	}
	dev := devOpts()
	dev.Tuning = tuning
	return dev, nil
}
