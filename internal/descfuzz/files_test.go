package descfuzz

import (
	"path/filepath"
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestReadCorpusNotRegular: a corpus entry that is a FIFO, a device or a
// folder, or a file over maxCorpusFileSize, is refused at once, naming it.
func TestReadCorpusNotRegular(t *testing.T) {
	for _, h := range safefiletest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			dir := t.TempDir()
			path := h.At(t, filepath.Join(dir, "seed0"))
			err := safefiletest.Within(t, "ReadCorpus", func() error { _, _, err := ReadCorpus(dir); return err })
			safefiletest.Refused(t, "ReadCorpus", err, path, h.Want)
		})
	}
	path := safefiletest.Sparse(t, "seed0", maxCorpusFileSize+1)
	_, _, err := ReadCorpus(filepath.Dir(path))
	safefiletest.Refused(t, "ReadCorpus", err, path, "over the limit of 1 MiB")
}
