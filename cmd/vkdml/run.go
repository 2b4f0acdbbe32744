package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/tensor"
)

// createDevice opens the device for every command; the fuzz test replaces
// it so that argument parsing is exercised without a GPU.
var createDevice = dml.CreateDevice

// deviceFlags registers --device and --debug on fs and returns the device
// options they give once parsed.
func deviceFlags(fs *flag.FlagSet) func() dml.DeviceOptions {
	sel := fs.String("device", "", "device index or name substring (default $VKDML_DEVICE, then the best device)")
	debug := fs.Bool("debug", false, "turn on the Vulkan validation layer")
	return func() dml.DeviceOptions {
		opts := dml.DeviceOptions{Device: *sel}
		if *debug {
			opts.Flags |= dml.CreateDeviceFlagDebug
		}
		return opts
	}
}

// runHelp is `vkdml run -h`: the operators of the table.
func runHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: vkdml run OP [flags] IN.npy OUT.npy\n\nOperators:\n")
	for _, n := range operators.Names() {
		op, _ := operators.Lookup(n)
		fmt.Fprintf(w, "  %-9s %s\n", n, op.Summary)
	}
	fmt.Fprintf(w, "\nRun 'vkdml run OP -h' for an operator's flags.\n\n%s", outputHelp)
}

// runRun is `vkdml run OP [flags] IN.npy [IN2.npy ...] OUT.npy`: one
// operator of the table on .npy files, one per input the operator has,
// its outputs written all or none.
func runRun(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			runHelp(stdout)
			return flag.ErrHelp
		}
		return fmt.Errorf("%w: name an operator: vkdml run {%s} [flags] IN.npy OUT.npy", errUsage, strings.Join(operators.Names(), "|"))
	}
	op, ok := operators.Lookup(args[0])
	if !ok {
		return fmt.Errorf("%w: unknown operator %q (operators: %s)", errUsage, args[0], strings.Join(operators.Names(), ", "))
	}
	fs := newFlagSet("run "+op.Name, "run "+op.Name+" "+op.Synopsis, stderr)
	devOpts := deviceFlags(fs)
	b := op.Flags(fs, operators.UseRun)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: vkdml run %s %s\n\n%s\n\nFlags:\n", op.Name, op.Synopsis, op.Summary)
		fs.PrintDefaults()
		if op.Help != "" {
			fmt.Fprintf(w, "\n%s", op.Help)
		}
		if ex := op.ExamplesHelp(); ex != "" {
			fmt.Fprintf(w, "\n%s", ex)
		}
		fmt.Fprintf(w, "\n%s", outputHelp)
	}
	pos, err := parseInterleaved(fs, args[1:], stdout)
	if err != nil {
		return err
	}
	if err := b.Check(); err != nil {
		return err
	}
	// The files are the operator's inputs in order, then one file per
	// output it always has (OUT.npy; TOP_K's VALUES.npy INDICES.npy).
	nOut := op.RequiredOutputs()
	nIn := len(pos) - nOut
	if nIn < op.RequiredInputs() || nIn > len(op.Inputs()) {
		return fmt.Errorf("%w: want %s %s, got %d argument(s)", errUsage, op.InputFiles(), op.OutputFiles(), len(pos))
	}
	inPaths, paths := pos[:nIn], pos[nIn:]
	if b.ExtraOutputs != nil {
		paths = append(paths, b.ExtraOutputs()...)
	}
	if _, err := checkOutputs(inPaths, paths); err != nil {
		return err
	}
	ins, tensors, err := readInputs(op, inPaths)
	if err != nil {
		return err
	}
	desc, err := b.Desc(ins)
	if err != nil {
		return err
	}
	d, err := createDevice(devOpts())
	if err != nil {
		return err
	}
	defer func() { // Close may report leaks: print the messages after it
		d.Close()
		for _, m := range d.DebugMessages() {
			fmt.Fprintln(stderr, m)
		}
	}()
	outs, err := d.Compute(desc, tensors...)
	if err != nil {
		return err
	}
	// The outputs present are the first len(paths): an absent optional
	// output is never among them.
	return writeOutputs(inPaths, paths, outs[:len(paths)])
}

// readInputs reads the input files, one per input of op in order; the
// inputs past them are optional ones left out (nil).
func readInputs(op *operators.Operator, files []string) ([]operators.Input, []*tensor.Tensor, error) {
	n := len(op.Inputs())
	ins, ts := make([]operators.Input, n), make([]*tensor.Tensor, n)
	for i, f := range files {
		t, err := tensor.ReadNpyFile(f)
		if err != nil {
			return nil, nil, err
		}
		ins[i], ts[i] = operators.Input{Name: f, Desc: &t.Desc}, t
	}
	return ins, ts, nil
}
