package dml

import "github.com/vkdml/vkdml/ops"

// MaxUnpooling is DML_MAX_UNPOOLING_OPERATOR_DESC, defined with its
// validation, planner and CPU reference in package ops; see semantics.md
// rules 17-22.
type MaxUnpooling = ops.MaxUnpooling
