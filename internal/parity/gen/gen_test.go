package gen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/parity"
)

// TestRandom: n cases with their inputs, unique names, only the kept ones,
// every random family, and the same cases for the same seed.
func TestRandom(t *testing.T) {
	noInt64 := func(c *parity.Case) bool { return c.Input.DataType != "INT64" }
	a, err := Random(7, 300, noInt64)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Corpus.Cases) != 300 {
		t.Fatalf("%d cases, want 300", len(a.Corpus.Cases))
	}
	seen := map[string]bool{}
	ops := map[string]bool{}
	large := 0
	for i := range a.Corpus.Cases {
		c := &a.Corpus.Cases[i]
		if seen[c.Name] {
			t.Fatalf("case %s twice", c.Name)
		}
		seen[c.Name] = true
		ops[c.Operator] = true
		if strings.HasPrefix(c.Name, "random_reduce_float_") {
			ops["REDUCE float"] = true
		}
		if c.Input.DataType == "INT64" {
			t.Errorf("case %s: INT64 was not to be kept", c.Name)
		}
		if strings.Contains(c.Name, "_large_") {
			large++
			if n := c.Input.TotalTensorSizeInBytes; n < MinLargeInputBytes || n > MaxLargeBytes {
				t.Errorf("large case %s: input of %d bytes", c.Name, n)
			}
		}
		in, idx, err := a.Input(c)
		if err != nil || in == nil || (c.Indices != nil) != (idx != nil) {
			t.Errorf("case %s: input %v indices %v: %v", c.Name, in != nil, idx != nil, err)
		}
		if !strings.Contains(c.Name, "_s7_r") {
			t.Errorf("case %s lacks its round suffix", c.Name)
		}
	}
	for _, op := range []string{"ARGMAX", "ARGMIN", "REDUCE", "REDUCE float", "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2", "MAX_UNPOOLING"} {
		if !ops[op] {
			t.Errorf("no %s case", op)
		}
	}
	if large != (300+LargeShare-1)/LargeShare {
		t.Errorf("%d large cases of 300, want one in %d", large, LargeShare)
	}
	b, err := Random(7, 300, noInt64)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Corpus, b.Corpus) {
		t.Error("the same seed gave other cases")
	}
	if _, err := Random(7, 10, func(*parity.Case) bool { return false }); err == nil {
		t.Error("Random kept no case and did not fail")
	}
}
