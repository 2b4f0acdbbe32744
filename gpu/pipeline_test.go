package gpu_test

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/shaders"
)

// module is the SPIR-V of the shader variant, failing t when it has none.
func module(t *testing.T, variant string) []byte {
	t.Helper()
	code, err := shaders.SPIRV(variant)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestNewKernelRefusesMissingCapabilities: a module whose SPIR-V
// capabilities need a feature the device has not enabled is refused by
// NewKernel, naming the kernel, the capability and the feature, before the
// driver sees it; with the feature enabled the same module builds.
func TestNewKernelRefusesMissingCapabilities(t *testing.T) {
	cases := []struct {
		variant    string
		bindings   int
		params     uint32
		spec       int
		capability string
		feature    string
		has        func(f caps.Features) bool
	}{
		{shaders.CopyName(8, true), 2, 104, 1, "StorageBuffer8BitAccess", "storageBuffer8BitAccess", func(f caps.Features) bool { return f.StorageBuffer8Bit }},
		{shaders.CopyName(16, true), 2, 104, 1, "StorageBuffer16BitAccess", "storageBuffer16BitAccess", func(f caps.Features) bool { return f.StorageBuffer16Bit }},
		{shaders.ArgMaxVecRow64, 2, 40, 26, "Int64", "shaderInt64", func(f caps.Features) bool { return f.ShaderInt64 }},
		{shaders.ArgMaxName(32, false, shaders.ArgMaxGroupSG), 2, 40, 26, "GroupNonUniformArithmetic", "subgroup arithmetic", func(f caps.Features) bool { return f.SubgroupArithmetic }},
	}
	build := func(d *gpu.Device, variant string, bindings int, params uint32, spec int) (*gpu.Kernel, error) {
		code := module(t, variant)
		s := make([]uint32, spec)
		for i := range s {
			s[i] = 1
		}
		s[0] = 64
		return d.NewKernel(gpu.KernelDesc{Name: variant, SPIRV: code, Bindings: bindings, ParamBytes: params, Spec: s})
	}

	off := caps.Features{StorageBuffer8Bit: true, StorageBuffer16Bit: true, ShaderInt64: true, SubgroupArithmetic: true}
	lacking := testutil.OpenGPU(t, gpu.Options{Disable: off})
	for _, c := range cases {
		k, err := build(lacking, c.variant, c.bindings, c.params, c.spec)
		if err == nil {
			k.Destroy()
			t.Errorf("%s built on a device without %s", c.variant, c.feature)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, gpu.ErrMissingFeature) || !strings.Contains(msg, c.variant) || !strings.Contains(msg, c.capability) || !strings.Contains(msg, c.feature) {
			t.Errorf("%s: %v; want ErrMissingFeature naming the kernel, %s and %s", c.variant, err, c.capability, c.feature)
		}
	}

	full := testutil.OpenGPU(t, gpu.Options{})
	for _, c := range cases {
		if !c.has(full.Features) {
			t.Logf("%s: the device has no %s; only the refusal was checked", c.variant, c.feature)
			continue
		}
		k, err := build(full, c.variant, c.bindings, c.params, c.spec)
		if err != nil {
			t.Errorf("%s with %s enabled: %v", c.variant, c.feature, err)
			continue
		}
		k.Destroy()
	}
}

// TestNewKernelTakesManySpecConstants: the number of specialization
// constants is not capped (the C shim once refused more than 32 with
// VK_ERROR_INITIALIZATION_FAILED).
func TestNewKernelTakesManySpecConstants(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	code := module(t, shaders.MaxPoolName(32, false, 32))
	spec := make([]uint32, 100) // the module reads 0..30; the rest are unused IDs
	for i := range spec {
		spec[i] = 1
	}
	spec[0] = 64
	k, err := d.NewKernel(gpu.KernelDesc{Name: "maxpool", SPIRV: code, Bindings: 3, ParamBytes: 40, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	k.Destroy()
}

// TestNewKernelParamBytesOverflow: ParamBytes near 2^32 wrapped the
// push-constant size (4*bindings + ParamBytes) to a small number that
// passed the maxPushConstantsSize check, and a push-constant range of 0
// bytes reached vkCreatePipelineLayout. It is refused first.
func TestNewKernelParamBytesOverflow(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	code := module(t, shaders.MaxPoolName(32, false, 32))
	for _, params := range []uint32{1<<32 - 12, 1<<32 - 4} {
		k, err := d.NewKernel(gpu.KernelDesc{Name: "maxpool", SPIRV: code, Bindings: 3, ParamBytes: params, Spec: []uint32{64}})
		if err == nil {
			k.Destroy()
			t.Errorf("ParamBytes %d: a kernel was built", params)
		} else if !strings.Contains(err.Error(), "push-constant") {
			t.Errorf("ParamBytes %d: %v; want the push-constant size refused", params, err)
		}
	}
}

// TestNewKernelChecksTheModuleLayout: a kernel whose push-constant range
// is smaller than the module's block, or that binds fewer storage buffers
// than the module uses, is refused before the driver sees the mismatch.
func TestNewKernelChecksTheModuleLayout(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	code := module(t, shaders.CopyName(32, false))
	for _, c := range []struct {
		bindings int
		params   uint32
		want     string
	}{
		{2, 0, "push-constant block"},
		{2, 4*26 - 4, "push-constant block"},
		{1, 4 * 27, "binding 1"},
	} {
		k, err := d.NewKernel(gpu.KernelDesc{Name: "copy", SPIRV: code, Bindings: c.bindings, ParamBytes: c.params, Spec: []uint32{64}})
		if err == nil {
			k.Destroy()
			t.Errorf("bindings %d, params %d: a kernel was built", c.bindings, c.params)
		} else if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "validation") {
			t.Errorf("bindings %d, params %d: %v; want the mismatch named (%q) before the driver", c.bindings, c.params, err, c.want)
		}
	}
}

// TestCacheDirDefault: the default pipeline cache is vkdml in the
// platform's per-user cache folder.
func TestCacheDirDefault(t *testing.T) {
	dir := t.TempDir()
	switch runtime.GOOS {
	case "windows":
		t.Setenv("LocalAppData", dir)
	case "darwin", "ios", "plan9":
		t.Skip("the cache folder comes from $HOME here")
	default:
		t.Setenv("XDG_CACHE_HOME", dir)
	}
	if got, want := gpu.CacheDir(""), filepath.Join(dir, "vkdml"); got != want {
		t.Errorf("CacheDir(\"\") = %q, want %q", got, want)
	}
	if got := gpu.CacheDir("off"); got != "" {
		t.Errorf("CacheDir(\"off\") = %q, want \"\"", got)
	}
}

// TestNewKernelChecksTexelBindings: KernelDesc.TexelBindings must name
// ascending bindings below Bindings and exactly the module's texel
// buffers; a mismatch either way is refused before the driver sees it,
// and the texel scan's module builds with its row's bindings.
func TestNewKernelChecksTexelBindings(t *testing.T) {
	d := testutil.OpenGPU(t, gpu.Options{})
	texel, err := shaders.Lookup(shaders.ArgMaxVecRowTexelSG1)
	if err != nil {
		t.Fatal(err)
	}
	texelSpec := make([]uint32, len(texel.Spec))
	texelSpec[0] = d.Limits.SubgroupSize
	copyDesc := gpu.KernelDesc{Name: "copy", SPIRV: module(t, shaders.CopyName(32, false)), Bindings: 2, ParamBytes: 4 * 26, Spec: []uint32{64}}
	texelDesc := gpu.KernelDesc{Name: texel.Name, SPIRV: module(t, texel.Name), Bindings: texel.Bindings, ParamBytes: texel.ParamBytes(), Spec: texelSpec}
	for _, c := range []struct {
		desc  gpu.KernelDesc
		texel []int
		want  string
	}{
		{copyDesc, []int{0}, "binding 0 as a storage buffer"},
		{copyDesc, []int{2}, "TexelBindings [2]"},
		{copyDesc, []int{1, 0}, "TexelBindings [1 0]"},
		{texelDesc, nil, "binding 0 as a texel buffer"},
	} {
		desc := c.desc
		desc.TexelBindings = c.texel
		k, err := d.NewKernel(desc)
		if err == nil {
			k.Destroy()
			t.Errorf("%s with texel bindings %v: a kernel was built", desc.Name, c.texel)
		} else if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "validation") {
			t.Errorf("%s with texel bindings %v: %v; want the mismatch named (%q) before the driver", desc.Name, c.texel, err, c.want)
		}
	}
	if !d.Features.SubgroupArithmetic {
		return
	}
	texelDesc.TexelBindings = texel.TexelBindings
	k, err := d.NewKernel(texelDesc)
	if err != nil {
		t.Fatalf("the texel scan with its row's bindings: %v", err)
	}
	k.Destroy()
}

// TestNewKernelRefusesSharedMemoryOverLimit: a module declaring more
// shared memory than the device's maxComputeSharedMemorySize (lowered by
// Options.MaxSharedMemory to Vulkan's least) is refused by NewKernel,
// naming the kernel, its bytes and the limit, before the driver sees it
// (past the limit its behaviour is undefined); on the device's own limit
// the same module builds. A cap below Vulkan's least is refused.
func TestNewKernelRefusesSharedMemoryOverLimit(t *testing.T) {
	v, err := shaders.Lookup(shaders.TopKRankName)
	if err != nil {
		t.Fatal(err)
	}
	m, err := shaders.Info(v.Name)
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkgroupBytes <= gpu.MinSharedMemory {
		t.Fatalf("%s declares %d bytes of shared memory; the test needs a module over %d", v.Name, m.WorkgroupBytes, gpu.MinSharedMemory)
	}
	build := func(d *gpu.Device) (*gpu.Kernel, error) {
		s := make([]uint32, len(v.Spec))
		for i := range s {
			s[i] = 1
		}
		s[0] = 64
		return d.NewKernel(gpu.KernelDesc{Name: v.Name, SPIRV: module(t, v.Name), Bindings: v.Bindings, TexelBindings: v.TexelBindings, ParamBytes: v.ParamBytes(), Spec: s})
	}
	small := testutil.OpenGPU(t, gpu.Options{MaxSharedMemory: gpu.MinSharedMemory})
	if got := small.Limits.MaxComputeSharedMemorySize; got != gpu.MinSharedMemory {
		t.Fatalf("MaxSharedMemory %d gave maxComputeSharedMemorySize %d", gpu.MinSharedMemory, got)
	}
	k, err := build(small)
	if err == nil {
		k.Destroy()
		t.Fatalf("%s (%d bytes of shared memory) built on a device of %d", v.Name, m.WorkgroupBytes, gpu.MinSharedMemory)
	}
	if msg := err.Error(); !errors.Is(err, gpu.ErrMissingFeature) || !strings.Contains(msg, v.Name) || !strings.Contains(msg, "maxComputeSharedMemorySize is 16384") {
		t.Errorf("%v; want ErrMissingFeature naming the kernel and maxComputeSharedMemorySize 16384", err)
	}
	full := testutil.OpenGPU(t, gpu.Options{})
	if full.Limits.MaxComputeSharedMemorySize < m.WorkgroupBytes {
		t.Logf("the device has %d bytes of shared memory; only the refusal was checked", full.Limits.MaxComputeSharedMemorySize)
		return
	}
	if k, err = build(full); err != nil {
		t.Errorf("%s on the device's own %d bytes: %v", v.Name, full.Limits.MaxComputeSharedMemorySize, err)
	} else {
		k.Destroy()
	}
	if d, err := gpu.Open(gpu.Options{MaxSharedMemory: gpu.MinSharedMemory - 1, PipelineCacheDir: "off"}); err == nil {
		d.Close()
		t.Errorf("MaxSharedMemory %d opened a device", gpu.MinSharedMemory-1)
	}
}
