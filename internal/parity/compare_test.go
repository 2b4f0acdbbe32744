package parity

import (
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
)

func poolCase(name, dt string) *Case {
	return &Case{Name: name, Operator: "MAX_POOLING2",
		Input:         Tensor{DataType: dt, Sizes: []uint32{1, 1, 1, 2}, TotalTensorSizeInBytes: 8},
		Output:        Tensor{DataType: dt, Sizes: []uint32{1, 1, 1, 2}, TotalTensorSizeInBytes: 8},
		OutputIndices: &Tensor{DataType: "UINT32", Sizes: []uint32{1, 1, 1, 2}, TotalTensorSizeInBytes: 8}}
}

func ok(outs ...[]byte) *Outcome { return &Outcome{HR: hresult.S_OK, Outputs: outs} }

// TestSignedZeroExplained: a pooled value that is the other zero, with the
// same indices, is a known difference (rule 11a); any other value, or an
// index that differs, is not.
func TestSignedZeroExplained(t *testing.T) {
	idx := []byte{0, 0, 0, 0, 1, 0, 0, 0}
	for _, c := range []struct {
		name, dt string
		dml, vk  []byte
		vkIdx    []byte
		wantVerd string
	}{
		{"f16 +0 vs -0", "FLOAT16", []byte{0, 0, 0, 0x3c, 0, 0, 0, 0}, []byte{0, 0x80, 0, 0x3c, 0, 0, 0, 0}, idx, Known},
		{"f32 -0 vs +0", "FLOAT32", []byte{0, 0, 0, 0x80, 0, 0, 0x80, 0x3f}, []byte{0, 0, 0, 0, 0, 0, 0x80, 0x3f}, idx, Known},
		{"f16 +0 vs smallest subnormal", "FLOAT16", []byte{0, 0, 0, 0x3c, 0, 0, 0, 0}, []byte{1, 0, 0, 0x3c, 0, 0, 0, 0}, idx, Differ},
		{"f16 zeros but indices differ", "FLOAT16", []byte{0, 0, 0, 0x3c, 0, 0, 0, 0}, []byte{0, 0x80, 0, 0x3c, 0, 0, 0, 0}, []byte{1, 0, 0, 0, 1, 0, 0, 0}, Differ},
		{"int16 0x8000 vs 0", "INT16", []byte{0, 0, 0, 0, 0, 0, 0, 0}, []byte{0, 0x80, 0, 0, 0, 0, 0, 0}, idx, Differ},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Report{}
			row := r.Add(poolCase("c", c.dt), ok(c.dml, idx), ok(c.vk, c.vkIdx), nil)
			if row.Verdict != c.wantVerd {
				t.Fatalf("verdict %q (%s), want %q", row.Verdict, row.Detail, c.wantVerd)
			}
			if c.wantVerd == Known && !strings.Contains(row.Detail, "rule 11a") {
				t.Errorf("detail %q does not name rule 11a", row.Detail)
			}
		})
	}
}

// TestCountsByTypeAndFamily: every verdict lands in its (type, family)
// group and, for 16-bit inputs, in Sixteen; the summary line gives the
// 16-bit counts apart; a case without an answer fails the comparison
// unless it is a known difference.
func TestCountsByTypeAndFamily(t *testing.T) {
	r := &Report{}
	eq := ok([]byte{0, 0x3c, 0, 0x3c, 0, 0, 0, 0}, make([]byte, 8))
	r.Add(poolCase("a", "FLOAT16"), eq, eq, nil)
	r.Add(poolCase("b", "FLOAT32"), eq, eq, nil)
	rej := &Outcome{HR: hresult.E_INVALIDARG}
	arg := &Case{Name: "c", Operator: "ARGMAX", Input: Tensor{DataType: "UINT16"}, Output: Tensor{DataType: "UINT32"}}
	r.Add(arg, rej, rej, nil)
	none := &Outcome{NoAnswer: true, Message: "no answer within 20s"}
	r.Add(poolCase("d", "INT16"), none, eq, map[string]string{"d": "semantics.md rule 11"})
	if r.Failed() {
		t.Fatalf("failed: %s", r.Summary())
	}
	r.Add(poolCase("e", "INT16"), none, eq, nil)
	if !r.Failed() || r.NoAnswer != 1 {
		t.Fatalf("an unexplained case without an answer must fail: %s", r.Summary())
	}
	want := map[GroupKey]Counts{
		{"FLOAT16", FamilyMaxPool}: {Equal: 1},
		{"FLOAT32", FamilyMaxPool}: {Equal: 1},
		{"UINT16", FamilyArg}:      {RejectedByBoth: 1},
		{"INT16", FamilyMaxPool}:   {Explained: 1, NoAnswer: 1},
	}
	if len(r.Groups) != len(want) {
		t.Errorf("groups %v", r.GroupKeys())
	}
	for k, w := range want {
		if g := r.Groups[k]; g == nil || *g != w {
			t.Errorf("%v: %+v, want %+v", k, g, w)
		}
	}
	if w := (Counts{Equal: 1, RejectedByBoth: 1, Explained: 1, NoAnswer: 1}); r.Sixteen != w {
		t.Errorf("16-bit counts %+v, want %+v", r.Sixteen, w)
	}
	if s := r.Summary(); !strings.Contains(s, "parity: 2 equal, 0 differ, 1 rejected by both; 16-bit: 1 equal, 0 differ, 1 rejected by both") {
		t.Errorf("summary %q", s)
	}
}
