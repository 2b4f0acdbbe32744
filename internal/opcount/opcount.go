// Package opcount counts the integer work of vkdml's kernels: the SPIR-V
// instructions one element (or output, or partial) costs in a kernel's hot
// loop, with the kernel specialised for one plan.
//
// The method: spirv-opt sets the plan's specialization constants as the
// defaults, freezes and folds them and optimises (-O), as a driver's
// compiler would start; spirv-dis prints the result, and the hot loop's
// instructions are counted along its cheapest path (a branch the common
// case skips, such as a new maximum, costs nothing), inner loops times
// their trip counts, vector instructions once per component. Moves are
// free: OpPhi, OpCompositeExtract/Construct, OpVectorShuffle, OpCopyObject,
// OpBitcast, and control flow; a load, a store and an address
// (OpAccessChain) count 1 each. The count is then divided by the elements
// one iteration covers, and (Plan) set against the bytes the dispatch
// moves, partials included: ops per byte, which BudgetPerByte bounds on
// the h100 profile. counts.md is the table for the GPU speed cases;
// TestCounts holds it current and every dispatch within the budget.
package opcount

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/shaders/spirv"
)

// Unit says what one count is per.
type Unit struct {
	// Name is "element", "output" or "partial".
	Name string
	// Outermost picks the outermost loop of main (one work item per
	// iteration, inner loops times their trip counts); otherwise the hot
	// loop is the loop that loads the most bytes of binding 0 per
	// iteration (the kernel's source), inner loops excluded.
	Outermost bool
	// Whole counts main itself, from its entry, for kernels with no loop
	// around their work (one work item per invocation on a grid); inner
	// loops count their trip counts.
	Whole bool
	// PerIteration is the units one iteration covers; 0 means the bytes
	// the iteration loads from binding 0 over ElemBytes (vector loads of
	// whole elements).
	PerIteration float64
	ElemBytes    float64
	// DataTrips is the mean trips of a loop inside the hot loop whose
	// trip count depends on the data (not a counted loop); 0 makes such a
	// loop an error.
	DataTrips float64
}

// family is how the kernels compiled from one GLSL source are counted.
var family = map[string]func(v shaders.Variant) Unit{
	// The thread kernels' hot loop scans LOADS block positions per trip;
	// HALF_FAST's one 16-byte vector of eight FLOAT16.
	"argmax.comp": func(v shaders.Variant) Unit {
		if define(v, "HALF_FAST", 0) == 1 {
			return Unit{Name: "element", ElemBytes: 2}
		}
		return Unit{Name: "element", PerIteration: define(v, "LOADS", 1)}
	},
	"argmax_vec_row.comp":       func(v shaders.Variant) Unit { return Unit{Name: "element", ElemBytes: elemBytes(v)} },
	"argmax_vec_col.comp":       func(v shaders.Variant) Unit { return Unit{Name: "element", ElemBytes: elemBytes(v)} },
	"argmax_col8y.comp":         col8yUnit,
	"reduce_half_col.comp":      func(v shaders.Variant) Unit { return Unit{Name: "element", ElemBytes: elemBytes(v)} },
	"argmax_combine.comp":       func(shaders.Variant) Unit { return Unit{Name: "partial", PerIteration: 1} },
	"argmax_combine_group.comp": func(shaders.Variant) Unit { return Unit{Name: "partial", PerIteration: 1} },
	"maxpool.comp":              func(shaders.Variant) Unit { return Unit{Name: "output", Outermost: true, PerIteration: 1} },
	"maxpool_vec.comp":          func(shaders.Variant) Unit { return Unit{Name: "output", Outermost: true, PerIteration: 4} },
	"maxpool_grid.comp": func(v shaders.Variant) Unit {
		return Unit{Name: "output", Whole: true, PerIteration: define(v, "OUTS", 1)}
	},
	"copy.comp":      func(shaders.Variant) Unit { return Unit{Name: "element", PerIteration: 1} },
	"copy_vec4.comp": func(v shaders.Variant) Unit { return Unit{Name: "element", ElemBytes: 4} },
	// Each pass is a grid-stride loop of one work item per trip (the
	// clear pass loads nothing, so the loop is the outermost one).
	"maxunpool.comp": func(shaders.Variant) Unit { return Unit{Name: "element", Outermost: true, PerIteration: 1} },
	// TOP_K's first pass: the hot loop scans one position per trip (the
	// insertion list's, the filter's threshold test, the sort's load), or
	// with VEC4 one 16-byte vector of four (scan_split): the bytes it
	// loads say which. What follows the scan in shared memory (the
	// filter's and sort's bitonic sorts, the lane's sort of the lists) is
	// outside it and not counted: those rows are the scan's cost only.
	// SCAN8's filter is the byte select: its hot loop is the gather of
	// 16-byte vectors, whose inner loop takes a trip for each of the
	// vector's positions at or above the threshold byte; the planner
	// takes it only where uniform random bytes expect at most 0.75 of
	// them a vector (ops topKByteTrips), which is what a trip counts.
	// The count stays 0.75 for the whole rows at large K (ops
	// cutByteWhole) too, which understates them: the planner allows
	// 1.25 trips there (topKByteWholeTrips: 8x32000 K=2048 expects 1.20,
	// 3.17-3.23 ops/B at 1.25 against the 2.8 counted), and those rows
	// run more than this one scan (the sample, the exact counts, then a
	// gather or the ranked ties), which one hot loop cannot count.
	"topk_select.comp": func(v shaders.Variant) Unit {
		if define(v, "SCAN8", 0) == 1 && define(v, "SHAPE", 0) == 3 {
			return Unit{Name: "element", ElemBytes: elemBytes(v), DataTrips: 0.75}
		}
		return Unit{Name: "element", ElemBytes: elemBytes(v)}
	},
	// A merge pass: the hot loop is the binary search, one step of an
	// entry slot's rank per trip (about log2 of the run's entries a
	// slot), which loads one entry of the other run: the rows are per
	// step.
	"topk_merge.comp": func(shaders.Variant) Unit { return Unit{Name: "partial", PerIteration: 1} },
	// REDUCE MULTIPLY's canonical tree: the hot loop pushes LOADS
	// positions' values (the combine: one partial) onto the tree's stack
	// per trip, and each push merges once per trailing one bit of the
	// count, a loop whose trips depend on the count: 2^k - 1 merges over
	// 2^k pushes, one a push (HALF_VEC: sixteen FLOAT16 a push).
	"reduce_fmul.comp": func(v shaders.Variant) Unit {
		if define(v, "COMBINE", 0) == 1 {
			return Unit{Name: "partial", PerIteration: 1, DataTrips: 1}
		}
		if define(v, "HALF_VEC", 0) == 1 {
			// Two 16-byte vectors of FLOAT16 a trip (COL: LOADS
			// of them).
			return Unit{Name: "element", ElemBytes: 2, DataTrips: 1}
		}
		return Unit{Name: "element", PerIteration: define(v, "LOADS", 1), DataTrips: 1}
	},
}

// col8yUnit is argmax_col8y.comp's unit: bytes of 16-byte loads, but
// PHASED's row of 16 elements is five 4-byte words, LOADS rows a trip.
func col8yUnit(v shaders.Variant) Unit {
	if define(v, "PHASED", 0) == 1 {
		return Unit{Name: "element", PerIteration: 16 * define(v, "LOADS", 1)}
	}
	return Unit{Name: "element", ElemBytes: 1}
}

// elemBytes is the variant's element size: its ELEM_BITS define, else 32
// bits.
func elemBytes(v shaders.Variant) float64 { return define(v, "ELEM_BITS", 32) / 8 }

// define is the value of the variant's define name, or def where the row
// does not set it (the GLSL source's default).
func define(v shaders.Variant, name string, def float64) float64 {
	for _, d := range v.Defines {
		if k, val, ok := strings.Cut(d, "="); ok && k == name {
			if n, err := strconv.Atoi(val); err == nil {
				return float64(n)
			}
		}
	}
	return def
}

// Count is the instructions per unit of variant's hot loop with the
// specialization constants spec (in the row's order, as ops.Kernel.Spec
// holds them).
func Count(variant string, spec []uint32) (float64, Unit, error) {
	v, err := shaders.Lookup(variant)
	if err != nil {
		return 0, Unit{}, err
	}
	unitOf, ok := family[v.Source]
	if !ok {
		return 0, Unit{}, fmt.Errorf("opcount: %s (%s): no unit for this kernel family (add one to opcount's family table)", variant, v.Source)
	}
	unit := unitOf(v)
	text, err := specialised(v, spec)
	if err != nil {
		return 0, unit, err
	}
	m, err := parse(text)
	if err != nil {
		return 0, unit, fmt.Errorf("opcount: %s: %w", variant, err)
	}
	m.dataTrips = unit.DataTrips
	var per, loaded float64
	if unit.Whole {
		per, err = m.walk(m.order[0], map[string]bool{}, map[string]bool{})
	} else {
		per, loaded, err = m.hotLoop(unit.Outermost)
	}
	if err != nil {
		return 0, unit, fmt.Errorf("opcount: %s: %w", variant, err)
	}
	units := unit.PerIteration
	if units == 0 {
		units = loaded / unit.ElemBytes
	}
	if units <= 0 {
		return 0, unit, fmt.Errorf("opcount: %s: the hot loop covers no %s", variant, unit.Name)
	}
	return per / units, unit, nil
}

// specialised is the disassembly of variant optimised with spec as its
// specialization constants' values.
func specialised(v shaders.Variant, spec []uint32) (string, error) {
	if len(spec) != len(v.Spec) {
		return "", fmt.Errorf("opcount: %s: %d specialization constants, its row has %d", v.Name, len(spec), len(v.Spec))
	}
	info, err := shaders.Info(v.Name)
	if err != nil {
		return "", err
	}
	ids := map[string]uint32{}
	for id, n := range info.SpecNames {
		ids[n] = id
	}
	var defaults []string
	for i, n := range v.Spec {
		id, ok := ids[n]
		if !ok {
			id = uint32(i) // constant_id follows the row's order
		}
		defaults = append(defaults, fmt.Sprintf("%d:%d", id, spec[i]))
	}
	code, err := shaders.SPIRV(v.Name)
	if err == nil && v.FloatControls32 {
		// The modes change no instruction, and SPIRV-Tools 2023.1 does
		// not optimise a module that declares them.
		code, err = spirv.StripFloatControls(code)
	}
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "opcount")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.spv"), filepath.Join(dir, "out.spv")
	if err := os.WriteFile(in, code, 0o666); err != nil {
		return "", err
	}
	if err := run("spirv-opt", in, "-o", out, "--set-spec-const-default-value", strings.Join(defaults, " "),
		"--freeze-spec-const", "--fold-spec-const-op-composite", "-O"); err != nil {
		return "", err
	}
	var dis bytes.Buffer
	cmd := exec.Command("spirv-dis", "--raw-id", "--no-header", out)
	cmd.Stdout = &dis
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("opcount: spirv-dis: %w", err)
	}
	return dis.String(), nil
}

func run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("opcount: %s: %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
