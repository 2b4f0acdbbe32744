package main

import (
	"fmt"
	"strings"

	"github.com/vkdml/vkdml/internal/schema"
)

// pyMarkers are the marker comments of _capi.py's regions.
var pyMarkers = markers{begin: "# BEGIN GENERATED: %s (", end: "# END GENERATED: %s\n"}

func pyOperatorTypes() string {
	var b strings.Builder
	for _, d := range cDescs() {
		fmt.Fprintf(&b, "OPERATOR_%s = %d\n", d.Type, d.C.Type)
	}
	return b.String()
}

// pyClass is the ctypes class of desc d: ArgMaxDesc.
func pyClass(d *schema.Desc) string { return d.Go + "Desc" }

// pyStructs are the ctypes mirrors of vkdml.h's desc structs, in the
// header's order; a desc sharing another's struct is an alias of its class,
// and one whose struct extends an earlier one (MAX_POOLING2 adds dilations
// to MAX_POOLING1) lists only the fields it adds to that class's.
func pyStructs() string {
	var parts []string
	var classes []*schema.Desc
	for _, d := range cDescs() {
		if d.C.SameAs != "" {
			same, _ := schema.Lookup(d.C.SameAs)
			parts = append(parts, fmt.Sprintf("%s = %s\n", pyClass(d), pyClass(same)))
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "class %s(ctypes.Structure):\n    _fields_ = ", pyClass(d))
		fields := d.Fields
		if base := pyBase(classes, d); base != nil {
			fmt.Fprintf(&b, "%s._fields_ + ", pyClass(base))
			fields = fields[len(base.Fields):]
		}
		b.WriteString("[\n")
		for _, f := range fields {
			fmt.Fprintf(&b, "        (%q, %s),\n", f.C(), pyTypes.of(&f))
		}
		b.WriteString("    ]\n")
		parts = append(parts, b.String())
		classes = append(classes, d)
	}
	var m strings.Builder
	m.WriteString("# DESC_STRUCTS maps each desc struct of vkdml.h to its class here.\nDESC_STRUCTS = {\n")
	for _, d := range cDescs() {
		if d.C.SameAs == "" {
			fmt.Fprintf(&m, "    %q: %s,\n", d.C.Struct, pyClass(d))
		}
	}
	m.WriteString("}\n")
	return strings.Join(append(parts, m.String()), "\n\n")
}

// pyBase is the last of classes whose fields (names and types) begin d's
// and are fewer, or nil.
func pyBase(classes []*schema.Desc, d *schema.Desc) *schema.Desc {
	for i := len(classes) - 1; i >= 0; i-- {
		c := classes[i]
		if len(c.Fields) >= len(d.Fields) {
			continue
		}
		prefix := true
		for j, f := range c.Fields {
			g := d.Fields[j]
			prefix = prefix && f.C() == g.C() && pyTypes.of(&f) == pyTypes.of(&g)
		}
		if prefix {
			return c
		}
	}
	return nil
}

// pyTypes are the fields' ctypes types (_tdp and _u32p are _capi.py's
// pointer types).
var pyTypes = fieldTypes{tensor: "_tdp", array: "_u32p", uint: "ctypes.c_uint32"}
