package ops

// For ops_test's kernel tests (TestExactAccGLSL): the reference's exact
// FLOAT32 sum and its random FLOAT32 bits.
var (
	ExactSumFloat32   = func(xs []uint32) uint32 { return reduceFloatExact(ReduceFunctionSum, false, xs) }
	RandomFloat32Bits = randomFloat32Bits
)

// For TestReduceFloatTexel: whether the device's texel buffers hold any
// binding window (the texel variants' condition).
var TexelFits = texelFits

// For TestFloatFunctionsGLSL: the reference's functions that
// shaders/reduce_float.glsl computes, by testdata/reduce_float_check.comp's
// numbering.
var FloatFunctionsGLSL = []func(x uint32, i int) uint32{
	func(x uint32, _ int) uint32 { return expFloat32(x) },
	func(x uint32, _ int) uint32 { return logFloat32(x) },
	func(x uint32, _ int) uint32 { return sqrtFloat32(x) },
	func(x uint32, i int) uint32 { return divFloat32ByCount(x, uint32(i%1000+1)) },
	func(x uint32, _ int) uint32 { return uint32(float32ToHalfBits(x)) },
	func(x uint32, _ int) uint32 { return mulFloat32(x, x) },
	func(x uint32, _ int) uint32 { return halfToFloat32Bits(uint16(x)) },
	func(x uint32, _ int) uint32 {
		if y, fallback := expFloat32Fast(x, expFastMargin); !fallback {
			return y
		}
		return 0xffffffff
	},
	func(x uint32, _ int) uint32 { return expFloat32(x) },
}

// ExpFastHardInputs are x whose exp the kernels' fast evaluation leaves to
// the fallback (a rounding midpoint within its error), and
// ExpFastDraw TestExpFastAgrees's random x.
var (
	ExpFastHardInputs    = expFastHardInputs
	ExpFastDraw          = expFastDraw
	ExpFastFallsBackNear = func(x uint32) bool {
		_, fb := expFloat32Fast(x, expFastMargin)
		_, fb0 := expFloat32Fast(x, 0)
		return fb && !fb0
	}
	HalfToFloat32Bits = halfToFloat32Bits
)
