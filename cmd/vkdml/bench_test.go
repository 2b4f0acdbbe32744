package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/testutil"
)

func TestBenchJSONAndPlot(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "bench.svg")
	for _, args := range [][]string{
		{"bench", "--op", "argmax", "--shape", "64,256", "--shape", "256,256", "--axes", "1", "--repeat", "3", "--warmup", "1", "--json", "--plot", plot},
		{"bench", "--op", "maxpool", "--shape", "1,2,16,16", "--window", "2", "--strides", "2", "--indices", "--repeat", "2", "--json"},
		{"bench", "--op", "argmin", "--shape", "300", "--axes", "0", "--kernel", "thread", "--repeat", "2", "--json"},
	} {
		code, out, stderr := vkdml(args...)
		if code != 0 {
			if strings.Contains(stderr, "no usable Vulkan device") {
				testutil.NoDevice(t, stderrError(stderr))
			}
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			for _, k := range []string{"op", "shape", "dtype", "kernel", "median_ms", "wall_median_ms", "gbps"} {
				if _, ok := r[k]; !ok {
					t.Fatalf("%v: key %q missing in %s", args, k, l)
				}
			}
			if r["median_ms"].(float64) <= 0 || r["gbps"].(float64) <= 0 {
				t.Fatalf("non-positive timing: %s", l)
			}
		}
	}
	if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
		t.Fatalf("plot not written: %v", err)
	}
	code, out, _ := vkdml("bench", "--op", "argmax", "--shape", "100", "--axes", "0", "--kernel", "thread", "--repeat", "2")
	if code != 0 || !strings.Contains(out, "thread") || !strings.Contains(out, "%copy") {
		t.Fatalf("table output: %d\n%s", code, out)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench"}, "--op must be one of"},
		{[]string{"bench", "--op", "argmax"}, "--shape is required"},
		{[]string{"bench", "--op", "argmax", "--shape", "4,0", "--axes", "0"}, "size of 0"},
		{[]string{"bench", "--op", "argmax", "--shape", "4", "--axes", "3"}, "out of range"},
		{[]string{"bench", "--op", "maxpool", "--shape", "4,4"}, "--window is required"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--dtype", "float64"}, "--dtype"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--plot", "x.gif"}, "--plot"},
		{[]string{"bench", "--op", "copy", "--shape", "4", "--repeat", "0"}, "--repeat"},
	} {
		code, _, stderr := vkdml(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.msg)
		}
	}
}
