package dml

import "github.com/vkdml/vkdml/ops"

// The max-pooling descs, defined with their validation, planner and CPU
// reference in package ops; see semantics.md rules 7-11.
type (
	// MaxPooling is DML_MAX_POOLING_OPERATOR_DESC: values only.
	MaxPooling = ops.MaxPooling
	// MaxPooling1 is DML_MAX_POOLING1_OPERATOR_DESC: optional indices.
	MaxPooling1 = ops.MaxPooling1
	// MaxPooling2 is DML_MAX_POOLING2_OPERATOR_DESC: optional indices and
	// dilations.
	MaxPooling2 = ops.MaxPooling2
)

// MaxPoolOutputSize is the documented output extent of one spatial axis
// with the dilated window, floor or (ceil) ceiling; 0 when the dilated
// window does not fit the padded input.
func MaxPoolOutputSize(in, window, stride, start, end, dilation uint32, ceil bool) uint64 {
	return ops.MaxPoolOutputSize(in, window, stride, start, end, dilation, ceil)
}
