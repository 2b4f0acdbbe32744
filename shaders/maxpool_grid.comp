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
// The window's scan, and rule 9's exact order, are maxpool_window.glsl's.
//
// Defines: ELEM_BITS, NATIVE and PRELOAD as in maxpool.comp; IDX_BITS 0, 32
// or 64 (UINT64 indices are one 8-byte store each: the flat index, then 0);
// OUTS (with PRELOAD; 1 when undefined): outputs per lane, a run of OUTS
// neighbouring columns of one row, so that x covers ceil(OW / OUTS) runs.
// A run whose windows all lie inside the input loads each input column
// its windows touch once per window row and takes its order key once,
// and its outputs share them (a 3x3 window of stride 2 reads 9 columns for
// 4 outputs, not 12); a run touching a border, or past the last column,
// scans each of its outputs' windows as OUTS 1 does.
// FLOAT_CMP (FLOAT32 runs only; the host sets it where the device reports
// shaderDenormPreserveFloat32 and shaderSignedZeroInfNanPreserveFloat32):
// the run compares the loaded values as floats, with 32-bit denormals kept
// and ±0, ±inf and NaN respected (float controls execution modes), in
// place of the order key (the variant table's FloatControls32 adds the
// execution modes to the optimised module). Rule 9 is exactly IEEE v > best from −FLT_MAX
// (or −inf): ±0 tie, NaN compares false, −inf never beats the start; and
// the best value is the bits it was loaded as.

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
#include "maxpool_window.glsl"

// The tile: WGX columns by WG / WGX rows.
layout(constant_id = 31) const uint WGX = 1;
// The indices tensor's strides (N, C, D, H, W).
layout(constant_id = 32) const uint IDX_SN = 0;
layout(constant_id = 33) const uint IDX_SC = 0;
layout(constant_id = 34) const uint IDX_SD = 0;
layout(constant_id = 35) const uint IDX_SH = 0;
layout(constant_id = 36) const uint IDX_SW = 0;

const uint WGY = gl_WorkGroupSize.x / WGX;

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

#ifndef OUTS
#define OUTS 1
#endif

// store_best writes the best's bits to output element e and its index to
// indices element ie.
void store_best(uint e, uint ie) {
#if ELEM_BITS == 64
	elem_store(pc.base_out, e, best_bits);
#else
	elem_store(pc.base_out, e, uvec2(best_bits, 0u));
#endif
#if IDX_BITS == 64
	word_dst2.x[pc.base_idx / 2u + ie] = uvec2(best_idx, 0u);
#elif IDX_BITS == 32
	word_dst.x[pc.base_idx + ie] = best_idx;
#endif
}

#if OUTS > 1
// A run's columns: the input columns one window row of its OUTS outputs
// spans, which an interior run loads.
const uint RUN_COLS = (OUTS - 1u) * SW + SPAN_W;
// The lanes' columns of the grid: runs of OUTS outputs.
const uint GRID_COLS = (OW + OUTS - 1u) / OUTS;
// Whether a run's columns fit the input at all.
const bool RUN_FITS = RUN_COLS <= IW;
// Whether a tap's input offset from the window's first tap differs from
// its flat index's (a plane that is not packed), so that a run keeps both.
// (Integer arithmetic: glslang mis-builds this as a chain of || and &&.)
const uint TAP_DIFF_D = KD == 1u ? 0u : IN_SD - IH * IW;
const bool TAP_DIFF = ((IN_SW - 1u) | (IN_SH - IW) | TAP_DIFF_D) != 0u;
// What a run compares: the order key, or with FLOAT_CMP the float itself
// (RUN_KEY_OF of raw bits, RUN_KEY_AT of a loaded element), and whether
// it must track the best tap's offset (for the
// index, or to load the bits again: a key of ±0 is shared).
#if FLOAT_CMP
#define RUN_KEY float
#define RUN_KEY_OF(raw) uintBitsToFloat(raw)
#define RUN_KEY_AT(a, off) uintBitsToFloat(load_at(a, off))
#define RUN_GT(a, b) ((a) > (b))
#define RUN_TRACK (IDX_BITS != 0)
#else
#define RUN_KEY KEY
#define RUN_KEY_OF(raw) pool_key(raw)
#define RUN_KEY_AT(a, off) pool_key_at(a, off)
#define RUN_GT(a, b) KEY_GT(a, b)
#define RUN_TRACK 1
#endif
#if ELEM_BITS == 64
#define KEY_NE(a, b) any(notEqual(a, b))
#else
#define KEY_NE(a, b) ((a) != (b))
#endif

// pool_run scans the interior run of OUTS outputs whose first window
// starts at input element a (an address, src_addr) and stores them from
// output element e and indices element ie; first_idx is the flat index of
// the first window's first tap. Each output keeps its best key and the
// offset of its best tap, and loads the best's bits again at the end (the
// key of ±0 is shared, so the bits cannot come from the key): a tap costs
// a comparison and two selects. With FLOAT_CMP the best is the value
// itself, and the offset is kept for the index only.
void pool_run(uint a, uint e, uint ie, uint first_idx) {
	pool_reset();
#if FLOAT_CMP
	RUN_KEY start_key = RUN_KEY_OF(best_bits);
#else
	RUN_KEY start_key = best_key; // FLOAT16's start sits one below −65504's key
#endif
	RAW start_bits = best_bits;
	RUN_KEY bk[OUTS];
	uint bt[OUTS], bi[OUTS];
	[[unroll]] for (uint o = 0u; o < OUTS; o++) {
		bk[o] = start_key;
		bt[o] = 0u;
		bi[o] = 0u;
	}
	[[unroll]] for (uint kd = 0u; kd < KD; kd++) {
		[[unroll]] for (uint kh = 0u; kh < KH; kh++) {
			RUN_KEY k[RUN_COLS];
			[[unroll]] for (uint c = 0u; c < RUN_COLS; c++) {
				k[c] = RUN_KEY_AT(a, TAP_IN(kd, kh, 0u) + c * IN_SW);
			}
			// Taps in row-major window order for each output: the window
			// rows outermost, then the columns.
			[[unroll]] for (uint kw = 0u; kw < KW; kw++) {
				[[unroll]] for (uint o = 0u; o < OUTS; o++) {
					RUN_KEY v = k[o * SW + kw * DW];
					bool gt = RUN_GT(v, bk[o]);
					bk[o] = gt ? v : bk[o];
#if RUN_TRACK
					bt[o] = gt ? TAP_IN(kd, kh, kw) : bt[o];
					if (TAP_DIFF) {
						bi[o] = gt ? TAP_IDX(kd, kh, kw) : bi[o];
					}
#endif
				}
			}
		}
	}
	[[unroll]] for (uint o = 0u; o < OUTS; o++) {
#if FLOAT_CMP
		best_bits = floatBitsToUint(bk[o]);
#else
		RAW bits = load_at(a, bt[o] + o * SW * IN_SW);
		best_bits = KEY_NE(bk[o], start_key) ? bits : start_bits;
#endif
		best_idx = first_idx + o * SW + (TAP_DIFF ? bi[o] : bt[o]);
		store_best(e + o * OUT_SW, ie + o * IDX_SW);
	}
}
#endif

void main() {
	// A lane past the last column or row (the host keeps them within 1%
	// of the lanes) computes the last one again and stores what its owner
	// stores, rather than branching around the work.
	uint lane = gl_LocalInvocationID.x;
#if OUTS > 1
	uint ow = min(gl_WorkGroupID.x * WGX + lane % WGX, GRID_COLS - 1u) * OUTS;
#else
	uint ow = min(gl_WorkGroupID.x * WGX + lane % WGX, OW - 1u);
#endif
	uint r = min(pc.r0 + gl_WorkGroupID.y * WGY + lane / WGX, OD * OH - 1u);
	uint p = pc.p0 + gl_WorkGroupID.z; // the step's local plane
	uint od = OD == 1u ? 0u : r / OH, oh = OD == 1u ? r : r % OH;
	// CSTEP 0: the planes are evenly spaced in every tensor (or a step
	// holds one batch), so p is a channel of batch 0.
	uint nl = CSTEP == 0u ? 0u : p / CSTEP, cl = CSTEP == 0u ? p : p % CSTEP;
	uint in_plane = pc.in_e0 + nl * IN_SN + cl * IN_SC, idx_plane = (pc.plane0 + p) * PLANE;
	int sd = int(od * SD) - PD, sh = int(oh * SH) - PH, sw = int(ow * SW) - PW;
	uint e = pc.out_e0 + nl * OUT_SN + cl * OUT_SC + od * OUT_SD + oh * OUT_SH + ow * OUT_SW;
	uint ie = 0u;
#if IDX_BITS
	ie = pc.idx_e0 + nl * IDX_SN + cl * IDX_SC + od * IDX_SD + oh * IDX_SH + ow * IDX_SW;
#endif
#if OUTS > 1
	// A negative start is a huge unsigned one: one comparison per axis.
	if (FITS && ow + OUTS <= OW && uint(sd) <= ID - SPAN_D && uint(sh) <= IH - SPAN_H && RUN_FITS && uint(sw) <= IW - RUN_COLS) {
		uint a = src_addr(pc.base_in, in_plane + uint(sd) * IN_SD + uint(sh) * IN_SH + uint(sw) * IN_SW);
		pool_run(a, e, ie, idx_plane + (uint(sd) * IH + uint(sh)) * IW + uint(sw));
	} else {
		for (uint o = 0u; o < OUTS && ow + o < OW; o++) {
			pool_window(pc.base_in, in_plane, idx_plane, sd, sh, sw + int(o * SW));
			store_best(e + o * OUT_SW, ie + o * IDX_SW);
		}
	}
#else
	pool_window(pc.base_in, in_plane, idx_plane, sd, sh, sw);
	store_best(e, ie);
#endif
}
