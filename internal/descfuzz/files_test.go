package descfuzz

import (
	"path/filepath"
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestReadCorpusNotRegular: a corpus entry that is a FIFO, a device or a
// folder, or a file over maxCorpusFileSize, is refused at once, naming it.
func TestReadCorpusNotRegular(t *testing.T) {
	read := func(path string) error { _, _, err := ReadCorpus(filepath.Dir(path)); return err }
	safefiletest.RefusesEach(t, "seed0", read)
	safefiletest.RefusesOversize(t, "seed0", maxCorpusFileSize, read)
}
