package gpu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVkapiLayout compiles testdata/vkapi_layout.c against vkapi.h and
// against the system's <vulkan/vulkan.h>, and compares what each prints:
// the size, alignment and member offsets of every struct vkapi.h declares,
// and the value of every constant. It needs the Vulkan headers, which
// building vkdml does not; without them it is skipped.
func TestVkapiLayout(t *testing.T) {
	if _, err := os.Stat("/usr/include/vulkan/vulkan.h"); err != nil {
		t.Skip("no system Vulkan headers to compare vkapi.h with")
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	run := func(defs ...string) []byte {
		bin := filepath.Join(t.TempDir(), "layout")
		args := append(defs, "-std=c11", "-o", bin, "testdata/vkapi_layout.c")
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mine := run()
	system := run("-DVKDML_SYSTEM_HEADERS", "-DVK_NO_PROTOTYPES")
	if !bytes.Equal(mine, system) {
		a, b := bytes.Split(mine, []byte("\n")), bytes.Split(system, []byte("\n"))
		for i := range min(len(a), len(b)) {
			if !bytes.Equal(a[i], b[i]) {
				t.Fatalf("vkapi.h differs from <vulkan/vulkan.h>: %q vs %q (regenerate with gpu/internal/vkapigen)", a[i], b[i])
			}
		}
		t.Fatalf("vkapi.h differs from <vulkan/vulkan.h>: %d vs %d lines", len(a), len(b))
	}
	if n := bytes.Count(mine, []byte("offsetof")); n < 400 {
		t.Fatalf("only %d member offsets compared", n)
	}
}
