package dml

import (
	"fmt"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/lru"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
)

// KernelCacheSize is how many pipelines a device keeps for its compiled
// operators to share: compiling an operator whose kernel (a shader variant
// with the same specialization constants and subgroup requirements) is
// among the last KernelCacheSize kernels compiled or taken, whether
// operators still use it or not, takes that pipeline instead of building
// it again. A pipeline is immutable, so
// sharing it changes nothing the operators compute, and a released
// operator's lists still fail with ErrReleased (the compiled operator is
// checked, not its kernels). Building one is most of the cost of
// CompileOperator, and the driver's VkPipelineCache does not always spare
// it: lavapipe (Mesa 22.3) keeps nothing in it and compiles each of REDUCE's
// float first passes, about 1 MB of SPIR-V, for a second or more every
// time. A pipeline pushed out of the cache while operators use it stays
// alive until the last of them is released, but is no longer shared: a
// later compile of its kernel builds another.
const KernelCacheSize = 16

// kernelCache holds a device's pipelines, keyed by kernelKey.
type kernelCache = lru.Cache[*gpu.Kernel]

func newKernelCache() *kernelCache {
	return lru.New(KernelCacheSize, func(k *gpu.Kernel) { k.Destroy() })
}

// kernelKey is everything gpu.NewKernel builds k's pipeline from: the
// variant (its SPIR-V) and the pipeline parameters.
func kernelKey(k ops.Kernel) string {
	return fmt.Sprintf("%s %d %v %d %v %d %v", k.Variant, k.Bindings, k.TexelBindings, k.ParamBytes, k.Spec, k.SubgroupSize, k.FullSubgroups)
}

// kernel returns k's pipeline, shared through the device's kernel cache:
// the caller ends its use with d.kernels.Done.
func (d *Device) kernel(k ops.Kernel) (*lru.Entry[*gpu.Kernel], error) {
	key := kernelKey(k)
	if e := d.kernels.Acquire(key); e != nil {
		return e, nil
	}
	// gpu refuses a module whose capabilities the device lacks.
	code, err := shaders.SPIRV(k.Variant)
	if err != nil {
		return nil, err
	}
	kern, err := d.gpu.NewKernel(gpu.KernelDesc{
		Name: k.Variant, SPIRV: code, Bindings: k.Bindings, TexelBindings: k.TexelBindings, ParamBytes: k.ParamBytes,
		Spec: k.Spec, SubgroupSize: k.SubgroupSize, FullSubgroups: k.FullSubgroups,
	})
	if err != nil {
		return nil, err
	}
	// Another call may have built it meanwhile: Add keeps theirs.
	return d.kernels.Add(key, kern), nil
}
