package dml

import "syscall"

// hostMemory is the machine's total RAM in bytes, or 0 when unknown.
func hostMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
