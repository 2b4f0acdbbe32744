package dml

import (
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// The operator descs, under their DirectML names. Each is defined, with its
// validation, planner and CPU reference, in package ops.
type (
	// ElementWiseIdentity is DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC
	// (without scale and bias): a strided copy, used by tests and the
	// copy-bandwidth benchmark.
	ElementWiseIdentity = ops.ElementWiseIdentity
)

// OperatorDesc is any operator desc (DML_OPERATOR_DESC).
type OperatorDesc = ops.Desc

// FeatureLevel is DML_FEATURE_LEVEL.
type FeatureLevel = ops.FeatureLevel

// Feature levels.
const (
	FeatureLevel1_0 = ops.FeatureLevel1_0 // DML_FEATURE_LEVEL_1_0
	FeatureLevel2_0 = ops.FeatureLevel2_0 // DML_FEATURE_LEVEL_2_0
	FeatureLevel2_1 = ops.FeatureLevel2_1 // DML_FEATURE_LEVEL_2_1
	FeatureLevel3_0 = ops.FeatureLevel3_0 // DML_FEATURE_LEVEL_3_0
	FeatureLevel3_1 = ops.FeatureLevel3_1 // DML_FEATURE_LEVEL_3_1
	FeatureLevel4_0 = ops.FeatureLevel4_0 // DML_FEATURE_LEVEL_4_0
	FeatureLevel4_1 = ops.FeatureLevel4_1 // DML_FEATURE_LEVEL_4_1
	FeatureLevel5_0 = ops.FeatureLevel5_0 // DML_FEATURE_LEVEL_5_0
	FeatureLevel5_1 = ops.FeatureLevel5_1 // DML_FEATURE_LEVEL_5_1
	FeatureLevel5_2 = ops.FeatureLevel5_2 // DML_FEATURE_LEVEL_5_2
	FeatureLevel6_0 = ops.FeatureLevel6_0 // DML_FEATURE_LEVEL_6_0
	FeatureLevel6_1 = ops.FeatureLevel6_1 // DML_FEATURE_LEVEL_6_1
	FeatureLevel6_2 = ops.FeatureLevel6_2 // DML_FEATURE_LEVEL_6_2
	FeatureLevel6_3 = ops.FeatureLevel6_3 // DML_FEATURE_LEVEL_6_3
	FeatureLevel6_4 = ops.FeatureLevel6_4 // DML_FEATURE_LEVEL_6_4
)

// TensorDesc is DML_BUFFER_TENSOR_DESC.
type TensorDesc = tensor.Desc
