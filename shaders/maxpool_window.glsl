// maxpool_window.glsl: what the direct max-pooling kernels (maxpool.comp,
// maxpool_grid.comp) share: the operator's shape as specialization
// constants, the order key, and the scan of one output's window (rule 9,
// semantics.md). Include it after elem.glsl and common.glsl; the kernel
// finds the output's coordinates and stores the result.
//
// Rule 9, exactly: the running best starts at the type's lowest finite
// value (for FLOAT16 just below it: see pool_reset), or at −∞ where the
// host sets KIND's NEG_INF_START bit (rule 7a's global window at extent
// 1), with the index of the first in-bounds tap (0 when there is none);
// taps are visited in row-major window order and replace the best only
// when strictly greater; padding taps are never visited. Values are
// compared through a signed order key (pool_key), never as floats, so the
// result does not depend on the device's denormal or NaN handling: −0 and
// +0 share a key, every NaN's key is below −∞'s, and −∞'s below the
// start, so neither is ever selected. Each loaded element's key is
// computed once, with NaN folded into it: a tap is a load, its key, one
// comparison and the selects of the best's key, bits and index.
//
// An interior window (wholly inside the input; one unsigned comparison
// per axis decides it) has its taps at constant offsets from its first
// tap: the scan forms one address per output, loads at constant offsets
// from it, and selects the winning tap's index offset, a constant, from
// which the flat index follows at the end. Only a border window works out
// each axis's range of in-bounds taps.
//
// Defines read: ELEM_BITS, NATIVE (elem.glsl) and PRELOAD: 1 loads an
// interior window's taps (the host picks it for windows of at most 16
// taps) before the first is compared, so that a lane has the whole window
// in flight rather than one element: a GPU needs ~2 MiB in flight, and
// one 4-byte tap per resident lane is 1 MiB on an H100.

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
// batch p / CSTEP, channel p % CSTEP of the step's window (maxpool_grid.comp:
// 0 when the planes are evenly spaced).
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
// The dilated window's extent along each axis, and whether a window can
// lie wholly inside the input at all.
const uint SPAN_D = (KD - 1u) * DD + 1u, SPAN_H = (KH - 1u) * DH + 1u, SPAN_W = (KW - 1u) * DW + 1u;
const bool FITS = SPAN_D <= ID && SPAN_H <= IH && SPAN_W <= IW;

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

// pool_key is the order key of raw bits: a signed integer with the
// values' order. Floats: a magnitude m becomes m or −m, offset by
// (2^31−1) − key(+∞), so that +∞ takes the largest key and the positive
// NaNs (magnitudes above ∞'s) wrap to the smallest; negative NaNs fall
// below −∞ without wrapping. ±0 share one key. Signed integers are their
// own key (sign-extended); unsigned ones have their sign bit flipped at
// 32 bits and are their own key below.
#if ELEM_BITS == 64
KEY pool_key(RAW v) { return elem_key2(v, ELEM_KIND); }
#else
const int KEY_OFF = ELEM_BITS == 32 ? 0x7FFFFF : ELEM_BITS == 16 ? 0x7FFF83FF : 0;
// pool_key_ext is pool_key of raw bits v whose value, sign-extended from
// ELEM_BITS, is i.
KEY pool_key_ext(int i, RAW v) {
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
KEY pool_key(RAW v) {
#if ELEM_BITS == 32
	return pool_key_ext(int(v), v);
#else
	return pool_key_ext(bitfieldExtract(int(v), 0, ELEM_BITS), v);
#endif
}
#endif

// The running best: its key, its raw bits and its flat index (in the
// interior, its offset from the window's first tap).
KEY best_key;
RAW best_bits;
uint best_idx;

// pool_reset starts the running best, index 0.
void pool_reset() {
#if ELEM_BITS == 64
	best_bits = elem_lowest(ELEM_KIND);
#else
	// -inf's bits are the sign and infinity's magnitude; its key is below
	// every finite value's and nothing strictly exceeds it but a finite
	// value or +inf (NaN is never offered).
	best_bits = NEG_INF_START ? ELEM_SIGN | ELEM_INF : elem_lowest(ELEM_KIND).x;
#endif
	best_key = pool_key(best_bits);
#if ELEM_BITS == 16
	// DirectML compares FLOAT16 in 32-bit floats from -FLT_MAX: an element
	// of -65504 beats the start (and takes the index), -inf does not. One
	// below -65504's key is -inf's key, which nothing strictly exceeds
	// except a finite value. The bits written stay -65504's.
	if (ELEM_KIND == KIND_FLOAT && !NEG_INF_START) {
		best_key -= 1;
	}
#endif
	best_idx = 0u;
}

// offer offers a tap's raw bits v with index i.
void offer(RAW v, uint i) {
	KEY k = pool_key(v);
	if (KEY_GT(k, best_key)) {
		best_key = k;
		best_bits = v;
		best_idx = i;
	}
}

// src_addr is the address of element e of the input binding whose base
// offset is base words; load_at loads the element off elements past an
// address.
#if ELEM_SUBWORD
uint src_addr(uint base, uint e) { return base * ELEM_PER_WORD + e; }
RAW load_at(uint a, uint off) { return elem_load(0u, a + off).x; }
#elif ELEM_BITS == 64
uint src_addr(uint base, uint e) { return base + 2u * e; }
RAW load_at(uint a, uint off) { return uvec2(elem_src.x[a + 2u * off], elem_src.x[a + 2u * off + 1u]); }
#elif ELEM_BITS == 32
uint src_addr(uint base, uint e) { return base + e; }
RAW load_at(uint a, uint off) { return elem_src.x[a + off]; }
#else
uint src_addr(uint base, uint e) { return base * ELEM_PER_WORD + e; }
RAW load_at(uint a, uint off) { return uint(elem_src.x[a + off]); }
#endif

// pool_key_at is pool_key of the element off elements past address a.
// With 8/16-bit storage, signed and float elements load through a signed
// view of the input (read-only buffers may alias), whose conversion to
// 32 bits sign-extends: one op a tap fewer than extracting the sign from
// the zero-extended bits.
#if NATIVE && (ELEM_BITS == 8 || ELEM_BITS == 16)
#if ELEM_BITS == 8
layout(std430, binding = ELEM_SRC) readonly buffer ElemSrcSigned { int8_t x[]; } elem_src_signed;
#else
layout(std430, binding = ELEM_SRC) readonly buffer ElemSrcSigned { int16_t x[]; } elem_src_signed;
#endif
KEY pool_key_at(uint a, uint off) {
	if (ELEM_KIND == KIND_UNSIGNED) {
		return pool_key(load_at(a, off));
	}
	return pool_key_ext(int(elem_src_signed.x[a + off]), 0u);
}
#else
KEY pool_key_at(uint a, uint off) { return pool_key(load_at(a, off)); }
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

// pool_window scans the window starting at input position (sd, sh, sw) of
// the plane whose input elements start at element in_plane of the binding
// whose base offset is base words, and whose flat indices start at
// idx_plane, into best_key, best_bits and best_idx.
void pool_window(uint base, uint in_plane, uint idx_plane, int sd, int sh, int sw) {
	pool_reset();
	// A negative start is a huge unsigned one: one comparison per axis.
	if (FITS && uint(sd) <= ID - SPAN_D && uint(sh) <= IH - SPAN_H && uint(sw) <= IW - SPAN_W) {
		// Interior: every tap is in bounds; the index is the first tap's
		// plus the winner's offset.
		uint a = src_addr(base, in_plane + uint(sd) * IN_SD + uint(sh) * IN_SH + uint(sw) * IN_SW);
#if PRELOAD
		// Loads first, then the taps in row-major window order; the loops
		// unrolled (their bounds are constants), so that taps[] lives in
		// registers.
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
		if (rd.x < rd.y && rh.x < rh.y && rw.x < rw.y) {
			uint a = src_addr(base, in_plane);
			best_idx = idx_plane + (uint(sd + int(rd.x * DD)) * IH + uint(sh + int(rh.x * DH))) * IW + uint(sw + int(rw.x * DW));
			for (uint kd = rd.x; kd < rd.y; kd++) {
				uint pd = uint(sd + int(kd * DD));
				for (uint kh = rh.x; kh < rh.y; kh++) {
					uint ph = uint(sh + int(kh * DH));
					for (uint kw = rw.x; kw < rw.y; kw++) {
						uint pw = uint(sw + int(kw * DW));
						offer(load_at(a, pd * IN_SD + ph * IN_SH + pw * IN_SW), idx_plane + (pd * IH + ph) * IW + pw);
					}
				}
			}
		}
	}
}
