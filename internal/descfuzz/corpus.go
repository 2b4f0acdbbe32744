package descfuzz

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// readCorpusFile reads a "go test fuzz v1" file holding one []byte.
func readCorpusFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "[]byte("); ok {
			v, err := strconv.Unquote(strings.TrimSuffix(s, ")"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return []byte(v), nil
		}
	}
	return nil, fmt.Errorf("%s: no []byte value", path)
}
