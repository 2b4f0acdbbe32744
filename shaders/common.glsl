// common.glsl: conventions shared by every vkdml kernel.
//
// Push constants start with one uint per storage binding: the binding's base
// offset in 32-bit words. The host binds each descriptor at an offset rounded
// down to minStorageBufferOffsetAlignment (DirectML's offsets are multiples of
// 16 bytes, some devices need 64 or 256) and passes the remainder here.
//
// Spec constant 0 is the workgroup size (local_size_x).

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

// Invocations in the whole dispatch, for grid-stride loops: dispatches are
// capped at a fixed number of workgroups and each invocation strides over
// the work, so any element count up to 2^32-1 needs one dispatch.
uint grid_size() { return gl_NumWorkGroups.x * gl_WorkGroupSize.x * gl_NumWorkGroups.y; }
uint grid_index() { return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x; }
