package schema

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TensorFields are DML_BUFFER_TENSOR_DESC's fields, which every tensor
// field of a desc as data holds (vkdml.h's vkdml_tensor_desc).
var TensorFields = []Field{
	{Name: "DataType", Kind: Attribute, Type: UInt, Enum: DataType},
	{Name: "Flags", Kind: Attribute, Type: UInt, Optional: true},
	{Name: "DimensionCount", Kind: Attribute, Type: UInt},
	{Name: "Sizes", Kind: Attribute, Type: UIntArray, Count: "DimensionCount"},
	{Name: "Strides", Kind: Attribute, Type: UIntArray, Count: "DimensionCount", Optional: true},
	{Name: "TotalTensorSizeInBytes", Kind: Attribute, Type: UInt64, Optional: true},
	{Name: "GuaranteedBaseOffsetAlignment", Kind: Attribute, Type: UInt, Optional: true},
}

// TypeField is the key of a desc as data that names its operator: Type
// (DML_OPERATOR_DESC's), the corpus's operator, or Python's type. Its
// value is a Desc's Type, with or without DML_OPERATOR_.
var TypeField = Field{Name: "Type", JSON: "operator", Aliases: []string{"type"}}

// OperatorPrefix is what DirectML's operator type names start with.
const OperatorPrefix = "DML_OPERATOR_"

// CaseKeys are the keys a parity corpus case holds beside its desc
// (internal/parity's Case); a desc as data may hold them, so that a corpus
// line is one, and vkdml.run ignores them.
var CaseKeys = []string{"name", "covers", "note", "expect"}

// JSONName is the field's name in the parity corpus: JSON, or the Go name
// with a lower-case first letter (inputTensor's is input).
func (f *Field) JSONName() string {
	if f.JSON != "" {
		return f.JSON
	}
	g := f.Go()
	r, n := utf8.DecodeRuneInString(g)
	return string(unicode.ToLower(r)) + g[n:]
}

// Spellings are the keys a desc as data may give the field under, each
// naming it alone: DirectML's name, the Go name, the corpus's name and the
// Aliases. A desc giving two of them is refused, as is any other key.
func (f *Field) Spellings() []string {
	var out []string
	for _, s := range append([]string{f.Name, f.Go(), f.JSONName()}, f.Aliases...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Suggest returns the key of known closest to key: fewest edits away
// ignoring case (at most a third of its length, at least 2), then fewest
// counting case, so that "stride" suggests "strides" before "Strides";
// "" when none is close.
func Suggest(key string, known []string) string {
	best, bestScore := "", 0
	lower := strings.ToLower(key)
	for _, k := range known {
		d := editDistance(lower, strings.ToLower(k))
		score := d*1000 + editDistance(key, k)
		if d <= max(2, len(k)/3) && (best == "" || score < bestScore) {
			best, bestScore = k, score
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
