//go:build !windows

package gpu

// LoaderName is the shared object vkdml opens first; $VKDML_VULKAN_LIBRARY
// overrides the whole list (a path or another soname).
const LoaderName = "libvulkan.so.1"

// loaderNames is what Load tries, in order: the versioned soname of Linux
// distributions, then the unversioned name Android ships.
var loaderNames = []string{LoaderName, "libvulkan.so"}

// oldLoaderHint follows "the Vulkan loader supports 1.0.x".
func oldLoaderHint() string {
	return "install a newer Vulkan loader (Debian: libvulkan1) and driver"
}

// missingLayerHint follows "debug mode needs VK_LAYER_KHRONOS_validation".
func missingLayerHint() string { return "Debian: vulkan-validationlayers" }

// hostValidation reports whether debug mode runs with a validation layer
// that the loader does not list: only under Wine (see loader_windows.go).
func hostValidation() bool { return false }
