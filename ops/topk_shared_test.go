//go:build cgo

package ops_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
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
		if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || !strings.Contains(err.Error(), "maxComputeSharedMemorySize 16384") {
			t.Errorf("forced %s on 16384 bytes of shared memory: %v; want DXGI_ERROR_UNSUPPORTED naming maxComputeSharedMemorySize", strat, err)
		}
	}

	// 64-bit elements above the lists' K: the sort's 12-byte entries
	// declare 24576 bytes, and no strategy fits.
	in64 := testutil.NewTensor(rng, tensor.Int64, []uint32{2, 3000}, testutil.Packed, func([]uint32) uint64 { return topKBits(rng, tensor.Int64) })
	_, err := d.CreateOperator(topKDesc(in64.Desc, 1, 17, ops.AxisDirectionDecreasing, tensor.UInt64))
	var he *hresult.Error
	if !errors.As(err, &he) || he.Code != hresult.DXGI_ERROR_UNSUPPORTED || !strings.Contains(err.Error(), "no TOP_K strategy fits") || !strings.Contains(err.Error(), "maxComputeSharedMemorySize 16384") {
		t.Errorf("INT64 K=17 on 16384 bytes of shared memory: %v; want DXGI_ERROR_UNSUPPORTED naming the limit", err)
	}

	_, err = dml.CreateDevice(dml.DeviceOptions{MaxSharedMemory: dml.MinSharedMemory - 4})
	if err == nil || !strings.Contains(err.Error(), "MaxSharedMemory") {
		t.Errorf("MaxSharedMemory %d: %v; want E_INVALIDARG naming the field", dml.MinSharedMemory-4, err)
	}
}
