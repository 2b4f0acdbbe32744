package onnx

import (
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestReadFilesNotRegular: a model.onnx or a tensor .pb that is a FIFO, a
// device or a folder is refused at once, naming the path; a model over
// MaxModelFileSize is refused before it is read.
func TestReadFilesNotRegular(t *testing.T) {
	readModel := func(path string) error { _, err := ReadModel(path); return err }
	safefiletest.RefusesEach(t, "model.onnx", readModel)
	safefiletest.RefusesEach(t, "input_0.pb", func(path string) error { _, _, err := ReadTensor(path); return err })
	safefiletest.RefusesOversize(t, "model.onnx", MaxModelFileSize, readModel)
}
