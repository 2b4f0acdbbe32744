package opcount

import (
	"fmt"
	"strings"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/profiles"
	"github.com/vkdml/vkdml/tensor"
)

// Case is one operator of the GPU speed table (scripts/gpu_compare.py's
// cases and the reference cases of gpu-arithmetic.md), planned on a
// profile; every dispatch of its plan is held to BudgetPerByte.
type Case struct {
	Name string
	Desc ops.Desc
}

// Row is one dispatch of a case's plan and its count.
type Row struct {
	Case         string
	Dispatch     int
	Kernel       string
	Unit         string
	Count        float64 // per unit
	OpsPerByte   float64 // per byte the dispatch moves, partials included
	PartialBytes uint64
	Budget       float64 // ops per byte
}

// Over reports whether the row's ops per byte exceed its budget.
func (r Row) Over() bool { return r.Budget > 0 && r.OpsPerByte > r.Budget }

// BudgetPerByte is the counted ops a kernel may spend per byte it moves on
// the h100 profile: the H100's integer rate (≈16.5 T SPIR-V ops/s) over
// its copy bandwidth (≈2.95 TB/s) is ≈5.6 ops per byte, where a kernel
// turns arithmetic-bound; 4 leaves a 30% margin
// (shared/docs/gpu-arithmetic.md §1.3).
const BudgetPerByte = 4

// ExpOpsAllowance is the counted ops the budget allows a dispatch for each
// exp term it computes (ops.DispatchFacts.ExpTerms), on top of
// BudgetPerByte. REDUCE's LOG_SUM_EXP sums exp of every element, and rule
// 40 makes that exp vkdml's own, the same bits on every device: integer
// arithmetic, whose fast path (exp_f32_fast in reduce_float.glsl: the
// reduction, a 16-entry table, a degree-7 polynomial, the rounding and the
// fallback test) counts about 105 ops. No exact exp costs the 16 ops a
// FLOAT32 element has at 4 ops per byte, so such a kernel is arithmetic-
// bound by definition; the allowance is that fast path with about 7% to
// spare, and nothing else in the kernel may cost more than the budget of
// any other: FLOAT32 LOG_SUM_EXP is held to 4 + 112/4 = 32 ops per byte,
// and the FLOAT16 kernels that read ops.TableExpHalf compute none and keep
// 4. FLOAT16's kernels that compute the exp would get 4 + 112/2 = 60 and
// cost 68.5 (the widening to FLOAT32 comes on top): they are over it, and
// run only where a binding cannot hold the table: a BindingWindowCap under
// 256 KiB, since every device's maxStorageBufferRange is 2^27 or more.
const ExpOpsAllowance = 112

// DispatchBudget is the ops per byte a dispatch with facts f may spend
// when base is the budget per byte (0: none): base, plus ExpOpsAllowance
// for each of its exp terms spread over the bytes it moves.
func DispatchBudget(base float64, f ops.DispatchFacts) float64 {
	moved := f.BytesMoved()
	if base == 0 || moved == 0 || f.ExpTerms == 0 {
		return base
	}
	return base + ExpOpsAllowance*float64(f.ExpTerms)/float64(moved)
}

// Cases are the GPU speed table's cases: ARGMAX whole, along rows and
// along columns in all ten types (int64 indices, as scripts/gpu_compare.py
// asks), the reference shapes and the odd ones, REDUCE's value functions,
// max pooling, and TOP_K's benchmark cases.
func Cases() []Case {
	var cs []Case
	arg := func(name string, dt tensor.DataType, shape []uint32, axes ...uint32) {
		out := append([]uint32(nil), shape...)
		for _, a := range axes {
			out[a] = 1
		}
		cs = append(cs, Case{name, &ops.ArgMax{Input: tensor.NewDesc(dt, shape), Output: tensor.NewDesc(tensor.Int64, out), Axes: axes}})
	}
	for _, dt := range tensor.AllTypes {
		arg(fmt.Sprintf("argmax 4096x16384 %s axis 1", dt), dt, []uint32{4096, 16384}, 1)
	}
	arg("argmax 64M FLOAT32 whole", tensor.Float32, []uint32{64 << 20}, 0)
	arg("argmax 256M FLOAT32 whole", tensor.Float32, []uint32{256 << 20}, 0)
	arg("argmax 64M FLOAT16 whole", tensor.Float16, []uint32{64 << 20}, 0)
	arg("argmax 67108865 FLOAT32 whole", tensor.Float32, []uint32{64<<20 + 1}, 0)
	for _, dt := range tensor.AllTypes {
		arg(fmt.Sprintf("argmax 4096x16384 %s axis 0", dt), dt, []uint32{4096, 16384}, 0)
	}
	f32 := tensor.Float32
	arg("argmax 16384x4096 FLOAT32 axis 0", f32, []uint32{16384, 4096}, 0)
	arg("argmax 65536x1000 FLOAT32 axis 1", f32, []uint32{65536, 1000}, 1)
	arg("argmax 128x256000 FLOAT32 axis 1", f32, []uint32{128, 256000}, 1)
	arg("argmax 32x1000 FLOAT32 axis 1", f32, []uint32{32, 1000}, 1)
	arg("argmax 8x32000 FLOAT32 axis 1", f32, []uint32{8, 32000}, 1)
	arg("argmax 64x512x512 FLOAT32 axes 1,2", f32, []uint32{64, 512, 512}, 1, 2)
	arg("argmax 1024x64x1024 FLOAT32 axis 1", f32, []uint32{1024, 64, 1024}, 1)
	arg("argmax 4097x16383 FLOAT32 axis 1", f32, []uint32{4097, 16383}, 1)
	arg("argmax 4097x16383 FLOAT32 axis 0", f32, []uint32{4097, 16383}, 0)
	arg("argmax 4097x16383 INT8 axis 0", tensor.Int8, []uint32{4097, 16383}, 0)
	arg("argmax 4097x16383 FLOAT16 axis 1", tensor.Float16, []uint32{4097, 16383}, 1)
	arg("argmax 63x1031x1025 FLOAT32 axis 1", f32, []uint32{63, 1031, 1025}, 1)
	// REDUCE's value functions on ARGMAX's kernels: MAX in every type,
	// MIN, and the integer accumulations in their four types, along rows,
	// columns and whole.
	reduce := func(fn ops.ReduceFunction, dt tensor.DataType, size string, shape []uint32, how string, axes ...uint32) {
		out := append([]uint32(nil), shape...)
		for _, a := range axes {
			out[a] = 1
		}
		name := fmt.Sprintf("reduce %s %s %s %s", strings.ToLower(strings.TrimPrefix(fn.String(), "DML_REDUCE_FUNCTION_")), size, dt, how)
		cs = append(cs, Case{name, &ops.Reduce{Function: fn, Input: tensor.NewDesc(dt, shape), Output: tensor.NewDesc(dt, out), Axes: axes}})
	}
	rows := []uint32{4096, 16384}
	for _, dt := range tensor.AllTypes {
		reduce(ops.ReduceFunctionMax, dt, "4096x16384", rows, "axis 1", 1)
		reduce(ops.ReduceFunctionMax, dt, "4096x16384", rows, "axis 0", 0)
	}
	reduce(ops.ReduceFunctionMin, f32, "4096x16384", rows, "axis 1", 1)
	reduce(ops.ReduceFunctionMin, f32, "4096x16384", rows, "axis 0", 0)
	reduce(ops.ReduceFunctionMax, f32, "64M", []uint32{64 << 20}, "whole", 0)
	for _, fn := range []ops.ReduceFunction{ops.ReduceFunctionSum, ops.ReduceFunctionMultiply, ops.ReduceFunctionL1, ops.ReduceFunctionSumSquare} {
		for _, dt := range []tensor.DataType{tensor.Int32, tensor.UInt32, tensor.Int64, tensor.UInt64} {
			reduce(fn, dt, "4096x16384", rows, "axis 1", 1)
			reduce(fn, dt, "4096x16384", rows, "axis 0", 0)
		}
	}
	reduce(ops.ReduceFunctionSum, tensor.Int32, "64M", []uint32{64 << 20}, "whole", 0)
	// The float functions (issue 32): the exact accumulators, SUM on both
	// float types and LOG_SUM_EXP's exp per element; MULTIPLY's canonical
	// tree of integer-arithmetic products (rule 42).
	for _, dt := range []tensor.DataType{f32, tensor.Float16} {
		reduce(ops.ReduceFunctionSum, dt, "4096x16384", rows, "axis 1", 1)
		reduce(ops.ReduceFunctionSum, dt, "4096x16384", rows, "axis 0", 0)
	}
	reduce(ops.ReduceFunctionSum, f32, "64M", []uint32{64 << 20}, "whole", 0)
	// L1's unsigned terms, and SUM_SQUARE's x·x (the native multiply on
	// the h100 profile, argOp.hwSquare).
	for _, fn := range []ops.ReduceFunction{ops.ReduceFunctionL1, ops.ReduceFunctionSumSquare} {
		reduce(fn, f32, "4096x16384", rows, "axis 1", 1)
		reduce(fn, f32, "4096x16384", rows, "axis 0", 0)
		reduce(fn, f32, "64M", []uint32{64 << 20}, "whole", 0)
	}
	reduce(ops.ReduceFunctionSum, tensor.Float16, "64M", []uint32{64 << 20}, "whole", 0)
	reduce(ops.ReduceFunctionL1, tensor.Float16, "4096x16384", rows, "axis 1", 1)
	// FLOAT16 SUM_SQUARE's squares (reduce_half.glsl's windows), rows and
	// columns; L2 runs the same first passes.
	reduce(ops.ReduceFunctionSumSquare, tensor.Float16, "4096x16384", rows, "axis 1", 1)
	reduce(ops.ReduceFunctionSumSquare, tensor.Float16, "4096x16384", rows, "axis 0", 0)
	reduce(ops.ReduceFunctionSumSquare, tensor.Float16, "4096x16384", rows, "axes 0,1", 0, 1)
	reduce(ops.ReduceFunctionLogSumExp, f32, "4096x16384", rows, "axis 1", 1)
	// FLOAT16 LOG_SUM_EXP's terms from the table (ops.TableExpHalf):
	// rows, columns and whole.
	reduce(ops.ReduceFunctionLogSumExp, tensor.Float16, "4096x16384", rows, "axis 1", 1)
	reduce(ops.ReduceFunctionLogSumExp, tensor.Float16, "4096x16384", rows, "axis 0", 0)
	reduce(ops.ReduceFunctionLogSumExp, tensor.Float16, "4096x16384", rows, "axes 0,1", 0, 1)
	reduce(ops.ReduceFunctionMultiply, f32, "4096x16384", rows, "axis 1", 1)
	reduce(ops.ReduceFunctionMultiply, f32, "4096x16384", rows, "axis 0", 0)
	reduce(ops.ReduceFunctionMultiply, f32, "64M", []uint32{64 << 20}, "whole", 0)
	// FLOAT16 MULTIPLY's vector run (reduce_fmul.comp HALF_VEC) and
	// column kernel (COL).
	reduce(ops.ReduceFunctionMultiply, tensor.Float16, "4096x16384", rows, "axis 1", 1)
	reduce(ops.ReduceFunctionMultiply, tensor.Float16, "4096x16384", rows, "axis 0", 0)
	reduce(ops.ReduceFunctionMultiply, tensor.Float16, "4096x16384", rows, "axes 0,1", 0, 1)
	pool := func(name string, dt tensor.DataType, shape []uint32, k, s, p, d uint32, idx bool) {
		out := append([]uint32(nil), shape...)
		for i := 2; i < 4; i++ {
			out[i] = (shape[i]+2*p-d*(k-1)-1)/s + 1
		}
		desc := &ops.MaxPooling2{Input: tensor.NewDesc(dt, shape), Output: tensor.NewDesc(dt, out),
			Strides: []uint32{s, s}, WindowSize: []uint32{k, k}, StartPadding: []uint32{p, p}, EndPadding: []uint32{p, p}, Dilations: []uint32{d, d}}
		if idx {
			id := tensor.NewDesc(tensor.UInt64, out)
			desc.OutputIndices = &id
		}
		cs = append(cs, Case{name, desc})
	}
	pool("maxpool 3x3 s2 p1 indices [32,64,112,112]", f32, []uint32{32, 64, 112, 112}, 3, 2, 1, 1, true)
	pool("maxpool 3x3 s2 p1 [32,64,112,112]", f32, []uint32{32, 64, 112, 112}, 3, 2, 1, 1, false)
	pool("maxpool 3x3 s1 p1 d2 indices [8,64,128,128]", f32, []uint32{8, 64, 128, 128}, 3, 1, 1, 2, true)
	pool("maxpool 2x2 s2 indices [16,64,512,512]", f32, []uint32{16, 64, 512, 512}, 2, 2, 0, 1, true)
	pool("maxpool 2x2 s2 indices [1,64,512,512]", f32, []uint32{1, 64, 512, 512}, 2, 2, 0, 1, true)
	pool("maxpool 2x2 s2 indices FLOAT16 [16,64,512,512]", tensor.Float16, []uint32{16, 64, 512, 512}, 2, 2, 0, 1, true)
	pool("maxpool 3x3 s2 p1 indices [7,61,111,113]", f32, []uint32{7, 61, 111, 113}, 3, 2, 1, 1, true)
	// TOP_K on issue 31's cases: vocabulary rows and mixture-of-experts
	// routing, FLOAT32 and FLOAT16 along the last axis, largest first;
	// INT8 and UINT8 at K = 50, 1024 and 2048; INT64 and UINT64 at K = 1024 and 2048.
	topK := func(dt tensor.DataType, rows, n, k uint32) {
		in := tensor.NewDesc(dt, []uint32{rows, n})
		out := []uint32{rows, k}
		cs = append(cs, Case{fmt.Sprintf("topk %dx%d K=%d %v", rows, n, k, dt), &ops.TopK{Input: in,
			OutputValue: tensor.NewDesc(dt, out), OutputIndex: tensor.NewDesc(tensor.UInt32, out), Axis: 1, K: k}})
	}
	for _, dt := range []tensor.DataType{f32, tensor.Float16} {
		for _, shape := range [][2]uint32{{8, 32000}, {128, 256000}} {
			for _, k := range []uint32{1, 50, 1024, 2048} {
				topK(dt, shape[0], shape[1], k)
			}
		}
		topK(dt, 65536, 64, 2)
		topK(dt, 65536, 64, 8)
	}
	// The 8-bit vocabulary rows' byte select (the filter's K, and its
	// whole rows up to K=2048).
	for _, dt := range []tensor.DataType{tensor.Int8, tensor.UInt8} {
		for _, shape := range [][2]uint32{{8, 32000}, {128, 256000}} {
			for _, k := range []uint32{50, 1024, 2048} {
				topK(dt, shape[0], shape[1], k)
			}
		}
	}
	// The 64-bit vocabulary rows' radix select, its scans two positions a
	// 16-byte load (SCAN64), at the K the filter's runs and the sort's
	// merges missed the partials' budget with.
	for _, dt := range []tensor.DataType{tensor.Int64, tensor.UInt64} {
		for _, shape := range [][2]uint32{{8, 32000}, {128, 256000}} {
			for _, k := range []uint32{1024, 2048} {
				topK(dt, shape[0], shape[1], k)
			}
		}
	}
	return cs
}

// ProfileContext is the planning context of a shipped profile.
func ProfileContext(name string) (*ops.Context, error) {
	p, err := profiles.Lookup(name)
	if err != nil {
		return nil, err
	}
	return &ops.Context{FeatureLevel: ops.FeatureLevels[len(ops.FeatureLevels)-1], Features: p.Features, Limits: p.Limits, DeviceType: p.Type}, nil
}

// Rows plans every case on ctx and counts each dispatch's kernel,
// specialised as the plan specialises it; budget is the ops per byte
// each row is held to (0: counted, no budget), raised for exp terms as
// DispatchBudget says.
func Rows(ctx *ops.Context, cases []Case, budget float64) ([]Row, error) {
	var rows []Row
	for _, c := range cases {
		if err := c.Desc.Validate(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		p, err := c.Desc.Plan(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		f, err := ops.Facts(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		counts, err := Plan(p, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		for i, sc := range counts {
			rows = append(rows, Row{Case: c.Name, Dispatch: i, Kernel: sc.Kernel, Unit: sc.Unit, Count: sc.PerUnit,
				OpsPerByte: sc.OpsPerByte, PartialBytes: f.Dispatches[i].PartialBytes, Budget: DispatchBudget(budget, f.Dispatches[i])})
		}
	}
	return rows, nil
}

// Markdown is the committed table (counts.md): every row, its budget, and
// whether it is within it, over it and pending (pending: the rows another
// change is bringing down), or over it.
func Markdown(profile string, rows []Row, pending map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Integer work of each kernel's hot loop per byte it moves, %s profile\n\n", profile)
	b.WriteString("Generated by `VKDML_UPDATE_OPCOUNT=1 go test ./internal/opcount` (package doc: the method);\n")
	b.WriteString("`TestCounts` fails when this table is stale, when a dispatch exceeds its budget\n")
	b.WriteString("and its case is not pending (`pending` in opcount_test.go), and when a pending\n")
	b.WriteString("case meets its budget (then drop it from `pending`).\n\n")
	fmt.Fprintf(&b, "Budget: %g SPIR-V ops per byte moved, for every dispatch, plus %d ops for each exp term\n", float64(BudgetPerByte), ExpOpsAllowance)
	b.WriteString("it computes (REDUCE LOG_SUM_EXP's first passes: `ExpOpsAllowance` in table.go says why); a dispatch moves the\n")
	b.WriteString("bytes it reads and writes, split-K partials included (`partial B`, also in\n")
	b.WriteString("`vkdml plan --json` as `partial_bytes`). `ops/unit` is the hot loop's count per\n")
	b.WriteString("element read, partial combined or output written; `ops/B` is `ops_per_byte`.\n\n")
	b.WriteString("| case | dispatch | kernel | per | ops/unit | ops/B | partial B | budget | status |\n|---|---:|---|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		budget, status := "-", "-"
		if r.Budget > 0 {
			budget, status = fmt.Sprintf("%.4g", r.Budget), "ok"
			if r.Over() {
				status = "**OVER**"
				if pending[r.Case] {
					status = "**OVER** (pending)"
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f | %.2f | %d | %s | %s |\n", r.Case, r.Dispatch, r.Kernel, r.Unit, r.Count, r.OpsPerByte, r.PartialBytes, budget, status)
	}
	return b.String()
}
