package dml_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/tensor"
)

// wantHR fails unless err carries code and mentions every word in words.
func wantHR(t *testing.T, err error, code hresult.HRESULT, words ...string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("want %v, got %v", code, err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not mention %q", err, w)
		}
	}
}

func TestCreateDeviceOptions(t *testing.T) {
	_, err := dml.CreateDevice(dml.DeviceOptions{Flags: 0x8})
	wantHR(t, err, hresult.E_INVALIDARG, "Flags")
	_, err = dml.CreateDevice(dml.DeviceOptions{MinimumFeatureLevel: 0x1234})
	wantHR(t, err, hresult.E_INVALIDARG, "MinimumFeatureLevel")
	_, err = dml.CreateDevice(dml.DeviceOptions{MinimumFeatureLevel: 0x7000})
	wantHR(t, err, hresult.E_INVALIDARG, "MinimumFeatureLevel")
	// 6.4 is the highest defined level and vkdml honours it.
	d := testutil.OpenDML(t, dml.DeviceOptions{MinimumFeatureLevel: dml.FeatureLevel6_4})
	if d.FeatureLevel() != dml.MaxFeatureLevel {
		t.Fatalf("feature level %v", d.FeatureLevel())
	}
}

func TestCheckFeatureSupport(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	// DirectML's own example: {1_0, 2_0} answers 2_0 although the device
	// supports more.
	l, err := d.FeatureLevels([]dml.FeatureLevel{dml.FeatureLevel1_0, dml.FeatureLevel2_0})
	if err != nil || l != dml.FeatureLevel2_0 {
		t.Fatalf("FeatureLevels = %v, %v", l, err)
	}
	l, err = d.FeatureLevels([]dml.FeatureLevel{dml.FeatureLevel6_4, dml.FeatureLevel4_1})
	if err != nil || l != dml.FeatureLevel6_4 {
		t.Fatalf("FeatureLevels = %v, %v", l, err)
	}
	_, err = d.FeatureLevels(nil)
	wantHR(t, err, hresult.E_INVALIDARG, "RequestedFeatureLevelCount")
	_, err = d.FeatureLevels([]dml.FeatureLevel{dml.FeatureLevel1_0, 0x9999})
	wantHR(t, err, hresult.E_INVALIDARG, "RequestedFeatureLevels[1]")

	for _, dt := range tensor.AllTypes {
		if ok, err := d.TensorDataTypeSupport(dt); !ok || err != nil {
			t.Fatalf("%v: %v %v", dt, ok, err)
		}
	}
	if ok, err := d.TensorDataTypeSupport(tensor.Float64); ok || err != nil {
		t.Fatalf("FLOAT64: %v %v", ok, err)
	}
	_, err = d.TensorDataTypeSupport(tensor.Unknown)
	wantHR(t, err, hresult.E_INVALIDARG, "DataType")
	_, err = d.TensorDataTypeSupport(42)
	wantHR(t, err, hresult.E_INVALIDARG, "DataType")
}

func TestDisableFeatures(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{Disable: dml.Features{StorageBuffer8Bit: true, ShaderInt64: true, SubgroupArithmetic: true}})
	f := d.GPU().Features
	if f.StorageBuffer8Bit || f.ShaderInt64 || f.SubgroupArithmetic {
		t.Fatalf("features not disabled: %+v", f)
	}
	// Every type is still supported through the fallbacks.
	for _, dt := range tensor.AllTypes {
		if ok, _ := d.TensorDataTypeSupport(dt); !ok {
			t.Fatalf("%v unsupported without the features", dt)
		}
	}
}

func TestPipelineCachePersists(t *testing.T) {
	dir := t.TempDir()
	in := tensor.FromFloat32([]uint32{4}, []float32{1, 2, 3, 4})
	desc := &dml.ElementWiseIdentity{Input: in.Desc, Output: in.Desc.Clone()}
	run := func() string {
		d := testutil.OpenDML(t, dml.DeviceOptions{PipelineCacheDir: dir})
		if _, err := d.Compute(desc, in); err != nil {
			t.Fatal(err)
		}
		path := d.GPU().CachePath()
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := run()
	if !strings.HasPrefix(path, dir) {
		t.Fatalf("cache path %q not under %q", path, dir)
	}
	st, err := writeCorrupt(path)
	if err != nil {
		t.Fatalf("cache file after Close: %v", err)
	}
	t.Logf("cache file %s: %d bytes, corrupted for the second run", path, st)
	// A corrupt file is ignored, and replaced by a good one.
	if run() != path {
		t.Fatal("cache path changed")
	}
}

// TestDebugReportsOddPoolingExtent: rule 7 accepts any output extent, and
// in debug mode one that is neither the floor nor the ceil size is reported.
func TestDebugReportsOddPoolingExtent(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	in := tensor.NewDesc(tensor.Float32, []uint32{1, 1, 5, 5})
	pool := func(h, w uint32) *dml.MaxPooling2 {
		return &dml.MaxPooling2{
			Input: in, Output: tensor.NewDesc(tensor.Float32, []uint32{1, 1, h, w}),
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1},
		}
	}
	for _, c := range []struct {
		h, w uint32
		msgs int
	}{{2, 2, 0}, {3, 3, 0}, {2, 3, 0}, {4, 2, 1}, {5, 7, 2}} {
		if _, err := d.CreateOperator(pool(c.h, c.w)); err != nil {
			t.Fatalf("%dx%d: rule 7 accepts any extent: %v", c.h, c.w, err)
		}
		msgs := d.DebugMessages()
		if len(msgs) != c.msgs {
			t.Fatalf("%dx%d: %d messages, want %d: %q", c.h, c.w, len(msgs), c.msgs, msgs)
		}
		for _, m := range msgs {
			if !strings.Contains(m, "neither the floor (2) nor the ceil (3)") {
				t.Fatalf("message %q", m)
			}
		}
	}
}
