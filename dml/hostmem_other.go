//go:build !linux

package dml

// hostMemory is the machine's total RAM in bytes, or 0 when unknown (as
// here: only the address space bounds host allocations).
func hostMemory() uint64 { return 0 }
