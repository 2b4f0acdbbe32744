package parity

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vkdml/vkdml/tensor"
)

// Verdicts. REDUCE's floating-point functions also have WithinBound and
// OutsideBound (reduce_bound.go); OutsideBound counts as a difference.
const (
	Equal          = "equal"
	Differ         = "DIFFER"
	RejectedByBoth = "rejected by both"
	Known          = "known difference"
	NoGolden       = "NO GOLDEN"
	Skipped        = "skipped"
	// NoAnswer: DirectML did not finish the case within the runner's
	// per-case time limit (see dmlrunner -case-timeout).
	NoAnswer = "NO ANSWER"
)

// Operator families, the rows of the per-type table.
const (
	FamilyArg       = "argminmax" // ARGMAX, ARGMIN, REDUCE
	FamilyMaxPool   = "maxpool"   // MAX_POOLING, MAX_POOLING1, MAX_POOLING2
	FamilyMaxUnpool = "maxunpool" // MAX_UNPOOLING
	FamilyTopK      = "topk"      // TOP_K, TOP_K1
)

// Family is the operator family of a case.
func (c *Case) Family() string {
	if strings.HasPrefix(c.Operator, "MAX_POOLING") {
		return FamilyMaxPool
	}
	if c.Operator == "MAX_UNPOOLING" {
		return FamilyMaxUnpool
	}
	if strings.HasPrefix(c.Operator, "TOP_K") {
		return FamilyTopK
	}
	return FamilyArg
}

// Is16Bit reports whether the case's input is one of the 16-bit types
// (FLOAT16, INT16, UINT16), which the summary line counts apart.
func (c *Case) Is16Bit() bool {
	switch c.Input.DataType {
	case "FLOAT16", "INT16", "UINT16":
		return true
	}
	return false
}

// Counts are the verdicts of a group of cases.
type Counts struct {
	Equal int `json:"equal"`
	// WithinBound are REDUCE float results that differ from DirectML's
	// within semantics.md rule 44's bound, which passes; OutsideBound
	// those beyond it, counted in Unexplained too.
	WithinBound  int `json:"within_bound"`
	OutsideBound int `json:"differ_outside_bound"`
	// Explained are differences with a documented reason (a known
	// difference); Unexplained are the others, which fail the comparison.
	Explained      int `json:"differ_explained"`
	Unexplained    int `json:"differ_unexplained"`
	RejectedByBoth int `json:"rejected_by_both"`
	Skipped        int `json:"skipped"`
	NoGolden       int `json:"no_golden"`
	NoAnswer       int `json:"no_answer"`
}

func (n *Counts) add(verdict string) {
	switch verdict {
	case Equal:
		n.Equal++
	case WithinBound:
		n.WithinBound++
	case OutsideBound:
		n.OutsideBound++
		n.Unexplained++
	case Known:
		n.Explained++
	case Differ:
		n.Unexplained++
	case RejectedByBoth:
		n.RejectedByBoth++
	case Skipped:
		n.Skipped++
	case NoGolden:
		n.NoGolden++
	case NoAnswer:
		n.NoAnswer++
	}
}

// GroupKey is a data type (the input's) and an operator family.
type GroupKey struct{ Type, Family string }

// KnownDifference is an entry of known-differences.json: a case whose
// difference from DirectML is documented and accepted.
type KnownDifference struct {
	Case   string `json:"case"`
	Reason string `json:"reason"` // the semantics.md rule or document that explains it
}

// KnownDifferences is the file known-differences.json.
type KnownDifferences struct {
	Comment     string            `json:"comment,omitempty"`
	Differences []KnownDifference `json:"differences"`
}

// LoadKnown reads dir/known-differences.json into a map from case name to
// reason; a missing file is an empty list.
func LoadKnown(dir string) (map[string]string, error) {
	var k KnownDifferences
	if err := readJSON(filepath.Join(dir, KnownFile), MaxKnownSize, &k); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	m := map[string]string{}
	for _, d := range k.Differences {
		if d.Case == "" || d.Reason == "" {
			return nil, fmt.Errorf("parity: %s: every entry needs a case and a reason", KnownFile)
		}
		m[d.Case] = d.Reason
	}
	return m, nil
}

// Row is one line of the comparison table.
type Row struct {
	Case, DirectML, VKDML, Verdict string
	Detail                         string // what differs, or the known reason
	Type, Family                   string // the input's data type, the operator family
	// Rule is the known reason of a known difference.
	Rule string
	// Outputs and Differences are the comparison of two successful
	// outcomes: per output what was compared and how many elements
	// differ, and the first MaxListed differences of each, with their
	// sources and hints when the inputs were given (AddRun).
	Outputs     []OutputComparison
	Differences []Difference
}

// Report is a whole comparison.
type Report struct {
	// TypeSupport is the DirectML device's DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT
	// (Results.TypeSupport): a case that DirectML rejected and that uses a
	// type the device does not support says nothing about the semantics,
	// and is skipped.
	TypeSupport map[string]bool
	// Source, when set, names the input window or block of each listed
	// difference (the operator table's, internal/operators.Source).
	Source SourceFunc

	Rows                                                          []Row
	Equal, Differ, RejectedByBoth, Known, None, Skipped, NoAnswer int
	// WithinBound counts the REDUCE float cases within rule 44's bound
	// of DirectML (apart from Equal), OutsideBound those beyond it
	// (among Differ).
	WithinBound, OutsideBound int
	// Groups counts the verdicts per input data type and operator family;
	// Sixteen counts those of the 16-bit cases.
	Groups  map[GroupKey]*Counts
	Sixteen Counts
}

// unsupportedType returns the first data type of c that the DirectML
// device reported as unsupported, or "".
func (r *Report) unsupportedType(c *Case) string {
	ts := []*Tensor{&c.Input, c.Indices, &c.Output, c.OutputIndices}
	for _, t := range ts {
		if t != nil {
			if ok, known := r.TypeSupport[t.DataType]; known && !ok {
				return t.DataType
			}
		}
	}
	return ""
}

// Failed reports whether anything differs that is not a known difference,
// a case has no golden, or DirectML gave no answer to a case that is not a
// known difference.
func (r *Report) Failed() bool { return r.Differ > 0 || r.None > 0 || r.NoAnswer > 0 }

// Add compares one case and appends its row. golden nil means DirectML's
// result is missing.
func (r *Report) Add(c *Case, golden, vk *Outcome, known map[string]string) *Row {
	return r.AddRun(c, nil, golden, vk, known)
}

// AddRun is Add with the case's input buffers, which name each
// difference's source and hints (Explain).
func (r *Report) AddRun(c *Case, inputs [][]byte, golden, vk *Outcome, known map[string]string) *Row {
	row := r.verdict(c, inputs, golden, vk, known)
	row.Type, row.Family = c.Input.DataType, c.Family()
	if r.Groups == nil {
		r.Groups = map[GroupKey]*Counts{}
	}
	k := GroupKey{row.Type, row.Family}
	if r.Groups[k] == nil {
		r.Groups[k] = &Counts{}
	}
	r.Groups[k].add(row.Verdict)
	if c.Is16Bit() {
		r.Sixteen.add(row.Verdict)
	}
	r.Rows = append(r.Rows, row)
	return &r.Rows[len(r.Rows)-1]
}

// verdict compares one case and counts its verdict.
func (r *Report) verdict(c *Case, inputs [][]byte, golden, vk *Outcome, known map[string]string) Row {
	row := Row{Case: c.Name, VKDML: Describe(c, vk)}
	if golden == nil {
		row.DirectML, row.Verdict, row.Detail = "-", NoGolden, "no DirectML result for this case"
		r.None++
		return row
	}
	row.DirectML = Describe(c, golden)
	if golden.NoAnswer {
		row.DirectML = "no answer"
		detail := "DirectML did not finish the case in time: " + golden.Message
		if known[c.Name] != "" {
			row.Verdict, row.Detail, row.Rule = Known, detail+"; known: "+known[c.Name], known[c.Name]
			r.Known++
		} else {
			row.Verdict, row.Detail = NoAnswer, detail
			r.NoAnswer++
		}
		return row
	}
	diff, failed := diffFailure(golden, vk)
	var problems []string
	if !failed {
		row.Outputs, row.Differences, problems = compareOutputs(c, golden, vk)
		if inputs != nil {
			Explain(c, inputs, row.Differences, r.Source)
		}
		diff = diffText(row.Outputs, row.Differences, problems)
	}
	differ := Differ
	if diff != "" && !failed && len(problems) == 0 && c.isReduceFloat() {
		if inputs == nil {
			inputs = vk.Inputs
		}
		bound, err := compareReduceFloat(c, inputs, golden, vk, row.Outputs)
		switch {
		case err != nil:
			diff += fmt.Sprintf("; rule 44's bound: %v", err)
		case !bound.ok:
			diff += "; compared bit for bit (rule 44's bound needs the input and differing logical elements only)"
		case bound.Verdict == Equal: // only NaN payloads differ (rule 43)
			diff = ""
		case bound.Verdict == WithinBound:
			row.Verdict, row.Detail = WithinBound, bound.Detail
			r.WithinBound++
			return row
		default:
			diff, differ = bound.Detail, OutsideBound
		}
	}
	rule := known[c.Name]
	if rule == "" && diff != "" && signedZeroValuesOnly(c, row.Outputs) {
		rule = SignedZeroReason
	}
	if rule == "" && diff != "" {
		rule = globalWindowReduction(c, golden, vk)
	}
	if rule == "" && diff != "" && !failed && len(problems) == 0 {
		rule = duplicateIndexChoice(c, inputs, golden, vk, row.Outputs)
	}
	if rule == "" && diff != "" {
		rule = topKNaN(c, golden, vk)
	}
	switch {
	case diff == "" && golden.HR.Failed():
		row.Verdict = RejectedByBoth
		r.RejectedByBoth++
	case diff == "":
		row.Verdict = Equal
		r.Equal++
	case golden.HR.Failed() && r.unsupportedType(c) != "":
		row.Verdict = Skipped
		row.Detail = fmt.Sprintf("the DirectML device does not support %s (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT), so its %v says nothing about the semantics", r.unsupportedType(c), golden.HR)
		r.Skipped++
	case rule != "":
		row.Verdict, row.Detail, row.Rule = Known, diff+"; known: "+rule, rule
		r.Known++
	default:
		row.Verdict, row.Detail = differ, diff
		r.Differ++
		if differ == OutsideBound {
			r.OutsideBound++
		}
	}
	return row
}

// SignedZeroReason explains a pooled value that is the other zero.
const SignedZeroReason = "semantics.md rule 11a: where +0 and −0 tie for a window's maximum, vkdml writes the zero stored at the selected index; DirectML's value is sometimes the other zero (which one depends on the D3D12-to-Vulkan translation), while its indices agree with vkdml's"

// signedZeroValuesOnly reports whether a max-pooling case differs only in
// values where one side wrote +0 and the other −0 (semantics.md rule 11a):
// the indices, if any, are equal, and so is every other element.
func signedZeroValuesOnly(c *Case, comps []OutputComparison) bool {
	if c.Family() != FamilyMaxPool || len(comps) != len(c.OutputTensors()) {
		return false
	}
	for _, comp := range comps {
		if comp.Differing > 0 && (comp.Output != 0 || !comp.signedZerosOnly) {
			return false
		}
	}
	return true
}

// GlobalWindowExtentReason explains a max pooling with the global window
// whose output extent is not 1 on every spatial axis.
const GlobalWindowExtentReason = "semantics.md rule 7a: with the global window (window = the input's spatial sizes, no padding, dilation 1) and no indices output, DirectML runs a reduction that ignores the output extent: an extent other than 1 gives a different window mapping (the input unchanged when the extent equals the input's), reads other planes and past the input, and −∞ or the type's minimum where its window is empty; vkdml follows rules 7-9, as DirectML itself does for the same desc with an indices output"

// globalWindowReduction returns the reason that explains a max-pooling
// difference by semantics.md rule 7a, or "": the case has the global
// window (WindowSize equal to the input's spatial sizes, zero padding,
// dilation 1), no indices output and an output extent other than 1 on
// some spatial axis. At extent 1 on every axis vkdml follows DirectML's
// reduction (its start at −∞), so a difference there is not explained.
func globalWindowReduction(c *Case, golden, vk *Outcome) string {
	if c.Family() != FamilyMaxPool || c.OutputIndices != nil || golden.HR.Failed() || vk.HR.Failed() {
		return ""
	}
	spatial := len(c.WindowSize)
	if spatial == 0 || len(c.Input.Sizes) != spatial+2 || len(c.Output.Sizes) != spatial+2 ||
		len(c.StartPadding) != spatial || len(c.EndPadding) != spatial {
		return ""
	}
	extentOne := true
	for i := 0; i < spatial; i++ {
		if c.WindowSize[i] != c.Input.Sizes[2+i] || c.StartPadding[i] != 0 || c.EndPadding[i] != 0 ||
			(c.Dilations != nil && (len(c.Dilations) != spatial || c.Dilations[i] != 1)) {
			return ""
		}
		extentOne = extentOne && c.Output.Sizes[2+i] == 1
	}
	if extentOne {
		return ""
	}
	return GlobalWindowExtentReason
}

// DuplicateIndexReason explains a MAX_UNPOOLING output element named by
// several input elements, where DirectML wrote another of them than vkdml.
const DuplicateIndexReason = "semantics.md rule 20: every differing element is named by two or more input elements; vkdml writes the last in row-major order, DirectML 1.15.4 wrote another of them (on large tensors its choice changes from run to run: its writes race)"

// duplicateIndexChoice returns DuplicateIndexReason when a MAX_UNPOOLING
// case differs only in the choice among duplicates (semantics.md rule
// 20), or "": every differing output element is named by two or more
// in-range indices, DirectML's value there has the bits of one of the
// input elements that name it, and vkdml's those of the last of them in
// row-major order. Row.Differences keeps only the first MaxListed, so it
// compares the whole outputs again, and requires that their logical
// elements account for every difference comps counted (a byte between a
// strided output's elements is no duplicate's).
func duplicateIndexChoice(c *Case, inputs [][]byte, golden, vk *Outcome, comps []OutputComparison) string {
	if c.Operator != "MAX_UNPOOLING" || c.Indices == nil || len(inputs) != 2 || len(comps) != 1 ||
		len(golden.Outputs) != 1 || len(vk.Outputs) != 1 || golden.HR.Failed() || vk.HR.Failed() {
		return ""
	}
	in, errIn := c.Input.Desc()
	idx, errIdx := c.Indices.Desc()
	out, errOut := c.Output.Desc()
	if errors.Join(errIn, errIdx, errOut) != nil || !in.DataType.Valid() || !idx.DataType.Valid() ||
		in.DataType != out.DataType || !slices.Equal(in.Sizes, idx.Sizes) ||
		uint64(len(inputs[0])) < in.SpanBytes() || uint64(len(inputs[1])) < idx.SpanBytes() {
		return ""
	}
	es := uint64(out.DataType.Size())
	expected, got, elements := golden.Outputs[0], vk.Outputs[0], golden.elementsOnly(0)
	if uint64(len(got)) < out.SpanBytes() || (elements && uint64(len(expected)) != out.ElementCount()*es) ||
		(!elements && uint64(len(expected)) < out.SpanBytes()) {
		return ""
	}
	// The differing output elements, by row-major position (increasing),
	// at most half the input's elements: each needs two names.
	type duplicated struct {
		expected, got, last []byte
		names               int
		expectedNamed       bool
	}
	var (
		positions []uint64
		elems     []duplicated
		pos       uint64
		limit     = in.ElementCount() / 2
	)
	tensor.ForEachIndex(out.Sizes, func(cs []uint32) {
		off := out.Offset(cs) * es
		e := expected[off : off+es]
		if elements {
			e = expected[pos*es : (pos+1)*es]
		}
		if g := got[off : off+es]; !bytes.Equal(e, g) && uint64(len(elems)) <= limit {
			positions, elems = append(positions, pos), append(elems, duplicated{expected: e, got: g})
		}
		pos++
	})
	if uint64(len(elems)) != comps[0].Differing || uint64(len(elems)) > limit {
		return ""
	}
	indices := &tensor.Tensor{Desc: idx, Data: inputs[1]}
	tensor.ForEachIndex(in.Sizes, func(cs []uint32) {
		// Only in-range indices are among positions (rule 19).
		j, found := slices.BinarySearch(positions, indices.Uint64At(cs...))
		if !found {
			return
		}
		off := in.Offset(cs) * es
		v, d := inputs[0][off:off+es], &elems[j]
		d.names++
		d.last = v
		d.expectedNamed = d.expectedNamed || bytes.Equal(v, d.expected)
	})
	for _, d := range elems {
		if d.names < 2 || !d.expectedNamed || !bytes.Equal(d.got, d.last) {
			return ""
		}
	}
	return DuplicateIndexReason
}

// isZero reports whether the little-endian float bytes b are +0 or −0:
// every bit clear but the sign, the top bit of the last byte.
func isZero(b []byte) bool {
	for k, v := range b {
		if k == len(b)-1 {
			v &^= 0x80
		}
		if v != 0 {
			return false
		}
	}
	return true
}

// Summary is the line `parity: N equal, M differ, K rejected by both`,
// followed by the same counts for the 16-bit cases and, when there are
// any, the known differences, skipped cases and cases without an answer.
func (r *Report) Summary() string {
	s := fmt.Sprintf("parity: %d equal, %d within bound, %d differ, %d rejected by both; 16-bit: %d equal, %d within bound, %d differ, %d rejected by both",
		r.Equal, r.WithinBound, r.Differ, r.RejectedByBoth, r.Sixteen.Equal, r.Sixteen.WithinBound, r.Sixteen.Unexplained, r.Sixteen.RejectedByBoth)
	var more []string
	if r.OutsideBound > 0 {
		more = append(more, fmt.Sprintf("%d of the differences outside rule 44's bound", r.OutsideBound))
	}
	if r.Known > 0 {
		more = append(more, fmt.Sprintf("%d known differences", r.Known))
	}
	if r.Skipped > 0 {
		more = append(more, fmt.Sprintf("%d skipped", r.Skipped))
	}
	if r.NoAnswer > 0 {
		more = append(more, fmt.Sprintf("%d without an answer", r.NoAnswer))
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, ", ") + ")"
	}
	return s
}

// GroupKeys lists the (type, family) groups in a stable order: by type,
// then family.
func (r *Report) GroupKeys() []GroupKey {
	keys := make([]GroupKey, 0, len(r.Groups))
	for k := range r.Groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Type != keys[j].Type {
			return keys[i].Type < keys[j].Type
		}
		return keys[i].Family < keys[j].Family
	})
	return keys
}

// PrintGroups writes the per-type table: for each input data type and
// operator family, how many cases were equal, differed with and without
// an explanation, and were rejected by both.
func (r *Report) PrintGroups(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "type\tfamily\tequal\twithin bound\tdiffer explained\tdiffer unexplained\trejected by both\tskipped\tno answer\t")
	for _, k := range r.GroupKeys() {
		n := r.Groups[k]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", k.Type, k.Family, n.Equal, n.WithinBound, n.Explained, n.Unexplained, n.RejectedByBoth, n.Skipped, n.NoAnswer)
	}
	tw.Flush()
}

// Print writes the table, then PrintDetails.
func (r *Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tDirectML\tvkdml\tverdict")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Case, clip(row.DirectML), clip(row.VKDML), row.Verdict)
	}
	tw.Flush()
	fmt.Fprintln(w)
	r.PrintGroups(w)
	fmt.Fprintln(w)
	r.PrintDetails(w)
}

// PrintDetails writes what differs, what was skipped and the summary line.
func (r *Report) PrintDetails(w io.Writer) {
	skipped := map[string][]string{}
	for _, row := range r.Rows {
		switch {
		case row.Verdict == Skipped:
			t := r.unsupportedTypeOfRow(row)
			skipped[t] = append(skipped[t], row.Case)
		case row.Detail != "":
			fmt.Fprintf(w, "%s: %s: %s\n", row.Verdict, row.Case, row.Detail)
		}
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "skipped: %d cases that DirectML rejected because its device does not support a data type they use:", r.Skipped)
		for _, t := range sortedKeys(skipped) {
			fmt.Fprintf(w, " %s (%d)", t, len(skipped[t]))
		}
		fmt.Fprintln(w)
	}
	if r.Known > 0 || r.None > 0 {
		fmt.Fprintf(w, "(%d known differences, listed in %s with their reasons; %d cases without a golden)\n", r.Known, KnownFile, r.None)
	}
	fmt.Fprintln(w, r.Summary())
}

func clip(s string) string {
	if len(s) > 48 {
		return s[:45] + "..."
	}
	return s
}

// Diff says how vk differs from golden, or "" when they agree: the same
// failure code, or success with every output equal (whole buffers byte
// for byte per element, addressed elements and the bytes between them; a
// golden of elements only, its logical elements).
func Diff(c *Case, golden, vk *Outcome) string {
	if msg, ok := diffFailure(golden, vk); ok {
		return msg
	}
	return diffText(compareOutputs(c, golden, vk))
}

// diffFailure says how two outcomes differ when either failed (ok true),
// "" when both failed with the same code.
func diffFailure(golden, vk *Outcome) (msg string, ok bool) {
	if !golden.HR.Failed() && !vk.HR.Failed() {
		return "", false
	}
	if golden.HR == vk.HR {
		return "", true
	}
	msg = fmt.Sprintf("DirectML returned %v%s, vkdml %v%s", golden.HR, stage(golden), vk.HR, stage(vk))
	if vk.HR.Failed() && vk.Message != "" {
		msg += ": " + vk.Message // which field, which rule or limit
	}
	return msg, true
}

// diffText is compareOutputs' result as prose: what could not be
// compared, then per differing output the count and the first difference
// with its source and hints.
func diffText(comps []OutputComparison, diffs []Difference, problems []string) string {
	msgs := problems
	for _, comp := range comps {
		if comp.Differing == 0 {
			continue
		}
		m := fmt.Sprintf("output %d: %d of %d %s elements differ", comp.Output, comp.Differing, comp.Elements, comp.Compared)
		for i := range diffs {
			if diffs[i].Output == comp.Output {
				m += "; first " + diffs[i].Text()
				break
			}
		}
		msgs = append(msgs, m)
	}
	return strings.Join(msgs, "; ")
}

func stage(o *Outcome) string {
	if o.Stage == "" {
		return ""
	}
	return " at " + o.Stage
}

// formatElem formats one element's bytes (little-endian) as its type.
func formatElem(dt tensor.DataType, b []byte) string {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	switch dt {
	case tensor.Float32:
		f := math.Float32frombits(uint32(u))
		return strconv.FormatFloat(float64(f), 'g', -1, 32) + fmt.Sprintf("(%#08x)", u)
	case tensor.Float16:
		t := &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}
		return strconv.FormatFloat(t.Float64At(0), 'g', -1, 32) + fmt.Sprintf("(%#04x)", u)
	}
	t := &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{1}), Data: b}
	if dt.IsSigned() {
		return strconv.FormatInt(t.Int64At(0), 10)
	}
	return strconv.FormatUint(t.Uint64At(0), 10)
}

// Describe is an outcome's short form for the table: the failure code, or
// the first logical elements of each output.
func Describe(c *Case, o *Outcome) string {
	if o == nil {
		return "-"
	}
	if o.HR.Failed() {
		return o.HR.Name()
	}
	var parts []string
	for i, t := range c.OutputTensors() {
		if i >= len(o.Outputs) {
			break
		}
		d, err := t.Desc()
		if err != nil || uint64(len(o.Outputs[i])) < d.TotalTensorSizeInBytes {
			parts = append(parts, "?")
			continue
		}
		es := d.DataType.Size()
		var vals []string
		more := false
		tensor.ForEachIndex(d.Sizes, func(cs []uint32) {
			if len(vals) == 6 {
				more = true
				return
			}
			off := d.Offset(cs) * uint64(es)
			vals = append(vals, formatShort(d.DataType, o.Outputs[i][off:off+uint64(es)]))
		})
		s := "[" + strings.Join(vals, " ")
		if more {
			s += " ..."
		}
		parts = append(parts, s+"]")
	}
	return strings.Join(parts, " ")
}

func formatShort(dt tensor.DataType, b []byte) string {
	s := formatElem(dt, b)
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
	}
	if s == "-3.4028235e+38" {
		return "-FLT_MAX"
	}
	return s
}

func (r *Report) unsupportedTypeOfRow(row Row) string {
	if i := strings.Index(row.Detail, "does not support "); i >= 0 {
		rest := row.Detail[i+len("does not support "):]
		if j := strings.IndexByte(rest, ' '); j > 0 {
			return rest[:j]
		}
	}
	return "?"
}

func sortedKeys(m map[string][]string) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
