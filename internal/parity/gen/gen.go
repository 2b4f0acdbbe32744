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
	"slices"

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
	// lazy makes the input and indices of the large cases by name, when
	// asked for.
	lazy map[string]func() (input, indices *tensor.Tensor)
}

type gen struct {
	rng    *rand.Rand
	set    *Set
	suffix string // appended to every case name (Random's rounds)
}

func newGen(seed int64) *gen {
	return &gen{rng: rand.New(rand.NewSource(seed)), set: &Set{Corpus: parity.Corpus{Seed: seed}, inputs: map[string]*tensor.Tensor{},
		lazy: map[string]func() (*tensor.Tensor, *tensor.Tensor){}}}
}

// Corpus returns the parity corpus for seed (DefaultSeed gives the
// committed one).
func Corpus(seed int64) *Set {
	g := shared(seed)
	g.topK()
	// TOP_K's and REDUCE's value cases were added side by side, each
	// drawing from the generator as the global-window cases leave it; each
	// family draws from that state here too, so that neither family's
	// inputs (and DirectML's goldens for them) depend on the other's.
	// A family added later draws after both, from g.
	r := shared(seed)
	first := len(r.set.Corpus.Cases)
	r.reduceValues()
	for _, c := range r.set.Corpus.Cases[first:] {
		g.add(c, r.set.inputs[c.Name])
		if in := r.set.inputs[indicesKey(c.Name)]; in != nil {
			g.set.inputs[indicesKey(c.Name)] = in
		}
	}
	// Families added later draw from g, after all of the above.
	g.reduceFloat()
	g.topKNaNDecreasing()
	return g.set
}

// shared is the generator after the families every corpus draws first,
// in the order they were added.
func shared(seed int64) *gen {
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
	return g
}

// Random returns n cases drawn from the corpus's random families (ARGMAX
// and ARGMIN with several axes, either direction, strided and broadcast
// layouts and ties; REDUCE; MAX_POOLING, MAX_POOLING1 and MAX_POOLING2
// with dilations, padding, non-floor extents and windows in padding only;
// MAX_UNPOOLING with duplicate and out-of-range indices; REDUCE's float
// functions on FLOAT32 and FLOAT16 (reducefloat.go); TOP_K1 on short
// blocks and long rows (topkcases.go's randomTopK); and per round
// one large case of each of ARGMAX/ARGMIN, max pooling and MAX_UNPOOLING,
// of one to tens of MiB, largecases.go), every data type, in rounds of
// fresh draws from seed. keep, when not nil, says which cases
// to keep (the types a device supports); Random fails when it keeps none
// in a round.
func Random(seed int64, n int, keep func(*parity.Case) bool) (*Set, error) {
	g := newGen(seed)
	g.set.Corpus.Comment = fmt.Sprintf("random parity cases, seed %d", seed)
	// One case in LargeShare is large, the rest drawn from the others.
	nLarge := (n + LargeShare - 1) / LargeShare
	var small, large []parity.Case
	for round := 0; ; round++ {
		g.suffix = fmt.Sprintf("_s%d_r%d", seed, round)
		before := len(g.set.Corpus.Cases)
		g.randomArg()
		g.randomPool()
		g.randomUnpool()
		g.randomLarge()
		g.randomReduceFloat()
		g.randomTopK()
		kept := 0
		for _, c := range g.set.Corpus.Cases[before:] {
			if keep != nil && !keep(&c) {
				continue
			}
			kept++
			if g.set.lazy[c.Name] != nil {
				large = append(large, c)
			} else {
				small = append(small, c)
			}
		}
		if kept == 0 {
			return nil, fmt.Errorf("no random case is kept (round %d)", round)
		}
		done := len(small) >= n-nLarge && len(large) >= nLarge
		if len(small) == 0 && len(large) >= n { // keep takes large cases only
			nLarge, done = n, true
		}
		if len(large) == 0 && len(small) >= n && round > 0 { // keep takes no large case
			nLarge, done = 0, true
		}
		if done {
			break
		}
	}
	// n of them, in their order, the families mixed.
	chosen := map[string]bool{}
	for _, pool := range []struct {
		cases []parity.Case
		k     int
	}{{small, n - nLarge}, {large, nLarge}} {
		for _, i := range g.rng.Perm(len(pool.cases))[:pool.k] {
			chosen[pool.cases[i].Name] = true
		}
	}
	g.set.Corpus.Cases = slices.DeleteFunc(g.set.Corpus.Cases, func(c parity.Case) bool { return !chosen[c.Name] })
	return g.set, nil
}

// LargeShare: one random case in LargeShare is a large one.
const LargeShare = 16

// Input returns case c's input buffer and its indices buffer (nil but for
// MAX_UNPOOLING).
func (s *Set) Input(c *parity.Case) (input, indices *tensor.Tensor, err error) {
	if make := s.lazy[c.Name]; make != nil {
		input, indices = make()
		return input, indices, nil
	}
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
	if input != nil {
		g.set.inputs[c.Name] = input
	}
	return c.Name
}
