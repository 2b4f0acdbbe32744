package gpu

/*
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/vkdml/vkdml/caps"
)

// Memory property bits (VkMemoryPropertyFlagBits).
const (
	MemoryDeviceLocal  uint32 = 0x1
	MemoryHostVisible  uint32 = 0x2
	MemoryHostCoherent uint32 = 0x4
	MemoryHostCached   uint32 = 0x8
)

// MemoryType is one of the device's memory types.
type MemoryType struct {
	Flags    uint32 `json:"flags"`
	Heap     uint32 `json:"heap"`
	HeapSize uint64 `json:"heapSize"`
}

// Describe spells the flags out: "device-local|host-visible|...".
func (m MemoryType) Describe() string {
	s := ""
	for _, f := range []struct {
		bit  uint32
		name string
	}{{MemoryDeviceLocal, "device-local"}, {MemoryHostVisible, "host-visible"}, {MemoryHostCoherent, "host-coherent"}, {MemoryHostCached, "host-cached"}} {
		if m.Flags&f.bit != 0 {
			if s != "" {
				s += "|"
			}
			s += f.name
		}
	}
	if s == "" {
		s = "none"
	}
	return s
}

// DeviceInfo is what vkdml reads of a physical device, once.
type DeviceInfo struct {
	Index         int             `json:"index"`
	Name          string          `json:"name"`
	Type          caps.DeviceType `json:"-"`
	TypeName      string          `json:"type"`
	APIVersion    uint32          `json:"-"`
	API           string          `json:"apiVersion"`
	DriverVersion uint32          `json:"driverVersion"`
	DriverName    string          `json:"driverName"`
	DriverInfo    string          `json:"driverInfo"`
	VendorID      uint32          `json:"vendorID"`
	DeviceID      uint32          `json:"deviceID"`
	DeviceUUID    [16]byte        `json:"-"`
	UUID          string          `json:"deviceUUID"`
	// DeviceLUID is VkPhysicalDeviceIDProperties.deviceLUID, valid when
	// LUIDValid (Windows drivers set it; it is the DXGI adapter's LUID,
	// which pairs a Vulkan device with its D3D12 adapter).
	DeviceLUID  [8]byte       `json:"-"`
	LUIDValid   bool          `json:"-"`
	Features    caps.Features `json:"features"`
	Limits      caps.Limits   `json:"limits"`
	MemoryTypes []MemoryType  `json:"memoryTypes"`
	// ComputeUnitSource names the extension Limits.ComputeUnits and
	// Limits.LanesPerComputeUnit come from; empty when the driver reports
	// them through none (both are then 0).
	ComputeUnitSource string `json:"computeUnitSource,omitempty"`

	computeFamily int
	raw           C.vkdml_device_info
}

// VersionString formats a Vulkan version number as "1.3.230".
func VersionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", (v>>22)&0x7f, (v>>12)&0x3ff, v&0xfff)
}

func queryDevice(pd C.VkPhysicalDevice, index int) *DeviceInfo {
	var raw C.vkdml_device_info
	C.vkdml_query_device(pd, &raw)
	d := &DeviceInfo{
		Index:         index,
		Name:          C.GoString(&raw.name[0]),
		Type:          caps.DeviceType(raw.device_type),
		APIVersion:    uint32(raw.api_version),
		DriverVersion: uint32(raw.driver_version),
		DriverName:    C.GoString(&raw.driver_name[0]),
		DriverInfo:    C.GoString(&raw.driver_info[0]),
		VendorID:      uint32(raw.vendor_id),
		DeviceID:      uint32(raw.device_id),
		computeFamily: int(raw.compute_family),
		raw:           raw,
	}
	d.TypeName = d.Type.String()
	d.API = VersionString(d.APIVersion)
	copy(d.DeviceUUID[:], C.GoBytes(unsafe.Pointer(&raw.device_uuid[0]), 16))
	u := d.DeviceUUID
	d.UUID = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	copy(d.DeviceLUID[:], C.GoBytes(unsafe.Pointer(&raw.device_luid[0]), 8))
	d.LUIDValid = raw.device_luid_valid != 0
	computeOps := uint32(raw.subgroup_ops)
	if uint32(raw.subgroup_stages)&stageCompute == 0 {
		computeOps = 0
	}
	d.Features = caps.Features{
		ShaderInt64:           raw.shader_int64 != 0,
		ShaderInt16:           raw.shader_int16 != 0,
		ShaderInt8:            raw.shader_int8 != 0,
		ShaderFloat16:         raw.shader_float16 != 0,
		StorageBuffer8Bit:     raw.storage_buffer_8bit != 0,
		StorageBuffer16Bit:    raw.storage_buffer_16bit != 0,
		SubgroupArithmetic:    computeOps&caps.SubgroupArithmetic != 0,
		SubgroupSizeControl:   computeSizeControl(raw.subgroup_size_control != 0, uint32(raw.required_subgroup_size_stages)),
		ComputeFullSubgroups:  raw.compute_full_subgroups != 0,
		SubgroupExtendedTypes: raw.subgroup_extended_types != 0,

		DenormPreserveFloat32:           raw.denorm_preserve_float32 != 0,
		SignedZeroInfNanPreserveFloat32: raw.signed_zero_inf_nan_preserve_float32 != 0,
		RoundingModeRTEFloat32:          raw.rounding_mode_rte_float32 != 0,
	}
	d.Limits = caps.Limits{
		SubgroupSize:                    uint32(raw.subgroup_size),
		MinSubgroupSize:                 uint32(raw.min_subgroup_size),
		MaxSubgroupSize:                 uint32(raw.max_subgroup_size),
		SubgroupOperations:              computeOps,
		MaxStorageBufferRange:           uint32(raw.max_storage_buffer_range),
		MaxPushConstantsSize:            uint32(raw.max_push_constants_size),
		MaxComputeSharedMemorySize:      uint32(raw.max_shared_memory),
		MaxComputeWorkGroupInvocations:  uint32(raw.max_workgroup_invocations),
		MaxPerStageStorageBuffers:       uint32(raw.max_per_stage_storage_buffers),
		MinStorageBufferOffsetAlignment: uint64(raw.min_storage_buffer_offset_alignment),
		MaxTexelBufferElements:          uint32(raw.max_texel_buffer_elements),
		MinTexelBufferOffsetAlignment:   uint64(raw.min_texel_buffer_offset_alignment),
		MaxMemoryAllocationSize:         uint64(raw.max_memory_allocation_size),
		MaxBufferSize:                   uint64(raw.max_buffer_size),
		TimestampPeriod:                 float32(raw.timestamp_period),
		TimestampValidBits:              uint32(raw.compute_family_timestamp_bits),
	}
	d.Limits.ComputeUnits, d.Limits.LanesPerComputeUnit = uint32(raw.compute_units), uint32(raw.lanes_per_compute_unit)
	d.ComputeUnitSource = computeUnitSources[raw.compute_unit_source]
	for i := 0; i < 3; i++ {
		d.Limits.MaxComputeWorkGroupSize[i] = uint32(raw.max_workgroup_size[i])
		d.Limits.MaxComputeWorkGroupCount[i] = uint32(raw.max_workgroup_count[i])
	}
	for i := 0; i < int(raw.memory_type_count); i++ {
		heap := uint32(raw.memory_type_heap[i])
		d.MemoryTypes = append(d.MemoryTypes, MemoryType{
			Flags:    uint32(raw.memory_type_flags[i]),
			Heap:     heap,
			HeapSize: uint64(raw.memory_heap_size[heap]),
		})
	}
	return d
}

// computeUnitSources names the vendor extensions by vkshim.h's VKDML_CU_*.
var computeUnitSources = map[C.uint32_t]string{
	C.VKDML_CU_NV_SM_BUILTINS:             "VK_NV_shader_sm_builtins",
	C.VKDML_CU_AMD_SHADER_CORE_PROPERTIES: "VK_AMD_shader_core_properties",
	C.VKDML_CU_ARM_SHADER_CORE_BUILTINS:   "VK_ARM_shader_core_builtins",
}

// Usable says why vkdml cannot use the device, or "" when it can.
// stageCompute is VK_SHADER_STAGE_COMPUTE_BIT.
const stageCompute = 0x20

// computeSizeControl is whether kernels may require a subgroup size: the
// subgroupSizeControl feature alone lets a device leave the compute stage
// out of requiredSubgroupSizeStages, and a compute pipeline that required
// a size there would be invalid usage
// (VUID-VkPipelineShaderStageCreateInfo-pNext-02755). Such a device plans
// as one without size control: the planners then keep to kernels that
// take any subgroup size, and the feature is not enabled.
func computeSizeControl(feature bool, requiredStages uint32) bool {
	return feature && requiredStages&stageCompute != 0
}

func (d *DeviceInfo) Usable() string {
	if d.APIVersion < (1<<22 | 1<<12) {
		return fmt.Sprintf("Vulkan %s is below vkdml's floor of 1.1", d.API)
	}
	if d.computeFamily < 0 {
		return "no queue family supports compute"
	}
	return ""
}
