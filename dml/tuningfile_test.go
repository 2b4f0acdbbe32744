package dml

import (
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestDeviceTuningFileNotRegular: a $VKDML_TUNING that names a FIFO, a
// device or a folder, or a file over MaxTuningFileSize, fails
// CreateDevice and DeviceTuning at once, naming the variable and the path,
// instead of blocking on the FIFO or reading /dev/zero until memory runs
// out.
func TestDeviceTuningFileNotRegular(t *testing.T) {
	type tuningCase struct{ name, path, want string }
	var cases []tuningCase
	for _, h := range safefiletest.Hostiles() {
		cases = append(cases, tuningCase{h.Name, h.Path(t, "tuning.json"), h.Want})
	}
	cases = append(cases, tuningCase{"oversize", safefiletest.Sparse(t, "tuning.json", MaxTuningFileSize+1), "over the limit of 1 MiB"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("VKDML_TUNING", c.path)
			err := safefiletest.Within(t, "DeviceTuning", func() error {
				_, err := DeviceTuning(nil)
				return err
			})
			safefiletest.Refused(t, "DeviceTuning", err, "$VKDML_TUNING: "+c.path, c.want)
			err = safefiletest.Within(t, "CreateDevice", func() error {
				d, err := CreateDevice(DeviceOptions{})
				if err == nil {
					d.Close()
				}
				return err
			})
			safefiletest.Refused(t, "CreateDevice", err, "$VKDML_TUNING: "+c.path, c.want)
		})
	}
}
