package gpu

import (
	"os"
	"sync"
	"syscall"
)

// LoaderName is the DLL vkdml opens: the Khronos loader, which GPU drivers
// and the Vulkan SDK install into System32 (Wine provides its own, which
// hands the calls to the host's Vulkan through winevulkan).
// $VKDML_VULKAN_LIBRARY overrides it (a path or another DLL name).
const LoaderName = "vulkan-1.dll"

// loaderNames is what Load tries, in order.
var loaderNames = []string{LoaderName}

// underWine reports whether the process runs under Wine, whose ntdll
// exports wine_get_version.
var underWine = sync.OnceValue(func() bool {
	ntdll, err := syscall.LoadDLL("ntdll.dll")
	if err != nil {
		return false
	}
	_, err = ntdll.FindProc("wine_get_version")
	return err == nil
})

// oldLoaderHint follows "the Vulkan loader supports 1.0.x". A driver that
// installs no newer vulkan-1.dll is the usual cause on Windows. Wine's
// vulkan-1.dll reports 1.0 when winevulkan cannot reach the host's Vulkan,
// which needs an X display even for compute.
func oldLoaderHint() string {
	if underWine() {
		return "under Wine this means winevulkan found no host Vulkan: it needs an X display (set DISPLAY; Xvfb on a machine without one) and a Vulkan driver on the host (Debian: mesa-vulkan-drivers)"
	}
	return "install your GPU vendor's current driver, which installs vulkan-1.dll and its Vulkan driver"
}

// missingLayerHint follows "debug mode needs VK_LAYER_KHRONOS_validation".
func missingLayerHint() string {
	if underWine() {
		return "winevulkan lists no layers: enable the host's with VK_INSTANCE_LAYERS=" + ValidationLayer +
			" (Debian: vulkan-validationlayers) and set " + hostValidationVar + "=1, since Wine hides VK_* variables from Windows programs"
	}
	return "it comes with the Vulkan SDK, https://vulkan.lunarg.com/sdk/home"
}

// hostValidationVar says, under Wine, that the host's validation layer is
// on. winevulkan lists no layers and refuses to enable one, but the host's
// loader enables those VK_INSTANCE_LAYERS names below winevulkan, and their
// messages reach the debug messenger as usual. Wine hides VK_* variables
// from Windows programs, so vkdml cannot see VK_INSTANCE_LAYERS itself.
const hostValidationVar = "VKDML_WINE_HOST_VALIDATION"

// hostValidation reports whether debug mode runs with the host's
// validation layer (hostValidationVar=1 under Wine).
func hostValidation() bool {
	return underWine() && os.Getenv(hostValidationVar) == "1"
}
