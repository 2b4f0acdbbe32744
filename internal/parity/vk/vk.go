// Package vk runs parity corpus cases through vkdml's public dml API, the
// counterpart of parity/cmd/dmlrunner on DirectML.
package vk

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// Build turns a case into the dml desc it names. Descs that are invalid on
// purpose (must-reject cases) are built as they are; only a case that names
// no operator or data type vkdml knows is an error.
func Build(c *parity.Case) (ops.Desc, error) {
	in, err := c.Input.Desc()
	if err != nil {
		return nil, err
	}
	out, err := c.Output.Desc()
	if err != nil {
		return nil, err
	}
	var idx *tensor.Desc
	if c.OutputIndices != nil {
		d, err := c.OutputIndices.Desc()
		if err != nil {
			return nil, err
		}
		idx = &d
	}
	d, err := c.Direction()
	if err != nil {
		return nil, err
	}
	dir := ops.AxisDirection(d)
	if idx != nil && c.Operator != "MAX_POOLING1" && c.Operator != "MAX_POOLING2" {
		return nil, fmt.Errorf("parity: case %s: %s has no indices tensor", c.Name, c.Operator)
	}
	switch c.Operator {
	case "ARGMAX":
		return &dml.ArgMax{Input: in, Output: out, Axes: c.Axes, AxisDirection: dir}, nil
	case "ARGMIN":
		return &dml.ArgMin{Input: in, Output: out, Axes: c.Axes, AxisDirection: dir}, nil
	case "REDUCE":
		f, err := c.Function()
		if err != nil {
			return nil, err
		}
		return &dml.Reduce{Function: dml.ReduceFunction(f), Input: in, Output: out, Axes: c.Axes}, nil
	case "MAX_POOLING":
		return &dml.MaxPooling{Input: in, Output: out, Strides: c.Strides, WindowSize: c.WindowSize,
			StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	case "MAX_POOLING1":
		return &dml.MaxPooling1{Input: in, Output: out, OutputIndices: idx, Strides: c.Strides, WindowSize: c.WindowSize,
			StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	case "MAX_POOLING2":
		return &dml.MaxPooling2{Input: in, Output: out, OutputIndices: idx, Strides: c.Strides, WindowSize: c.WindowSize,
			StartPadding: c.StartPadding, EndPadding: c.EndPadding, Dilations: c.Dilations}, nil
	}
	return nil, fmt.Errorf("parity: case %s: unknown operator %q", c.Name, c.Operator)
}

// Run runs case c of the corpus in dir on dev: CreateOperator, then (when
// that succeeds) compile, initialize, bind, record, execute and read back,
// with every output starting filled with parity.OutputFill. An error is a
// broken corpus, not a result.
func Run(dev *dml.Device, dir string, c *parity.Case) (*parity.Outcome, error) {
	desc, err := Build(c)
	if err != nil {
		return nil, err
	}
	op, err := dev.CreateOperator(desc)
	if err != nil {
		return &parity.Outcome{HR: hresult.Code(err), Stage: "CreateOperator", Message: err.Error()}, nil
	}
	data, err := parity.LoadInput(dir, c)
	if err != nil {
		return nil, err
	}
	inDesc, _ := c.Input.Desc()
	ins := []*tensor.Tensor{{Desc: inDesc, Data: data}}
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
	o := &parity.Outcome{HR: hresult.S_OK}
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
	rep := &parity.Report{TypeSupport: results.TypeSupport}
	for i := range corpus.Cases {
		c := &corpus.Cases[i]
		vk, err := Run(dev, dir, c)
		if err != nil {
			return nil, err
		}
		var golden *parity.Outcome
		if r := byName[c.Name]; r != nil {
			if golden, err = r.Outcome(goldenDir); err != nil {
				return nil, err
			}
		}
		row := rep.Add(c, golden, vk, known)
		if progress != nil {
			fmt.Fprintf(progress, "%s: %s\n", c.Name, row.Verdict)
		}
	}
	return rep, nil
}
