package shaders

import (
	"fmt"
	"strings"
)

// MaxPoolName is the MAX_POOLING/1/2 kernel (maxpool.comp) for elements of
// elemBits bits (8, 16, 32 or 64); native picks 8/16-bit storage buffers
// over 32-bit words with atomic sub-word stores (it matters only below 32
// bits); idxBits is 0 (no indices), 32 or 64. The element's kind is the
// specialization constant KIND (see ElemKind and MaxPoolNegInfStart).
func MaxPoolName(elemBits int, native bool, idxBits int) string {
	storage := ""
	if elemBits < 32 && !native {
		storage = "w"
	}
	return name("maxpool", fmt.Sprintf("b%d%s", elemBits, storage), idxName(idxBits))
}

// MaxPoolPreloadName is MaxPoolName's kernel that loads an interior
// window's taps (at most MaxPoolPreloadTaps) before comparing them.
func MaxPoolPreloadName(elemBits int, native bool, idxBits int) string {
	return MaxPoolName(elemBits, native, idxBits) + "_pre"
}

// MaxPoolPreloadTaps is the most window taps the preloading kernels
// hold.
const MaxPoolPreloadTaps = 16

// MaxPoolNegInfStart is a bit of maxpool.comp's and maxpool_grid.comp's
// KIND constant, above the element kind (ElemKind): the running best
// starts at −∞ instead of the lowest finite value, for FLOAT32 and
// FLOAT16 (semantics.md rule 7a).
const MaxPoolNegInfStart uint32 = 4

// maxPoolSpec is maxpool.comp's specialization constants: the workgroup
// size; the input and output shapes and the window, strides, dilations
// and start padding, each (D, H, W); the input and output strides (N, C,
// D, H, W); the planes per batch of a step (CSTEP); the element kind with
// MaxPoolNegInfStart (KIND).
var maxPoolSpec = concat([]string{SpecWorkgroupSize},
	[]string{"ID", "IH", "IW", "OD", "OH", "OW", "KD", "KH", "KW", "SD", "SH", "SW", "DD", "DH", "DW", "PD", "PH", "PW"},
	[]string{"IN_SN", "IN_SC", "IN_SD", "IN_SH", "IN_SW", "OUT_SN", "OUT_SC", "OUT_SD", "OUT_SH", "OUT_SW"},
	[]string{"CSTEP", "KIND"})

// maxPoolIdxSpec is maxpool.comp's specialization constants with
// indices: maxPoolSpec's, then the indices' strides (N, C, D, H, W), so
// that an index's offset folds as the output's does.
var maxPoolIdxSpec = concat(maxPoolSpec, []string{"IDX_SN", "IDX_SC", "IDX_SD", "IDX_SH", "IDX_SW"})

// maxPoolPush is maxpool.comp's push words after the base offsets: the
// step's output count, its first plane and the element offsets of its
// first plane in each binding.
var maxPoolPush = []string{"total", "plane0", "in_e0", "out_e0", "idx_e0"}

// idxName names an index width: "noidx", "idx32" or "idx64".
func idxName(idxBits int) string {
	if idxBits == 0 {
		return "noidx"
	}
	return fmt.Sprintf("idx%d", idxBits)
}

// maxPoolShapes calls f for every build of a max pooling kernel: element
// bits, native 8/16-bit storage or 32-bit words, index bits (0: none) and
// whether an interior window's taps are loaded first. Defines are the
// macros that select it, the same for maxpool.comp and maxpool_grid.comp.
func maxPoolShapes(f func(bits int, native bool, ib int, pre bool, defines []string)) {
	for _, bits := range []int{8, 16, 32, 64} {
		natives := []bool{false}
		if bits < 32 {
			natives = []bool{true, false}
		}
		for _, native := range natives {
			for _, ib := range []int{0, 32, 64} {
				for _, pre := range []bool{false, true} {
					f(bits, native, ib, pre, []string{fmt.Sprintf("ELEM_BITS=%d", bits), fmt.Sprintf("NATIVE=%d", b2i(native)),
						fmt.Sprintf("IDX_BITS=%d", ib), fmt.Sprintf("PRELOAD=%d", b2i(pre))})
				}
			}
		}
	}
}

func maxPoolVariants() []Variant {
	var out []Variant
	maxPoolShapes(func(bits int, native bool, ib int, pre bool, defines []string) {
		bindings, spec := 2, maxPoolSpec
		if ib != 0 {
			bindings, spec = 3, maxPoolIdxSpec
		}
		n := MaxPoolName(bits, native, ib)
		if pre {
			n = MaxPoolPreloadName(bits, native, ib)
		}
		out = append(out, Variant{Name: n, Source: "maxpool.comp", Defines: defines, Bindings: bindings, Spec: spec, Push: maxPoolPush})
	})
	return out
}

// MaxPoolGridName is the GPU kernel of MAX_POOLING/1/2 (maxpool_grid.comp):
// one invocation per output on a 3D grid of (columns, rows, planes), for
// the same elements, storage paths and indices as MaxPoolName; pre loads
// an interior window's taps (at most MaxPoolPreloadTaps) before comparing
// them.
func MaxPoolGridName(elemBits int, native bool, idxBits int, pre bool) string {
	n := "maxpool_grid" + strings.TrimPrefix(MaxPoolName(elemBits, native, idxBits), "maxpool")
	if pre {
		n += "_pre"
	}
	return n
}

// maxPoolGridSpec is maxpool_grid.comp's specialization constants:
// maxpool.comp's (CSTEP 0 when the planes are evenly spaced), then the
// tile's width WGX and, with indices, the indices' strides (N, C, D, H,
// W).
var (
	maxPoolGridSpec    = concat(maxPoolSpec, []string{"WGX"})
	maxPoolGridIdxSpec = concat(maxPoolGridSpec, []string{"IDX_SN", "IDX_SC", "IDX_SD", "IDX_SH", "IDX_SW"})
)

// maxPoolGridPush is maxpool_grid.comp's push words after the base
// offsets: the step's first global plane, the dispatch's first plane of
// the step and first output row, and the element offsets of the step's
// first plane in each binding.
var maxPoolGridPush = []string{"plane0", "p0", "r0", "in_e0", "out_e0", "idx_e0"}

// MaxPoolRunName is maxpool_grid.comp's preloading kernel with runs of
// outs outputs per lane along W (one of MaxPoolRunOuts): an interior run
// loads the columns its windows share once.
func MaxPoolRunName(elemBits int, native bool, idxBits int, outs int) string {
	return fmt.Sprintf("%s_x%d", MaxPoolGridName(elemBits, native, idxBits, true), outs)
}

// MaxPoolRunOuts are the run lengths maxpool_grid.comp is built for.
var MaxPoolRunOuts = []int{2, 4, 8}

// MaxPoolRunFloatName is MaxPoolRunName's FLOAT32 kernel that compares
// floats natively (FLOAT_CMP), for devices that keep 32-bit denormals and
// respect ±0, ±inf and NaN (caps.Features.DenormPreserveFloat32 and
// SignedZeroInfNanPreserveFloat32).
func MaxPoolRunFloatName(idxBits int, outs int) string {
	return MaxPoolRunName(32, false, idxBits, outs) + "_fcmp"
}

func maxPoolGridVariants() []Variant {
	var out []Variant
	maxPoolShapes(func(bits int, native bool, ib int, pre bool, defines []string) {
		bindings, spec := 2, maxPoolGridSpec
		if ib != 0 {
			bindings, spec = 3, maxPoolGridIdxSpec
		}
		v := Variant{Name: MaxPoolGridName(bits, native, ib, pre), Source: "maxpool_grid.comp", Defines: defines,
			Bindings: bindings, Spec: spec, Push: maxPoolGridPush}
		out = append(out, v)
		for _, outs := range MaxPoolRunOuts {
			if !pre {
				break
			}
			run := v
			run.Name = MaxPoolRunName(bits, native, ib, outs)
			run.Defines = append(append([]string(nil), defines...), fmt.Sprintf("OUTS=%d", outs))
			out = append(out, run)
			if bits == 32 {
				fcmp := run
				fcmp.Name = MaxPoolRunFloatName(ib, outs)
				fcmp.Defines = append(append([]string(nil), run.Defines...), "FLOAT_CMP=1")
				fcmp.FloatControls32 = true
				out = append(out, fcmp)
			}
		}
	})
	return out
}
