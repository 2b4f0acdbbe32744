package ops

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/shaders"
)

// DispatchFacts is what one step of a plan does on the device, computed
// from the plan's own numbers (the step's grid, its kernel's
// specialization constants and its push words, read back by name) with no
// device and no guess. Each kernel family says how many elements or
// partials one lane covers in a facts function in ops/facts_*.go
// (kernelFacts).
type DispatchFacts struct {
	// Lanes is the invocations the step launches: its groups times the
	// workgroup size.
	Lanes uint64
	// EmptyLanes is the invocations that touch no element: those past the
	// end of a grid-stride loop's work, whole workgroups with no item, and
	// the lanes of a workgroup its item is too short to reach.
	EmptyLanes uint64
	// BytesPerLaneInFlight is the bytes one lane loads before it uses the
	// first of them, in the kernel's source order (one element for the
	// scalar kernels, one 16- or 32-byte vector for the vector ones).
	BytesPerLaneInFlight uint64
	// SerialPartials is the most partial results one invocation combines
	// in a loop: 0 for a first pass.
	SerialPartials uint64
	// BytesRead and BytesWritten are the bytes of the elements (or
	// partials) in the step's range, each counted once, as vkdml bench
	// counts bytes.
	BytesRead, BytesWritten uint64
	// PartialBytes is the part of BytesRead and BytesWritten that is
	// split-K partials in the temporary resource: what a first pass
	// writes and a combine reads, traffic the operator's own tensors do
	// not show.
	PartialBytes uint64
	// Units is the work the step's kernel covers, in the unit its hot
	// loop is counted per (internal/opcount): Unit names it, "element"
	// (of the input a scan reads), "partial" (a combine reads) or
	// "output" (a pooling kernel writes).
	Units uint64
	Unit  string
	// ExpTerms is the exp terms the step computes (rule 40's exp, one per
	// element of a LOG_SUM_EXP first pass; 0 for FLOAT16's first passes
	// that read the terms from TableExpHalf, the _exptab variants): work
	// the op budget allows for apart from its bytes (internal/opcount's
	// ExpOpsAllowance).
	ExpTerms uint64
}

// The units of DispatchFacts.Unit.
const (
	UnitElement = "element"
	UnitPartial = "partial"
	UnitOutput  = "output"
)

// BytesMoved is the bytes the step reads and writes, partials included.
func (f DispatchFacts) BytesMoved() uint64 { return f.BytesRead + f.BytesWritten }

// BytesInFlight is the bytes the step can have loading at once:
// min(Lanes, resident) × BytesPerLaneInFlight, resident being the lanes
// the device keeps resident (caps.Limits.ResidentLanes; 0 for unknown
// leaves Lanes).
func (f DispatchFacts) BytesInFlight(resident uint64) uint64 {
	lanes := f.Lanes
	if resident > 0 {
		lanes = min(lanes, resident)
	}
	return satMul(lanes, f.BytesPerLaneInFlight)
}

// PlanFacts is DispatchFacts for every step of a plan, and the plan's
// totals.
type PlanFacts struct {
	Dispatches []DispatchFacts
	// Lanes, EmptyLanes, BytesRead, BytesWritten and PartialBytes are the
	// steps' sums; SerialPartials is their maximum.
	Lanes, EmptyLanes, BytesRead, BytesWritten, PartialBytes, SerialPartials uint64
	// Streaming is the index of the step that reads the most bytes (the
	// first of equals): the pass whose bytes in flight decide the plan's
	// bandwidth. BytesInFlight is that step's.
	Streaming     int
	BytesInFlight uint64
}

// Facts computes the facts of every step of p on the device ctx
// describes (its resident lanes bound BytesInFlight). It fails when a
// step's kernel belongs to no family with a facts function, or names a
// specialization constant or push word its family needs that the row
// does not declare.
func Facts(ctx *Context, p *Plan) (*PlanFacts, error) {
	pf := &PlanFacts{}
	resident := ctx.Limits.ResidentLanes()
	for i, st := range p.Steps {
		if st.Kernel < 0 || st.Kernel >= len(p.Kernels) {
			return nil, fmt.Errorf("ops: facts: step %d names kernel %d of %d", i, st.Kernel, len(p.Kernels))
		}
		v, err := newStepValues(p.Kernels[st.Kernel], st)
		if err != nil {
			return nil, fmt.Errorf("ops: facts: step %d: %w", i, err)
		}
		facts, ok := kernelFacts[v.row.Source]
		if !ok {
			return nil, fmt.Errorf("ops: facts: step %d: kernel %s (%s) has no facts function (add one to kernelFacts, in ops/facts_*.go)", i, v.row.Name, v.row.Source)
		}
		f, err := facts(v)
		if err == nil {
			err = v.err
		}
		if err == nil && f.Unit == "" {
			err = fmt.Errorf("its facts function names no unit of work")
		}
		if f.Unit == UnitElement && v.computesExp() {
			f.ExpTerms = f.Units
		}
		if err != nil {
			return nil, fmt.Errorf("ops: facts: step %d (%s): %w", i, v.row.Name, err)
		}
		pf.Dispatches = append(pf.Dispatches, f)
		pf.Lanes += f.Lanes
		pf.EmptyLanes += f.EmptyLanes
		pf.BytesRead += f.BytesRead
		pf.BytesWritten += f.BytesWritten
		pf.PartialBytes += f.PartialBytes
		pf.SerialPartials = max(pf.SerialPartials, f.SerialPartials)
		if f.BytesRead > pf.Dispatches[pf.Streaming].BytesRead {
			pf.Streaming = i
		}
	}
	if len(pf.Dispatches) > 0 {
		pf.BytesInFlight = pf.Dispatches[pf.Streaming].BytesInFlight(resident)
	}
	return pf, nil
}

// kernelFacts is each kernel family's facts function, keyed by the GLSL
// source its variants are compiled from. Each lives in a facts_*.go file
// of its operator; TestEveryVariantHasFacts holds
// every row of shaders.Variants to this table, so a new kernel cannot
// reach a plan without one.
var kernelFacts = map[string]func(v *stepValues) (DispatchFacts, error){
	"argmax.comp":               argScalarFacts,
	"argmax_vec_row.comp":       argVecRowFacts,
	"argmax_vec_col.comp":       argVecColFacts,
	"argmax_col8y.comp":         argCol8YFacts,
	"argmax_combine.comp":       argCombineFacts,
	"argmax_combine_group.comp": argCombineGroupFacts,
	"reduce_fmul.comp":          reduceFmulFacts,
	"reduce_half_col.comp":      argVecColFacts,
	"maxpool.comp":              maxPoolDirectFacts,
	"maxpool_vec.comp":          maxPoolVec2x2Facts,
	"maxpool_grid.comp":         maxPoolGridFacts,
	"maxunpool.comp":            maxUnpoolFacts,
	"copy.comp":                 copyFacts,
	"copy_vec4.comp":            copyVec4Facts,
	"topk_select.comp":          topKSelectFacts,
	"topk_maxima.comp":          topKMaximaFacts,
	"topk_merge.comp":           topKMergeFacts,
	"topk_thresh.comp":          topKSplitFacts,
	"topk_gather.comp":          topKSplitFacts,
	"topk_rank.comp":            topKSplitFacts,
}

// HasFacts reports whether the variant called name belongs to a kernel
// family with a facts function.
func HasFacts(name string) bool {
	v, err := shaders.Lookup(name)
	if err != nil {
		return false
	}
	_, ok := kernelFacts[v.Source]
	return ok
}

// stepValues is one step as its family's facts function reads it: the
// variant's row, its specialization constants and push words by name, and
// its grid.
type stepValues struct {
	row    shaders.Variant
	spec   map[string]uint32
	push   map[string]uint32
	groups [3]uint32
	// subgroup is the kernel's required subgroup size, 0 for any.
	subgroup uint32
	err      error // the first name asked for that the row does not declare
}

func newStepValues(k Kernel, st Step) (*stepValues, error) {
	row, err := shaders.Lookup(k.Variant)
	if err != nil {
		return nil, err
	}
	if len(k.Spec) != len(row.Spec) || len(st.Params) != 4*len(row.Push) {
		return nil, fmt.Errorf("kernel %s has %d specialization constants and %d push bytes; its row declares %d and %d",
			k.Variant, len(k.Spec), len(st.Params), len(row.Spec), 4*len(row.Push))
	}
	v := &stepValues{row: row, spec: map[string]uint32{}, push: map[string]uint32{}, groups: st.Groups, subgroup: k.SubgroupSize}
	for i, n := range row.Spec {
		v.spec[n] = k.Spec[i]
	}
	for i, n := range row.Push {
		v.push[n] = binary.LittleEndian.Uint32(st.Params[4*i:])
	}
	return v, nil
}

// s and p are the specialization constant and the push word called name;
// a name the row does not declare is recorded in v.err and reads 0.
func (v *stepValues) s(name string) uint64 { return v.lookup(v.spec, "specialization constant", name) }
func (v *stepValues) p(name string) uint64 { return v.lookup(v.push, "push word", name) }

func (v *stepValues) lookup(m map[string]uint32, what, name string) uint64 {
	x, ok := m[name]
	if !ok && v.err == nil {
		v.err = fmt.Errorf("its row declares no %s %q", what, name)
	}
	return uint64(x)
}

// define is the value of the variant's define NAME=VALUE, or def when the
// row does not set it (the GLSL source's default).
func (v *stepValues) define(name string, def uint64) uint64 {
	for _, d := range v.row.Defines {
		if k, val, ok := strings.Cut(d, "="); ok && k == name {
			if n, err := strconv.ParseUint(val, 10, 32); err == nil {
				return n
			}
		}
	}
	return def
}

// computesExp reports whether the step's kernel computes an exp term per
// element: a REDUCE float kernel (REDUCE_FLOAT) specialised for
// LOG_SUM_EXP (FLAGS bits 26-29, reduce_part_float.glsl's FFUNC) that does
// not read its terms from ops.TableExpHalf (EXP_TABLE): a table read is no
// exp, and the budget allows it nothing more.
func (v *stepValues) computesExp() bool {
	flags, ok := v.spec["FLAGS"]
	return ok && v.define("REDUCE_FLOAT", 0) == 1 && v.define("EXP_TABLE", 0) == 0 &&
		ReduceFunction(flags>>26&15) == ReduceFunctionLogSumExp
}

// wg is the workgroup size, groups the workgroups and lanes the
// invocations the step launches.
func (v *stepValues) wg() uint64 { return v.s(shaders.SpecWorkgroupSize) }
func (v *stepValues) groupCount() uint64 {
	return uint64(v.groups[0]) * uint64(v.groups[1]) * uint64(v.groups[2])
}
func (v *stepValues) lanes() uint64 { return v.groupCount() * v.wg() }

// gridFacts is the facts of a grid-stride loop over items work items, one
// per invocation and iteration (common.glsl's grid_index, grid_size):
// invocation i works while i < items.
func (v *stepValues) gridFacts(items, bytesPerLane uint64) DispatchFacts {
	lanes := v.lanes()
	return DispatchFacts{Lanes: lanes, EmptyLanes: lanes - min(lanes, items), BytesPerLaneInFlight: bytesPerLane}
}

// factsMaxItems bounds the work items a facts function enumerates one by
// one (workgroups whose lanes depend on each item): more than any plan of
// a valid desc has, so that facts stay instant.
const factsMaxItems = 1 << 26

// workgroupEmpty is the empty lanes of a dispatch whose workgroups take
// items g, g+groups, g+2·groups, ... < items, where active(it) lanes of a
// workgroup touch an element of item it (lanes 0..active-1): a workgroup's
// lane is empty when it is active in none of its items.
func workgroupEmpty(groups, wg, items uint64, active func(it uint64) uint64) (uint64, error) {
	if items > factsMaxItems {
		return 0, fmt.Errorf("%d work items; facts enumerate at most %d", items, factsMaxItems)
	}
	if groups >= items {
		empty := (groups - items) * wg
		for it := range items {
			empty += wg - min(wg, active(it))
		}
		return empty, nil
	}
	most := make([]uint64, groups)
	for it := range items {
		g := it % groups
		most[g] = max(most[g], min(wg, active(it)))
	}
	var empty uint64
	for _, a := range most {
		empty += wg - a
	}
	return empty, nil
}
