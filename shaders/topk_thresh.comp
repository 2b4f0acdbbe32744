#version 450
// topk_thresh.comp: the split radix select's thresholds (topk_split.glsl),
// one row a workgroup.
//
// Defines:
//   EXACT  0: for every row of the step, histogram passes over the scores
//          of a sample of the row (the four positions of every
//          samp_step-th 16-byte texel) find a score ts that at least s
//          of the sample reach, s the sample's expected count above the
//          K-th best plus three standard deviations and four (as
//          topk_select.comp's radix_threshold); the row is ROW_SAMPLED
//          with threshold (ts, every position), or ROW_FAILED where there
//          is none (a sample too small, or ts a NaN's score 0).
//          1: for the ROW_FAILED rows, histogram passes over the (score,
//          position from the row's end) keys of every position scoring
//          at least the row's floor find the prefix of the K-th best key
//          at or above which at most SPLIT_SORT_MAX entries lie; the row
//          is ROW_EXACT with that threshold.
// 11-bit digits, highest first (EXACT 0: 7-bit after the first); each
// pass counts the digit of the keys whose higher digits are the prefix
// chosen so far.

#extension GL_EXT_control_flow_attributes : require

#define ELEM_BITS 32
#define ELEM_SRC 0
#define ELEM_SRC_TEXEL 1
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"
#include "topk_split.glsl"

const uint DIGIT_BITS = 11u;
const uint NBINS = 1u << DIGIT_BITS;
// The bins four a vector: llvmpipe runs a shared access a lane at a
// time, so the clears and the group sums, which read every bin, take a
// quarter of the accesses (the counts' atomics address a component).
shared uvec4 sh_bins4[NBINS / 4u];
shared uint sh_sums[NBINS]; // the bins' group sums (at most max(64, WG) <= NBINS groups)

// bin is bin q's count.
uint bin(uint q) { return sh_bins4[q >> 2][q & 3u]; }
shared uint sh_pick;
shared uint sh_before;

// key_top is key (s, b) (s above ib bits of b) with its bits below lo
// cleared, as (score part, position part).
uvec2 key_top(uint s, uint b, uint ib, uint lo) {
	if (lo >= ib) {
		uint sl = lo - ib;
		return uvec2(sl >= 32u ? 0u : s & ~((1u << sl) - 1u), 0u);
	}
	return uvec2(s, b & ~((1u << lo) - 1u));
}

// key_digit is bits [lo, lo + w) of key (s, b).
uint key_digit(uint s, uint b, uint ib, uint lo, uint w) {
	uint v;
	if (lo >= ib) {
		v = lo - ib >= 32u ? 0u : s >> (lo - ib);
	} else {
		v = (b >> lo) | (ib - lo >= 32u ? 0u : s << (ib - lo));
	}
	return v & ((1u << w) - 1u);
}

// count_texel adds to the histogram of digit [lo, lo + w) the keys of
// the four positions j0 + c of a texel (scores s4; with EXACT, the key's
// position part from the row's end, else 0) in the row whose bits from
// hi up are the prefix pre and whose score reaches the floor flo.
void count_texel(uvec4 s4, uint j0, uint ib, uvec2 pre, uint hi, uint lo, uint w, uint flo) {
#if EXACT
	[[unroll]] for (uint c = 0u; c < 4u; c++) {
		uint j = j0 + c;
		uint b = N - 1u - j;
		if (j < N && s4[c] >= flo && key_top(s4[c], b, ib, hi) == pre) {
			uint q = key_digit(s4[c], b, ib, lo, w);
			atomicAdd(sh_bins4[q >> 2][q & 3u], 1u);
		}
	}
#else
	// A loop trip a counted key, not a masked atomic a position:
	// llvmpipe pays a masked shared atomic as a taken one, and after
	// the first pass few keys have the prefix (the loop's one trip a
	// texel then). (EXACT keeps the four masked atomics: its lanes'
	// trips, a texel of the whole row each, bound the split's rows.)
	uint m = 0u;
	[[unroll]] for (uint c = 0u; c < 4u; c++) {
		m |= uint(j0 + c < N && s4[c] >= flo && key_top(s4[c], 0u, ib, hi) == pre) << c;
	}
	while (m != 0u) {
		uint c = uint(findLSB(m));
		m &= m - 1u;
		uint q = key_digit(s4[c], 0u, ib, lo, w);
		atomicAdd(sh_bins4[q >> 2][q & 3u], 1u);
	}
#endif
}

// count_scan counts the keys of lane t's share: with EXACT every position
// of [0, N), a block of the row's texels a lane; else the sample's.
void count_scan(uint kin, uint step, uint ib, uvec2 pre, uint hi, uint lo, uint w, uint flo) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
#if EXACT
	uint e0 = split_e0(kin);
	uint vf = e0 >> 2, nv = ((e0 + N + 3u) >> 2) - vf;
	uint per = (nv + WG - 1u) / WG;
	for (uint v = vf + t * per; v < vf + min(nv, (t + 1u) * per); v++) {
		uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
		count_texel(s4, 4u * v - e0, ib, pre, hi, lo, w, flo);
	}
#else
	// The sample: one texel every step texels (lane t the t-th, the
	// (t + WG)-th, ...), its positions in the row: a texel fetch gives
	// four sampled scores (lavapipe: the fetches were most of the
	// passes' time; a position every step-th took a fetch each).
	uint e0 = split_e0(kin);
	uint vf = e0 >> 2, nv = ((e0 + N + 3u) >> 2) - vf;
	uint nt = (nv - 1u) / step + 1u;
	for (uint q = t; q < nt; q += WG) {
		uint v = vf + q * step;
		uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
		count_texel(s4, 4u * v - e0, ib, pre, hi, lo, w, flo);
	}
#endif
}

// key_passes runs the histogram passes over count_scan's keys (at most
// nq of them), ib bits of position under the score, until the keys at
// or above the prefix of the kk-th best number at most limit, or every
// bit is chosen, and returns the prefix (bits below the last digit
// cleared, as (score part, position part)): at least kk keys are at or
// above it where kk keys reach flo.
uvec2 key_passes(uint kin, uint step, uint nq, uint kk, uint limit, uint ib, uint flo) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint lo = 32u + ib;
	uvec2 pre = uvec2(0u);
	uint above = 0u, inbin = nq;
	while (lo > 0u && above + inbin > limit) {
		// After the first digit the sample's passes take 7 bits: the
		// bin left holds a few hundred keys, and 128 bins cost less to
		// clear and sum than 2048.
		uint w = min(EXACT == 0 && lo < 32u + ib ? 7u : DIGIT_BITS, lo);
		uint hi = lo;
		lo -= w;
		uint nbins = 1u << w;
		for (uint q = t; q < (nbins + 3u) >> 2; q += WG) {
			sh_bins4[q] = uvec4(0u);
		}
		barrier();
		count_scan(kin, step, ib, pre, hi, lo, w, flo);
		barrier();
		// The bins' sums in ng groups of per bins, a group a lane where
		// the bins allow and up to 64 (lane 0's walk below reads up to ng
		// sums and per bins: with 8 lanes, 2048 bins in 8 groups would
		// have it walk up to 256). A group is whole vectors of four bins
		// (ng <= nbins / 4), or, under four bins, the one group of one
		// vector, whose bins past nbins the clear zeroed.
		uint ng = max(1u, min(nbins >> 2, max(WG, min(64u, nbins >> 5))));
		uint per = nbins / ng;
		for (uint g = t; g < ng; g += WG) {
			uint sum = 0u;
			for (uint q = g * per >> 2; q < ((g + 1u) * per + 3u) >> 2; q++) {
				uvec4 v = sh_bins4[q];
				sum += v.x + v.y + v.z + v.w;
			}
			sh_sums[g] = sum;
		}
		barrier();
		if (t == 0u) {
			// The bin holding the (kk - above)-th key from the top: the
			// groups' sums from the last, then that group's bins. Where
			// fewer keys are left (below a floor that kk keys do not
			// reach), the lowest bin.
			uint need = max(kk, above + 1u) - above, acc = 0u;
			uint c = ng - 1u;
			while (c > 0u && acc + sh_sums[c] < need) {
				acc += sh_sums[c];
				c--;
			}
			uint b = (c + 1u) * per - 1u;
			while (b > c * per && acc + bin(b) < need) {
				acc += bin(b);
				b--;
			}
			sh_pick = b;
			sh_before = acc;
		}
		barrier();
		// Uniform: every lane reads the pick after the barrier.
		uint b = sh_pick;
		above += sh_before;
		inbin = bin(b);
		if (lo >= ib) {
			pre.x |= b << (lo - ib);
		} else {
			pre.y |= (b << lo) & (ib >= 32u ? 0xFFFFFFFFu : (1u << ib) - 1u);
			if (lo + w > ib) {
				pre.x |= b >> (ib - lo);
			}
		}
		barrier();
	}
	return pre;
}

void main() {
	uint rl = split_item();
	if (rl >= pc.r_count) {
		return;
	}
	uint kin, kv, kx;
	row_offsets(pc.r_begin + rl, kin, kv, kx);
	uint row = split_row(rl);
	uint kk = min(K, N);
#if EXACT
	// Uniform: every lane reads the same word.
	if (rows_buf.x[row + ST_STATE] != ROW_FAILED) {
		return;
	}
	uint flo = rows_buf.x[row + ST_FLOOR];
	uint ib = uint(max(findMSB(N - 1u) + 1, 1));
	uvec2 pre = key_passes(kin, 1u, N, kk, SPLIT_SORT_MAX, ib, flo);
	// The entries below the floor were not counted: a prefix under it
	// stands for the floor itself, which every counted entry reaches.
	uint ts = pre.x, tj = N - 1u - pre.y;
	if (ts < flo) {
		ts = flo;
		tj = N - 1u;
	}
	if (gl_LocalInvocationID.x == 0u) {
		rows_buf.x[row + ST_TS] = ts;
		rows_buf.x[row + ST_TJ] = tj;
		rows_buf.x[row + ST_STATE] = ROW_EXACT;
	}
#else
	// nq: the sample's positions (at most four a sampled texel; the
	// row's end texels may hold fewer of its positions).
	uint step = pc.samp_step;
	uint e0 = split_e0(kin);
	uint nv = ((e0 + N + 3u) >> 2) - (e0 >> 2);
	uint nq = min(N, 4u * ((nv - 1u) / step + 1u));
	float q = float(kk) * float(nq) / float(N);
	uint s = uint(q + 3.0 * sqrt(q)) + 4u;
	// limit: the sample's entries at or above ts may number half again
	// s (fewer passes), but not so many that the row's passing entries
	// would exceed SPLIT_SORT_MAX by three standard deviations of the
	// sample's count (K = 2048 at every 8th texel: 308 of 4,000 sampled
	// entries, each standing for 8; a cut at the first digit's 0.25 wide
	// bins let about 420 through, 3,400 passing entries, and every row
	// took the exact fallback). Not under s: the planner's step keeps s
	// within it (ops topKSplitSampleCap).
	float c = float(SPLIT_SORT_MAX) * float(nq) / float(N);
	uint limit = max(s, min(s + (s >> 1), uint(max(c - 3.0 * sqrt(c), 0.0))));
	uint ts = 0u;
	if (s < nq) {
		ts = key_passes(kin, step, nq, s, limit, 0u, 0u).x;
	}
	if (gl_LocalInvocationID.x == 0u) {
		rows_buf.x[row + ST_TS] = ts;
		rows_buf.x[row + ST_TJ] = N - 1u;
		rows_buf.x[row + ST_FLOOR] = 0u;
		rows_buf.x[row + ST_STATE] = ts != 0u ? ROW_SAMPLED : ROW_FAILED;
	}
#endif
}
