package dml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeviceTuning: $VKDML_TUNING's file is read and checked when a
// device is created, DeviceOptions.Tuning's knobs are set over it, and a
// bad file or knob fails CreateDevice naming it, before any device opens.
func TestDeviceTuning(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("VKDML_TUNING", write("good.json", `{"argColSplitItems": 4096, "exactGrid": false}`))
	got, err := DeviceTuning(Tuning{"exactGrid": "true"})
	if err != nil || got["argColSplitItems"] != "4096" || got["exactGrid"] != "true" {
		t.Errorf("file with override: %v, %v", got, err)
	}
	for _, c := range []struct{ file, want string }{
		{write("unknown.json", `{"wgPerSM": 8}`), `unknown knob "wgPerSM"`},
		{write("bad.json", `{"exactGrid": 3}`), `exactGrid="3"`},
		{filepath.Join(dir, "missing.json"), "missing.json"},
	} {
		t.Setenv("VKDML_TUNING", c.file)
		_, err := CreateDevice(DeviceOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "VKDML_TUNING") {
			t.Errorf("%s: got %v, want an error naming $VKDML_TUNING and %q", c.file, err, c.want)
		}
	}
	t.Setenv("VKDML_TUNING", "")
	if _, err := CreateDevice(DeviceOptions{Tuning: Tuning{"poolVecWG": "many"}}); err == nil || !strings.Contains(err.Error(), "poolVecWG") {
		t.Errorf("bad option: %v", err)
	}
	if got, err := DeviceTuning(nil); got != nil || err != nil {
		t.Errorf("nothing set: %v, %v", got, err)
	}
}
