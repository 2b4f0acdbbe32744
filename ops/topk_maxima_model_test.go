package ops

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/vkdml/vkdml/shaders"
)

// maximaModel runs topk_maxima.comp's algorithm on one row of scores (the
// row's positions start mid positions before a 16-byte boundary) and
// returns the selected indices in order, the gathered count and whether
// a bound broke.
func maximaModel(sc []uint32, mid, k, wg, gv uint64) (out []uint32, nc uint64, bad string) {
	const pad = ^uint32(0)
	n := uint64(len(sc))
	mid = min(mid, n)
	nv := (n - mid) >> 2
	ng := (nv + gv - 1) / gv
	lgRow := ceilDiv(ceilDiv(n>>2, gv), wg)
	lg := min(lgRow, 128)
	if ng > lg*wg {
		return nil, 0, "groups past the slots"
	}
	slots := lg * wg
	gs := make([]uint32, slots)
	gi := make([]uint32, slots)
	for g := uint64(0); g < ng; g++ {
		for v := g * gv; v < min(g*gv+gv, nv); v++ {
			for u := uint64(0); u < 4; u++ {
				gs[g] = max(gs[g], sc[mid+4*v+u])
			}
		}
	}
	kc := min(k+k>>2, (3584-6)/(4*gv))
	ib := uint(0)
	for p := max(n-1, 1); p > 0; p >>= 1 {
		ib++
	}
	ts, goOn := uint32(0), true
	for b := 31; b >= 0 && goOn; b-- {
		trial := ts | 1<<b
		c := uint64(0)
		for _, s := range gs {
			if s >= trial {
				c++
			}
		}
		if c >= k {
			ts = trial
			goOn = !(c <= kc)
		}
	}
	if goOn {
		modelTie++
	} else {
		modelStop++
	}
	if goOn {
		for g := uint64(0); g < slots; g++ {
			if gs[g] != ts {
				continue
			}
			bi := pad
			if g < ng {
				for v := g * gv; v < min(g*gv+gv, nv) && bi == pad; v++ {
					for u := uint64(4); u > 0; u-- {
						if sc[mid+4*v+u-1] == ts {
							bi = uint32(mid + 4*v + u - 1)
						}
					}
				}
			}
			gi[g] = bi
		}
	}
	ti := uint32(0)
	for b := int(ib) - 1; b >= 0 && goOn; b-- {
		trial := ti | 1<<b
		c := uint64(0)
		for g := range gs {
			if gs[g] > ts || gs[g] == ts && gi[g] < trial {
				c++
			}
		}
		if c < k {
			ti = trial
		}
	}
	if !goOn {
		ti = pad - 1
	}
	at := func(s, i, ts, ti uint32) bool { return s > ts || s == ts && i <= ti }
	type e struct{ s, i uint32 }
	var cand []e
	for g := uint64(0); g < slots; g++ {
		if !at(gs[g], gi[g], ts, ti) {
			continue
		}
		for v := g * gv; v < min(g*gv+gv, nv); v++ {
			for u := uint64(0); u < 4; u++ {
				j := mid + 4*v + u
				if at(sc[j], uint32(j), ts, ti) {
					cand = append(cand, e{sc[j], uint32(j)})
				}
			}
		}
	}
	tail0 := mid + 4*nv
	for j := uint64(0); j < n; j++ {
		if (j < mid || j >= tail0) && at(sc[j], uint32(j), ts, ti) {
			cand = append(cand, e{sc[j], uint32(j)})
		}
	}
	nc = uint64(len(cand))
	if nc > 256 {
		modelStep4++
	}
	if nc > 3584 {
		return nil, nc, "gathered past CAND_MAX"
	}
	sort.Slice(cand, func(a, b int) bool { return at(cand[a].s, cand[a].i, cand[b].s, cand[b].i) })
	if uint64(len(cand)) < k {
		return nil, nc, "fewer than K gathered"
	}
	for _, c := range cand[:k] {
		out = append(out, c.i)
	}
	return out, nc, ""
}

// modelTie, modelStop and modelStep4 count the model's rows that took the
// index bisection, stopped the score's early, and gathered more than
// RANK_MAX (step 4).
var modelTie, modelStop, modelStep4 int

// TestTopKMaximaModel: topk_maxima.comp's selection (maximaModel, its
// steps in Go) on rows of random, all-equal (0 too: the padding's score),
// few, sorted, plateau, peak and staircase scores (the early stop with
// whole groups at or above T), heads of 0 to 3 positions, workgroups of
// 1 to 64 lanes, K from 1 to the planner's bound: never more than
// CAND_MAX entries gathered, at least K, and the row's first K in order.
func TestTopKMaximaModel(t *testing.T) {
	defer func() { t.Logf("tie path %d, early stop %d, step 4 %d", modelTie, modelStop, modelStep4) }()
	rng := rand.New(rand.NewSource(7))
	fills := []func(n int) []uint32{
		func(n int) []uint32 { // random
			s := make([]uint32, n)
			for i := range s {
				s[i] = rng.Uint32()
			}
			return s
		},
		func(n int) []uint32 { // all equal (0 or not)
			s := make([]uint32, n)
			v := uint32(rng.Intn(2)) * rng.Uint32()
			for i := range s {
				s[i] = v
			}
			return s
		},
		func(n int) []uint32 { // few values
			s := make([]uint32, n)
			m := 1 + rng.Intn(4)
			for i := range s {
				s[i] = uint32(rng.Intn(m))
			}
			return s
		},
		func(n int) []uint32 { // ascending / descending
			s := make([]uint32, n)
			up := rng.Intn(2) == 0
			for i := range s {
				if up {
					s[i] = uint32(i + 1)
				} else {
					s[i] = uint32(n - i)
				}
			}
			return s
		},
		func(n int) []uint32 { // plateaus: runs of equal high scores, rest low
			s := make([]uint32, n)
			run := 1 + rng.Intn(64)
			for i := range s {
				if (i/run)%(2+rng.Intn(3)) == 0 {
					s[i] = 1000 + uint32(rng.Intn(3))
				} else {
					s[i] = uint32(rng.Intn(1000))
				}
			}
			return s
		},
		func(n int) []uint32 { // peaks: rare best, common second
			s := make([]uint32, n)
			for i := range s {
				switch r := rng.Intn(1000); {
				case r == 0:
					s[i] = 11
				case r < 25:
					s[i] = 10
				default:
					s[i] = uint32(rng.Intn(10))
				}
			}
			return s
		},
		func(n int) []uint32 { // staircase of group-sized steps (early stop with full groups)
			s := make([]uint32, n)
			step := 4 * (1 + rng.Intn(40))
			for i := range s {
				s[i] = uint32(1<<20 - i/step)
			}
			return s
		},
	}
	bad, iters := 0, 4000
	if testing.Short() {
		iters = 600
	}
	for it := 0; it < iters && bad < 10; it++ {
		wg := []uint64{1, 4, 8, 16, 32, 64}[rng.Intn(6)]
		n := uint64(4 + rng.Intn(70000))
		if rng.Intn(3) == 0 {
			n = uint64(4 + rng.Intn(3000))
		}
		kmax := uint64(0)
		for kmax < 256 && topKMaximaGroupVecs(n, kmax+1, wg) > 0 {
			kmax++
		}
		if kmax == 0 {
			continue
		}
		k := []uint64{1, kmax, 1 + uint64(rng.Intn(int(kmax)))}[rng.Intn(3)]
		gv := topKMaximaGroupVecs(n, k, wg)
		fi := rng.Intn(len(fills))
		sc := fills[fi](int(n))
		mid := uint64(rng.Intn(4))
		got, nc, why := maximaModel(sc, mid, k, wg, gv)
		idx := make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(i)
		}
		sort.Slice(idx, func(a, b int) bool {
			sa, sb := sc[idx[a]], sc[idx[b]]
			return sa > sb || sa == sb && idx[a] < idx[b]
		})
		if why == "" {
			for i := range got {
				if got[i] != idx[i] {
					why = "wrong result"
					break
				}
			}
		}
		if why != "" {
			bad++
			t.Errorf("fill %d n=%d mid=%d k=%d wg=%d gv=%d: %s (nc %d, bound %d)", fi, n, mid, k, wg, gv, why, nc, (k-1)*4*gv+7)
		}
	}
}

// maximaKernelTrips is a lane's loop trips in topk_maxima.comp on a row
// of n positions (K = k, wg lanes, GV = gv) at worst, each loop's exit
// trip counted (lavapipe's limiter counts every loop's trips), loop by
// loop as the kernel is written with its own LG: the scan, the score's
// and index's bisections, then either the tied groups' bests read again
// with at most (K-1) 4 GV + 7 gathered, or the early stop with at most
// KC groups' positions and 6 gathered; the gather, its head and tail,
// step 4 over the gathered, the ranking, and the row loop.
func maximaKernelTrips(n, k, wg, gv uint64) uint64 {
	lg := min(ceilDiv(ceilDiv(n>>2, gv), wg), shaders.TopKMaximaLaneGroups)
	words := ceilDiv(lg, 32)
	scan := lg * (ceilDiv(gv, min(gv, 4)) + 1)
	gather := lg + words + lg*(gv+1) + 5*lg*gv
	step4 := func(nc uint64) uint64 {
		if nc <= shaders.TopKMaximaRanks {
			return 33 + 33 + 1
		}
		share := ceilDiv(nc, wg)
		return 66*(share+1) + share + 1
	}
	after := lg + words + lg*(gv+1) + step4((k-1)*4*gv+7)
	if kc := min(k+k/4, (shaders.TopKMaximaCands-6)/(4*gv)); kc >= k {
		after = max(after, step4(min(kc*4*gv+6, shaders.TopKMaximaCands)))
	}
	nr := uint64(shaders.TopKMaximaRanks)
	rank := ceilDiv(nr, 8*wg) + 1 + ceilDiv(nr, 8*wg)*(nr+1)
	return scan + 66 + gather + ceilDiv(6, wg) + 1 + after + rank + 2
}

// TestTopKMaximaTripsBound: every plan topKMaximaGroupVecs makes keeps
// topk_maxima.comp's loop trips (maximaKernelTrips) within
// topKRadixItersMax. Before the early stop's larger gather (KC = K + K/4
// groups' positions, not K - 1) and the tied groups' read were counted,
// n=4073 K=211 at 4 lanes could take ~39,600 (the limiter stops at
// 65,535, so no row was cut short, but the planner's margin was gone).
func TestTopKMaximaTripsBound(t *testing.T) {
	for _, wg := range []uint64{1, 4, 8, 16, 32, 64, 128} {
		worst, at := uint64(0), [2]uint64{}
		for n := uint64(4); n < 1<<21; n += 1 + n/512 {
			for k := uint64(1); k <= shaders.TopKMaximaRanks; k++ {
				gv := topKMaximaGroupVecs(n, k, wg)
				if gv == 0 {
					break
				}
				if r := maximaKernelTrips(n, k, wg, gv); r > worst {
					worst, at = r, [2]uint64{n, k}
				}
			}
		}
		if worst > topKRadixItersMax {
			t.Errorf("%d lanes: n=%d K=%d takes up to %d loop trips a lane, over %d", wg, at[0], at[1], worst, topKRadixItersMax)
		}
	}
}
