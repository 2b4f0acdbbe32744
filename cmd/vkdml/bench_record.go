package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"strings"
	"time"

	"github.com/vkdml/vkdml/dml"
)

// jsonSchemaVersion is the schema_version of every JSON output of the
// command (docs/json.md); it changes when a key changes meaning or goes.
const jsonSchemaVersion = 1

// benchRecord is one case of `vkdml bench --json`: a self-contained record
// (docs/json.md) with the operator's parameters, the vkdml version and the
// device and driver.
type benchRecord struct {
	SchemaVersion int            `json:"schema_version"`
	VkdmlVersion  string         `json:"vkdml_version"`
	Device        string         `json:"device"`
	DeviceType    string         `json:"device_type"`
	Driver        string         `json:"driver"`
	VulkanAPI     string         `json:"vulkan_api"`
	Op            string         `json:"op"`
	Params        map[string]any `json:"params"`
	Shape         []uint32       `json:"shape"`
	DType         string         `json:"dtype"`
	// Kernel is the strategy that ran; KernelRequested the --kernel value.
	Kernel          string `json:"kernel"`
	KernelRequested string `json:"kernel_requested,omitempty"`
	Bytes           uint64 `json:"bytes"` // read + written per run
	Repeat          int    `json:"repeat"`
	Warmup          int    `json:"warmup"`
	// Device times (timestamp queries) in milliseconds; --op submit
	// measures wall time only and leaves the device-time fields out.
	MedianMS float64 `json:"median_ms,omitempty"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
	P25MS    float64 `json:"p25_ms,omitempty"`
	P75MS    float64 `json:"p75_ms,omitempty"`
	// StddevMS is the timed runs' sample standard deviation, and Noisy
	// says the slowest run took over noisyRatio times the median (both of
	// wall times for --op submit).
	StddevMS float64 `json:"stddev_ms"`
	Noisy    bool    `json:"noisy"`
	// WallMedianMS is the host's Execute + Wait median.
	WallMedianMS float64 `json:"wall_median_ms"`
	// GB/s (1e9 bytes per second) at the median, max and min time.
	GBps      float64   `json:"gbps,omitempty"`
	GBpsLow   float64   `json:"gbps_low,omitempty"`
	GBpsHigh  float64   `json:"gbps_high,omitempty"`
	CopyGBps  float64   `json:"copy_gbps,omitempty"`
	PctOfCopy float64   `json:"pct_of_copy,omitempty"`
	DeviceMS  []float64 `json:"device_ms,omitempty"`
	// StepMS (--steps) is each of the plan's dispatches' median device
	// time, in the plan's order (plan.dispatches): from the end of the
	// dispatch before, so that a step's barrier counts in its time.
	StepMS []float64 `json:"step_ms,omitempty"`
	// --op submit: the bare submit + fence wait of an empty list, and the
	// ratio of the pre-recorded dispatch's wall median to it.
	EmptyWallMedianMS float64 `json:"empty_wall_median_ms,omitempty"`
	SubmitRatio       float64 `json:"submit_ratio,omitempty"`
	// Tuning is every tuning knob the plan was made with (the device
	// class's, with $VKDML_TUNING's and --tune's over them), and Plan the
	// plan that ran, as `vkdml plan --json` prints it; --op submit has
	// neither.
	Tuning map[string]any `json:"tuning,omitempty"`
	Plan   *planRecord    `json:"plan,omitempty"`

	// runsMS are the timed runs' times, device (wall for --op submit),
	// for --format benchstat's one line per run.
	runsMS []float64
}

// recordBase is what every record of one run shares.
type recordBase struct {
	benchRecord
}

func (o *benchOptions) recordBase(d *dml.Device) *recordBase {
	info := d.GPU().Info
	b := &recordBase{benchRecord{
		SchemaVersion: jsonSchemaVersion, VkdmlVersion: vkdmlVersion(),
		Device: info.Name, DeviceType: info.TypeName, Driver: strings.TrimSpace(info.DriverName + " " + info.DriverInfo),
		VulkanAPI: info.API, Op: o.op.Name, Params: o.build.Params(), DType: o.dt.String(),
	}}
	if o.submit {
		b.Op = "submit"
	}
	return b
}

// fill completes a measured record with the shared fields.
func (b *recordBase) fill(r *benchRecord, shape []uint32, kernel string, copyGBps float64) {
	measured := *r
	*r = b.benchRecord
	r.Shape, r.KernelRequested, r.CopyGBps = shape, kernel, copyGBps
	r.Kernel, r.Bytes, r.Repeat, r.Warmup = measured.Kernel, measured.Bytes, measured.Repeat, measured.Warmup
	r.MedianMS, r.MinMS, r.MaxMS, r.P25MS, r.P75MS = measured.MedianMS, measured.MinMS, measured.MaxMS, measured.P25MS, measured.P75MS
	r.WallMedianMS, r.DeviceMS, r.StepMS = measured.WallMedianMS, measured.DeviceMS, measured.StepMS
	r.Tuning, r.Plan = measured.Tuning, measured.Plan
	r.StddevMS, r.Noisy, r.runsMS = measured.StddevMS, measured.Noisy, measured.runsMS
	r.GBps, r.GBpsLow, r.GBpsHigh = measured.GBps, measured.GBpsLow, measured.GBpsHigh
	if copyGBps > 0 {
		r.PctOfCopy = 100 * r.GBps / copyGBps
	}
}

// progress shows how far a bench run is, on a terminal only: a one-line
// bar redrawn with \r, advanced by every timed or warm-up run, so that a
// long single case moves too. Written to anything else it stays silent.
type progress struct {
	w           io.Writer
	total, done int
	last        time.Time
	shown       bool
}

func newProgress(w io.Writer, cases, runsPerCase int) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progress{w: w, total: cases * runsPerCase}
}

// step counts one run and redraws at most ten times a second.
func (p *progress) step() {
	if p == nil {
		return
	}
	p.done++
	if time.Since(p.last) < 100*time.Millisecond && p.done < p.total {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * min(p.done, p.total) / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs", strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.done, p.total)
	p.shown = true
}

// clear erases the bar before a result line is printed.
func (p *progress) clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 60))
	p.shown = false
}

// recordBench prepares desc's operator (dml.Prepare: fresh buffers, its
// dispatch recorded into a closed command list, with the timestamps opts
// asks for; opts.Kernel is kernel) and fills its inputs with random
// values; release frees everything (call it even on error).
func recordBench(d *dml.Device, desc dml.OperatorDesc, kernel string, opts dml.PrepareOptions, rng *rand.Rand) (r benchRecord, list *dml.CommandList, release func(), err error) {
	release = func() {}
	opts.Kernel = kernel
	p, err := d.Prepare(desc, opts)
	if err != nil {
		return r, nil, release, err
	}
	release = p.Release
	r.Kernel = p.Strategy()
	for i, td := range p.Inputs() {
		if td == nil {
			continue
		}
		if err := p.InputBuffer(i).Write(0, randomInput(rng, *td).Data); err != nil {
			return r, nil, release, err
		}
		r.Bytes += td.ElementCount() * uint64(td.DataType.Size())
	}
	for _, td := range p.Outputs() {
		if td != nil {
			r.Bytes += td.ElementCount() * uint64(td.DataType.Size())
		}
	}
	return r, p.List(), release, nil
}
