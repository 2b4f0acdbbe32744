// topk_gather.glsl: the split radix select's scan of one row
// (topk_gather.comp; topk_thresh.comp GATHER 1 runs it after the sampled
// threshold, in the same dispatch). Include after topk_split.glsl.
//
// Lane t of the row's workgroup (gw lanes, one of llvmpipe's SIMD rows on
// the CPU class's plans) reads its block of the row's 16-byte texels
// GATHER_BLOCK at a time: each texel costs a load, four scores and a
// compare against the row's threshold score, and a bit in a word; then
// the texels whose bit is set are appended to the lane's region, a loop
// trip each, so that a block whose texels all fail pays one masked trip
// of that loop, not a store a texel. The region keeps the first cap
// texels and counts past them (to cap + 1: topk_rank.comp then marks the
// row ROW_FAILED). A texel is kept when one of its positions scores above
// ts, or at ts with the texel at or before tj's: a superset of the
// passing ones, which topk_rank.comp tests exactly (the texels at the
// row's ends hold positions of other rows too, and the threshold's texel
// positions tied with it after tj: at most three a row more than pass,
// which the planner's cap holds).

const uint GATHER_BLOCK = 32u;

// gather_row scans the row whose state is at word row and whose input
// is at kin against threshold (ts, tj), and writes its regions and the
// lanes' counts and bests; where not mine (the row is in another
// state) it reads and writes nothing.
void gather_row(uint row, uint kin, bool mine, uint ts, uint tj) {
	uint t = gl_LocalInvocationID.x;
	const uint WG = gl_WorkGroupSize.x;
	uint e0 = split_e0(kin);
	uint vf = e0 >> 2, nv = mine ? ((e0 + N + 3u) >> 2) - vf : 0u;
	// Texels after vt (relative) pass only by a score above ts: an
	// exact threshold's tj keeps the entries tied with ts to the lower
	// positions, so that at most SPLIT_SORT_MAX texels pass.
	uint vt = ((e0 + tj) >> 2) - vf;
	uint per = (nv + WG - 1u) / WG;
	uint vb = t * per, ve = min(nv, vb + per);
	uint reg = row + ST_REGION + t * pc.cap;
	uint cnt = 0u;
	for (uint b = vb; b < ve; b += GATHER_BLOCK) {
		uint hits = 0u;
		[[unroll]] for (uint i = 0u; i < GATHER_BLOCK; i++) {
			uvec4 s4 = split_score4(texelFetch(elem_srct, int(vf + min(b + i, ve - 1u))));
			bool hit = any(greaterThanEqual(s4, uvec4(ts))) && (b + i <= vt || any(greaterThan(s4, uvec4(ts))));
			hits |= uint(hit && b + i < ve) << i;
		}
		while (hits != 0u && cnt <= pc.cap) {
			uint i = uint(findLSB(hits));
			hits &= hits - 1u;
			rows_buf.x[reg + min(cnt, pc.cap - 1u)] = vf + b + i;
			cnt++;
		}
	}
	// The best in-row score of the texels the lane kept (the row's best
	// is among them), the top of topk_rank.comp's bucket range, where the
	// ranking would read its regions once more: a fetch a kept texel
	// (masking every texel of the scan by position made the gather about
	// 30% slower, a fetch in the append loop, run once a block, 7%).
	uvec4 m4 = uvec4(0u);
	for (uint e = 0u; e < min(cnt, pc.cap); e++) {
		uint v = rows_buf.x[reg + e];
		uvec4 s4 = split_score4(texelFetch(elem_srct, int(v)));
		m4 = max(m4, mix(uvec4(0u), s4, lessThan(uvec4(4u * v - e0) + uvec4(0u, 1u, 2u, 3u), uvec4(N))));
	}
	if (mine) {
		rows_buf.x[row + ST_COUNT + t] = cnt;
		rows_buf.x[row + ST_MAX + t] = max(max(m4.x, m4.y), max(m4.z, m4.w));
	}
}
