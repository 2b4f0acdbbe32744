#version 450
// topk_maxima.comp (strategy maxima): TOP_K / TOP_K1 of short rows of
// 32-bit elements of input stride 1, read through a uniform texel buffer
// (the CPU class's plans for a few rows of up to ~64K positions and small
// K). One workgroup per row writes the row's results in one dispatch:
//
//   1. The row's aligned middle is cut into groups of group_vecs 16-byte
//      vectors; each group's best entry (topk.glsl's order: score
//      descending, then index ascending) goes to shared memory, then a
//      lane's groups to registers (LANE_GROUPS slots).
//   2. T, the K-th best of those group bests, by bisection: the score's
//      bits (how many group bests score at least a trial value), then,
//      among the group bests of T's score, the index's bits.
//   3. The entries at or before T in the order are gathered: only the
//      groups whose best is, and the unaligned head and tail.
//   4. Where more than RANK_MAX were gathered (ties, sorted rows), T
//      moves to the K-th best of them by the same bisection; the entries
//      at or before T go to the ranking's arrays.
//   5. Each one's rank among them is counted; ranks below K are written
//      (store_result: the input's bits, the index).
//
// Why it is exact: the order is a strict total order; K group bests are
// at or before T, so the row's K-th entry is too, and every one of the
// row's first K entries is gathered, and they are the gathered entries'
// first K. How many are gathered: a group whose best comes after T holds
// nothing at or before it, and fewer than K groups' bests come before T,
// so at most (K - 1) * 4 * group_vecs + 1 entries of the middle, and the
// head's and tail's at most 3 each: the planner keeps that within
// CAND_MAX, K within RANK_MAX, and at least K groups in the row
// (ops/topk_plan.go topKMaximaGroupVecs). On random rows about K are
// gathered.
//
// Why this shape on lavapipe: llvmpipe runs an if's body, and a loop's
// first trip, for the whole SIMD row whether or not a lane takes it, so
// a kernel pays for every path it carries (topk_select.comp's radix
// strategy: ~0.1 ms a workgroup before it reads anything). Here the scan
// is loads, a max and a select; the bisection counts registers; the
// gather's and step 4's rarely needed work sits in loops whose trips
// run only while a lane needs one (one masked trip otherwise). The
// workgroup is small (ops tuning topKMaximaWG: 8 lanes, one SIMD row):
// each barrier switches between lavapipe's per-subgroup coroutines, and
// 8x32000 K=17 took 0.55, 0.82, 1.4 and 2.6 ms with 32, 64, 128 and 256
// lanes (2026-11-28, load 12).

#extension GL_EXT_control_flow_attributes : require

#ifndef ELEM_BITS
#define ELEM_BITS 32
#endif
#if ELEM_BITS != 32
#error topk_maxima.comp reads 32-bit elements through a texel buffer
#endif
#define ELEM_SRC 0
#define ELEM_SRC_TEXEL 1
#define ELEM_DST 1
#define WORD_DST 2
#include "elem.glsl"
#include "common.glsl"
#include "topk.glsl"

layout(push_constant) uniform Push {
	uint base_src;   // words
	uint base_v;     // words: the values
	uint base_x;     // words: the indices
	uint r_begin;    // first row of this step
	uint r_count;    // rows in this step
	uint group_vecs; // 16-byte vectors a group (step 1)
	uint in_win;     // element offset of the input window
	uint v_win;      // element offset of the values window
	uint x_win;      // element offset of the indices window
} pc;

// LANE_GROUPS groups a lane (ops' shaders.TopKMaximaLaneGroups), CAND_MAX
// gathered entries (shaders.TopKMaximaCands), RANK_MAX entries ranked
// (shaders.TopKMaximaRanks).
const uint LANE_GROUPS = 128u;
const uint CAND_MAX = 2048u;
const uint RANK_MAX = 256u;
// Group bests (step 1): at most GROUP_MAX groups a row
// (shaders.TopKMaximaGroupMax), whatever the workgroup: the planner
// (topKMaximaGroupVecs) makes groups long enough that a row has no more
// than min(LANE_GROUPS WG, GROUP_MAX) of them. The group bests go
// straight to the lanes' register slots (no shared-memory copy).
const uint GROUP_MAX = 1024u;
shared uint sh_cs[CAND_MAX]; // gathered entry: score
shared uint sh_ci[CAND_MAX]; // and index
shared uint sh_rs[RANK_MAX]; // entry to rank: score
shared uint sh_ri[RANK_MAX]; // and index
shared uint sh_ncand, sh_nrank;
// Counts of the bisections, three in rotation so that one barrier a
// trial orders them: trial p adds to sh_tally[p % 3] and zeroes the next
// one, which every lane last read before trial p - 1's barrier.
shared uint sh_tally[3];

// score4 is score() of four elements (topk.glsl THE ORDER).
uvec4 score4(uvec4 raw) {
	uvec4 k = elem_key(raw, KIND);
	if (DECR == 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(raw, KIND));
}

// tally sums c over the workgroup: trial number p of the row (every lane
// passes the same p).
uint tally(uint c, uint p) {
	atomicAdd(sh_tally[p % 3u], c);
	if (gl_LocalInvocationID.x == 0u) {
		sh_tally[(p + 1u) % 3u] = 0u;
	}
	barrier();
	return sh_tally[p % 3u];
}

// at_or_before: does entry (s, i) come at or before (ts, ti) in the order?
bool at_or_before(uint s, uint i, uint ts, uint ti) { return s > ts || (s == ts && i <= ti); }

// APPEND adds entry (S, I) to shared arrays AS, AI_ of CAP entries, whose
// count is CNT.
#define APPEND(CNT, AS, AI_, CAP, S, I)                                        \
	{                                                                          \
		uint q_ = atomicAdd(CNT, 1u);                                          \
		if (q_ < CAP) {                                                        \
			AS[q_] = (S);                                                      \
			AI_[q_] = (I);                                                     \
		}                                                                      \
	}

// BISECT sets (TS, TI) to the KK-th best of the entries (S, I) that
// FOR_ENTRIES(X) visits in the lanes (X run on each): TS the largest
// score that at least KK reach, TI the need-th least index among those
// scoring TS, need = KK less those scoring above it; while GO, which is
// uniform (false: one masked trip of each loop, TS and TI left as they
// are). A trial a bit: the workgroup's count of a trial value (tally).
#define BISECT(FOR_ENTRIES, S, I, KK, GO, TS, TI)                              \
	{                                                                          \
		uint ts_ = 0u, ti_ = 0u, c_ = 0u;                                      \
		for (int b = 31; b >= 0 && GO; b--) {                                  \
			uint trial = ts_ | (1u << b);                                      \
			c_ = 0u;                                                           \
			FOR_ENTRIES(c_ += uint(S >= trial);)                               \
			if (tally(c_, p++) >= KK) {                                        \
				ts_ = trial;                                                   \
			}                                                                  \
		}                                                                      \
		c_ = 0u;                                                               \
		FOR_ENTRIES(c_ += uint(S > ts_);)                                      \
		uint need = KK - tally(c_, p++);                                       \
		for (int b = int(IB) - 1; b >= 0 && GO; b--) {                         \
			uint trial = ti_ | (1u << b);                                      \
			c_ = 0u;                                                           \
			FOR_ENTRIES(c_ += uint(S == ts_ && I < trial);)                    \
			if (tally(c_, p++) < need) {                                       \
				ti_ = trial;                                                   \
			}                                                                  \
		}                                                                      \
		if (GO) {                                                              \
			TS = ts_;                                                          \
			TI = ti_;                                                          \
		}                                                                      \
	}
#define FOR_SLOTS(X) [[unroll]] for (uint q = 0u; q < LANE_GROUPS; q++) { X }
#define FOR_GATHERED(X) for (uint q = t; q < nc; q += WG) { X }

void main() {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint nwg = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	// Bits of the largest index.
	const uint IB = uint(findMSB(max(N - 1u, 1u)) + 1);
	for (uint rl = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; rl < pc.r_count; rl += nwg) {
		uint kin, kv, kx;
		row_offsets(pc.r_begin + rl, kin, kv, kx);
		// The head [0, mid) of scalar positions, nv vectors from texel
		// v0 (positions mid + 4 v ...), the tail [mid + 4 nv, N).
		uint e0 = pc.base_src + (kin - pc.in_win);
		uint mid = min((4u - (e0 & 3u)) & 3u, N);
		uint v0 = (e0 + mid) >> 2;
		uint nv = (N - mid) >> 2;
		uint gv = pc.group_vecs;
		uint ng = (nv + gv - 1u) / gv;
		// (The previous row's last barrier: every lane has read these.)
		if (t == 0u) {
			sh_ncand = 0u;
			sh_nrank = 0u;
			sh_tally[0] = 0u;
		}
		barrier();

		// 1. Group bests: lane t's groups t + q WG straight to slot q
		// (registers: the slots are unrolled, no shared round trip, whose
		// loads and stores lavapipe runs one lane at a time; the planner
		// keeps ng <= LANE_GROUPS WG). A group's vectors come in rising
		// position, so a later one wins a component only with a strictly
		// greater score; the winner is kept as its vector number. A slot
		// past the row holds padding (score 0, index PAD_INDEX), which no
		// count below takes in.
		uint gs[LANE_GROUPS], gi[LANE_GROUPS];
		[[unroll]] for (uint q = 0u; q < LANE_GROUPS; q++) {
			uint g = t + q * WG;
			uint va = min(g * gv, nv), vz = min(va + gv, nv);
			uvec4 b4 = uvec4(0u);
			uvec4 bv = uvec4(va);
			for (uint v = va; v < vz; v++) {
				uvec4 s4 = score4(texelFetch(elem_srct, int(v0 + v)));
				bv = mix(bv, uvec4(v), greaterThan(s4, b4));
				b4 = max(b4, s4);
			}
			uint bs = b4.x, bi = mid + 4u * bv.x;
			[[unroll]] for (uint c = 1u; c < 4u; c++) {
				uint i = mid + 4u * bv[c] + c;
				bool take = b4[c] > bs || (b4[c] == bs && i < bi);
				bs = take ? b4[c] : bs;
				bi = take ? i : bi;
			}
			gs[q] = g < ng ? bs : 0u;
			gi[q] = g < ng ? bi : PAD_INDEX;
		}

		// 2. T = (ts, ti), the K-th best of the group bests.
		uint p = 0u;
		uint ts = 0u, ti = 0u;
		BISECT(FOR_SLOTS, gs[q], gi[q], K, true, ts, ti)

		// 3. Gather: the lane's groups at or before T as bits, then one
		// loop trip a set bit, and in a group one a position that is
		// (lavapipe runs a loop's trips only while some lane needs one,
		// where an if's body would run for every group).
		[[unroll]] for (uint w = 0u; w < LANE_GROUPS / 32u; w++) {
			uint gmask = 0u;
			[[unroll]] for (uint q = 0u; q < 32u; q++) {
				gmask |= uint(at_or_before(gs[32u * w + q], gi[32u * w + q], ts, ti)) << q;
			}
			while (gmask != 0u) {
				uint q = 32u * w + uint(findLSB(gmask));
				gmask &= gmask - 1u;
				uint va = (t + q * WG) * gv, vz = min(va + gv, nv);
				for (uint v = va; v < vz; v++) {
					uvec4 s4 = score4(texelFetch(elem_srct, int(v0 + v)));
					uvec4 j4 = mid + 4u * v + uvec4(0u, 1u, 2u, 3u);
					bvec4 at = bvec4(uvec4(greaterThan(s4, uvec4(ts))) | (uvec4(equal(s4, uvec4(ts))) & uvec4(lessThanEqual(j4, uvec4(ti)))));
					uint emask = uint(at.x) | uint(at.y) << 1 | uint(at.z) << 2 | uint(at.w) << 3;
					while (emask != 0u) {
						uint e = uint(findLSB(emask));
						emask &= emask - 1u;
						APPEND(sh_ncand, sh_cs, sh_ci, CAND_MAX, s4[e], j4[e])
					}
				}
			}
		}
		uint tail0 = mid + 4u * nv;
		for (uint q = t; q < mid + (N - tail0); q += WG) {
			uint j = q < mid ? q : tail0 + (q - mid);
			uint s = score(elem_load(pc.base_src, kin + j - pc.in_win)).x;
			if (at_or_before(s, j, ts, ti)) {
				APPEND(sh_ncand, sh_cs, sh_ci, CAND_MAX, s, j)
			}
		}
		barrier();

		// 4. More than RANK_MAX gathered (rows of few distinct values,
		// or sorted ones): T moves to the K-th best of them, which leaves
		// K. Then the entries at or before T go to the ranking's arrays.
		uint nc = min(sh_ncand, CAND_MAX);
		BISECT(FOR_GATHERED, sh_cs[q], sh_ci[q], K, nc > RANK_MAX, ts, ti)
		for (uint q = t; q < nc; q += WG) {
			if (at_or_before(sh_cs[q], sh_ci[q], ts, ti)) {
				APPEND(sh_nrank, sh_rs, sh_ri, RANK_MAX, sh_cs[q], sh_ci[q])
			}
		}
		barrier();

		// 5. Ranks.
		uint nr = min(sh_nrank, RANK_MAX);
		for (uint e = t; e < nr; e += WG) {
			uint s = sh_rs[e], i = sh_ri[e];
			uint r = 0u;
			for (uint q = 0u; q < nr; q++) {
				uint sq = sh_rs[q];
				r += uint(sq > s || (sq == s && sh_ri[q] < i));
			}
			if (r < K) {
				store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, r, i);
			}
		}
		// The next row reuses the shared entries.
		barrier();
	}
}
