package schema

// Fields every desc has, and those the reductions and max pooling share.
var (
	input         = Field{Name: "InputTensor", Kind: InputTensor, Type: TensorDesc}
	output        = Field{Name: "OutputTensor", Kind: OutputTensor, Type: TensorDesc}
	outputIndices = Field{Name: "OutputIndicesTensor", Kind: OutputTensor, Type: TensorDesc, Optional: true}
	axisCount     = Field{Name: "AxisCount", Kind: Attribute, Type: UInt}
	axes          = Field{Name: "Axes", Kind: Attribute, Type: UIntArray, Count: "AxisCount"}
	dimCount      = Field{Name: "DimensionCount", Kind: Attribute, Type: UInt}
)

// window is an array of max pooling's, DimensionCount long.
func window(name string) Field {
	return Field{Name: name, Kind: Attribute, Type: UIntArray, Count: "DimensionCount"}
}

// poolingWindow returns the fields every max pooling desc holds alike,
// after the tensors, as the group PoolingWindow.
func poolingWindow() []Field {
	fs := []Field{dimCount, window("Strides"), window("WindowSize"), window("StartPadding"), window("EndPadding")}
	for i := range fs {
		fs[i].Group = "PoolingWindow"
	}
	return fs
}

// argFields are DML_ARGMAX_OPERATOR_DESC's and DML_ARGMIN_OPERATOR_DESC's.
var argFields = []Field{input, output, axisCount, axes,
	{Name: "AxisDirection", Kind: Attribute, Type: UInt, Enum: AxisDirection, Optional: true}}

// topKFields are DML_TOP_K_OPERATOR_DESC's; TOP_K1 adds AxisDirection.
// The parity corpus keeps its generic names for the two outputs (a case's
// output and outputIndices).
var topKFields = []Field{input,
	{Name: "OutputValueTensor", Kind: OutputTensor, Type: TensorDesc, JSON: "output"},
	{Name: "OutputIndexTensor", Kind: OutputTensor, Type: TensorDesc, JSON: "outputIndices"},
	{Name: "Axis", Kind: Attribute, Type: UInt},
	{Name: "K", Kind: Attribute, Type: UInt}}

// Descs lists every operator desc vkdml defines. A new operator starts
// here (its fields) and in ops' registry (its constructor, strategies and
// fuzz kind); then go run ./internal/schema/gen writes its C, Python and
// COM structs. C.Type values are part of libvkdml's ABI: never reuse one.
var Descs = []Desc{
	{
		Type: "ARGMAX", DMLType: 138, Go: "ArgMax", Fields: argFields,
		C: &CDesc{Struct: "vkdml_argmax_desc", Type: 1, Doc: `DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC. The output keeps the
input's rank with every axis in ` + "`axes`" + ` of size 1; its type is UINT32,
INT32, UINT64 or INT64. Indices count from the start of each reduced
block, in row-major order over the reduced axes.`},
	},
	{
		Type: "ARGMIN", DMLType: 137, Go: "ArgMin", Fields: argFields,
		C: &CDesc{Struct: "vkdml_argmin_desc", Type: 2, SameAs: "ARGMAX"},
	},
	{
		Type: "REDUCE", DMLType: 55, Go: "Reduce",
		Fields: []Field{
			{Name: "Function", Kind: Attribute, Type: UInt, Enum: ReduceFunction,
				JSON: "reduceFunction", Aliases: []string{"ReduceFunction"}},
			input, output, axisCount, axes,
		},
		C: &CDesc{Struct: "vkdml_reduce_desc", Type: 3, Doc: `DML_REDUCE_OPERATOR_DESC: function ARGMAX or ARGMIN (the output holds
indices, as ARGMAX's), or MAX, MIN, SUM, MULTIPLY, L1 or SUM_SQUARE (the
output has the input's type; vkdml_reduce_function says which types).`},
	},
	{
		Type: "MAX_POOLING", DMLType: 58, Go: "MaxPooling",
		Fields: append([]Field{input, output}, poolingWindow()...),
		C: &CDesc{Struct: "vkdml_max_pooling_desc", Type: 4, Doc: `DML_MAX_POOLING_OPERATOR_DESC. Every array has dimension_count
(= the input's rank - 2) entries.`},
	},
	{
		Type: "MAX_POOLING1", DMLType: 91, Go: "MaxPooling1",
		Fields: append([]Field{input, output, outputIndices}, poolingWindow()...),
		C: &CDesc{Struct: "vkdml_max_pooling1_desc", Type: 5, Doc: `DML_MAX_POOLING1_OPERATOR_DESC: output_indices (NULL: none) receives the
index of each selected element, flat over the whole logical input.`},
	},
	{
		Type: "MAX_POOLING2", DMLType: 110, Go: "MaxPooling2",
		Fields: append(append([]Field{input, output, outputIndices}, poolingWindow()...), window("Dilations")),
		C:      &CDesc{Struct: "vkdml_max_pooling2_desc", Type: 6, Doc: `DML_MAX_POOLING2_OPERATOR_DESC: MAX_POOLING1 with dilations.`},
	},
	{
		Type: "MAX_UNPOOLING", DMLType: 92, Go: "MaxUnpooling",
		Fields: []Field{input, {Name: "IndicesTensor", Kind: InputTensor, Type: TensorDesc}, output},
		C: &CDesc{Struct: "vkdml_max_unpooling_desc", Type: 7, Doc: `DML_MAX_UNPOOLING_OPERATOR_DESC: 4D tensors; indices (UINT32 or UINT64, the
input's sizes) are flat over the whole logical output. Unaddressed output
elements are 0, out-of-range indices are skipped, and of several inputs
with one index the last in row-major order wins.`},
	},
	{
		// DirectML's desc ends with an optional ScaleBias, which vkdml's
		// copy does not have; vkdml uses it inside (tests and bench's
		// bandwidth ceiling) and libvkdml does not offer it.
		Type: "ELEMENT_WISE_IDENTITY", DMLType: 1, Go: "ElementWiseIdentity",
		Fields: []Field{input, output},
	},
	{
		Type: "TOP_K", DMLType: 71, Go: "TopK", Fields: topKFields,
		C: &CDesc{Struct: "vkdml_top_k_desc", Type: 8, Doc: `DML_TOP_K_OPERATOR_DESC: the k largest elements along axis, sorted
descending (TOP_K1 with axis_direction DECREASING). Both outputs have the
input's sizes but k along axis; indices (UINT32, or UINT64 from feature
level 5.0) count from the start of the axis. Ties go to the lower index,
NaN comes after every number.`},
	},
	{
		Type: "TOP_K1", DMLType: 112, Go: "TopK1",
		Fields: append(append([]Field(nil), topKFields...),
			Field{Name: "AxisDirection", Kind: Attribute, Type: UInt, Enum: AxisDirection, Optional: true}),
		C: &CDesc{Struct: "vkdml_top_k1_desc", Type: 9, Doc: `DML_TOP_K1_OPERATOR_DESC: DECREASING selects the k largest, sorted
descending; INCREASING the k smallest, sorted ascending.`},
	},
}
