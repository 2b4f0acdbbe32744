package ops

import (
	"fmt"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// FeatureLevel is DML_FEATURE_LEVEL.
type FeatureLevel uint32

// DirectML's feature levels.
const (
	FeatureLevel1_0 FeatureLevel = 0x1000
	FeatureLevel2_0 FeatureLevel = 0x2000
	FeatureLevel2_1 FeatureLevel = 0x2100
	FeatureLevel3_0 FeatureLevel = 0x3000
	FeatureLevel3_1 FeatureLevel = 0x3100
	FeatureLevel4_0 FeatureLevel = 0x4000
	FeatureLevel4_1 FeatureLevel = 0x4100
	FeatureLevel5_0 FeatureLevel = 0x5000
	FeatureLevel5_1 FeatureLevel = 0x5100
	FeatureLevel5_2 FeatureLevel = 0x5200
	FeatureLevel6_0 FeatureLevel = 0x6000
	FeatureLevel6_1 FeatureLevel = 0x6100
	FeatureLevel6_2 FeatureLevel = 0x6200
	FeatureLevel6_3 FeatureLevel = 0x6300
	FeatureLevel6_4 FeatureLevel = 0x6400
)

// FeatureLevels lists every defined level, lowest first.
var FeatureLevels = []FeatureLevel{
	FeatureLevel1_0, FeatureLevel2_0, FeatureLevel2_1, FeatureLevel3_0, FeatureLevel3_1,
	FeatureLevel4_0, FeatureLevel4_1, FeatureLevel5_0, FeatureLevel5_1, FeatureLevel5_2,
	FeatureLevel6_0, FeatureLevel6_1, FeatureLevel6_2, FeatureLevel6_3, FeatureLevel6_4,
}

// Valid reports whether l is a defined level.
func (l FeatureLevel) Valid() bool {
	for _, x := range FeatureLevels {
		if l == x {
			return true
		}
	}
	return false
}

// String is the level as DirectML writes it, e.g. "6_4".
func (l FeatureLevel) String() string { return fmt.Sprintf("%d_%d", l>>12, (l>>8)&0xf) }

// Context is what validation and planning may depend on: the device's
// feature level and capabilities (package caps, filled by gpu), and the
// caller's strategy and binding-window choices.
type Context struct {
	FeatureLevel FeatureLevel
	Features     caps.Features
	Limits       caps.Limits
	// DeviceType lets planners tune for the device's cost model: on a CPU
	// device (lavapipe) per-workgroup overhead dominates and long
	// per-invocation loops are cheap, the reverse of a GPU.
	DeviceType caps.DeviceType
	// Kernel, when not empty, forces a kernel strategy by name (for
	// benchmarks comparing variants); a planner that does not know the name
	// returns an error.
	Kernel string
	// BindingWindowCap, when not 0, caps the bytes one binding of a step
	// may cover below the device's maxStorageBufferRange, so that planners
	// cut small tensors into windowed steps as they cut big ones (set
	// through dml.DeviceOptions.BindingWindowCap, for tests).
	BindingWindowCap uint64
	// Tuning overrides knobs of the device class's tuning (VKDML_TUNING,
	// `vkdml bench --tune`); planners read the result through
	// ctx.tuning().
	Tuning Tuning `json:",omitempty"`
}

// Desc is an operator description, DML_*_OPERATOR_DESC.
type Desc interface {
	// OperatorType is DirectML's name without the prefix, e.g. "ARGMAX".
	OperatorType() string
	// Validate checks every rule DirectML documents and semantics.md pins,
	// returning an *hresult.Error naming the field and the rule.
	Validate(ctx *Context) error
	// Inputs and Outputs list the tensors in binding order; an absent
	// optional tensor is nil.
	Inputs() []*tensor.Desc
	Outputs() []*tensor.Desc
	// Plan chooses the kernels and steps. It is called after Validate.
	Plan(ctx *Context) (*Plan, error)
	// Reference computes the outputs on the CPU, following the rules
	// literally: the oracle the GPU results are tested against. It writes
	// only the elements the output descs address.
	Reference(inputs, outputs []*tensor.Tensor) error
}

// Linter is implemented by descs that are legal but may not mean what the
// caller intended; with the debug flag on, the device reports the messages
// (as DirectML's debug layer would) without failing the call.
type Linter interface {
	Lint() []string
}

// Kernel names a compiled variant and its pipeline parameters. Planners
// make it with kernelOf, which takes Bindings and ParamBytes from the
// variant's row and Spec from values filled by name.
type Kernel struct {
	Variant       string   // a name in shaders.Variants
	Bindings      int      // buffers: storage buffers but for TexelBindings
	TexelBindings []int    // uniform texel buffers (shaders.Variant.TexelBindings)
	ParamBytes    uint32   // push-constant bytes after the base offsets
	Spec          []uint32 // specialization constants in the row's order (shaders.Variant.Spec); Spec[0] is the workgroup size
	SubgroupSize  uint32   // required subgroup size, 0 for any
	FullSubgroups bool
}

// kernelOf is the kernel of the variant whose specialization constants
// spec fills by name: its bindings and push-constant bytes are those the
// variant's row declares, its Spec the values in the row's order. It
// fails when spec names a constant the row does not declare or leaves one
// unset.
func kernelOf(spec *shaders.Values) (Kernel, error) {
	words, err := spec.Words()
	if err != nil {
		return Kernel{}, fmt.Errorf("ops: kernel %s: %w", spec.Variant(), err)
	}
	v, err := shaders.Lookup(spec.Variant())
	if err != nil {
		return Kernel{}, fmt.Errorf("ops: kernel %s: %w", spec.Variant(), err)
	}
	return Kernel{Variant: v.Name, Bindings: v.Bindings, TexelBindings: v.TexelBindings, ParamBytes: v.ParamBytes(), Spec: words}, nil
}

// pushBytes is a step's push-constant parameters, filled by name
// (shaders.NewPush): an error when push names a word the row does not
// declare or leaves one unset.
func pushBytes(push *shaders.Values) ([]byte, error) {
	b, err := push.Bytes()
	if err != nil {
		return nil, fmt.Errorf("ops: step of kernel %s: %w", push.Variant(), err)
	}
	return b, nil
}

// SlotKind says which bound resource a step's binding refers to.
type SlotKind int

// The resources a step can bind.
const (
	SlotInput      SlotKind = iota // an input tensor (Slot.Index in Desc.Inputs)
	SlotOutput                     // an output tensor (Slot.Index in Desc.Outputs)
	SlotTemporary                  // the temporary resource (Plan.TemporarySize)
	SlotPersistent                 // the persistent resource (Plan.PersistentSize)
	SlotTable                      // a device's read-only table (Slot.Index a Table; Plan.Tables)
)

// String is the kind in lower case, e.g. "input".
func (k SlotKind) String() string {
	return [...]string{"input", "output", "temporary", "persistent", "table"}[k]
}

// Slot is a byte window of a bound resource: Offset and Size are relative to
// the start of the binding; Size 0 means to the end of the tensor
// (TotalTensorSizeInBytes) or resource.
type Slot struct {
	Kind   SlotKind
	Index  int
	Offset uint64
	Size   uint64
}

// In is the whole-tensor slot of input i.
func In(i int) Slot { return Slot{Kind: SlotInput, Index: i} }

// Out is the whole-tensor slot of output i.
func Out(i int) Slot { return Slot{Kind: SlotOutput, Index: i} }

// Step is one dispatch.
type Step struct {
	Kernel   int // index into Plan.Kernels
	Bindings []Slot
	Params   []byte // push-constant words after the base offsets, little-endian (pushBytes)
	Groups   [3]uint32
	// Barrier asks for a barrier before this step, because it reads what an
	// earlier step of the same plan wrote.
	Barrier bool
	// Indirect, where set, takes the step's group counts from the device
	// when it runs: three words (x, y, z) at this 12-byte window of the
	// temporary resource, at a multiple of 16 bytes, that an earlier step
	// writes (Barrier is then required). Groups is then the most its
	// writer puts there, which CheckPlan holds to the device's limits. A
	// count of 0 runs nothing: a step that only some rows need (TOP_K's
	// split select's fallbacks) costs no workgroup where none does.
	Indirect *Slot
}

// Plan is how an operator runs on a device.
type Plan struct {
	Strategy       string // for bench output: which kernel shape was chosen
	Kernels        []Kernel
	Steps          []Step
	TemporarySize  uint64
	PersistentSize uint64
}

// ValidateTensor checks one tensor: DirectML's descriptor rules, its rank
// against [minRank,maxRank], and for outputs the no-aliasing rule.
func ValidateTensor(field string, d *tensor.Desc, minRank, maxRank int, output bool) error {
	if d == nil {
		return hresult.InvalidArg(field, "tensor is required")
	}
	var err error
	if output {
		err = d.ValidateOutput()
	} else {
		err = d.Validate()
	}
	if err != nil {
		return hresult.WithField(field, err)
	}
	if r := d.Rank(); r < minRank || r > maxRank {
		return hresult.InvalidArg(field+".DimensionCount", "%d is not in [%d,%d]", r, minRank, maxRank)
	}
	if output && d.Flags&tensor.FlagOwnedByDML != 0 {
		return hresult.InvalidArg(field+".Flags", "DML_TENSOR_FLAG_OWNED_BY_DML is allowed on inputs only")
	}
	return nil
}

// CheckType returns an error unless dt is one of allowed.
func CheckType(field string, dt tensor.DataType, allowed []tensor.DataType) error {
	for _, a := range allowed {
		if dt == a {
			return nil
		}
	}
	return hresult.InvalidArg(field+".DataType", "%v is not supported here (supported: %v)", dt, allowed)
}

// requireLevel fails, as DirectML does, when ctx's feature level (0: no
// limit) is below level, the one operator type op was introduced at.
func requireLevel(ctx *Context, op string, level FeatureLevel) error {
	if ctx.FeatureLevel != 0 && ctx.FeatureLevel < level {
		return hresult.Unsupported("", "DML_OPERATOR_%s needs feature level %v; the device is at %v", op, level, ctx.FeatureLevel)
	}
	return nil
}

// checkValueTypes applies the type rules of an operator whose output holds
// input values (the poolings): the input's type is one of the values that
// types gives for ctx's feature level (the newest level when ctx sets
// none), and the output's type is the input's. It returns the level's
// index types.
func checkValueTypes(ctx *Context, in, out *tensor.Desc, types func(FeatureLevel) (values, indices []tensor.DataType)) ([]tensor.DataType, error) {
	level := ctx.FeatureLevel
	if level == 0 {
		level = FeatureLevels[len(FeatureLevels)-1]
	}
	values, indices := types(level)
	if err := CheckType("InputTensor", in.DataType, values); err != nil {
		return nil, err
	}
	return indices, checkSameType(in, out)
}

// checkSameType fails unless the output's data type is the input's.
func checkSameType(in, out *tensor.Desc) error {
	if out.DataType != in.DataType {
		return hresult.InvalidArg("OutputTensor.DataType", "%v must equal InputTensor.DataType %v", out.DataType, in.DataType)
	}
	return nil
}

// GridGroups returns a dispatch size for n work items of wg invocations
// each, for kernels with grid-stride loops: the x count is capped at 65535
// and y rounded up, so that the loop, not the dispatch, covers the rest.
// It is lavapipe's grid (tuning.exactGrid false); gridFor picks the grid
// of a context's device class.
func GridGroups(n uint64, wg uint32, lim caps.Limits) [3]uint32 {
	const maxGroups = 65535
	g := (n + uint64(wg) - 1) / uint64(wg)
	if g == 0 {
		g = 1
	}
	capX := uint64(min(lim.MaxComputeWorkGroupCount[0], maxGroups))
	if g <= capX {
		return [3]uint32{uint32(g), 1, 1}
	}
	y := (g + capX - 1) / capX
	y = min(y, uint64(min(lim.MaxComputeWorkGroupCount[1], maxGroups)))
	return [3]uint32{uint32(capX), uint32(y), 1}
}

// ExactGrid is a dispatch size for n work items of wg invocations each
// with no workgroup past the last partial one: x up to the device's
// maxComputeWorkGroupCount[0] (2^31-1 on most discrete GPUs), and only
// beyond it y rows of x = ceil(groups / y), which leaves fewer than y
// workgroups empty. Past x·y's limits the grid-stride loops cover the
// rest; so does it past 2^32-1 invocations, which grid_size() could not
// count in 32 bits.
func ExactGrid(n uint64, wg uint32, lim caps.Limits) [3]uint32 {
	g := min(max((n+uint64(wg)-1)/uint64(wg), 1), (1<<32-1)/uint64(max(wg, 1)))
	capX := uint64(max(lim.MaxComputeWorkGroupCount[0], 1))
	if g <= capX {
		return [3]uint32{uint32(g), 1, 1}
	}
	y := min((g+capX-1)/capX, uint64(max(lim.MaxComputeWorkGroupCount[1], 1)))
	x := min((g+y-1)/y, capX)
	return [3]uint32{uint32(x), uint32(y), 1}
}

// computeUnits is the device's compute units, or where it reports none
// the device class's guess (tuning.computeUnits).
func computeUnits(ctx *Context) uint64 {
	if n := ctx.Limits.ComputeUnits; n > 0 {
		return uint64(n)
	}
	return max(ctx.tuning().computeUnits, 1)
}

// gridFor is the dispatch size for n work items of wg invocations on ctx's
// device class: ExactGrid on GPUs, GridGroups on lavapipe (whose plans keep
// the grids they were measured with).
func gridFor(ctx *Context, n uint64, wg uint32) [3]uint32 {
	if ctx.tuning().exactGrid {
		return ExactGrid(n, wg, ctx.Limits)
	}
	return GridGroups(n, wg, ctx.Limits)
}
