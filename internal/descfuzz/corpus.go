package descfuzz

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/internal/safefile"
)

// ReadCorpus reads a fuzz corpus folder (the fuzz target's committed one is
// tests/testdata/fuzz/FuzzOperatorDesc): each file's name and its []byte
// value, in file name order.
func ReadCorpus(dir string) (names []string, seeds [][]byte, err error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		b, err := readCorpusFile(filepath.Join(dir, f.Name()))
		if err != nil {
			return nil, nil, err
		}
		names, seeds = append(names, f.Name()), append(seeds, b)
	}
	return names, seeds, nil
}

// maxCorpusFileSize bounds a fuzz corpus file: it holds one desc of at
// most a few hundred bytes, quoted.
const maxCorpusFileSize = 1 << 20

// readCorpusFile reads a "go test fuzz v1" file holding one []byte (a
// regular file of at most maxCorpusFileSize bytes; internal/safefile).
func readCorpusFile(path string) ([]byte, error) {
	b, err := safefile.ReadFile(path, maxCorpusFileSize)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "[]byte("); ok {
			v, err := strconv.Unquote(strings.TrimSuffix(s, ")"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return []byte(v), nil
		}
	}
	return nil, fmt.Errorf("%s: no []byte value", path)
}
