package parity

import (
	"fmt"
	"math"
	"strings"

	"github.com/vkdml/vkdml/tensor"
)

// MaxListed is how many differing elements a comparison lists per output
// (OutputComparison.Differing counts them all).
const MaxListed = 16

// maxSourceElements bounds how many input elements of one difference's
// source the hints read: a global reduction of a tensor of tens of MiB
// is read in full, a larger one only in part (Source.Partial).
const maxSourceElements = 1 << 24

// Compared says what an output comparison compared.
const (
	// ComparedBuffer: the whole physical buffers, byte for byte per
	// element, the bytes the strides skip included (semantics.md rule 6).
	ComparedBuffer = "buffer"
	// ComparedElements: only the logical elements, row-major: the
	// expected output was given as a plain .npy of its elements.
	ComparedElements = "elements"
)

// OutputComparison is the comparison of one output tensor.
type OutputComparison struct {
	Output int `json:"output"`
	// Compared is ComparedBuffer or ComparedElements.
	Compared string `json:"compared"`
	// Elements is how many elements were compared; Differing how many
	// of them differ (Differences lists the first MaxListed).
	Elements  uint64 `json:"elements"`
	Differing uint64 `json:"differing"`
	// signedZerosOnly: every differing element is a zero of a float
	// type on both sides (+0 against −0).
	signedZerosOnly bool
}

// Difference is one output element where vkdml and the expected result
// (DirectML's) differ.
type Difference struct {
	Output int `json:"output"`
	// Coordinates are the element's logical coordinates; nil for a
	// buffer element the output's strides do not address.
	Coordinates   []uint32 `json:"coordinates"`
	BufferElement uint64   `json:"buffer_element"`
	// Expected and VKDML are the two values as text (NaN and −0 have no
	// JSON number), ExpectedBits and VKDMLBits their bits in hexadecimal.
	Expected     string `json:"expected"`
	VKDML        string `json:"vkdml"`
	ExpectedBits string `json:"expected_bits"`
	VKDMLBits    string `json:"vkdml_bits"`
	// Source is the input window, block or elements that produced the
	// element, when the operator names one.
	Source *Source `json:"source,omitempty"`
	// Hints name the rules that often explain such a difference.
	Hints []Hint `json:"hints,omitempty"`
}

// Source is the part of an input that produced one output element: a
// box of coordinates (a pooling window, a reduction's block), or a list
// of elements (MAX_UNPOOLING's inputs whose index names the element).
type Source struct {
	// Input is the input tensor's binding position (Case.InputTensors).
	Input int `json:"input"`
	// Kind is "window", "block" or "elements".
	Kind string `json:"kind"`
	// Start, End and Step are the box, per input axis: coordinates
	// Start, Start+Step, ... below End. A window that reaches into
	// padding has a negative Start or an End past the input's size.
	Start []int64  `json:"start,omitempty"`
	End   []int64  `json:"end,omitempty"`
	Step  []uint32 `json:"step,omitempty"`
	// Elements are the input coordinates for Kind "elements".
	Elements [][]uint32 `json:"elements,omitempty"`
	// Extreme is the value the operator selects from the source, "max"
	// or "min", or "" when it selects none (the tie hint needs it).
	Extreme string `json:"extreme,omitempty"`
	// Partial: the source holds more than the hints read.
	Partial bool `json:"partial,omitempty"`
	// Hints the operator itself names for this element.
	Hints []Hint `json:"-"`
}

// Hint is a rule that often explains a difference, by kind.
type Hint struct {
	// Kind is one of the Hint* constants.
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// Hint kinds.
const (
	HintNaN             = "nan"
	HintTie             = "tie"
	HintSignedZero      = "signed zero"
	HintAllPadding      = "all-padding window"
	HintOutOfRangeIndex = "out-of-range index"
	HintInt64Order      = "int64 ordering"
	HintDuplicateIndex  = "duplicate index"
)

// SourceFunc names the source of output element coords of output output
// of case c, whose input buffers are inputs; nil when it names none. The
// operator table (internal/operators) provides one per operator.
type SourceFunc func(c *Case, inputs [][]byte, output int, coords []uint32) *Source

// compareOutputs compares every output of a successful golden and vk
// outcome: per output, what was compared and how many elements differ,
// and the first MaxListed differences of each. problems lists what could
// not be compared (missing outputs, wrong sizes).
func compareOutputs(c *Case, golden, vk *Outcome) (comps []OutputComparison, diffs []Difference, problems []string) {
	outs := c.OutputTensors()
	if len(golden.Outputs) != len(outs) || len(vk.Outputs) != len(outs) {
		problems = append(problems, fmt.Sprintf("the operator has %d output(s); DirectML returned %d, vkdml %d", len(outs), len(golden.Outputs), len(vk.Outputs)))
	}
	for i, t := range outs {
		if i >= len(golden.Outputs) || i >= len(vk.Outputs) {
			problems = append(problems, fmt.Sprintf("output %d missing", i))
			continue
		}
		comp, d, err := compareOutput(t, i, golden.Outputs[i], vk.Outputs[i], golden.elementsOnly(i))
		if err != nil {
			problems = append(problems, fmt.Sprintf("output %d: %v", i, err))
			continue
		}
		comps = append(comps, comp)
		diffs = append(diffs, d...)
	}
	return comps, diffs, problems
}

// elementsOnly reports whether output i of o holds only the logical
// elements.
func (o *Outcome) elementsOnly(i int) bool { return i < len(o.Elements) && o.Elements[i] }

// compareOutput compares output i, tensor t: expected is the whole
// buffer, or with elements only its logical elements row-major; got is
// vkdml's whole buffer.
func compareOutput(t *Tensor, i int, expected, got []byte, elements bool) (OutputComparison, []Difference, error) {
	comp := OutputComparison{Output: i, Compared: ComparedBuffer, signedZerosOnly: true}
	d, err := t.Desc()
	if err != nil {
		return comp, nil, err
	}
	if !d.DataType.Valid() {
		return comp, nil, fmt.Errorf("data type %s has no element size", t.DataType)
	}
	es := uint64(d.DataType.Size())
	var diffs []Difference
	differ := func(coords []uint32, buf uint64, a, b []byte) {
		if string(a) == string(b) {
			return
		}
		comp.Differing++
		comp.signedZerosOnly = comp.signedZerosOnly && d.DataType.IsFloat() && isZero(a) && isZero(b)
		if len(diffs) < MaxListed {
			diffs = append(diffs, Difference{Output: i, Coordinates: coords, BufferElement: buf,
				Expected: formatValue(d.DataType, a), VKDML: formatValue(d.DataType, b),
				ExpectedBits: formatBits(a), VKDMLBits: formatBits(b)})
		}
	}
	if elements {
		comp.Compared = ComparedElements
		n := d.ElementCount()
		if uint64(len(expected)) != n*es {
			return comp, nil, fmt.Errorf("the expected output holds %d bytes; its %d elements of %s take %d", len(expected), n, t.DataType, n*es)
		}
		if uint64(len(got)) < d.SpanBytes() {
			return comp, nil, fmt.Errorf("vkdml's buffer holds %d bytes; the tensor spans %d", len(got), d.SpanBytes())
		}
		var k uint64
		tensor.ForEachIndex(d.Sizes, func(cs []uint32) {
			off := d.Offset(cs) * es
			differ(append([]uint32(nil), cs...), off/es, expected[k*es:(k+1)*es], got[off:off+es])
			k++
		})
		comp.Elements = n
		return comp, diffs, nil
	}
	if len(expected) != len(got) {
		return comp, nil, fmt.Errorf("buffer sizes differ: %d vs %d bytes", len(expected), len(got))
	}
	comp.Elements = uint64(len(expected)) / es
	for e := uint64(0); e < comp.Elements; e++ {
		differ(nil, e, expected[e*es:(e+1)*es], got[e*es:(e+1)*es])
	}
	if len(diffs) > 0 {
		// One pass over the logical elements finds the coordinates of
		// every listed buffer element (nil stays for those between them).
		at := map[uint64]int{}
		for j := range diffs {
			at[diffs[j].BufferElement] = j
		}
		tensor.ForEachIndex(d.Sizes, func(cs []uint32) {
			if j, ok := at[d.Offset(cs)]; ok && diffs[j].Coordinates == nil {
				diffs[j].Coordinates = append([]uint32(nil), cs...)
			}
		})
	}
	return comp, diffs, nil
}

// formatValue is one element's value as text: floats with -0, NaN, ±Inf.
func formatValue(dt tensor.DataType, b []byte) string { return formatShort(dt, b) }

// formatBits is one element's little-endian bytes as a hexadecimal number.
func formatBits(b []byte) string {
	var s strings.Builder
	s.WriteString("0x")
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&s, "%02x", b[i])
	}
	return s.String()
}

// Explain fills the source and hints of each difference of case c, whose
// input buffers are inputs, with source naming each element's source.
func Explain(c *Case, inputs [][]byte, diffs []Difference, source SourceFunc) {
	for j := range diffs {
		d := &diffs[j]
		if source != nil && d.Coordinates != nil {
			d.Source = source(c, inputs, d.Output, d.Coordinates)
		}
		d.Hints = hints(c, inputs, d)
	}
}

// hints names the rules that may explain difference d: a NaN or a signed
// zero among its values or its source, a tie for the source's extreme, a
// window wholly in the padding, an INT64 block whose values share a high
// word with low words on both sides of 2^31 (semantics.md rule 15), and
// what the operator named itself.
func hints(c *Case, inputs [][]byte, d *Difference) []Hint {
	var out []Hint
	add := func(kind, detail string) {
		for _, h := range out {
			if h.Kind == kind {
				return
			}
		}
		out = append(out, Hint{kind, detail})
	}
	if d.Output < len(c.OutputTensors()) {
		dt, _ := tensor.ParseDataType(c.OutputTensors()[d.Output].DataType)
		if dt.IsFloat() {
			if isNaNText(d.Expected) || isNaNText(d.VKDML) {
				add(HintNaN, "one value is NaN: NaN compares false with everything (semantics.md rules 4 and 10)")
			}
			if isZeroText(d.Expected) && isZeroText(d.VKDML) {
				add(HintSignedZero, "the values are +0 and −0, which compare equal (semantics.md rules 5 and 11a)")
			}
		}
	}
	s := d.Source
	if s == nil {
		return out
	}
	out = append(out, s.Hints...)
	ins := c.InputTensors()
	if s.Input >= len(ins) || s.Input >= len(inputs) {
		return out
	}
	desc, err := ins[s.Input].Desc()
	if err != nil || !desc.DataType.Valid() || uint64(len(inputs[s.Input])) < desc.SpanBytes() {
		return out
	}
	t := &tensor.Tensor{Desc: desc, Data: inputs[s.Input]}
	var (
		n                       int
		nan, posZero, negZero   bool
		best                    float64
		bestCount               int
		highWords               = map[uint32][2]bool{}
		straddle                bool
		isFloat, isInt64, exact = desc.DataType.IsFloat(), desc.DataType == tensor.Int64, true
	)
	visit := func(cs []uint32) bool {
		if n >= maxSourceElements {
			s.Partial = true
			return false
		}
		n++
		if isInt64 {
			v := uint64(t.Int64At(cs...))
			hw := highWords[uint32(v>>32)]
			hw[v>>31&1] = true
			highWords[uint32(v>>32)] = hw
			straddle = straddle || (hw[0] && hw[1])
		}
		var v float64
		if isFloat {
			v = t.Float64At(cs...)
			switch {
			case math.IsNaN(v):
				nan = true
				return true
			case v == 0 && math.Signbit(v):
				negZero = true
			case v == 0:
				posZero = true
			}
		} else if desc.DataType.IsSigned() {
			v = float64(t.Int64At(cs...))
			exact = exact && desc.DataType.Size() < 8
		} else {
			v = float64(t.Uint64At(cs...))
			exact = exact && desc.DataType.Size() < 8
		}
		switch {
		case bestCount == 0 || (s.Extreme == "max" && v > best) || (s.Extreme == "min" && v < best):
			best, bestCount = v, 1
		case v == best:
			bestCount++
		}
		return true
	}
	inside := s.forEach(desc.Sizes, visit)
	if s.Kind == "elements" && len(s.Elements) > 1 {
		add(HintDuplicateIndex, fmt.Sprintf("%d input elements name this element: vkdml writes the last in row-major order, DirectML 1.15.4 on large tensors any of them (semantics.md rule 20)", len(s.Elements)))
	}
	if s.Kind == "window" && inside == 0 {
		add(HintAllPadding, "the window lies wholly in the padding: it holds no input element (semantics.md rules 8 and 9)")
	}
	if nan {
		add(HintNaN, "the source holds a NaN: NaN compares false with everything, so where it lies decides (semantics.md rules 4 and 10)")
	}
	if posZero && negZero {
		add(HintSignedZero, "the source holds both +0 and −0, which tie (semantics.md rules 5 and 11a)")
	}
	if s.Extreme != "" && bestCount > 1 && (exact || isFloat) {
		add(HintTie, fmt.Sprintf("the source's %s occurs %d times: the direction or the scan order picks one (semantics.md rules 5 and 11)", s.Extreme, bestCount))
	}
	if straddle {
		add(HintInt64Order, "INT64 values in the source share a high word with low words on both sides of 2^31: DirectML orders them by a signed low word (semantics.md rule 15)")
	}
	return out
}

func isNaNText(s string) bool  { return strings.EqualFold(s, "NaN") }
func isZeroText(s string) bool { return s == "0" || s == "-0" }

// forEach calls visit with the coordinates of each source element inside
// an input of the given sizes, until visit returns false; it returns how
// many it visited.
func (s *Source) forEach(sizes []uint32, visit func([]uint32) bool) int {
	n := 0
	if s.Kind == "elements" {
		for _, cs := range s.Elements {
			if len(cs) != len(sizes) {
				continue
			}
			n++
			if !visit(cs) {
				break
			}
		}
		return n
	}
	if len(s.Start) != len(sizes) || len(s.End) != len(sizes) {
		return 0
	}
	step := func(a int) int64 {
		if a < len(s.Step) && s.Step[a] > 0 {
			return int64(s.Step[a])
		}
		return 1
	}
	// The first coordinate inside the input on each axis, and the end.
	first, cs := make([]int64, len(sizes)), make([]uint32, len(sizes))
	for a := range sizes {
		first[a] = s.Start[a]
		for first[a] < 0 {
			first[a] += step(a)
		}
		if first[a] >= min(s.End[a], int64(sizes[a])) {
			return 0
		}
		cs[a] = uint32(first[a])
	}
	for {
		n++
		if !visit(cs) {
			return n
		}
		a := len(sizes) - 1
		for ; a >= 0; a-- {
			next := int64(cs[a]) + step(a)
			if next < min(s.End[a], int64(sizes[a])) {
				cs[a] = uint32(next)
				break
			}
			cs[a] = uint32(first[a])
		}
		if a < 0 {
			return n
		}
	}
}

// Text is the source as one line: "input 0 window [0:3, 1:4 step 2]".
func (s *Source) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "input %d %s ", s.Input, s.Kind)
	if s.Kind == "elements" {
		if len(s.Elements) == 0 {
			b.WriteString("none")
		}
		for i, cs := range s.Elements {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(tensor.Shape(cs))
		}
		return b.String()
	}
	b.WriteString("[")
	for a := range s.Start {
		if a > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d:%d", s.Start[a], s.End[a])
		if a < len(s.Step) && s.Step[a] > 1 {
			fmt.Fprintf(&b, " step %d", s.Step[a])
		}
	}
	b.WriteString("]")
	return b.String()
}

// Text is the difference as one line of prose.
func (d *Difference) Text() string {
	where := fmt.Sprintf("buffer element %d (not addressed by the strides)", d.BufferElement)
	if d.Coordinates != nil {
		where = fmt.Sprintf("%s (buffer element %d)", tensor.Shape(d.Coordinates), d.BufferElement)
	}
	s := fmt.Sprintf("output %d at %s: DirectML %s(%s), vkdml %s(%s)", d.Output, where, d.Expected, d.ExpectedBits, d.VKDML, d.VKDMLBits)
	if d.Source != nil {
		s += "; from " + d.Source.Text()
	}
	for _, h := range d.Hints {
		s += "; hint: " + h.Kind
	}
	return s
}
