// Package tensor describes DirectML buffer tensors and holds their data on
// the host.
//
// It has three parts:
//
//   - DataType and Desc mirror DML_TENSOR_DATA_TYPE and
//     DML_BUFFER_TENSOR_DESC. Desc.Validate applies DirectML's descriptor
//     rules (dml-semantics.md §3, semantics.md rules 12-13) and reports each
//     failure as an hresult E_INVALIDARG error that names the field and the
//     rule, so the dml package can return exactly what DirectML would.
//     CalcBufferTensorSize is DMLCalcBufferTensorSize computed without
//     DirectML's 32-bit overflow.
//   - Tensor is a descriptor plus the little-endian bytes it addresses. It
//     gives typed, strided element access for the ten data types vkdml
//     supports, and is what tests and tools use to build inputs and to read
//     results back.
//   - ReadNpy and WriteNpy move tensors in and out of NumPy .npy files, the
//     format of the parity corpus. The reader treats every file as untrusted:
//     it checks the header and the size the shape implies against the bytes
//     actually there before it allocates anything large.
//
// All size arithmetic is done in uint64 with explicit overflow checks:
// Sizes and Strides are uint32, but their products and dot products do not
// fit in 32 bits and can exceed 64, and a silently wrapped size would turn a
// bad descriptor into an out-of-bounds GPU access.
package tensor
