// vkshim_funcs.h: the Vulkan functions the shim resolves from the loader,
// shared by the shim's C files (not part of the Go-facing API in vkshim.h).
#ifndef VKDML_VKSHIM_FUNCS_H
#define VKDML_VKSHIM_FUNCS_H

#include "vkshim.h"

#define VKDML_FUNCS(X)                                                                                                 \
	X(vkGetInstanceProcAddr)                                                                                           \
	X(vkEnumerateInstanceLayerProperties)                                                                              \
	X(vkEnumerateInstanceExtensionProperties)                                                                          \
	X(vkCreateInstance)                                                                                                \
	X(vkDestroyInstance)                                                                                               \
	X(vkEnumeratePhysicalDevices)                                                                                      \
	X(vkGetPhysicalDeviceProperties2)                                                                                  \
	X(vkGetPhysicalDeviceFeatures2)                                                                                    \
	X(vkGetPhysicalDeviceMemoryProperties)                                                                             \
	X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
	X(vkEnumerateDeviceExtensionProperties)                                                                            \
	X(vkCreateDevice)                                                                                                  \
	X(vkDestroyDevice)                                                                                                 \
	X(vkGetDeviceQueue)                                                                                                \
	X(vkDeviceWaitIdle)                                                                                                \
	X(vkAllocateMemory)                                                                                                \
	X(vkFreeMemory)                                                                                                    \
	X(vkMapMemory)                                                                                                     \
	X(vkUnmapMemory)                                                                                                   \
	X(vkCreateBuffer)                                                                                                  \
	X(vkDestroyBuffer)                                                                                                 \
	X(vkGetBufferMemoryRequirements)                                                                                   \
	X(vkBindBufferMemory)                                                                                              \
	X(vkCreatePipelineCache)                                                                                           \
	X(vkDestroyPipelineCache)                                                                                          \
	X(vkGetPipelineCacheData)                                                                                          \
	X(vkCreateShaderModule)                                                                                            \
	X(vkDestroyShaderModule)                                                                                           \
	X(vkCreateDescriptorSetLayout)                                                                                     \
	X(vkDestroyDescriptorSetLayout)                                                                                    \
	X(vkCreatePipelineLayout)                                                                                          \
	X(vkDestroyPipelineLayout)                                                                                         \
	X(vkCreateComputePipelines)                                                                                        \
	X(vkDestroyPipeline)                                                                                               \
	X(vkCreateDescriptorPool)                                                                                          \
	X(vkDestroyDescriptorPool)                                                                                         \
	X(vkResetDescriptorPool)                                                                                           \
	X(vkAllocateDescriptorSets)                                                                                        \
	X(vkUpdateDescriptorSets)                                                                                          \
	X(vkCreateBufferView)                                                                                              \
	X(vkDestroyBufferView)                                                                                             \
	X(vkCreateCommandPool)                                                                                             \
	X(vkDestroyCommandPool)                                                                                            \
	X(vkResetCommandPool)                                                                                              \
	X(vkAllocateCommandBuffers)                                                                                        \
	X(vkBeginCommandBuffer)                                                                                            \
	X(vkEndCommandBuffer)                                                                                              \
	X(vkCmdBindPipeline)                                                                                               \
	X(vkCmdBindDescriptorSets)                                                                                         \
	X(vkCmdPushConstants)                                                                                              \
	X(vkCmdDispatch)                                                                                                   \
	X(vkCmdDispatchIndirect)                                                                                           \
	X(vkCmdPipelineBarrier)                                                                                            \
	X(vkCmdCopyBuffer)                                                                                                 \
	X(vkCmdFillBuffer)                                                                                                 \
	X(vkCmdResetQueryPool)                                                                                             \
	X(vkCmdWriteTimestamp)                                                                                             \
	X(vkCreateQueryPool)                                                                                               \
	X(vkDestroyQueryPool)                                                                                              \
	X(vkGetQueryPoolResults)                                                                                           \
	X(vkCreateFence)                                                                                                   \
	X(vkDestroyFence)                                                                                                  \
	X(vkResetFences)                                                                                                   \
	X(vkWaitForFences)                                                                                                 \
	X(vkGetFenceStatus)                                                                                                \
	X(vkQueueSubmit)

// p_<name> is the resolved function; vkshim.c defines them. They are
// hidden, so that a shared library built from vkdml does not export them.
// PE has no symbol visibility (a DLL exports only what it names, and
// mingw's gcc warns about the attribute), so it is empty on Windows.
#ifdef _WIN32
#define VKDML_HIDDEN
#else
#define VKDML_HIDDEN __attribute__((visibility("hidden")))
#endif
#define VKDML_EXTERN(name) extern VKDML_HIDDEN PFN_##name p_##name;
VKDML_FUNCS(VKDML_EXTERN)
#undef VKDML_EXTERN

#endif
