// vkshim_device.c: reading a physical device's properties and features,
// and creating a logical device with what vkdml uses. See vkshim.h.
#include "vkshim_funcs.h"

#include <stdlib.h>
#include <string.h>

static int has_device_extension(VkExtensionProperties *props, uint32_t n, const char *name) {
	for (uint32_t i = 0; i < n; i++) {
		if (strcmp(props[i].extensionName, name) == 0) {
			return 1;
		}
	}
	return 0;
}

// chain_link is a structure that joins a pNext chain when on. For device
// creation, ext names the extension that provides it, which the device
// needs unless core (its API version has the structure).
typedef struct {
	int on;
	void *s;
	const char *ext;
	int core;
} chain_link;

// chain appends the structures of the n links that are on, in order, after
// last, the chain's last structure. Every chainable structure starts with
// sType and pNext, so each is reached as a VkBaseOutStructure.
static void chain(void *last, const chain_link *links, size_t n) {
	VkBaseOutStructure *tail = last;
	for (size_t i = 0; i < n; i++) {
		if (links[i].on) {
			tail->pNext = links[i].s;
			tail = links[i].s;
		}
	}
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// query_compute_units reads the compute-unit count and the lanes one unit
// keeps resident from the first vendor extension the device has that
// reports them; it leaves both 0 (source VKDML_CU_NONE) when it has none.
static void query_compute_units(VkPhysicalDevice pd, vkdml_device_info *out) {
	VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
	VkPhysicalDeviceShaderCorePropertiesAMD amd = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
	VkPhysicalDeviceShaderCoreProperties2AMD amd2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
	VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
	VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	chain_link links[] = {
	    {.on = out->ext_nv_sm_builtins, .s = &nv},
	    {.on = out->ext_amd_core_properties, .s = &amd},
	    {.on = out->ext_amd_core_properties2, .s = &amd2},
	    {.on = out->ext_arm_core_builtins, .s = &arm},
	};
	chain(&p2, links, COUNT(links));
	if (p2.pNext == NULL) {
		return;
	}
	p_vkGetPhysicalDeviceProperties2(pd, &p2);
	if (out->ext_nv_sm_builtins && nv.shaderSMCount > 0) {
		out->compute_units = nv.shaderSMCount;
		out->lanes_per_compute_unit = nv.shaderWarpsPerSM * out->subgroup_size;
		out->compute_unit_source = VKDML_CU_NV_SM_BUILTINS;
	} else if (out->ext_amd_core_properties && amd.computeUnitsPerShaderArray > 0) {
		out->compute_units =
		    amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
		// The product counts the units the chip was designed with;
		// properties2 counts those enabled on this part.
		if (out->ext_amd_core_properties2 && amd2.activeComputeUnitCount > 0) {
			out->compute_units = amd2.activeComputeUnitCount;
		}
		out->lanes_per_compute_unit = amd.wavefrontsPerSimd * amd.simdPerComputeUnit * amd.wavefrontSize;
		out->compute_unit_source = VKDML_CU_AMD_SHADER_CORE_PROPERTIES;
	} else if (out->ext_arm_core_builtins && arm.shaderCoreCount > 0) {
		out->compute_units = arm.shaderCoreCount;
		out->lanes_per_compute_unit = arm.shaderWarpsPerCore * out->subgroup_size;
		out->compute_unit_source = VKDML_CU_ARM_SHADER_CORE_BUILTINS;
	}
}

void vkdml_query_device(VkPhysicalDevice pd, vkdml_device_info *out) {
	memset(out, 0, sizeof(*out));

	uint32_t next = 0;
	VkExtensionProperties *exts = NULL;
	if (p_vkEnumerateDeviceExtensionProperties(pd, NULL, &next, NULL) == VK_SUCCESS && next > 0) {
		exts = calloc(next, sizeof(*exts));
		if (exts == NULL || p_vkEnumerateDeviceExtensionProperties(pd, NULL, &next, exts) < 0) {
			next = 0;
		}
	}

	VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	p_vkGetPhysicalDeviceProperties2(pd, &p2);
	uint32_t api = p2.properties.apiVersion;
	int v12 = VK_API_VERSION_MINOR(api) >= 2 || VK_API_VERSION_MAJOR(api) > 1;
	int v13 = VK_API_VERSION_MINOR(api) >= 3 || VK_API_VERSION_MAJOR(api) > 1;
	out->ext_8bit_storage = v12 || has_device_extension(exts, next, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
	out->ext_float16_int8 = v12 || has_device_extension(exts, next, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
	out->ext_driver_properties = v12 || has_device_extension(exts, next, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
	out->ext_subgroup_size_control =
	    v13 || has_device_extension(exts, next, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
	out->ext_subgroup_extended_types =
	    v12 || has_device_extension(exts, next, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME);
	out->ext_nv_sm_builtins = has_device_extension(exts, next, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
	out->ext_amd_core_properties = has_device_extension(exts, next, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
	out->ext_amd_core_properties2 = has_device_extension(exts, next, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
	out->ext_arm_core_builtins = has_device_extension(exts, next, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
	free(exts);

	// Properties, with only the structures this device knows in the chain.
	VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
	VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
	VkPhysicalDeviceSubgroupSizeControlProperties sgc = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
	p2.pNext = &sg;
	sg.pNext = &id;
	chain_link props[] = {
	    {.on = out->ext_driver_properties, .s = &drv},
	    {.on = out->ext_subgroup_size_control, .s = &sgc},
	};
	chain(&id, props, COUNT(props));
	p_vkGetPhysicalDeviceProperties2(pd, &p2);

	VkPhysicalDeviceProperties *p = &p2.properties;
	memcpy(out->name, p->deviceName, sizeof(out->name));
	out->name[sizeof(out->name) - 1] = 0;
	memcpy(out->driver_name, drv.driverName, sizeof(out->driver_name));
	out->driver_name[sizeof(out->driver_name) - 1] = 0;
	memcpy(out->driver_info, drv.driverInfo, sizeof(out->driver_info));
	out->driver_info[sizeof(out->driver_info) - 1] = 0;
	memcpy(out->device_uuid, id.deviceUUID, VK_UUID_SIZE);
	memcpy(out->driver_uuid, id.driverUUID, VK_UUID_SIZE);
	memcpy(out->device_luid, id.deviceLUID, VK_LUID_SIZE);
	out->device_luid_valid = id.deviceLUIDValid;
	out->api_version = api;
	out->driver_version = p->driverVersion;
	out->vendor_id = p->vendorID;
	out->device_id = p->deviceID;
	out->device_type = p->deviceType;
	out->driver_id = drv.driverID;

	out->subgroup_size = sg.subgroupSize;
	out->subgroup_stages = sg.supportedStages;
	out->subgroup_ops = sg.supportedOperations;
	out->subgroup_quad_all_stages = sg.quadOperationsInAllStages;
	out->min_subgroup_size = out->ext_subgroup_size_control ? sgc.minSubgroupSize : sg.subgroupSize;
	out->max_subgroup_size = out->ext_subgroup_size_control ? sgc.maxSubgroupSize : sg.subgroupSize;
	out->required_subgroup_size_stages = out->ext_subgroup_size_control ? sgc.requiredSubgroupSizeStages : 0;
	query_compute_units(pd, out); // after subgroup_size, which it reads

	VkPhysicalDeviceLimits *l = &p->limits;
	out->max_storage_buffer_range = l->maxStorageBufferRange;
	out->max_push_constants_size = l->maxPushConstantsSize;
	out->max_shared_memory = l->maxComputeSharedMemorySize;
	out->max_workgroup_invocations = l->maxComputeWorkGroupInvocations;
	for (int i = 0; i < 3; i++) {
		out->max_workgroup_size[i] = l->maxComputeWorkGroupSize[i];
		out->max_workgroup_count[i] = l->maxComputeWorkGroupCount[i];
	}
	out->max_bound_descriptor_sets = l->maxBoundDescriptorSets;
	out->max_per_stage_storage_buffers = l->maxPerStageDescriptorStorageBuffers;
	out->min_storage_buffer_offset_alignment = l->minStorageBufferOffsetAlignment;
	out->max_texel_buffer_elements = l->maxTexelBufferElements;
	out->min_texel_buffer_offset_alignment = l->minTexelBufferOffsetAlignment;
	out->non_coherent_atom_size = l->nonCoherentAtomSize;
	out->timestamp_period = l->timestampPeriod;
	out->timestamp_compute_and_graphics = l->timestampComputeAndGraphics;

	// Maintenance3 (core in 1.1) carries maxMemoryAllocationSize; Vulkan
	// 1.3's maintenance4 carries maxBufferSize.
	VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
	VkPhysicalDeviceMaintenance4Properties m4 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
	VkPhysicalDeviceProperties2 q2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
	if (v13) {
		m3.pNext = &m4;
	}
	p_vkGetPhysicalDeviceProperties2(pd, &q2);
	out->max_memory_allocation_size = m3.maxMemoryAllocationSize;
	// Without maintenance4 there is no stated limit; the storage range and
	// allocation size bound what vkdml asks for anyway.
	out->max_buffer_size = v13 ? m4.maxBufferSize : m3.maxMemoryAllocationSize;

	// Features.
	VkPhysicalDevice16BitStorageFeatures s16 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
	VkPhysicalDevice8BitStorageFeatures s8 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
	VkPhysicalDeviceShaderFloat16Int8Features f16 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
	VkPhysicalDeviceSubgroupSizeControlFeatures sgcf = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
	VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures ext = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES};
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &s16};
	chain_link features[] = {
	    {.on = out->ext_8bit_storage, .s = &s8},
	    {.on = out->ext_float16_int8, .s = &f16},
	    {.on = out->ext_subgroup_size_control, .s = &sgcf},
	    {.on = out->ext_subgroup_extended_types, .s = &ext},
	};
	chain(&s16, features, COUNT(features));
	p_vkGetPhysicalDeviceFeatures2(pd, &f2);
	out->shader_int64 = f2.features.shaderInt64;
	out->shader_int16 = f2.features.shaderInt16;
	out->shader_float64 = f2.features.shaderFloat64;
	out->shader_int8 = f16.shaderInt8;
	out->shader_float16 = f16.shaderFloat16;
	out->storage_buffer_16bit = s16.storageBuffer16BitAccess;
	out->storage_buffer_8bit = s8.storageBuffer8BitAccess;
	out->subgroup_size_control = sgcf.subgroupSizeControl;
	out->compute_full_subgroups = sgcf.computeFullSubgroups;
	out->subgroup_extended_types = ext.shaderSubgroupExtendedTypes;

	// Float controls, core in Vulkan 1.2 (a module may then declare
	// SPV_KHR_float_controls without enabling the extension): whether a
	// kernel may keep 32-bit denormals, respect ±0, ±inf and NaN, and
	// round 32-bit arithmetic to nearest even.
	if (v12) {
		VkPhysicalDeviceFloatControlsProperties fc = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
		VkPhysicalDeviceProperties2 q3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &fc};
		p_vkGetPhysicalDeviceProperties2(pd, &q3);
		out->denorm_preserve_float32 = fc.shaderDenormPreserveFloat32;
		out->signed_zero_inf_nan_preserve_float32 = fc.shaderSignedZeroInfNanPreserveFloat32;
		out->rounding_mode_rte_float32 = fc.shaderRoundingModeRTEFloat32;
	}

	VkPhysicalDeviceMemoryProperties mp;
	p_vkGetPhysicalDeviceMemoryProperties(pd, &mp);
	out->memory_type_count = mp.memoryTypeCount;
	out->memory_heap_count = mp.memoryHeapCount;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
		out->memory_type_flags[i] = mp.memoryTypes[i].propertyFlags;
		out->memory_type_heap[i] = mp.memoryTypes[i].heapIndex;
	}
	for (uint32_t i = 0; i < mp.memoryHeapCount; i++) {
		out->memory_heap_size[i] = mp.memoryHeaps[i].size;
		out->memory_heap_flags[i] = mp.memoryHeaps[i].flags;
	}

	out->compute_family = -1;
	uint32_t nq = 0;
	p_vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
	VkQueueFamilyProperties *qs = calloc(nq ? nq : 1, sizeof(*qs));
	if (qs != NULL) {
		p_vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qs);
		for (uint32_t i = 0; i < nq; i++) {
			if ((qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && qs[i].queueCount > 0) {
				out->compute_family = (int32_t)i;
				out->compute_family_timestamp_bits = qs[i].timestampValidBits;
				break;
			}
		}
		free(qs);
	}
}

VkResult vkdml_create_device(VkPhysicalDevice pd, const vkdml_device_info *info, const vkdml_device_features *f,
                             VkDevice *out) {
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	    .queueFamilyIndex = (uint32_t)info->compute_family,
	    .queueCount = 1,
	    .pQueuePriorities = &prio,
	};
	int v12 = VK_API_VERSION_MINOR(info->api_version) >= 2;
	int v13 = VK_API_VERSION_MINOR(info->api_version) >= 3;
	const char *exts[8];
	uint32_t next = 0;

	VkPhysicalDevice16BitStorageFeatures s16 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
	    .storageBuffer16BitAccess = f->storage_buffer_16bit,
	};
	VkPhysicalDevice8BitStorageFeatures s8 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
	    .storageBuffer8BitAccess = f->storage_buffer_8bit,
	};
	VkPhysicalDeviceShaderFloat16Int8Features f16 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
	    .shaderFloat16 = f->shader_float16,
	    .shaderInt8 = f->shader_int8,
	};
	VkPhysicalDeviceSubgroupSizeControlFeatures sgc = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
	    .subgroupSizeControl = f->subgroup_size_control,
	    .computeFullSubgroups = f->compute_full_subgroups,
	};
	VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures sgx = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES,
	    .shaderSubgroupExtendedTypes = f->subgroup_extended_types,
	};
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &s16};
	f2.features.shaderInt64 = f->shader_int64;
	f2.features.shaderInt16 = f->shader_int16;
	chain_link links[] = {
	    {f->storage_buffer_8bit, &s8, VK_KHR_8BIT_STORAGE_EXTENSION_NAME, v12},
	    {f->shader_float16 || f->shader_int8, &f16, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME, v12},
	    {f->subgroup_size_control || f->compute_full_subgroups, &sgc,
	     VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME, v13},
	    {f->subgroup_extended_types, &sgx, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME, v12},
	};
	chain(&s16, links, COUNT(links));
	for (size_t i = 0; i < COUNT(links); i++) {
		if (links[i].on && !links[i].core) {
			exts[next++] = links[i].ext;
		}
	}
	VkDeviceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .pNext = &f2,
	    .queueCreateInfoCount = 1,
	    .pQueueCreateInfos = &q,
	    .enabledExtensionCount = next,
	    .ppEnabledExtensionNames = exts,
	};
	return p_vkCreateDevice(pd, &ci, NULL, out);
}

