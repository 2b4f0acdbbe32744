package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vkdml/vkdml/internal/faultload"
	"github.com/vkdml/vkdml/shaders"
)

// TestTimeoutKeepsWorkAlive runs, in a child process, vkdml over a loader
// that reports VK_TIMEOUT while a file exists (testdata/faultloader.c), in
// debug mode: a list that timed out stays pending, a second submit is
// refused, and what it uses (buffers, kernel, the list itself, staging
// memory) is freed only after the work is seen done, which the loader
// checks call by call; Close during a hang returns within CloseTimeout,
// frees nothing and makes no unbounded wait. Every timeout names its call.
func TestTimeoutKeepsWorkAlive(t *testing.T) {
	if !faultload.Child() {
		runFaultChild(t, "TestTimeoutKeepsWorkAlive")
		return
	}
	// Real work must finish within these even on a loaded machine; the
	// fault loader reports timeouts at once whatever they are.
	SubmitTimeout, CloseTimeout = 30*time.Second, 30*time.Second
	setHang := func(on bool) {
		if on {
			faultload.Hang(t)
		} else {
			faultload.Unhang(t)
		}
	}
	for _, staging := range []bool{false, true} {
		d := openChildDevice(t, Options{Debug: true, PipelineCacheDir: "off", ForceStaging: staging})
		timeoutRound(t, d, setHang)
		if err := d.Close(); err != nil {
			t.Fatalf("staging %v: Close: %v", staging, err)
		}
		faultload.CheckClean(t, fmt.Sprintf("staging %v", staging))
	}

	// Close while the GPU "hangs": bounded, and nothing is freed.
	d := openChildDevice(t, Options{PipelineCacheDir: "off"})
	k, src, dst, l := copySetup(t, d, 1024)
	_ = k
	setHang(true)
	if err := l.Submit(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := d.Close()
	if !errors.Is(err, ErrTimeout) || time.Since(start) > CloseTimeout/2 {
		t.Fatalf("Close during a hang: %v after %v", err, time.Since(start))
	}
	if want := "Device.Close: submitted work (1 list(s) not yet seen to finish) did not finish"; !strings.Contains(err.Error(), want) {
		t.Fatalf("Close during a hang does not say %q: %v", want, err)
	}
	if src.freed || dst.freed || l.freed || d.mem.closed {
		t.Fatal("Close freed objects the GPU may still be using")
	}
	faultload.CheckClean(t, "Close during a hang")
	setHang(false)
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func timeoutRound(t *testing.T, d *Device, setHang func(bool)) {
	const n = 4096
	k, src, dst, l := copySetup(t, d, n)
	k2, src2, dst2, l2 := copySetup(t, d, n)
	setHang(true)
	if err := l.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "CommandList.Wait: the submitted list did not finish") {
		t.Fatalf("Wait during a hang: %v", err)
	}
	if err := d.WaitIdle(); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "Device.WaitIdle: submitted work") {
		t.Fatalf("WaitIdle during a hang: %v", err)
	}
	if _, err := l.Timestamps(); !errors.Is(err, ErrPending) {
		t.Fatalf("Timestamps of a timed-out list: %v", err)
	}
	// A second list, submitted and waited for by Run, times out too.
	if err := l2.Run(); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "CommandList.Run: the submitted list did not finish") {
		t.Fatalf("Run during a hang: %v", err)
	}
	for _, err := range []error{src2.Free(), dst2.Free(), l2.Destroy(), k2.Destroy()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Submit(); !errors.Is(err, ErrPending) {
		t.Fatalf("second Submit of a timed-out list: %v", err)
	}
	if err := l.Begin(); !errors.Is(err, ErrPending) {
		t.Fatalf("Begin of a timed-out list: %v", err)
	}
	for name, err := range map[string]error{"Free": src.Free(), "Kernel.Destroy": k.Destroy(), "List.Destroy": l.Destroy()} {
		if err != nil {
			t.Fatalf("%s of an object in flight: %v", name, err)
		}
	}
	if src.freed || k.freed || l.freed {
		t.Fatalf("freed while in flight: buffer %v, kernel %v, list %v", src.freed, k.freed, l.freed)
	}
	squat, err := d.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if squat.segs[0].blk == src.segs[0].blk && squat.segs[0].offset == src.segs[0].offset {
		t.Fatal("the range of a buffer in flight was handed out again")
	}
	if d.mem.staging != nil {
		// A staged upload that times out keeps its staging memory.
		if err := dst.Write(0, make([]byte, 64)); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "Buffer.Write: the staging upload of 64 bytes at offset 0 did not finish") {
			t.Fatalf("staged Write during a hang: %v", err)
		}
		if held := d.poolBytes(d.mem.staging); held == 0 {
			t.Fatal("the staging memory of a copy in flight was freed")
		}
	}
	faultload.CheckClean(t, "during the hang")
	setHang(false)
	if err := d.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	if !src.freed || !k.freed || !l.freed {
		t.Fatalf("not freed once done: buffer %v, kernel %v, list %v", src.freed, k.freed, l.freed)
	}
	if d.mem.staging != nil && d.poolBytes(d.mem.staging) != 0 {
		t.Fatal("staging memory not freed once the copy was done")
	}
	got := make([]byte, 4*n)
	if err := dst.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if d.mem.staging == nil { // the staged Write above overwrote the start
		for i := range n {
			if g := binary.LittleEndian.Uint32(got[4*i:]); g != uint32(i+5) {
				t.Fatalf("word %d = %d", i, g)
			}
		}
	}
	squat.Free()
	dst.Free()
	if err := d.TakeValidationError(); err != nil {
		t.Fatal(err)
	}
}

// poolBytes is the memory p holds in blocks.
func (d *Device) poolBytes(p *pool) uint64 {
	d.mem.mu.Lock()
	defer d.mem.mu.Unlock()
	var n uint64
	for _, b := range p.blocks {
		n += b.size
	}
	return n
}

// copySetup records a copy of n words from a new buffer into another.
func copySetup(t *testing.T, d *Device, n uint32) (*Kernel, *Buffer, *Buffer, *CommandList) {
	t.Helper()
	code, err := shaders.SPIRV(shaders.CopyName(32, false))
	if err != nil {
		t.Fatal(err)
	}
	k, err := d.NewKernel(KernelDesc{Name: "copy", SPIRV: code, Bindings: 2, ParamBytes: 4 * 26, Spec: []uint32{64}})
	if err != nil {
		t.Fatal(err)
	}
	src, err1 := d.NewBuffer(4 * uint64(n))
	dst, err2 := d.NewBuffer(4 * uint64(n))
	l, err3 := d.NewCommandList()
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], i+5)
	}
	p := make([]byte, 4*26)
	binary.LittleEndian.PutUint32(p[0:], 1)
	binary.LittleEndian.PutUint32(p[4:], n)
	binary.LittleEndian.PutUint32(p[8:], n)
	binary.LittleEndian.PutUint32(p[40:], 1)
	binary.LittleEndian.PutUint32(p[72:], 1)
	err = errors.Join(src.Write(0, data), l.Begin(),
		l.Dispatch(k, []Range{{Buffer: src, Size: 4 * uint64(n)}, {Buffer: dst, Size: 4 * uint64(n)}}, p, [3]uint32{(n + 63) / 64, 1, 1}),
		l.End())
	if err != nil {
		t.Fatal(err)
	}
	return k, src, dst, l
}

func openChildDevice(t *testing.T, opts Options) *Device {
	t.Helper()
	d, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return d
}

// runFaultChild runs test name in a child process over the fault-injecting
// loader (internal/faultload), or skips where there is no Vulkan device.
func runFaultChild(t *testing.T, name string) {
	if _, _, err := Enumerate(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no Vulkan device: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	faultload.Run(t, name)
}

// runChild runs test name in a child process with env added, and fails
// unless it passes.
func runChild(t *testing.T, name string, env ...string) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// TestLoaderErrors: a loader that is not there is named in the error, and
// a loader with no driver behind it says what to install.
func TestLoaderErrors(t *testing.T) {
	switch os.Getenv("VKDML_LOADER_CHILD") {
	case "":
		runChild(t, "TestLoaderErrors", "VKDML_LOADER_CHILD=missing", "VKDML_VULKAN_LIBRARY=/nonexistent/libvulkan-test.so.1")
		// Linux only: the hint names Debian's package, and Wine hides VK_*
		// variables from Windows programs.
		if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libvulkan.so.1"); runtime.GOOS == "linux" && (err == nil || os.Getenv("CI") == "true") {
			runChild(t, "TestLoaderErrors", "VKDML_LOADER_CHILD=nodriver", "VK_DRIVER_FILES=/nonexistent/icd.json",
				"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_ADD_DRIVER_FILES=")
		}
	case "missing":
		_, err := Open(Options{PipelineCacheDir: "off"})
		if !errors.Is(err, ErrNoLoader) || !strings.Contains(err.Error(), "/nonexistent/libvulkan-test.so.1") {
			t.Fatalf("want ErrNoLoader naming the library, got %v", err)
		}
		if LoaderLibrary() != "" {
			t.Fatalf("LoaderLibrary with no loader: %q", LoaderLibrary())
		}
		t.Log(err)
	case "nodriver":
		_, err := Open(Options{PipelineCacheDir: "off"})
		if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "mesa-vulkan-drivers") {
			t.Fatalf("want ErrNoDevice with a hint, got %v", err)
		}
		if !strings.Contains(LoaderLibrary(), "libvulkan.so") {
			t.Fatalf("LoaderLibrary: %q", LoaderLibrary())
		}
		t.Log(err, "; loader:", LoaderLibrary())
	}
}

// TestOneInstancePerProcess: devices come and go on the process's two
// instances (plain and debug), which are created once.
func TestOneInstancePerProcess(t *testing.T) {
	var seen [2]*instance
	for i := range 6 {
		debug := i%2 == 1
		d, err := Open(Options{Debug: debug, PipelineCacheDir: "off"})
		if err != nil {
			if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true and no Vulkan device: %v", err)
				}
				t.Skip(err)
			}
			t.Fatal(err)
		}
		slot := &seen[i%2]
		if *slot == nil {
			*slot = d.in
		} else if *slot != d.in {
			t.Fatalf("device %d (debug %v) got a new instance", i, debug)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if seen[0] == seen[1] || seen[0].handle != 0 || seen[1].handle == 0 {
		t.Fatal("the plain and the debug device share an instance, or the debug one has no messenger")
	}
}
