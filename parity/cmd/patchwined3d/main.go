// Command patchwined3d writes a patched copy of Wine 8.0's wined3d.dll into
// a private Wine prefix, so that the vkd3d 1.6 bundled inside it binds
// DirectML's descriptor tables on a Vulkan driver without
// VK_EXT_descriptor_indexing (lavapipe in Mesa 22.3). See
// docs/dml-under-wine.md, "Two obstacles and their fixes":
//
//   - d3d12_descriptor_heap_create: `41 80 bc 24 ae 09 00 00 00 74 b7`
//     (cmpb $0,0x9ae(%r12); je skip_register); the je (74 b7) becomes two
//     NOPs, so the heap range is always registered;
//   - d3d12_descriptor_heap_Release: `41 80 be ae 09 00 00 00 0f 85 rel32`
//     (cmpb $0,0x9ae(%r14); jne do_unregister); the jne becomes
//     `90 e9 rel32` (nop; jmp, same target), so it is always unregistered;
//   - the "Wine builtin DLL" marker at file offset 0x40 is zeroed, so that
//     WINEDLLOVERRIDES=wined3d=n loads this copy.
//
// It refuses to write anything unless each pattern occurs exactly once and
// the marker is where it is expected. Nothing under /usr is modified.
//
// Usage: patchwined3d SRC DST
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

var (
	heapCreate  = []byte{0x41, 0x80, 0xbc, 0x24, 0xae, 0x09, 0x00, 0x00, 0x00, 0x74, 0xb7}
	heapRelease = []byte{0x41, 0x80, 0xbe, 0xae, 0x09, 0x00, 0x00, 0x00, 0x0f, 0x85}
	marker      = []byte("Wine builtin DLL")
)

const markerOffset = 0x40

// findOnce returns the offset of the only occurrence of pat in b.
func findOnce(b, pat []byte, what string) (int, error) {
	i := bytes.Index(b, pat)
	if i < 0 {
		return 0, fmt.Errorf("%s: pattern % x not found (not Debian's wine 8.0~repack-4 wined3d.dll?)", what, pat)
	}
	if j := bytes.Index(b[i+1:], pat); j >= 0 {
		return 0, fmt.Errorf("%s: pattern % x found more than once (at %#x and %#x)", what, pat, i, i+1+j)
	}
	return i, nil
}

func patch(b []byte) (create, release int, err error) {
	if len(b) < markerOffset+len(marker) || !bytes.Equal(b[markerOffset:markerOffset+len(marker)], marker) {
		return 0, 0, fmt.Errorf("no %q marker at offset %#x", marker, markerOffset)
	}
	c, err := findOnce(b, heapCreate, "d3d12_descriptor_heap_create")
	if err != nil {
		return 0, 0, err
	}
	r, err := findOnce(b, heapRelease, "d3d12_descriptor_heap_Release")
	if err != nil {
		return 0, 0, err
	}
	if r+14 > len(b) {
		return 0, 0, fmt.Errorf("d3d12_descriptor_heap_Release: pattern at %#x is truncated", r)
	}
	b[c+9], b[c+10] = 0x90, 0x90 // je skip_register → nop; nop
	// 0f 85 rel32 (jne, 6 bytes) → 90 e9 rel32 (nop; jmp). The jmp starts
	// one byte later than the jne but ends at the same address, so the
	// same rel32 reaches the same target.
	b[r+8], b[r+9] = 0x90, 0xe9
	for i := range marker {
		b[markerOffset+i] = 0
	}
	return c, r, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: patchwined3d SRC DST")
		os.Exit(2)
	}
	src, dst := os.Args[1], os.Args[2]
	var c, r int
	b, err := os.ReadFile(src)
	if err == nil {
		c, r, err = patch(b)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "patchwined3d: %s: %v; refusing to patch\n", src, err)
		os.Exit(1)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".wined3d.dll.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "patchwined3d:", err)
		os.Exit(1)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		fmt.Fprintln(os.Stderr, "patchwined3d:", err)
		os.Exit(1)
	}
	fmt.Printf("patchwined3d: %s → %s (heap_create at %#x, heap_Release at %#x patched; builtin marker cleared)\n", src, dst, c, r)
}
