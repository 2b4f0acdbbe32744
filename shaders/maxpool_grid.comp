#version 450
// maxpool_grid.comp: MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 (semantics.md
// rules 7-11) for GPUs: maxpool.comp's rules with a 3D grid instead of its
// grid-stride loop and div/mod chain. One invocation per output: x covers
// the output columns, y the output rows (D·H), z the step's (n, c) planes;
// a workgroup of WG lanes is a tile of WGX columns by WG / WGX rows, so
// that the host can make the grid exact (no empty lane) for any output
// width. Consecutive lanes take consecutive columns, so neighbouring
// lanes read and write neighbours in memory.
//
// Rule 9, exactly, as in maxpool.comp: the running best starts at the
// type's lowest finite value (for FLOAT16 just below it), or at −∞ where
// the host sets KIND's NEG_INF_START bit (rule 7a), with the index of the
// first in-bounds tap; taps are visited in row-major window order and
// replace the best only when strictly greater; padding taps are never
// visited. Values are compared through a signed order key that costs a
// few integer operations (grid_key), never as floats, so that the result
// does not depend on the device's denormal handling: −0 and +0 share a
// key, every NaN's key is below −∞'s, and −∞'s below the start, so
// neither is ever selected.
//
// An interior window's taps are at constant offsets from its first tap:
// the kernel forms one address per output and selects the winning tap's
// offset, a constant, from which the index follows at the end.
//
// Defines: ELEM_BITS, NATIVE and PRELOAD as in maxpool.comp; IDX_BITS 0, 32
// or 64 (UINT64 indices are one 8-byte store each: the flat index, then 0).

#if PRELOAD
#extension GL_EXT_control_flow_attributes : require
#endif

#define ELEM_SRC 0
#define ELEM_DST 1
#if IDX_BITS == 32
#define WORD_DST 2
#elif IDX_BITS == 64
#define WORD_DST2 2
#endif
#include "elem.glsl"
#include "common.glsl"

// The shape, as in maxpool.comp (constant ids 1-30).
layout(constant_id = 1) const uint ID = 1;
layout(constant_id = 2) const uint IH = 1;
layout(constant_id = 3) const uint IW = 1;
layout(constant_id = 4) const uint OD = 1;
layout(constant_id = 5) const uint OH = 1;
layout(constant_id = 6) const uint OW = 1;
layout(constant_id = 7) const uint KD = 1;
layout(constant_id = 8) const uint KH = 1;
layout(constant_id = 9) const uint KW = 1;
layout(constant_id = 10) const uint SD = 1;
layout(constant_id = 11) const uint SH = 1;
layout(constant_id = 12) const uint SW = 1;
layout(constant_id = 13) const uint DD = 1;
layout(constant_id = 14) const uint DH = 1;
layout(constant_id = 15) const uint DW = 1;
layout(constant_id = 16) const int PD = 0;
layout(constant_id = 17) const int PH = 0;
layout(constant_id = 18) const int PW = 0;
layout(constant_id = 19) const uint IN_SN = 0;
layout(constant_id = 20) const uint IN_SC = 0;
layout(constant_id = 21) const uint IN_SD = 0;
layout(constant_id = 22) const uint IN_SH = 0;
layout(constant_id = 23) const uint IN_SW = 0;
layout(constant_id = 24) const uint OUT_SN = 0;
layout(constant_id = 25) const uint OUT_SC = 0;
layout(constant_id = 26) const uint OUT_SD = 0;
layout(constant_id = 27) const uint OUT_SH = 0;
layout(constant_id = 28) const uint OUT_SW = 0;
// Planes (N·C) a step's local plane number is split by: local plane p is
// batch p / CSTEP, channel p % CSTEP of the step's window; 0 when every
// tensor's planes are evenly spaced (batch stride = C · channel stride),
// so that p is a channel of batch 0 and needs no division.
layout(constant_id = 29) const uint CSTEP = 1;
// The element kind (bits 0-1) and bit 2, NEG_INF_START, as in
// maxpool.comp.
layout(constant_id = 30) const uint KIND = KIND_UNSIGNED;
const uint ELEM_KIND = KIND & 3u;
const bool NEG_INF_START = (KIND & 4u) != 0u;
// The tile: WGX columns by WG / WGX rows.
layout(constant_id = 31) const uint WGX = 1;
// The indices tensor's strides (N, C, D, H, W).
layout(constant_id = 32) const uint IDX_SN = 0;
layout(constant_id = 33) const uint IDX_SC = 0;
layout(constant_id = 34) const uint IDX_SD = 0;
layout(constant_id = 35) const uint IDX_SH = 0;
layout(constant_id = 36) const uint IDX_SW = 0;

const uint PLANE = ID * IH * IW; // input elements per (n, c) plane
const uint WGY = gl_WorkGroupSize.x / WGX;
// The dilated window's extent along each axis, and whether a window can
// lie wholly inside the input at all.
const uint SPAN_D = (KD - 1u) * DD + 1u, SPAN_H = (KH - 1u) * DH + 1u, SPAN_W = (KW - 1u) * DW + 1u;
const bool FITS = SPAN_D <= ID && SPAN_H <= IH && SPAN_W <= IW;

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_out; // words
#if IDX_BITS
	uint base_idx; // words (even for UINT64 indices)
#endif
	uint plane0;   // global plane number (n·C + c) of the step's first plane
	uint p0;       // the dispatch's first plane, local to the step
	uint r0;       // the dispatch's first output row (od·OH + oh)
	uint in_e0;    // element offset of the step's first plane in the input binding
	uint out_e0;   // ... in the output binding
	uint idx_e0;   // ... in the indices binding
} pc;

// RAW is one element's raw bits; KEY its order key; both two words for
// 64-bit elements (integers only).
#if ELEM_BITS == 64
#define RAW uvec2
#define KEY uvec2
#define KEY_GT(a, b) key_gt(a, b)
#else
#define RAW uint
#define KEY int
#define KEY_GT(a, b) ((a) > (b))
#endif

// grid_key is the order key of raw bits: a signed integer with the
// values' order. Floats: a magnitude m becomes m or −m, offset by
// (2^31−1) − key(+∞), so that +∞ takes the largest key and the positive
// NaNs (magnitudes above ∞'s) wrap to the smallest; negative NaNs fall
// below −∞ without wrapping. ±0 share one key. Signed integers are their
// own key (sign-extended); unsigned ones have their sign bit flipped at
// 32 bits and are their own key below.
#if ELEM_BITS == 64
KEY grid_key(RAW v) { return elem_key2(v, ELEM_KIND); }
#else
const int KEY_OFF = ELEM_BITS == 32 ? 0x7FFFFF : ELEM_BITS == 16 ? 0x7FFF83FF : 0;
KEY grid_key(RAW v) {
#if ELEM_BITS == 32
	int i = int(v);
#else
	int i = bitfieldExtract(int(v), 0, ELEM_BITS);
#endif
	if (ELEM_KIND == KIND_FLOAT) {
		// Both arms, then a select (mix with a bool selector): no branch.
		int neg = (KEY_OFF - int(ELEM_SIGN)) - i, pos = i + KEY_OFF;
		return mix(pos, neg, i < 0);
	}
	if (ELEM_KIND == KIND_SIGNED) {
		return i;
	}
	return ELEM_BITS == 32 ? int(v ^ 0x80000000u) : int(v);
}
#endif

// The running best: its key, its raw bits and its flat index (its
// offset from the window's first tap, in the interior).
KEY best_key;
RAW best_bits;
uint best_idx;

void reset() {
#if ELEM_BITS == 64
	best_bits = elem_lowest(ELEM_KIND);
#else
	// -inf: the sign and infinity's magnitude (maxpool.comp's reset).
	best_bits = NEG_INF_START ? ELEM_SIGN | ELEM_INF : elem_lowest(ELEM_KIND).x;
#endif
	best_key = grid_key(best_bits);
#if ELEM_BITS == 16
	// DirectML compares FLOAT16 in 32-bit floats from -FLT_MAX: -65504
	// beats the start, -inf does not (maxpool.comp's reset). One below
	// -65504's key is -inf's.
	if (ELEM_KIND == KIND_FLOAT && !NEG_INF_START) {
		best_key -= 1;
	}
#endif
}

// offer offers a tap's raw bits v with index i.
void offer(RAW v, uint i) {
	KEY k = grid_key(v);
	if (KEY_GT(k, best_key)) {
		best_key = k;
		best_bits = v;
		best_idx = i;
	}
}

// src_addr is the address of input element e (relative to the binding's
// base offset) that load_at adds a tap's offset to.
#if ELEM_SUBWORD
uint src_addr(uint e) { return e; }
RAW load_at(uint a, uint off) { return elem_load(pc.base_in, a + off).x; }
#elif ELEM_BITS == 64
uint src_addr(uint e) { return pc.base_in + 2u * e; }
RAW load_at(uint a, uint off) { return uvec2(elem_src.x[a + 2u * off], elem_src.x[a + 2u * off + 1u]); }
#elif ELEM_BITS == 32
uint src_addr(uint e) { return pc.base_in + e; }
RAW load_at(uint a, uint off) { return elem_src.x[a + off]; }
#else
uint src_addr(uint e) { return pc.base_in * ELEM_PER_WORD + e; }
RAW load_at(uint a, uint off) { return uint(elem_src.x[a + off]); }
#endif

// axis gives the in-bounds taps [lo, hi) of one spatial axis for a window
// starting at input position start: positions start + k·dil in [0, len).
uvec2 axis(int start, uint k, uint dil, uint len) {
	uint lo = start < 0 ? (uint(-start) + dil - 1u) / dil : 0u;
	uint hi = start >= int(len) ? 0u : min(k, uint(int(len) - 1 - start) / dil + 1u);
	return uvec2(lo, max(lo, hi));
}

// The input offset and the index offset of tap (kd, kh, kw) of an
// interior window from its first tap.
#define TAP_IN(kd, kh, kw) ((kd) * (DD * IN_SD) + (kh) * (DH * IN_SH) + (kw) * (DW * IN_SW))
#define TAP_IDX(kd, kh, kw) (((kd) * (DD * IH) + (kh) * DH) * IW + (kw) * DW)

void main() {
	// A lane past the last column or row (the host keeps them within 1%
	// of the lanes) computes the last one again and stores what its owner
	// stores, rather than branching around the work.
	uint lane = gl_LocalInvocationID.x;
	uint ow = min(gl_WorkGroupID.x * WGX + lane % WGX, OW - 1u);
	uint r = min(pc.r0 + gl_WorkGroupID.y * WGY + lane / WGX, OD * OH - 1u);
	{
		uint p = pc.p0 + gl_WorkGroupID.z; // the step's local plane
		uint od = OD == 1u ? 0u : r / OH, oh = OD == 1u ? r : r % OH;
		uint nl = CSTEP == 0u ? 0u : p / CSTEP, cl = CSTEP == 0u ? p : p % CSTEP;

		uint in_plane = pc.in_e0 + nl * IN_SN + cl * IN_SC;
		uint idx_plane = (pc.plane0 + p) * PLANE;
		int sd = int(od * SD) - PD, sh = int(oh * SH) - PH, sw = int(ow * SW) - PW;

		reset();
		// A negative start is a huge unsigned one: one comparison per axis.
		if (FITS && all(lessThanEqual(uvec3(sd, sh, sw), uvec3(ID - SPAN_D, IH - SPAN_H, IW - SPAN_W)))) {
			// Interior: every tap is in bounds; the index is the first
			// tap's plus the winner's offset.
			uint a = src_addr(in_plane + uint(sd) * IN_SD + uint(sh) * IN_SH + uint(sw) * IN_SW);
			best_idx = 0u;
#if PRELOAD
			// Loads first, then the taps in row-major window order.
			RAW taps[KD * KH * KW];
			[[unroll]] for (uint kd = 0u, t = 0u; kd < KD; kd++) {
				[[unroll]] for (uint kh = 0u; kh < KH; kh++) {
					[[unroll]] for (uint kw = 0u; kw < KW; kw++, t++) {
						taps[t] = load_at(a, TAP_IN(kd, kh, kw));
					}
				}
			}
			[[unroll]] for (uint kd = 0u, t = 0u; kd < KD; kd++) {
				[[unroll]] for (uint kh = 0u; kh < KH; kh++) {
					[[unroll]] for (uint kw = 0u; kw < KW; kw++, t++) {
						offer(taps[t], TAP_IDX(kd, kh, kw));
					}
				}
			}
#else
			for (uint kd = 0u; kd < KD; kd++) {
				for (uint kh = 0u; kh < KH; kh++) {
					for (uint kw = 0u; kw < KW; kw++) {
						offer(load_at(a, TAP_IN(kd, kh, kw)), TAP_IDX(kd, kh, kw));
					}
				}
			}
#endif
			best_idx += idx_plane + (uint(sd) * IH + uint(sh)) * IW + uint(sw);
		} else {
			// Border: only the in-bounds taps are visited; a window of
			// padding only keeps the start value and index 0 (rule 9).
			uvec2 rd = axis(sd, KD, DD, ID), rh = axis(sh, KH, DH, IH), rw = axis(sw, KW, DW, IW);
			best_idx = 0u;
			if (rd.x < rd.y && rh.x < rh.y && rw.x < rw.y) {
				best_idx = idx_plane + (uint(sd + int(rd.x * DD)) * IH + uint(sh + int(rh.x * DH))) * IW + uint(sw + int(rw.x * DW));
				for (uint kd = rd.x; kd < rd.y; kd++) {
					uint pd = uint(sd + int(kd * DD));
					for (uint kh = rh.x; kh < rh.y; kh++) {
						uint ph = uint(sh + int(kh * DH));
						for (uint kw = rw.x; kw < rw.y; kw++) {
							uint pw = uint(sw + int(kw * DW));
							offer(load_at(src_addr(in_plane), pd * IN_SD + ph * IN_SH + pw * IN_SW), idx_plane + (pd * IH + ph) * IW + pw);
						}
					}
				}
			}
		}

		uint e = pc.out_e0 + nl * OUT_SN + cl * OUT_SC + od * OUT_SD + oh * OUT_SH + ow * OUT_SW;
#if ELEM_BITS == 64
		elem_store(pc.base_out, e, best_bits);
#else
		elem_store(pc.base_out, e, uvec2(best_bits, 0u));
#endif
#if IDX_BITS
		e = pc.idx_e0 + nl * IDX_SN + cl * IDX_SC + od * IDX_SD + oh * IDX_SH + ow * IDX_SW;
#if IDX_BITS == 64
		word_dst2.x[pc.base_idx / 2u + e] = uvec2(best_idx, 0u);
#else
		word_dst.x[pc.base_idx + e] = best_idx;
#endif
#endif
	}
}
