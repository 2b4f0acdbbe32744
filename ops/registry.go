package ops

import (
	"reflect"

	"github.com/vkdml/vkdml/internal/schema"
)

// Operator is one row of Registry: what code outside an operator's own
// files needs to know about its desc type. The desc's fields, and with
// them its inputs and outputs, are its entry in internal/schema.
type Operator struct {
	// Type is DirectML's operator type, as Desc.OperatorType returns it.
	Type string
	// New returns a zero desc of the type.
	New func() Desc
	// Strategies are the kernel names Context.Kernel may force, in the
	// order `vkdml bench --kernel all` measures them.
	Strategies []string
	// FuzzKind is the desc's kind number in internal/descfuzz, or
	// NotFuzzed. Kind numbers are fixed once given: the committed fuzz
	// seeds select kinds by number, so a new desc takes the next one.
	FuzzKind int
}

// NotFuzzed is the FuzzKind of a desc the fuzzer does not decode.
const NotFuzzed = -1

// Registry lists every desc type package ops defines, once. dml's compute
// cache, internal/descfuzz, the tools' operator table (internal/operators)
// and with it the command and bench read it; a new operator adds a row
// here and an entry in internal/schema.
var Registry = []*Operator{
	{Type: "ARGMAX", New: func() Desc { return &ArgMax{} }, Strategies: argStrategiesAll, FuzzKind: 0},
	{Type: "ARGMIN", New: func() Desc { return &ArgMin{} }, Strategies: argStrategiesAll, FuzzKind: 1},
	{Type: "REDUCE", New: func() Desc { return &Reduce{} }, Strategies: argStrategiesAll, FuzzKind: 2},
	{Type: "MAX_POOLING", New: func() Desc { return &MaxPooling{} }, Strategies: poolStrategies, FuzzKind: 3},
	{Type: "MAX_POOLING1", New: func() Desc { return &MaxPooling1{} }, Strategies: poolStrategies, FuzzKind: 4},
	{Type: "MAX_POOLING2", New: func() Desc { return &MaxPooling2{} }, Strategies: poolStrategies, FuzzKind: 5},
	{Type: "MAX_UNPOOLING", New: func() Desc { return &MaxUnpooling{} }, Strategies: []string{MaxUnpoolStrategy}, FuzzKind: 6},
	{Type: "ELEMENT_WISE_IDENTITY", New: func() Desc { return &ElementWiseIdentity{} }, Strategies: []string{"vec4", "strided"}, FuzzKind: NotFuzzed},
	{Type: "TOP_K", New: func() Desc { return &TopK{} }, Strategies: TopKStrategies, FuzzKind: 7},
	{Type: "TOP_K1", New: func() Desc { return &TopK1{} }, Strategies: TopKStrategies, FuzzKind: 8},
}

// The strategy lists several descs share.
var (
	argStrategiesAll = []string{ArgStrategyThread, ArgStrategyGroup, ArgStrategySplitK, ArgStrategyVec}
	poolStrategies   = []string{"direct", MaxPoolStrategyVec2x2}
)

// Schema is the desc's field table.
func (o *Operator) Schema() *schema.Desc {
	d, ok := schema.Lookup(o.Type)
	if !ok {
		panic("ops: " + o.Type + " is registered without an entry in internal/schema")
	}
	return d
}

// Inputs are the desc's input tensors in binding order (Desc.Inputs).
func (o *Operator) Inputs() []schema.Field { return o.Schema().Tensors(schema.InputTensor) }

// Outputs are the desc's output tensors in binding order (Desc.Outputs),
// optional ones included.
func (o *Operator) Outputs() []schema.Field { return o.Schema().Tensors(schema.OutputTensor) }

// LookupOperator returns the row of operator type typ.
func LookupOperator(typ string) (*Operator, bool) {
	for _, o := range Registry {
		if o.Type == typ {
			return o, true
		}
	}
	return nil, false
}

// OperatorOf returns the row of desc's Go type: a desc of a type defined
// outside package ops (a caller's wrapper, say) has none.
func OperatorOf(desc Desc) (*Operator, bool) {
	o, ok := registeredTypes[reflect.TypeOf(desc)]
	return o, ok
}

// registeredTypes maps each row's Go type to the row.
var registeredTypes = func() map[reflect.Type]*Operator {
	m := map[reflect.Type]*Operator{}
	for _, o := range Registry {
		m[reflect.TypeOf(o.New())] = o
	}
	return m
}()

// FuzzKinds returns the fuzzed descs by kind number: FuzzKinds()[k] has
// FuzzKind k.
func FuzzKinds() []*Operator {
	var kinds []*Operator
	for _, o := range Registry {
		if o.FuzzKind == NotFuzzed {
			continue
		}
		for len(kinds) <= o.FuzzKind {
			kinds = append(kinds, nil)
		}
		kinds[o.FuzzKind] = o
	}
	return kinds
}
