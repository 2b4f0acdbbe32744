package ops_test

import (
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/ops"
)

// TestExactGrid: ExactGrid launches no workgroup past the last partial one
// (fewer than y empty when it must spill into y), uses x up to the device's
// limit, and stays inside the device's counts; GridGroups, lavapipe's,
// keeps its 65535-wide rows.
func TestExactGrid(t *testing.T) {
	wide := caps.Limits{MaxComputeWorkGroupCount: [3]uint32{1<<31 - 1, 65535, 65535}}
	narrow := caps.Limits{MaxComputeWorkGroupCount: [3]uint32{65535, 65535, 65535}}
	for _, c := range []struct {
		lim  caps.Limits
		n    uint64
		wg   uint32
		want [3]uint32
	}{
		{wide, 65536, 1, [3]uint32{65536, 1, 1}},
		{wide, 0, 64, [3]uint32{1, 1, 1}},
		{wide, 1000, 64, [3]uint32{16, 1, 1}},
		{narrow, 65536, 1, [3]uint32{32768, 2, 1}},
		{narrow, 65535*3 + 1, 1, [3]uint32{49152, 4, 1}},
		{narrow, 1 << 40, 1, [3]uint32{65535, 65535, 1}}, // the loops cover the rest
		{wide, 1 << 40, 256, [3]uint32{(1<<32 - 1) / 256, 1, 1}},
	} {
		g := ops.ExactGrid(c.n, c.wg, c.lim)
		if g != c.want {
			t.Errorf("ExactGrid(%d, %d, %v) = %v, want %v", c.n, c.wg, c.lim.MaxComputeWorkGroupCount, g, c.want)
		}
		groups := max((c.n+uint64(c.wg)-1)/uint64(c.wg), 1)
		launched := uint64(g[0]) * uint64(g[1]) * uint64(g[2])
		if launched > groups && launched-groups >= uint64(g[1]) {
			t.Errorf("ExactGrid(%d, %d): %v launches %d workgroups for %d", c.n, c.wg, g, launched, groups)
		}
	}
	if g := ops.GridGroups(65536, 1, wide); g != [3]uint32{65535, 2, 1} {
		t.Errorf("GridGroups(65536, 1) = %v, want lavapipe's [65535 2 1]", g)
	}
}
