#version 450
// topk_rank.comp: the split radix select's ordering (topk_split.glsl),
// one row a workgroup. For the rows in state want, the positions of the
// texels topk_gather.comp kept that pass the row's threshold (ts, tj) are
// put in shared memory, and each lane ranks RANK_OWN of them at a time
// (in registers) by counting the entries that come before each, reading
// every entry once in the same order as every other lane; the ranks are a
// permutation (a strict total order), so the best K are written without
// a sort. A row whose regions overflowed, or with fewer than K or more
// than SPLIT_SORT_MAX passing entries, is marked ROW_FAILED instead, with
// the threshold's score as its floor where at least K entries reach it.

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

const uint RANK_OWN = 8u;

// The buckets of bucket_rank: the passing entries' scores (all at least
// the threshold's ts) cut into RANK_BUCKETS equal ranges of (s - ts) >>
// shift, the best last; a bucket's count, its first slot in sh_order
// (the entries of the better buckets before it) and its next free slot.
const uint RANK_BUCKETS = 256u;
// BUCKET_MAX: a walked bucket's most entries, which bounds a lane's walk
// (ops topKSplitIters: at most SPLIT_SORT_MAX / 64 entries a lane, each a
// walk of BUCKET_MAX, under the full ranking's SPLIT_SORT_MAX / 512
// sweeps of SPLIT_SORT_MAX). 256 and not 64: on normal rows the buckets
// next to the threshold hold about 50 (K = 1024) to 100 (K = 2048)
// entries at 256 buckets, and one over 64 sent the row to the full
// ranking (lavapipe 128x256000 K = 2048: 250 against 125 ms a run).
const uint BUCKET_MAX = 256u;
shared uint sh_bcount[RANK_BUCKETS];
shared uint sh_bstart[RANK_BUCKETS];
shared uint sh_bfill[RANK_BUCKETS];
// sh_order: the entries' numbers in bucket order, two 16-bit slots a word
// (SPLIT_SORT_MAX < 65536): at 32-bit slots the scores, positions and
// order of SPLIT_SORT_MAX entries would not fit lavapipe's 32 KiB of
// shared memory beside the buckets (K = 2048 needs K and its sample's
// margin, about 2,460 entries at every 8th texel).
shared uint sh_order[(SPLIT_SORT_MAX + 1u) / 2u];
shared uint sh_smax;
shared uint sh_most;
shared uint sh_pend;

// order_at is the entry number in bucket-order slot p.
uint order_at(uint p) { return (sh_order[p >> 1u] >> (16u * (p & 1u))) & 0xFFFFu; }

// bucket_rank writes the best kk of the cnt passing entries in order, as
// the ranking below does, but counts for each entry only the entries of
// its own bucket: its rank is the entries of the better buckets plus
// those of its own that come before it, about cnt * cnt / RANK_BUCKETS
// compares where the ranking makes cnt * cnt (lavapipe: 128x256000
// K=1024, about 1330 entries a row), and ranks only the entries of the
// buckets that start before order position kk (the others rank kk or
// later). It returns false, having written nothing, when one of those
// buckets holds more than BUCKET_MAX entries (ties, or scores bunched at
// one end of the range); the caller then ranks them all.
bool bucket_rank(uint kin, uint kv, uint kx, uint kk, uint cnt, uint ts) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	if (t == 0u) {
		sh_smax = 0u;
		sh_most = 0u;
	}
	for (uint b = t; b < RANK_BUCKETS; b += WG) {
		sh_bcount[b] = 0u;
	}
	for (uint w = t; w < (cnt + 1u) / 2u; w += WG) {
		sh_order[w] = 0u;
	}
	barrier();
	for (uint e = t; e < cnt; e += WG) {
		atomicMax(sh_smax, sh_s[e]);
	}
	barrier();
	uint d = sh_smax - ts;
	uint shift = d < RANK_BUCKETS ? 0u : uint(findMSB(d)) - 7u;
	for (uint e = t; e < cnt; e += WG) {
		atomicAdd(sh_bcount[(sh_s[e] - ts) >> shift], 1u);
	}
	barrier();
	if (t == 0u) {
		// pend: the end of the last bucket that starts before order
		// position kk (kk <= cnt): the entries after it rank kk or
		// later; most: the largest of the buckets before it.
		uint acc = 0u, most = 0u, pend = 0u;
		for (uint b = RANK_BUCKETS; b > 0u; b--) {
			uint c = sh_bcount[b - 1u];
			sh_bstart[b - 1u] = acc;
			sh_bfill[b - 1u] = acc;
			acc += c;
			if (acc - c < kk) {
				// A bucket that is walked: it starts before kk.
				most = max(most, c);
				pend = acc;
			}
		}
		sh_most = most;
		sh_pend = pend;
	}
	barrier();
	// Uniform: every lane reads it after the barrier.
	if (sh_most > BUCKET_MAX) {
		return false;
	}
	for (uint e = t; e < cnt; e += WG) {
		uint p = atomicAdd(sh_bfill[(sh_s[e] - ts) >> shift], 1u);
		atomicOr(sh_order[p >> 1u], e << (16u * (p & 1u)));
	}
	barrier();
	// Only the entries of the buckets before pend can rank below kk:
	// they are taken in order position (the lanes of a SIMD row then
	// walk the same bucket, or neighbouring ones, of about equal length,
	// rather than eight buckets drawn at random from the whole range).
	// Uniform: every lane reads it after the barrier.
	uint pend = sh_pend;
	for (uint p = t; p < pend; p += WG) {
		uint e = order_at(p);
		uvec2 s = uvec2(sh_s[e], 0u);
		uint i = sh_i[e];
		uint b = (s.x - ts) >> shift;
		uint f0 = sh_bstart[b], fe = f0 + sh_bcount[b], r = f0;
		for (uint f = f0; f < fe; f++) {
			uint o = order_at(f);
			r += better(uvec2(sh_s[o], 0u), sh_i[o], s, i) ? 1u : 0u;
		}
		if (r < kk) {
			store_result(pc.base_src, pc.base_v, pc.base_x, kin, kv, kx, pc.in_win, pc.v_win, pc.x_win, r, i);
		}
	}
	return true;
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
	if (rows_buf.x[row + ST_STATE] != pc.want) {
		return;
	}
	uint ts = rows_buf.x[row + ST_TS], tj = rows_buf.x[row + ST_TJ];
	uint e0 = split_e0(kin);
	uint kk = min(K, N);
	if (t == 0u) {
		sh_count = 0u;
	}
	barrier();
	bool over = false;
	for (uint g = 0u; g < pc.gw; g++) {
		uint c = rows_buf.x[row + ST_COUNT + g];
		over = over || c > pc.cap;
		uint reg = row + ST_REGION + g * pc.cap;
		for (uint e = t; e < min(c, pc.cap); e += WG) {
			uint v = rows_buf.x[reg + e];
			uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
			[[unroll]] for (uint q = 0u; q < 4u; q++) {
				uint j = 4u * v + q - e0;
				if (j < N && split_passes(s4[q], j, ts, tj)) {
					uint x = atomicAdd(sh_count, 1u);
					if (x < SPLIT_SORT_MAX) {
						sh_s[x] = s4[q];
						sh_i[x] = j;
					}
				}
			}
		}
	}
	barrier();
	// Uniform: every lane reads the count after the barrier.
	uint cnt = sh_count;
	if (over || cnt < kk || cnt > SPLIT_SORT_MAX) {
		if (t == 0u) {
			rows_buf.x[row + ST_FLOOR] = cnt >= kk ? ts : 0u;
			rows_buf.x[row + ST_STATE] = ROW_FAILED;
		}
		return;
	}
	if (bucket_rank(kin, kv, kx, kk, cnt, ts)) {
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
