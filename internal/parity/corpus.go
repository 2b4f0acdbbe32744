// Package parity holds vkdml's parity corpus format: cases that each name a
// DirectML operator desc completely, their inputs as .npy files, the results
// a DirectML run recorded (the goldens), and the element-by-element
// comparison of vkdml's results against them.
//
// It is pure Go with no dependency on Vulkan or Windows, so that both the
// Windows runner (parity/cmd/dmlrunner, which runs the corpus through the
// real DirectML.dll) and vkdml's side (internal/parity/vk, the Go test in
// tests/parity, `vkdml parity`) use the same definitions.
//
// # Layout of a corpus directory
//
//	corpus.json                 the manifest (Corpus)
//	inputs/NAME.npy             the input buffer of case NAME
//	golden/results.json         what DirectML returned per case (Results)
//	golden/NAME.outI.npy        output I's whole buffer after the run, or
//	                            a plain array of its elements
//	known-differences.json      differences accepted with a reason
//
// Every tensor is stored as its physical buffer: a one-dimensional .npy of
// the tensor's data type with TotalTensorSizeInBytes / element size
// elements, so that strided, broadcast and padded layouts need no
// convention. Input bytes that the strides do not address hold values that
// would change the answer if they were read. Outputs start filled with the
// byte OutputFill, so that a golden also records which bytes the operator
// left untouched (semantics.md rule 6). A golden may instead hold only
// the output's logical elements, row-major (DirectML's output as a user
// has it); then only those are compared (readGolden).
//
// One case of a user's own is a case file (CaseFile, `vkdml parity
// --case`): a desc in DirectML's names and .npy files beside it.
package parity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/tensor"
)

// OutputFill is the byte every output buffer holds before a case runs.
const OutputFill = 0xCD

// Tensor is a DML_BUFFER_TENSOR_DESC (flags none, no alignment guarantee).
type Tensor struct {
	DataType string   `json:"dataType"` // DML_TENSOR_DATA_TYPE without the prefix
	Sizes    []uint32 `json:"sizes"`
	// Strides nil means packed (DML_BUFFER_TENSOR_DESC.Strides = NULL).
	Strides                []uint32 `json:"strides,omitempty"`
	TotalTensorSizeInBytes uint64   `json:"totalTensorSizeInBytes"`
}

// Case is one operator desc with its input and the HRESULT DirectML is
// expected to return from IDMLDevice::CreateOperator.
type Case struct {
	Name string `json:"name"`
	// Covers says what the case exercises: "rule N" (semantics.md),
	// "seed:PAGE example N", "random", ...
	Covers []string `json:"covers"`
	Note   string   `json:"note,omitempty"`

	// Operator is DML_OPERATOR_TYPE without the prefix: ARGMAX, ARGMIN,
	// REDUCE, MAX_POOLING, MAX_POOLING1, MAX_POOLING2, MAX_UNPOOLING, TOP_K or
	// TOP_K1.
	Operator string `json:"operator"`
	Input    Tensor `json:"input"`
	// Indices is MAX_UNPOOLING's IndicesTensor, its second input (in
	// inputs/NAME.indices.npy); nil for the other operators.
	Indices       *Tensor `json:"indices,omitempty"`
	Output        Tensor  `json:"output"`
	OutputIndices *Tensor `json:"outputIndices,omitempty"` // MAX_POOLING1/2; nil = NULL

	// ARGMAX, ARGMIN, REDUCE. AxisCount = len(Axes); Axes nil (JSON null or
	// absent) is a NULL pointer, [] a non-null pointer with AxisCount 0.
	Axes           []uint32 `json:"axes" jsonschema:"nullable"`
	AxisDirection  string   `json:"axisDirection,omitempty"`  // INCREASING | DECREASING
	ReduceFunction string   `json:"reduceFunction,omitempty"` // ARGMAX | ARGMIN

	// TOP_K, TOP_K1 (whose AxisDirection is the field above; its indices
	// are OutputIndices). Both are nil for the other operators, which
	// have none (TopKParams reads them).
	Axis *uint32 `json:"axis,omitempty"`
	K    *uint32 `json:"k,omitempty"`

	// MAX_POOLING*. DimensionCount = len(WindowSize).
	Strides      []uint32 `json:"strides,omitempty"`
	WindowSize   []uint32 `json:"windowSize,omitempty"`
	StartPadding []uint32 `json:"startPadding,omitempty"`
	EndPadding   []uint32 `json:"endPadding,omitempty"`
	Dilations    []uint32 `json:"dilations,omitempty"` // MAX_POOLING2 only

	// Expect is the HRESULT name CreateOperator should return: S_OK or an
	// error such as E_INVALIDARG.
	Expect string `json:"expect"`
}

// Corpus is the manifest.
type Corpus struct {
	Comment string `json:"comment,omitempty"`
	Seed    int64  `json:"seed"`
	Cases   []Case `json:"cases"`
}

// Bounds on the JSON files of a corpus, each far above what it holds (the
// shipped corpus.json is about 180 KiB for 500 cases, results.json 85 KiB,
// known-differences.json 3 KiB): a random corpus of a hundred thousand
// cases fits, and a wrong path (a log, a dump, a device) is refused before
// it is read.
const (
	MaxManifestSize = 64 << 20
	MaxResultsSize  = 64 << 20
	MaxKnownSize    = 16 << 20
)

// Files in a corpus directory.
const (
	ManifestFile = "corpus.json"
	KnownFile    = "known-differences.json"
	GoldenDir    = "golden"
	ResultsFile  = "results.json"
	InputsDir    = "inputs"
)

// InputFile is the path of case name's input, relative to the corpus.
func InputFile(name string) string { return filepath.Join(InputsDir, name+".npy") }

// IndicesFile is the path of case name's indices input (MAX_UNPOOLING's
// IndicesTensor), relative to the corpus.
func IndicesFile(name string) string { return filepath.Join(InputsDir, name+".indices.npy") }

// InputTensors lists a case's input tensors in binding order: Input, then
// Indices when the case has them.
func (c *Case) InputTensors() []*Tensor {
	ins := []*Tensor{&c.Input}
	if c.Indices != nil {
		ins = append(ins, c.Indices)
	}
	return ins
}

// LoadInputs reads every input buffer of case c (InputTensors) from
// corpus directory dir.
func LoadInputs(dir string, c *Case) ([][]byte, error) {
	in, err := LoadInput(dir, c)
	if err != nil || c.Indices == nil {
		return [][]byte{in}, err
	}
	idx, err := loadBuffer(dir, c.Name, IndicesFile(c.Name), c.Indices)
	return [][]byte{in, idx}, err
}

// OutputFile is the name of output i of case name in a results directory.
func OutputFile(name string, i int) string { return fmt.Sprintf("%s.out%d.npy", name, i) }

// LoadCorpus reads dir/corpus.json.
func LoadCorpus(dir string) (*Corpus, error) {
	var c Corpus
	if err := readJSON(filepath.Join(dir, ManifestFile), MaxManifestSize, &c); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range c.Cases {
		cs := &c.Cases[i]
		if cs.Name == "" || seen[cs.Name] {
			return nil, fmt.Errorf("parity: %s: case %d: empty or repeated name %q", ManifestFile, i, cs.Name)
		}
		seen[cs.Name] = true
		if _, err := ParseHRESULT(cs.Expect); err != nil {
			return nil, fmt.Errorf("parity: case %s: %w", cs.Name, err)
		}
	}
	return &c, nil
}

// Save writes the manifest to dir/corpus.json, one case per line.
func (c *Corpus) Save(dir string) error {
	var b []byte
	head, err := json.Marshal(struct {
		Comment string `json:"comment,omitempty"`
		Seed    int64  `json:"seed"`
	}{c.Comment, c.Seed})
	if err != nil {
		return err
	}
	b = append(b, head[:len(head)-1]...)
	b = append(b, ",\n\"cases\": [\n"...)
	for i := range c.Cases {
		line, err := json.Marshal(&c.Cases[i])
		if err != nil {
			return err
		}
		b = append(b, line...)
		if i < len(c.Cases)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, "]}\n"...)
	return writeFile(filepath.Join(dir, ManifestFile), b)
}

// Desc converts t to a tensor desc (not validated: must-reject cases hold
// invalid descs on purpose).
func (t *Tensor) Desc() (tensor.Desc, error) {
	dt, err := tensor.ParseDataType(t.DataType)
	if err != nil {
		return tensor.Desc{}, err
	}
	d := tensor.Desc{DataType: dt, Sizes: append([]uint32(nil), t.Sizes...), TotalTensorSizeInBytes: t.TotalTensorSizeInBytes}
	if t.Strides != nil {
		d.Strides = append([]uint32(nil), t.Strides...)
	}
	return d, nil
}

// BufferElements is the number of elements of the tensor's physical
// buffer: TotalTensorSizeInBytes over the element size.
func (t *Tensor) BufferElements() (uint64, error) {
	dt, err := tensor.ParseDataType(t.DataType)
	if err != nil {
		return 0, err
	}
	if !dt.Valid() {
		return 0, fmt.Errorf("parity: data type %s has no element size", t.DataType)
	}
	return t.TotalTensorSizeInBytes / uint64(dt.Size()), nil
}

// LoadInput reads the input buffer of case c from corpus directory dir and
// checks that it holds TotalTensorSizeInBytes bytes.
func LoadInput(dir string, c *Case) ([]byte, error) {
	return loadBuffer(dir, c.Name, InputFile(c.Name), &c.Input)
}

// loadBuffer reads the buffer of tensor t of case name from file (relative
// to dir) and checks that it holds TotalTensorSizeInBytes bytes.
func loadBuffer(dir, name, file string, t *Tensor) ([]byte, error) {
	b, err := readBuffer(filepath.Join(dir, file), t)
	if err != nil {
		return nil, fmt.Errorf("parity: case %s: %w", name, err)
	}
	dt := b.Desc.DataType
	if want, _ := tensor.ParseDataType(t.DataType); dt != want || uint64(len(b.Data)) < t.TotalTensorSizeInBytes {
		return nil, fmt.Errorf("parity: case %s: %s is %v, %d bytes; want %s with %d bytes", name, file, dt, len(b.Data), t.DataType, t.TotalTensorSizeInBytes)
	}
	return b.Data[:t.TotalTensorSizeInBytes], nil
}

// readBuffer reads the .npy file at path holding the physical buffer of
// t: a regular file whose array, by its header, is no larger than t's
// TotalTensorSizeInBytes rounded up to whole elements, refused before
// anything is allocated otherwise.
func readBuffer(path string, t *Tensor) (*tensor.Tensor, error) {
	dt, err := tensor.ParseDataType(t.DataType)
	if err != nil {
		return nil, err
	}
	if !dt.Valid() {
		return nil, fmt.Errorf("data type %s has no element size", t.DataType)
	}
	es := uint64(dt.Size())
	maxData := t.TotalTensorSizeInBytes
	if maxData <= math.MaxUint64-(es-1) {
		maxData += es - 1
	}
	return tensor.ReadNpyFileMax(path, maxData)
}

// BufferNpy wraps a physical buffer as a one-dimensional tensor of dt, for
// writing as .npy. len(data) must be a multiple of dt's size.
func BufferNpy(dt tensor.DataType, data []byte) *tensor.Tensor {
	n := uint32(len(data) / dt.Size())
	return &tensor.Tensor{Desc: tensor.NewDesc(dt, []uint32{n}), Data: data}
}

// FilledOutput returns an output buffer of t's size filled with OutputFill.
func FilledOutput(t *Tensor) []byte {
	b := make([]byte, t.TotalTensorSizeInBytes)
	for i := range b {
		b[i] = OutputFill
	}
	return b
}

// OutputTensors lists a case's output tensors in binding order (the
// absent optional indices tensor is left out).
func (c *Case) OutputTensors() []*Tensor {
	outs := []*Tensor{&c.Output}
	if c.OutputIndices != nil {
		outs = append(outs, c.OutputIndices)
	}
	return outs
}

var hresultNames = map[string]hresult.HRESULT{}

func init() {
	for _, h := range []hresult.HRESULT{hresult.S_OK, hresult.E_FAIL, hresult.E_INVALIDARG, hresult.E_OUTOFMEMORY,
		hresult.E_NOTIMPL, hresult.DXGI_ERROR_UNSUPPORTED, hresult.DXGI_ERROR_DEVICE_REMOVED,
		hresult.DXGI_ERROR_DEVICE_HUNG, hresult.DXGI_ERROR_DRIVER_INTERNAL, hresult.DXGI_ERROR_SDK_COMPONENT_MISSING} {
		hresultNames[h.Name()] = h
	}
}

// ParseHRESULT accepts a symbolic name (E_INVALIDARG) or a hexadecimal
// value (0x80070057).
func ParseHRESULT(s string) (hresult.HRESULT, error) {
	if h, ok := hresultNames[s]; ok {
		return h, nil
	}
	var v uint32
	if _, err := fmt.Sscanf(s, "0x%x", &v); err == nil {
		return hresult.HRESULT(v), nil
	}
	return 0, fmt.Errorf("parity: %q is not an HRESULT name or 0x value", s)
}

// readJSON reads the JSON file path, a regular file of at most limit
// bytes (internal/safefile), into v.
func readJSON(path string, limit int64, v any) error {
	b, err := safefile.ReadFile(path, limit)
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parity: %s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'))
}

// writeFile writes path through a temporary file and a rename
// (safefile.WriteFile): a failed write leaves the old file whole.
func writeFile(path string, b []byte) error {
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// TopKParams are TOP_K's Axis and K (0 where the case gives none).
func (c *Case) TopKParams() (axis, k uint32) {
	if c.Axis != nil {
		axis = *c.Axis
	}
	if c.K != nil {
		k = *c.K
	}
	return axis, k
}

// Direction is the case's DML_AXIS_DIRECTION value: INCREASING (or empty)
// 0, DECREASING 1, or a number (must-reject cases use undefined values).
func (c *Case) Direction() (uint32, error) {
	switch c.AxisDirection {
	case "", "INCREASING":
		return 0, nil
	case "DECREASING":
		return 1, nil
	}
	v, err := strconv.ParseUint(c.AxisDirection, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("parity: case %s: unknown axis direction %q", c.Name, c.AxisDirection)
	}
	return uint32(v), nil
}

// Function is the case's DML_REDUCE_FUNCTION value (ARGMAX 0 ... SUM_SQUARE 11).
func (c *Case) Function() (uint32, error) {
	if f := slices.Index(reduceFunctionNames, c.ReduceFunction); f >= 0 {
		return uint32(f), nil
	}
	return 0, fmt.Errorf("parity: case %s: reduce function %q is not a DML_REDUCE_FUNCTION (%s)", c.Name, c.ReduceFunction, strings.Join(reduceFunctionNames, ", "))
}

// reduceFunctionNames are DML_REDUCE_FUNCTION's names, at their values.
var reduceFunctionNames = []string{"ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"}
