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
// value with the index of the first in-bounds tap (0 when there is none);
// taps are visited in row-major window order and replace the best only when
// strictly greater. Values are compared as integer keys, never as floats, so
// the result does not depend on the device's denormal or NaN handling:
//   float: key = ±magnitude bits (−0 and +0 both 0, so they tie), NaN (a
//          magnitude above infinity's) is never selectable; −∞ has a key
//          below −FLT_MAX's and so is never selected either;
//   signed integers: the sign-extended value; unsigned 32-bit: value ^ 2^31;
//   64-bit: (high word as a signed key, low word unsigned), two 32-bit
//          words, so no device feature (shaderInt64) is needed.
// FLOAT16 never needs shaderFloat16: its bits are compared as above.
//
// Padding taps are never visited: each spatial axis's range of in-bounds
// taps is computed once per output, so there is no per-tap bounds check;
// when the whole window is inside the input (the interior), the loops have
// constant bounds.
//
// Defines:
//   ELEM_TYPE  DML_TENSOR_DATA_TYPE of the input and output (1 FLOAT32,
//              2 FLOAT16, 3 UINT32, 4 UINT16, 5 UINT8, 6 INT32, 7 INT16,
//              8 INT8, 10 UINT64, 11 INT64)
//   NATIVE     8/16-bit types only. 1: 8/16-bit storage buffers; 0: 32-bit
//              words, with sub-word stores through atomicAnd/atomicOr so that
//              neighbouring elements, which other invocations own, are never
//              touched.
//   IDX_BITS   0 (no indices), 32 (UINT32) or 64 (UINT64, written as two
//              words: the flat index, then 0; inputs have < 2^32 elements)

#if ELEM_TYPE == 1 || ELEM_TYPE == 3 || ELEM_TYPE == 6
#define ELEM_BITS 32
#elif ELEM_TYPE == 2 || ELEM_TYPE == 4 || ELEM_TYPE == 7
#define ELEM_BITS 16
#elif ELEM_TYPE == 5 || ELEM_TYPE == 8
#define ELEM_BITS 8
#elif ELEM_TYPE == 10 || ELEM_TYPE == 11
#define ELEM_BITS 64
#else
#error unknown ELEM_TYPE
#endif

#if NATIVE && ELEM_BITS == 8
#extension GL_EXT_shader_8bit_storage : require
#elif NATIVE && ELEM_BITS == 16
#extension GL_EXT_shader_16bit_storage : require
#endif

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
	// The indices tensor's strides (N, C, D, H, W), here rather than in
	// specialization constants, of which the host passes at most 32.
	uint idx_sn, idx_sc, idx_sd, idx_sh, idx_sw;
#endif
} pc;

#if NATIVE && ELEM_BITS == 8
layout(std430, binding = 0) readonly buffer In { uint8_t x[]; } src;
layout(std430, binding = 1) writeonly buffer Out { uint8_t x[]; } dst;
#define SCALE 4u
#elif NATIVE && ELEM_BITS == 16
layout(std430, binding = 0) readonly buffer In { uint16_t x[]; } src;
layout(std430, binding = 1) writeonly buffer Out { uint16_t x[]; } dst;
#define SCALE 2u
#elif ELEM_BITS < 32
layout(std430, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, binding = 1) buffer Out { uint x[]; } dst;
#else
layout(std430, binding = 0) readonly buffer In { uint x[]; } src;
layout(std430, binding = 1) writeonly buffer Out { uint x[]; } dst;
#endif
#if IDX_BITS
layout(std430, binding = 2) writeonly buffer Idx { uint x[]; } idx;
#endif

#if ELEM_BITS < 32
const uint PER = 32u / ELEM_BITS;
const uint MASK = (1u << ELEM_BITS) - 1u;
#endif

// load returns the bits of the input element at element offset e.
#if ELEM_BITS == 64
uvec2 load(uint e) {
	uint w = pc.base_in + 2u * e;
	return uvec2(src.x[w], src.x[w + 1u]);
}
#elif ELEM_BITS == 32
uint load(uint e) { return src.x[pc.base_in + e]; }
#elif NATIVE
uint load(uint e) { return uint(src.x[pc.base_in * SCALE + e]); }
#else
uint load(uint e) {
	uint s = pc.base_in * PER + e;
	return (src.x[s / PER] >> ((s % PER) * ELEM_BITS)) & MASK;
}
#endif

// The running best.
#if ELEM_BITS == 64
int best_hi;   // key of the high word
uint best_lo;  // low word
#else
int best_key;
uint best_bits;
#endif
uint best_idx;

#if ELEM_TYPE == 1 // FLOAT32
const int LOWEST_KEY = -0x7f7fffff; // −FLT_MAX
const uint LOWEST_BITS = 0xff7fffffu;
bool key_of(uint b, out int k) {
	uint m = b & 0x7fffffffu;
	k = (b >> 31) != 0u ? -int(m) : int(m);
	return m <= 0x7f800000u; // not NaN
}
#elif ELEM_TYPE == 2 // FLOAT16
const int LOWEST_KEY = -0x7bff; // −65504
const uint LOWEST_BITS = 0xfbffu;
bool key_of(uint b, out int k) {
	uint m = b & 0x7fffu;
	k = (b & 0x8000u) != 0u ? -int(m) : int(m);
	return m <= 0x7c00u; // not NaN
}
#elif ELEM_TYPE == 3 // UINT32
const int LOWEST_KEY = int(0x80000000u);
const uint LOWEST_BITS = 0u;
bool key_of(uint b, out int k) { k = int(b ^ 0x80000000u); return true; }
#elif ELEM_TYPE == 4 || ELEM_TYPE == 5 // UINT16, UINT8
const int LOWEST_KEY = 0;
const uint LOWEST_BITS = 0u;
bool key_of(uint b, out int k) { k = int(b); return true; }
#elif ELEM_TYPE == 6 // INT32
const int LOWEST_KEY = int(0x80000000u);
const uint LOWEST_BITS = 0x80000000u;
bool key_of(uint b, out int k) { k = int(b); return true; }
#elif ELEM_TYPE == 7 // INT16
const int LOWEST_KEY = -32768;
const uint LOWEST_BITS = 0x8000u;
bool key_of(uint b, out int k) { k = int(b << 16) >> 16; return true; }
#elif ELEM_TYPE == 8 // INT8
const int LOWEST_KEY = -128;
const uint LOWEST_BITS = 0x80u;
bool key_of(uint b, out int k) { k = int(b << 24) >> 24; return true; }
#elif ELEM_TYPE == 10 // UINT64
const int LOWEST_HI = int(0x80000000u); // key of high word 0
int hi_key(uint hi) { return int(hi ^ 0x80000000u); }
uint hi_bits(int k) { return uint(k) ^ 0x80000000u; }
#elif ELEM_TYPE == 11 // INT64
const int LOWEST_HI = int(0x80000000u); // INT64_MIN: high word 0x80000000, low 0
int hi_key(uint hi) { return int(hi); }
uint hi_bits(int k) { return uint(k); }
#endif

void reset() {
#if ELEM_BITS == 64
	best_hi = LOWEST_HI;
	best_lo = 0u;
#else
	best_key = LOWEST_KEY;
	best_bits = LOWEST_BITS;
#endif
}

// visit offers the tap at input element offset e with flat index i.
void visit(uint e, uint i) {
#if ELEM_BITS == 64
	uvec2 v = load(e);
	int h = hi_key(v.y);
	if (h > best_hi || (h == best_hi && v.x > best_lo)) {
		best_hi = h;
		best_lo = v.x;
		best_idx = i;
	}
#else
	uint b = load(e);
	int k;
	if (key_of(b, k) && k > best_key) {
		best_key = k;
		best_bits = b;
		best_idx = i;
	}
#endif
}

// store writes the best value at output element offset e.
void store(uint e) {
#if ELEM_BITS == 64
	uint w = pc.base_out + 2u * e;
	dst.x[w] = best_lo;
	dst.x[w + 1u] = hi_bits(best_hi);
#elif ELEM_BITS == 32
	dst.x[pc.base_out + e] = best_bits;
#elif NATIVE && ELEM_BITS == 8
	dst.x[pc.base_out * SCALE + e] = uint8_t(best_bits);
#elif NATIVE && ELEM_BITS == 16
	dst.x[pc.base_out * SCALE + e] = uint16_t(best_bits);
#else
	uint t = pc.base_out * PER + e;
	uint sh = (t % PER) * ELEM_BITS;
	atomicAnd(dst.x[t / PER], ~(MASK << sh));
	atomicOr(dst.x[t / PER], best_bits << sh);
#endif
}

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
			for (uint kd = 0u; kd < KD; kd++) {
				for (uint kh = 0u; kh < KH; kh++) {
					for (uint kw = 0u; kw < KW; kw++) {
						visit(base + kd * (DD * IN_SD) + kh * (DH * IN_SH) + kw * (DW * IN_SW),
							ibase + (kd * (DD * IH) + kh * DH) * IW + kw * DW);
					}
				}
			}
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
		// else: the window is all padding: lowest finite value, index 0.

		store(pc.out_e0 + nl * OUT_SN + cl * OUT_SC + od * OUT_SD + oh * OUT_SH + ow * OUT_SW);
#if IDX_BITS
		uint e = pc.idx_e0 + nl * pc.idx_sn + cl * pc.idx_sc + od * pc.idx_sd + oh * pc.idx_sh + ow * pc.idx_sw;
#if IDX_BITS == 64
		idx.x[pc.base_idx + 2u * e] = best_idx;
		idx.x[pc.base_idx + 2u * e + 1u] = 0u;
#else
		idx.x[pc.base_idx + e] = best_idx;
#endif
#endif
	}
}
