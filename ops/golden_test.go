package ops_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// The golden plans guard the planners' refactoring: a fixed corpus of descs
// (the parity corpus, the fuzz seeds and a few large shapes), each planned
// on a few device contexts, dumped as text (variants, specialization
// constants and push words as name=value, steps, byte windows) and
// compared with the committed dump. A
// changed plan must be intended; regenerate with
//
//	go test ./ops -run TestGoldenPlans -update
//
// and say in the commit why the plans changed. -golden.corpus rebuilds the
// frozen corpus itself from its sources (it then no longer follows changes
// to the fuzz decoder or the parity corpus unless rebuilt).
var (
	updateGolden = flag.Bool("update", false, "rewrite testdata/golden/plans.txt")
	rebuildCases = flag.Bool("golden.corpus", false, "rebuild testdata/golden/cases.json from the parity corpus, the fuzz seeds and the large shapes")
)

const (
	goldenCases = "testdata/golden/cases.json"
	goldenPlans = "testdata/golden/plans.txt"
)

// goldenCase is one desc and the contexts it is planned on: named ones
// (goldenContexts) or its own (a fuzz seed's).
type goldenCase struct {
	Name     string          `json:"name"`
	Op       string          `json:"op"`
	Desc     json.RawMessage `json:"desc"`
	Contexts []string        `json:"contexts,omitempty"`
	Kernels  []string        `json:"kernels,omitempty"` // forced on "lvp8"
	Context  *ops.Context    `json:"context,omitempty"`
}

// goldenContexts are the named devices: lavapipe at subgroup size 8, a
// device with no optional feature at subgroup size 4, a discrete GPU with
// subgroups of 32 and 4 GiB bindings, and lavapipe with 4 KiB bindings
// (windowed plans on small tensors).
func goldenContexts() map[string]*ops.Context {
	lvp := descfuzz.Lavapipe()
	min4 := descfuzz.Lavapipe()
	min4.Features = caps.Features{}
	min4.Limits.SubgroupSize, min4.Limits.MinSubgroupSize, min4.Limits.MaxSubgroupSize = 4, 4, 4
	dgpu := descfuzz.Lavapipe()
	dgpu.DeviceType = caps.DeviceTypeDiscreteGPU
	dgpu.Limits.SubgroupSize, dgpu.Limits.MinSubgroupSize, dgpu.Limits.MaxSubgroupSize = 32, 32, 64
	dgpu.Limits.MaxStorageBufferRange = 1<<32 - 1
	dgpu.Limits.MinStorageBufferOffsetAlignment = 64
	dgpu.Limits.MaxComputeWorkGroupCount = [3]uint32{1<<31 - 1, 65535, 65535}
	win := descfuzz.Lavapipe()
	win.Limits.MaxStorageBufferRange = 4096
	return map[string]*ops.Context{"lvp8": lvp, "min4": min4, "gpu32": dgpu, "win4k": win}
}

// readGoldenCases reads the frozen corpus.
func readGoldenCases(t *testing.T) []goldenCase {
	t.Helper()
	raw, err := os.ReadFile(goldenCases)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// desc is c's desc, decoded.
func (c goldenCase) desc(t *testing.T) ops.Desc {
	t.Helper()
	desc, err := newDesc(c.Op)
	if err == nil {
		err = json.Unmarshal(c.Desc, desc)
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	return desc
}

func newDesc(op string) (ops.Desc, error) {
	if o, ok := ops.LookupOperator(op); ok {
		return o.New(), nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}

// TestGoldenPlans plans the corpus, checks every plan with ops.CheckPlan
// and compares the dump with the committed one.
func TestGoldenPlans(t *testing.T) {
	if *rebuildCases {
		cases, err := buildGoldenCases()
		if err != nil {
			t.Fatal(err)
		}
		// One case a line, so that a diff of the corpus reads by case.
		b := []byte("[\n")
		for i, c := range cases {
			line, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, line...)
			if i < len(cases)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		if err := os.WriteFile(goldenCases, append(b, "]\n"...), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	cases := readGoldenCases(t)
	var out bytes.Buffer
	named := goldenContexts()
	for _, c := range cases {
		desc := c.desc(t)
		check := func(name string, err error) {
			if err != nil {
				t.Errorf("%s: CheckPlan: %v", name, err)
			}
		}
		if c.Context != nil {
			check(c.Name, dumpPlan(&out, c.Name, c.Context, desc))
		}
		for _, n := range c.Contexts {
			check(c.Name+"@"+n, dumpPlan(&out, c.Name+"@"+n, named[n], desc))
		}
		for _, k := range c.Kernels {
			ctx := *named["lvp8"]
			ctx.Kernel = k
			check(c.Name+"@lvp8/"+k, dumpPlan(&out, c.Name+"@lvp8/"+k, &ctx, desc))
		}
	}
	if *updateGolden {
		if err := os.WriteFile(goldenPlans, out.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPlans)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		t.Errorf("plans differ from %s (%d cases); first differences:\n%s\nIf the change is intended, run go test ./ops -run TestGoldenPlans -update and explain it in the commit.",
			goldenPlans, len(cases), firstDiffs(string(want), out.String(), 10))
	}
}

// indirectStep appends to p a copy of its first step, dispatched
// indirectly from args (after a barrier where barrier), and gives p a
// 64-byte temporary resource.
func indirectStep(p *ops.Plan, args ops.Slot, barrier bool) {
	s := p.Steps[0]
	s.Indirect, s.Barrier = &args, barrier
	p.Steps = append(p.Steps, s)
	p.TemporarySize = 64
}

// TestCheckPlanRefuses breaks a good plan one rule at a time: CheckPlan
// must refuse each with E_FAIL wrapping ErrBadPlan and say what broke.
func TestCheckPlanRefuses(t *testing.T) {
	ctx := descfuzz.Lavapipe()
	desc := &ops.ArgMax{Input: tensor.NewDesc(tensor.Float32, []uint32{4, 4096}), Output: tensor.NewDesc(tensor.UInt32, []uint32{4, 1}), Axes: []uint32{1}}
	good := func() *ops.Plan {
		p, err := desc.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := ops.CheckPlan(ctx, desc, p); err != nil {
			t.Fatalf("the good plan: %v", err)
		}
		return p
	}
	cases := []struct {
		name, want string
		ctx        func(c *ops.Context)
		edit       func(p *ops.Plan)
	}{
		{"unknown variant", "no such variant", nil, func(p *ops.Plan) { p.Kernels[0].Variant = "argmax_nope" }},
		{"param bytes", "push", nil, func(p *ops.Plan) { p.Kernels[0].ParamBytes += 4 }},
		{"spec count", "specialization", nil, func(p *ops.Plan) { p.Kernels[0].Spec = p.Kernels[0].Spec[:3] }},
		{"workgroup 0", "workgroup size", nil, func(p *ops.Plan) { p.Kernels[0].Spec[0] = 0 }},
		{"capability", "subgroup arithmetic", func(c *ops.Context) { c.Features.SubgroupArithmetic = false }, nil},
		{"step params", "parameter bytes", nil, func(p *ops.Plan) { p.Steps[0].Params = p.Steps[0].Params[:4] }},
		{"step kernel", "kernel 7", nil, func(p *ops.Plan) { p.Steps[0].Kernel = 7 }},
		{"groups 0", "groups", nil, func(p *ops.Plan) { p.Steps[0].Groups[1] = 0 }},
		{"window outside", "inside", nil, func(p *ops.Plan) { p.Steps[0].Bindings[0].Offset = 65536; p.Steps[0].Bindings[0].Size = 4 }},
		{"window unaligned", "word-aligned", nil, func(p *ops.Plan) { p.Steps[0].Bindings[0].Offset = 2 }},
		{"over the range", "binding range", func(c *ops.Context) { c.BindingWindowCap = 1024 }, nil},
		{"no temporary", "no temporary", nil, func(p *ops.Plan) { p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTemporary} }},
		{"no table", "no table 7", nil, func(p *ops.Plan) { p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTable, Index: 7} }},
		{"table window outside", "bound whole", nil, func(p *ops.Plan) {
			p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTable, Index: int(ops.TableExpHalf), Offset: ops.TableExpHalfBytes}
			p.Steps[0].Bindings[1].Size = 4
		}},
		{"table offset", "bound whole", nil, func(p *ops.Plan) {
			p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTable, Index: int(ops.TableExpHalf), Offset: 256}
		}},
		{"table part", "bound whole", nil, func(p *ops.Plan) {
			p.Steps[0].Bindings[1] = ops.Slot{Kind: ops.SlotTable, Index: int(ops.TableExpHalf), Size: ops.TableExpHalfBytes / 2}
		}},
		{"no steps", "no step", nil, func(p *ops.Plan) { p.Steps = nil }},
		{"indirect first", "step 0 is indirect", nil, func(p *ops.Plan) {
			p.TemporarySize = 64
			p.Steps[0].Indirect = &ops.Slot{Kind: ops.SlotTemporary, Size: 12}
		}},
		{"indirect without barrier", "without a barrier", nil, func(p *ops.Plan) { indirectStep(p, ops.Slot{Kind: ops.SlotTemporary, Offset: 16, Size: 12}, false) }},
		{"indirect unaligned", "multiple of 16", nil, func(p *ops.Plan) { indirectStep(p, ops.Slot{Kind: ops.SlotTemporary, Offset: 4, Size: 12}, true) }},
		{"indirect outside", "inside the 64-byte", nil, func(p *ops.Plan) { indirectStep(p, ops.Slot{Kind: ops.SlotTemporary, Offset: 64, Size: 12}, true) }},
		{"indirect size", "not 12 bytes", nil, func(p *ops.Plan) { indirectStep(p, ops.Slot{Kind: ops.SlotTemporary, Offset: 16, Size: 16}, true) }},
		{"indirect in an input", "not 12 bytes", nil, func(p *ops.Plan) { indirectStep(p, ops.Slot{Kind: ops.SlotInput, Offset: 16, Size: 12}, true) }},
	}
	// The good plan with an indirect second step whose arguments are in a
	// 64-byte temporary resource: CheckPlan takes it.
	if p := good(); true {
		indirectStep(p, ops.Slot{Kind: ops.SlotTemporary, Offset: 48, Size: 12}, true)
		if err := ops.CheckPlan(ctx, desc, p); err != nil {
			t.Errorf("a good indirect step: %v", err)
		}
	}
	for _, c := range cases {
		p := good()
		cctx := *ctx
		if c.ctx != nil {
			c.ctx(&cctx)
		}
		if c.edit != nil {
			c.edit(p)
		}
		err := ops.CheckPlan(&cctx, desc, p)
		var he *hresult.Error
		if !errors.Is(err, ops.ErrBadPlan) || !errors.As(err, &he) || he.Code != hresult.E_FAIL || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want E_FAIL wrapping ErrBadPlan mentioning %q", c.name, err, c.want)
		}
	}
}

// firstDiffs lists up to n differing plans, by case.
func firstDiffs(want, got string, n int) string {
	split := func(s string) map[string]string {
		m := map[string]string{}
		for _, blk := range strings.Split(s, "\n== ") {
			name, _, _ := strings.Cut(blk, "\n")
			m[strings.TrimPrefix(name, "== ")] = blk
		}
		return m
	}
	w, g := split(want), split(got)
	var b strings.Builder
	for _, blk := range strings.Split(got, "\n== ") {
		name, _, _ := strings.Cut(blk, "\n")
		name = strings.TrimPrefix(name, "== ")
		if w[name] != g[name] && n > 0 {
			n--
			fmt.Fprintf(&b, "--- want\n%s\n+++ got\n%s\n", w[name], g[name])
		}
	}
	for name := range w {
		if _, ok := g[name]; !ok && n > 0 {
			n--
			fmt.Fprintf(&b, "--- missing case %s\n", name)
		}
	}
	return b.String()
}

// goldenStepsShown is how many steps a dump lists; the rest are hashed.
const goldenStepsShown = 12

// dumpPlan validates and plans desc on ctx, writes the plan (or the error)
// to w, and returns what ops.CheckPlan says of the plan. Specialization
// constants and push words are written name=value, with the names of the
// kernel's variant row, so that a diff shows which constant or word moved
// (a swap reads as two names changing values).
func dumpPlan(w *bytes.Buffer, name string, ctx *ops.Context, desc ops.Desc) error {
	fmt.Fprintf(w, "== %s %s\n", name, desc.OperatorType())
	if err := desc.Validate(ctx); err != nil {
		fmt.Fprintf(w, "invalid: %v\n", err)
		return nil
	}
	p, err := desc.Plan(ctx)
	if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
		return nil
	}
	fmt.Fprintf(w, "plan %s temp=%d persistent=%d steps=%d\n", p.Strategy, p.TemporarySize, p.PersistentSize, len(p.Steps))
	rows := make([]shaders.Variant, len(p.Kernels))
	for i, k := range p.Kernels {
		rows[i], _ = shaders.Lookup(k.Variant) // an unknown variant's values print bare; CheckPlan reports it
		fmt.Fprintf(w, "  k%d %s bind=%d params=%d spec=[%s] sg=%d full=%v\n", i, k.Variant, k.Bindings, k.ParamBytes,
			namedValues(rows[i].Spec, k.Spec, " "), k.SubgroupSize, k.FullSubgroups)
	}
	h := sha256.New()
	for i, s := range p.Steps {
		// The hidden steps are hashed without the names, which the kernel
		// lines and the shown steps already fix.
		var names []string
		if i < goldenStepsShown && s.Kernel >= 0 && s.Kernel < len(rows) {
			names = rows[s.Kernel].Push
		}
		line := dumpStep(i, s, names)
		if i < goldenStepsShown {
			w.WriteString(line + "\n")
		} else {
			h.Write([]byte(line + "\n"))
		}
	}
	if len(p.Steps) > goldenStepsShown {
		fmt.Fprintf(w, "  ... %d more steps, sha256 %x\n", len(p.Steps)-goldenStepsShown, h.Sum(nil)[:12])
	}
	return ops.CheckPlan(ctx, desc, p)
}

// dumpStep is one step's line: its kernel, dispatch, bindings and push
// words, name=value when names is not nil.
func dumpStep(i int, s ops.Step, names []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  s%d k%d g=%v bar=%v", i, s.Kernel, s.Groups, s.Barrier)
	for _, sl := range s.Bindings {
		fmt.Fprintf(&b, " %s%d[%d,+%d]", sl.Kind, sl.Index, sl.Offset, sl.Size)
	}
	words := make([]uint32, len(s.Params)/4)
	for j := range words {
		words[j] = binary.LittleEndian.Uint32(s.Params[4*j:])
	}
	b.WriteString(" p=" + namedValues(names, words, ","))
	if len(s.Params)%4 != 0 {
		fmt.Fprintf(&b, "+%x", s.Params[len(s.Params)&^3:])
	}
	return b.String()
}

// namedValues joins values with sep, each as name=value with its name
// from names (? past its end), or bare when names is nil.
func namedValues(names []string, values []uint32, sep string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteString(sep)
		}
		if names != nil {
			n := "?"
			if i < len(names) {
				n = names[i]
			}
			b.WriteString(n + "=")
		}
		b.WriteString(strconv.FormatUint(uint64(v), 10))
	}
	return b.String()
}

// buildGoldenCases assembles the corpus: every parity case on the four
// named contexts (and each forced strategy on lavapipe), every fuzz seed on
// its own context, and the large shapes.
func buildGoldenCases() ([]goldenCase, error) {
	var cases []goldenCase
	pc, err := parityCases("../tests/parity/corpus.json")
	if err != nil {
		return nil, err
	}
	cases = append(cases, pc...)
	seeds := append([][]byte(nil), descfuzz.Seeds...)
	_, committed, err := descfuzz.ReadCorpus("../tests/testdata/fuzz/FuzzOperatorDesc")
	if err != nil {
		return nil, err
	}
	seeds = append(seeds, committed...)
	for i, b := range seeds {
		ctx, desc, _ := descfuzz.Decode(b)
		if desc == nil { // a kind number no desc has yet
			continue
		}
		raw, err := json.Marshal(desc)
		if err != nil {
			return nil, err
		}
		cases = append(cases, goldenCase{Name: fmt.Sprintf("fuzz/%d", i), Op: desc.OperatorType(), Desc: raw, Context: ctx})
	}
	for _, l := range largeCases() {
		raw, err := json.Marshal(l.desc)
		if err != nil {
			return nil, err
		}
		cases = append(cases, goldenCase{Name: "large/" + l.name, Op: l.desc.OperatorType(), Desc: raw,
			Contexts: []string{"lvp8", "min4", "gpu32"}, Kernels: strategiesOf(l.desc)})
	}
	return cases, nil
}

func strategiesOf(d ops.Desc) []string {
	switch d.(type) {
	case *ops.MaxPooling, *ops.MaxPooling1, *ops.MaxPooling2:
		return []string{"direct", "split", ops.MaxPoolStrategyVec2x2}
	case *ops.ArgMax, *ops.ArgMin, *ops.Reduce:
		return append(append([]string(nil), ops.ArgStrategies...), ops.ArgStrategyVec)
	}
	o, _ := ops.OperatorOf(d)
	return o.Strategies
}

// parityTensor and parityCase are the parts of parity's corpus format
// (parity/corpus.go) the golden corpus reads.
type parityTensor struct {
	DataType               string   `json:"dataType"`
	Sizes                  []uint32 `json:"sizes"`
	Strides                []uint32 `json:"strides"`
	TotalTensorSizeInBytes uint64   `json:"totalTensorSizeInBytes"`
}

type parityCase struct {
	Name           string        `json:"name"`
	Operator       string        `json:"operator"`
	Input          parityTensor  `json:"input"`
	Indices        *parityTensor `json:"indices"`
	Output         parityTensor  `json:"output"`
	OutputIndices  *parityTensor `json:"outputIndices"`
	Axes           []uint32      `json:"axes"`
	AxisDirection  string        `json:"axisDirection"`
	ReduceFunction string        `json:"reduceFunction"`
	Strides        []uint32      `json:"strides"`
	WindowSize     []uint32      `json:"windowSize"`
	StartPadding   []uint32      `json:"startPadding"`
	EndPadding     []uint32      `json:"endPadding"`
	Dilations      []uint32      `json:"dilations"`
	Axis           uint32        `json:"axis"`
	K              uint32        `json:"k"`
}

func (t *parityTensor) desc() (tensor.Desc, error) {
	dt, err := tensor.ParseDataType(t.DataType)
	return tensor.Desc{DataType: dt, Sizes: t.Sizes, Strides: t.Strides, TotalTensorSizeInBytes: t.TotalTensorSizeInBytes}, err
}

func parityCases(path string) ([]goldenCase, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var corpus struct{ Cases []parityCase }
	if err := json.Unmarshal(raw, &corpus); err != nil {
		return nil, err
	}
	var out []goldenCase
	for _, c := range corpus.Cases {
		desc, err := c.desc()
		if err != nil {
			return nil, fmt.Errorf("parity case %s: %v", c.Name, err)
		}
		raw, err := json.Marshal(desc)
		if err != nil {
			return nil, err
		}
		out = append(out, goldenCase{Name: "parity/" + c.Name, Op: c.Operator, Desc: raw,
			Contexts: []string{"lvp8", "min4", "gpu32", "win4k"}, Kernels: strategiesOf(desc)})
	}
	return out, nil
}

func (c *parityCase) desc() (ops.Desc, error) {
	in, err := c.Input.desc()
	if err != nil {
		return nil, err
	}
	out, err := c.Output.desc()
	if err != nil {
		return nil, err
	}
	var idx *tensor.Desc
	if c.OutputIndices != nil {
		d, err := c.OutputIndices.desc()
		if err != nil {
			return nil, err
		}
		idx = &d
	}
	dir := ops.AxisDirectionIncreasing
	switch c.AxisDirection {
	case "", "INCREASING":
	case "DECREASING":
		dir = ops.AxisDirectionDecreasing
	default:
		v, err := strconv.ParseUint(c.AxisDirection, 0, 32)
		if err != nil {
			return nil, err
		}
		dir = ops.AxisDirection(v)
	}
	switch c.Operator {
	case "ARGMAX":
		return &ops.ArgMax{Input: in, Output: out, Axes: c.Axes, AxisDirection: dir}, nil
	case "ARGMIN":
		return &ops.ArgMin{Input: in, Output: out, Axes: c.Axes, AxisDirection: dir}, nil
	case "REDUCE":
		f := ops.ReduceFunctionArgMax
		if c.ReduceFunction == "ARGMIN" {
			f = ops.ReduceFunctionArgMin
		}
		return &ops.Reduce{Function: f, Input: in, Output: out, Axes: c.Axes}, nil
	case "MAX_POOLING":
		return &ops.MaxPooling{Input: in, Output: out, Strides: c.Strides, WindowSize: c.WindowSize, StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	case "MAX_POOLING1":
		return &ops.MaxPooling1{Input: in, Output: out, OutputIndices: idx, Strides: c.Strides, WindowSize: c.WindowSize, StartPadding: c.StartPadding, EndPadding: c.EndPadding}, nil
	case "MAX_POOLING2":
		return &ops.MaxPooling2{Input: in, Output: out, OutputIndices: idx, Strides: c.Strides, WindowSize: c.WindowSize, StartPadding: c.StartPadding, EndPadding: c.EndPadding, Dilations: c.Dilations}, nil
	case "TOP_K", "TOP_K1":
		if idx == nil {
			return nil, fmt.Errorf("%s case %s without output indices", c.Operator, c.Name)
		}
		if c.Operator == "TOP_K" {
			return &ops.TopK{Input: in, OutputValue: out, OutputIndex: *idx, Axis: c.Axis, K: c.K}, nil
		}
		return &ops.TopK1{Input: in, OutputValue: out, OutputIndex: *idx, Axis: c.Axis, K: c.K, AxisDirection: dir}, nil
	case "MAX_UNPOOLING":
		if c.Indices == nil {
			return nil, fmt.Errorf("MAX_UNPOOLING case %s without indices", c.Name)
		}
		ind, err := c.Indices.desc()
		if err != nil {
			return nil, err
		}
		return &ops.MaxUnpooling{Input: in, Indices: ind, Output: out}, nil
	}
	return nil, fmt.Errorf("unknown operator %q", c.Operator)
}

type largeCase struct {
	name string
	desc ops.Desc
}

// largeCases are shapes the parity corpus is too small for: windowed
// bindings, split-K, long blocks, big batches, 64-bit types.
func largeCases() []largeCase {
	nd := tensor.NewDesc
	sd := tensor.NewStridedDesc
	f32, u32, i64, u64 := tensor.Float32, tensor.UInt32, tensor.Int64, tensor.UInt64
	arg := func(in, out tensor.Desc, axes ...uint32) *ops.ArgMax {
		return &ops.ArgMax{Input: in, Output: out, Axes: axes}
	}
	idx := func(dt tensor.DataType, s ...uint32) *tensor.Desc { d := nd(dt, s); return &d }
	return []largeCase{
		{"argmax_4096x16384_axis0", arg(nd(f32, []uint32{4096, 16384}), nd(u32, []uint32{1, 16384}), 0)},
		{"argmax_4096x16384_axis1", arg(nd(f32, []uint32{4096, 16384}), nd(i64, []uint32{4096, 1}), 1)},
		{"argmax_64M", arg(nd(f32, []uint32{1 << 26}), nd(u32, []uint32{1}), 0)},
		{"argmin_int64_3x1M_axis1", &ops.ArgMin{Input: nd(i64, []uint32{3, 1 << 20, 5}), Output: nd(u64, []uint32{3, 1, 5}), Axes: []uint32{1}, AxisDirection: ops.AxisDirectionDecreasing}},
		{"argmax_u8_2G_reduce_all", arg(nd(tensor.UInt8, []uint32{1 << 15, 1 << 16}), nd(u32, []uint32{1, 1}), 0, 1)},
		{"argmax_strided_transposed", arg(sd(f32, []uint32{2048, 8192}, []uint32{1, 2048}), nd(u32, []uint32{2048, 1}), 1)},
		{"argmax_broadcast_rows", arg(sd(tensor.Float16, []uint32{1 << 20, 64}, []uint32{0, 1}), nd(u32, []uint32{1 << 20, 1}), 1)},
		{"reduce_f32_2x3x4096x4096", &ops.Reduce{Function: ops.ReduceFunctionArgMin, Input: nd(f32, []uint32{2, 3, 4096, 4096}), Output: nd(u32, []uint32{2, 1, 4096, 1}), Axes: []uint32{1, 3}}},
		// REDUCE's exact float sums: the column split of 48-byte partials,
		// and the unsigned and squared terms.
		{"reduce_sum_square_f32_4096x16384_axis0", &ops.Reduce{Function: ops.ReduceFunctionSumSquare, Input: nd(f32, []uint32{4096, 16384}), Output: nd(f32, []uint32{1, 16384}), Axes: []uint32{0}}},
		{"reduce_l1_f32_4096x16384_axis1", &ops.Reduce{Function: ops.ReduceFunctionL1, Input: nd(f32, []uint32{4096, 16384}), Output: nd(f32, []uint32{4096, 1}), Axes: []uint32{1}}},
		{"pool_1x1x4096x4096_2x2", &ops.MaxPooling{Input: nd(f32, []uint32{1, 1, 4096, 4096}), Output: nd(f32, []uint32{1, 1, 2048, 2048}),
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}},
		{"pool1_64x64x256x256_3x3s2_idx", &ops.MaxPooling1{Input: nd(f32, []uint32{64, 64, 256, 256}), Output: nd(f32, []uint32{64, 64, 127, 127}), OutputIndices: idx(u64, 64, 64, 127, 127),
			Strides: []uint32{2, 2}, WindowSize: []uint32{3, 3}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}},
		{"pool2_batch1M_8x8", &ops.MaxPooling2{Input: nd(tensor.Int8, []uint32{1 << 20, 2, 8, 8}), Output: nd(tensor.Int8, []uint32{1 << 20, 2, 4, 4}), OutputIndices: idx(u32, 1<<20, 2, 4, 4),
			Strides: []uint32{2, 2}, WindowSize: []uint32{2, 2}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}, Dilations: []uint32{1, 1}}},
		// Max-pooling crashers found by fuzzing: a batch count near 2^32 (wrapped
		// the 32-bit chunk loop) and 2^26 batches 2^26 elements apart (asked
		// for 2^26 steps).
		{"pool1_crasher_batch_2^32-1", &ops.MaxPooling1{Input: nd(f32, []uint32{1<<32 - 1, 1, 1, 1}), Output: nd(f32, []uint32{1<<32 - 1, 1, 1, 1}),
			Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}},
		{"pool_crasher_batch_2^26_stride_2^26", &ops.MaxPooling{Input: sd(f32, []uint32{1 << 26, 1, 1, 1}, []uint32{1 << 26, 1, 1, 1}), Output: nd(f32, []uint32{1 << 26, 1, 1, 1}),
			Strides: []uint32{1, 1}, WindowSize: []uint32{1, 1}, StartPadding: []uint32{0, 0}, EndPadding: []uint32{0, 0}}},
		{"pool2_5d_big_channels", &ops.MaxPooling2{Input: nd(tensor.Float16, []uint32{2, 4096, 16, 32, 32}), Output: nd(tensor.Float16, []uint32{2, 4096, 8, 16, 16}),
			Strides: []uint32{2, 2, 2}, WindowSize: []uint32{3, 3, 3}, StartPadding: []uint32{1, 1, 1}, EndPadding: []uint32{0, 0, 0}, Dilations: []uint32{1, 2, 1}}},
		// Unpooling binds every tensor and its temporary whole: refused
		// where they exceed one binding, planned where they fit.
		{"unpool_64x64x127x127_into_254x254_idx64", &ops.MaxUnpooling{Input: nd(f32, []uint32{64, 64, 127, 127}), Indices: nd(u64, []uint32{64, 64, 127, 127}),
			Output: nd(f32, []uint32{64, 64, 254, 254})}},
		{"unpool_int8_nhwc_4x256x64x64_into_128x128", &ops.MaxUnpooling{Input: sd(tensor.Int8, []uint32{4, 256, 64, 64}, []uint32{1 << 20, 1, 1 << 14, 256}),
			Indices: nd(u32, []uint32{4, 256, 64, 64}), Output: sd(tensor.Int8, []uint32{4, 256, 128, 128}, []uint32{1 << 22, 1, 1 << 15, 256})}},
		// TOP_K: each strategy's default pick (thread for a strided axis,
		// lane for long rows and K <= 16, filter for K <= 1024, sort
		// beyond), long rows cut into segments merged in passes, 64-bit
		// values and indices.
		{"topk_f32_4x1x4096x4096_axis2_k4", &ops.TopK{Input: nd(f32, []uint32{4, 1, 4096, 4096}), OutputValue: nd(f32, []uint32{4, 1, 4, 4096}), OutputIndex: nd(u32, []uint32{4, 1, 4, 4096}), Axis: 2, K: 4}},
		{"topk1_i32_64x65536_k8_increasing_idx64", &ops.TopK1{Input: nd(tensor.Int32, []uint32{64, 65536}), OutputValue: nd(tensor.Int32, []uint32{64, 8}), OutputIndex: nd(u64, []uint32{64, 8}), Axis: 1, K: 8, AxisDirection: ops.AxisDirectionIncreasing}},
		{"topk1_f32_128x256000_k50_decreasing", &ops.TopK1{Input: nd(f32, []uint32{128, 256000}), OutputValue: nd(f32, []uint32{128, 50}), OutputIndex: nd(u32, []uint32{128, 50}), Axis: 1, K: 50, AxisDirection: ops.AxisDirectionDecreasing}},
		// 8x32000 K=2048: the CPU class's split select from 8192 positions (tuning topKSplitMinLen).
		{"topk1_f32_8x32000_k2048_decreasing", &ops.TopK1{Input: nd(f32, []uint32{8, 32000}), OutputValue: nd(f32, []uint32{8, 2048}), OutputIndex: nd(u32, []uint32{8, 2048}), Axis: 1, K: 2048, AxisDirection: ops.AxisDirectionDecreasing}},
		{"topk1_f32_2x1M_k4096_increasing", &ops.TopK1{Input: nd(f32, []uint32{2, 1 << 20}), OutputValue: nd(f32, []uint32{2, 4096}), OutputIndex: nd(u32, []uint32{2, 4096}), Axis: 1, K: 4096, AxisDirection: ops.AxisDirectionIncreasing}},
		{"topk1_i64_16x100000_k100_decreasing_idx64", &ops.TopK1{Input: nd(i64, []uint32{16, 100000}), OutputValue: nd(i64, []uint32{16, 100}), OutputIndex: nd(u64, []uint32{16, 100}), Axis: 1, K: 100, AxisDirection: ops.AxisDirectionDecreasing}},
	}
}
