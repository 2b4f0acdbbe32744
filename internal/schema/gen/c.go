package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkdml/vkdml/internal/schema"
)

// cDescs are the descs libvkdml offers, by vkdml_operator_type value (the
// ABI's order).
func cDescs() []*schema.Desc {
	var ds []*schema.Desc
	for i := range schema.Descs {
		if schema.Descs[i].C != nil {
			ds = append(ds, &schema.Descs[i])
		}
	}
	slices.SortFunc(ds, func(a, b *schema.Desc) int { return int(a.C.Type) - int(b.C.Type) })
	return ds
}

// cMarkers are the marker comments of vkdml.h's regions.
var cMarkers = markers{begin: "BEGIN GENERATED: %s (", end: "END GENERATED: %s */"}

// cOperatorTypes is the vkdml_operator_type enum, its comments aligned.
func cOperatorTypes() string {
	ds := cDescs()
	lines := make([]string, len(ds))
	width := 0
	for i, d := range ds {
		lines[i] = fmt.Sprintf("    VKDML_OPERATOR_%s = %d,", d.Type, d.C.Type)
		width = max(width, len(lines[i]))
	}
	var b strings.Builder
	b.WriteString("typedef enum vkdml_operator_type {\n")
	for i, d := range ds {
		line := lines[i]
		if i == len(ds)-1 {
			line = strings.TrimSuffix(line, ",")
		}
		fmt.Fprintf(&b, "%-*s/* %s */\n", width+2, line, d.C.Struct)
	}
	b.WriteString("} vkdml_operator_type;\n")
	return b.String()
}

// cFieldCommentColumn is where a field's comment starts in vkdml.h.
const cFieldCommentColumn = 31

// cStructs are the desc structs, each with its comment, a desc that shares
// another's struct as a typedef after it.
func cStructs() string {
	var parts []string
	for _, d := range cDescs() {
		if d.C.SameAs != "" {
			continue
		}
		var b strings.Builder
		b.WriteString(cComment(d.C.Doc))
		fmt.Fprintf(&b, "typedef struct %s {\n", d.C.Struct)
		for _, f := range d.Fields {
			line := "    " + cTypes.of(&f) + f.C() + ";"
			if f.Enum != nil {
				line = fmt.Sprintf("%-*s/* %s */", cFieldCommentColumn, line+" ", f.Enum.C())
			}
			b.WriteString(line + "\n")
		}
		fmt.Fprintf(&b, "} %s;\n", d.C.Struct)
		for _, alias := range cDescs() {
			if alias.C.SameAs == d.Type {
				fmt.Fprintf(&b, "typedef %s %s;\n", d.C.Struct, alias.C.Struct)
			}
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n")
}

// cTypes are the fields' C types, each ready to precede the field's name.
var cTypes = fieldTypes{tensor: "const vkdml_tensor_desc *", array: "const uint32_t *", uint: "uint32_t "}

// fieldTypes spell a field's type (schema.Type) in one mirror.
type fieldTypes struct{ tensor, array, uint string }

// of is f's type.
func (t fieldTypes) of(f *schema.Field) string {
	switch f.Type {
	case schema.TensorDesc:
		return t.tensor
	case schema.UIntArray:
		return t.array
	}
	return t.uint
}

// cComment is doc as a C comment of its lines, " * " continuing them.
func cComment(doc string) string {
	lines := strings.Split(doc, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "/* " + lines[i]
		} else {
			lines[i] = " * " + lines[i]
		}
	}
	return strings.Join(lines, "\n") + " */\n"
}
