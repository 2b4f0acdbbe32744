#version 450
// topk_maxima.comp (strategy maxima): TOP_K / TOP_K1 of short rows of
// 32-bit elements of input stride 1, read through a uniform texel buffer
// (the CPU class's plans for a few rows of up to ~64K positions and small
// K). One workgroup per row, of one full subgroup, writes the row's
// results in one dispatch:
//
//   1. The row's aligned middle is cut into groups of GV 16-byte vectors;
//      each group's best score goes to a register slot of its lane (LG
//      slots): a max of signed scores, no positions.
//   2. T, a threshold that at least K and at most KC group bests reach,
//      by bisection of the score's bits, stopping at the first trial in
//      that window (on random rows after ~13 of the 32); where none is
//      (ties), T goes on to the K-th best of the group bests (topk.glsl's
//      order: score descending, then index ascending), the index's bits
//      too, the tied groups' best positions read again.
//   3. The entries at or before T in the order are gathered: only the
//      groups whose best is, and the unaligned head and tail.
//   4. Where more than RANK_MAX were gathered (ties, sorted rows), T
//      moves to the K-th best of them by the same bisection, and the
//      entries at or before it move to the front.
//   5. Each one's rank among them is counted; ranks below K are written
//      (store_result: the input's bits, the index).
//
// Why it is exact: the order is a strict total order; at least K group
// bests are at or before T, so the row's K-th entry is too, every one of
// the row's first K entries is gathered, and they are the gathered
// entries' first K. How many are gathered: only groups whose best is at
// or before T hold such entries; stopped in the window, at most KC
// groups' 4 GV positions, with the head's and tail's at most 3 each (KC
// is at most (CAND_MAX - 6) / (4 GV)); at the K-th best group best, the
// K - 1 groups before it and T itself. The planner keeps (K - 1) 4 GV +
// 7 within CAND_MAX, K within RANK_MAX, at least K groups in the row and
// at most LANE_GROUPS a lane (ops/topk_plan.go topKMaximaGroupVecs).
//
// Why this shape on lavapipe: llvmpipe runs an if's body, and a loop's
// first trip, for the whole SIMD row whether or not a lane takes it, so
// a kernel pays for every path it carries (topk_select.comp's radix
// strategy: ~0.1 ms a workgroup before it reads anything). Here the scan
// is loads and a max; the bisection counts registers; the
// gather's and step 4's rarely needed work sits in loops whose trips
// run only while a lane needs one (one masked trip otherwise). The
// workgroup is one subgroup (the host requires full subgroups of the
// workgroup's size; lavapipe's is its SIMD row): a count of a trial is
// subgroupAdd, with no shared memory or barrier, and the few exchanges
// through shared memory need only the subgroup's barrier. Each
// workgroup barrier switches between lavapipe's per-subgroup coroutines:
// 8x32000 K=17 took 0.55, 0.82, 1.4 and 2.6 ms with 32, 64, 128 and 256
// lanes (2026-11-28, load 12). Where the time of 8x32000 K=50 went
// (lavapipe, one thread, 8 rows, 2026-11-28, scratch builds stopping
// after each step): 0.025 ms the dispatch, 0.195 the scan (0.065 of it
// the texel fetches, the rest the scores, compares and selects of the
// best and its position: now a signed max, ~0.14), 0.135 the bisection
// of all 48 bits with a shared tally a trial (now ~0.025: the window,
// subgroupAdd), 0.04 the gather, 0.05 step 4 not taken and 0.1 the
// ranking from shared memory, a lane's entries one at a time (now
// ~0.035: 8 entries a lane in registers against each gathered one, a
// load of both its words).

#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if !defined(SUBGROUP) || !SUBGROUP
// The variant table's SUBGROUP=1 says what the module declares: the
// trials' counts are subgroup arithmetic (shaders_test.go
// TestVariantCapabilities holds every variant to its defines).
#error topk_maxima.comp counts through subgroup arithmetic: its variants define SUBGROUP=1
#endif

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

// GV: 16-byte vectors a group (step 1; the planner's
// topKMaximaGroupVecs).
layout(constant_id = 35) const uint GV = 1u;

layout(push_constant) uniform Push {
	uint base_src; // words
	uint base_v;   // words: the values
	uint base_x;   // words: the indices
	uint r_begin;  // first row of this step
	uint r_count;  // rows in this step
	uint in_win;   // element offset of the input window
	uint v_win;    // element offset of the values window
	uint x_win;    // element offset of the indices window
} pc;

// LANE_GROUPS groups a lane at most (ops' shaders.TopKMaximaLaneGroups),
// CAND_MAX gathered entries (shaders.TopKMaximaCands), RANK_MAX entries
// ranked (shaders.TopKMaximaRanks).
const uint LANE_GROUPS = 128u;
const uint CAND_MAX = 3584u;
const uint RANK_MAX = 256u;
const uint WG = gl_WorkGroupSize.x;
// LG: a lane's groups (register slots) at most, whatever the row's head:
// its slots loops are unrolled to LG (constant once specialized), not to
// LANE_GROUPS (1024x1000: 32 slots of 128 at 8 lanes).
const uint LG_ROW = (((N >> 2) + GV - 1u) / GV + WG - 1u) / WG;
const uint LG = LG_ROW < LANE_GROUPS ? LG_ROW : LANE_GROUPS;
// KC: the most group bests at or before T where the bisection stops
// early (step 2): K and a quarter (fewer trials, a few more gathered),
// within the gather's bound; under K (never) where the bound leaves no
// room.
const uint KC_WANT = K + (K >> 2u);
const uint KC_FIT = (CAND_MAX - 6u) / (4u * GV);
const uint KC = KC_WANT < KC_FIT ? KC_WANT : KC_FIT;
// UNROLL: 16-byte vectors a trip of the scan (step 1).
const uint UNROLL = GV < 4u ? GV : 4u;
// RANK_SLOTS: entries a lane ranks at once, in registers (step 5).
const uint RANK_SLOTS = 8u;

shared uvec2 sh_c[CAND_MAX]; // gathered entries: score, index (one load each: lavapipe's shared loads run a lane at a time, all of a vector's words in its trip)
shared uint sh_ncand;

// score4 is score() of four elements (topk.glsl THE ORDER).
uvec4 score4(uvec4 raw) {
	uvec4 k = elem_key(raw, KIND);
	if (DECR == 0u) {
		k = ~k;
	}
	return mix(k, uvec4(0u), elem_is_nan(raw, KIND));
}

// sscore4 is score4 less 2^31, as signed integers (the same order by
// signed comparisons, one instruction each on the CPU, where an unsigned
// comparison is three): a float's sign-magnitude as two's complement
// (-0 and +0 both 0), a NaN the least (score 0).
ivec4 sscore4(uvec4 raw) {
	ivec4 r = ivec4(raw);
	ivec4 k = KIND == KIND_SIGNED ? r : r ^ ivec4(0x80000000);
	if (KIND == KIND_FLOAT) {
		ivec4 sgn = r >> 31, m = r & ivec4(0x7FFFFFFF);
		k = (m ^ sgn) - sgn;
	}
	if (DECR == 0u) {
		k = ~k;
	}
	if (KIND == KIND_FLOAT) {
		k = mix(k, ivec4(0x80000000), greaterThan(r & ivec4(0x7FFFFFFF), ivec4(ELEM_INF)));
	}
	return k;
}

// sync orders the subgroup's (the workgroup's) shared-memory accesses.
void sync() {
	subgroupMemoryBarrierShared();
	subgroupBarrier();
}

// at_or_before: does entry (s, i) come at or before (ts, ti) in the order?
bool at_or_before(uint s, uint i, uint ts, uint ti) { return s > ts || (s == ts && i <= ti); }

// BISECT sets (TS, TI) to the KK-th best of the entries (S, I) that
// FOR_ENTRIES(X) visits in the lanes (X run on each): TS the largest
// score that at least KK reach, then TI the largest index x such that
// fewer than KK entries come before (TS, x); while GO, which is uniform
// (false: one masked trip of each loop, TS and TI left as they are).
// Stopped early where STOP holds of the count c (at least KK entries at
// or above the score ts_, and few enough): TI then takes every index.
// BISECT_SCORE is the score's half, BISECT_INDEX the index's (go_ still
// true: not stopped), BISECT both.
#define BISECT_SCORE(FOR_ENTRIES, S, KK, GO, STOP)                             \
	uint ts_ = 0u, ti_ = 0u;                                                   \
	bool go_ = GO;                                                             \
	for (int b = 31; b >= 0 && go_; b--) {                                     \
		uint trial = ts_ | (1u << b), c = 0u;                                  \
		FOR_ENTRIES(c += uint(S >= trial);)                                    \
		c = subgroupAdd(c);                                                    \
		if (c >= KK) {                                                         \
			ts_ = trial;                                                       \
			go_ = !(STOP);                                                     \
		}                                                                      \
	}
#define BISECT_INDEX(FOR_ENTRIES, S, I, KK, GO, TS, TI)                        \
	for (int b = int(IB) - 1; b >= 0 && go_; b--) {                            \
		uint trial = ti_ | (1u << b), c = 0u;                                  \
		FOR_ENTRIES(c += uint(S > ts_ || (S == ts_ && I < trial));)            \
		if (subgroupAdd(c) < KK) {                                             \
			ti_ = trial;                                                       \
		}                                                                      \
	}                                                                          \
	if (GO) {                                                                  \
		TS = ts_;                                                              \
		TI = go_ ? ti_ : PAD_INDEX - 1u;                                       \
	}
#define BISECT(FOR_ENTRIES, S, I, KK, GO, STOP, TS, TI)                        \
	{                                                                          \
		BISECT_SCORE(FOR_ENTRIES, S, KK, GO, STOP)                             \
		BISECT_INDEX(FOR_ENTRIES, S, I, KK, GO, TS, TI)                        \
	}
#define FOR_SLOTS(X) [[unroll]] for (uint q = 0u; q < LG; q++) { X }
#define FOR_GATHERED(X) for (uint q = t; q < nc; q += WG) { uvec2 cq = sh_c[q]; X }

void main() {
	uint t = gl_LocalInvocationID.x;
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
		uint ng = (nv + GV - 1u) / GV;
		// (The previous row's last sync: every lane has read it.)
		if (t == 0u) {
			sh_ncand = 0u;
		}
		sync();

		// 1. Group bests' scores: lane t's groups t + q WG straight to
		// slot q (registers: the slots are unrolled, no shared round
		// trip, whose loads and stores lavapipe runs one lane at a time),
		// a max of signed scores, UNROLL vectors a trip (the last one
		// again where the group ends first: a max takes it twice the
		// same). A slot past the row holds padding (score 0, index
		// PAD_INDEX), which no count below takes in. Their indices only
		// where step 2 needs them (gi).
		uint gs[LANE_GROUPS], gi[LANE_GROUPS];
		[[unroll]] for (uint q = 0u; q < LG; q++) {
			uint g = t + q * WG;
			uint va = min(g * GV, nv), vz = min(va + GV, nv);
			ivec4 b4 = ivec4(0x80000000);
			for (uint v = va; v < vz; v += UNROLL) {
				[[unroll]] for (uint u = 0u; u < UNROLL; u++) {
					b4 = max(b4, sscore4(texelFetch(elem_srct, int(v0 + min(v + u, vz - 1u)))));
				}
			}
			int bs = max(max(b4.x, b4.y), max(b4.z, b4.w));
			gs[q] = g < ng ? uint(bs) ^ 0x80000000u : 0u;
			gi[q] = 0u;
		}

		// 2. T = (ts, ti): at least K group bests at or before it, at
		// most KC, or the K-th best of them. Where not stopped (ties at
		// ts), the index bisection needs the indices of the group bests
		// of score ts: each such group's first position of that score,
		// read again (a loop trip a group, as the gather's). (Groups do
		// not overlap, so a later position of the score would select the
		// same groups; the first keeps the gather within its bound. One
		// before it would lose entries: TestTopKMaximaThreshold.)
		uint ts = 0u, ti = 0u;
		{
			BISECT_SCORE(FOR_SLOTS, gs[q], K, true, c <= KC)
			[[unroll]] for (uint w = 0u; w < (LG + 31u) / 32u; w++) {
				uint tmask = 0u;
				[[unroll]] for (uint q = 0u; q < 32u; q++) {
					if (32u * w + q < LG) {
						tmask |= uint(go_ && gs[32u * w + q] == ts_) << q;
					}
				}
				while (tmask != 0u) {
					uint q = 32u * w + uint(findLSB(tmask));
					tmask &= tmask - 1u;
					uint va = min((t + q * WG) * GV, nv), vz = min(va + GV, nv);
					uint bi = PAD_INDEX;
					for (uint v = va; v < vz && bi == PAD_INDEX; v++) {
						bvec4 eq = equal(score4(texelFetch(elem_srct, int(v0 + v))), uvec4(ts_));
						uint j = mid + 4u * v;
						bi = eq.w ? j + 3u : bi;
						bi = eq.z ? j + 2u : bi;
						bi = eq.y ? j + 1u : bi;
						bi = eq.x ? j : bi;
					}
					gi[q] = bi;
				}
			}
			BISECT_INDEX(FOR_SLOTS, gs[q], gi[q], K, true, ts, ti)
		}

		// 3. Gather: the lane's groups at or before T as bits, then one
		// loop trip a set bit, and in a group one a position that is
		// (lavapipe runs a loop's trips only while some lane needs one,
		// where an if's body would run for every group).
		[[unroll]] for (uint w = 0u; w < (LG + 31u) / 32u; w++) {
			uint gmask = 0u;
			[[unroll]] for (uint q = 0u; q < 32u; q++) {
				if (32u * w + q < LG) {
					gmask |= uint(at_or_before(gs[32u * w + q], gi[32u * w + q], ts, ti)) << q;
				}
			}
			while (gmask != 0u) {
				uint q = 32u * w + uint(findLSB(gmask));
				gmask &= gmask - 1u;
				uint va = (t + q * WG) * GV, vz = min(va + GV, nv);
				for (uint v = va; v < vz; v++) {
					uvec4 s4 = score4(texelFetch(elem_srct, int(v0 + v)));
					uvec4 j4 = mid + 4u * v + uvec4(0u, 1u, 2u, 3u);
					bvec4 at = bvec4(uvec4(greaterThan(s4, uvec4(ts))) | (uvec4(equal(s4, uvec4(ts))) & uvec4(lessThanEqual(j4, uvec4(ti)))));
					uint emask = uint(at.x) | uint(at.y) << 1 | uint(at.z) << 2 | uint(at.w) << 3;
					while (emask != 0u) {
						uint e = uint(findLSB(emask));
						emask &= emask - 1u;
						uint o = atomicAdd(sh_ncand, 1u);
						if (o < CAND_MAX) {
							sh_c[o] = uvec2(s4[e], j4[e]);
						}
					}
				}
			}
		}
		uint tail0 = mid + 4u * nv;
		for (uint q = t; q < mid + (N - tail0); q += WG) {
			uint j = q < mid ? q : tail0 + (q - mid);
			uint s = score(elem_load(pc.base_src, kin + j - pc.in_win)).x;
			if (at_or_before(s, j, ts, ti)) {
				uint o = atomicAdd(sh_ncand, 1u);
				if (o < CAND_MAX) {
					sh_c[o] = uvec2(s, j);
				}
			}
		}
		sync();

		// 4. More than RANK_MAX gathered (rows of few distinct values,
		// or sorted ones): T moves to the K-th best of them, which leaves
		// K, and those move to the front, a subgroup's WG entries a trip
		// (each one's place at most its own: read before written).
		uint nc = min(sh_ncand, CAND_MAX);
		BISECT(FOR_GATHERED, cq.x, cq.y, K, nc > RANK_MAX, false, ts, ti)
		uint nr = nc > RANK_MAX ? 0u : nc;
		for (uint q0 = 0u; q0 < nc && nc > RANK_MAX; q0 += WG) {
			uint q = q0 + t;
			uvec2 cq = q < nc ? sh_c[q] : uvec2(0u, PAD_INDEX);
			bool keep = q < nc && at_or_before(cq.x, cq.y, ts, ti);
			uint o = nr + subgroupExclusiveAdd(uint(keep));
			nr += subgroupAdd(uint(keep));
			sync();
			if (keep) {
				sh_c[o] = cq;
			}
			sync();
		}

		// 5. Ranks: a lane's RANK_SLOTS entries j0 + t RANK_SLOTS + j in
		// registers, counted against each one's (lavapipe's shared loads
		// run a lane at a time: one a gathered entry, not one an entry
		// and a gathered one).
		for (uint j0 = 0u; j0 < nr; j0 += RANK_SLOTS * WG) {
			uint os[RANK_SLOTS], oi[RANK_SLOTS], orank[RANK_SLOTS];
			[[unroll]] for (uint j = 0u; j < RANK_SLOTS; j++) {
				uint e = j0 + t * RANK_SLOTS + j;
				uvec2 ce = e < nr ? sh_c[e] : uvec2(0u, PAD_INDEX);
				os[j] = ce.x;
				oi[j] = ce.y;
				orank[j] = 0u;
			}
			for (uint q = 0u; q < nr; q++) {
				uvec2 cq = sh_c[q];
				uint sq = cq.x, iq = cq.y;
				[[unroll]] for (uint j = 0u; j < RANK_SLOTS; j++) {
					orank[j] += uint(sq > os[j] || (sq == os[j] && iq < oi[j]));
				}
			}
			[[unroll]] for (uint j = 0u; j < RANK_SLOTS; j++) {
				if (j0 + t * RANK_SLOTS + j < nr && orank[j] < K) {
					store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, orank[j], oi[j]);
				}
			}
		}
		// The next row reuses the shared entries.
		sync();
	}
}
