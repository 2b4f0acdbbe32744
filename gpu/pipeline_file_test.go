package gpu_test

import (
	"os"
	"testing"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestPipelineCacheFileNotRegular: a FIFO, a device or a folder where the
// pipeline cache file goes is ignored like a corrupt cache: Open returns
// at once with an empty cache, instead of blocking on the FIFO or reading
// /dev/zero until memory runs out.
func TestPipelineCacheFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	d := testutil.OpenGPU(t, gpu.Options{PipelineCacheDir: dir})
	path := d.CachePath()
	d.Close()
	if path == "" {
		t.Fatal("no cache path")
	}
	for _, h := range safefiletest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			os.RemoveAll(path)
			h.At(t, path)
			err := safefiletest.Within(t, "Open", func() error {
				d, err := gpu.Open(gpu.Options{PipelineCacheDir: dir})
				if err == nil {
					d.Close()
				}
				return err
			})
			if err != nil {
				t.Errorf("Open with %s as the cache file: %v", h.Name, err)
			}
		})
	}
}
