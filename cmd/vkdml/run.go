package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/ops"
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
	synopsis := op.Synopsis + " " + runForcingSynopsis
	fs := newFlagSet("run "+op.Name, "run "+op.Name+" "+synopsis, stderr)
	devOpts := deviceFlags(fs)
	var forcing planForcing
	forcing.flags(fs, "force a kernel strategy of "+op.Name+": "+strings.Join(op.Kernels(), ", ")+" (default: vkdml chooses; below)")
	b := op.Flags(fs, operators.UseRun)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: vkdml run %s %s\n\n%s\n\nFlags:\n", op.Name, synopsis, op.Summary)
		fs.PrintDefaults()
		if op.Help != "" {
			fmt.Fprintf(w, "\n%s", op.Help)
		}
		if ex := op.ExamplesHelp(); ex != "" {
			fmt.Fprintf(w, "\n%s", ex)
		}
		fmt.Fprintf(w, "\n%s\n%s", runForcingHelp(op), outputHelp)
	}
	pos, err := parseInterleaved(fs, args[1:], stdout)
	if err != nil {
		return err
	}
	if err := b.Check(); err != nil {
		return err
	}
	if _, err := forcing.kernels(op, false); err != nil {
		return err
	}
	dev, err := forcing.device(devOpts)
	if err != nil {
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
	d, err := createDevice(dev)
	if err != nil {
		return err
	}
	defer func() { // Close may report leaks: print the messages after it
		d.Close()
		for _, m := range d.DebugMessages() {
			fmt.Fprintln(stderr, m)
		}
	}()
	outs, err := computeForced(d, desc, forcing.kernel, tensors)
	if err != nil {
		return err
	}
	// The outputs present are the first len(paths): an absent optional
	// output is never among them.
	return writeOutputs(inPaths, paths, outs[:len(paths)])
}

// runForcingSynopsis and runForcingText document run's --kernel and --tune;
// runForcingHelp adds the operator's own example.
const (
	runForcingSynopsis = "[--kernel K] [--tune KEY=VALUE]"
	runForcingText     = `--kernel forces the planner's kernel strategy and --tune sets tuning knobs, as
in vkdml bench and vkdml plan (which shows the plan). A strategy that cannot
run the case is an error saying why, never a silent fallback. vkdml's answer
is the same bits under every strategy and tuning`
)

// runForcingExample is one operator's flags and two of its strategies that
// both run a case of those flags (TestRunForcingExamples runs them).
type runForcingExample struct {
	flags   string
	kernels [2]string
}

// runForcingExamples are the examples run -h gives; an operator of one
// strategy (maxunpool) has none.
var runForcingExamples = map[string]runForcingExample{
	"argmax":   {"--axes 0", [2]string{"thread", "splitk"}},
	"argmin":   {"--axes 0", [2]string{"thread", "splitk"}},
	"identity": {"", [2]string{"vec4", "strided"}},
	"maxpool":  {"--window 2 --strides 2", [2]string{"direct", "vec2x2"}},
	"reduce":   {"--function sum --axes 0", [2]string{"thread", "splitk"}},
	"topk":     {"--k 50", [2]string{"filter", "sort"}},
}

// runForcingHelp is the paragraph run -h prints on --kernel and --tune for
// op, with its example: the same input under two strategies, and the
// output files compared.
func runForcingHelp(op *operators.Operator) string {
	ex, ok := runForcingExamples[op.Name]
	if !ok {
		return runForcingText + ".\n"
	}
	var b strings.Builder
	b.WriteString(runForcingText + ": run one input\nunder each and compare the files, e.g.\n")
	flags := ""
	if ex.flags != "" {
		flags = " " + ex.flags
	}
	outs := make([][]string, 2)
	for i, k := range ex.kernels {
		name := string(rune('A' + i))
		outs[i] = []string{name + ".npy"}
		if op.RequiredOutputs() == 2 {
			outs[i] = append(outs[i], name+"I.npy")
		}
		fmt.Fprintf(&b, "  vkdml run %s%s --kernel %s IN.npy %s\n", op.Name, flags, k, strings.Join(outs[i], " "))
	}
	var cmps []string
	for j := range outs[0] {
		cmps = append(cmps, "cmp "+outs[0][j]+" "+outs[1][j])
	}
	fmt.Fprintf(&b, "  %s\n", strings.Join(cmps, " && "))
	return b.String()
}

// computeForced is Device.Compute with kernel forced on the planner ("":
// vkdml chooses, and the compiled operator cache serves).
func computeForced(d *dml.Device, desc dml.OperatorDesc, kernel string, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if kernel == "" {
		return d.Compute(desc, ins...)
	}
	p, err := d.Prepare(desc, dml.PrepareOptions{Kernel: kernel})
	var he *hresult.Error
	if errors.As(err, &he) && he.Field == "Kernel" { // the strategy cannot run this desc
		return nil, fmt.Errorf("%w: --kernel %s: %w", errUsage, kernel, err)
	}
	if err != nil {
		return nil, err
	}
	defer p.Release()
	if ran := p.Strategy(); ran != kernel && !strings.HasPrefix(ran, kernel+"-") {
		// The planner takes vec as a preference (ops.ArgStrategyVec):
		// running its fallback would show a plan the user did not ask for.
		return nil, fmt.Errorf("%w: --kernel %s cannot run this %s: %s; the planner would run %s instead", errUsage, kernel, desc.OperatorType(), forcedRule(kernel), ran)
	}
	in := make([][]byte, len(ins))
	for i, t := range ins {
		if t != nil {
			in[i] = t.Data
		}
	}
	outs := make([]*tensor.Tensor, len(p.Outputs()))
	out := make([][]byte, len(outs))
	for i, td := range p.Outputs() {
		if td != nil {
			outs[i] = &tensor.Tensor{Desc: td.Clone(), Data: make([]byte, td.TotalTensorSizeInBytes)}
			out[i] = outs[i].Data
		}
	}
	return outs, p.Run(in, out)
}

// forcedRule says when a strategy the planner may decline applies.
func forcedRule(kernel string) string {
	if kernel == ops.ArgStrategyVec {
		return "the vectorised kernels need a layout of 16- or 32-byte loads (the reduced block contiguous, or the innermost kept axis) and integer state; of REDUCE's float functions only SUM, AVERAGE, L1, LOG_SUM, SUM_SQUARE, L2 and MULTIPLY of FLOAT16 columns (the innermost kept axis a multiple of 8, contiguous) run on them, on a device with shaderInt64"
	}
	return "the strategy does not fit this case"
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
