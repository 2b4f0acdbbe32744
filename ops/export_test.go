package ops

// TopKMaximaTakes says whether the maxima strategy takes rows of n
// positions with K = k in workgroups of wg lanes (the device's subgroup).
func TopKMaximaTakes(n, k, wg uint64) bool {
	return topKMaximaGroupVecs(n, k, wg) > 0
}

// TopKMaximaMostTrips is the (n, K, GV) below nmax positions whose plan
// at wg lanes takes topk_maxima.comp's most loop trips a lane
// (maximaKernelTrips), and that count.
func TopKMaximaMostTrips(wg, nmax uint64) (n, k, gv, trips uint64) {
	for nn := uint64(4); nn < nmax; nn += 1 + nn/512 {
		for kk := uint64(1); kk <= 256; kk++ {
			g := topKMaximaGroupVecs(nn, kk, wg)
			if g == 0 {
				break
			}
			if r := maximaKernelTrips(nn, kk, wg, g); r > trips {
				n, k, gv, trips = nn, kk, g, r
			}
		}
	}
	return n, k, gv, trips
}
