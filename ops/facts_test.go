package ops

import (
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/shaders"
)

// TestEveryVariantHasFacts holds every kernel variant to a facts
// function: a new kernel family must say what its dispatches do before a
// plan can use it (vkdml plan, and the device checks built on Facts).
func TestEveryVariantHasFacts(t *testing.T) {
	for _, v := range shaders.Variants {
		if !HasFacts(v.Name) {
			t.Errorf("variant %s (%s) has no facts function: add one to kernelFacts in ops/facts_*.go", v.Name, v.Source)
		}
	}
	if HasFacts("no_such_variant") {
		t.Error("HasFacts reports a variant that does not exist")
	}
}

// factsStep is a one-step plan of variant with the given specialization
// constants and push words (every other one 0) and grid.
func factsStep(t *testing.T, variant string, spec, push map[string]uint32, groups [3]uint32) *Plan {
	t.Helper()
	row, err := shaders.Lookup(variant)
	if err != nil {
		t.Fatal(err)
	}
	sv, pv := shaders.NewSpec(variant), shaders.NewPush(variant)
	for _, n := range row.Spec {
		sv.Set(n, spec[n])
	}
	for _, n := range row.Push {
		pv.Set(n, push[n])
	}
	k, err := kernelOf(sv)
	if err != nil {
		t.Fatal(err)
	}
	params, err := pushBytes(pv)
	if err != nil {
		t.Fatal(err)
	}
	return &Plan{Kernels: []Kernel{k}, Steps: []Step{{Kernel: 0, Params: params, Groups: groups}}}
}

func factsCtx(cus, lanes uint32) *Context {
	return &Context{DeviceType: caps.DeviceTypeDiscreteGPU, Limits: caps.Limits{ComputeUnits: cus, LanesPerComputeUnit: lanes}}
}

// TestFactsFamilies checks each family's facts on hand-made steps whose
// answers follow from the shaders' loops.
func TestFactsFamilies(t *testing.T) {
	wg := shaders.SpecWorkgroupSize
	cases := []struct {
		name     string
		plan     *Plan
		want     DispatchFacts
		inFlight uint64 // on 132 units of 2048 lanes
	}{
		{"combine: one invocation, 1024 partials",
			factsStep(t, shaders.ArgMaxCombineName, map[string]uint32{wg: 64}, map[string]uint32{"o_count": 1, "nseg": 1024}, [3]uint32{1, 1, 1}),
			DispatchFacts{Lanes: 64, EmptyLanes: 63, BytesPerLaneInFlight: 16, SerialPartials: 1024, BytesRead: 16 * 1024, BytesWritten: 4,
				PartialBytes: 16 * 1024, Units: 1024, Unit: UnitPartial}, 64 * 16},
		{"combine group: a workgroup of 256 lanes per output, 1024 partials",
			factsStep(t, shaders.ArgMaxCombineGroupSG, map[string]uint32{wg: 256, "FLAGS": 1 << 4}, map[string]uint32{"o_count": 3, "nseg": 1024}, [3]uint32{4, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 256, BytesPerLaneInFlight: 16, SerialPartials: 4, BytesRead: 3 * 16 * 1024, BytesWritten: 3 * 8,
				PartialBytes: 3 * 16 * 1024, Units: 3 * 1024, Unit: UnitPartial}, 1024 * 16},
		{"thread: 1000 items on 4 groups of 256, partials",
			factsStep(t, shaders.ArgMaxName(32, true, shaders.ArgMaxThread), map[string]uint32{wg: 256, "FLAGS": 2 << 4},
				map[string]uint32{"o_count": 100, "j_count": 100, "seg_len": 10, "nloc": 10, "nseg": 10}, [3]uint32{4, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesPerLaneInFlight: 4, BytesRead: 100 * 100 * 4, BytesWritten: 1000 * 16,
				PartialBytes: 1000 * 16, Units: 100 * 100, Unit: UnitElement}, 1024 * 4},
		{"group over 8-bit words: short last segment",
			// 2 outputs × 3 segments of 100, 100, 50 elements; 6 groups
			// of 128 lanes: 28 lanes idle on full segments, 78 on short.
			factsStep(t, shaders.ArgMaxName(8, false, shaders.ArgMaxGroup), map[string]uint32{wg: 128, "FLAGS": 1 << 4},
				map[string]uint32{"o_count": 2, "j_count": 250, "seg_len": 100, "nloc": 3}, [3]uint32{6, 1, 1}),
			DispatchFacts{Lanes: 768, EmptyLanes: 4*28 + 2*78, BytesPerLaneInFlight: 4, BytesRead: 500, BytesWritten: 16, Units: 500, Unit: UnitElement}, 768 * 4},
		{"fmul group: runs of 8 positions a lane, 8 loads in flight",
			factsStep(t, shaders.ReduceFmulName(32, false, shaders.ArgMaxGroup), map[string]uint32{wg: 64, "FLAGS": 3<<4 | 2<<24},
				map[string]uint32{"o_count": 2, "j_count": 512, "seg_len": 512, "nloc": 1}, [3]uint32{2, 1, 1}),
			DispatchFacts{Lanes: 128, BytesPerLaneInFlight: 32, BytesRead: 2 * 512 * 4, BytesWritten: 2 * 4, Units: 1024, Unit: UnitElement}, 128 * 32},
		{"fmul thread: segments of 4, under LOADS, one load at a time",
			factsStep(t, shaders.ReduceFmulName(32, false, shaders.ArgMaxThread), map[string]uint32{wg: 64, "FLAGS": 2 << 4},
				map[string]uint32{"o_count": 100, "j_count": 12, "seg_len": 4, "nloc": 3, "nseg": 3}, [3]uint32{4, 1, 1}),
			DispatchFacts{Lanes: 256, BytesPerLaneInFlight: 4, BytesRead: 100 * 12 * 4, BytesWritten: 300 * 4,
				PartialBytes: 300 * 4, Units: 1200, Unit: UnitElement}, 256 * 4},
		{"vec-row: 65536 rows of 1000 on 131070 groups (the H100's capped grid)",
			factsStep(t, shaders.ArgMaxVecRow64SG, map[string]uint32{wg: 256},
				map[string]uint32{"o_count": 65536, "j_count": 1000, "seg_len": 1000, "nloc": 1}, [3]uint32{65535, 2, 1}),
			DispatchFacts{Lanes: 131070 * 256, EmptyLanes: 131070*256 - 65536*125, BytesPerLaneInFlight: 32, BytesRead: 65536 * 4000, BytesWritten: 65536 * 4,
				Units: 65536 * 1000, Unit: UnitElement},
			132 * 2048 * 32},
		{"vec-col int8: 16 outputs per lane",
			factsStep(t, shaders.ArgMaxVecName(8, shaders.ArgMaxVecCol), map[string]uint32{wg: 64, "FLAGS": 2 << 4},
				map[string]uint32{"o_count": 16384, "j_count": 4096, "seg_len": 512, "nloc": 8}, [3]uint32{128, 1, 1}),
			DispatchFacts{Lanes: 8192, BytesPerLaneInFlight: 16, BytesRead: 16384 * 4096, BytesWritten: 16384 * 8 * 16,
				PartialBytes: 16384 * 8 * 16, Units: 16384 * 4096, Unit: UnitElement}, 8192 * 16},
		{"maxpool direct: 3 planes of 2x2 outputs from 4x4",
			factsStep(t, shaders.MaxPoolName(16, true, 64), map[string]uint32{wg: 128, "ID": 1, "IH": 4, "IW": 4, "OD": 1, "OH": 2, "OW": 2},
				map[string]uint32{"total": 12}, [3]uint32{1, 1, 1}),
			DispatchFacts{Lanes: 128, EmptyLanes: 116, BytesPerLaneInFlight: 2, BytesRead: 3 * 16 * 2, BytesWritten: 12 * 10, Units: 12, Unit: UnitOutput}, 128 * 2},
		{"maxpool vec2x2: 1000 quads, 2 per lane, 64 lanes, 8 groups",
			factsStep(t, shaders.MaxPoolVec2x2Name(32), map[string]uint32{wg: 64, "IH": 100, "IW": 80, "OH": 50, "OW": 40},
				map[string]uint32{"quads": 1000, "per": 2}, [3]uint32{8, 1, 1}),
			// groups 0..6 full (7·128 = 896 quads), group 7: 104 left, 64 lanes.
			DispatchFacts{Lanes: 512, EmptyLanes: 0, BytesPerLaneInFlight: 64, BytesRead: 2 * 8000 * 4, BytesWritten: 4000 * 8, Units: 4000, Unit: UnitOutput}, 512 * 64},
		{"copy_vec4",
			factsStep(t, shaders.CopyVec4Name, map[string]uint32{wg: 256}, map[string]uint32{"count": 1000}, [3]uint32{4, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesPerLaneInFlight: 16, BytesRead: 16000, BytesWritten: 16000, Units: 4000, Unit: UnitElement}, 1024 * 16},
		{"maxunpool clear: 1000 winner words on 8 groups of 128",
			factsStep(t, shaders.MaxUnpoolClearName, map[string]uint32{wg: 128}, map[string]uint32{"count": 1000}, [3]uint32{8, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesWritten: 4000, Units: 1000, Unit: UnitElement}, 0},
		{"maxunpool scatter: 300 UINT64 indices",
			factsStep(t, shaders.MaxUnpoolScatterName(64, false), map[string]uint32{wg: 128}, map[string]uint32{"total": 300, "out_total": 1000}, [3]uint32{3, 1, 1}),
			DispatchFacts{Lanes: 384, EmptyLanes: 84, BytesPerLaneInFlight: 8, BytesRead: 2400, BytesWritten: 1200, Units: 300, Unit: UnitElement}, 384 * 8},
		{"maxunpool gather: 1000 FLOAT16 outputs over words",
			factsStep(t, shaders.MaxUnpoolGatherName(16, false, false), map[string]uint32{wg: 128}, map[string]uint32{"total": 1000}, [3]uint32{8, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesPerLaneInFlight: 4, BytesRead: 6000, BytesWritten: 2000, Units: 1000, Unit: UnitElement}, 1024 * 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pf := checkDispatchFacts(t, c.plan, c.want)
			if got := pf.BytesInFlight; got != c.inFlight {
				t.Errorf("bytes in flight %d, want %d", got, c.inFlight)
			}
		})
	}
}

// checkDispatchFacts runs Facts on plan, one step, on 132 units of 2048
// lanes, checks the step's facts against want and returns the plan's.
func checkDispatchFacts(t *testing.T, plan *Plan, want DispatchFacts) *PlanFacts {
	t.Helper()
	pf, err := Facts(factsCtx(132, 2048), plan)
	if err != nil {
		t.Fatal(err)
	}
	if got := pf.Dispatches[0]; got != want {
		t.Errorf("facts\n got %+v\nwant %+v", got, want)
	}
	return pf
}

// TestFactsErrors: a kernel with no facts function, and a step whose
// push bytes do not match its row, fail naming the kernel.
func TestFactsErrors(t *testing.T) {
	p := factsStep(t, shaders.CopyVec4Name, map[string]uint32{shaders.SpecWorkgroupSize: 64}, map[string]uint32{"count": 1}, [3]uint32{1, 1, 1})
	saved := kernelFacts["copy_vec4.comp"]
	delete(kernelFacts, "copy_vec4.comp")
	_, err := Facts(factsCtx(0, 0), p)
	kernelFacts["copy_vec4.comp"] = saved
	if err == nil || !strings.Contains(err.Error(), "copy_vec4") || !strings.Contains(err.Error(), "no facts function") {
		t.Errorf("missing family: got %v", err)
	}
	p.Steps[0].Params = p.Steps[0].Params[:0]
	if _, err := Facts(factsCtx(0, 0), p); err == nil || !strings.Contains(err.Error(), "push bytes") {
		t.Errorf("short params: got %v", err)
	}
}
