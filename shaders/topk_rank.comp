#version 450
// topk_rank.comp: the split radix select's ordering (topk_split.glsl),
// one row a workgroup. For the rows in state want, the positions of the
// texels topk_gather.comp kept that pass the row's threshold (ts, tj) are
// counted into RANK_BUCKETS buckets of equal score ranges over [ts, the
// row's best score] and put in shared memory in bucket order, the best
// bucket first; each entry's rank is then the entries of the better
// buckets and those of its own bucket that come before it, a permutation
// (a strict total order), so the best K are written without a sort. A
// row whose regions overflowed, or with fewer than K or more than
// SPLIT_SORT_MAX passing entries, is marked ROW_FAILED instead, with the
// threshold's score as its floor where at least K entries reach it.
//
// Lavapipe does shared-memory loads, stores and atomics a lane at a time
// (a masked one costing as much as a taken one) and texel fetches as
// vector gathers: the regions are read twice (the buckets' counts, then
// the entries' slots) rather than the entries kept in shared memory in
// arrival order and put in order through a third array, the range's top
// comes from the gather (ST_MAX), and the buckets are many, so that an
// entry's walk of its bucket is short (8x32000 K = 2048, single thread:
// the ranking 3.5 ms with 256 buckets walked through 16-bit order
// slots, 1.4 ms so).
//
// The workgroup is ops topKSplitRankWG (8) lanes for the sampled rows,
// then ops topKSplitWG (64) for the rows those left (ROW_WIDE) and for
// the exact rows: sh_sums holds a word a lane (at most 64), and the lanes
// share the buckets evenly. A workgroup of one SIMD row (lavapipe at
// 256-bit vectors) ranks the sampled rows, the common case, 10-17%
// faster than 64 lanes (8x32000 K = 1024 and 2048, single thread; 6-7%
// when the 64-lane dispatch after it still ran idle on every row, before
// it became indirect): its fixed costs (lane 0's sums, the skipped
// paths' first trips) are paid once, not 8 times.

#extension GL_EXT_control_flow_attributes : require

#define ELEM_BITS 32
#define ELEM_SRC 0
#define ELEM_SRC_TEXEL 1
#define ELEM_DST 2
#define WORD_DST 3
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"
#include "topk_split.glsl"

shared uint sh_s[SPLIT_SORT_MAX];
shared uint sh_i[SPLIT_SORT_MAX];
shared uint sh_count;
shared uint sh_most;
shared uint sh_pend;

const uint RANK_OWN = 8u;

// RANK_BUCKETS: the buckets, numbered up from the threshold's score; a
// bucket's count, then its first slot in bucket order (the entries of the
// better buckets before it), then, once its entries are placed, its end,
// which is the first slot of the bucket below it. 2048 words beside the
// entries' 23,552 bytes keep within lavapipe's 32 KiB of shared memory
// (topk_split.glsl SPLIT_SORT_MAX); on normal rows the buckets next to
// the threshold then hold a few entries (K = 2048 at 32000) where 256
// held tens. 4096 16-bit counts in the same words were no faster.
const uint RANK_BUCKETS = 2048u;
// BUCKET_MAX: a walked bucket's most entries at 64 lanes, fewer in
// proportion with fewer lanes, which bounds a lane's walk (ops
// topKSplitIters); a row with a larger one (ties, or scores bunched at
// one end of the range) is ranked whole instead, by 64 lanes (ROW_WIDE
// where fewer).
const uint BUCKET_MAX = 256u;
// Four a vector: llvmpipe runs a shared access a lane at a time, so the
// clear, the lanes' sums and the starts, which go over every bucket, take
// a quarter of the accesses (the entries' atomics address a component).
shared uvec4 sh_bucket4[RANK_BUCKETS / 4u];

// bucket is bucket b's word.
uint bucket(uint b) { return sh_bucket4[b >> 2][b & 3u]; }
// sh_sums: the bucket counts of each lane's share of the buckets, then
// the entries of the better shares before it.
shared uint sh_sums[64];

// Bucket: the bucket of score s (at least ts) among nb: (s - ts) itself
// where the range holds fewer than nb scores, else (s - ts) * scale /
// 2^32 (scale about nb * 2^32 / (range + 1), clamped to the last
// bucket): monotone in s, so that a better bucket holds better scores.
struct Bucket {
	uint ts;
	uint scale; // 0: (s - ts)
	uint nb;
};

// Both maps clamp to the last bucket, so that the range's top (the
// gather's ST_MAX) bears on the buckets' sizes only, never on the order.
uint bucket_of(Bucket bk, uint s) {
	uint x = s - bk.ts;
	uint hi = x, lo;
	if (bk.scale != 0u) {
		umulExtended(x, bk.scale, hi, lo);
	}
	return min(hi, bk.nb - 1u);
}

// region_pass reads the passing entries of the row's regions and adds
// them to n: pass 1 counts each bucket's, pass 2 puts each in its
// bucket's next slot.
void region_pass(uint pass, uint row, uint e0, uint ts, uint tj, Bucket bk, inout uint n) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	for (uint g = 0u; g < pc.gw; g++) {
		uint c = min(rows_buf.x[row + ST_COUNT + g], pc.cap);
		uint reg = row + ST_REGION + g * pc.cap;
		for (uint e = t; e < c; e += WG) {
			uint v = rows_buf.x[reg + e];
			uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
			// The texel's passing positions, a bit each: a loop trip a
			// passing position rather than a shared access for each of
			// the four (usually one passes; a masked access costs lavapipe
			// as much as a taken one).
			uint hits = 0u;
			[[unroll]] for (uint q = 0u; q < 4u; q++) {
				uint j = 4u * v + q - e0;
				hits |= uint(j < N && split_passes(s4[q], j, ts, tj)) << q;
			}
			n += bitCount(hits);
			while (hits != 0u) {
				uint q = uint(findLSB(hits));
				hits &= hits - 1u;
				uint sq = s4[q];
				uint b = bucket_of(bk, sq);
				if (pass == 1u) {
					atomicAdd(sh_bucket4[b >> 2][b & 3u], 1u);
				} else {
					uint x = atomicAdd(sh_bucket4[b >> 2][b & 3u], 1u);
					sh_s[x] = sq;
					sh_i[x] = 4u * v + q - e0;
				}
			}
		}
	}
}

void main() {
	uint rl = split_item();
	if (rl >= pc.r_count) {
		return;
	}
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint kin, kv, kx;
	row_offsets(pc.r_begin + rl, kin, kv, kx);
	uint row = split_row(rl);
	// Uniform: every lane reads the same word.
	uint st = rows_buf.x[row + ST_STATE];
	if (st != pc.want) {
		if (st == ROW_FAILED && pc.want == ROW_SAMPLED && t == 0u) {
			// The sample found no threshold: the exact path's.
			split_append(HDR_EXACT, rl);
		}
		return;
	}
	uint ts = rows_buf.x[row + ST_TS], tj = rows_buf.x[row + ST_TJ];
	uint e0 = split_e0(kin);
	uint kk = min(K, N);
	if (t == 0u) {
		sh_count = 0u;
		sh_most = 0u;
		sh_pend = 0u;
	}
	// nb: RANK_BUCKETS, or for small K (few entries) fewer, at least a
	// vector of four buckets a lane (each lane's share whole vectors):
	// their zeroing and sums cost every row.
	uint nb = clamp(1u << uint(findMSB(2u * min(kk, RANK_BUCKETS) - 1u) + 1), 4u * WG, RANK_BUCKETS);
	for (uint q = t; q < nb >> 2; q += WG) {
		sh_bucket4[q] = uvec4(0u);
	}
	barrier();
	// The buckets span [ts, the row's best score] (the gather lanes'
	// bests): every passing score lies in it.
	bool over = false;
	uint smax = 0u, tex = 0u;
	for (uint g = 0u; g < pc.gw; g++) {
		uint cg = rows_buf.x[row + ST_COUNT + g];
		tex += cg;
		over = over || cg > pc.cap;
		smax = max(smax, rows_buf.x[row + ST_MAX + g]);
	}
	Bucket bk = Bucket(ts, 0u, nb);
	uint d = smax - ts;
	if (smax >= ts && d >= nb) {
		bk.scale = uint(min(float(nb) * 4294967296.0 / (float(d) + 1.0), 4294967040.0));
	}
	// The buckets' counts, and the entries' (too many: the row fails,
	// its counts unused).
	uint n = 0u;
	// Fewer than 64 lanes (the sampled rows' first ranking, ops
	// topKSplitRankWG) leave to the 64 (ROW_WIDE) a row whose regions
	// hold more texels than an exact threshold's (SPLIT_SORT_MAX and the
	// three kept ones), unread, and below one they cannot walk: a
	// lane's trips then stay within ops topKSplitIters.
	if (WG < 64u && tex > SPLIT_SORT_MAX + 3u) {
		if (t == 0u) {
			rows_buf.x[row + ST_STATE] = ROW_WIDE;
			split_append(HDR_WIDE, rl);
		}
		return;
	}
	region_pass(1u, row, e0, ts, tj, bk, n);
	atomicAdd(sh_count, n);
	barrier();
	// Uniform: every lane reads the count after the barrier.
	uint cnt = sh_count;
	if (over || cnt < kk || cnt > SPLIT_SORT_MAX) {
		if (t == 0u) {
			rows_buf.x[row + ST_FLOOR] = cnt >= kk ? ts : 0u;
			rows_buf.x[row + ST_STATE] = ROW_FAILED;
			// Not the exact rows' own ranking (which cannot fail: at
			// most SPLIT_SORT_MAX entries pass an exact threshold): its
			// dispatch reads that list.
			if (pc.want != ROW_EXACT) {
				split_append(HDR_EXACT, rl);
			}
		}
		return;
	}
	// Lane t's share: buckets [nb - (t + 1) * per, nb - t * per), the
	// best first.
	uint per = nb / WG;
	uint top = nb - t * per;
	uint sum = 0u;
	for (uint q = top >> 2; q > (top - per) >> 2; q--) {
		uvec4 v = sh_bucket4[q - 1u];
		sum += v.x + v.y + v.z + v.w;
	}
	sh_sums[t] = sum;
	barrier();
	if (t == 0u) {
		uint acc = 0u;
		for (uint l = 0u; l < WG; l++) {
			uint c = sh_sums[l];
			sh_sums[l] = acc;
			acc += c;
		}
	}
	barrier();
	// pend: the end of the bucket holding order position kk - 1 (kk <=
	// cnt): the entries after it rank kk or later; most: the largest of
	// the buckets that start before kk, which are walked.
	// One bucket holds position kk - 1: its lane stores pend once, after
	// its loop, not a masked store a bucket.
	uint acc = sh_sums[t], most = 0u, pend = 0u;
	for (uint q = top >> 2; q > (top - per) >> 2; q--) {
		uvec4 v = sh_bucket4[q - 1u], start;
		[[unroll]] for (int c = 3; c >= 0; c--) {
			start[c] = acc;
			if (acc < kk) {
				most = max(most, v[c]);
				pend = acc + v[c] >= kk ? acc + v[c] : pend;
			}
			acc += v[c];
		}
		sh_bucket4[q - 1u] = start;
	}
	if (pend != 0u) {
		sh_pend = pend;
	}
	atomicMax(sh_most, most);
	barrier();
	// Uniform: every lane reads it after the barrier.
	bool walk = sh_most <= BUCKET_MAX * WG / 64u;
	if (!walk && WG < 64u) {
		if (t == 0u) {
			rows_buf.x[row + ST_STATE] = ROW_WIDE;
			split_append(HDR_WIDE, rl);
		}
		return;
	}
	region_pass(2u, row, e0, ts, tj, bk, n);
	barrier();
	if (walk) {
		// Each bucket's word is now its end, the first slot of the one
		// below it. The lanes of a SIMD row take neighbouring slots, so
		// they walk the same bucket or neighbouring ones.
		// Uniform: every lane reads it after the barrier.
		uint pend = sh_pend;
		for (uint p = t; p < pend; p += WG) {
			uvec2 s = uvec2(sh_s[p], 0u);
			uint i = sh_i[p];
			uint b = bucket_of(bk, s.x);
			uint f0 = b + 1u < nb ? bucket(b + 1u) : 0u, fe = bucket(b), r = f0;
			// The better scores, then, only where the entry's score is
			// not its bucket's alone, the positions of its ties: a
			// shared load a trip rather than two.
			uint ties = 0u;
			for (uint f = f0; f < fe; f++) {
				uint sf = sh_s[f];
				r += sf > s.x ? 1u : 0u;
				ties += sf == s.x ? 1u : 0u;
			}
			if (ties > 1u) {
				for (uint f = f0; f < fe; f++) {
					r += sh_s[f] == s.x && sh_i[f] < i ? 1u : 0u;
				}
			}
			if (r < kk) {
				store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, r, i);
			}
		}
		if (t == 0u) {
			rows_buf.x[row + ST_STATE] = ROW_DONE;
		}
		return;
	}
	for (uint base = 0u; base < cnt; base += RANK_OWN * WG) {
		uint ms[RANK_OWN], mi[RANK_OWN], mr[RANK_OWN];
		[[unroll]] for (uint q = 0u; q < RANK_OWN; q++) {
			uint e = base + t + q * WG;
			ms[q] = e < cnt ? sh_s[e] : 0u;
			mi[q] = e < cnt ? sh_i[e] : PAD_INDEX;
			mr[q] = 0u;
		}
		for (uint j = 0u; j < cnt; j++) {
			uvec2 s = uvec2(sh_s[j], 0u);
			uint i = sh_i[j];
			[[unroll]] for (uint q = 0u; q < RANK_OWN; q++) {
				mr[q] += better(s, i, uvec2(ms[q], 0u), mi[q]) ? 1u : 0u;
			}
		}
		[[unroll]] for (uint q = 0u; q < RANK_OWN; q++) {
			if (base + t + q * WG < cnt && mr[q] < kk) {
				store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, mr[q], mi[q]);
			}
		}
	}
	if (t == 0u) {
		rows_buf.x[row + ST_STATE] = ROW_DONE;
	}
}
