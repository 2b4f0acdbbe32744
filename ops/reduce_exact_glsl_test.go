package ops_test

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
	d, k := glslCheckKernel(t, "reduce_exact_check", 8)
	rng := testutil.Rand(t)
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
	for _, cut := range []uint32{0, 1, 17, n} {
		params := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, n), cut)
		out := glslCheckRun(t, d, k, in, 4*blocks, params, blocks)
		for b := 0; b < blocks; b++ {
			want := ops.ExactSumFloat32(xs[b*n : (b+1)*n])
			if got := binary.LittleEndian.Uint32(out[4*b:]); got != want {
				t.Fatalf("cut %d: block %d %08x: the kernel's sum %08x, the reference's %08x", cut, b, xs[b*n:(b+1)*n], got, want)
			}
		}
	}
}

// glslCheckKernel compiles testdata/NAME.comp (with shaders/ on the
// include path) with glslc, skipping the test without it, and returns the
// device and the kernel of two bindings and paramBytes of push words.
func glslCheckKernel(t *testing.T, name string, paramBytes int) (*gpu.Device, *gpu.Kernel) {
	t.Helper()
	glslc, err := exec.LookPath("glslc")
	if err != nil {
		t.Skip("glslc is not installed: it compiles the test kernel")
	}
	spv := filepath.Join(t.TempDir(), name+".spv")
	if out, err := exec.Command(glslc, "--target-env="+shaders.TargetEnv, "-O", "-I", "../shaders", "testdata/"+name+".comp", "-o", spv).CombinedOutput(); err != nil {
		t.Fatalf("glslc: %v\n%s", err, out)
	}
	code, err := os.ReadFile(spv)
	if err != nil {
		t.Fatal(err)
	}
	d := testutil.OpenGPU(t, gpu.Options{})
	k, err := d.NewKernel(gpu.KernelDesc{Name: name, SPIRV: code, Bindings: 2, ParamBytes: uint32(paramBytes)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Destroy() })
	return d, k
}

// glslCheckRun dispatches k over groups workgroups with input in and an
// output of outBytes, and returns the output.
func glslCheckRun(t *testing.T, d *gpu.Device, k *gpu.Kernel, in []byte, outBytes int, params []byte, groups uint32) []byte {
	t.Helper()
	src := testutil.NewGPUBuffer(t, d, uint64(len(in)))
	dst := testutil.NewGPUBuffer(t, d, uint64(outBytes))
	if err := src.Write(0, in); err != nil {
		t.Fatal(err)
	}
	l := testutil.BeginGPUList(t, d)
	if err := l.Dispatch(k, []gpu.Range{{Buffer: src, Size: uint64(len(in))}, {Buffer: dst, Size: uint64(outBytes)}}, params, [3]uint32{groups, 1, 1}); err != nil {
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
	out := make([]byte, outBytes)
	if err := dst.Read(0, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFloatFunctionsGLSL runs shaders/reduce_float.glsl's exp, log, sqrt,
// division by a count, FLOAT16 narrowing and widening and x*x (through
// testdata/reduce_float_check.comp) on random FLOAT32 bits (and, for exp,
// its fast path alone and its Q62 fallback alone, ops.ExpFastDraw's x and
// the inputs that need the fallback) and checks every result
// against the Go reference bit for bit.
func TestFloatFunctionsGLSL(t *testing.T) {
	d, k := glslCheckKernel(t, "reduce_float_check", 8)
	rng := testutil.Rand(t)
	n := 1 << 16
	if testing.Short() {
		n = 1 << 12
	}
	xs := make([]uint32, n)
	in := make([]byte, 4*n)
	for fn, ref := range ops.FloatFunctionsGLSL {
		for i := range xs {
			xs[i] = ops.RandomFloat32Bits(rng)
			if (fn == 0 || fn >= 7) && i%2 == 0 { // exp's x
				xs[i] = ops.ExpFastDraw(rng, i/2)
			}
			if (fn == 0 || fn >= 7) && i < 2*len(ops.ExpFastHardInputs) { // the fallback's
				xs[i] = ops.ExpFastHardInputs[i/2] ^ uint32(i%2)<<31
			}
			if fn == 1 && i%2 == 0 { // near 1, where log keeps its scale
				xs[i] = uint32(0x3f800000 - 0x100000 + rng.Intn(0x200000))
			}
			binary.LittleEndian.PutUint32(in[4*i:], xs[i])
		}
		params := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(n)), uint32(fn))
		out := glslCheckRun(t, d, k, in, 4*n, params, uint32(n/64))
		for i, x := range xs {
			if got, want := binary.LittleEndian.Uint32(out[4*i:]), ref(x, i); got != want {
				t.Fatalf("function %d (reduce_float_check.comp) of %08x (element %d): the kernel's %08x, the reference's %08x", fn, x, i, got, want)
			}
		}
	}
}

// TestHalfVecGLSL runs shaders/reduce_half.glsl (through
// testdata/reduce_half_check.comp) on every FLOAT16, at each of the four
// places of a 64-bit pair (the other three random normal halves, or
// zeros): half_odd must set exactly the denormals, infinities and NaN
// aside, and half_quad's sums of h·2^24 and |h|·2^24 over the pairs of
// the others must be exact.
func TestHalfVecGLSL(t *testing.T) {
	d, k := glslCheckKernel(t, "reduce_half_check", 4)
	if !d.Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64")
	}
	rng := testutil.Rand(t)
	odd := func(h uint16) bool { e := h >> 10 & 31; return e == 31 || e == 0 && h&0x3ff != 0 }
	term := func(h uint16) int64 { // h·2^24, exact
		m, e := int64(h&0x3ff), int64(h>>10&31)
		v := m
		if e > 0 {
			v = (m | 0x400) << (e - 1)
		}
		if h>>15 != 0 {
			return -v
		}
		return v
	}
	const n = 4 << 16 // every half at every place
	hs := make([]uint16, 4*n)
	for i := 0; i < n; i++ {
		h, at := uint16(i>>2), i&3
		for p := 0; p < 4; p++ {
			switch {
			case p == at:
				hs[4*i+p] = h
			case i>>2&1 == 0:
				hs[4*i+p] = uint16(0x400+rng.Intn(0x7800)) | uint16(rng.Intn(2))<<15
			default:
				hs[4*i+p] = uint16(rng.Intn(2)) << 15
			}
		}
	}
	in := make([]byte, 2*len(hs))
	for i, h := range hs {
		binary.LittleEndian.PutUint16(in[2*i:], h)
	}
	out := glslCheckRun(t, d, k, in, 24*n, binary.LittleEndian.AppendUint32(nil, n), n/64)
	for i := 0; i < n; i++ {
		quad := hs[4*i : 4*i+4]
		var wantOdd uint64
		var sum, abs int64
		for p, h := range quad {
			if odd(h) {
				wantOdd |= 1 << (16*p + 15)
			}
			sum += term(h)
			abs += term(h & 0x7fff)
		}
		gotOdd := binary.LittleEndian.Uint64(out[24*i:])
		if gotOdd != wantOdd {
			t.Fatalf("halves %04x: half_odd's lanes %016x, want %016x", quad, gotOdd, wantOdd)
		}
		if wantOdd != 0 {
			continue // the widening path's
		}
		if got := int64(binary.LittleEndian.Uint64(out[24*i+8:])); got != sum {
			t.Fatalf("halves %04x: half_quad %d, want %d", quad, got, sum)
		}
		if got := int64(binary.LittleEndian.Uint64(out[24*i+16:])); got != abs {
			t.Fatalf("halves %04x: half_quad of |h| %d, want %d", quad, got, abs)
		}
	}
}

// TestHalfLSEGLSL runs shaders/reduce_half.glsl's LOG_SUM_EXP terms
// (EXP_TABLE, through testdata/reduce_half_lse_check.comp, the table
// ops.TableExpHalf bound) on every FLOAT16: lse_outside must set aside
// exactly NaN, the infinities and |h| >= 8, and lse_unit must be the
// table's FLOAT32 term times 2^35 exactly for every other half (±0 and
// denormals too). FLOAT16 results hide an error near 2^-35 in the sum
// (TestReduceLogSumExpHalfTable passes with lse_unit's last bit
// cleared); this catches it.
func TestHalfLSEGLSL(t *testing.T) {
	d, k := glslCheckKernel(t, "reduce_half_lse_check", 4)
	if !d.Features.ShaderInt64 {
		t.Skip("the device has no shaderInt64")
	}
	const n = 1 << 16
	table := ops.TableExpHalf.Bytes()
	out := glslCheckRun(t, d, k, table, 16*n, binary.LittleEndian.AppendUint32(nil, n), n/64)
	for h := 0; h < n; h++ {
		mag := h & 0x7fff
		outside := mag >= 0x4800 // |h| >= 8, the infinities and NaN
		var wantTops uint64
		if outside {
			wantTops = 0x8000800080008000
		}
		if got := binary.LittleEndian.Uint64(out[16*h+8:]); got != wantTops {
			t.Fatalf("half %04x: lse_outside's lanes %016x, want %016x", h, got, wantTops)
		}
		if outside {
			continue
		}
		term := float64(math.Float32frombits(binary.LittleEndian.Uint32(table[4*h:])))
		units := math.Ldexp(term, 35) // exact: a float64 holds the FLOAT32 times 2^35
		if units != math.Trunc(units) || units >= 1<<47 {
			t.Fatalf("half %04x: the table's term %g is not an integer number of units 2^-35 below 2^47", h, term)
		}
		if got := binary.LittleEndian.Uint64(out[16*h:]); got != uint64(units) {
			t.Fatalf("half %04x: lse_unit %d, want %d (the table's term %g times 2^35)", h, got, uint64(units), term)
		}
	}
}
