// Command gencorpus writes vkdml's parity corpus: tests/parity/corpus.json
// and tests/parity/inputs/*.npy. It is deterministic (a fixed seed and
// math/rand's stable source), so running it again gives the same bytes:
//
//	go run ./parity/cmd/gencorpus [-dir tests/parity] [-seed N]
//
// The corpus has one case per line of docs/semantics.md (the
// "covers" field names the rule), one per example on the seed pages, random
// cases per operator × data type × feature, must-reject cases with the
// HRESULT expected, and the 16-bit types in every family and rule with
// their special values (cases16.go). It never touches the goldens (golden/), which only a
// DirectML run writes.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

const defaultSeed = 20250607

type gen struct {
	rng    *rand.Rand
	dir    string
	corpus parity.Corpus
	inputs map[string]*tensor.Tensor // physical buffers by case name
}

func main() {
	dir := flag.String("dir", "tests/parity", "corpus directory")
	seed := flag.Int64("seed", defaultSeed, "random seed")
	flag.Parse()
	g := &gen{rng: rand.New(rand.NewSource(*seed)), dir: *dir, inputs: map[string]*tensor.Tensor{}}
	g.corpus.Seed = *seed
	g.corpus.Comment = "vkdml parity corpus, written by `go run ./parity/cmd/gencorpus`; do not edit by hand. See internal/parity/corpus.go for the format."
	g.rules()
	g.seeds()
	g.rejects()
	g.randomArg()
	g.randomPool()
	g.sixteenBit()
	g.maxUnpool()
	if err := g.write(); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("gencorpus: %d cases in %s\n", len(g.corpus.Cases), *dir)
}

func (g *gen) write() error {
	in := filepath.Join(g.dir, parity.InputsDir)
	if err := os.MkdirAll(in, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(in, "*.npy"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for i := range g.corpus.Cases {
		c := &g.corpus.Cases[i]
		t := g.inputs[c.Name]
		if t == nil {
			return fmt.Errorf("case %s has no input", c.Name)
		}
		if err := tensor.WriteNpyFile(filepath.Join(g.dir, parity.InputFile(c.Name)), t); err != nil {
			return err
		}
		if err := g.writeIndices(c); err != nil {
			return err
		}
	}
	return g.corpus.Save(g.dir)
}

func (g *gen) add(c parity.Case, input *tensor.Tensor) {
	for _, o := range g.corpus.Cases {
		if o.Name == c.Name {
			panic("duplicate case " + c.Name)
		}
	}
	if c.Expect == "" {
		c.Expect = "S_OK"
	}
	g.corpus.Cases = append(g.corpus.Cases, c)
	g.inputs[c.Name] = input
}
