package profiles

import (
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestLoadFileNotRegular: a profile path that is a FIFO, a device or a
// folder, or a file over MaxFileSize, is refused at once with the path and
// the reason, not read until memory runs out or blocked on.
func TestLoadFileNotRegular(t *testing.T) {
	load := func(path string) error { _, err := Load(path); return err }
	safefiletest.RefusesEach(t, "device.json", load)
	safefiletest.RefusesOversize(t, "device.json", MaxFileSize, load)
}
