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
//          topk_select.comp's radix_threshold), its passes started from
//          a bracket a subsample finds (bracket_pass); the row is ROW_SAMPLED
//          with threshold (ts, every position), or ROW_FAILED where there
//          is none (a sample too small, ts a NaN's score 0, or a bracket
//          that missed).
//          1: for the ROW_FAILED rows, histogram passes over the (score,
//          position from the row's end) keys of every position scoring
//          at least the row's floor find the prefix of the K-th best key
//          at or above which at most SPLIT_SORT_MAX entries lie; the row
//          is ROW_EXACT with that threshold.
//   GATHER 1 (with EXACT 0): the sampled rows' gather (topk_gather.glsl)
//          follows the threshold in the same workgroup, a dispatch
//          fewer: on two threads each of llvmpipe's dispatches costs a
//          wake of its threads and the rows' imbalance (8x32000 K =
//          2048: the threshold's 0.38 ms on one thread took 0.33 on two;
//          64x32000: 2.6 and 1.5).
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
#ifndef GATHER
#define GATHER 0
#endif
#if GATHER
#include "topk_gather.glsl"
#endif

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

// Passes: the histogram passes' state: the prefix chosen so far (as
// (score part, position part), its bits below lo cleared), the keys
// above its bin and those in it.
struct Passes {
	uvec2 pre;
	uint lo;
	uint above;
	uint inbin;
};

// pick_bin reads the counts of nbins bins (after a barrier) and returns
// the bin holding the need-th key from the top (the lowest bin where
// fewer keys are counted), with the keys of the bins above it in
// sh_before; every lane returns the same, after a barrier.
uint pick_bin(uint nbins, uint need) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	// The bins' sums in ng groups of per bins, a group a lane where the
	// bins allow and up to 64 (lane 0's walk below reads up to ng sums
	// and per bins: with 8 lanes, 2048 bins in 8 groups would have it
	// walk up to 256). A group is whole vectors of four bins (ng <=
	// nbins / 4), or, under four bins, the one group of one vector,
	// whose bins past nbins the clear zeroed.
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
		// The groups' sums from the last, then that group's bins.
		uint acc = 0u;
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
	return sh_pick;
}

// key_passes runs histogram passes over count_scan's keys, ib bits of
// position under the score, from state p, until the keys at or above
// the prefix of the kk-th best number at most limit, or every bit is
// chosen: the prefix (bits below the last digit cleared) then has at
// least kk keys at or above it where kk keys reach flo.
void key_passes(uint kin, uint step, uint kk, uint limit, uint ib, uint flo, inout Passes p) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	while (p.lo > 0u && p.above + p.inbin > limit) {
		// After the first digit the sample's passes take 7 bits: the
		// bin left holds a few hundred keys, and 128 bins cost less to
		// clear and sum than 2048.
		uint w = min(EXACT == 0 && p.lo < 32u + ib ? 7u : DIGIT_BITS, p.lo);
		uint hi = p.lo;
		uint lo = hi - w;
		uint nbins = 1u << w;
		for (uint q = t; q < (nbins + 3u) >> 2; q += WG) {
			sh_bins4[q] = uvec4(0u);
		}
		barrier();
		count_scan(kin, step, ib, p.pre, hi, lo, w, flo);
		barrier();
		// Where fewer keys are left (below a floor that kk keys do not
		// reach), the lowest bin.
		uint b = pick_bin(nbins, max(kk, p.above + 1u) - p.above);
		p.above += sh_before;
		p.inbin = bin(b);
		p.lo = lo;
		if (lo >= ib) {
			p.pre.x |= b << (lo - ib);
		} else {
			p.pre.y |= (b << lo) & (ib >= 32u ? 0xFFFFFFFFu : (1u << ib) - 1u);
			if (lo + w > ib) {
				p.pre.x |= b >> (ib - lo);
			}
		}
		barrier();
	}
}

#if !EXACT
// SUBSAMPLE (ops shaders.TopKSplitSubsample): the bracket's subsample
// takes every SUBSAMPLE-th texel of the sample.
#ifndef SUBSAMPLE
#error topk_thresh.comp EXACT 0 takes its bracket's SUBSAMPLE from its variant
#endif
shared uint sh_top;
shared uint sh_past;

// bracket_pass starts the sample's passes from a bracket instead of the
// first digit's 2048 bins, whose atomics (one a sampled position) were
// most of the threshold's time on lavapipe (8x32000 K = 2048, single
// thread: 0.34 of 0.62 ms). Histogram passes over a subsample (every
// SUBSAMPLE-th sampled texel) find a score lb that more of it reach than
// its share of s by three standard deviations and three, and the
// subsample's best score; one pass over the sample then counts the
// scores from lb up in NBINS bins of 2^sh scores (aligned prefixes, the
// scores past the last bin in one count), a few hundred atomics where
// the first digit took one a position. It returns BRACKET_NONE, p
// unchanged, where the subsample is too small or its bound is a NaN's
// score (the sample's passes then run whole), and BRACKET_MISSED where
// the bins do not hold the s-th best score: the row is left to the exact
// path, so that no row pays the sample's whole passes after the
// bracket's (ops topKSplitSampleIters bounds a lane's trips by four
// passes over the sample either way). On which score the threshold
// lands the results do not depend: topk_rank.comp checks that at least
// K and at most SPLIT_SORT_MAX entries pass.
const uint BRACKET_NONE = 0u;
const uint BRACKET_HELD = 1u;
const uint BRACKET_MISSED = 2u;
uint bracket_pass(uint kin, uint step, uint nq, uint s, uint limit, inout Passes p) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint e0 = split_e0(kin);
	uint vf = e0 >> 2, nv = ((e0 + N + 3u) >> 2) - vf;
	uint sstep = step * uint(SUBSAMPLE);
	uint nt = (nv - 1u) / sstep + 1u;
	uint nsub = min(N, 4u * nt);
	float r = float(s) * float(nsub) / float(nq);
	uint rhi = uint(r + 3.0 * sqrt(r)) + 3u;
	if (r < 8.0 || 2u * rhi > nsub) {
		return BRACKET_NONE;
	}
	// The subsample's best score (a NaN's 0 never beats it).
	if (t == 0u) {
		sh_top = 0u;
		sh_past = 0u;
	}
	barrier();
	uint top = 0u;
	for (uint q = t; q < nt; q += WG) {
		uint v = vf + q * sstep;
		uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
		uvec4 j4 = uvec4(4u * v - e0) + uvec4(0u, 1u, 2u, 3u);
		s4 = mix(uvec4(0u), s4, lessThan(j4, uvec4(N)));
		top = max(top, max(max(s4.x, s4.y), max(s4.z, s4.w)));
	}
	atomicMax(sh_top, top);
	barrier();
	Passes ps = Passes(uvec2(0u), 32u, 0u, nsub);
	key_passes(kin, sstep, rhi, rhi + (rhi >> 1), 0u, 0u, ps);
	// Uniform: every lane reads it after key_passes' last barrier.
	top = sh_top;
	uint lb = ps.pre.x;
	if (lb == 0u || top < lb) {
		return BRACKET_NONE;
	}
	uint sh = uint(max(findMSB(top - lb) + 1 - int(DIGIT_BITS), 0));
	lb &= ~((1u << sh) - 1u);
	for (uint q = t; q < NBINS / 4u; q += WG) {
		sh_bins4[q] = uvec4(0u);
	}
	barrier();
	uint past = 0u;
	for (uint q = t; q < (nv - 1u) / step + 1u; q += WG) {
		uint v = vf + q * step;
		uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
		uint m = 0u;
		[[unroll]] for (uint c = 0u; c < 4u; c++) {
			m |= uint(4u * v + c - e0 < N && s4[c] >= lb) << c;
		}
		while (m != 0u) {
			uint c = uint(findLSB(m));
			m &= m - 1u;
			uint d = (s4[c] - lb) >> sh;
			if (d < NBINS) {
				atomicAdd(sh_bins4[d >> 2][d & 3u], 1u);
			} else {
				past++;
			}
		}
	}
	atomicAdd(sh_past, past);
	barrier();
	// Uniform: every lane reads it after the barrier.
	past = sh_past;
	if (past >= s) {
		return BRACKET_MISSED;
	}
	uint b = pick_bin(NBINS, s - past);
	uint above = past + sh_before, inbin = bin(b);
	// The passes clear the bins next, once every lane has read bin b.
	barrier();
	if (above + inbin < s) {
		return BRACKET_MISSED;
	}
	p = Passes(uvec2(lb + (b << sh), 0u), sh, above, inbin);
	key_passes(kin, step, s, limit, 0u, 0u, p);
	return BRACKET_HELD;
}
#endif

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
	Passes p = Passes(uvec2(0u), 32u + ib, 0u, N);
	key_passes(kin, 1u, kk, SPLIT_SORT_MAX, ib, flo, p);
	uvec2 pre = p.pre;
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
		Passes p = Passes(uvec2(0u), 32u, 0u, nq);
		uint br = bracket_pass(kin, step, nq, s, limit, p);
		if (br == BRACKET_NONE) {
			key_passes(kin, step, s, limit, 0u, 0u, p);
		}
		// A missed bracket: no threshold (ROW_FAILED).
		ts = br == BRACKET_MISSED ? 0u : p.pre.x;
	}
	if (gl_LocalInvocationID.x == 0u) {
		rows_buf.x[row + ST_TS] = ts;
		rows_buf.x[row + ST_TJ] = N - 1u;
		rows_buf.x[row + ST_FLOOR] = 0u;
		rows_buf.x[row + ST_STATE] = ts != 0u ? ROW_SAMPLED : ROW_FAILED;
#if GATHER
		if (rl == 0u) {
			// The rankings' lists start empty (topk_gather.comp's first
			// dispatch does this where apart).
			split_init();
		}
#endif
	}
#if GATHER
	// Every lane holds the same ts (key_passes' prefix, read from shared
	// memory after a barrier).
	gather_row(row, kin, ts != 0u, ts, N - 1u);
#endif
#endif
}
