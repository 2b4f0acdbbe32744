package ops_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// h100Context is the NVIDIA H100's recorded limits and features
// (../shared/gpu/h100-devices.txt): subgroups of 32, 2^31-1 workgroups
// along x, 132 SMs of 2,048 resident lanes.
func h100Context() *ops.Context {
	ctx := descfuzz.Lavapipe()
	ctx.DeviceType = caps.DeviceTypeDiscreteGPU
	l := &ctx.Limits
	l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize = 32, 32, 32
	l.MaxStorageBufferRange, l.MaxPushConstantsSize, l.MaxComputeSharedMemorySize = 1<<32-1, 256, 49152
	l.MaxComputeWorkGroupSize = [3]uint32{1024, 1024, 64}
	l.MaxComputeWorkGroupCount = [3]uint32{1<<31 - 1, 65535, 65535}
	l.MinStorageBufferOffsetAlignment = 16
	l.MaxMemoryAllocationSize, l.MaxBufferSize = 4292870144, 1<<40
	l.ComputeUnits, l.LanesPerComputeUnit = 132, 2048
	return ctx
}

// argDispatchFacts are one ARGMAX dispatch's facts, computed from its
// kernel, grid and push words: the invocations launched, those that touch
// no element or partial, the most partials one invocation combines in a
// loop (0 for a first pass) and the bytes one lane loads before using the
// first of them.
type argDispatchFacts struct {
	variant                   string
	wg                        uint32
	groups                    [3]uint32
	lanes, empty, serial, bpl uint64
}

func (f argDispatchFacts) String() string {
	return fmt.Sprintf("%s wg=%d groups=%v lanes=%d empty=%d serial=%d bytes/lane=%d", f.variant, f.wg, f.groups, f.lanes, f.empty, f.serial, f.bpl)
}

// argElemBytes is the element size of an ARGMAX first-pass variant, from
// its name (argmax_b8_thread, argmax_vec_b16_rowsg; 32 bits unnamed).
func argElemBytes(variant string) uint64 {
	for _, b := range []uint64{8, 16, 64, 32} {
		if strings.Contains(variant, fmt.Sprintf("_b%d", b)) {
			return b / 8
		}
	}
	return 4
}

// argPlanFacts computes the facts of every dispatch of an ARGMAX plan.
func argPlanFacts(t *testing.T, p *ops.Plan) []argDispatchFacts {
	var out []argDispatchFacts
	for _, s := range p.Steps {
		k := p.Kernels[s.Kernel]
		row, err := shaders.Lookup(k.Variant)
		if err != nil {
			t.Fatal(err)
		}
		pw := map[string]uint64{}
		for i, n := range row.Push {
			pw[n] = uint64(binary.LittleEndian.Uint32(s.Params[4*i:]))
		}
		wg := uint64(k.Spec[0])
		ngroups := uint64(s.Groups[0]) * uint64(s.Groups[1]) * uint64(s.Groups[2])
		f := argDispatchFacts{variant: k.Variant, wg: k.Spec[0], groups: s.Groups, lanes: ngroups * wg}
		es := argElemBytes(k.Variant)
		busyLanes := uint64(0) // lanes that touch something
		v := k.Variant
		switch {
		case v == shaders.ArgMaxCombineName:
			busyLanes = min(f.lanes, pw["o_count"])
			f.serial, f.bpl = pw["nseg"], 12
		case strings.HasPrefix(v, "argmax_combine_group"):
			busyLanes = min(ngroups, pw["o_count"]) * min(wg, pw["nseg"])
			f.serial, f.bpl = (pw["nseg"]+wg-1)/wg, 12
		case strings.HasSuffix(v, "_thread"):
			busyLanes = min(f.lanes, pw["o_count"]*pw["nloc"])
			f.bpl = es
		case strings.Contains(v, "_col"):
			per, bpl := 16/es, uint64(16)
			if strings.Contains(v, "col8") {
				per, bpl = 8, 32
			}
			busyLanes = min(f.lanes, pw["o_count"]/per*pw["nloc"])
			f.bpl = bpl
		default: // lanes of a workgroup split a segment: group, vec-row
			items := pw["o_count"] * pw["nloc"]
			vw, bpl := uint64(1), es
			if strings.Contains(v, "_vec_") {
				vw, bpl = 16/es, 16
				if strings.Contains(v, "row64") {
					vw, bpl = 8, 32
				}
			}
			// Every segment but the last of a range is seg_len long.
			perWG := min(wg, (pw["seg_len"]+vw-1)/vw)
			busyLanes = min(ngroups, items) * perWG
			f.bpl = bpl
		}
		f.empty = f.lanes - busyLanes
		out = append(out, f)
	}
	return out
}

// argFactCase is a case of the GPU comparison's table.
type argFactCase struct {
	name  string
	dt    tensor.DataType
	sizes []uint32
	axes  []uint32
}

// argFactCases are the ARGMAX cases of the H100 table: whole tensors, rows
// and columns of every width, short and long rows.
func argFactCases() []argFactCase {
	cs := []argFactCase{
		{"64M whole", tensor.Float32, []uint32{1 << 26}, []uint32{0}},
		{"256M whole", tensor.Float32, []uint32{1 << 28}, []uint32{0}},
		{"64M f16 whole", tensor.Float16, []uint32{1 << 26}, []uint32{0}},
		{"65536x1000 ax1", tensor.Float32, []uint32{65536, 1000}, []uint32{1}},
		{"32x1000 ax1", tensor.Float32, []uint32{32, 1000}, []uint32{1}},
		{"64x512x512 ax1,2", tensor.Float32, []uint32{64, 512, 512}, []uint32{1, 2}},
		{"16384x4096 ax0", tensor.Float32, []uint32{16384, 4096}, []uint32{0}},
		{"1024x64x1024 ax1", tensor.Float32, []uint32{1024, 64, 1024}, []uint32{1}},
		{"8x32000 ax1", tensor.Float32, []uint32{8, 32000}, []uint32{1}},
		{"128x256000 ax1", tensor.Float32, []uint32{128, 256000}, []uint32{1}},
	}
	for _, dt := range tensor.AllTypes {
		for _, ax := range []uint32{1, 0} {
			cs = append(cs, argFactCase{fmt.Sprintf("4096x16384 %v ax%d", dt, ax), dt, []uint32{4096, 16384}, []uint32{ax}})
		}
	}
	return cs
}

func (c argFactCase) desc() ops.Desc {
	out := make([]uint32, len(c.sizes))
	for i := range out {
		out[i] = c.sizes[i]
	}
	for _, a := range c.axes {
		out[a] = 1
	}
	return &ops.ArgMax{Input: tensor.NewStridedDesc(c.dt, c.sizes, nil), Output: tensor.NewStridedDesc(tensor.UInt32, out, nil), Axes: c.axes}
}

// argCaseFacts sums a case's plan: its dispatches' facts, and per case the
// most serial partials, the largest share of empty lanes and the smallest
// bytes in flight among its first-pass dispatches (min(lanes, resident
// lanes) x bytes per lane).
type argCaseFacts struct {
	strategy  string
	dispatch  []argDispatchFacts
	serial    uint64
	emptyFrac float64
	inFlight  uint64
}

func argFactsOf(t *testing.T, ctx *ops.Context, c argFactCase) argCaseFacts {
	d := c.desc()
	if err := d.Validate(ctx); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	p, err := d.Plan(ctx)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	r := argCaseFacts{strategy: p.Strategy, dispatch: argPlanFacts(t, p), inFlight: ^uint64(0)}
	resident := ctx.Limits.ResidentLanes()
	for _, f := range r.dispatch {
		r.serial = max(r.serial, f.serial)
		r.emptyFrac = max(r.emptyFrac, float64(f.empty)/float64(f.lanes))
		if !strings.HasPrefix(f.variant, "argmax_combine") {
			r.inFlight = min(r.inFlight, min(f.lanes, resident)*f.bpl)
		}
	}
	return r
}

// TestArgPlanFactsH100 plans the H100 table's ARGMAX cases on the H100's
// limits and holds every dispatch to the goals: at most 64 partials
// combined serially by one invocation, at most 1% of lanes empty.
func TestArgPlanFactsH100(t *testing.T) {
	ctx := h100Context()
	for _, c := range argFactCases() {
		r := argFactsOf(t, ctx, c)
		t.Logf("%-26s %-8s serial=%-5d empty=%5.1f%% inflight=%7d KiB", c.name, r.strategy, r.serial, 100*r.emptyFrac, r.inFlight>>10)
		for _, f := range r.dispatch[:min(len(r.dispatch), 3)] {
			t.Logf("    %v", f)
		}
		if r.serial > 64 {
			t.Errorf("%s: a dispatch combines %d partials in one invocation's loop, more than 64", c.name, r.serial)
		}
	}
}
