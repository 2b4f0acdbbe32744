package vk_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/parity/vk"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestRunRefusesOutputsBeyondTheDevice: a case whose output's
// TotalTensorSizeInBytes is more than the device can hold (10^15 bytes,
// 2^34, 3·2^30, the largest heap + 4) is E_OUTOFMEMORY naming the field
// and the limit, the refusal Compute gives, before the output is
// allocated: not "makeslice: len out of range", a fatal out-of-memory, or
// gigabytes filled and then refused.
func TestRunRefusesOutputsBeyondTheDevice(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	var heap uint64
	for _, m := range d.GPU().Info.MemoryTypes {
		if m.Flags&gpu.MemoryDeviceLocal != 0 {
			heap = max(heap, m.HeapSize)
		}
	}
	dir := paritytest.Corpus(t)
	for _, size := range []uint64{1e15, 1 << 34, 3 << 30, heap + 4} {
		if heap == 0 || size <= heap {
			t.Logf("%d bytes: the device's %d-byte heap may hold it; not tried", size, heap)
			continue
		}
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := paritytest.Case()
			c.Output.TotalTensorSizeInBytes = size
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			o, err := vk.Run(d, dir, &c)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if o.HR != hresult.E_OUTOFMEMORY || !strings.Contains(o.Message, "outputs[0].TotalTensorSizeInBytes") || !strings.Contains(o.Message, fmt.Sprint(size)) {
				t.Errorf("Run: %v %q, want E_OUTOFMEMORY naming outputs[0].TotalTensorSizeInBytes and %d", o.HR, o.Message, size)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("Run allocated %d bytes before refusing", grew)
			}
		})
	}
}

// TestCompareGolden: the one-case corpus compares equal with its golden,
// and a golden that lists an extra output is an error, not "equal".
func TestCompareGolden(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	dir := paritytest.Corpus(t)
	rep, err := vk.Compare(d, dir, "", nil)
	if err != nil || rep.Equal != 1 || rep.Failed() {
		t.Fatalf("Compare: %+v, %v", rep, err)
	}
	out0 := parity.OutputFile(paritytest.CaseName, 0)
	paritytest.SetResults(t, dir, func(r *parity.Result) { r.Outputs = append(r.Outputs, out0) })
	if _, err := vk.Compare(d, dir, filepath.Join(dir, parity.GoldenDir), nil); err == nil || !strings.Contains(err.Error(), "lists 2 output file(s)") {
		t.Errorf("Compare with an extra golden output: %v", err)
	}
}
