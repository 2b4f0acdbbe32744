package parity

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/tensor"
)

// One case, brought by its user: a desc in DirectML's own names, its
// input tensors and DirectML's outputs, compared as the corpus runner
// compares (`vkdml parity --case`, vkdml.compare in Python through
// vkdml_parity_compare).

// CaseFile is `vkdml parity --case FILE`'s file (docs/schema/case.schema.json).
type CaseFile struct {
	// Desc is the operator desc as data: DirectML's field and enum names
	// (InputTensor, DataType, DML_AXIS_DIRECTION_DECREASING, ...), the Go
	// desc's or the corpus's, read strictly (Case.UnmarshalJSON).
	Desc json.RawMessage `json:"desc" jsonschema:"type=object"`
	// Inputs are .npy files, relative to the case file, one per input
	// tensor in binding order: the tensor's buffer (its elements, for a
	// packed tensor), of its data type.
	Inputs []string `json:"inputs"`
	// Expected are DirectML's outputs, .npy files relative to the case
	// file, one per output tensor in binding order: a plain array of the
	// output's elements (only they are compared), or its whole buffer
	// after a run that started with every byte OutputFill (every byte is
	// compared). Absent when DirectML rejected the desc (HRESULT) or
	// nothing is to be compared.
	Expected []string `json:"expected,omitempty"`
	// HRESULT is DirectML's failure code when it rejected the desc
	// (E_INVALIDARG, 0x887A0004, ...); it goes without Expected.
	HRESULT string `json:"hresult,omitempty"`
}

// CaseSpec is the part of a one-case comparison that is not buffers:
// vkdml_parity_compare's case_json.
type CaseSpec struct {
	Desc    json.RawMessage `json:"desc" jsonschema:"type=object"`
	HRESULT string          `json:"hresult,omitempty"`
	// InputTypes and ExpectedTypes, when given, are the data types of the
	// buffers (DML names without the prefix, or NumPy's: float32), each
	// checked against its tensor's.
	InputTypes    []string `json:"input_types,omitempty"`
	ExpectedTypes []string `json:"expected_types,omitempty"`
	// Expected says whether expected outputs are given (an empty list of
	// buffers is then an error); false compares nothing unless HRESULT.
	Expected bool `json:"expected,omitempty"`
}

// Verdicts of a one-case comparison (CaseResult.Verdict).
const (
	VerdictEqual              = "equal"
	VerdictExplained          = "differ explained"
	VerdictUnexplained        = "differ unexplained"
	VerdictRejectedByBoth     = "rejected by both"
	VerdictRejectedByVKDML    = "rejected by vkdml"
	VerdictRejectedByExpected = "rejected by expected"
	// VerdictWithinBound: a REDUCE float function's outputs differ within
	// docs/semantics.md rule 44's bound (passes); VerdictOutsideBound:
	// beyond it (fails).
	VerdictWithinBound  = WithinBound
	VerdictOutsideBound = OutsideBound
	// VerdictNotCompared: no expected result was given; only vkdml's is
	// reported.
	VerdictNotCompared = "not compared"
)

// OutcomeRecord is one side's outcome in a CaseResult.
type OutcomeRecord struct {
	HRESULT string `json:"hresult"`
	Stage   string `json:"stage,omitempty"`
	Message string `json:"message,omitempty"`
	// Summary is the first logical elements of each output, or the code.
	Summary string `json:"summary"`
}

// CaseResult is a one-case comparison: `vkdml parity --case --json`
// (docs/schema/parity-case.schema.json) and vkdml.compare's result.
type CaseResult struct {
	Case    string `json:"case"`
	Verdict string `json:"verdict"`
	// Passed: equal, within rule 44's bound (REDUCE's float functions),
	// explained or rejected by both with one code.
	Passed bool `json:"passed"`
	// Rule is the documented reason of an explained difference.
	Rule     string         `json:"rule,omitempty"`
	Expected *OutcomeRecord `json:"expected"`
	VKDML    OutcomeRecord  `json:"vkdml"`
	// Outputs and Differences: see Row.
	Outputs     []OutputComparison `json:"outputs"`
	Differences []Difference       `json:"differences"`
	// Detail is the comparison in prose, as the corpus table gives it.
	Detail string `json:"detail,omitempty"`
}

// ErrCase marks a case file or spec that cannot be compared (a desc that
// cannot be read, buffers of the wrong type or size, ...).
var ErrCase = errors.New("parity: case")

func caseErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCase, fmt.Sprintf(format, args...))
}

// ParseCaseDesc reads desc, strictly, as a case named name.
func ParseCaseDesc(name string, desc []byte) (*Case, error) {
	if len(strings.TrimSpace(string(desc))) == 0 {
		return nil, caseErr("desc is required: the operator desc in DirectML's names, e.g. {\"Type\": \"ARGMAX\", \"InputTensor\": {...}, ...}")
	}
	var c Case
	if err := json.Unmarshal(desc, &c); err != nil {
		return nil, fmt.Errorf("%w: desc: %w", ErrCase, err)
	}
	c.Name, c.Expect = name, "S_OK"
	return &c, nil
}

// typeName is a data type name as the corpus spells it: FLOAT32 for
// FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT32 or NumPy's float32.
func typeName(s string) string {
	if dt, err := tensor.ParseDataType(s); err == nil {
		return dt.String()
	}
	return s
}

// CaseInputs checks the input buffers of c, one per input tensor of the
// given types (nil: unchecked), each holding at least the bytes the
// tensor's strides reach and at most its TotalTensorSizeInBytes, and
// returns them padded with zeros to TotalTensorSizeInBytes (a plain array
// of a packed FLOAT16 tensor of 3 elements holds 6 bytes of its 8).
func CaseInputs(c *Case, bufs [][]byte, types []string) ([][]byte, error) {
	ts := c.InputTensors()
	if len(bufs) != len(ts) {
		return nil, caseErr("%s takes %d input(s) (%s); %d given", c.Operator, len(ts), tensorNames(ts), len(bufs))
	}
	out := make([][]byte, len(ts))
	for i, t := range ts {
		d, err := bufferDesc(fmt.Sprintf("inputs[%d]", i), t, types, i)
		if err != nil {
			return nil, err
		}
		n := uint64(len(bufs[i]))
		if n < d.SpanBytes() || n > t.TotalTensorSizeInBytes {
			return nil, caseErr("inputs[%d] holds %d bytes; the %s tensor of sizes %s (strides %s) reaches %d and its TotalTensorSizeInBytes is %d",
				i, n, t.DataType, tensor.Shape(t.Sizes), tensor.Shape(d.EffectiveStrides()), d.SpanBytes(), t.TotalTensorSizeInBytes)
		}
		out[i] = make([]byte, t.TotalTensorSizeInBytes)
		copy(out[i], bufs[i])
	}
	return out, nil
}

// ExpectedOutcome is DirectML's outcome for c as given: a failure code
// (hr not empty, no buffers), or one buffer per output tensor of the
// given types (nil: unchecked), each either the output's logical elements
// row-major or its whole buffer of TotalTensorSizeInBytes.
func ExpectedOutcome(c *Case, hr string, bufs [][]byte, types []string) (*Outcome, error) {
	if hr != "" {
		h, err := ParseHRESULT(hr)
		if err != nil {
			return nil, fmt.Errorf("%w: hresult: %w", ErrCase, err)
		}
		if !h.Failed() {
			return nil, caseErr("hresult %s is a success; give it for a desc DirectML rejected, and the expected outputs otherwise", hr)
		}
		if len(bufs) > 0 {
			return nil, caseErr("hresult %s goes without expected outputs: DirectML wrote none", hr)
		}
		return &Outcome{HR: h, Stage: "CreateOperator"}, nil
	}
	ts := c.OutputTensors()
	if len(bufs) != len(ts) {
		return nil, caseErr("%s with these tensors has %d output(s) (%s); %d expected given", c.Operator, len(ts), tensorNames(ts), len(bufs))
	}
	o := &Outcome{HR: hresult.S_OK, Elements: make([]bool, len(ts))}
	for i, t := range ts {
		d, err := bufferDesc(fmt.Sprintf("expected[%d]", i), t, types, i)
		if err != nil {
			return nil, err
		}
		n, elems := uint64(len(bufs[i])), d.ElementCount()*uint64(d.DataType.Size())
		switch {
		case n == t.TotalTensorSizeInBytes:
		case n == elems:
			o.Elements[i] = true
		default:
			return nil, caseErr("expected[%d] holds %d bytes; output %d (%s, sizes %s) has %d bytes of elements and a buffer of %d (TotalTensorSizeInBytes)",
				i, n, i, t.DataType, tensor.Shape(t.Sizes), elems, t.TotalTensorSizeInBytes)
		}
		o.Outputs = append(o.Outputs, bufs[i])
	}
	return o, nil
}

// bufferDesc is the desc of tensor t, whose buffer field is given with
// data type types[i] (when given), checked to be t's, one with an element
// size.
func bufferDesc(field string, t *Tensor, types []string, i int) (tensor.Desc, error) {
	d, err := t.Desc()
	if err != nil {
		return d, fmt.Errorf("%w: %s: %w", ErrCase, field, err)
	}
	if i < len(types) && types[i] != "" && typeName(types[i]) != t.DataType {
		cast := ""
		if d.DataType.Valid() {
			cast = fmt.Sprintf(" (convert it first, e.g. NumPy's x.astype(numpy.%s))", strings.ToLower(d.DataType.String()))
		}
		return d, caseErr("%s is %s; the desc's tensor is %s%s", field, types[i], t.DataType, cast)
	}
	if !d.DataType.Valid() {
		return d, caseErr("%s: data type %s has no element size", field, t.DataType)
	}
	return d, nil
}

func tensorNames(ts []*Tensor) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.DataType+" "+tensor.Shape(t.Sizes))
	}
	return strings.Join(s, ", ")
}

// CompareCase compares vkdml's outcome for c (run on inputs) with the
// expected one (nil: none given), as the corpus runner compares a case,
// with source naming each difference's input window or block.
func CompareCase(c *Case, inputs [][]byte, expected, vk *Outcome, source SourceFunc) *CaseResult {
	res := &CaseResult{Case: c.Name, VKDML: record(c, vk), Outputs: []OutputComparison{}, Differences: []Difference{}}
	if expected == nil {
		res.Verdict = VerdictNotCompared
		return res
	}
	rep := &Report{Source: source}
	row := rep.AddRun(c, inputs, expected, vk, nil)
	rec := record(c, expected)
	res.Expected, res.Rule, res.Detail = &rec, row.Rule, row.Detail
	if row.Outputs != nil {
		res.Outputs = row.Outputs
	}
	if row.Differences != nil {
		res.Differences = row.Differences
	}
	switch row.Verdict {
	case Equal:
		res.Verdict, res.Passed = VerdictEqual, true
	case RejectedByBoth:
		res.Verdict, res.Passed = VerdictRejectedByBoth, true
	case Known:
		res.Verdict, res.Passed = VerdictExplained, true
	case WithinBound:
		res.Verdict, res.Passed = VerdictWithinBound, true
	case OutsideBound:
		res.Verdict = VerdictOutsideBound
	default:
		switch {
		case expected.HR.Failed() && !vk.HR.Failed():
			res.Verdict = VerdictRejectedByExpected
		case vk.HR.Failed() && !expected.HR.Failed():
			res.Verdict = VerdictRejectedByVKDML
		default:
			res.Verdict = VerdictUnexplained
		}
	}
	return res
}

func record(c *Case, o *Outcome) OutcomeRecord {
	return OutcomeRecord{HRESULT: o.HR.Name(), Stage: o.Stage, Message: o.Message, Summary: Describe(c, o)}
}

// MaxCaseFileSize bounds a case file: a desc is a few hundred bytes.
const MaxCaseFileSize = 1 << 20

// LoadCaseFile reads a case file and its .npy files (relative to it):
// the case (named after the file), its input buffers and DirectML's
// outcome (nil when the file gives neither expected nor hresult).
func LoadCaseFile(path string) (*Case, [][]byte, *Outcome, error) {
	b, err := safefile.ReadFile(path, MaxCaseFileSize)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parity: %w", err)
	}
	var f CaseFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %s: %w (a case file holds desc, inputs, and expected or hresult)", ErrCase, path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	c, err := ParseCaseDesc(name, f.Desc)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(path)
	ins, inTypes, err := readNpys(dir, "inputs", f.Inputs, c.InputTensors())
	if err != nil {
		return nil, nil, nil, err
	}
	if ins, err = CaseInputs(c, ins, inTypes); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Expected == nil && f.HRESULT == "" {
		return c, ins, nil, nil
	}
	outs, outTypes, err := readNpys(dir, "expected", f.Expected, c.OutputTensors())
	if err != nil {
		return nil, nil, nil, err
	}
	o, err := ExpectedOutcome(c, f.HRESULT, outs, outTypes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, ins, o, nil
}

// readNpys reads the .npy files named by field (relative to dir), the
// i-th bounded by the larger of tensor ts[i]'s buffer and its elements.
func readNpys(dir, field string, files []string, ts []*Tensor) ([][]byte, []string, error) {
	var bufs [][]byte
	var types []string
	for i, f := range files {
		limit := uint64(math.MaxUint32)
		if i < len(ts) {
			if d, err := ts[i].Desc(); err == nil && d.DataType.Valid() {
				limit = max(ts[i].TotalTensorSizeInBytes, d.ElementCount()*uint64(d.DataType.Size()))
			}
		}
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, f)
		}
		t, err := tensor.ReadNpyFileMax(p, limit)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s[%d] %s: %w", ErrCase, field, i, f, err)
		}
		bufs = append(bufs, t.Data)
		types = append(types, t.Desc.DataType.String())
	}
	return bufs, types, nil
}
