package ops

import (
	"testing"

	"github.com/vkdml/vkdml/shaders"
)

// TestMaxUnpoolDispatchFacts checks the three passes' facts on hand-made steps
// whose answers follow from maxunpool.comp's loops.
func TestMaxUnpoolDispatchFacts(t *testing.T) {
	wg := shaders.SpecWorkgroupSize
	cases := []struct {
		name string
		plan *Plan
		want DispatchFacts
	}{
		{"clear: 1000 winner words on 8 groups of 128",
			factsStep(t, shaders.MaxUnpoolClearName, map[string]uint32{wg: 128}, map[string]uint32{"count": 1000}, [3]uint32{8, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesWritten: 4000}},
		{"scatter: 300 UINT64 indices",
			factsStep(t, shaders.MaxUnpoolScatterName(64, false), map[string]uint32{wg: 128}, map[string]uint32{"total": 300, "out_total": 1000}, [3]uint32{3, 1, 1}),
			DispatchFacts{Lanes: 384, EmptyLanes: 84, BytesPerLaneInFlight: 8, BytesRead: 2400, BytesWritten: 1200}},
		{"gather: 1000 FLOAT16 outputs over words",
			factsStep(t, shaders.MaxUnpoolGatherName(16, false, false), map[string]uint32{wg: 128}, map[string]uint32{"total": 1000}, [3]uint32{8, 1, 1}),
			DispatchFacts{Lanes: 1024, EmptyLanes: 24, BytesPerLaneInFlight: 4, BytesRead: 6000, BytesWritten: 2000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkDispatchFacts(t, c.plan, c.want)
		})
	}
}
