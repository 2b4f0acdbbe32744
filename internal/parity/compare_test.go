package parity

import (
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
)

// f32 is FLOAT32 elements, little-endian, from their bits.
func f32(bits ...uint32) []byte {
	var b []byte
	for _, v := range bits {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b
}

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
	if s := r.Summary(); !strings.Contains(s, "parity: 2 equal, 0 within bound, 0 differ, 1 rejected by both; 16-bit: 1 equal, 0 within bound, 0 differ, 1 rejected by both") {
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

// unpoolCase is a FLOAT32 MAX_UNPOOLING of n input elements, 1x1x1xn, into
// a 1x1x1xm output (strides nil: packed), with indices of type it.
func unpoolCase(it string, n, m uint32, outStrides []uint32, outBytes uint64) *Case {
	ie := map[string]uint64{"UINT32": 4, "UINT64": 8}[it]
	return &Case{Name: "u", Operator: "MAX_UNPOOLING",
		Input:   Tensor{DataType: "FLOAT32", Sizes: []uint32{1, 1, 1, n}, TotalTensorSizeInBytes: 4 * uint64(n)},
		Indices: &Tensor{DataType: it, Sizes: []uint32{1, 1, 1, n}, TotalTensorSizeInBytes: ie * uint64(n)},
		Output:  Tensor{DataType: "FLOAT32", Sizes: []uint32{1, 1, 1, m}, Strides: outStrides, TotalTensorSizeInBytes: outBytes}}
}

// indexBytes is indices of type it ("UINT32" or "UINT64"), little-endian.
func indexBytes(it string, v ...uint64) []byte {
	var b []byte
	for _, x := range v {
		for k := 0; k < map[string]int{"UINT32": 4, "UINT64": 8}[it]; k++ {
			b = append(b, byte(x>>(8*k)))
		}
	}
	return b
}

// TestDuplicateIndexExplained: a MAX_UNPOOLING output element named by
// several in-range indices, where DirectML holds another of their values
// than vkdml's last in row-major order, is a known difference (rule 20);
// a value that is no naming element's, an element named once or not at
// all, a name only through an index DirectML wraps (rule 19), a vkdml
// value other than the last, a differing byte between the elements, a
// difference past the listed ones, a run without inputs and another
// operator are not.
func TestDuplicateIndexExplained(t *testing.T) {
	const a, b, c, d, other = 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x41000000
	values := f32(a, b, c, d)
	// Element 1 is named by a, b and c (rule 20: c), element 3 by d.
	dupIdx := indexBytes("UINT32", 1, 1, 1, 3)
	want := f32(0, c, 0, d)
	for _, tc := range []struct {
		name     string
		c        *Case
		idx      []byte
		dml, vk  []byte
		want     string
		noInputs bool
	}{
		{"the second of three", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, b, 0, d), want, Known, false},
		{"the first of three", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, a, 0, d), want, Known, false},
		{"uint64 indices", unpoolCase("UINT64", 4, 4, nil, 16), indexBytes("UINT64", 1, 1, 1, 3), f32(0, b, 0, d), want, Known, false},
		{"no duplicate's value", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, other, 0, d), want, Differ, false},
		{"another element's value", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, d, 0, d), want, Differ, false},
		{"unwritten instead of a duplicate", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, 0, 0, d), want, Differ, false},
		{"an element named once", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, c, 0, a), want, Differ, false},
		{"an element named by none", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(a, c, 0, d), want, Differ, false},
		{"a duplicate and an element named once", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, b, 0, a), want, Differ, false},
		{"vkdml not the last", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, a, 0, d), f32(0, b, 0, d), Differ, false},
		// 2^32+1 is past the end for vkdml (rule 19): element 1 is named by
		// a and b only, and DirectML's c (the wrapped index's) is not theirs.
		{"the value of a wrapped index", unpoolCase("UINT64", 4, 4, nil, 16), indexBytes("UINT64", 1, 1, 1<<32+1, 3), f32(0, c, 0, d), f32(0, b, 0, d), Differ, false},
		{"no inputs", unpoolCase("UINT32", 4, 4, nil, 16), dupIdx, f32(0, b, 0, d), want, Differ, true},
		// A strided output (stride 2): the bytes between elements must agree.
		{"strided output", unpoolCase("UINT32", 4, 4, []uint32{8, 8, 8, 2}, 28), dupIdx,
			f32(0, 0xcdcdcdcd, b, 0xcdcdcdcd, 0, 0xcdcdcdcd, d), f32(0, 0xcdcdcdcd, c, 0xcdcdcdcd, 0, 0xcdcdcdcd, d), Known, false},
		{"strided output, a byte between differs", unpoolCase("UINT32", 4, 4, []uint32{8, 8, 8, 2}, 28), dupIdx,
			f32(0, 0, b, 0xcdcdcdcd, 0, 0xcdcdcdcd, d), f32(0, 0xcdcdcdcd, c, 0xcdcdcdcd, 0, 0xcdcdcdcd, d), Differ, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inputs [][]byte
			if !tc.noInputs {
				inputs = [][]byte{values, tc.idx}
			}
			row := (&Report{}).AddRun(tc.c, inputs, ok(tc.dml), ok(tc.vk), nil)
			if row.Verdict != tc.want || (tc.want == Known) != strings.Contains(row.Detail, "rule 20") {
				t.Fatalf("verdict %q (%s), want %q", row.Verdict, row.Detail, tc.want)
			}
		})
	}
	t.Run("another operator", func(t *testing.T) {
		c := unpoolCase("UINT32", 4, 4, nil, 16)
		c.Operator = "MAX_POOLING"
		if row := (&Report{}).AddRun(c, [][]byte{values, dupIdx}, ok(f32(0, b, 0, d)), ok(want), nil); row.Verdict != Differ {
			t.Errorf("verdict %q (%s), want %q", row.Verdict, row.Detail, Differ)
		}
	})
}

// TestDuplicateIndexBeyondListed: every differing element is checked, not
// only the MaxListed that the row keeps, in whole-buffer and
// elements-only goldens.
func TestDuplicateIndexBeyondListed(t *testing.T) {
	const m = 3 * MaxListed
	// Input k and m+k both name output element k: rule 20 writes m+k,
	// this DirectML k.
	var values, first, last []uint32
	var idx []uint64
	for k := uint32(0); k < 2*m; k++ {
		values, idx = append(values, 0x3f800000+k), append(idx, uint64(k%m))
	}
	first, last = values[:m], values[m:]
	c := unpoolCase("UINT32", 2*m, m, nil, 4*m)
	inputs := [][]byte{f32(values...), indexBytes("UINT32", idx...)}
	doctored := slices.Clone(first)
	doctored[m-1] = 0x41000000 // no duplicate's value, past the listed ones
	for _, tc := range []struct {
		name     string
		dml      []uint32
		elements bool
		want     string
	}{
		{"buffer", first, false, Known},
		{"elements", first, true, Known},
		{"buffer, the last differing element no duplicate's", doctored, false, Differ},
		{"elements, the last differing element no duplicate's", doctored, true, Differ},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dml := ok(f32(tc.dml...))
			dml.Elements = []bool{tc.elements}
			row := (&Report{}).AddRun(c, inputs, dml, ok(f32(last...)), nil)
			if row.Verdict != tc.want {
				t.Fatalf("verdict %q (%s), want %q", row.Verdict, row.Detail, tc.want)
			}
			if len(row.Differences) != MaxListed || row.Outputs[0].Differing != m {
				t.Errorf("%d differences listed of %d; the test needs more than the listed ones", len(row.Differences), row.Outputs[0].Differing)
			}
		})
	}
}
