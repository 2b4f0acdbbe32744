package dml

import "github.com/vkdml/vkdml/ops"

// TopK is DML_TOP_K_OPERATOR_DESC and TopK1 DML_TOP_K1_OPERATOR_DESC,
// defined with their validation, planner and CPU reference in package
// ops; see semantics.md rules 31-37.
type (
	TopK  = ops.TopK
	TopK1 = ops.TopK1
)
