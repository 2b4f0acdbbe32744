package descfuzz

import (
	"strconv"
	"testing"

	"github.com/vkdml/vkdml/ops"
)

// committedSeeds reads the fuzz target's committed corpus.
func committedSeeds(t *testing.T) map[string][]byte {
	t.Helper()
	dir := "../../tests/testdata/fuzz/FuzzOperatorDesc"
	names, bs, err := ReadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) == 0 {
		t.Fatalf("no seeds in %s", dir)
	}
	seeds := map[string][]byte{}
	for i, name := range names {
		seeds[name] = bs[i]
	}
	return seeds
}

// kindByte is the byte of b that selects the desc's kind.
func kindByte(b []byte) byte {
	r := NewReader(b)
	r.Context()
	return r.byte()
}

// TestCommittedSeedsKeepTheirKinds: every committed and built-in seed
// selects the kind its kind byte % 6 selected when it was made. A seed
// whose kind byte is escapeKind (which once meant MAX_POOLING, and no seed
// of that time used) must name, through the escape, a kind the kind byte
// cannot select directly: one made for a kind appended since.
func TestCommittedSeedsKeepTheirKinds(t *testing.T) {
	pinned := []string{"ARGMAX", "ARGMIN", "REDUCE", "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"}
	seeds := committedSeeds(t)
	for i, b := range Seeds {
		seeds["Seeds["+strconv.Itoa(i)+"]"] = b
	}
	for name, b := range seeds {
		k := kindByte(b)
		if k == escapeKind {
			r := NewReader(b)
			r.Context()
			r.byte()
			if n := int(r.byte()); n < legacyKinds {
				t.Errorf("%s: kind byte %#x is escapeKind with kind number %d, which the kind byte selects directly; before the escape it meant %s", name, k, n, pinned[k%6])
			}
			continue
		}
		_, desc, _ := Decode(b)
		if desc == nil || desc.OperatorType() != pinned[k%6] {
			t.Errorf("%s: kind byte %d decodes to %v; it meant %s", name, k, desc, pinned[k%6])
		}
	}
}

// TestEveryFuzzKindDecodes: each fuzz kind of ops' registry has a decoder
// here, which escapeKind reaches by its number, and a seed (built-in or
// committed) that selects it; a number past the table decodes nothing.
func TestEveryFuzzKindDecodes(t *testing.T) {
	kinds := ops.FuzzKinds()
	seeded := map[string]bool{}
	for _, b := range Seeds {
		if _, d, _ := Decode(b); d != nil {
			seeded[d.OperatorType()] = true
		}
	}
	for _, b := range committedSeeds(t) {
		if _, d, _ := Decode(b); d != nil {
			seeded[d.OperatorType()] = true
		}
	}
	for k, o := range kinds {
		if _, ok := decoders[o.Type]; !ok {
			t.Errorf("fuzz kind %d (%s) has no decoder", k, o.Type)
			continue
		}
		_, d, _ := Decode([]byte{0, 0, escapeKind, byte(k), 2, 3})
		if d == nil || d.OperatorType() != o.Type {
			t.Errorf("escapeKind, %d decodes to %v; want %s", k, d, o.Type)
		}
		if !seeded[o.Type] {
			t.Errorf("no seed decodes to fuzz kind %d (%s): commit one to tests/testdata/fuzz/FuzzOperatorDesc, named to sort last", k, o.Type)
		}
	}
	for typ := range decoders {
		if o, ok := ops.LookupOperator(typ); !ok || o.FuzzKind == ops.NotFuzzed {
			t.Errorf("a decoder for %s, which has no fuzz kind", typ)
		}
	}
	if _, d, _ := Decode([]byte{0, 0, escapeKind, byte(len(kinds))}); d != nil {
		t.Errorf("kind number %d, past the table, decodes to %v", len(kinds), d)
	}
}
