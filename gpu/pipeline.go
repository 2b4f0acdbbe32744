package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/internal/safefile"
	"github.com/vkdml/vkdml/shaders/spirv"
)

// KernelDesc describes a compute pipeline built from embedded SPIR-V.
//
// Every vkdml kernel follows one push-constant convention: the block starts
// with one uint per storage binding holding that binding's base offset in
// 32-bit words, which the host layer fills (descriptor offsets must be
// multiples of minStorageBufferOffsetAlignment, DirectML's are multiples of
// 16 bytes), followed by ParamBytes of the kernel's own parameters.
type KernelDesc struct {
	Name     string // for errors and profiles
	SPIRV    []byte // the module; entry point "main"
	Bindings int    // buffers at set 0, bindings 0..Bindings-1: storage buffers but for TexelBindings
	// TexelBindings are the bindings (ascending, each below Bindings) that
	// are uniform texel buffers of R32G32B32A32_UINT texels (GLSL
	// usamplerBuffer; every Vulkan device supports the format for them):
	// Dispatch binds a buffer view of the range, from its offset rounded
	// down to minTexelBufferOffsetAlignment (and 16), and the base offset
	// word counts from there, so word w of the range is component
	// (base+w)%4 of texel (base+w)/4. On lavapipe a texel fetch is one
	// 16-byte load per lane, where a storage-buffer load branches per lane
	// and component.
	TexelBindings []int
	ParamBytes    uint32   // push-constant bytes after the base offsets
	Spec          []uint32 // specialization constants with IDs 0..len-1 (any number)
	SubgroupSize  uint32   // required subgroup size; 0 = the device's choice
	FullSubgroups bool     // require full subgroups (needs ComputeFullSubgroups)
}

// Kernel is a compute pipeline with its layouts. It is immutable and safe
// for concurrent use.
type Kernel struct {
	d         *Device
	name      string
	module    C.VkShaderModule
	setLayout C.VkDescriptorSetLayout
	layout    C.VkPipelineLayout
	pipeline  C.VkPipeline
	bindings  int
	texel     uint32 // bit i: binding i is a uniform texel buffer
	pushBytes uint32

	// Lifetime (see kernel_life.go), guarded by mu.
	mu       sync.Mutex
	released bool // Destroy was called
	freed    bool // the Vulkan objects are gone
	users    int  // pending submissions that use the kernel
}

// MaxBindings is the most storage buffers one kernel may use.
const MaxBindings = 8

// maxSpecConstants is the most specialization constants a kernel may take:
// VkSpecializationMapEntry.offset, a 32-bit byte offset, must reach the
// last one. It is Vulkan's bound, not vkdml's.
const maxSpecConstants = 1 << 30

// ErrMissingFeature is wrapped by NewKernel's error for a module that
// declares a SPIR-V capability the device has not enabled (or
// Options.Disable turned off): the kernel is refused before the driver
// sees it.
var ErrMissingFeature = errors.New("gpu: the device lacks a feature the kernel needs")

// NewKernel compiles desc through the device's pipeline cache.
func (d *Device) NewKernel(desc KernelDesc) (*Kernel, error) {
	if err := d.enterUsable("NewKernel"); err != nil {
		return nil, err
	}
	defer d.life.RUnlock()
	if len(desc.SPIRV) == 0 || len(desc.SPIRV)%4 != 0 {
		return nil, fmt.Errorf("gpu: kernel %s: SPIR-V of %d bytes is not a whole number of words", desc.Name, len(desc.SPIRV))
	}
	if desc.Bindings < 1 || desc.Bindings > MaxBindings {
		return nil, fmt.Errorf("gpu: kernel %s: %d bindings outside [1,%d]", desc.Name, desc.Bindings, MaxBindings)
	}
	// In 64 bits: a ParamBytes near 2^32 must not wrap to a small size.
	push64 := uint64(4*desc.Bindings) + uint64(desc.ParamBytes)
	if push64 > uint64(d.Limits.MaxPushConstantsSize) || desc.ParamBytes%4 != 0 {
		return nil, fmt.Errorf("gpu: kernel %s: %d push-constant bytes (multiple of 4, at most maxPushConstantsSize %d)", desc.Name, push64, d.Limits.MaxPushConstantsSize)
	}
	push := uint32(push64)
	texel, err := texelMask(desc)
	if err != nil {
		return nil, err
	}
	if desc.SubgroupSize != 0 && (!d.Features.SubgroupSizeControl || desc.SubgroupSize < d.Limits.MinSubgroupSize || desc.SubgroupSize > d.Limits.MaxSubgroupSize) {
		return nil, fmt.Errorf("gpu: kernel %s: required subgroup size %d not supported (control %v, range [%d,%d])", desc.Name, desc.SubgroupSize, d.Features.SubgroupSizeControl, d.Limits.MinSubgroupSize, d.Limits.MaxSubgroupSize)
	}
	if desc.FullSubgroups && !d.Features.ComputeFullSubgroups {
		return nil, fmt.Errorf("gpu: kernel %s: full subgroups requested but computeFullSubgroups is not enabled", desc.Name)
	}
	if len(desc.Spec) > maxSpecConstants {
		return nil, fmt.Errorf("gpu: kernel %s: %d specialization constants, more than the %d whose byte offsets VkSpecializationMapEntry can hold", desc.Name, len(desc.Spec), maxSpecConstants)
	}
	if err := d.checkModule(desc, push); err != nil {
		return nil, err
	}
	// The code is copied into C memory so that its alignment is right for
	// uint32_t whatever the embedded slice's is.
	code := C.CBytes(desc.SPIRV)
	defer C.free(code)
	k := &Kernel{d: d, name: desc.Name, bindings: desc.Bindings, texel: texel, pushBytes: push}
	err = d.result("vkCreateShaderModule", C.vkdml_create_shader_module(d.dev, (*C.uint32_t)(code), C.size_t(len(desc.SPIRV)), &k.module))
	if err == nil {
		err = d.result("vkCreateDescriptorSetLayout", C.vkdml_create_set_layout(d.dev, C.uint32_t(desc.Bindings), C.uint32_t(texel), &k.setLayout))
	}
	if err == nil {
		err = d.result("vkCreatePipelineLayout", C.vkdml_create_pipeline_layout(d.dev, k.setLayout, C.uint32_t(push), &k.layout))
	}
	if err == nil {
		var spec *C.uint32_t
		if len(desc.Spec) > 0 {
			spec = (*C.uint32_t)(unsafe.Pointer(&desc.Spec[0]))
		}
		full := C.uint32_t(0)
		if desc.FullSubgroups {
			full = 1
		}
		err = d.result("vkCreateComputePipelines", C.vkdml_create_compute_pipeline(d.dev, d.cache.handle(), k.module, k.layout,
			spec, C.uint32_t(len(desc.Spec)), C.uint32_t(desc.SubgroupSize), full, &k.pipeline))
	}
	if err == nil {
		err = d.TakeValidationError()
	}
	if err != nil {
		k.free()
		return nil, fmt.Errorf("gpu: kernel %s: %w", desc.Name, err)
	}
	d.track(k)
	return k, nil
}

// checkModule refuses a module that declares a SPIR-V capability whose
// device feature is not enabled, naming both, more shared memory than the
// device's maxComputeSharedMemorySize, or whose storage buffers or
// push-constant block lie outside the layout desc builds (push bytes),
// rather than letting the driver fail (or crash) on it.
func (d *Device) checkModule(desc KernelDesc, push uint32) error {
	name := desc.Name
	m, err := spirv.Parse(desc.SPIRV)
	if err != nil {
		return fmt.Errorf("gpu: kernel %s: %w", name, err)
	}
	if n := len(m.Bindings); n > 0 && m.Bindings[n-1] >= uint32(desc.Bindings) {
		return fmt.Errorf("gpu: kernel %s: the module uses storage buffer binding %d; the kernel binds %d (0..%d)", name, m.Bindings[n-1], desc.Bindings, desc.Bindings-1)
	}
	for _, b := range m.Bindings {
		if slices.Contains(desc.TexelBindings, int(b)) {
			return fmt.Errorf("gpu: kernel %s: the module uses binding %d as a storage buffer; KernelDesc.TexelBindings makes it a texel buffer", name, b)
		}
	}
	for _, b := range m.TexelBindings {
		if !slices.Contains(desc.TexelBindings, int(b)) {
			return fmt.Errorf("gpu: kernel %s: the module uses binding %d as a texel buffer; KernelDesc.TexelBindings %v does not name it", name, b, desc.TexelBindings)
		}
	}
	if lim := d.Limits.MaxComputeSharedMemorySize; m.WorkgroupBytes > lim {
		// Past the limit, pipeline creation and the kernel's behaviour are
		// undefined (VUID-RuntimeSpirv-Workgroup-06530), not an error.
		return fmt.Errorf("%w: kernel %s declares %d bytes of shared memory; the device's maxComputeSharedMemorySize is %d",
			ErrMissingFeature, name, m.WorkgroupBytes, lim)
	}
	if m.PushConstantBytes > push {
		return fmt.Errorf("gpu: kernel %s: the module's push-constant block is %d bytes; the kernel's push-constant range (4 per binding + ParamBytes) is %d", name, m.PushConstantBytes, push)
	}
	for _, c := range m.Capabilities {
		if feature, ok := d.hasCapability(c); !ok {
			return fmt.Errorf("%w: kernel %s declares SPIR-V capability %v, which needs %s; the device does not have it enabled (or Options.Disable turned it off)",
				ErrMissingFeature, name, c, feature)
		}
	}
	return nil
}

// texelMask is desc.TexelBindings as a bit set, checked: ascending, each
// below desc.Bindings.
func texelMask(desc KernelDesc) (uint32, error) {
	var mask uint32
	for i, b := range desc.TexelBindings {
		if b < 0 || b >= desc.Bindings || i > 0 && b <= desc.TexelBindings[i-1] {
			return 0, fmt.Errorf("gpu: kernel %s: TexelBindings %v: want ascending bindings in [0,%d)", desc.Name, desc.TexelBindings, desc.Bindings)
		}
		mask |= 1 << b
	}
	return mask, nil
}

// hasCapability reports whether the device can run a module that declares
// capability c, and names the feature c needs: a feature flag
// (spirv.Capability.Feature), or for the subgroup operation classes, the
// operations the device supports in compute shaders as well. A capability
// vkdml does not know how to check is refused.
func (d *Device) hasCapability(c spirv.Capability) (feature string, ok bool) {
	ops := d.Limits.SubgroupOperations
	switch c {
	case spirv.CapShader:
		return "Vulkan compute", true
	case spirv.CapSampledBuffer:
		return "uniform texel buffers (core Vulkan)", true
	case spirv.CapGroupNonUniform:
		return "subgroup basic operations in compute shaders", ops&caps.SubgroupBasic != 0
	case spirv.CapGroupNonUniformVote:
		return "subgroup vote operations in compute shaders", ops&caps.SubgroupVote != 0
	case spirv.CapGroupNonUniformArithmetic:
		if ops&caps.SubgroupArithmetic == 0 {
			return "subgroup arithmetic in compute shaders", false
		}
	case spirv.CapGroupNonUniformBallot:
		return "subgroup ballot operations in compute shaders", ops&caps.SubgroupBallot != 0
	case spirv.CapGroupNonUniformShuffle:
		return "subgroup shuffle operations in compute shaders", ops&caps.SubgroupShuffle != 0
	}
	if feature, ok, known := c.Feature(d.Features); known {
		return feature, ok
	}
	return "a device feature vkdml does not check for", false
}

// Name is the kernel's name.
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// Bindings is the number of storage buffers the kernel binds.
func (k *Kernel) Bindings() int {
	if k == nil {
		return 0
	}
	return k.bindings
}

// free destroys the Vulkan objects; the caller holds k.mu (or owns k
// alone) and the device's life lock.
func (k *Kernel) free() {
	d := k.d
	k.freed = true
	destroyHandle(&k.pipeline, func(p C.VkPipeline) { C.vkdml_destroy_pipeline(d.dev, p) })
	destroyHandle(&k.layout, func(l C.VkPipelineLayout) { C.vkdml_destroy_pipeline_layout(d.dev, l) })
	destroyHandle(&k.setLayout, func(s C.VkDescriptorSetLayout) { C.vkdml_destroy_set_layout(d.dev, s) })
	destroyHandle(&k.module, func(m C.VkShaderModule) { C.vkdml_destroy_shader_module(d.dev, m) })
}

// pipelineCache is a VkPipelineCache persisted on disk.
type pipelineCache struct {
	d    *Device
	c    C.VkPipelineCache
	path string // "" = not persisted
}

// maxPipelineCacheFile bounds a pipeline cache file, read back at every
// device creation: far above a driver's compiled code for the few hundred
// pipelines vkdml builds. A larger file (or anything else at the path,
// such as a FIFO) is ignored like a corrupt one, and a larger cache is not
// saved.
const maxPipelineCacheFile = 256 << 20

// cacheMagic starts vkdml's cache files; the header guards against files
// that are truncated or corrupt, which are ignored.
var cacheMagic = []byte("VKDMLPC1")

// CacheDir returns where pipeline caches are kept for the given
// Options.PipelineCacheDir value ("" when none).
func CacheDir(opt string) string {
	switch opt {
	case "off":
		return ""
	case "":
		// $XDG_CACHE_HOME or ~/.cache on Linux, %LocalAppData% on
		// Windows, ~/Library/Caches on macOS.
		if d, err := os.UserCacheDir(); err == nil {
			return filepath.Join(d, "vkdml")
		}
		return ""
	}
	return opt
}

func openPipelineCache(d *Device, dir string) *pipelineCache {
	pc := &pipelineCache{d: d}
	if dir = CacheDir(dir); dir != "" {
		pc.path = filepath.Join(dir, fmt.Sprintf("%s-%08x.bin", d.Info.UUID, d.Info.DriverVersion))
	}
	var data []byte
	if pc.path != "" {
		if raw, err := safefile.ReadFile(pc.path, maxPipelineCacheFile); err == nil {
			data = unwrapCache(raw)
		}
	}
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = C.CBytes(data)
		defer C.free(ptr)
	}
	if C.vkdml_create_pipeline_cache(d.dev, ptr, C.size_t(len(data)), &pc.c) != C.VK_SUCCESS {
		// The driver refused the data: start empty.
		if C.vkdml_create_pipeline_cache(d.dev, nil, 0, &pc.c) != C.VK_SUCCESS {
			pc.c = 0
		}
	}
	return pc
}

// unwrapCache checks vkdml's header (magic, length, SHA-256) and returns the
// driver's data, or nil when anything is off.
func unwrapCache(raw []byte) []byte {
	h := len(cacheMagic) + 8 + sha256.Size
	if len(raw) < h || !bytes.Equal(raw[:len(cacheMagic)], cacheMagic) {
		return nil
	}
	n := binary.LittleEndian.Uint64(raw[len(cacheMagic):])
	body := raw[h:]
	if uint64(len(body)) != n {
		return nil
	}
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], raw[len(cacheMagic)+8:h]) {
		return nil
	}
	return body
}

func wrapCache(body []byte) []byte {
	out := append([]byte(nil), cacheMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(body)))
	sum := sha256.Sum256(body)
	out = append(out, sum[:]...)
	return append(out, body...)
}

func (pc *pipelineCache) handle() C.VkPipelineCache { return pc.c }

// save writes the cache; failures are ignored, since the cache only saves
// compile time.
func (pc *pipelineCache) save() {
	if pc.path == "" || pc.c == 0 {
		return
	}
	var n C.size_t
	if err := check("vkGetPipelineCacheData", C.vkdml_pipeline_cache_data(pc.d.dev, pc.c, &n, nil)); err != nil || n == 0 {
		return
	}
	buf := C.malloc(n)
	defer C.free(buf)
	if r := C.vkdml_pipeline_cache_data(pc.d.dev, pc.c, &n, buf); r != C.VK_SUCCESS {
		return
	}
	data := wrapCache(C.GoBytes(buf, C.int(n)))
	if len(data) > maxPipelineCacheFile { // it would not be read back
		return
	}
	if err := os.MkdirAll(filepath.Dir(pc.path), 0o755); err != nil {
		return
	}
	safefile.WriteFile(pc.path, 0o600, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func (pc *pipelineCache) destroy() {
	if pc.c != 0 {
		C.vkdml_destroy_pipeline_cache(pc.d.dev, pc.c)
		pc.c = 0
	}
}

// CachePath is the file the pipeline cache is saved to ("" when none, and
// for a nil or zero Device).
func (d *Device) CachePath() string {
	if d == nil || d.cache == nil {
		return ""
	}
	return d.cache.path
}
