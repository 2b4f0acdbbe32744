package ops

import (
	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/shaders"
)

// argKernel is a candidate first-pass kernel: its variant, workgroup and
// vector shape.
type argKernel struct {
	variant string
	label   string // Plan.Strategy
	shape   string // shaders.ArgMax* (scalar kernels)
	vec     string // "", "row" or "col"
	wg      uint32
	vw      uint64 // elements per vector load (row), outputs per invocation (col)
	bits    int    // element width (vectorised variants)
	align8  bool   // col8w64 with every input stride a multiple of 8 elements
	sgSize  uint32 // required subgroup size, 0 for any
	small   bool   // the small-workgroup candidate
	loads   uint64 // block positions a vec-col or thread lane loads before scanning them (0: 1)
	words   bool   // a scalar kernel reading 8/16-bit elements as 32-bit words
	rows    bool   // vec-row with a subgroup (of sgSize lanes) per item
	sg      bool   // vec-row combining through subgroup arithmetic (argOp.subgroups)
	y       uint64 // lanes that split an item's rows (vec-col8y), 0 for one
	phased  bool   // vec-col8y's PHASED variant: any run of outputs, the last item short
}

// colItems is a vec-col kernel's items over n outputs: runs of vw, the
// PHASED variant's last one short.
func (k argKernel) colItems(n uint64) uint64 {
	if k.phased {
		return ceilDiv(n, k.vw)
	}
	return n / k.vw
}

// laneBytes is the bytes one lane of a kernel with one invocation per
// output (or per vw outputs) loads before it uses the first of them.
func (k argKernel) laneBytes(es uint64) uint64 {
	switch {
	case k.vec == "col" && k.bits == 32 && k.vw == 8:
		return 32
	case k.vec == "col":
		return 16 * max(k.loads, 1)
	case k.words:
		return 4 * max(k.loads, 1)
	}
	return es * max(k.loads, 1)
}

// chooseKernel is a candidate's variant, then its workgroup: vector
// layout vec ("", "row", "col") and, when small, tuning's small
// workgroups.
func (a *argOp) chooseKernel(ctx *Context, l *argLayout, strategy, vec string, small bool) argKernel {
	k := a.chooseVariant(ctx, l, strategy, vec)
	k.small = small
	chooseWorkgroup(ctx, &k)
	if k.variant == "" {
		f := ctx.Features
		bits := 8 * int(l.es)
		native := bits == 8 && f.StorageBuffer8Bit || bits == 16 && f.StorageBuffer16Bit
		k.words = bits < 32 && !native
		shape := k.shape
		if shape == shaders.ArgMaxThread && l.tune.argThreadLoads == 8 && a.value != funcFloat {
			shape, k.loads = shaders.ArgMaxThreadX8, 8
		}
		k.variant = shaders.ArgMaxName(bits, native, shape)
		switch {
		case a.treeOrder():
			k.variant = shaders.ReduceFmulName(bits, native, shape)
			if a.hwMul(ctx) {
				k.variant += shaders.ReduceFmulHW
			}
			if shape == shaders.ArgMaxThread {
				// The tree's thread variants load eight positions
				// before pushing them (reduce_fmul.comp LOADS=8): the
				// column split sizes its segments by those bytes.
				k.loads = 8
			}
			if bits == 16 && shape == shaders.ArgMaxGroup && f.ShaderInt64 {
				// FLOAT16's vector run (reduce_fmul.comp HALF_VEC):
				// 16-byte loads widened on 64-bit words; other
				// blocks as the plain variant.
				k.variant += shaders.ReduceFloatHalfVec
			}
		case a.value == funcFloat:
			k.variant = shaders.ReduceFloatName(bits, native, shape)
			if a.hwSquare(ctx) {
				k.variant += shaders.ReduceFmulHW
			}
			if bits == 32 && shape == shaders.ArgMaxGroup && l.tune.reduceFloatTexel && a.floatFn != ReduceFunctionLogSumExp && texelFits(ctx.Limits) {
				k.variant += shaders.ReduceFloatTexel
			}
			if a.expTable(ctx) {
				// LOG_SUM_EXP's FLOAT16 terms from TableExpHalf.
				k.variant += shaders.ReduceFloatExpTable
			}
			if bits == 16 && shape == shaders.ArgMaxGroup && f.ShaderInt64 {
				// FLOAT16's vector scan of contiguous blocks
				// (reduce_half_fast.glsl): 16-byte loads, a 64-bit
				// lane sum; other blocks as the plain variant.
				k.variant += shaders.ReduceFloatHalfVec
			}
			if shape == shaders.ArgMaxThread {
				// The float thread variants load four block positions
				// a trip before their fast scan uses them (argmax.comp
				// LOADS=4): the column split sizes its segments by
				// those bytes in flight.
				k.loads = 4
			}
		}
	}
	return k
}

// chooseVariant picks the kernel shape or vectorised variant, its
// standard workgroup and vector width, from the strategy, the layout and
// the features. Scalar variants are named once the workgroup is known.
func (a *argOp) chooseVariant(ctx *Context, l *argLayout, strategy, vec string) argKernel {
	f := ctx.Features
	if vec == "col" && a.value == funcFloat {
		// FLOAT16 columns (argOp.halfCol): 8 outputs an invocation,
		// 16 positions' vectors in flight (the variant's LOADS);
		// MULTIPLY's with its multiply (hwMul).
		variant := shaders.ReduceFloatHalfCol
		if a.expTable(ctx) {
			variant += shaders.ReduceFloatExpTable
		}
		if a.treeOrder() {
			variant = shaders.ReduceFmulHalfCol
			if a.hwMul(ctx) {
				variant += shaders.ReduceFmulHW
			}
		}
		return argKernel{variant: variant, label: "vec-col", shape: shaders.ArgMaxThread, vec: vec,
			wg: argThreadWG, vw: 8, bits: 16, loads: 16}
	}
	k := argKernel{shape: shaders.ArgMaxThread, wg: argThreadWG, vec: vec, label: strategy, vw: 4}
	if strategy != ArgStrategyThread {
		k.shape, k.wg = shaders.ArgMaxGroup, argGroupWG
		if a.subgroups(ctx) {
			k.shape = shaders.ArgMaxGroupSG
		}
	}
	bits := 8 * int(l.es)
	k.bits = bits
	if vec != "" && bits != 32 {
		// 16-byte loads only: no wide variants below or above 32 bits.
		k.vw = argVecPer(l.es)
		if vec == "row" {
			k.variant, k.label = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecRow), "vec-row"
			if k.sg = a.subgroups(ctx); k.sg {
				k.variant = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecRowSG)
			}
		} else {
			k.variant, k.label, k.wg = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecCol), "vec-col", argThreadWG
			if l.tune.argColLoads == 4 {
				k.variant, k.loads = shaders.ArgMaxVecName(bits, shaders.ArgMaxVecColX4), 4
			}
			if l.col8Y() {
				k.variant, k.loads, k.y, k.wg = shaders.ArgMaxCol8Y, 4, shaders.ArgMaxCol8YRows, argGroupWG
				if l.col8Phased() {
					k.variant, k.phased = shaders.ArgMaxCol8YPhased, true
				}
			}
		}
		return k
	}
	switch vec {
	case "row":
		k.variant, k.label, k.sg = shaders.ArgMaxVecRow, "vec-row", a.subgroups(ctx)
		switch {
		case f.ShaderInt64 && k.sg:
			k.variant, k.vw = shaders.ArgMaxVecRow64SG, 8
		case f.ShaderInt64:
			k.variant, k.vw = shaders.ArgMaxVecRow64, 8
		case k.sg:
			k.variant = shaders.ArgMaxVecRowSG
		}
	case "col":
		k.variant, k.label, k.wg = shaders.ArgMaxVecCol, "vec-col", argThreadWG
		if l.kept[len(l.kept)-1].size%8 == 0 {
			k.variant, k.vw = shaders.ArgMaxVecCol8, 8
			if f.ShaderInt64 {
				k.variant = shaders.ArgMaxVecCol8W64
				k.align8 = argVecAligned(l.kept, l.red, 8)
			}
		}
	}
	return k
}

// chooseWorkgroup sizes k's workgroup: the standard size, or with k.small
// the tuning's small one, clamped to the device and a power of two; a
// vec-row workgroup of exactly one full subgroup switches to the variant
// that combines without shared memory or barriers (measured on lavapipe:
// 64M FLOAT32 55 -> 35 ms, 4096x16384 axis 1 78 -> 26 ms).
func chooseWorkgroup(ctx *Context, k *argKernel) {
	f, lim := ctx.Features, ctx.Limits
	if k.small {
		t := ctx.tuning()
		k.wg = max(lim.SubgroupSize, 4)
		if k.vec == "col" {
			k.wg = t.argColWG4
			if k.vw >= 8 {
				k.wg = t.argColWG8
			}
		}
	}
	wgLimit := min(lim.MaxComputeWorkGroupInvocations, lim.MaxComputeWorkGroupSize[0])
	k.wg = pow2Floor(min(k.wg, max(wgLimit, 1), argGroupWG))
	if k.y > 0 && uint64(k.wg) < 2*k.y {
		// Fewer than two items a workgroup: the one-lane-per-item kernel
		// (which the PHASED layout cannot take: misfit refuses it).
		k.variant, k.y = shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecColX4), 0
	}
	if k.vec == "row" && k.small && k.sg && f.SubgroupSizeControl && f.ComputeFullSubgroups &&
		k.wg == lim.SubgroupSize && k.wg >= lim.MinSubgroupSize && k.wg <= lim.MaxSubgroupSize {
		k.sgSize = k.wg
		switch {
		case k.bits == 32 && ctx.tuning().argRowTexel && texelFits(lim):
			k.variant, k.vw = shaders.ArgMaxVecRowTexelSG1, 8
		case k.variant == shaders.ArgMaxVecRow64SG:
			k.variant = shaders.ArgMaxVecRow64SG1
		default:
			k.variant = shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSG1)
		}
	}
}

// texelFits reports whether every binding window (at most
// maxStorageBufferRange bytes, from an offset rounded down to at most 256
// bytes before it) fits a uniform texel buffer of 16-byte texels.
func texelFits(lim caps.Limits) bool {
	return 16*uint64(lim.MaxTexelBufferElements) >= uint64(lim.MaxStorageBufferRange)+256
}

// subgroupRows switches a vec-row kernel to its variant with one subgroup
// per (output, segment) where the device class's tuning asks for it
// (argRowSubgroups), the segments are short (at most half a workgroup of
// vector loads: 1,000 floats are 125 loads, which leave 131 of 256 lanes
// idle), and the device can require full subgroups of its size.
func subgroupRows(ctx *Context, l *argLayout, k argKernel, s *argSegments) argKernel {
	f, lim := ctx.Features, ctx.Limits
	sg := lim.SubgroupSize
	if k.vec != "row" || k.small || !l.tune.argRowSubgroups || !f.SubgroupArithmetic || !f.SubgroupSizeControl || !f.ComputeFullSubgroups ||
		sg == 0 || sg < lim.MinSubgroupSize || sg > lim.MaxSubgroupSize || k.wg <= sg || k.wg%sg != 0 {
		return k
	}
	vecs := uint64(0) // the longest segment's vector loads
	for _, n := range s.segLen {
		vecs = max(vecs, (n+k.vw-1)/k.vw)
	}
	if 2*vecs > uint64(k.wg) {
		return k
	}
	switch k.variant {
	case shaders.ArgMaxVecRow64SG:
		k.variant = shaders.ArgMaxVecRow64Sub
	case shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSG):
		k.variant = shaders.ArgMaxVecName(k.bits, shaders.ArgMaxVecRowSub)
	default:
		return k
	}
	// Eight subgroups a workgroup: a workgroup with a required subgroup
	// size may hold at most maxComputeWorkgroupSubgroups of them (32 on
	// lavapipe and NVIDIA, 16 on AMD at wave64), which caps doesn't carry.
	k.rows, k.sgSize, k.wg = true, sg, min(k.wg, 8*sg)
	return k
}
