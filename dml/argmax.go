package dml

import "github.com/vkdml/vkdml/ops"

// DML_ARGMAX_OPERATOR_DESC, DML_ARGMIN_OPERATOR_DESC and
// DML_REDUCE_OPERATOR_DESC (ARGMAX and ARGMIN functions only).
type (
	ArgMax         = ops.ArgMax
	ArgMin         = ops.ArgMin
	Reduce         = ops.Reduce
	AxisDirection  = ops.AxisDirection
	ReduceFunction = ops.ReduceFunction
)

// DML_AXIS_DIRECTION.
const (
	AxisDirectionIncreasing = ops.AxisDirectionIncreasing
	AxisDirectionDecreasing = ops.AxisDirectionDecreasing
)

// DML_REDUCE_FUNCTION, with DirectML's values. vkdml's REDUCE implements
// ARGMAX and ARGMIN; the others return DXGI_ERROR_UNSUPPORTED.
const (
	ReduceFunctionArgMax    = ops.ReduceFunctionArgMax
	ReduceFunctionArgMin    = ops.ReduceFunctionArgMin
	ReduceFunctionAverage   = ops.ReduceFunctionAverage
	ReduceFunctionL1        = ops.ReduceFunctionL1
	ReduceFunctionL2        = ops.ReduceFunctionL2
	ReduceFunctionLogSum    = ops.ReduceFunctionLogSum
	ReduceFunctionLogSumExp = ops.ReduceFunctionLogSumExp
	ReduceFunctionMax       = ops.ReduceFunctionMax
	ReduceFunctionMin       = ops.ReduceFunctionMin
	ReduceFunctionMultiply  = ops.ReduceFunctionMultiply
	ReduceFunctionSum       = ops.ReduceFunctionSum
	ReduceFunctionSumSquare = ops.ReduceFunctionSumSquare
)

// ArgMax strategies, for CreateOperatorWithKernel.
const (
	ArgStrategyThread = ops.ArgStrategyThread
	ArgStrategyGroup  = ops.ArgStrategyGroup
	ArgStrategySplitK = ops.ArgStrategySplitK
)
