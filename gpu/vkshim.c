// vkshim.c: see vkshim.h.
// _GNU_SOURCE exposes dladdr in glibc's dlfcn.h; bionic declares it anyway.
#define _GNU_SOURCE 1
#include "vkshim_funcs.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "_cgo_export.h"

// The loader is opened through a few macros: LoadLibraryA and
// GetProcAddress on Windows (mingw has no dlfcn.h), the dlopen family
// elsewhere.
#ifdef _WIN32
#include <windows.h>
typedef HMODULE vkdml_lib_t;
#define VKDML_OPEN(name) LoadLibraryA(name)
#define VKDML_SYM(lib, name) ((void *)GetProcAddress((lib), (name)))
#define VKDML_CLOSE(lib) FreeLibrary(lib)

// vkdml_open_error writes why LoadLibraryA failed, as Windows words it.
static void vkdml_open_error(char *err, size_t errlen) {
	DWORD code = GetLastError();
	char text[256] = "";
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, text,
	                         sizeof text, NULL);
	while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '.')) {
		text[--n] = 0;
	}
	snprintf(err, errlen, "LoadLibrary failed with error %lu%s%s", (unsigned long)code, n > 0 ? ": " : "", text);
}
#else
#include <dlfcn.h>
typedef void *vkdml_lib_t;
#define VKDML_OPEN(name) dlopen((name), RTLD_NOW | RTLD_LOCAL)
#define VKDML_SYM(lib, name) dlsym((lib), (name))
#define VKDML_CLOSE(lib) dlclose(lib)

static void vkdml_open_error(char *err, size_t errlen) {
	const char *e = dlerror();
	snprintf(err, errlen, "%s", e ? e : "dlopen failed");
}
#endif


#define VKDML_DECL(name) VKDML_HIDDEN PFN_##name p_##name;
VKDML_FUNCS(VKDML_DECL)

static vkdml_lib_t vkdml_lib;

int vkdml_load(const char *libname, char *err, size_t errlen) {
	if (vkdml_lib != NULL) {
		return 0;
	}
	vkdml_lib_t lib = VKDML_OPEN(libname);
	if (lib == NULL) {
		vkdml_open_error(err, errlen);
		return 1;
	}
#define VKDML_LOAD(name)                                                                                               \
	p_##name = (PFN_##name)VKDML_SYM(lib, #name);                                                                      \
	if (p_##name == NULL) {                                                                                            \
		snprintf(err, errlen, "%s: symbol %s not found", libname, #name);                                              \
		VKDML_CLOSE(lib);                                                                                              \
		return 1;                                                                                                      \
	}
	VKDML_FUNCS(VKDML_LOAD)
	vkdml_lib = lib;
	return 0;
}

int vkdml_loaded_path(char *out, size_t outlen) {
	if (vkdml_lib == NULL || outlen == 0) {
		return 1;
	}
#ifdef _WIN32
	DWORD n = GetModuleFileNameA(vkdml_lib, out, (DWORD)(outlen > 0x7fffffff ? 0x7fffffff : outlen));
	if (n == 0 || n >= outlen) {
		return 1;
	}
#else
	Dl_info info;
	if (dladdr((void *)p_vkGetInstanceProcAddr, &info) == 0 || info.dli_fname == NULL) {
		return 1;
	}
	snprintf(out, outlen, "%s", info.dli_fname);
#endif
	return 0;
}

uint32_t vkdml_instance_version(void) {
	PFN_vkEnumerateInstanceVersion f =
	    (PFN_vkEnumerateInstanceVersion)p_vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
	uint32_t v = VK_API_VERSION_1_0;
	if (f != NULL && f(&v) != VK_SUCCESS) {
		v = VK_API_VERSION_1_0;
	}
	return v;
}

int vkdml_has_instance_layer(const char *name) {
	uint32_t n = 0;
	if (p_vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) {
		return 0;
	}
	VkLayerProperties *props = calloc(n, sizeof(*props));
	if (props == NULL) {
		return 0;
	}
	int found = 0;
	if (p_vkEnumerateInstanceLayerProperties(&n, props) >= 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(props[i].layerName, name) == 0) {
				found = 1;
			}
		}
	}
	free(props);
	return found;
}

int vkdml_has_instance_extension(const char *name) {
	uint32_t n = 0;
	if (p_vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS || n == 0) {
		return 0;
	}
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	if (props == NULL) {
		return 0;
	}
	int found = 0;
	if (p_vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(props[i].extensionName, name) == 0) {
				found = 1;
			}
		}
	}
	free(props);
	return found;
}

VkResult vkdml_create_instance(uint32_t api_version, int validation, int sync_validation, int debug_utils,
                               VkInstance *out) {
	VkApplicationInfo app = {
	    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	    .pApplicationName = "vkdml",
	    .pEngineName = "vkdml",
	    .apiVersion = api_version,
	};
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *exts[2];
	uint32_t next = 0;
	if (debug_utils) {
		exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	}
	VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT features = {
	    .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	    .enabledValidationFeatureCount = 1,
	    .pEnabledValidationFeatures = enables,
	};
	VkInstanceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	    .pApplicationInfo = &app,
	    .enabledLayerCount = validation ? 1 : 0,
	    .ppEnabledLayerNames = layers,
	    .enabledExtensionCount = next,
	    .ppEnabledExtensionNames = exts,
	};
	if (validation && sync_validation) {
		// VK_EXT_validation_features is provided by the validation layer
		// itself; it is the in-code route to synchronization validation
		// on layers (such as 1.3.239) that have no validate_sync setting.
		exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
		ci.enabledExtensionCount = next;
		ci.pNext = &features;
	}
	return p_vkCreateInstance(&ci, NULL, out);
}

void vkdml_destroy_instance(VkInstance inst) { p_vkDestroyInstance(inst, NULL); }

static VKAPI_ATTR VkBool32 VKAPI_CALL vkdml_debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
	const char *id = data->pMessageIdName ? data->pMessageIdName : "";
	const char *msg = data->pMessage ? data->pMessage : "";
	// The first VkDevice among the message's objects, so that the message
	// reaches that device alone when several share the instance.
	uint64_t device = 0;
	for (uint32_t i = 0; i < data->objectCount && data->pObjects != NULL; i++) {
		if (data->pObjects[i].objectType == VK_OBJECT_TYPE_DEVICE) {
			device = data->pObjects[i].objectHandle;
			break;
		}
	}
	vkdmlDebugMessage((uintptr_t)user, (int)severity, (int)types, (char *)id, (char *)msg, device);
	return VK_FALSE;
}

VkResult vkdml_create_debug_messenger(VkInstance inst, uintptr_t user, VkDebugUtilsMessengerEXT *out) {
	PFN_vkCreateDebugUtilsMessengerEXT f =
	    (PFN_vkCreateDebugUtilsMessengerEXT)p_vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
	if (f == NULL) {
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	}
	VkDebugUtilsMessengerCreateInfoEXT ci = {
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
	                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
	    .pfnUserCallback = vkdml_debug_cb,
	    .pUserData = (void *)user,
	};
	return f(inst, &ci, NULL, out);
}

void vkdml_destroy_debug_messenger(VkInstance inst, VkDebugUtilsMessengerEXT m) {
	PFN_vkDestroyDebugUtilsMessengerEXT f =
	    (PFN_vkDestroyDebugUtilsMessengerEXT)p_vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
	if (f != NULL) {
		f(inst, m, NULL);
	}
}

VkResult vkdml_enumerate_physical_devices(VkInstance inst, uint32_t *count, VkPhysicalDevice *out) {
	return p_vkEnumeratePhysicalDevices(inst, count, out);
}

void vkdml_destroy_device(VkDevice d) { p_vkDestroyDevice(d, NULL); }

VkQueue vkdml_get_queue(VkDevice d, uint32_t family) {
	VkQueue q = NULL;
	p_vkGetDeviceQueue(d, family, 0, &q);
	return q;
}

VkResult vkdml_device_wait_idle(VkDevice d) { return p_vkDeviceWaitIdle(d); }

VkResult vkdml_allocate_memory(VkDevice d, uint64_t size, uint32_t type, VkDeviceMemory *out) {
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = size,
	    .memoryTypeIndex = type,
	};
	return p_vkAllocateMemory(d, &ai, NULL, out);
}

void vkdml_free_memory(VkDevice d, VkDeviceMemory m) { p_vkFreeMemory(d, m, NULL); }

VkResult vkdml_map_memory(VkDevice d, VkDeviceMemory m, void **out) {
	return p_vkMapMemory(d, m, 0, VK_WHOLE_SIZE, 0, out);
}

void vkdml_unmap_memory(VkDevice d, VkDeviceMemory m) { p_vkUnmapMemory(d, m); }

VkResult vkdml_create_buffer(VkDevice d, uint64_t size, uint32_t usage, VkBuffer *out) {
	VkBufferCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .size = size,
	    .usage = usage,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	return p_vkCreateBuffer(d, &ci, NULL, out);
}

void vkdml_destroy_buffer(VkDevice d, VkBuffer b) { p_vkDestroyBuffer(d, b, NULL); }

void vkdml_buffer_requirements(VkDevice d, VkBuffer b, uint64_t *size, uint64_t *align, uint32_t *types) {
	VkMemoryRequirements r;
	p_vkGetBufferMemoryRequirements(d, b, &r);
	*size = r.size;
	*align = r.alignment;
	*types = r.memoryTypeBits;
}

VkResult vkdml_bind_buffer_memory(VkDevice d, VkBuffer b, VkDeviceMemory m) {
	return p_vkBindBufferMemory(d, b, m, 0);
}

VkResult vkdml_create_pipeline_cache(VkDevice d, const void *data, size_t size, VkPipelineCache *out) {
	VkPipelineCacheCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
	    .initialDataSize = size,
	    .pInitialData = data,
	};
	return p_vkCreatePipelineCache(d, &ci, NULL, out);
}

void vkdml_destroy_pipeline_cache(VkDevice d, VkPipelineCache c) { p_vkDestroyPipelineCache(d, c, NULL); }

VkResult vkdml_pipeline_cache_data(VkDevice d, VkPipelineCache c, size_t *size, void *data) {
	return p_vkGetPipelineCacheData(d, c, size, data);
}

VkResult vkdml_create_shader_module(VkDevice d, const uint32_t *code, size_t bytes, VkShaderModule *out) {
	VkShaderModuleCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	    .codeSize = bytes,
	    .pCode = code,
	};
	return p_vkCreateShaderModule(d, &ci, NULL, out);
}

void vkdml_destroy_shader_module(VkDevice d, VkShaderModule m) { p_vkDestroyShaderModule(d, m, NULL); }

VkResult vkdml_create_set_layout(VkDevice d, uint32_t count, uint32_t texel_mask, VkDescriptorSetLayout *out) {
	VkDescriptorSetLayoutBinding b[16];
	if (count > 16) {
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	for (uint32_t i = 0; i < count; i++) {
		b[i] = (VkDescriptorSetLayoutBinding){
		    .binding = i,
		    .descriptorType = (texel_mask >> i & 1u) ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
		                                             : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		    .descriptorCount = 1,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	}
	VkDescriptorSetLayoutCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
	    .bindingCount = count,
	    .pBindings = b,
	};
	return p_vkCreateDescriptorSetLayout(d, &ci, NULL, out);
}

void vkdml_destroy_set_layout(VkDevice d, VkDescriptorSetLayout l) { p_vkDestroyDescriptorSetLayout(d, l, NULL); }

VkResult vkdml_create_pipeline_layout(VkDevice d, VkDescriptorSetLayout sl, uint32_t push_bytes,
                                      VkPipelineLayout *out) {
	VkPushConstantRange r = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = push_bytes};
	VkPipelineLayoutCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	    .setLayoutCount = 1,
	    .pSetLayouts = &sl,
	    .pushConstantRangeCount = push_bytes ? 1 : 0,
	    .pPushConstantRanges = &r,
	};
	return p_vkCreatePipelineLayout(d, &ci, NULL, out);
}

void vkdml_destroy_pipeline_layout(VkDevice d, VkPipelineLayout l) { p_vkDestroyPipelineLayout(d, l, NULL); }

VkResult vkdml_create_compute_pipeline(VkDevice d, VkPipelineCache cache, VkShaderModule m, VkPipelineLayout l,
                                       const uint32_t *spec, uint32_t spec_count, uint32_t required_subgroup_size,
                                       uint32_t full_subgroups, VkPipeline *out) {
	// Constant i (IDs 0..spec_count-1) is word i of spec; any count.
	VkSpecializationMapEntry *entries = NULL;
	if (spec_count > 0) {
		entries = calloc(spec_count, sizeof *entries);
		if (entries == NULL) {
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		}
	}
	for (uint32_t i = 0; i < spec_count; i++) {
		entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = i * 4u, .size = 4};
	}
	VkSpecializationInfo si = {
	    .mapEntryCount = spec_count,
	    .pMapEntries = entries,
	    .dataSize = (size_t)spec_count * 4u,
	    .pData = spec,
	};
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
	    .requiredSubgroupSize = required_subgroup_size,
	};
	VkPipelineShaderStageCreateInfo st = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
	    .pNext = required_subgroup_size ? &rs : NULL,
	    .flags = full_subgroups ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
	    .stage = VK_SHADER_STAGE_COMPUTE_BIT,
	    .module = m,
	    .pName = "main",
	    .pSpecializationInfo = spec_count ? &si : NULL,
	};
	VkComputePipelineCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
	    .stage = st,
	    .layout = l,
	};
	VkResult r = p_vkCreateComputePipelines(d, cache, 1, &ci, NULL, out);
	free(entries);
	return r;
}

void vkdml_destroy_pipeline(VkDevice d, VkPipeline p) { p_vkDestroyPipeline(d, p, NULL); }

VkResult vkdml_create_descriptor_pool(VkDevice d, uint32_t max_sets, uint32_t storage_buffers,
                                      uint32_t texel_buffers, VkDescriptorPool *out) {
	VkDescriptorPoolSize sz[2] = {
	    {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = storage_buffers},
	    {.type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .descriptorCount = texel_buffers},
	};
	VkDescriptorPoolCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	    .maxSets = max_sets,
	    .poolSizeCount = texel_buffers ? 2 : 1,
	    .pPoolSizes = sz,
	};
	return p_vkCreateDescriptorPool(d, &ci, NULL, out);
}

void vkdml_destroy_descriptor_pool(VkDevice d, VkDescriptorPool p) { p_vkDestroyDescriptorPool(d, p, NULL); }

VkResult vkdml_reset_descriptor_pool(VkDevice d, VkDescriptorPool p) { return p_vkResetDescriptorPool(d, p, 0); }

VkResult vkdml_allocate_set(VkDevice d, VkDescriptorPool p, VkDescriptorSetLayout l, VkDescriptorSet *out) {
	VkDescriptorSetAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
	    .descriptorPool = p,
	    .descriptorSetCount = 1,
	    .pSetLayouts = &l,
	};
	return p_vkAllocateDescriptorSets(d, &ai, out);
}

void vkdml_write_set(VkDevice d, VkDescriptorSet s, uint32_t count, const VkBuffer *buffers, const uint64_t *offsets,
                     const uint64_t *ranges, const VkBufferView *views) {
	VkDescriptorBufferInfo infos[16];
	VkWriteDescriptorSet writes[16];
	if (count > 16) {
		count = 16;
	}
	for (uint32_t i = 0; i < count; i++) {
		infos[i] = (VkDescriptorBufferInfo){.buffer = buffers[i], .offset = offsets[i], .range = ranges[i]};
		writes[i] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = s,
		    .dstBinding = i,
		    .descriptorCount = 1,
		    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		    .pBufferInfo = &infos[i],
		};
		if (views[i] != 0) {
			writes[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
			writes[i].pBufferInfo = NULL;
			writes[i].pTexelBufferView = &views[i];
		}
	}
	p_vkUpdateDescriptorSets(d, count, writes, 0, NULL);
}

VkResult vkdml_create_buffer_view(VkDevice d, VkBuffer b, uint64_t offset, uint64_t range, VkBufferView *out) {
	VkBufferViewCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
	    .buffer = b,
	    .format = VK_FORMAT_R32G32B32A32_UINT,
	    .offset = offset,
	    .range = range,
	};
	return p_vkCreateBufferView(d, &ci, NULL, out);
}

void vkdml_destroy_buffer_view(VkDevice d, VkBufferView v) { p_vkDestroyBufferView(d, v, NULL); }

VkResult vkdml_create_command_pool(VkDevice d, uint32_t family, VkCommandPool *out) {
	VkCommandPoolCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	    .queueFamilyIndex = family,
	};
	return p_vkCreateCommandPool(d, &ci, NULL, out);
}

void vkdml_destroy_command_pool(VkDevice d, VkCommandPool p) { p_vkDestroyCommandPool(d, p, NULL); }

VkResult vkdml_reset_command_pool(VkDevice d, VkCommandPool p) { return p_vkResetCommandPool(d, p, 0); }

VkResult vkdml_allocate_command_buffer(VkDevice d, VkCommandPool p, VkCommandBuffer *out) {
	VkCommandBufferAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = p,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	return p_vkAllocateCommandBuffers(d, &ai, out);
}

VkResult vkdml_begin(VkCommandBuffer c, int one_time) {
	VkCommandBufferBeginInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	    .flags = one_time ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0,
	};
	return p_vkBeginCommandBuffer(c, &bi);
}

VkResult vkdml_end(VkCommandBuffer c) { return p_vkEndCommandBuffer(c); }

void vkdml_cmd_bind_pipeline(VkCommandBuffer c, VkPipeline p) {
	p_vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, p);
}

void vkdml_cmd_bind_set(VkCommandBuffer c, VkPipelineLayout l, VkDescriptorSet s) {
	p_vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_COMPUTE, l, 0, 1, &s, 0, NULL);
}

void vkdml_cmd_push_constants(VkCommandBuffer c, VkPipelineLayout l, uint32_t bytes, const void *data) {
	p_vkCmdPushConstants(c, l, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, data);
}

void vkdml_cmd_dispatch(VkCommandBuffer c, uint32_t x, uint32_t y, uint32_t z) { p_vkCmdDispatch(c, x, y, z); }

void vkdml_cmd_dispatch_indirect(VkCommandBuffer c, VkBuffer b, uint64_t off) { p_vkCmdDispatchIndirect(c, b, off); }

void vkdml_cmd_memory_barrier(VkCommandBuffer c, uint32_t src_stage, uint32_t src_access, uint32_t dst_stage,
                              uint32_t dst_access) {
	VkMemoryBarrier mb = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	    .srcAccessMask = src_access,
	    .dstAccessMask = dst_access,
	};
	p_vkCmdPipelineBarrier(c, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

void vkdml_cmd_copy_buffer(VkCommandBuffer c, VkBuffer src, uint64_t src_off, VkBuffer dst, uint64_t dst_off,
                           uint64_t size) {
	VkBufferCopy r = {.srcOffset = src_off, .dstOffset = dst_off, .size = size};
	p_vkCmdCopyBuffer(c, src, dst, 1, &r);
}

void vkdml_cmd_fill_buffer(VkCommandBuffer c, VkBuffer b, uint64_t off, uint64_t size, uint32_t value) {
	p_vkCmdFillBuffer(c, b, off, size, value);
}

void vkdml_cmd_reset_queries(VkCommandBuffer c, VkQueryPool q, uint32_t first, uint32_t count) {
	p_vkCmdResetQueryPool(c, q, first, count);
}

void vkdml_cmd_timestamp(VkCommandBuffer c, VkQueryPool q, uint32_t index) {
	p_vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, q, index);
}

VkResult vkdml_create_query_pool(VkDevice d, uint32_t count, VkQueryPool *out) {
	VkQueryPoolCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	    .queryType = VK_QUERY_TYPE_TIMESTAMP,
	    .queryCount = count,
	};
	return p_vkCreateQueryPool(d, &ci, NULL, out);
}

void vkdml_destroy_query_pool(VkDevice d, VkQueryPool q) { p_vkDestroyQueryPool(d, q, NULL); }

VkResult vkdml_query_results(VkDevice d, VkQueryPool q, uint32_t count, uint64_t *out) {
	return p_vkGetQueryPoolResults(d, q, 0, count, (size_t)count * 8, out, 8,
	                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
}

VkResult vkdml_create_fence(VkDevice d, VkFence *out) {
	VkFenceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	return p_vkCreateFence(d, &ci, NULL, out);
}

void vkdml_destroy_fence(VkDevice d, VkFence f) { p_vkDestroyFence(d, f, NULL); }

VkResult vkdml_reset_fence(VkDevice d, VkFence f) { return p_vkResetFences(d, 1, &f); }

VkResult vkdml_wait_fence(VkDevice d, VkFence f, uint64_t timeout_ns) {
	return p_vkWaitForFences(d, 1, &f, VK_TRUE, timeout_ns);
}

VkResult vkdml_fence_status(VkDevice d, VkFence f) { return p_vkGetFenceStatus(d, f); }

VkResult vkdml_submit(VkQueue q, VkCommandBuffer c, VkFence f) {
	VkSubmitInfo si = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .commandBufferCount = 1,
	    .pCommandBuffers = &c,
	};
	return p_vkQueueSubmit(q, 1, &si, f);
}
