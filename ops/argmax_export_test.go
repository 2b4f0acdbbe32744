package ops

// SetArgWindowForTest caps the bytes one ARGMAX/ARGMIN step binds (0
// restores maxStorageBufferRange) and returns the previous cap, so tests
// run the windowed paths (several steps, partials, combine) on small
// tensors. Not safe to change while operators are being created.
func SetArgWindowForTest(bytes uint64) uint64 {
	old := argWindowOverride
	argWindowOverride = bytes
	return old
}
