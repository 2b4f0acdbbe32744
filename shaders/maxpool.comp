#version 450
// maxpool.comp: MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 (semantics.md
// rules 7-11). One invocation per output element, in a grid-stride loop;
// consecutive invocations take consecutive output W positions, so reads and
// writes of neighbouring invocations are neighbours in memory.
//
// The operator's shape (sizes, strides, window, dilation, padding) is given
// as specialization constants, so the driver folds the index arithmetic and
// unrolls the interior loop; only what changes between the steps of one
// operator (the window of planes a step covers) is in push constants.
//
// Rule 9, exactly: the running best starts at the type's lowest finite
// value (for FLOAT16, just below it: see reset), or at −∞ where the host
// sets KIND's NEG_INF_START bit (rule 7a's global window at extent 1),
// with the index of the first in-bounds tap (0 when there is none);
// taps are visited in row-major window order and replace the best only when
// strictly greater. Values are compared through elem.glsl's order-preserving
// key, never as floats, so the result does not depend on the device's
// denormal or NaN handling: −0 and +0 tie, NaN is never selectable, and −∞
// has a key below −FLT_MAX's and so is never selected either. 64-bit values
// are two 32-bit words (no shaderInt64), FLOAT16 is compared as bits (no
// shaderFloat16).
//
// Padding taps are never visited: each spatial axis's range of in-bounds
// taps is computed once per output, so there is no per-tap bounds check;
// when the whole window is inside the input (the interior), the loops have
// constant bounds.
//
// Defines:
//   ELEM_BITS  8, 16, 32 or 64: the width of the input and output elements;
//              their kind (unsigned, signed, float) is in the specialization
//              constant KIND, so one variant serves every type of a width
//   NATIVE     8/16-bit elements only: storage path, as in elem.glsl
//   IDX_BITS   0 (no indices), 32 (UINT32) or 64 (UINT64, written as two
//              words: the flat index, then 0; inputs have < 2^32 elements)
//   PRELOAD    1: an interior window's taps are all loaded before the
//              first is compared (the host picks it for windows of at most
//              16 taps), so that a lane has the whole window in flight
//              rather than one element: a GPU needs ~2 MiB in flight, and
//              one 4-byte tap per resident lane is 1 MiB on an H100

#if PRELOAD
#extension GL_EXT_control_flow_attributes : require
#endif

#define ELEM_SRC 0
#define ELEM_DST 1
#if IDX_BITS
#define WORD_DST 2
#endif
#include "elem.glsl"
#include "common.glsl"

// The shape. Axis order D, H, W; a 4D tensor has D = 1 (window 1, stride 1,
// dilation 1, padding 0). Strides are in elements.
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
// batch p / CSTEP, channel p % CSTEP of the step's window.
layout(constant_id = 29) const uint CSTEP = 1;
// Bits 0-1: the element kind, KIND_UNSIGNED, KIND_SIGNED or KIND_FLOAT
// (elem.glsl). Bit 2 (FLOAT16 and FLOAT32 only): the running best starts
// at −∞ instead of the lowest finite value (semantics.md rule 7a: DirectML
// runs the global window without indices at extent 1 as a reduction from
// −∞), so a window of only NaN and −∞ writes −∞.
layout(constant_id = 30) const uint KIND = KIND_UNSIGNED;
const uint ELEM_KIND = KIND & 3u;
const bool NEG_INF_START = (KIND & 4u) != 0u;

const uint PLANE = ID * IH * IW; // input elements per (n, c) plane

layout(push_constant) uniform Push {
	uint base_in;  // words
	uint base_out; // words
#if IDX_BITS
	uint base_idx; // words
#endif
	uint total;    // output elements this step
	uint plane0;   // global plane number (n·C + c) of the step's first plane
	uint in_e0;    // element offset of the step's first plane in the input binding
	uint out_e0;   // ... in the output binding
	uint idx_e0;   // ... in the indices binding
#if IDX_BITS
	// The indices tensor's strides (N, C, D, H, W).
	uint idx_sn, idx_sc, idx_sd, idx_sh, idx_sw;
#endif
} pc;

// The running best: its key, its raw bits and its flat index.
#if ELEM_BITS == 64
uvec2 best_key;
uvec2 best_bits;
#else
uint best_key;
uint best_bits;
#endif
uint best_idx;

void reset() {
#if ELEM_BITS == 64
	best_bits = elem_lowest(ELEM_KIND);
	best_key = elem_key2(best_bits, ELEM_KIND);
#else
	// -inf's bits are the sign and infinity's magnitude; its key is below
	// every finite value's and nothing strictly exceeds it but a finite
	// value or +inf (NaN is never offered).
	best_bits = NEG_INF_START ? ELEM_SIGN | ELEM_INF : elem_lowest(ELEM_KIND).x;
	best_key = elem_key(best_bits, ELEM_KIND);
#if ELEM_BITS == 16
	// DirectML compares FLOAT16 in 32-bit floats from -FLT_MAX: an element
	// of -65504 beats the start (and takes the index), -inf does not. One
	// below -65504's key is -inf's key, which nothing strictly exceeds
	// except a finite value. The bits written stay -65504's.
	if (ELEM_KIND == KIND_FLOAT && !NEG_INF_START) {
		best_key -= 1u;
	}
#endif
#endif
}

// RAW is one element's raw bits: two words for 64-bit elements.
#if ELEM_BITS == 64
#define RAW uvec2
#define LOAD_RAW(e) elem_load(pc.base_in, e)
#else
#define RAW uint
#define LOAD_RAW(e) elem_load(pc.base_in, e).x
#endif

// offer offers a tap's raw bits v with flat index i.
void offer(RAW v, uint i) {
#if ELEM_BITS == 64
	uvec2 k = elem_key2(v, ELEM_KIND);
	if (key_gt(k, best_key)) {
#else
	uint k = elem_key(v, ELEM_KIND);
	if (!elem_is_nan(v, ELEM_KIND) && k > best_key) {
#endif
		best_key = k;
		best_bits = v;
		best_idx = i;
	}
}

// visit offers the tap at input element offset e with flat index i.
void visit(uint e, uint i) { offer(LOAD_RAW(e), i); }

// axis gives the in-bounds taps [lo, hi) of one spatial axis for a window
// starting at input position start: positions start + k·dil in [0, len).
uvec2 axis(int start, uint k, uint dil, uint len) {
	uint lo = start < 0 ? (uint(-start) + dil - 1u) / dil : 0u;
	uint hi = start >= int(len) ? 0u : min(k, uint(int(len) - 1 - start) / dil + 1u);
	return uvec2(lo, max(lo, hi));
}

void main() {
	uint step = grid_size();
	for (uint i = grid_index(); i < pc.total; i += step) {
		uint ow = i % OW;
		uint r = i / OW;
		uint oh = r % OH;
		r /= OH;
		uint od = r % OD;
		uint p = r / OD; // the step's local plane
		uint nl = p / CSTEP, cl = p % CSTEP;

		uint in_plane = pc.in_e0 + nl * IN_SN + cl * IN_SC;
		uint idx_plane = (pc.plane0 + p) * PLANE;
		int sd = int(od * SD) - PD, sh = int(oh * SH) - PH, sw = int(ow * SW) - PW;
		uvec2 rd = axis(sd, KD, DD, ID), rh = axis(sh, KH, DH, IH), rw = axis(sw, KW, DW, IW);

		reset();
		best_idx = 0u;
		if (rd.x == 0u && rd.y == KD && rh.x == 0u && rh.y == KH && rw.x == 0u && rw.y == KW) {
			// Interior: every tap is in bounds.
			uint base = in_plane + uint(sd) * IN_SD + uint(sh) * IN_SH + uint(sw) * IN_SW;
			uint ibase = idx_plane + (uint(sd) * IH + uint(sh)) * IW + uint(sw);
			best_idx = ibase;
#if PRELOAD
			// Loads first, then the taps in row-major window order; the
			// loops unrolled (their bounds are constants), so that taps[]
			// lives in registers.
			RAW taps[KD * KH * KW];
			[[unroll]] for (uint kd = 0u, t = 0u; kd < KD; kd++) {
				[[unroll]] for (uint kh = 0u; kh < KH; kh++) {
					[[unroll]] for (uint kw = 0u; kw < KW; kw++, t++) {
						taps[t] = LOAD_RAW(base + kd * (DD * IN_SD) + kh * (DH * IN_SH) + kw * (DW * IN_SW));
					}
				}
			}
			[[unroll]] for (uint kd = 0u, t = 0u; kd < KD; kd++) {
				[[unroll]] for (uint kh = 0u; kh < KH; kh++) {
					[[unroll]] for (uint kw = 0u; kw < KW; kw++, t++) {
						offer(taps[t], ibase + (kd * (DD * IH) + kh * DH) * IW + kw * DW);
					}
				}
			}
#else
			for (uint kd = 0u; kd < KD; kd++) {
				for (uint kh = 0u; kh < KH; kh++) {
					for (uint kw = 0u; kw < KW; kw++) {
						visit(base + kd * (DD * IN_SD) + kh * (DH * IN_SH) + kw * (DW * IN_SW),
							ibase + (kd * (DD * IH) + kh * DH) * IW + kw * DW);
					}
				}
			}
#endif
		} else if (rd.x < rd.y && rh.x < rh.y && rw.x < rw.y) {
			// Border: only the in-bounds taps are visited.
			best_idx = idx_plane + (uint(sd + int(rd.x * DD)) * IH + uint(sh + int(rh.x * DH))) * IW + uint(sw + int(rw.x * DW));
			for (uint kd = rd.x; kd < rd.y; kd++) {
				uint pd = uint(sd + int(kd * DD));
				for (uint kh = rh.x; kh < rh.y; kh++) {
					uint ph = uint(sh + int(kh * DH));
					for (uint kw = rw.x; kw < rw.y; kw++) {
						uint pw = uint(sw + int(kw * DW));
						visit(in_plane + pd * IN_SD + ph * IN_SH + pw * IN_SW, idx_plane + (pd * IH + ph) * IW + pw);
					}
				}
			}
		}
		// else: the window is all padding: the start value, index 0.

		uint e = pc.out_e0 + nl * OUT_SN + cl * OUT_SC + od * OUT_SD + oh * OUT_SH + ow * OUT_SW;
#if ELEM_BITS == 64
		elem_store(pc.base_out, e, best_bits);
#else
		elem_store(pc.base_out, e, uvec2(best_bits, 0u));
#endif
#if IDX_BITS
		e = pc.idx_e0 + nl * pc.idx_sn + cl * pc.idx_sc + od * pc.idx_sd + oh * pc.idx_sh + ow * pc.idx_sw;
		store_index(pc.base_idx, e, best_idx, IDX_BITS == 64);
#endif
	}
}
