package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/vkdml/vkdml/tensor"
)

// The forms `vkdml bench --format` prints.
const (
	formatTable     = "table"
	formatJSON      = "json"
	formatCSV       = "csv"
	formatBenchstat = "benchstat"
)

var benchFormats = []string{formatTable, formatJSON, formatCSV, formatBenchstat}

// noisyRatio is the max/median ratio of a case's run times above which its
// record says noisy: one run more than twice the median means something
// else shared the device (or the host, for wall times), and the median
// alone should not be trusted.
const noisyRatio = 2

// summarize sets the spread of a record's timed runs (milliseconds):
// the sample standard deviation, and noisy when the slowest run took
// more than noisyRatio times the median.
func summarize(r *benchRecord, runsMS []float64, medianMS float64) {
	r.runsMS = runsMS
	r.StddevMS = stddev(runsMS)
	r.Noisy = medianMS > 0 && r.MaxMS/medianMS > noisyRatio
}

// stddev is the sample standard deviation (n-1), 0 for fewer than two.
func stddev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}

// benchOutput prints a bench run's records in one --format.
type benchOutput interface {
	// begin comes once, before the first record.
	begin(base *recordBase)
	record(r *benchRecord)
	// end comes once, after the last record (not after an error).
	end()
}

func newBenchOutput(format string, w io.Writer) benchOutput {
	switch format {
	case formatJSON:
		return &jsonOutput{w: w}
	case formatCSV:
		return &csvOutput{w: csv.NewWriter(w)}
	case formatBenchstat:
		return &benchstatOutput{w: w}
	}
	return &tableOutput{w: w}
}

// tableOutput is the default: a table for people.
type tableOutput struct{ w io.Writer }

func (o *tableOutput) begin(base *recordBase) {
	fmt.Fprintf(o.w, "device: %s (%s)\n", base.Device, base.Driver)
	fmt.Fprintf(o.w, "%-8s %-20s %-8s %-14s %9s %9s %9s %9s %8s %8s\n", "op", "shape", "dtype", "kernel", "median", "min", "max", "wall", "GB/s", "%copy")
}

func (o *tableOutput) record(r *benchRecord) {
	noisy := ""
	if r.Noisy {
		noisy = "  noisy"
	}
	fmt.Fprintf(o.w, "%-8s %-20s %-8s %-14s %8.3fms %8.3fms %8.3fms %8.3fms %8.2f %7.1f%%%s\n",
		r.Op, tensor.Shape(r.Shape), r.DType, r.Kernel, r.MedianMS, r.MinMS, r.MaxMS, r.WallMedianMS, r.GBps, r.PctOfCopy, noisy)
	// --steps: each dispatch's median under the case, by kernel.
	for i, ms := range r.StepMS {
		kernel := ""
		if r.Plan != nil && i < len(r.Plan.Dispatches) {
			kernel = r.Plan.Dispatches[i].Kernel
		}
		fmt.Fprintf(o.w, "  step %-3d %-36s %8.3fms\n", i, kernel, ms)
	}
}

func (o *tableOutput) end() {
	fmt.Fprintf(o.w, "times are device times (timestamp queries) except wall; GB/s counts bytes read + written; noisy: max > %dx median\n", noisyRatio)
}

// jsonOutput is JSON Lines, one self-contained record per case
// (docs/json.md).
type jsonOutput struct{ w io.Writer }

func (o *jsonOutput) begin(*recordBase) {}

func (o *jsonOutput) record(r *benchRecord) {
	b, _ := json.Marshal(r)
	fmt.Fprintln(o.w, string(b))
}

func (o *jsonOutput) end() {}

// csvColumns are the CSV header: the JSON keys of docs/json.md that have
// one value per case, params flattened into one column.
var csvColumns = []string{
	"op", "shape", "dtype", "kernel", "kernel_requested", "params", "bytes", "repeat", "warmup",
	"median_ms", "min_ms", "max_ms", "p25_ms", "p75_ms", "stddev_ms", "noisy", "wall_median_ms",
	"gbps", "gbps_low", "gbps_high", "copy_gbps", "pct_of_copy", "empty_wall_median_ms", "submit_ratio",
	"device", "device_type", "driver", "vulkan_api", "vkdml_version",
}

// csvOutput is CSV (RFC 4180) with a header row, one row per case.
type csvOutput struct{ w *csv.Writer }

func (o *csvOutput) begin(*recordBase) {
	o.w.Write(csvColumns)
	o.w.Flush()
}

func (o *csvOutput) record(r *benchRecord) {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	// The columns JSON leaves out when they do not apply (--op submit has
	// no device times; only it has the empty list's) are empty.
	opt := func(v float64) string {
		if v == 0 {
			return ""
		}
		return num(v)
	}
	row := map[string]string{
		"op": r.Op, "shape": strings.Trim(tensor.Shape(r.Shape), "[]"), "dtype": r.DType, "kernel": r.Kernel,
		"kernel_requested": r.KernelRequested, "params": paramWords(r.Params, " "),
		"bytes": strconv.FormatUint(r.Bytes, 10), "repeat": strconv.Itoa(r.Repeat), "warmup": strconv.Itoa(r.Warmup),
		"median_ms": opt(r.MedianMS), "min_ms": num(r.MinMS), "max_ms": num(r.MaxMS), "p25_ms": opt(r.P25MS),
		"p75_ms": opt(r.P75MS), "stddev_ms": num(r.StddevMS), "noisy": strconv.FormatBool(r.Noisy),
		"wall_median_ms": num(r.WallMedianMS), "gbps": opt(r.GBps), "gbps_low": opt(r.GBpsLow),
		"gbps_high": opt(r.GBpsHigh), "copy_gbps": opt(r.CopyGBps), "pct_of_copy": opt(r.PctOfCopy),
		"empty_wall_median_ms": opt(r.EmptyWallMedianMS), "submit_ratio": opt(r.SubmitRatio),
		"device": r.Device, "device_type": r.DeviceType, "driver": r.Driver, "vulkan_api": r.VulkanAPI,
		"vkdml_version": r.VkdmlVersion,
	}
	rec := make([]string, len(csvColumns))
	for i, c := range csvColumns {
		rec[i] = row[c]
	}
	o.w.Write(rec)
	o.w.Flush()
}

func (o *csvOutput) end() {}

// benchstatOutput is the Go benchmark format (golang.org/design/14313),
// which benchstat compares: configuration lines, then one result line per
// timed run, 1 iteration each, in ns/op and MB/s.
//
// The configuration names only what tells machines apart (goos, goarch,
// cpu = the Vulkan device, its driver), not vkdml's version: benchstat
// keeps results whose configuration differs in separate tables, and the
// usual comparison is of two vkdml versions on one machine.
type benchstatOutput struct {
	w     io.Writer
	procs int
}

func (o *benchstatOutput) begin(base *recordBase) {
	o.procs = runtime.GOMAXPROCS(0)
	fmt.Fprintf(o.w, "goos: %s\ngoarch: %s\npkg: github.com/vkdml/vkdml/cmd/vkdml\ncpu: %s\nvulkan-driver: %s\n",
		runtime.GOOS, runtime.GOARCH, oneLine(base.Device), oneLine(base.Driver))
}

func (o *benchstatOutput) record(r *benchRecord) {
	name := benchstatName(r)
	for _, ms := range r.runsMS {
		ns := ms * 1e6
		line := fmt.Sprintf("%s-%d\t1\t%s ns/op", name, o.procs, strconv.FormatFloat(ns, 'f', -1, 64))
		if ns > 0 && r.Op != "submit" { // submit moves no data worth a rate
			line += fmt.Sprintf("\t%s MB/s", strconv.FormatFloat(float64(r.Bytes)/ns*1e3, 'f', 2, 64))
		}
		fmt.Fprintln(o.w, line)
	}
}

func (o *benchstatOutput) end() {}

// benchstatName is a case's benchmark name: Benchmark, the operator, then
// what identifies the case as sub-benchmark keys, which benchstat can
// filter and project on: BenchmarkArgmax/shape=64x256/dtype=FLOAT32/
// axes=1/direction=increasing/index_type=uint32, plus kernel=K when
// --kernel forced one (a planner's own choice may change between the
// versions compared; the case stays the same).
func benchstatName(r *benchRecord) string {
	op := r.Op
	if op != "" {
		op = strings.ToUpper(op[:1]) + op[1:]
	}
	shape := make([]string, len(r.Shape))
	for i, s := range r.Shape {
		shape[i] = strconv.FormatUint(uint64(s), 10)
	}
	parts := []string{"Benchmark" + op, "shape=" + strings.Join(shape, "x"), "dtype=" + r.DType}
	if p := paramWords(r.Params, "/"); p != "" {
		parts = append(parts, p)
	}
	if r.KernelRequested != "" {
		parts = append(parts, "kernel="+nameValue(r.KernelRequested))
	}
	return strings.Join(parts, "/")
}

// paramWords writes an operator's parameters as key=value words in key
// order, joined by sep; lists are comma-separated. Values lose anything a
// benchmark name cannot hold (spaces, slashes).
func paramWords(params map[string]any, sep string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	words := make([]string, len(keys))
	for i, k := range keys {
		var v string
		switch x := params[k].(type) {
		case []uint32:
			s := make([]string, len(x))
			for j, n := range x {
				s[j] = strconv.FormatUint(uint64(n), 10)
			}
			v = strings.Join(s, ",")
		default:
			v = fmt.Sprint(x)
		}
		words[i] = k + "=" + nameValue(v)
	}
	return strings.Join(words, sep)
}

// nameValue makes v fit a benchmark name: no spaces, no "/" (which
// separates sub-benchmarks).
func nameValue(v string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return -1
		case r == '/':
			return '_'
		}
		return r
	}, v)
}

// oneLine keeps a configuration value on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
