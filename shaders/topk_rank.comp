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
