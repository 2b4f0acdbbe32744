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

// globalCase is a MAX_POOLING with the global window over a 1x1x2x2 input
// (semantics.md rule 7a) and an output of the given spatial sizes.
func globalCase(dt string, oh, ow uint32) *Case {
	es := map[string]uint64{"FLOAT32": 4, "FLOAT16": 2, "INT32": 4}[dt]
	return &Case{Name: "g", Operator: "MAX_POOLING",
		Input:   Tensor{DataType: dt, Sizes: []uint32{1, 1, 2, 2}, TotalTensorSizeInBytes: 4 * es},
		Output:  Tensor{DataType: dt, Sizes: []uint32{1, 1, oh, ow}, TotalTensorSizeInBytes: (uint64(oh*ow)*es + 3) &^ 3},
		Strides: []uint32{1, 3}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}
}

// TestGlobalWindowExplained: with the global window and no indices output,
// any difference at an extent other than 1 is a known difference (rule
// 7a); at extent 1 vkdml follows DirectML's reduction, so only the other
// zero is known (rule 11a) and −∞ against the lowest finite value
// differs; padding, a dilation, a smaller window or an indices output
// leave the difference unexplained.
func TestGlobalWindowExplained(t *testing.T) {
	f32 := func(bits ...uint32) []byte {
		var b []byte
		for _, v := range bits {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		return b
	}
	const one, two, negInf, lowest, negZero = 0x3f800000, 0x40000000, 0xff800000, 0xff7fffff, 0x80000000
	copyOut, windowOut := f32(one, two, one, two), f32(two, lowest, two, lowest)
	for _, c := range []struct {
		name      string
		c         *Case
		dml, vk   []byte
		want      string
		wantRule  string
		withIndex bool
	}{
		{"extent 2x2", globalCase("FLOAT32", 2, 2), copyOut, windowOut, Known, "rule 7a", false},
		{"extent 1x2", globalCase("FLOAT32", 1, 2), f32(one, two), f32(two, lowest), Known, "rule 7a", false},
		{"extent 2x2 int32", globalCase("INT32", 2, 2), copyOut, windowOut, Known, "rule 7a", false},
		{"floor: -inf for the lowest finite", globalCase("FLOAT32", 1, 1), f32(negInf), f32(lowest), Differ, "", false},
		{"floor: -inf for the lowest finite, float16", globalCase("FLOAT16", 1, 1), []byte{0, 0xfc, 0xcd, 0xcd}, []byte{0xff, 0xfb, 0xcd, 0xcd}, Differ, "", false},
		{"floor: the lowest finite for -inf", globalCase("FLOAT32", 1, 1), f32(lowest), f32(negInf), Differ, "", false},
		{"floor: the other zero", globalCase("FLOAT32", 1, 1), f32(negZero), f32(0), Known, "rule 11a", false},
		{"floor: another value", globalCase("FLOAT32", 1, 1), f32(one), f32(two), Differ, "", false},
		{"floor: -inf for another value", globalCase("FLOAT32", 1, 1), f32(negInf), f32(two), Differ, "", false},
		{"extent 2x2 with an indices output", globalCase("FLOAT32", 2, 2), copyOut, windowOut, Differ, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dml, vk := ok(c.dml), ok(c.vk)
			if c.withIndex {
				c.c.Operator = "MAX_POOLING1"
				c.c.OutputIndices = &Tensor{DataType: "UINT32", Sizes: c.c.Output.Sizes, TotalTensorSizeInBytes: 16}
				idx := make([]byte, 16)
				dml.Outputs, vk.Outputs = append(dml.Outputs, idx), append(vk.Outputs, idx)
			}
			row := (&Report{}).Add(c.c, dml, vk, nil)
			if row.Verdict != c.want || !strings.Contains(row.Detail, c.wantRule) {
				t.Fatalf("verdict %q (%s), want %q naming %q", row.Verdict, row.Detail, c.want, c.wantRule)
			}
		})
	}
	// Each condition of the global window, broken alone, leaves the extent
	// 2x2's difference unexplained.
	for name, mod := range map[string]func(c *Case){
		"start padding": func(c *Case) { c.StartPadding = []uint32{0, 1} },
		"end padding":   func(c *Case) { c.EndPadding = []uint32{1, 0} },
		"dilation 2":    func(c *Case) { c.Operator, c.Dilations = "MAX_POOLING2", []uint32{2, 1} },
		"window 2x1":    func(c *Case) { c.WindowSize = []uint32{2, 1} },
	} {
		t.Run(name, func(t *testing.T) {
			c := globalCase("FLOAT32", 2, 2)
			mod(c)
			if row := (&Report{}).Add(c, ok(copyOut), ok(windowOut), nil); row.Verdict != Differ {
				t.Errorf("verdict %q (%s), want %q", row.Verdict, row.Detail, Differ)
			}
		})
	}
	c := globalCase("FLOAT32", 2, 2)
	c.Operator, c.Dilations = "MAX_POOLING2", []uint32{1, 1}
	if row := (&Report{}).Add(c, ok(copyOut), ok(windowOut), nil); row.Verdict != Known {
		t.Errorf("MAX_POOLING2 with dilation 1: verdict %q, want %q", row.Verdict, Known)
	}
}
