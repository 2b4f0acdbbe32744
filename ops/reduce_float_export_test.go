package ops

// For ops_test's kernel tests (TestExactAccGLSL): the reference's exact
// FLOAT32 sum and its random FLOAT32 bits.
var (
	ExactSumFloat32   = func(xs []uint32) uint32 { return reduceFloatExact(ReduceFunctionSum, false, xs) }
	RandomFloat32Bits = randomFloat32Bits
)
