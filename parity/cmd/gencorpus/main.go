// Command gencorpus writes vkdml's parity corpus (internal/parity/gen):
// tests/parity/corpus.json and tests/parity/inputs/*.npy. The same seed
// gives the same bytes:
//
//	go run ./parity/cmd/gencorpus [-dir tests/parity] [-seed N]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/vkdml/vkdml/internal/parity/gen"
)

func main() {
	dir := flag.String("dir", "tests/parity", "corpus directory")
	seed := flag.Int64("seed", gen.DefaultSeed, "random seed")
	flag.Parse()
	set := gen.Corpus(*seed)
	if err := set.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("gencorpus: %d cases in %s\n", len(set.Corpus.Cases), *dir)
}
