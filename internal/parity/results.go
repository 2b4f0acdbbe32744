package parity

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/tensor"
)

// Results is what one implementation returned for a corpus: the goldens when
// it is DirectML (golden/results.json), written by parity/cmd/dmlrunner.
type Results struct {
	Producer string `json:"producer"` // e.g. "DirectML.dll 1.15.4 via dmlrunner"
	Adapter  string `json:"adapter,omitempty"`
	// FeatureLevel is the highest DML feature level the device reported.
	FeatureLevel string `json:"featureLevel,omitempty"`
	// TypeSupport is DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT per data type.
	TypeSupport map[string]bool `json:"typeSupport,omitempty"`
	// Rig says what the D3D12 device ran on, as the runner was told
	// (dmlrunner -rig): under Wine, which Vulkan driver and D3D12 path.
	Rig   string   `json:"rig,omitempty"`
	Cases []Result `json:"cases"`
}

// Result is one case's outcome.
type Result struct {
	Name string `json:"name"`
	// HRESULT is the first failure's code name, or S_OK.
	HRESULT string `json:"hresult"`
	// Stage is the call that failed (CreateOperator, CompileOperator, ...);
	// empty on success.
	Stage   string   `json:"stage,omitempty"`
	Message string   `json:"message,omitempty"`
	Outputs []string `json:"outputs,omitempty"` // .npy files, in binding order
	// NoAnswer: the case did not finish within the runner's time limit
	// (HRESULT is then empty); Message says how long was waited.
	NoAnswer bool `json:"noAnswer,omitempty"`
}

// Outcome is one implementation's result for one case, in memory.
type Outcome struct {
	HR      hresult.HRESULT
	Stage   string
	Message string
	Outputs [][]byte // whole output buffers, binding order; nil on failure
	// Elements[i] true: Outputs[i] holds only output i's logical
	// elements, row-major (a golden or expected output given as a plain
	// .npy of its elements), and only those are compared.
	Elements []bool
	// NoAnswer: the implementation did not finish the case in time.
	NoAnswer bool
	// Inputs are the input buffers vkdml ran on (vk.RunBuffers sets them;
	// a golden has none), for the explanations that depend on the input
	// (TOP_K's NaN rules).
	Inputs [][]byte
}

// LoadResults reads dir/results.json.
func LoadResults(dir string) (*Results, error) {
	var r Results
	if err := readJSON(filepath.Join(dir, ResultsFile), MaxResultsSize, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Save writes r to dir/results.json.
func (r *Results) Save(dir string) error { return writeJSON(filepath.Join(dir, ResultsFile), r) }

// WriteOutcome writes case c's outcome o into results directory dir (the
// output .npy files) and returns its Result.
func WriteOutcome(dir string, c *Case, o *Outcome) (Result, error) {
	if o.NoAnswer {
		return Result{Name: c.Name, Stage: o.Stage, Message: o.Message, NoAnswer: true}, nil
	}
	r := Result{Name: c.Name, HRESULT: o.HR.Name(), Stage: o.Stage, Message: o.Message}
	if o.HR.Failed() {
		return r, nil
	}
	for i, t := range c.OutputTensors() {
		dt, err := tensor.ParseDataType(t.DataType)
		if err != nil {
			return r, err
		}
		if i >= len(o.Outputs) || uint64(len(o.Outputs[i])) != t.TotalTensorSizeInBytes {
			return r, fmt.Errorf("parity: case %s: output %d missing or of the wrong size", c.Name, i)
		}
		name := OutputFile(c.Name, i)
		if err := tensor.WriteNpyFile(filepath.Join(dir, name), BufferNpy(dt, o.Outputs[i])); err != nil {
			return r, err
		}
		r.Outputs = append(r.Outputs, name)
	}
	return r, nil
}

// Outcome reads the outcome of result r of case c back from results
// directory dir. A success must list one output per output tensor of c,
// and a failure none; each output file is a regular .npy no larger than
// its tensor's TotalTensorSizeInBytes (rounded up to whole elements),
// refused before it is read otherwise.
func (r *Result) Outcome(dir string, c *Case) (*Outcome, error) {
	if r.NoAnswer {
		return &Outcome{Stage: r.Stage, Message: r.Message, NoAnswer: true}, nil
	}
	h, err := ParseHRESULT(r.HRESULT)
	if err != nil {
		return nil, err
	}
	o := &Outcome{HR: h, Stage: r.Stage, Message: r.Message}
	outs, why := c.OutputTensors(), "one per output tensor of the operator"
	if h.Failed() {
		outs, why = nil, "none for a failure"
	}
	if len(r.Outputs) != len(outs) {
		return nil, fmt.Errorf("parity: case %s: %s lists %d output file(s) for %s; want %d, %s", c.Name, ResultsFile, len(r.Outputs), h.Name(), len(outs), why)
	}
	for i, f := range r.Outputs {
		t, err := readGolden(filepath.Join(dir, f), outs[i])
		if err != nil {
			return nil, fmt.Errorf("parity: case %s: golden output %d: %w", c.Name, i, err)
		}
		o.Outputs = append(o.Outputs, t.Data)
		o.Elements = append(o.Elements, t.elements)
	}
	return o, nil
}

// ByName indexes the results by case name.
func (r *Results) ByName() map[string]*Result {
	m := make(map[string]*Result, len(r.Cases))
	for i := range r.Cases {
		m[r.Cases[i].Name] = &r.Cases[i]
	}
	return m
}

// RemoveStaleOutputs deletes the *.npy files in dir that r does not name
// (left over from cases that were renamed or dropped).
func RemoveStaleOutputs(dir string, r *Results) error {
	keep := map[string]bool{}
	for _, c := range r.Cases {
		for _, f := range c.Outputs {
			keep[f] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.npy"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if !keep[filepath.Base(f)] {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// golden is one golden output as read: its bytes, and whether they are
// the output's logical elements rather than its whole buffer.
type golden struct {
	Data     []byte
	elements bool
}

// readGolden reads a golden output of tensor t: a .npy of t's whole
// buffer (TotalTensorSizeInBytes, after a run that started with every
// byte OutputFill) or, when its size is that of t's logical elements and
// not the buffer's, a plain array of the elements (row-major), of which
// only the elements are compared. A file of another size is refused,
// and one larger than either before it is read.
func readGolden(path string, t *Tensor) (golden, error) {
	d, err := t.Desc()
	if err != nil {
		return golden{}, err
	}
	if !d.DataType.Valid() {
		return golden{}, fmt.Errorf("data type %s has no element size", t.DataType)
	}
	elems := d.ElementCount() * uint64(d.DataType.Size())
	// Bounded as readBuffer bounds a buffer: rounded up to whole elements.
	b, err := readBuffer(path, &Tensor{DataType: t.DataType, TotalTensorSizeInBytes: max(t.TotalTensorSizeInBytes, elems)})
	if err != nil {
		return golden{}, err
	}
	n := uint64(len(b.Data))
	switch {
	case b.Desc.DataType != d.DataType:
		return golden{}, fmt.Errorf("%s is %v; the output is %s", path, b.Desc.DataType, t.DataType)
	case n == t.TotalTensorSizeInBytes:
		return golden{Data: b.Data}, nil
	case n == elems:
		return golden{Data: b.Data, elements: true}, nil
	}
	return golden{}, fmt.Errorf("%s holds %d bytes: neither the output's buffer (%d bytes, TotalTensorSizeInBytes) nor its %d elements (%d bytes)",
		path, n, t.TotalTensorSizeInBytes, d.ElementCount(), elems)
}
