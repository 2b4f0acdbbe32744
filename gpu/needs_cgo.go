//go:build !cgo

package gpu

// The Vulkan binding is written in cgo, so without cgo this package has no
// Device, Kernel or anything else, and every file using them would fail
// with its own "undefined:" line. This one undefined name, the only error
// a cgo-less build reports, says what to do instead.
var _ = vkdml_needs_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler
