package onnx

import (
	"fmt"
	"math"

	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

// AttributeProto.AttributeType values.
const (
	AttrFloat   = 1
	AttrInt     = 2
	AttrString  = 3
	AttrTensor  = 4
	AttrFloats  = 6
	AttrInts    = 7
	AttrStrings = 8
)

// Attribute is a node attribute: the scalar and list fields ONNX's
// operators use. Tensor-valued attributes keep their proto (T).
type Attribute struct {
	Name    string
	Type    int32
	F       float32
	I       int64
	S       []byte
	T       *TensorProto
	Floats  []float32
	Ints    []int64
	Strings [][]byte
}

// Node is a NodeProto.
type Node struct {
	Name       string
	OpType     string
	Domain     string
	Inputs     []string
	Outputs    []string
	Attributes []Attribute
}

// Graph is the part of a model's GraphProto a single-node test needs.
type Graph struct {
	Name    string
	Nodes   []Node
	Inputs  []string // graph input names, in order
	Outputs []string // graph output names, in order
}

// Attr returns the attribute called name.
func (n *Node) Attr(name string) (*Attribute, bool) {
	for i := range n.Attributes {
		if n.Attributes[i].Name == name {
			return &n.Attributes[i], true
		}
	}
	return nil, false
}

// Ints returns the ints attribute called name, or def when absent.
func (n *Node) Ints(name string, def []int64) []int64 {
	if a, ok := n.Attr(name); ok {
		return a.Ints
	}
	return def
}

// Int returns the int attribute called name, or def when absent.
func (n *Node) Int(name string, def int64) int64 {
	if a, ok := n.Attr(name); ok {
		return a.I
	}
	return def
}

// String returns the string attribute called name, or def when absent.
func (n *Node) String(name, def string) string {
	if a, ok := n.Attr(name); ok {
		return string(a.S)
	}
	return def
}

// ParseModel decodes a serialized ModelProto's graph (field 7).
func ParseModel(b []byte) (*Graph, error) {
	var g *Graph
	err := eachField(b, func(f field) error {
		if f.num != 7 {
			return nil
		}
		if err := f.expect(protowire.BytesType); err != nil {
			return err
		}
		var err error
		if g, err = parseGraph(f.data); err != nil {
			return fmt.Errorf("graph: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("onnx: the model has no graph")
	}
	return g, nil
}

// MaxModelFileSize bounds a model.onnx file: a node test's model is a
// graph of one node, well under 1 KiB (the largest of the ONNX node tests
// holds an initializer of a few KiB), and conformance runs only those.
const MaxModelFileSize = 16 << 20

// MaxTensorFileSize bounds a TensorProto file: the largest tensor vkdml
// can run, 2^32-1 elements of 8 bytes (DirectML's element limit, which
// CreateOperator applies), plus room for the proto's name and shape.
const MaxTensorFileSize = tensor.MaxElementCount*8 + 1<<20

// ReadModel reads a model.onnx file's graph (a regular file of at most
// MaxModelFileSize bytes; internal/safefile).
func ReadModel(path string) (*Graph, error) {
	b, err := safefile.ReadFile(path, MaxModelFileSize)
	if err != nil {
		return nil, err
	}
	g, err := ParseModel(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func parseGraph(b []byte) (*Graph, error) {
	return parseMessage(b, func(g *Graph, f field) error {
		switch f.num {
		case 1, 2, 11, 12:
			if err := f.expect(protowire.BytesType); err != nil {
				return err
			}
		}
		switch f.num {
		case 1: // node
			return appendMessage(&g.Nodes, "node", f.data, parseNode)
		case 2:
			g.Name = string(f.data)
		case 11, 12: // input, output: ValueInfoProto, name is field 1
			name, err := stringField(f.data, 1)
			if err != nil {
				return err
			}
			if f.num == 11 {
				g.Inputs = append(g.Inputs, name)
			} else {
				g.Outputs = append(g.Outputs, name)
			}
		}
		return nil
	})
}

// appendMessage parses data, an element of a repeated message field, with
// parse and appends it to list; an error names the element (what and its
// index).
func appendMessage[T any](list *[]T, what string, data []byte, parse func([]byte) (*T, error)) error {
	m, err := parse(data)
	if err != nil {
		return fmt.Errorf("%s %d: %w", what, len(*list), err)
	}
	*list = append(*list, *m)
	return nil
}

// stringField returns the last value of string field num in a message.
func stringField(b []byte, num protowire.Number) (string, error) {
	var s string
	err := eachField(b, func(f field) error {
		if f.num != num {
			return nil
		}
		return f.bytes(func(b []byte) { s = string(b) })
	})
	if err != nil {
		return "", err
	}
	return s, nil
}

func parseNode(b []byte) (*Node, error) {
	return parseMessage(b, func(n *Node, f field) error {
		if f.num >= 1 && f.num <= 5 || f.num == 7 {
			if err := f.expect(protowire.BytesType); err != nil {
				return err
			}
		}
		switch f.num {
		case 1:
			n.Inputs = append(n.Inputs, string(f.data))
		case 2:
			n.Outputs = append(n.Outputs, string(f.data))
		case 3:
			n.Name = string(f.data)
		case 4:
			n.OpType = string(f.data)
		case 5:
			return appendMessage(&n.Attributes, "attribute", f.data, parseAttribute)
		case 7:
			n.Domain = string(f.data)
		}
		return nil
	})
}

func parseAttribute(b []byte) (*Attribute, error) {
	return parseMessage(b, func(a *Attribute, f field) error {
		switch f.num {
		case 1: // name
			return f.bytes(func(b []byte) { a.Name = string(b) })
		case 2: // f
			return f.scalar(protowire.Fixed32Type, func(x uint64) { a.F = math.Float32frombits(uint32(x)) })
		case 3: // i
			return f.scalar(protowire.VarintType, func(x uint64) { a.I = int64(x) })
		case 4: // s
			return f.bytes(func(b []byte) { a.S = b })
		case 5: // t
			if err := f.expect(protowire.BytesType); err != nil {
				return err
			}
			var err error
			a.T, err = ParseTensorProto(f.data)
			return err
		case 7: // floats
			return f.repeated(protowire.Fixed32Type, func(x uint64) { a.Floats = append(a.Floats, math.Float32frombits(uint32(x))) })
		case 8: // ints
			return f.repeated(protowire.VarintType, func(x uint64) { a.Ints = append(a.Ints, int64(x)) })
		case 9: // strings
			return f.bytes(func(b []byte) { a.Strings = append(a.Strings, b) })
		case 20: // type
			return f.scalar(protowire.VarintType, func(x uint64) { a.Type = int32(x) })
		}
		return nil
	})
}
