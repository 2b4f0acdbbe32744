package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkdml/vkdml/internal/parity/paritytest"
)

// caseDesc is paritytest's case in DirectML's names.
var caseDesc = map[string]any{
	"Type":         "DML_OPERATOR_ARGMAX",
	"InputTensor":  map[string]any{"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "Sizes": []int{2, 3}, "TotalTensorSizeInBytes": 24},
	"OutputTensor": map[string]any{"DataType": "DML_TENSOR_DATA_TYPE_UINT32", "Sizes": []int{1, 3}, "TotalTensorSizeInBytes": 12},
	"Axes":         []int{0},
}

// writeCaseFile writes a case file of desc with paritytest's input and
// expected as its output into dir, and returns its path.
func writeCaseFile(t *testing.T, dir string, desc map[string]any, expected []uint32, name string) string {
	t.Helper()
	if name == "" {
		name = "case"
	}
	in := paritytest.Float32Npy(paritytest.Input)
	out := paritytest.Uint32Npy(expected)
	for file, b := range map[string][]byte{name + ".x.npy": in, name + ".y.npy": out} {
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(map[string]any{"desc": desc, "inputs": []string{name + ".x.npy"}, "expected": []string{name + ".y.npy"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
