package parity_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/paritytest"
	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
	"github.com/vkdml/vkdml/tensor"
)

// readCorpus reads every file of the corpus in dir as a comparison does:
// the manifest, known differences, each case's inputs, the results and
// each golden.
func readCorpus(dir string) error {
	corpus, err := parity.LoadCorpus(dir)
	if err != nil {
		return err
	}
	if _, err := parity.LoadKnown(dir); err != nil {
		return err
	}
	golden := filepath.Join(dir, parity.GoldenDir)
	res, err := parity.LoadResults(golden)
	if err != nil {
		return err
	}
	byName := res.ByName()
	for i := range corpus.Cases {
		c := &corpus.Cases[i]
		if _, err := parity.LoadInputs(dir, c); err != nil {
			return err
		}
		if r := byName[c.Name]; r != nil {
			if _, err := r.Outcome(golden, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestCorpusFilesNotRegular: each file of a corpus (manifest, known
// differences, input, results, golden) as a FIFO, /dev/zero, /dev/urandom
// or a folder is refused at once, naming the file.
func TestCorpusFilesNotRegular(t *testing.T) {
	if err := readCorpus(paritytest.Corpus(t)); err != nil {
		t.Fatalf("the intact corpus: %v", err)
	}
	for _, file := range paritytest.Files() {
		for _, h := range safefiletest.Hostiles() {
			t.Run(filepath.Base(file)+"/"+h.Name, func(t *testing.T) {
				dir := paritytest.Corpus(t)
				path := filepath.Join(dir, file)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				h.At(t, path)
				err := safefiletest.Within(t, "reading the corpus", func() error { return readCorpus(dir) })
				safefiletest.Refused(t, "reading the corpus", err, path, h.Want)
			})
		}
	}
}

// TestCorpusFilesOversize: a manifest, results or known-differences file
// over its bound is refused before it is read, naming the bound; an input
// or golden .npy larger than its tensor's TotalTensorSizeInBytes is
// refused from its header.
func TestCorpusFilesOversize(t *testing.T) {
	for _, c := range []struct {
		file  string
		limit int64
		want  string
	}{
		{parity.ManifestFile, parity.MaxManifestSize, "over the limit of 64 MiB"},
		{filepath.Join(parity.GoldenDir, parity.ResultsFile), parity.MaxResultsSize, "over the limit of 64 MiB"},
		{parity.KnownFile, parity.MaxKnownSize, "over the limit of 16 MiB"},
	} {
		dir := paritytest.Corpus(t)
		path := filepath.Join(dir, c.file)
		if err := os.Truncate(path, c.limit+1); err != nil {
			t.Fatal(err)
		}
		safefiletest.Refused(t, "reading the corpus", readCorpus(dir), path, c.want)
	}
	for _, c := range []struct {
		file string
		dt   tensor.DataType
		want string
	}{
		{parity.InputFile(paritytest.CaseName), tensor.Float32, "holds 28 bytes, more than the 27"},
		{filepath.Join(parity.GoldenDir, parity.OutputFile(paritytest.CaseName, 0)), tensor.UInt32, "holds 16 bytes, more than the 15"},
	} {
		dir := paritytest.Corpus(t)
		path := filepath.Join(dir, c.file)
		old, err := tensor.ReadNpyFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := tensor.WriteNpyFile(path, parity.BufferNpy(c.dt, append(old.Data, 1, 2, 3, 4))); err != nil {
			t.Fatal(err)
		}
		safefiletest.Refused(t, "reading the corpus", readCorpus(dir), path, c.want)
	}
}

// TestGoldenOutputCount: a golden that lists more or fewer outputs than
// the operator has, or any for a failure, is an error naming the case,
// not a comparison that could say "equal".
func TestGoldenOutputCount(t *testing.T) {
	out0 := parity.OutputFile(paritytest.CaseName, 0)
	for _, c := range []struct {
		name    string
		hr      string
		outputs []string
		want    string
	}{
		{"more", "S_OK", []string{out0, out0}, "lists 2 output file(s) for S_OK; want 1, one per output tensor"},
		{"fewer", "S_OK", nil, "lists 0 output file(s) for S_OK; want 1, one per output tensor"},
		{"failure with outputs", "E_INVALIDARG", []string{out0}, "lists 1 output file(s) for E_INVALIDARG; want 0, none for a failure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := paritytest.Corpus(t)
			paritytest.SetResults(t, dir, func(r *parity.Result) { r.HRESULT, r.Outputs = c.hr, c.outputs })
			err := readCorpus(dir)
			if err == nil || !strings.Contains(err.Error(), "case "+paritytest.CaseName) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error naming the case and saying %q", err, c.want)
			}
		})
	}
}

// TestDiffOutputCount: Diff reports outcomes whose output count differs
// from the case's, even where the outputs present agree.
func TestDiffOutputCount(t *testing.T) {
	c := paritytest.Case()
	out := make([]byte, 12)
	one := &parity.Outcome{HR: hresult.S_OK, Outputs: [][]byte{out}}
	two := &parity.Outcome{HR: hresult.S_OK, Outputs: [][]byte{out, out}}
	if d := parity.Diff(&c, one, one); d != "" {
		t.Errorf("equal outcomes: %q", d)
	}
	for _, o := range [][2]*parity.Outcome{{two, one}, {one, two}, {&parity.Outcome{HR: hresult.S_OK}, one}} {
		want := fmt.Sprintf("the operator has 1 output(s); DirectML returned %d, vkdml %d", len(o[0].Outputs), len(o[1].Outputs))
		if d := parity.Diff(&c, o[0], o[1]); !strings.Contains(d, want) {
			t.Errorf("Diff = %q, want %q", d, want)
		}
	}
}
