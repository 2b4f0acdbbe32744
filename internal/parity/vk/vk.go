// Package vk runs parity corpus cases through vkdml's public dml API, the
// counterpart of parity/cmd/dmlrunner on DirectML.
package vk

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/tensor"
)

// Build turns a case into the dml desc it names, through the operator
// table (internal/operators). Descs that are invalid on purpose
// (must-reject cases) are built as they are; only a case that names no
// operator or data type vkdml knows is an error.
func Build(c *parity.Case) (dml.OperatorDesc, error) {
	desc, err := operators.FromCase(c)
	if err != nil {
		return nil, fmt.Errorf("parity: %w", err)
	}
	return desc, nil
}

// Run runs case c of the corpus in dir on dev: CreateOperator, then (when
// that succeeds) compile, initialize, bind, record, execute and read back,
// with every output starting filled with parity.OutputFill. An error is a
// broken corpus, not a result.
func Run(dev *dml.Device, dir string, c *parity.Case) (*parity.Outcome, error) {
	data, err := parity.LoadInputs(dir, c)
	if err != nil {
		return nil, err
	}
	return RunBuffers(dev, c, data)
}

// RunBuffers is Run with case c's input buffers in binding order
// (parity.Case.InputTensors), each TotalTensorSizeInBytes long.
func RunBuffers(dev *dml.Device, c *parity.Case, data [][]byte) (*parity.Outcome, error) {
	desc, err := Build(c)
	if err != nil {
		return nil, err
	}
	op, err := dev.CreateOperator(desc)
	if err != nil {
		return &parity.Outcome{HR: hresult.Code(err), Stage: "CreateOperator", Message: err.Error()}, nil
	}
	// The outputs are allocated here, on the host, filled before the run:
	// refuse, as Compute does, tensors beyond what the device or the host
	// can hold before allocating them.
	if err := dev.CheckFits(op); err != nil {
		return &parity.Outcome{HR: hresult.Code(err), Stage: "Run", Message: err.Error()}, nil
	}
	if len(data) != len(c.InputTensors()) {
		return nil, fmt.Errorf("parity: case %s: %d input buffers, want %d", c.Name, len(data), len(c.InputTensors()))
	}
	var ins []*tensor.Tensor
	for i, t := range c.InputTensors() {
		d, _ := t.Desc()
		ins = append(ins, &tensor.Tensor{Desc: d, Data: data[i]})
	}
	var outs []*tensor.Tensor
	for _, t := range []*parity.Tensor{&c.Output, c.OutputIndices} {
		if t == nil {
			if c.Operator == "MAX_POOLING1" || c.Operator == "MAX_POOLING2" {
				outs = append(outs, nil)
			}
			continue
		}
		d, _ := t.Desc()
		outs = append(outs, &tensor.Tensor{Desc: d, Data: parity.FilledOutput(t)})
	}
	if err := dev.RunOperator(op, ins, outs); err != nil {
		return &parity.Outcome{HR: hresult.Code(err), Stage: "Run", Message: err.Error()}, nil
	}
	o := &parity.Outcome{HR: hresult.S_OK, Inputs: data}
	for _, t := range outs {
		if t != nil {
			o.Outputs = append(o.Outputs, t.Data)
		}
	}
	return o, nil
}

// Compare runs every case of the corpus in dir on dev and compares it with
// the goldens in dir/golden (or goldenDir when not empty). progress, when
// not nil, gets one line per case as it finishes.
func Compare(dev *dml.Device, dir, goldenDir string, progress io.Writer) (*parity.Report, error) {
	corpus, err := parity.LoadCorpus(dir)
	if err != nil {
		return nil, err
	}
	if goldenDir == "" {
		goldenDir = filepath.Join(dir, parity.GoldenDir)
	}
	results, err := parity.LoadResults(goldenDir)
	if err != nil {
		return nil, err
	}
	known, err := parity.LoadKnown(dir)
	if err != nil {
		return nil, err
	}
	byName := results.ByName()
	rep := &parity.Report{TypeSupport: results.TypeSupport, Source: operators.Source}
	for i := range corpus.Cases {
		c := &corpus.Cases[i]
		inputs, err := parity.LoadInputs(dir, c)
		if err != nil {
			return nil, err
		}
		vk, err := RunBuffers(dev, c, inputs)
		if err != nil {
			return nil, err
		}
		var golden *parity.Outcome
		if r := byName[c.Name]; r != nil {
			if golden, err = r.Outcome(goldenDir, c); err != nil {
				return nil, err
			}
		}
		row := rep.AddRun(c, inputs, golden, vk, known)
		if progress != nil {
			fmt.Fprintf(progress, "%s: %s\n", c.Name, row.Verdict)
		}
	}
	return rep, nil
}

// CompareCase runs case c on dev with its input buffers (checked and
// padded by parity.CaseInputs) and compares vkdml's outcome with the
// expected one (nil: none given), naming each difference's input window
// or block through the operator table: `vkdml parity --case` and
// vkdml_parity_compare.
func CompareCase(dev *dml.Device, c *parity.Case, inputs [][]byte, expected *parity.Outcome) (*parity.CaseResult, error) {
	vk, err := RunBuffers(dev, c, inputs)
	if err != nil {
		return nil, err
	}
	return parity.CompareCase(c, inputs, expected, vk, operators.Source), nil
}
