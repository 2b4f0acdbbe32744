package ops_test

import (
	"encoding/binary"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
)

// TestExactAccGLSL runs shaders/reduce_exact.glsl (through
// testdata/reduce_exact_check.comp, compiled here with glslc) on random
// blocks, each summed as two accumulators merged, and checks every sum's
// bits against the Go reference's exact sum.
func TestExactAccGLSL(t *testing.T) {
	glslc, err := exec.LookPath("glslc")
	if err != nil {
		t.Skip("glslc is not installed: it compiles the test kernel")
	}
	spv := filepath.Join(t.TempDir(), "reduce_exact_check.spv")
	if out, err := exec.Command(glslc, "--target-env="+shaders.TargetEnv, "-O", "-I", "../shaders", "testdata/reduce_exact_check.comp", "-o", spv).CombinedOutput(); err != nil {
		t.Fatalf("glslc: %v\n%s", err, out)
	}
	code, err := os.ReadFile(spv)
	if err != nil {
		t.Fatal(err)
	}
	d := testutil.OpenGPU(t, gpu.Options{})
	k, err := d.NewKernel(gpu.KernelDesc{Name: "reduce_exact_check", SPIRV: code, Bindings: 2, ParamBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Destroy()

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const blocks, n = 512, 37
	xs := make([]uint32, blocks*n)
	for b := 0; b < blocks; b++ {
		block := xs[b*n : (b+1)*n]
		for i := range block {
			block[i] = ops.RandomFloat32Bits(rng)
			if i > 0 && rng.Intn(3) == 0 { // cancel an earlier term
				block[i] = block[rng.Intn(i)] ^ 1<<31
			}
		}
		switch b % 16 {
		case 1: // every term -0
			for i := range block {
				block[i] = 0x80000000
			}
		case 2:
			block[rng.Intn(n)] = 0x7f800000
		case 3:
			block[rng.Intn(n)], block[rng.Intn(n)] = 0x7f800000, 0xff800000
		case 4:
			block[rng.Intn(n)] = 0x7fa00001 // a signalling NaN with a payload
		case 6, 7: // ties: 2^24 + 1 rounds down to even, 2^24 + 3 up
			for i := range block {
				block[i] = 0
			}
			block[0], block[n-1] = 0x4b800000, 0x3f800000 // 2^24, 1
			if b%16 == 7 {
				block[n/2] = 0x40000000 // 2
			}
		case 5: // the largest magnitudes, cancelling
			for i := range block {
				block[i] = 0x7f7fffff ^ uint32(i&1)<<31
			}
		}
	}
	in := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(in[4*i:], x)
	}
	src, err := d.NewBuffer(uint64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	dst, err := d.NewBuffer(4 * blocks)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	if err := src.Write(0, in); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []uint32{0, 1, 17, n} {
		l, err := d.NewCommandList()
		if err != nil {
			t.Fatal(err)
		}
		params := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, n), cut)
		if err := l.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := l.Dispatch(k, []gpu.Range{{Buffer: src, Size: uint64(len(in))}, {Buffer: dst, Size: 4 * blocks}}, params, [3]uint32{blocks, 1, 1}); err != nil {
			t.Fatal(err)
		}
		if err := l.End(); err != nil {
			t.Fatal(err)
		}
		if err := l.Submit(); err != nil {
			t.Fatal(err)
		}
		if err := l.Wait(); err != nil {
			t.Fatal(err)
		}
		l.Destroy()
		out := make([]byte, 4*blocks)
		if err := dst.Read(0, out); err != nil {
			t.Fatal(err)
		}
		for b := 0; b < blocks; b++ {
			want := ops.ExactSumFloat32(xs[b*n : (b+1)*n])
			if got := binary.LittleEndian.Uint32(out[4*b:]); got != want {
				t.Fatalf("seed %d, cut %d: block %d %08x: the kernel's sum %08x, the reference's %08x", seed, cut, b, xs[b*n:(b+1)*n], got, want)
			}
		}
	}
}
