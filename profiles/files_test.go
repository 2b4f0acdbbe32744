package profiles

import (
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestLoadFileNotRegular: a profile path that is a FIFO, a device or a
// folder, or a file over MaxFileSize, is refused at once with the path and
// the reason, not read until memory runs out or blocked on.
func TestLoadFileNotRegular(t *testing.T) {
	for _, h := range safefiletest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			path := h.Path(t, "device.json")
			err := safefiletest.Within(t, "Load", func() error { _, err := Load(path); return err })
			safefiletest.Refused(t, "Load", err, path, h.Want)
		})
	}
	path := safefiletest.Sparse(t, "device.json", MaxFileSize+1)
	_, err := Load(path)
	safefiletest.Refused(t, "Load", err, path, "over the limit of 1 MiB")
}
