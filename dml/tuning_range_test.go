package dml_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestCreateDeviceTuningRanges: through the Go API, every knob at 0,
// negative and its maximum + 1 (testutil.BadTuning), in
// DeviceOptions.Tuning or in the $VKDML_TUNING file, fails CreateDevice
// with E_INVALIDARG naming the knob, the value and its range, before any
// device opens.
func TestCreateDeviceTuningRanges(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tuning.json")
	for _, b := range testutil.BadTuning() {
		t.Setenv("VKDML_TUNING", "")
		_, errOpt := dml.CreateDevice(dml.DeviceOptions{Tuning: dml.Tuning{b.Key: b.Value}})
		if err := os.WriteFile(file, []byte(fmt.Sprintf(`{%q: %s}`, b.Key, b.JSON)), 0o666); err != nil {
			t.Fatal(err)
		}
		t.Setenv("VKDML_TUNING", file)
		_, errEnv := dml.CreateDevice(dml.DeviceOptions{})
		for what, err := range map[string]error{"DeviceOptions.Tuning": errOpt, "$VKDML_TUNING": errEnv} {
			if !errors.Is(err, hresult.E_INVALIDARG) || !strings.Contains(err.Error(), b.Want) {
				t.Errorf("%s %s=%s: got %v, want E_INVALIDARG containing %q", what, b.Key, b.Value, err, b.Want)
			}
		}
	}
}
