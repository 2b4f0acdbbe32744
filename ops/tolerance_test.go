package ops_test

import (
	"math"
	"testing"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// descWithTolerance is a desc that states a bound on its output 0.
type descWithTolerance struct {
	ops.Desc
	tol ops.Tolerance
}

func (d descWithTolerance) Tolerance(int) ops.Tolerance { return d.tol }

func TestToleranceAccepts(t *testing.T) {
	f32 := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	one := f32(1)
	cases := []struct {
		name      string
		tol       ops.Tolerance
		dt        tensor.DataType
		want, got uint64
		ok        bool
	}{
		{"exact equal", ops.Tolerance{}, tensor.Float32, one, one, true},
		{"exact 1 ulp", ops.Tolerance{}, tensor.Float32, one, one + 1, false},
		{"exact -0 vs +0", ops.Tolerance{}, tensor.Float32, f32(float32(math.Copysign(0, -1))), 0, false},
		{"ulp 2 within", ops.Tolerance{ULP: 2}, tensor.Float32, one, one + 2, true},
		{"ulp 2 beyond", ops.Tolerance{ULP: 2}, tensor.Float32, one, one + 3, false},
		{"ulp across zero", ops.Tolerance{ULP: 1}, tensor.Float32, f32(float32(math.Copysign(0, -1))), 0, true},
		{"ulp float16", ops.Tolerance{ULP: 1}, tensor.Float16, 0x3c00, 0x3c01, true},
		{"ulp float16 beyond", ops.Tolerance{ULP: 1}, tensor.Float16, 0x3c00, 0x3c02, false},
		{"rel within", ops.Tolerance{Rel: 1e-3}, tensor.Float32, f32(1000), f32(1000.5), true},
		{"rel beyond", ops.Tolerance{Rel: 1e-3}, tensor.Float32, f32(1000), f32(1002), false},
		{"nan any nan", ops.Tolerance{ULP: 1}, tensor.Float32, 0x7fc00000, 0xffc00001, true},
		{"nan vs number", ops.Tolerance{ULP: 1 << 40}, tensor.Float32, 0x7fc00000, one, false},
		{"integers exact", ops.Tolerance{ULP: 4, Rel: 1}, tensor.Int32, 5, 6, false},
	}
	for _, c := range cases {
		if got := c.tol.Accepts(c.dt, c.want, c.got); got != c.ok {
			t.Errorf("%s: Accepts(%v, %#x, %#x) = %v, want %v", c.name, c.dt, c.want, c.got, got, c.ok)
		}
	}
	var plain ops.Desc = &ops.ArgMax{}
	if !ops.ToleranceOf(plain, 0).Exact() {
		t.Error("ARGMAX must be compared exactly")
	}
	if got := ops.ToleranceOf(descWithTolerance{plain, ops.Tolerance{ULP: 3}}, 0); got.ULP != 3 {
		t.Errorf("ToleranceOf a Toleranced desc: %+v", got)
	}
}
