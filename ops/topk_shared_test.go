//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// TestTopKSmallSharedMemory: on a device of Vulkan's least shared memory
// (maxComputeSharedMemorySize 16384, as the Raspberry Pi's V3DV reports;
// DeviceOptions.MaxSharedMemory lowers lavapipe's 32768 to it), TOP_K
// plans only kernels that declare at most that much: the radix, filter,
// maxima and split kernels declare more, so the planner takes the thread
// strategy (K up to its lists) or the sort, and the results equal the
// reference bit for bit. Forcing a strategy whose kernels do not fit is
// refused, naming the limit, and so is a cap below Vulkan's least.
func TestTopKSmallSharedMemory(t *testing.T) {
	d := testutil.OpenDML(t, dml.DeviceOptions{MaxSharedMemory: dml.MinSharedMemory})
	if got := d.Context().Limits.MaxComputeSharedMemorySize; got != dml.MinSharedMemory {
		t.Fatalf("maxComputeSharedMemorySize %d with MaxSharedMemory %d", got, dml.MinSharedMemory)
	}
	rng := testutil.Rand(t)
	rows := uint32(4)
	if testing.Short() {
		rows = 2
	}
	cases := []struct {
		dt    tensor.DataType
		sizes []uint32
		k     uint32
	}{
		{tensor.Float32, []uint32{rows, 32000}, 50},   // maxima elsewhere
		{tensor.Float32, []uint32{rows, 32000}, 1024}, // radix
		{tensor.Float32, []uint32{rows, 70001}, 2048}, // split
		{tensor.Float16, []uint32{3, 5000}, 20},       // filter
		{tensor.Int64, []uint32{rows, 3000}, 16},      // radix
		{tensor.UInt64, []uint32{rows, 3000}, 1},
		{tensor.Int8, []uint32{64, 64}, 8}, // lane, which fits
		{tensor.UInt16, []uint32{2, 3, 777}, 3},
	}
	for _, c := range cases {
		in := testutil.NewTensor(rng, c.dt, c.sizes, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, c.dt) })
		dir := ops.AxisDirection(rng.Intn(2))
		desc := topKDesc(in.Desc, uint32(len(c.sizes)-1), c.k, dir, tensor.UInt32)
		t.Run(fmt.Sprintf("%v/%v/K%d/%v", c.dt, c.sizes, c.k, dir), func(t *testing.T) {
			res := testutil.CheckOperator(t, d, desc, []*tensor.Tensor{in}, rng)
			plan, err := dml.PlanOperator(d.Context(), desc, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range plan.Kernels {
				m, err := shaders.Info(k.Variant)
				if err != nil {
					t.Fatal(err)
				}
				if m.WorkgroupBytes > dml.MinSharedMemory {
					t.Errorf("strategy %s: kernel %s declares %d bytes of shared memory", res.Strategy, k.Variant, m.WorkgroupBytes)
				}
			}
		})
	}

	in := testutil.NewTensor(rng, tensor.Float32, []uint32{2, 32000}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Float32) })
	for _, strat := range []string{ops.TopKStrategyRadix, ops.TopKStrategyFilter} {
		_, err := d.CreateOperatorWithKernel(topKDesc(in.Desc, 1, 50, ops.AxisDirectionDecreasing, tensor.UInt32), strat)
		var he *hresult.Error
		if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || !strings.Contains(err.Error(), "maxComputeSharedMemorySize 16384") ||
			!strings.Contains(err.Error(), `"sort" fits`) {
			t.Errorf("forced %s on 16384 bytes of shared memory: %v; want DXGI_ERROR_UNSUPPORTED naming maxComputeSharedMemorySize and the sort, which fits", strat, err)
		}
	}

	// 64-bit elements above the lists' K: the sort's 12-byte entries
	// declare 24576 bytes, and no strategy fits.
	in64 := testutil.NewTensor(rng, tensor.Int64, []uint32{2, 3000}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Int64) })
	_, err := d.CreateOperator(topKDesc(in64.Desc, 1, 17, ops.AxisDirectionDecreasing, tensor.UInt64))
	var he *hresult.Error
	if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || he.Field != "K" || !strings.Contains(err.Error(), "no TOP_K strategy fits") || !strings.Contains(err.Error(), "maxComputeSharedMemorySize 16384") {
		t.Errorf("INT64 K=17 on 16384 bytes of shared memory: %v; want DXGI_ERROR_UNSUPPORTED naming K and the limit", err)
	}
	_, err = d.CreateOperatorWithKernel(topKDesc(in64.Desc, 1, 17, ops.AxisDirectionDecreasing, tensor.UInt64), ops.TopKStrategySort)
	if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || !strings.Contains(err.Error(), "no TOP_K strategy fits the device at K = 17") {
		t.Errorf("INT64 K=17 forced sort on 16384 bytes of shared memory: %v; want DXGI_ERROR_UNSUPPORTED saying no strategy fits", err)
	}

	_, err = dml.CreateDevice(dml.DeviceOptions{MaxSharedMemory: dml.MinSharedMemory - 4})
	if !errors.As(err, &he) || he.Code != hresult.E_INVALIDARG || he.Field != "MaxSharedMemory" {
		t.Errorf("MaxSharedMemory %d: %v; want E_INVALIDARG naming the field", dml.MinSharedMemory-4, err)
	}
}

// TestTopKSharedMemoryFallbackPlans plans TOP_K for every value type,
// row length and K around each kernel's limits on lavapipe-like and
// GPU-like contexts of Vulkan's least shared memory (16384 bytes), with
// no device: every desc plans to kernels that declare at most that much
// and pass CheckPlan, or (64-bit elements above the lists' K, whose
// sort needs 24,576 bytes) is DXGI_ERROR_UNSUPPORTED. Some of the same
// descs plan kernels that declare more at 32768 bytes, so the fallback
// is what is tested.
func TestTopKSharedMemoryFallbackPlans(t *testing.T) {
	lvp := descfuzz.Lavapipe()
	gpu := descfuzz.Lavapipe()
	gpu.DeviceType = caps.DeviceTypeDiscreteGPU
	gpu.Limits.SubgroupSize, gpu.Limits.MinSubgroupSize, gpu.Limits.MaxSubgroupSize = 32, 32, 64
	gpu.Limits.MaxStorageBufferRange, gpu.Limits.MinStorageBufferOffsetAlignment = 1<<32-1, 64
	types := []tensor.DataType{tensor.Float32, tensor.Float16, tensor.Int32, tensor.Int16, tensor.Int8,
		tensor.UInt32, tensor.UInt16, tensor.UInt8, tensor.Int64, tensor.UInt64}
	fellBack := 0
	for _, base := range []*ops.Context{lvp, gpu} {
		small := *base
		small.Limits.MaxComputeSharedMemorySize = dml.MinSharedMemory
		for _, dt := range types {
			for _, n := range []uint32{64, 3000, 32000, 70001, 256000} {
				for _, k := range []uint32{1, 16, 17, 50, 1024, 2048} {
					if k > n {
						continue
					}
					idx := tensor.UInt32
					if dt.Size() == 8 {
						idx = tensor.UInt64
					}
					desc := topKDesc(tensor.NewDesc(dt, []uint32{8, n}), 1, k, ops.AxisDirectionDecreasing, idx)
					name := fmt.Sprintf("%v %s [8,%d] K=%d", base.DeviceType, dt, n, k)
					p, err := dml.PlanOperator(&small, desc, "")
					if dt.Size() == 8 && k > shaders.TopKListMax {
						var he *hresult.Error
						if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED {
							t.Errorf("%s: %v; want DXGI_ERROR_UNSUPPORTED (no strategy fits)", name, err)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					if err := ops.CheckPlan(&small, desc, p); err != nil {
						t.Errorf("%s: CheckPlan: %v", name, err)
					}
					for _, kr := range p.Kernels {
						if m, err := shaders.Info(kr.Variant); err != nil || m.WorkgroupBytes > dml.MinSharedMemory {
							t.Errorf("%s: kernel %s: %v, %d bytes of shared memory", name, kr.Variant, err, m.WorkgroupBytes)
						}
					}
					if big, err := dml.PlanOperator(base, desc, ""); err == nil {
						for _, kr := range big.Kernels {
							if m, _ := shaders.Info(kr.Variant); m.WorkgroupBytes > dml.MinSharedMemory {
								fellBack++
								break
							}
						}
					}
				}
			}
		}
	}
	if fellBack == 0 {
		t.Error("no desc planned a kernel of over 16384 bytes of shared memory at 32768: the fallback went untested")
	}
	t.Logf("%d descs fell back", fellBack)
}
