package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// opRunner is one operator of `vkdml run OP [flags] IN.npy OUT.npy`. Each
// operator's file registers its runner in init.
type opRunner struct {
	name     string // argmax, argmin, maxpool, ...
	synopsis string // the usage line after "vkdml run NAME "
	summary  string
	// flags registers the operator's flags on fs and returns the function
	// that runs it once the flags and the positional arguments are parsed.
	flags func(fs *flag.FlagSet) func(ctx *runContext, pos []string) error
}

// runContext is what a runner gets: the device (opened only once the
// arguments are known to be good) and the output streams.
type runContext struct {
	open   func() (*dml.Device, error)
	dev    *dml.Device // set by open, for the debug messages
	stdout io.Writer
	stderr io.Writer
}

var opRunners = map[string]opRunner{}

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

func registerRunner(r opRunner) {
	if _, dup := opRunners[r.name]; dup {
		panic("vkdml: runner registered twice: " + r.name)
	}
	opRunners[r.name] = r
}

func runnerNames() []string {
	var names []string
	for n := range opRunners {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runRun(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintf(stdout, "Usage: vkdml run OP [flags] IN.npy OUT.npy\n\nOperators:\n")
			for _, n := range runnerNames() {
				fmt.Fprintf(stdout, "  %-8s %s\n", n, opRunners[n].summary)
			}
			return flag.ErrHelp
		}
		return fmt.Errorf("%w: name an operator: vkdml run {%s} [flags] IN.npy OUT.npy", errUsage, strings.Join(runnerNames(), "|"))
	}
	r, ok := opRunners[args[0]]
	if !ok {
		return fmt.Errorf("%w: unknown operator %q (operators: %s)", errUsage, args[0], strings.Join(runnerNames(), ", "))
	}
	fs := newFlagSet("run "+r.name, "run "+r.name+" "+r.synopsis, stderr)
	devOpts := deviceFlags(fs)
	exec := r.flags(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	ctx := &runContext{stdout: stdout, stderr: stderr}
	ctx.open = func() (*dml.Device, error) {
		d, err := createDevice(devOpts())
		ctx.dev = d
		return d, err
	}
	err = exec(ctx, pos)
	if ctx.dev != nil {
		for _, m := range ctx.dev.DebugMessages() {
			fmt.Fprintln(stderr, m)
		}
	}
	return err
}

// compute runs desc on the device and writes its first len(paths) outputs
// (an absent optional output is never among them), all or none. The
// outputs are checked before the device opens; inPath is the input's file,
// which no output may be.
func (ctx *runContext) compute(desc ops.Desc, in *tensor.Tensor, inPath string, paths []string) error {
	if _, err := checkOutputs([]string{inPath}, paths); err != nil {
		return err
	}
	d, err := ctx.open()
	if err != nil {
		return err
	}
	defer d.Close()
	outs, err := d.Compute(desc, in)
	if err != nil {
		return err
	}
	return writeOutputs([]string{inPath}, paths, outs[:len(paths)])
}

// readInput reads an .npy input, naming the file in errors.
func readInput(path string) (*tensor.Tensor, error) {
	t, err := tensor.ReadNpyFile(path)
	if err != nil {
		return nil, err
	}
	return t, nil
}
