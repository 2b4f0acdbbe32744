package onnx

import (
	"testing"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// TestReadFilesNotRegular: a model.onnx or a tensor .pb that is a FIFO, a
// device or a folder is refused at once, naming the path; a model over
// MaxModelFileSize is refused before it is read.
func TestReadFilesNotRegular(t *testing.T) {
	for _, h := range safefiletest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			model := h.Path(t, "model.onnx")
			err := safefiletest.Within(t, "ReadModel", func() error { _, err := ReadModel(model); return err })
			safefiletest.Refused(t, "ReadModel", err, model, h.Want)
			input := h.Path(t, "input_0.pb")
			err = safefiletest.Within(t, "ReadTensor", func() error { _, _, err := ReadTensor(input); return err })
			safefiletest.Refused(t, "ReadTensor", err, input, h.Want)
		})
	}
	model := safefiletest.Sparse(t, "model.onnx", MaxModelFileSize+1)
	_, err := ReadModel(model)
	safefiletest.Refused(t, "ReadModel", err, model, "over the limit of 16 MiB")
}
