package dml

import "github.com/vkdml/vkdml/ops"

// DML_ARGMAX_OPERATOR_DESC, DML_ARGMIN_OPERATOR_DESC and
// DML_REDUCE_OPERATOR_DESC (its exact functions), defined with
// their validation, planner and CPU reference in package ops.
type (
	// ArgMax is DML_ARGMAX_OPERATOR_DESC: the index of the largest element
	// of each block of reduced axes (semantics.md rules 1-6).
	ArgMax = ops.ArgMax
	// ArgMin is DML_ARGMIN_OPERATOR_DESC, ArgMax's twin for the smallest.
	ArgMin = ops.ArgMin
	// Reduce is DML_REDUCE_OPERATOR_DESC; vkdml implements its ARGMAX and
	// ARGMIN functions, which break ties as AxisDirectionIncreasing, MAX
	// and MIN on every type, and SUM, MULTIPLY, L1 and SUM_SQUARE on the
	// 32- and 64-bit integers (docs/semantics.md's REDUCE rules).
	Reduce = ops.Reduce
	// AxisDirection is DML_AXIS_DIRECTION: which of tied extremes wins.
	AxisDirection = ops.AxisDirection
	// ReduceFunction is DML_REDUCE_FUNCTION.
	ReduceFunction = ops.ReduceFunction
)

// DML_AXIS_DIRECTION.
const (
	AxisDirectionIncreasing = ops.AxisDirectionIncreasing // the first extreme element wins a tie
	AxisDirectionDecreasing = ops.AxisDirectionDecreasing // the last extreme element wins a tie
)

// DML_REDUCE_FUNCTION, with DirectML's values. vkdml's REDUCE implements
// every one (the float functions exactly summed and rounded once, MULTIPLY
// of floats in one canonical tree: the same bits on every device,
// docs/semantics.md rules 39-44).
const (
	ReduceFunctionArgMax    = ops.ReduceFunctionArgMax    // DML_REDUCE_FUNCTION_ARGMAX: implemented
	ReduceFunctionArgMin    = ops.ReduceFunctionArgMin    // DML_REDUCE_FUNCTION_ARGMIN: implemented
	ReduceFunctionAverage   = ops.ReduceFunctionAverage   // DML_REDUCE_FUNCTION_AVERAGE: implemented
	ReduceFunctionL1        = ops.ReduceFunctionL1        // DML_REDUCE_FUNCTION_L1: implemented
	ReduceFunctionL2        = ops.ReduceFunctionL2        // DML_REDUCE_FUNCTION_L2: implemented
	ReduceFunctionLogSum    = ops.ReduceFunctionLogSum    // DML_REDUCE_FUNCTION_LOG_SUM: implemented
	ReduceFunctionLogSumExp = ops.ReduceFunctionLogSumExp // DML_REDUCE_FUNCTION_LOG_SUM_EXP: implemented
	ReduceFunctionMax       = ops.ReduceFunctionMax       // DML_REDUCE_FUNCTION_MAX: implemented
	ReduceFunctionMin       = ops.ReduceFunctionMin       // DML_REDUCE_FUNCTION_MIN: implemented
	ReduceFunctionMultiply  = ops.ReduceFunctionMultiply  // DML_REDUCE_FUNCTION_MULTIPLY: implemented
	ReduceFunctionSum       = ops.ReduceFunctionSum       // DML_REDUCE_FUNCTION_SUM: implemented
	ReduceFunctionSumSquare = ops.ReduceFunctionSumSquare // DML_REDUCE_FUNCTION_SUM_SQUARE: implemented
)

// ArgMax strategies, for CreateOperatorWithKernel (see package ops for
// when the planner chooses each).
const (
	ArgStrategyThread = ops.ArgStrategyThread // one invocation scans each output's block
	ArgStrategyGroup  = ops.ArgStrategyGroup  // one workgroup per output, lanes along the block
	ArgStrategySplitK = ops.ArgStrategySplitK // blocks cut into segments, partials combined in a second pass
)
