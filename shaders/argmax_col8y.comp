#version 450
// argmax_col8y.comp (vec-col8y): ARGMAX / ARGMIN (and REDUCE MAX / MIN,
// whose LAST is DECREASING's order) first pass for 8-bit
// integer elements over one reduced axis when the innermost kept dimension
// has input stride 1 (vec-col's layout: its size and every other input
// stride multiples of 16 elements). An item is 16 adjacent outputs and a
// segment, as for argmax_vec_col.comp, but COLY lanes of one workgroup
// share it: lane y scans rows y, y + COLY, ... of the segment in order, one
// 16-byte load per row, LOADS 4 rows' loads in flight, and the COLY lanes'
// bests are combined through shared memory by the total order (rule 5: any
// grouping of the (score, index) maximum is the sequential scan's). So a
// few segments (or none) reach the bytes in flight that vec-col reaches
// only with partials of 12-25% of the bytes read.
//
// The hot loop is a SWAR filter on whole words, no per-byte work unless a
// byte wins: one xor turns four raw bytes into four 8-bit scores (the key,
// inverted for ARGMIN), which are spread into two words of two 16-bit
// fields each (bytes 0, 2 and bytes 1, 3). Each field of the lane's
// threshold words holds C = CB - best, with CB = 0x100 under DECREASING
// (a tie wins) and 0xFF otherwise, so that score + C has bit 8 of its field
// set exactly when the score replaces the best (score >= best + 1, or
// score >= best); sums stay below 0x200, so fields never carry into each
// other. A load none of whose 16 fields has that bit set changes nothing,
// exactly as the sequential update would; one that has it updates the
// winning fields' thresholds and indices.
//
// Workgroups take the items in groups of X = WG / COLY (lane t: x = t % X,
// y = t / X), in a loop whose trip count is the same for every lane of a
// workgroup (the barriers of the combine need it).
//
// PHASED 1 (vec-col8y-phased): the same for one kept dimension whose
// length or row stride is not a multiple of 16 bytes (4097x16383 INT8
// over axis 0). An item is 16 adjacent outputs (the last one fewer; only
// its valid outputs are written), whose bytes start at byte phase p of a
// 32-bit word. A lane's rows are COLY rows apart, COLY * stride bytes, a
// multiple of 4, so p is the same on all of a lane's rows: the lane loads
// the five aligned words that hold its 16 bytes and runs the filter on
// all 20 of their bytes, byte p + c being output c. No funnel shift or
// per-row phase: the fifth word's filter costs less than realigning four
// (internal/opcount). Only a lane's first and last rows may touch the
// binding's last word, so only they clamp their word indices to it
// (bytes past the tensor then hold copies that no written output reads).
//
// Defines:
//   COLY   lanes sharing an item (a power of two dividing the workgroup)
//   LOADS  4: four rows' loads before their scans; 1 one at a time
//   PHASED 1: any row stride, one kept dimension (above); 0: aligned

#define ELEM_BITS 8
#define ELEM_SRC 0
#define ELEM_SRC4 0
#define WORD_DST 1
#define WORD_DST_RW 1
#ifndef PHASED
#define PHASED 0
#endif
#if PHASED
#define WORD_SRC 0
#endif
#include "elem.glsl"
#include "common.glsl"
#include "reduce.glsl"
#include "reduce_part.glsl"
#include "argmax_vec_common.glsl"

#ifndef COLY
#define COLY 32
#endif
#ifndef LOADS
#define LOADS 1
#endif
#define WG_MAX 256

const uint PER = 16u; // outputs per item
const uint X = gl_WorkGroupSize.x / COLY;
// One xor per word: key (signed bytes: sign bit flipped), then the score
// (inverted for ARGMIN).
const uint KEYX = (KIND == KIND_SIGNED ? 0x80808080u : 0u) ^ (IS_MIN != 0u ? 0xFFFFFFFFu : 0u);
const uint CB = LAST != 0u ? 0x100u : 0xFFu;
const uint CB2 = CB | (CB << 16);
const uint FIELDS = 0x00FF00FFu;
const uint WON = 0x01000100u;

// One word (4 outputs) of every lane's bests per combine round.
shared uint sh_s[4 * WG_MAX];
shared uint sh_i[4 * WG_MAX];

#if PHASED
// WORDS4: the four words from word i; WORDC: word i clamped to the
// binding's last (a lane's first and last rows).
#define WORDS4(i) uvec4(word_src.x[i], word_src.x[(i) + 1u], word_src.x[(i) + 2u], word_src.x[(i) + 3u])
#define WORDC(i) word_src.x[min(i, wlast)]
#define TAIL 1u
#else
#define TAIL 0u
#endif

// SCAN_FIELDS: one row's four words as 16-bit fields, plus the thresholds;
// SCAN_WON4: the update of the winning fields' thresholds and indices.
#define SCAN_FIELDS(Q)                                                         \
	uvec4 k_ = (Q) ^ KEYX;                                                     \
	uvec4 lo_ = k_ & FIELDS, hi_ = (k_ >> 8) & FIELDS;                         \
	uvec4 a_ = lo_ + clo, b_ = hi_ + chi;                                      \
	uvec4 t_ = a_ | b_;
#define SCAN_WON4                                                              \
	{                                                                          \
		uvec4 wa_ = (a_ >> 8) & 0x00010001u, wb_ = (b_ >> 8) & 0x00010001u;     \
		uvec4 ma_ = wa_ * 0xFFFFu, mb_ = wb_ * 0xFFFFu;                        \
		clo = (clo & ~ma_) | ((uvec4(CB2) - lo_) & ma_);                       \
		chi = (chi & ~mb_) | ((uvec4(CB2) - hi_) & mb_);                       \
		ib0 = mix(ib0, uvec4(j), notEqual(wa_ & 1u, uvec4(0u)));               \
		ib2 = mix(ib2, uvec4(j), notEqual(wa_ & 0x10000u, uvec4(0u)));         \
		ib1 = mix(ib1, uvec4(j), notEqual(wb_ & 1u, uvec4(0u)));               \
		ib3 = mix(ib3, uvec4(j), notEqual(wb_ & 0x10000u, uvec4(0u)));         \
	}
#define SCAN_LOAD(Q)                                                           \
	{                                                                          \
		SCAN_FIELDS(Q)                                                         \
		if (((t_.x | t_.y | t_.z | t_.w) & WON) != 0u) SCAN_WON4               \
	}
// SCAN_LOAD5: PHASED's row, four words Q and the fifth Q4.
#define SCAN_LOAD5(Q, Q4)                                                      \
	{                                                                          \
		SCAN_FIELDS(Q)                                                         \
		uint k4_ = (Q4) ^ KEYX;                                                \
		uint lo4_ = k4_ & FIELDS, hi4_ = (k4_ >> 8) & FIELDS;                  \
		uint a4_ = lo4_ + clo4, b4_ = hi4_ + chi4;                             \
		if (((t_.x | t_.y | t_.z | t_.w | a4_ | b4_) & WON) != 0u) {           \
			SCAN_WON4                                                          \
			uint wa4_ = (a4_ >> 8) & 0x00010001u, wb4_ = (b4_ >> 8) & 0x00010001u; \
			uint ma4_ = wa4_ * 0xFFFFu, mb4_ = wb4_ * 0xFFFFu;                 \
			clo4 = (clo4 & ~ma4_) | ((CB2 - lo4_) & ma4_);                     \
			chi4 = (chi4 & ~mb4_) | ((CB2 - hi4_) & mb4_);                     \
			ib40 = (wa4_ & 1u) != 0u ? j : ib40;                               \
			ib42 = (wa4_ & 0x10000u) != 0u ? j : ib42;                         \
			ib41 = (wb4_ & 1u) != 0u ? j : ib41;                               \
			ib43 = (wb4_ & 0x10000u) != 0u ? j : ib43;                         \
		}                                                                      \
	}

void main() {
	uint lid = gl_LocalInvocationID.x;
	uint x = lid % X, y = lid / X;
#if PHASED
	uint groups = (pc.o_count + PER - 1u) / PER;
	uint wlast = uint(word_src.x.length()) - 1u;
	// One lane's rows are COLY rows apart: a multiple of 4 bytes.
	const uint wstep = (COLY * DI7) >> 2;
#else
	uint groups = pc.o_count / PER;
	// One lane's rows are COLY rows apart: vstep 16-byte vectors (DI7 is
	// a multiple of 16 elements).
	const uint vstep = COLY * (DI7 >> 4);
#endif
	uint items = groups * pc.nloc;
	uint wgs = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
	uint step = wgs * X;
	for (uint it0 = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * X; it0 < items; it0 += step) {
		uint it = it0 + x;
		bool live = it < items;
		uint ql = it % groups, sl = it / groups;
		uint o = pc.o_begin + ql * PER;
		uint kin = 0u, kout = 0u;
		uint jb = sl * pc.seg_len;
		uint n = live ? min(pc.seg_len, pc.j_count - jb) : 0u;
		uint j = pc.j_begin + jb + y;
		// Thresholds (lo: bytes 0 and 2 of word w in component w; hi:
		// bytes 1 and 3) and the indices of byte b of word w (ib, component w).
		uvec4 clo = uvec4(CB2), chi = uvec4(CB2);
		uvec4 ib0 = uvec4(j), ib1 = uvec4(j), ib2 = uvec4(j), ib3 = uvec4(j);
#if PHASED
		// The fifth word's, and the bytes' phase in the first.
		uint clo4 = CB2, chi4 = CB2, ib40 = j, ib41 = j, ib42 = j, ib43 = j;
		uint p = 0u;
		uint valid = min(PER, pc.o_count - min(ql * PER, pc.o_count));
#else
		const uint valid = PER;
#endif
		kept_offsets(o, kin, kout);
		if (y < n) {
#if PHASED
			uint b = elem_base(pc.base_src) - pc.in_win + kin + red_offset(jb + pc.j_begin + y);
			uint v = b >> 2;
			p = b & 3u;
			uvec4 k = uvec4(word_src.x[v], WORDC(v + 1u), WORDC(v + 2u), WORDC(v + 3u)) ^ KEYX;
			uint k4 = WORDC(v + 4u) ^ KEYX;
			clo4 = CB2 - (k4 & FIELDS);
			chi4 = CB2 - ((k4 >> 8) & FIELDS);
#define VSTEP wstep
#define LOADROW(Q, R, V) uvec4 Q = WORDS4(V); uint R = word_src.x[(V) + 4u];
#define SCANROW(Q, R) SCAN_LOAD5(Q, R)
#else
			// The lane's current vector (element offsets are multiples of 16).
			uint v = (elem_base(pc.base_src) - pc.in_win + kin + red_offset(jb + pc.j_begin + y)) >> 4;
			uvec4 k = elem_src4.x[v] ^ KEYX;
#define VSTEP vstep
#define LOADROW(Q, R, V) uvec4 Q = elem_src4.x[V];
#define SCANROW(Q, R) SCAN_LOAD(Q)
#endif
			clo = uvec4(CB2) - (k & FIELDS);
			chi = uvec4(CB2) - ((k >> 8) & FIELDS);
			// Rows after the first; PHASED leaves the last (TAIL) to the
			// clamped scan below.
			uint left = (n - y - 1u) / COLY;
#if LOADS == 4
			for (; left >= 4u + TAIL; left -= 4u) {
				uint v0 = v + VSTEP, v1 = v0 + VSTEP, v2 = v1 + VSTEP;
				v = v2 + VSTEP;
				LOADROW(q0, r0, v0)
				LOADROW(q1, r1, v1)
				LOADROW(q2, r2, v2)
				LOADROW(q3, r3, v)
				j += COLY;
				SCANROW(q0, r0)
				j += COLY;
				SCANROW(q1, r1)
				j += COLY;
				SCANROW(q2, r2)
				j += COLY;
				SCANROW(q3, r3)
			}
#endif
			for (; left > TAIL; left--) {
				v += VSTEP;
				j += COLY;
				LOADROW(q, r, v)
				SCANROW(q, r)
			}
#if PHASED
			if (left == 1u) {
				v += VSTEP;
				j += COLY;
				SCAN_LOAD5(uvec4(word_src.x[v], WORDC(v + 1u), WORDC(v + 2u), WORDC(v + 3u)), WORDC(v + 4u))
			}
#endif
		}
		// The combine, one word (4 outputs) a round: every lane publishes
		// its bests, then lane y < 4 of each item reduces output 4w + y
		// over the lanes that had rows (the first m), and writes it.
		uint m = min(n, COLY);
		for (uint w = 0u; w < 4u; w++) {
			uint base = lid * 4u;
#if PHASED
			// Output 4w + c is byte bb of word wd of the lane's 20.
			for (uint c = 0u; c < 4u; c++) {
				uint i = p + 4u * w + c, wd = i >> 2, bb = i & 3u;
				uint f = (bb & 1u) != 0u ? (wd < 4u ? chi[wd] : chi4) : (wd < 4u ? clo[wd] : clo4);
				sh_s[base + c] = CB - ((f >> ((bb & 2u) * 8u)) & 0xFFFFu);
				uvec4 ibq = bb == 0u ? ib0 : bb == 1u ? ib1 : bb == 2u ? ib2 : ib3;
				uint i4 = bb == 0u ? ib40 : bb == 1u ? ib41 : bb == 2u ? ib42 : ib43;
				sh_i[base + c] = wd < 4u ? ibq[wd] : i4;
			}
#else
			uint lo = clo[w], hi = chi[w];
			sh_s[base] = CB - (lo & 0xFFFFu);
			sh_s[base + 1u] = CB - (hi & 0xFFFFu);
			sh_s[base + 2u] = CB - (lo >> 16);
			sh_s[base + 3u] = CB - (hi >> 16);
			sh_i[base] = ib0[w];
			sh_i[base + 1u] = ib1[w];
			sh_i[base + 2u] = ib2[w];
			sh_i[base + 3u] = ib3[w];
#endif
			barrier();
			if (y < 4u && n > 0u && w * 4u + y < valid) {
				uint b = y;
				uint bs = sh_s[x * 4u + b], bi = sh_i[x * 4u + b];
				for (uint yy = 1u; yy < m; yy++) {
					uint e = (yy * X + x) * 4u + b;
					uint s = sh_s[e], si = sh_i[e];
					if (better(uvec2(s, 0u), si, uvec2(bs, 0u), bi)) {
						bs = s;
						bi = si;
					}
				}
				if (IS_MIN != 0u) {
					bs |= 0xFFFFFF00u; // reduce.glsl's score of ARGMIN: the inverted 32-bit key
				}
				uint oc = w * 4u + b;
				uint ein = elem_base(pc.base_src) - pc.in_win + kin + oc; // output o + oc's block position 0
				write_result(o + oc, pc.seg_base + sl, kout + oc * DO0, ein, bs, bi);
			}
			barrier();
		}
	}
}
