//go:build cgo

package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKMaxima: the maxima strategy (topk_maxima.comp) on rows that
// reach its bounds: all-equal rows and rows of few values (the K-th group
// best tied with many), ascending and descending rows (the most entries
// gathered: K-1 whole groups), NaNs and signed zeros (K beyond the
// numbers: the lowest-indexed NaNs), rows whose starts are not 16-byte
// aligned (a head and a tail of scalar positions), 32-bit integers, both
// directions, 64-bit indices; K from 2 to the most its bound allows.
func TestTopKMaxima(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	rng := testutil.Rand(t)
	fills := append(topKFills(rng), topKFill{"descending", func(i int) uint64 { return uint64(math.Float32bits(float32(-i))) }},
		topKFill{"mostly-nan", func(int) uint64 {
			if rng.Intn(200) == 0 {
				return uint64(rng.Uint32() &^ 0x40000000) // a number
			}
			return 0x7fc00000 | uint64(rng.Intn(4))
		}})
	types := []tensor.DataType{tensor.Float32, tensor.Int32, tensor.UInt32}
	// -short: two fills (the all-equal one, whose K-th group best ties
	// with every group's, and one drawn), one K each (a pipeline a K
	// takes lavapipe a second or two to compile).
	short := map[int]bool{0: true, 1 + rng.Intn(len(fills)-1): true}
	for fi, f := range fills {
		if testing.Short() && !short[fi] {
			continue
		}
		dt := types[0]
		if fi%2 == 1 {
			dt = types[rng.Intn(len(types))]
		}
		// 3 rows: the second and third start 4n bytes after the first,
		// so n odd leaves them unaligned.
		n := 4000 + rng.Intn(60000)
		if fi%3 == 0 {
			n = 4000 + rng.Intn(5000)
		}
		in := testutil.NewTensor(rng, dt, []uint32{3, uint32(n)}, testutil.Packed, func(c []uint32) uint64 { return f.bits(int(c[1])) })
		// K: 2, the largest the planner's bound takes, and one between.
		kmax := uint32(2)
		for kmax < 2048 && ops.TopKMaximaTakes(uint64(n), uint64(kmax+1)) {
			kmax++
		}
		ks := []uint32{2, kmax, 2 + uint32(rng.Intn(int(kmax-1)))}
		if testing.Short() {
			ks = ks[1+rng.Intn(2):][:1]
		}
		for _, k := range ks {
			dir := ops.AxisDirection(rng.Intn(2))
			idx := tensor.UInt32
			if rng.Intn(2) == 0 {
				idx = tensor.UInt64
			}
			p := &testutil.ForcedPlan{Desc: topKDesc(in.Desc, 1, k, dir, idx), Kernel: ops.TopKStrategyMaxima}
			t.Run(fmt.Sprintf("%s/%v/n%d/K%d/%v/%v", f.name, dt, n, k, dir, idx), func(t *testing.T) {
				testutil.CheckOperator(t, d, p, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
