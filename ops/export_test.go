package ops

// TopKMaximaTakes says whether the maxima strategy takes rows of n
// positions with K = k at the CPU class's workgroup size.
func TopKMaximaTakes(n, k uint64) bool {
	return topKMaximaGroupVecs(n, k, uint64(tuningCPU.topKMaximaWG)) > 0
}
