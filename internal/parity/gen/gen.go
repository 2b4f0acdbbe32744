// Package gen writes vkdml's parity corpus: the cases of tests/parity
// (Corpus) and fresh random cases from the same families (Random), for
// gencorpus and for `vkdml parity --live`. It is deterministic (a fixed
// seed and math/rand's stable source), so the same seed gives the same
// bytes.
//
// The corpus has one case per line of docs/semantics.md (the "covers"
// field names the rule), one per example on the seed pages, random cases
// per operator × data type × feature, must-reject cases with the HRESULT
// expected, and the 16-bit types in every family and rule with their
// special values (cases16.go). It never touches the goldens (golden/),
// which only a DirectML run writes.
package gen

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// DefaultSeed is the committed corpus's seed.
const DefaultSeed = 20250607

// Comment is the committed corpus's comment line.
const Comment = "vkdml parity corpus, written by `go run ./parity/cmd/gencorpus`; do not edit by hand. See internal/parity/corpus.go for the format."

// Set is a generated corpus with its input buffers.
type Set struct {
	Corpus parity.Corpus
	inputs map[string]*tensor.Tensor // physical buffers by case name, indices by indicesKey
}

type gen struct {
	rng    *rand.Rand
	set    *Set
	suffix string // appended to every case name (Random's rounds)
}

func newGen(seed int64) *gen {
	return &gen{rng: rand.New(rand.NewSource(seed)), set: &Set{Corpus: parity.Corpus{Seed: seed}, inputs: map[string]*tensor.Tensor{}}}
}

// Corpus returns the parity corpus for seed (DefaultSeed gives the
// committed one).
func Corpus(seed int64) *Set {
	g := newGen(seed)
	g.set.Corpus.Comment = Comment
	g.rules()
	g.seeds()
	g.rejects()
	g.randomArg()
	g.randomPool()
	g.sixteenBit()
	g.maxUnpool()
	g.poolGlobalWindow()
	g.reduceValues()
	return g.set
}

// Random returns n cases drawn from the corpus's random families (ARGMAX
// and ARGMIN with several axes, either direction, strided and broadcast
// layouts and ties; REDUCE; MAX_POOLING, MAX_POOLING1 and MAX_POOLING2
// with dilations, padding, non-floor extents and windows in padding only;
// MAX_UNPOOLING with duplicate and out-of-range indices), every data type,
// in rounds of fresh draws from seed. keep, when not nil, says which cases
// to keep (the types a device supports); Random fails when it keeps none
// in a round.
func Random(seed int64, n int, keep func(*parity.Case) bool) (*Set, error) {
	g := newGen(seed)
	g.set.Corpus.Comment = fmt.Sprintf("random parity cases, seed %d", seed)
	var pool []parity.Case
	for round := 0; len(pool) < n; round++ {
		g.suffix = fmt.Sprintf("_s%d_r%d", seed, round)
		before := len(g.set.Corpus.Cases)
		g.randomArg()
		g.randomPool()
		g.randomUnpool()
		kept := 0
		for _, c := range g.set.Corpus.Cases[before:] {
			if keep == nil || keep(&c) {
				pool = append(pool, c)
				kept++
			}
		}
		if kept == 0 {
			return nil, fmt.Errorf("no random case is kept (round %d)", round)
		}
	}
	// n of them, in their order, the families mixed.
	pick := g.rng.Perm(len(pool))[:n]
	chosen := make([]bool, len(pool))
	for _, i := range pick {
		chosen[i] = true
	}
	g.set.Corpus.Cases = g.set.Corpus.Cases[:0]
	for i, c := range pool {
		if chosen[i] {
			g.set.Corpus.Cases = append(g.set.Corpus.Cases, c)
		}
	}
	return g.set, nil
}

// Input returns case c's input buffer and its indices buffer (nil but for
// MAX_UNPOOLING).
func (s *Set) Input(c *parity.Case) (input, indices *tensor.Tensor, err error) {
	input = s.inputs[c.Name]
	if input == nil {
		return nil, nil, fmt.Errorf("case %s has no input", c.Name)
	}
	if c.Indices != nil {
		if indices = s.inputs[indicesKey(c.Name)]; indices == nil {
			return nil, nil, fmt.Errorf("case %s has no indices input", c.Name)
		}
	}
	return input, indices, nil
}

// Write writes corpus.json and the inputs into dir, replacing the .npy
// files of inputs/.
func (s *Set) Write(dir string) error {
	in := filepath.Join(dir, parity.InputsDir)
	if err := os.MkdirAll(in, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(in, "*.npy"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for i := range s.Corpus.Cases {
		if err := s.WriteCaseInputs(dir, &s.Corpus.Cases[i]); err != nil {
			return err
		}
	}
	return s.Corpus.Save(dir)
}

// WriteCaseInputs writes case c's input (and indices) .npy files into
// dir's inputs/.
func (s *Set) WriteCaseInputs(dir string, c *parity.Case) error {
	input, indices, err := s.Input(c)
	if err != nil {
		return err
	}
	if err := tensor.WriteNpyFile(filepath.Join(dir, parity.InputFile(c.Name)), input); err != nil {
		return err
	}
	if indices != nil {
		return tensor.WriteNpyFile(filepath.Join(dir, parity.IndicesFile(c.Name)), indices)
	}
	return nil
}

// add appends case c (its name with g's suffix) and its input buffer, and
// returns the name it got.
func (g *gen) add(c parity.Case, input *tensor.Tensor) string {
	c.Name += g.suffix
	for _, o := range g.set.Corpus.Cases {
		if o.Name == c.Name {
			panic("duplicate case " + c.Name)
		}
	}
	if c.Expect == "" {
		c.Expect = "S_OK"
	}
	g.set.Corpus.Cases = append(g.set.Corpus.Cases, c)
	g.set.inputs[c.Name] = input
	return c.Name
}
