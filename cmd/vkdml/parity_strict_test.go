package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParityRefusesAStrayKey: a corpus case with a key its operator does
// not hold (a "stride" beside the tensor's fields) is refused before any
// device opens, naming the case, the key and the one meant; it used to run
// as if absent and report another case's verdict.
func TestParityRefusesAStrayKey(t *testing.T) {
	b, err := os.ReadFile("../../tests/parity/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"strides":[1,2,6]`, `"stride":[1,2,6]`, `case "rule01_strided_input_transposed": input.stride: unknown key for InputTensor (DML_BUFFER_TENSOR_DESC)`},
		{`"axes":[0,2],`, `"axes":[0,2],"AxisDirecton":"DECREASING",`, `case "rule01_block_index_axes02": AxisDirecton: unknown key for ARGMAX's desc`},
		{`"axes":[0,2],`, `"axes":[0,2],"Axes":[0],`, `case "rule01_block_index_axes02": Axes: Axes is given twice, as "axes" and as "Axes"`},
	} {
		if !strings.Contains(string(b), c.old) {
			t.Fatalf("the corpus has no %s", c.old)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "corpus.json"), []byte(strings.Replace(string(b), c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := vkdml("parity", "--corpus", dir)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error with %q", c.new, code, stderr, c.want)
		}
	}
}
