// vkshim.h: the C half of vkdml's Vulkan binding.
//
// The loader is opened at run time (dlopen, or LoadLibraryA on Windows),
// so a binary without libvulkan.so.1 or vulkan-1.dll starts and reports "no
// Vulkan loader" instead of failing to link. Every create-info is built
// here in C from plain arguments, so no Go pointer to memory that itself
// holds Go pointers ever crosses into C. Non-dispatchable handles are
// uint64_t on every platform. The shim uses only C99 and the dlopen family,
// which glibc, musl and Android's bionic all provide, or their Windows
// counterparts.
#ifndef VKDML_VKSHIM_H
#define VKDML_VKSHIM_H

#define VK_NO_PROTOTYPES 1
#define VK_DEFINE_NON_DISPATCHABLE_HANDLE(object) typedef uint64_t object;
#include <stdint.h>
#include <stddef.h>
// The Vulkan declarations come from vkapi.h, generated from the Khronos
// headers, so that no Vulkan development package is needed to build.
#include "vkapi.h"

// vkdml_load opens the loader (once) and resolves the global functions. It
// returns 0 on success and writes a message into err otherwise.
int vkdml_load(const char *libname, char *err, size_t errlen);
// vkdml_loaded_path writes the file the loaded library was mapped from, as
// the dynamic linker resolved it; it returns 0 on success.
int vkdml_loaded_path(char *out, size_t outlen);

// Instance.
uint32_t vkdml_instance_version(void);
int vkdml_has_instance_layer(const char *name);
int vkdml_has_instance_extension(const char *name);
VkResult vkdml_create_instance(uint32_t api_version, int validation, int sync_validation, int debug_utils,
                               VkInstance *out);
void vkdml_destroy_instance(VkInstance inst);
VkResult vkdml_create_debug_messenger(VkInstance inst, uintptr_t user, VkDebugUtilsMessengerEXT *out);
void vkdml_destroy_debug_messenger(VkInstance inst, VkDebugUtilsMessengerEXT m);
VkResult vkdml_enumerate_physical_devices(VkInstance inst, uint32_t *count, VkPhysicalDevice *out);

// Where vkdml_device_info.compute_units comes from.
enum {
	VKDML_CU_NONE = 0,
	VKDML_CU_NV_SM_BUILTINS = 1,            // VK_NV_shader_sm_builtins
	VKDML_CU_AMD_SHADER_CORE_PROPERTIES = 2, // VK_AMD_shader_core_properties(2)
	VKDML_CU_ARM_SHADER_CORE_BUILTINS = 3,  // VK_ARM_shader_core_builtins
};

// What vkdml reads of a physical device, flattened.
typedef struct vkdml_device_info {
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	char driver_name[VK_MAX_DRIVER_NAME_SIZE];
	char driver_info[VK_MAX_DRIVER_INFO_SIZE];
	uint8_t device_uuid[VK_UUID_SIZE];
	uint8_t driver_uuid[VK_UUID_SIZE];
	uint8_t device_luid[VK_LUID_SIZE];
	uint32_t device_luid_valid;
	uint32_t api_version, driver_version, vendor_id, device_id, device_type, driver_id;

	uint32_t subgroup_size, subgroup_stages, subgroup_ops, subgroup_quad_all_stages;
	uint32_t min_subgroup_size, max_subgroup_size, required_subgroup_size_stages;

	uint32_t max_storage_buffer_range, max_push_constants_size, max_shared_memory;
	uint32_t max_workgroup_invocations, max_workgroup_size[3], max_workgroup_count[3];
	uint32_t max_bound_descriptor_sets, max_per_stage_storage_buffers;
	uint64_t min_storage_buffer_offset_alignment, max_memory_allocation_size, max_buffer_size;
	uint32_t max_texel_buffer_elements;
	uint64_t min_texel_buffer_offset_alignment;
	uint64_t non_coherent_atom_size;
	float timestamp_period;
	uint32_t timestamp_compute_and_graphics;

	// Features (1 = supported).
	uint32_t shader_int64, shader_int16, shader_float64, shader_int8, shader_float16;
	uint32_t storage_buffer_16bit, storage_buffer_8bit, subgroup_size_control, compute_full_subgroups;
	uint32_t subgroup_extended_types;
	// Float controls properties (Vulkan 1.2; 0 below it).
	uint32_t denorm_preserve_float32, signed_zero_inf_nan_preserve_float32, rounding_mode_rte_float32;

	// Extensions needed below Vulkan 1.2/1.3.
	uint32_t ext_8bit_storage, ext_float16_int8, ext_subgroup_size_control, ext_driver_properties;
	uint32_t ext_subgroup_extended_types;

	// Compute units, from the vendor extensions that report them
	// (compute_unit_source: one of VKDML_CU_*; 0 and 0 without one).
	uint32_t ext_nv_sm_builtins, ext_amd_core_properties, ext_amd_core_properties2, ext_arm_core_builtins;
	uint32_t compute_units, lanes_per_compute_unit, compute_unit_source;

	// Memory.
	uint32_t memory_type_count, memory_heap_count;
	uint32_t memory_type_flags[VK_MAX_MEMORY_TYPES], memory_type_heap[VK_MAX_MEMORY_TYPES];
	uint64_t memory_heap_size[VK_MAX_MEMORY_HEAPS];
	uint32_t memory_heap_flags[VK_MAX_MEMORY_HEAPS];

	// The first queue family with compute.
	int32_t compute_family;
	uint32_t compute_family_timestamp_bits;
} vkdml_device_info;

void vkdml_query_device(VkPhysicalDevice pd, vkdml_device_info *out);

// The features to turn on at device creation (1 = on).
typedef struct vkdml_device_features {
	uint32_t shader_int64, shader_int16, shader_int8, shader_float16;
	uint32_t storage_buffer_16bit, storage_buffer_8bit, subgroup_size_control, compute_full_subgroups;
	uint32_t subgroup_extended_types;
} vkdml_device_features;

VkResult vkdml_create_device(VkPhysicalDevice pd, const vkdml_device_info *info, const vkdml_device_features *f,
                             VkDevice *out);
void vkdml_destroy_device(VkDevice d);
VkQueue vkdml_get_queue(VkDevice d, uint32_t family);
VkResult vkdml_device_wait_idle(VkDevice d);

// Memory and buffers.
VkResult vkdml_allocate_memory(VkDevice d, uint64_t size, uint32_t type, VkDeviceMemory *out);
void vkdml_free_memory(VkDevice d, VkDeviceMemory m);
VkResult vkdml_map_memory(VkDevice d, VkDeviceMemory m, void **out);
void vkdml_unmap_memory(VkDevice d, VkDeviceMemory m);
VkResult vkdml_create_buffer(VkDevice d, uint64_t size, uint32_t usage, VkBuffer *out);
void vkdml_destroy_buffer(VkDevice d, VkBuffer b);
void vkdml_buffer_requirements(VkDevice d, VkBuffer b, uint64_t *size, uint64_t *align, uint32_t *types);
VkResult vkdml_bind_buffer_memory(VkDevice d, VkBuffer b, VkDeviceMemory m);

// Pipelines.
VkResult vkdml_create_pipeline_cache(VkDevice d, const void *data, size_t size, VkPipelineCache *out);
void vkdml_destroy_pipeline_cache(VkDevice d, VkPipelineCache c);
VkResult vkdml_pipeline_cache_data(VkDevice d, VkPipelineCache c, size_t *size, void *data);
VkResult vkdml_create_shader_module(VkDevice d, const uint32_t *code, size_t bytes, VkShaderModule *out);
void vkdml_destroy_shader_module(VkDevice d, VkShaderModule m);
// Bindings 0..count-1 are storage buffers, but for those whose bit is set
// in texel_mask: uniform texel buffers.
VkResult vkdml_create_set_layout(VkDevice d, uint32_t count, uint32_t texel_mask, VkDescriptorSetLayout *out);
void vkdml_destroy_set_layout(VkDevice d, VkDescriptorSetLayout l);
VkResult vkdml_create_pipeline_layout(VkDevice d, VkDescriptorSetLayout sl, uint32_t push_bytes,
                                      VkPipelineLayout *out);
void vkdml_destroy_pipeline_layout(VkDevice d, VkPipelineLayout l);
VkResult vkdml_create_compute_pipeline(VkDevice d, VkPipelineCache cache, VkShaderModule m, VkPipelineLayout l,
                                       const uint32_t *spec, uint32_t spec_count, uint32_t required_subgroup_size,
                                       uint32_t full_subgroups, VkPipeline *out);
void vkdml_destroy_pipeline(VkDevice d, VkPipeline p);

// Descriptors.
VkResult vkdml_create_descriptor_pool(VkDevice d, uint32_t max_sets, uint32_t storage_buffers,
                                      uint32_t texel_buffers, VkDescriptorPool *out);
void vkdml_destroy_descriptor_pool(VkDevice d, VkDescriptorPool p);
VkResult vkdml_reset_descriptor_pool(VkDevice d, VkDescriptorPool p);
VkResult vkdml_allocate_set(VkDevice d, VkDescriptorPool p, VkDescriptorSetLayout l, VkDescriptorSet *out);
// Writes count descriptors at bindings 0..count-1: binding i is the
// uniform texel buffer views[i] where that is not 0, else the storage
// buffer range (buffers[i], offsets[i], ranges[i]).
void vkdml_write_set(VkDevice d, VkDescriptorSet s, uint32_t count, const VkBuffer *buffers, const uint64_t *offsets,
                     const uint64_t *ranges, const VkBufferView *views);
// A view of range bytes of b from offset as R32G32B32A32_UINT texels.
VkResult vkdml_create_buffer_view(VkDevice d, VkBuffer b, uint64_t offset, uint64_t range, VkBufferView *out);
void vkdml_destroy_buffer_view(VkDevice d, VkBufferView v);

// Commands.
VkResult vkdml_create_command_pool(VkDevice d, uint32_t family, VkCommandPool *out);
void vkdml_destroy_command_pool(VkDevice d, VkCommandPool p);
VkResult vkdml_allocate_command_buffer(VkDevice d, VkCommandPool p, VkCommandBuffer *out);
VkResult vkdml_begin(VkCommandBuffer c, int one_time);
VkResult vkdml_end(VkCommandBuffer c);
VkResult vkdml_reset_command_pool(VkDevice d, VkCommandPool p);
void vkdml_cmd_bind_pipeline(VkCommandBuffer c, VkPipeline p);
void vkdml_cmd_bind_set(VkCommandBuffer c, VkPipelineLayout l, VkDescriptorSet s);
void vkdml_cmd_push_constants(VkCommandBuffer c, VkPipelineLayout l, uint32_t bytes, const void *data);
void vkdml_cmd_dispatch(VkCommandBuffer c, uint32_t x, uint32_t y, uint32_t z);
void vkdml_cmd_dispatch_indirect(VkCommandBuffer c, VkBuffer b, uint64_t off);
// A global memory barrier between the given stages and accesses.
void vkdml_cmd_memory_barrier(VkCommandBuffer c, uint32_t src_stage, uint32_t src_access, uint32_t dst_stage,
                              uint32_t dst_access);
void vkdml_cmd_copy_buffer(VkCommandBuffer c, VkBuffer src, uint64_t src_off, VkBuffer dst, uint64_t dst_off,
                           uint64_t size);
void vkdml_cmd_fill_buffer(VkCommandBuffer c, VkBuffer b, uint64_t off, uint64_t size, uint32_t value);
void vkdml_cmd_reset_queries(VkCommandBuffer c, VkQueryPool q, uint32_t first, uint32_t count);
void vkdml_cmd_timestamp(VkCommandBuffer c, VkQueryPool q, uint32_t index);

// Queries, fences, submission.
VkResult vkdml_create_query_pool(VkDevice d, uint32_t count, VkQueryPool *out);
void vkdml_destroy_query_pool(VkDevice d, VkQueryPool q);
VkResult vkdml_query_results(VkDevice d, VkQueryPool q, uint32_t count, uint64_t *out);
VkResult vkdml_create_fence(VkDevice d, VkFence *out);
void vkdml_destroy_fence(VkDevice d, VkFence f);
VkResult vkdml_reset_fence(VkDevice d, VkFence f);
VkResult vkdml_wait_fence(VkDevice d, VkFence f, uint64_t timeout_ns);
VkResult vkdml_fence_status(VkDevice d, VkFence f);
VkResult vkdml_submit(VkQueue q, VkCommandBuffer c, VkFence f);

#endif
