// Package caps describes what a Vulkan device offers vkdml's kernels: its
// optional features, its limits, its type and its subgroup support, as
// plain data.
//
// The gpu package fills these values from the driver; the ops package plans
// kernels against them. Keeping them here, free of cgo, lets operators be
// validated, planned and fuzzed on a machine with no Vulkan at all
// (CGO_ENABLED=0 go test ./ops).
package caps

// DeviceType is VkPhysicalDeviceType.
type DeviceType uint32

// Vulkan's device types, with VkPhysicalDeviceType's values.
const (
	DeviceTypeOther         DeviceType = 0
	DeviceTypeIntegratedGPU DeviceType = 1
	DeviceTypeDiscreteGPU   DeviceType = 2
	DeviceTypeVirtualGPU    DeviceType = 3
	DeviceTypeCPU           DeviceType = 4
)

// deviceTypeNames are the named device types with their short names, as
// `vkdml devices` prints them, in the order of preference for the default
// choice: discrete, then integrated, then virtual, then CPU. Any other
// type is "other" and comes last.
var deviceTypeNames = []struct {
	t    DeviceType
	name string
}{
	{DeviceTypeDiscreteGPU, "discrete-gpu"},
	{DeviceTypeIntegratedGPU, "integrated-gpu"},
	{DeviceTypeVirtualGPU, "virtual-gpu"},
	{DeviceTypeCPU, "cpu"},
}

// String is the type's short name, as `vkdml devices` prints it.
func (t DeviceType) String() string {
	if i := t.Preference(); i < len(deviceTypeNames) {
		return deviceTypeNames[i].name
	}
	return "other"
}

// Preference ranks device types for the default choice, lowest first
// (deviceTypeNames' order).
func (t DeviceType) Preference() int {
	for i, e := range deviceTypeNames {
		if e.t == t {
			return i
		}
	}
	return len(deviceTypeNames)
}

// Subgroup operation bits (VkSubgroupFeatureFlagBits), as in
// Limits.SubgroupOperations.
const (
	SubgroupBasic           uint32 = 0x001
	SubgroupVote            uint32 = 0x002
	SubgroupArithmetic      uint32 = 0x004
	SubgroupBallot          uint32 = 0x008
	SubgroupShuffle         uint32 = 0x010
	SubgroupShuffleRelative uint32 = 0x020
	SubgroupClustered       uint32 = 0x040
	SubgroupQuad            uint32 = 0x080
)

// Features are the optional device capabilities vkdml's kernels can use.
// Each has a fallback path, so a device without one still runs every
// operator; a device option can turn them off to force those paths on a
// device that has them.
type Features struct {
	ShaderInt64           bool `json:"shaderInt64"`
	ShaderInt16           bool `json:"shaderInt16"`
	ShaderInt8            bool `json:"shaderInt8"`
	ShaderFloat16         bool `json:"shaderFloat16"`
	StorageBuffer8Bit     bool `json:"storageBuffer8BitAccess"`
	StorageBuffer16Bit    bool `json:"storageBuffer16BitAccess"`
	SubgroupArithmetic    bool `json:"subgroupArithmetic"` // arithmetic ops in compute shaders
	SubgroupSizeControl   bool `json:"subgroupSizeControl"`
	ComputeFullSubgroups  bool `json:"computeFullSubgroups"`
	SubgroupExtendedTypes bool `json:"shaderSubgroupExtendedTypes"`
	// DenormPreserveFloat32 and SignedZeroInfNanPreserveFloat32 are float
	// controls properties (Vulkan 1.2): shaders may ask that 32-bit
	// denormals be kept and that ±0, ±∞ and NaN be respected, so that a
	// native float comparison orders every value exactly (max pooling's
	// runs compare floats natively where both hold).
	DenormPreserveFloat32           bool `json:"shaderDenormPreserveFloat32"`
	SignedZeroInfNanPreserveFloat32 bool `json:"shaderSignedZeroInfNanPreserveFloat32"`
	// RoundingModeRTEFloat32: shaders may ask that 32-bit float
	// arithmetic round to nearest even (Vulkan otherwise lets a correctly
	// rounded multiply round in an implementation-defined mode); with the
	// two above, REDUCE MULTIPLY multiplies FLOAT32 natively (rule 42).
	RoundingModeRTEFloat32 bool `json:"shaderRoundingModeRTEFloat32"`
}

// Without returns f with every feature set in off cleared.
func (f Features) Without(off Features) Features {
	f.ShaderInt64 = f.ShaderInt64 && !off.ShaderInt64
	f.ShaderInt16 = f.ShaderInt16 && !off.ShaderInt16
	f.ShaderInt8 = f.ShaderInt8 && !off.ShaderInt8
	f.ShaderFloat16 = f.ShaderFloat16 && !off.ShaderFloat16
	f.StorageBuffer8Bit = f.StorageBuffer8Bit && !off.StorageBuffer8Bit
	f.StorageBuffer16Bit = f.StorageBuffer16Bit && !off.StorageBuffer16Bit
	f.SubgroupArithmetic = f.SubgroupArithmetic && !off.SubgroupArithmetic
	f.SubgroupSizeControl = f.SubgroupSizeControl && !off.SubgroupSizeControl
	f.ComputeFullSubgroups = f.ComputeFullSubgroups && !off.ComputeFullSubgroups
	f.SubgroupExtendedTypes = f.SubgroupExtendedTypes && !off.SubgroupExtendedTypes
	f.DenormPreserveFloat32 = f.DenormPreserveFloat32 && !off.DenormPreserveFloat32
	f.SignedZeroInfNanPreserveFloat32 = f.SignedZeroInfNanPreserveFloat32 && !off.SignedZeroInfNanPreserveFloat32
	f.RoundingModeRTEFloat32 = f.RoundingModeRTEFloat32 && !off.RoundingModeRTEFloat32
	return f
}

// Limits are the device limits vkdml plans kernels with.
type Limits struct {
	SubgroupSize                    uint32    `json:"subgroupSize"`
	MinSubgroupSize                 uint32    `json:"minSubgroupSize"`
	MaxSubgroupSize                 uint32    `json:"maxSubgroupSize"`
	SubgroupOperations              uint32    `json:"subgroupOperations"` // Subgroup* bits supported in compute
	MaxStorageBufferRange           uint32    `json:"maxStorageBufferRange"`
	MaxPushConstantsSize            uint32    `json:"maxPushConstantsSize"`
	MaxComputeSharedMemorySize      uint32    `json:"maxComputeSharedMemorySize"`
	MaxComputeWorkGroupInvocations  uint32    `json:"maxComputeWorkGroupInvocations"`
	MaxComputeWorkGroupSize         [3]uint32 `json:"maxComputeWorkGroupSize"`
	MaxComputeWorkGroupCount        [3]uint32 `json:"maxComputeWorkGroupCount"`
	MaxPerStageStorageBuffers       uint32    `json:"maxPerStageDescriptorStorageBuffers"`
	MinStorageBufferOffsetAlignment uint64    `json:"minStorageBufferOffsetAlignment"`
	// MaxTexelBufferElements and MinTexelBufferOffsetAlignment bound the
	// uniform texel buffers some kernels read their input through (one
	// texel is 16 bytes, R32G32B32A32_UINT); 0 (a profile that omits
	// them) means unknown, and planners then use storage buffers.
	MaxTexelBufferElements        uint32  `json:"maxTexelBufferElements,omitempty"`
	MinTexelBufferOffsetAlignment uint64  `json:"minTexelBufferOffsetAlignment,omitempty"`
	MaxMemoryAllocationSize       uint64  `json:"maxMemoryAllocationSize"`
	MaxBufferSize                 uint64  `json:"maxBufferSize"`
	TimestampPeriod               float32 `json:"timestampPeriod"` // nanoseconds per tick
	TimestampValidBits            uint32  `json:"timestampValidBits"`
	// ComputeUnits is the device's compute units (NVIDIA's SMs, AMD's
	// CUs, Arm's shader cores) and LanesPerComputeUnit the invocations one
	// of them keeps resident at once: together they bound how many loads
	// a plan can have in flight. Drivers report them only through vendor
	// extensions (gpu reads VK_NV_shader_sm_builtins,
	// VK_AMD_shader_core_properties and VK_ARM_shader_core_builtins); 0
	// means unknown.
	ComputeUnits        uint32 `json:"computeUnits"`
	LanesPerComputeUnit uint32 `json:"lanesPerComputeUnit"`
}

// ResidentLanes is the invocations the whole device keeps resident at
// once, ComputeUnits × LanesPerComputeUnit; 0 when either is unknown.
func (l Limits) ResidentLanes() uint64 {
	return uint64(l.ComputeUnits) * uint64(l.LanesPerComputeUnit)
}
