// Package paritytest writes a small, complete parity corpus for tests:
// one ARGMAX case with its input, its golden and an empty
// known-differences.json, which a test then breaks one file of.
package paritytest

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// CaseName is the corpus's one case.
const CaseName = "argmax_axis0"

// Case is ARGMAX over axis 0 of a 2×3 FLOAT32 input.
func Case() parity.Case {
	return parity.Case{Name: CaseName, Covers: []string{"test"}, Operator: "ARGMAX",
		Input:  parity.Tensor{DataType: "FLOAT32", Sizes: []uint32{2, 3}, TotalTensorSizeInBytes: 24},
		Output: parity.Tensor{DataType: "UINT32", Sizes: []uint32{1, 3}, TotalTensorSizeInBytes: 12},
		Axes:   []uint32{0}, Expect: "S_OK"}
}

// Input is the case's input, {{0, 5, 2}, {3, 1, 4}}; Golden its answer,
// {1, 0, 1}.
var (
	Input  = []float32{0, 5, 2, 3, 1, 4}
	Golden = []uint32{1, 0, 1}
)

// Corpus writes the corpus into a fresh temporary folder and returns it;
// the goldens are in its golden/ folder.
func Corpus(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	golden := filepath.Join(dir, parity.GoldenDir)
	for _, d := range []string{filepath.Join(dir, parity.InputsDir), golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := Case()
	corpus := &parity.Corpus{Comment: "paritytest", Cases: []parity.Case{c}}
	if err := corpus.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, parity.InputFile(c.Name)), Float32Npy(Input), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := parity.WriteOutcome(golden, &c, &parity.Outcome{HR: hresult.S_OK, Outputs: [][]byte{uint32Bytes(Golden)}})
	if err != nil {
		t.Fatal(err)
	}
	res := &parity.Results{Producer: "paritytest", Cases: []parity.Result{r}}
	if err := res.Save(golden); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, parity.KnownFile), []byte(`{"differences": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Files lists the corpus's files a reader opens, relative to its folder:
// the manifest, known-differences.json, the input, results.json and the
// golden output.
func Files() []string {
	return []string{parity.ManifestFile, parity.KnownFile, parity.InputFile(CaseName),
		filepath.Join(parity.GoldenDir, parity.ResultsFile), filepath.Join(parity.GoldenDir, parity.OutputFile(CaseName, 0))}
}

// SetResults rewrites the golden results.json of the corpus in dir with
// edit applied to its one case.
func SetResults(t testing.TB, dir string, edit func(r *parity.Result)) {
	t.Helper()
	golden := filepath.Join(dir, parity.GoldenDir)
	res, err := parity.LoadResults(golden)
	rewrite(t, err, func() { edit(&res.Cases[0]) }, func() error { return res.Save(golden) })
}

// SetCase rewrites the corpus.json of the corpus in dir with edit applied
// to its one case.
func SetCase(t testing.TB, dir string, edit func(c *parity.Case)) {
	t.Helper()
	corpus, err := parity.LoadCorpus(dir)
	rewrite(t, err, func() { edit(&corpus.Cases[0]) }, func() error { return corpus.Save(dir) })
}

// rewrite fails t on loadErr, then edits and saves.
func rewrite(t testing.TB, loadErr error, edit func(), save func() error) {
	t.Helper()
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	edit()
	if err := save(); err != nil {
		t.Fatal(err)
	}
}

// Float32Npy is a one-dimensional .npy file of v.
func Float32Npy(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return npy(tensor.Float32, b)
}

// Uint32Npy is a one-dimensional .npy file of v.
func Uint32Npy(v []uint32) []byte { return npy(tensor.UInt32, uint32Bytes(v)) }

func uint32Bytes(v []uint32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func npy(dt tensor.DataType, data []byte) []byte {
	var buf bytes.Buffer
	if err := tensor.WriteNpy(&buf, parity.BufferNpy(dt, data)); err != nil {
		panic(err) // a buffer takes every write
	}
	return buf.Bytes()
}
