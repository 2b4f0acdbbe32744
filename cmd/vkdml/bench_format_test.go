package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/vkdml/vkdml/internal/testutil"
)

// benchLine is one line of a Go benchmark data file, as the format's
// specification (golang.org/design/14313-benchmark-format) reads it.
type benchLine struct {
	config     bool   // a configuration line: key and value set
	key, value string // configuration
	name       string // a result: the name, iterations and value/unit pairs
	iters      int
	values     map[string]float64
}

// parseBenchLine reads one line by the specification: a configuration
// line is "key: value", the key starting with a lower-case letter and
// holding no space or upper-case letter, one or more spaces or tabs
// after the colon; a result line is a name starting with "Benchmark" and
// then an upper-case letter (or nothing), an integer iteration count, and
// one or more "value unit" pairs, fields separated by white space. Any
// other line is not part of the data: ok is false.
func parseBenchLine(l string) (b benchLine, ok bool, err error) {
	if strings.HasPrefix(l, "Benchmark") {
		f := strings.Fields(l)
		rest := strings.TrimPrefix(f[0], "Benchmark")
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && !unicode.IsUpper(r) {
			return b, false, nil // "Benchmarking ..." is ordinary text
		}
		if len(f) < 4 || len(f)%2 != 0 {
			return b, true, fmt.Errorf("%q: want a name, an iteration count and value/unit pairs", l)
		}
		b.name, b.values = f[0], map[string]float64{}
		if b.iters, err = strconv.Atoi(f[1]); err != nil || b.iters < 1 {
			return b, true, fmt.Errorf("%q: iteration count %q", l, f[1])
		}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return b, true, fmt.Errorf("%q: value %q", l, f[i])
			}
			b.values[f[i+1]] = v
		}
		return b, true, nil
	}
	k, v, found := strings.Cut(l, ":")
	if !found || k == "" {
		return b, false, nil
	}
	for i, r := range k {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return b, false, nil
		}
	}
	if v != "" && v[0] != ' ' && v[0] != '\t' {
		return b, false, nil
	}
	return benchLine{config: true, key: k, value: strings.TrimLeft(v, " \t")}, true, nil
}

// TestBenchstatFormat: --format benchstat prints the configuration lines
// benchstat groups by, then exactly one result line per timed run, each a
// valid Go benchmark line in ns/op and MB/s, named by the case.
func TestBenchstatFormat(t *testing.T) {
	code, out, stderr := vkdml("bench", "--op", "argmax", "--shape", "64,256", "--shape", "8,8", "--axes", "1",
		"--repeat", "3", "--warmup", "1", "--format", "benchstat")
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") || strings.Contains(stderr, "no Vulkan") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	config := map[string]string{}
	results := map[string]int{}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		b, ok, err := parseBenchLine(l)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("line %q is neither configuration nor a result", l)
			continue
		}
		if b.config {
			if len(results) > 0 {
				t.Errorf("configuration %q after the results", l)
			}
			config[b.key] = b.value
			continue
		}
		if b.iters != 1 || b.values["ns/op"] <= 0 || b.values["MB/s"] <= 0 || len(b.values) != 2 {
			t.Errorf("result %q: want 1 iteration, ns/op and MB/s, both positive", l)
		}
		base, procs, found := strings.Cut(b.name[strings.LastIndex(b.name, "/")+1:], "-")
		if n, err := strconv.Atoi(procs); !found || err != nil || n < 1 || strings.Contains(procs, "-") {
			t.Errorf("result %q: the name lacks the -GOMAXPROCS suffix (%q)", l, base)
		}
		results[strings.TrimSuffix(b.name, "-"+procs)]++
	}
	for _, k := range []string{"goos", "goarch", "pkg", "cpu"} {
		if config[k] == "" {
			t.Errorf("no %s: configuration line in\n%s", k, out)
		}
	}
	for _, name := range []string{
		"BenchmarkArgmax/shape=64x256/dtype=FLOAT32/axes=1/direction=increasing/index_type=uint32",
		"BenchmarkArgmax/shape=8x8/dtype=FLOAT32/axes=1/direction=increasing/index_type=uint32",
	} {
		if results[name] != 3 {
			t.Errorf("%s: %d result lines, want one per timed run (3); got %v", name, results[name], results)
		}
	}
}

func TestParseBenchLine(t *testing.T) {
	for _, c := range []struct {
		line   string
		ok     bool
		config bool
		bad    bool
	}{
		{"goos: linux", true, true, false},
		{"cpu: llvmpipe (LLVM 15.0.6, 256 bits)", true, true, false},
		{"BenchmarkArgmax/shape=8x8-2\t1\t1234.5 ns/op\t12.00 MB/s", true, false, false},
		{"Benchmark 1 5 ns/op", true, false, false},
		{"BenchmarkX-2 one 5 ns/op", true, false, true},
		{"BenchmarkX-2 1 5", true, false, true},
		{"BenchmarkX-2 1 NaN ns/op", true, false, true},
		{"Benchmarking is fun", false, false, false},
		{"Goos: linux", false, false, false},
		{"go os: linux", false, false, false},
		{"goos:linux", false, false, false},
		{"PASS", false, false, false},
	} {
		b, ok, err := parseBenchLine(c.line)
		if ok != c.ok || (err != nil) != c.bad || (!c.bad && b.config != c.config) {
			t.Errorf("%q: ok %v config %v err %v", c.line, ok, b.config, err)
		}
	}
}

// TestBenchCSV: --format csv is a header row and one row per case, every
// numeric column a number.
func TestBenchCSV(t *testing.T) {
	code, out, stderr := vkdml("bench", "--op", "maxpool", "--shape", "1,2,16,16", "--window", "2", "--strides", "2",
		"--kernel", "all", "--repeat", "2", "--warmup", "0", "--format", "csv")
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") || strings.Contains(stderr, "no Vulkan") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, out)
	}
	if len(rows) != 3 || strings.Join(rows[0], ",") != strings.Join(csvColumns, ",") {
		t.Fatalf("want the header and one row per strategy (direct, vec2x2):\n%s", out)
	}
	for _, row := range rows[1:] {
		for i, col := range csvColumns {
			switch {
			case col == "empty_wall_median_ms" || col == "submit_ratio":
				if row[i] != "" {
					t.Errorf("column %s: %q; --op submit's column is empty for other operators", col, row[i])
				}
			case strings.HasSuffix(col, "_ms") || strings.HasPrefix(col, "gbps") || col == "copy_gbps" || col == "pct_of_copy" || col == "bytes" || col == "repeat":
				if v, err := strconv.ParseFloat(row[i], 64); err != nil || v <= 0 && col != "stddev_ms" {
					t.Errorf("column %s: %q is not a positive number", col, row[i])
				}
			case col == "noisy":
				if _, err := strconv.ParseBool(row[i]); err != nil {
					t.Errorf("column noisy: %q", row[i])
				}
			}
		}
		if row[0] != "maxpool" || row[1] != "1,2,16,16" || row[2] != "FLOAT32" {
			t.Errorf("row %q", row)
		}
	}
}

// TestBenchSpread: the JSON records carry the runs' standard deviation
// and the noisy flag; summarize computes them.
func TestBenchSpread(t *testing.T) {
	code, out, stderr := vkdml("bench", "--op", "argmin", "--shape", "300", "--axes", "0", "--repeat", "4", "--json")
	if code != 0 {
		if strings.Contains(stderr, "no usable Vulkan device") || strings.Contains(stderr, "no Vulkan") {
			testutil.NoDevice(t, stderrError(stderr))
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if sd, ok := r["stddev_ms"].(float64); !ok || sd < 0 {
		t.Errorf("stddev_ms: %v", r["stddev_ms"])
	}
	if _, ok := r["noisy"].(bool); !ok {
		t.Errorf("noisy: %v", r["noisy"])
	}

	var rec benchRecord
	rec.MaxMS = 5
	summarize(&rec, []float64{1, 2, 2, 5}, 2)
	if math.Abs(rec.StddevMS-math.Sqrt(3)) > 1e-12 || !rec.Noisy {
		t.Errorf("runs 1,2,2,5: stddev %v noisy %v; want sqrt(3) (squares 9 over n-1 = 3) and noisy (5 > 2 x 2)", rec.StddevMS, rec.Noisy)
	}
	rec.MaxMS = 4
	summarize(&rec, []float64{1, 2, 2, 4}, 2)
	if rec.Noisy {
		t.Errorf("max exactly twice the median is not noisy")
	}
	if stddev([]float64{3}) != 0 {
		t.Errorf("one run has no spread")
	}
}

func TestBenchFormatUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench", "--op", "copy", "--shape", "4", "--format", "xml"}, "--format"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--format", "csv", "--json"}, "--json"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.msg)
		}
	}
}
