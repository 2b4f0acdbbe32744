//go:build cgo

package ops_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestIdentityRandom sweeps every type, ranks 1-8 and every input layout,
// with packed and padded outputs, on the device's own features and with the
// 8/16-bit storage fallbacks forced.
func TestIdentityRandom(t *testing.T) {
	rng := testutil.Rand(t)
	for _, mode := range []struct {
		name    string
		disable caps.Features
		staging bool
	}{
		{"native", caps.Features{}, false},
		{"words", caps.Features{StorageBuffer8Bit: true, StorageBuffer16Bit: true, ShaderInt8: true, ShaderInt16: true, ShaderInt64: true, ShaderFloat16: true}, false},
		{"staging", caps.Features{}, true},
	} {
		t.Run(mode.name, func(t *testing.T) {
			d := testutil.OpenDML(t, dml.DeviceOptions{Disable: mode.disable, ForceStaging: mode.staging})
			if d.GPU().Direct() == mode.staging {
				t.Fatalf("Direct() = %v with ForceStaging %v", d.GPU().Direct(), mode.staging)
			}
			for _, dt := range tensor.AllTypes {
				for rank := 1; rank <= 8; rank++ {
					sizes := testutil.RandomSizes(rng, rank, 5, 2000)
					l := testutil.Layouts[rng.Intn(len(testutil.Layouts))]
					in := identityInput(rng, dt, sizes, l)
					out := tensor.NewDesc(dt, sizes)
					if rng.Intn(2) == 0 {
						out = tensor.NewStridedDesc(dt, sizes, testutil.Strides(rng, sizes, testutil.Padded))
					}
					t.Run(fmt.Sprintf("%v/rank%d/%v", dt, rank, l), func(t *testing.T) {
						testutil.CheckOperator(t, d, &ops.ElementWiseIdentity{Input: in.Desc, Output: out}, []*tensor.Tensor{in}, rng)
					})
				}
			}
		})
	}
}

// identityInput is a tensor of sizes in layout l with random bits in every
// element.
func identityInput(rng *rand.Rand, dt tensor.DataType, sizes []uint32, l testutil.Layout) *tensor.Tensor {
	return testutil.NewTensor(rng, dt, sizes, l, func([]uint32) uint64 { return testutil.RandomBits(rng, dt) })
}

// TestIdentityVec4 covers the packed 16-byte copy, and checks it is the
// strategy chosen when it applies.
func TestIdentityVec4(t *testing.T) {
	rng := testutil.Rand(t)
	d := testutil.OpenDML(t, dml.DeviceOptions{})
	for _, dt := range tensor.AllTypes {
		sizes := []uint32{3, uint32(16 * (1 + rng.Intn(40)))}
		in := identityInput(rng, dt, sizes, testutil.Packed)
		res := testutil.CheckOperator(t, d, &ops.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(dt, sizes)}, []*tensor.Tensor{in}, rng)
		if res.Strategy != "vec4" {
			t.Fatalf("%v %v: strategy %q", dt, sizes, res.Strategy)
		}
	}
}

// TestIdentityWindowed copies packed tensors larger than one binding window
// (dml.DeviceOptions.BindingWindowCap), so that the vec4 copy runs as
// several windowed steps, as a tensor of the whole maxStorageBufferRange
// does on a real device; sizes fall just under, on and just over window
// boundaries.
func TestIdentityWindowed(t *testing.T) {
	rng := testutil.Rand(t)
	const window = 4096
	d := testutil.OpenDML(t, dml.DeviceOptions{BindingWindowCap: window})
	for _, vecs := range []uint32{1, 250, 251, 252, 253, 254, 255, 256, 500, 1000, 3001} {
		for _, dt := range []tensor.DataType{tensor.Float32, tensor.UInt8, tensor.Int64} {
			n := vecs * 16 / uint32(dt.Size())
			sizes := []uint32{n}
			in := identityInput(rng, dt, sizes, testutil.Packed)
			desc := &ops.ElementWiseIdentity{Input: in.Desc, Output: tensor.NewDesc(dt, sizes)}
			t.Run(fmt.Sprintf("%v/%d", dt, n), func(t *testing.T) {
				ctx := &ops.Context{FeatureLevel: ops.FeatureLevel6_4, Features: d.GPU().Features, Limits: d.GPU().Limits, BindingWindowCap: window}
				plan, err := desc.Plan(ctx)
				if err != nil {
					t.Fatal(err)
				}
				per := (window - 20 - max(int(ctx.Limits.MinStorageBufferOffsetAlignment), 4)) / 16
				if want := (int(vecs) + per - 1) / per; plan.Strategy != "vec4" || len(plan.Steps) != want {
					t.Fatalf("strategy %s with %d steps, want vec4 with %d", plan.Strategy, len(plan.Steps), want)
				}
				testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			})
		}
	}
}
