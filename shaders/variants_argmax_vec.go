package shaders

import (
	"fmt"
	"slices"
)

// Vectorised ARGMAX/ARGMIN first passes (argmax_vec_row.comp and
// argmax_vec_col.comp). The constants
// below are the 32-bit variants; ArgMaxVecName names those of the other
// widths.
const (
	// ArgMaxVecRow: lanes split a contiguous block, 16-byte loads; shared
	// memory combine.
	ArgMaxVecRow = "argmax_vec_row"
	// ArgMaxVecRowSG: ArgMaxVecRow with subgroup arithmetic.
	ArgMaxVecRowSG = "argmax_vec_rowsg"
	// ArgMaxVecRow64, ArgMaxVecRow64SG: the same with 32-byte (u64vec4)
	// loads; they need shaderInt64.
	ArgMaxVecRow64   = "argmax_vec_row64"
	ArgMaxVecRow64SG = "argmax_vec_row64sg"
	// ArgMaxVecRowSG1, ArgMaxVecRow64SG1: ArgMaxVecRowSG and
	// ArgMaxVecRow64SG for a workgroup that is exactly one full subgroup
	// (required subgroup size and full subgroups): no shared memory, no
	// barrier.
	ArgMaxVecRowSG1   = "argmax_vec_rowsg1"
	ArgMaxVecRow64SG1 = "argmax_vec_row64sg1"
	// ArgMaxVecRowTexelSG1: ArgMaxVecRow64SG1 reading its input (binding
	// 0) as a uniform texel buffer of R32G32B32A32_UINT texels, a 32-byte
	// vector as two texel fetches (argmax_vec_row.comp TEXEL); it needs
	// no shaderInt64.
	ArgMaxVecRowTexelSG1 = "argmax_vec_rowtexelsg1"
	// ArgMaxVecRowSub, ArgMaxVecRow64Sub: ArgMaxVecRowSG and
	// ArgMaxVecRow64SG with one subgroup (not one workgroup) per output
	// and segment, for short rows; they need full subgroups of one
	// required size.
	ArgMaxVecRowSub   = "argmax_vec_rowsub"
	ArgMaxVecRow64Sub = "argmax_vec_row64sub"
	// ArgMaxVecCol: each invocation scans 4 adjacent outputs' blocks with
	// 16-byte loads.
	ArgMaxVecCol = "argmax_vec_col"
	// ArgMaxVecCol8: 8 adjacent outputs per invocation, two 16-byte loads
	// per block position.
	ArgMaxVecCol8 = "argmax_vec_col8"
	// ArgMaxVecCol8W64: ArgMaxVecCol8 with one 32-byte (u64vec4) load per
	// block position when strides and the binding allow; needs shaderInt64.
	ArgMaxVecCol8W64 = "argmax_vec_col8w64"
	// ArgMaxVecColX4: ArgMaxVecCol loading four block positions before
	// scanning them (64 bytes in flight per lane); 8-, 16- and 64-bit
	// elements only (ArgMaxVecName names them).
	ArgMaxVecColX4 = "argmax_vec_colx4"
	// ArgMaxCol8Y: 8-bit integer columns of one reduced axis, 16
	// adjacent outputs per item as ArgMaxVecColX4 (four rows' 16-byte
	// loads in flight), ArgMaxCol8YRows lanes of a workgroup splitting the
	// item's rows, combined in shared memory; a SWAR filter on whole
	// words (argmax_col8y.comp).
	ArgMaxCol8Y = "argmax_vec_b8_coly"
	// ArgMaxCol8YPhased: ArgMaxCol8Y for one kept dimension of any
	// length and any row stride (not a multiple of 16 bytes): each row's
	// 16 bytes from the five aligned words that hold them
	// (argmax_col8y.comp PHASED).
	ArgMaxCol8YPhased = "argmax_vec_b8_coly_phased"
)

// ArgMaxVecTicket is the one-dispatch twin of the vec-row variant named
// row (ArgMaxVecRow, ArgMaxVecRowSG, ArgMaxVecRow64, ArgMaxVecRow64SG, or
// their narrow-width names), whose last workgroup to finish combines the
// partials (argmax_vec_row.comp TICKET): argTicketBindings bindings and
// ArgTicketPush's push words. The variants with one subgroup per item
// have none.
func ArgMaxVecTicket(row string) string { return row + "_ticket" }

// argTicketBindings: the input, the output, the partials and the ticket.
const argTicketBindings = 4

// argTicketPush is the ticket variants' push words: the first pass's, and
// the output window's first element for the combined indices.
var argTicketPush = concat(argPush, []string{"out_win"})

// ArgMaxCol8YRows is the lanes of ArgMaxCol8Y that share an item: a
// workgroup of 256 takes 8 items, 128 bytes of each row.
const ArgMaxCol8YRows = 32

// ArgMaxVecNarrowWidths are the element widths other than 32 bits whose
// vectorised variants exist: 16-byte loads of 16, 8 or 2 elements, read as
// 32-bit words (no 8/16-bit storage or shaderInt64 needed).
var ArgMaxVecNarrowWidths = []int{8, 16, 64}

// ArgMaxVecName is the vectorised variant for elemBits-bit elements (one of
// ArgMaxVecNarrowWidths, or 32) and the 32-bit variant named base, one of
// ArgMaxVecRow, ArgMaxVecRowSG, ArgMaxVecRowSG1, ArgMaxVecRowSub, ArgMaxVecCol and
// ArgMaxVecColX4 (the latter for other widths only; the wide
// 32-bit variants have no counterpart): for 32 bits base itself, else
// base with the width, e.g. argmax_vec_b8_rowsg.
func ArgMaxVecName(elemBits int, base string) string {
	if elemBits == 32 {
		return base
	}
	return fmt.Sprintf("argmax_vec_b%d%s", elemBits, base[len("argmax_vec"):])
}

func argmaxVecVariants() []Variant {
	variant := func(source string) func(name string, defines ...string) Variant {
		return func(name string, defines ...string) Variant {
			return Variant{Name: name, Source: source, Defines: defines,
				Bindings: argBindings, Spec: argSpec, Push: argPush}
		}
	}
	col := variant("argmax_vec_col.comp")
	var tickets []Variant
	row := func(name string, defines ...string) Variant {
		v := variant("argmax_vec_row.comp")(name, defines...)
		if !slices.Contains(defines, "ONESG=1") && !slices.Contains(defines, "ROWS=1") {
			tickets = append(tickets, Variant{Name: ArgMaxVecTicket(name), Source: v.Source,
				Defines: append(slices.Clip(defines), "TICKET=1"), Bindings: argTicketBindings, Spec: argSpec, Push: argTicketPush})
		}
		return v
	}
	texel := func(v Variant) Variant {
		v.TexelBindings = []int{0}
		return v
	}
	out := []Variant{
		row(ArgMaxVecRow, "SUBGROUP=0", "WIDE=0"),
		row(ArgMaxVecRowSG, "SUBGROUP=1", "WIDE=0"),
		row(ArgMaxVecRow64, "SUBGROUP=0", "WIDE=1"),
		row(ArgMaxVecRow64SG, "SUBGROUP=1", "WIDE=1"),
		row(ArgMaxVecRowSG1, "SUBGROUP=1", "WIDE=0", "ONESG=1"),
		row(ArgMaxVecRow64SG1, "SUBGROUP=1", "WIDE=1", "ONESG=1"),
		texel(row(ArgMaxVecRowTexelSG1, "SUBGROUP=1", "WIDE=1", "ONESG=1", "TEXEL=1")),
		row(ArgMaxVecRowSub, "SUBGROUP=1", "WIDE=0", "ROWS=1"),
		row(ArgMaxVecRow64Sub, "SUBGROUP=1", "WIDE=1", "ROWS=1"),
		col(ArgMaxVecCol, "WIDE=0"),
		col(ArgMaxVecCol8, "WIDE=1"),
		col(ArgMaxVecCol8W64, "WIDE=1", "W64=1"),
	}
	coly := fmt.Sprintf("COLY=%d", ArgMaxCol8YRows)
	out = append(out, variant("argmax_col8y.comp")(ArgMaxCol8Y, coly, "LOADS=4"),
		variant("argmax_col8y.comp")(ArgMaxCol8YPhased, coly, "LOADS=4", "PHASED=1"))
	for _, bits := range ArgMaxVecNarrowWidths {
		eb := fmt.Sprintf("ELEM_BITS=%d", bits)
		out = append(out,
			row(ArgMaxVecName(bits, ArgMaxVecRow), eb, "SUBGROUP=0", "WIDE=0"),
			row(ArgMaxVecName(bits, ArgMaxVecRowSG), eb, "SUBGROUP=1", "WIDE=0"),
			row(ArgMaxVecName(bits, ArgMaxVecRowSG1), eb, "SUBGROUP=1", "WIDE=0", "ONESG=1"),
			row(ArgMaxVecName(bits, ArgMaxVecRowSub), eb, "SUBGROUP=1", "WIDE=0", "ROWS=1"),
			col(ArgMaxVecName(bits, ArgMaxVecCol), eb, "WIDE=0"),
			col(ArgMaxVecName(bits, ArgMaxVecColX4), eb, "WIDE=0", "LOADS=4"))
	}
	return append(out, tickets...)
}
