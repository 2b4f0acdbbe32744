package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/opcount"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// planHelp follows the flags in `vkdml plan -h`.
const planHelp = `vkdml plan prints how an operator would run: its dispatches, each with its
kernel, workgroup and grid, its specialization constants and push words by
name, and facts computed from the plan alone (docs/json.md):
  lanes                     invocations launched
  empty_lanes               invocations that touch no element
  bytes_per_lane_in_flight  bytes one lane loads before it uses the first
  bytes_in_flight           min(lanes, compute units x resident lanes per
                            unit) x bytes_per_lane_in_flight
  serial_partials           most partial results one invocation combines in
                            a loop (0 for a first pass)
  partial_bytes             bytes of split-K partials it writes or reads
  ops_per_byte              SPIR-V ops of its kernel's hot loop, specialised
                            for the plan, per byte it reads and writes
                            (partials included), as internal/opcount counts
                            them; needs spirv-opt and spirv-dis, else null
The operator flags are vkdml bench's. --profile plans for a shipped device
profile or a profile file (vkdml devices --json's output, or one device of
it); with no --profile, for the selected device. Shipped profiles:
  %s
A desc vkdml refuses gives the error CreateOperator gives.

--check also judges each plan by the GPU goals, sized for the h100
profile: serial_partials <= %d and ops_per_byte <= budget_per_byte in
every dispatch (%g, plus %d ops for each exp term over the bytes the
dispatch moves: LOG_SUM_EXP's rule 40 exp), empty lanes <= 1%% of the plan's lanes, partials written and
read <= %d%% of the bytes of its inputs, and, for a case that
moves %d MiB or more, bytes_in_flight >= %d MiB in its streaming dispatch;
it exits 1 when a plan misses one (or its ops cannot be counted).
`

// The goals --check holds plans to (sized for the h100 profile).
const (
	checkMaxSerialPartials = 64
	checkMinInFlight       = 2 << 20
	checkBigCase           = 64 << 20
	// checkMaxOpsPerByte is opcount.BudgetPerByte; checkMaxPartialPercent
	// bounds partial traffic against the bytes the operator reads.
	checkMaxOpsPerByte     = opcount.BudgetPerByte
	checkMaxPartialPercent = 5
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// planProfile is the device a plan is made for, as plan's JSON names it.
type planProfile struct {
	Name                string `json:"name"`
	Device              string `json:"device"`
	Type                string `json:"type"`
	SubgroupSize        uint32 `json:"subgroup_size"`
	ComputeUnits        uint32 `json:"compute_units"`
	LanesPerComputeUnit uint32 `json:"lanes_per_compute_unit"`
	ResidentLanes       uint64 `json:"resident_lanes"`
}

// planDispatch is one step of a plan, with its facts.
type planDispatch struct {
	Kernel               string            `json:"kernel"`
	Workgroup            [3]uint32         `json:"workgroup"`
	Groups               [3]uint32         `json:"groups"`
	Indirect             bool              `json:"indirect"` // the device reads the groups (ops Step.Indirect): none up to Groups, which the counts assume
	Spec                 map[string]uint32 `json:"spec"`
	Push                 map[string]uint32 `json:"push"`
	Barrier              bool              `json:"barrier"`
	BytesRead            uint64            `json:"bytes_read"`
	BytesWritten         uint64            `json:"bytes_written"`
	Lanes                uint64            `json:"lanes"`
	EmptyLanes           uint64            `json:"empty_lanes"`
	BytesPerLaneInFlight uint64            `json:"bytes_per_lane_in_flight"`
	BytesInFlight        uint64            `json:"bytes_in_flight"`
	SerialPartials       uint64            `json:"serial_partials"`
	PartialBytes         uint64            `json:"partial_bytes"`
	// ExpTerms is the exp terms the dispatch computes (REDUCE
	// LOG_SUM_EXP's first passes: rule 40's exp, one per element; 0 where
	// FLOAT16's terms come from the exp table).
	ExpTerms uint64 `json:"exp_terms"`
	// OpsPerByte is nil where the kernel could not be counted (no
	// SPIR-V tools here, or bench's record, which does not count).
	OpsPerByte *float64 `json:"ops_per_byte" jsonschema:"nullable"`
	// BudgetPerByte is the ops per byte --check holds the dispatch to:
	// opcount.BudgetPerByte, plus opcount.ExpOpsAllowance for each exp
	// term over the bytes it moves.
	BudgetPerByte float64 `json:"budget_per_byte"`
}

// planCheck is --check's verdict on one plan.
type planCheck struct {
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures"`
}

// planRecord is one plan of `vkdml plan --json`; bench's JSON carries it
// as "plan" (without the profile, which bench's device fields give).
type planRecord struct {
	SchemaVersion   int            `json:"schema_version,omitempty"`
	VkdmlVersion    string         `json:"vkdml_version,omitempty"`
	Profile         *planProfile   `json:"profile,omitempty"`
	Op              string         `json:"op,omitempty"`
	OperatorType    string         `json:"operator_type"`
	Params          map[string]any `json:"params,omitempty"`
	Shape           []uint32       `json:"shape,omitempty"`
	DType           string         `json:"dtype,omitempty"`
	KernelRequested string         `json:"kernel_requested,omitempty"`
	Strategy        string         `json:"strategy"`
	Bytes           uint64         `json:"bytes"` // the tensors' bytes, read + written, as bench counts them
	InputBytes      uint64         `json:"input_bytes"`
	TemporaryBytes  uint64         `json:"temporary_bytes"`
	PersistentBytes uint64         `json:"persistent_bytes"`
	Tuning          map[string]any `json:"tuning,omitempty"`
	Dispatches      []planDispatch `json:"dispatches"`
	// The steps' sums; SerialPartials their maximum; BytesInFlight that of
	// the streaming dispatch (the one reading the most bytes).
	Lanes             uint64 `json:"lanes"`
	EmptyLanes        uint64 `json:"empty_lanes"`
	BytesRead         uint64 `json:"bytes_read"`
	BytesWritten      uint64 `json:"bytes_written"`
	PartialBytes      uint64 `json:"partial_bytes"`
	SerialPartials    uint64 `json:"serial_partials"`
	StreamingDispatch int    `json:"streaming_dispatch"`
	BytesInFlight     uint64 `json:"bytes_in_flight"`
	// countErr is why ops_per_byte is null, for --check.
	countErr error
	Check    *planCheck `json:"check,omitempty"`
}

// describePlan is plan's record of p, desc's plan on ctx.
func describePlan(ctx *ops.Context, desc ops.Desc, p *ops.Plan) (*planRecord, error) {
	f, err := ops.Facts(ctx, p)
	if err != nil {
		return nil, err
	}
	r := &planRecord{OperatorType: desc.OperatorType(), Strategy: p.Strategy, TemporaryBytes: p.TemporarySize,
		PersistentBytes: p.PersistentSize, Tuning: ops.TuningOf(ctx), Lanes: f.Lanes, EmptyLanes: f.EmptyLanes,
		BytesRead: f.BytesRead, BytesWritten: f.BytesWritten, PartialBytes: f.PartialBytes, SerialPartials: f.SerialPartials,
		StreamingDispatch: f.Streaming, BytesInFlight: f.BytesInFlight}
	for i, ts := range [][]*tensor.Desc{desc.Inputs(), desc.Outputs()} {
		for _, t := range ts {
			if t != nil {
				n := t.ElementCount() * uint64(t.DataType.Size())
				r.Bytes += n
				if i == 0 {
					r.InputBytes += n
				}
			}
		}
	}
	resident := ctx.Limits.ResidentLanes()
	for i, st := range p.Steps {
		spec, push, err := ops.StepValues(p, i)
		if err != nil {
			return nil, err
		}
		k := p.Kernels[st.Kernel]
		df := f.Dispatches[i]
		r.Dispatches = append(r.Dispatches, planDispatch{
			Kernel: k.Variant, Workgroup: [3]uint32{spec[shaders.SpecWorkgroupSize], 1, 1}, Groups: st.Groups,
			Spec: spec, Push: push, Barrier: st.Barrier, Indirect: st.Indirect != nil, BytesRead: df.BytesRead, BytesWritten: df.BytesWritten,
			Lanes: df.Lanes, EmptyLanes: df.EmptyLanes, BytesPerLaneInFlight: df.BytesPerLaneInFlight,
			BytesInFlight: df.BytesInFlight(resident), SerialPartials: df.SerialPartials, PartialBytes: df.PartialBytes,
			ExpTerms: df.ExpTerms, BudgetPerByte: opcount.DispatchBudget(checkMaxOpsPerByte, df),
		})
	}
	return r, nil
}

// countOps sets each dispatch's ops_per_byte, counting p's kernels as
// internal/opcount does; where they cannot be counted, r keeps why.
func (r *planRecord) countOps(ctx *ops.Context, p *ops.Plan) {
	r.countErr = opcount.Available()
	if r.countErr != nil {
		return
	}
	f, err := ops.Facts(ctx, p)
	if err != nil {
		r.countErr = err
		return
	}
	counts, err := opcount.Plan(p, f)
	if err != nil {
		r.countErr = err
		return
	}
	for i := range r.Dispatches {
		r.Dispatches[i].OpsPerByte = &counts[i].OpsPerByte
	}
}

// check judges r by the GPU goals (planHelp).
func (r *planRecord) check() *planCheck {
	c := &planCheck{Failures: []string{}}
	for i, d := range r.Dispatches {
		if d.SerialPartials > checkMaxSerialPartials {
			c.Failures = append(c.Failures, fmt.Sprintf("serial_partials: dispatch %d (%s) combines %d partials in a loop, over %d", i, d.Kernel, d.SerialPartials, checkMaxSerialPartials))
		}
		if d.OpsPerByte != nil && *d.OpsPerByte > d.BudgetPerByte {
			c.Failures = append(c.Failures, fmt.Sprintf("ops_per_byte: dispatch %d (%s) costs %.2f SPIR-V ops per byte moved, over %.4g", i, d.Kernel, *d.OpsPerByte, d.BudgetPerByte))
		}
	}
	if r.countErr != nil {
		c.Failures = append(c.Failures, fmt.Sprintf("ops_per_byte: not counted: %v", r.countErr))
	}
	if r.PartialBytes*100 > r.InputBytes*checkMaxPartialPercent {
		c.Failures = append(c.Failures, fmt.Sprintf("partial_bytes: %d KiB of partials written and read, %.1f%% of the %d MiB of inputs read, over %d%%",
			r.PartialBytes>>10, 100*float64(r.PartialBytes)/float64(r.InputBytes), r.InputBytes>>20, checkMaxPartialPercent))
	}
	if r.EmptyLanes*100 > r.Lanes {
		c.Failures = append(c.Failures, fmt.Sprintf("empty_lanes: %d of %d lanes (%.1f%%) touch no element, over 1%%", r.EmptyLanes, r.Lanes, 100*float64(r.EmptyLanes)/float64(r.Lanes)))
	}
	if r.Bytes >= checkBigCase && r.BytesInFlight < checkMinInFlight {
		c.Failures = append(c.Failures, fmt.Sprintf("bytes_in_flight: %d KiB in flight in dispatch %d for %d MiB moved, under %d KiB", r.BytesInFlight>>10, r.StreamingDispatch, r.Bytes>>20, checkMinInFlight>>10))
	}
	c.Pass = len(c.Failures) == 0
	return c
}

// planOptions are `vkdml plan`'s parsed flags.
type planOptions struct {
	opCases
	forcing planForcing
	profile string
	asJSON  bool
	check   bool
	dev     dml.DeviceOptions
}

func parsePlan(args []string, stdout, stderr io.Writer) (*planOptions, error) {
	o := &planOptions{}
	fs := newFlagSet("plan", "plan --op OP [--dtype T] --shape A,B[,..] [op flags] [--kernel K] [--profile NAME|FILE] [--tune KEY=VALUE] [--json] [--check]", stderr)
	o.flags(fs, opFromArgs(args), " (copy = identity)", "input sizes, e.g. 4096,16384 (repeat the flag for several plans)")
	o.forcing.flags(fs, "force a strategy (default: vkdml chooses; vkdml bench -h lists them)")
	fs.StringVar(&o.profile, "profile", "", "plan for a shipped profile ("+strings.Join(profiles.Names(), ", ")+") or a profile file (default: the selected device)")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per plan (docs/json.md)")
	fs.BoolVar(&o.check, "check", false, "judge each plan by the GPU goals (below); exit 1 when one misses")
	devOpts := deviceFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: vkdml plan --op OP [flags]\n\nFlags (with --op OP, also the operator's own):\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\n"+planHelp, strings.Join(profiles.Names(), ", "), checkMaxSerialPartials, float64(checkMaxOpsPerByte), opcount.ExpOpsAllowance, checkMaxPartialPercent, checkBigCase>>20, checkMinInFlight>>20)
	}
	err := parseFlagsOnly(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	if err := o.validate(" or copy"); err != nil {
		return nil, err
	}
	if _, err := o.forcing.kernels(o.op, false); err != nil {
		return nil, err
	}
	if o.dev, err = o.forcing.device(devOpts); err != nil {
		return nil, err
	}
	return o, o.build.Check()
}

// tuningKnobs lists the knobs --tune takes with their values:
// "argColLoads 0|1|4", "computeUnits 1..65536", "exactGrid true|false".
func tuningKnobs() string {
	keys := ops.TuningKeys()
	for i, k := range keys {
		r, ok := ops.TuningRange(k)
		switch {
		case !ok:
			keys[i] += " true|false"
		case r.Values != nil:
			vals := make([]string, len(r.Values))
			for j, v := range r.Values {
				vals[j] = fmt.Sprint(v)
			}
			keys[i] += " " + strings.Join(vals, "|")
		default:
			keys[i] += fmt.Sprintf(" %d..%d", r.Min, r.Max)
		}
	}
	return strings.Join(keys, ", ")
}

// planContext is the context plans are made on, and the profile's
// description: the named profile's, with the tuning of $VKDML_TUNING and
// --tune, or the selected device's.
func (o *planOptions) planContext() (*ops.Context, *planProfile, error) {
	if o.profile == "" {
		d, err := createDevice(o.dev)
		if err != nil {
			return nil, nil, err
		}
		defer d.Close()
		info := d.GPU().Info
		ctx := d.Context()
		return ctx, describeProfile("device "+fmt.Sprint(info.Index), info.Name, ctx), nil
	}
	p, err := profiles.Load(o.profile)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --profile: %v", errUsage, err)
	}
	tuning, err := dml.DeviceTuning(o.dev.Tuning)
	if err != nil {
		return nil, nil, err
	}
	ctx := &ops.Context{FeatureLevel: dml.MaxFeatureLevel, Features: p.Features, Limits: p.Limits, DeviceType: p.Type, Tuning: tuning}
	return ctx, describeProfile(p.Name, p.Device, ctx), nil
}

func describeProfile(name, device string, ctx *ops.Context) *planProfile {
	l := ctx.Limits
	return &planProfile{Name: name, Device: device, Type: ctx.DeviceType.String(), SubgroupSize: l.SubgroupSize,
		ComputeUnits: l.ComputeUnits, LanesPerComputeUnit: l.LanesPerComputeUnit, ResidentLanes: l.ResidentLanes()}
}

// errPlanCheck is --check's failure: the plans were printed, and one
// misses a goal.
var errPlanCheck = fmt.Errorf("a plan misses the GPU goals (--check)")

// runPlan is `vkdml plan`.
func runPlan(args []string, stdout, stderr io.Writer) error {
	o, err := parsePlan(args, stdout, stderr)
	if err != nil {
		return err
	}
	descs, err := o.descs()
	if err != nil {
		return err
	}
	ctx, prof, err := o.planContext()
	if err != nil {
		return err
	}
	failed := false
	for i, desc := range descs {
		p, err := dml.PlanOperator(ctx, desc, o.forcing.kernel)
		if err != nil {
			return fmt.Errorf("shape %s: %w", tensor.Shape(o.shapes[i]), err)
		}
		r, err := describePlan(ctx, desc, p)
		if err != nil {
			return fmt.Errorf("shape %s: %w", tensor.Shape(o.shapes[i]), err)
		}
		r.countOps(ctx, p)
		r.SchemaVersion, r.VkdmlVersion, r.Profile = jsonSchemaVersion, vkdmlVersion(), prof
		r.Op, r.Params, r.Shape, r.DType, r.KernelRequested = o.op.Name, o.build.Params(), o.shapes[i], o.dt.String(), o.forcing.kernel
		if o.check {
			r.Check = r.check()
			failed = failed || !r.Check.Pass
		}
		if o.asJSON {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			printPlan(stdout, r)
		}
	}
	if failed {
		return errPlanCheck
	}
	return nil
}

// printPlan writes r as a table: a heading, one row of facts per
// dispatch, and each dispatch's nonzero constants and push words.
func printPlan(w io.Writer, r *planRecord) {
	p := r.Profile
	units := "compute units unknown"
	if p.ComputeUnits > 0 {
		units = fmt.Sprintf("%d compute units x %d lanes", p.ComputeUnits, p.LanesPerComputeUnit)
	}
	fmt.Fprintf(w, "%s %s %s on %s (%s, %s, subgroup %d, %s)\n", r.Op, r.DType, tensor.Shape(r.Shape), p.Name, p.Device, p.Type, p.SubgroupSize, units)
	fmt.Fprintf(w, "strategy %s, %d dispatch(es), %d bytes moved, temporary %d B, persistent %d B\n",
		r.Strategy, len(r.Dispatches), r.Bytes, r.TemporaryBytes, r.PersistentBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tkernel\tworkgroup\tgroups\tlanes\tempty\tB/lane\tin flight\tserial\tread\twritten\tpartial\tops/B\t")
	for i, d := range r.Dispatches {
		opsPerByte := "-"
		if d.OpsPerByte != nil {
			opsPerByte = fmt.Sprintf("%.2f", *d.OpsPerByte)
		}
		// An indirect dispatch's groups are the most its arguments hold.
		groups := fmt.Sprintf("%d,%d,%d", d.Groups[0], d.Groups[1], d.Groups[2])
		if d.Indirect {
			groups = "<=" + groups
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", i, d.Kernel, d.Workgroup[0],
			groups, d.Lanes, d.EmptyLanes, d.BytesPerLaneInFlight, d.BytesInFlight,
			d.SerialPartials, d.BytesRead, d.BytesWritten, d.PartialBytes, opsPerByte)
	}
	tw.Flush()
	for i, d := range r.Dispatches {
		fmt.Fprintf(w, "  %d spec: %s\n  %d push: %s\n", i, nonzero(d.Spec), i, nonzero(d.Push))
	}
	if c := r.Check; c != nil {
		if c.Pass {
			fmt.Fprintln(w, "check: pass")
		}
		for _, f := range c.Failures {
			fmt.Fprintf(w, "check: FAIL %s\n", f)
		}
	}
}

// nonzero lists m's nonzero values by name, sorted.
func nonzero(m map[string]uint32) string {
	var names []string
	for k, v := range m {
		if v != 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	if len(parts) == 0 {
		return "(all 0)"
	}
	return strings.Join(parts, " ") + " (others 0)"
}
