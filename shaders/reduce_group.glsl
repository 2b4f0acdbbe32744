// reduce_group.glsl: a workgroup's combine of its lanes' Parts
// (reduce_part.glsl), through subgroup arithmetic and shared memory
// (SUBGROUP 1) or a shared-memory tree (SUBGROUP 0). argmax.comp's group
// kernels and argmax_combine_group.comp use it. The Parts merge in an
// order that is not the block's, which is correct because part_merge is
// associative and commutative (reduce_part.glsl, which also has the
// subgroup merge, sg_part). Include it after
// reduce_part.glsl; the workgroup size is a power of two of at most
// WG_MAX.

#define WG_MAX 256
#if REDUCE_FLOAT
// One exact accumulator (reduce_part_float.glsl) per lane: ten limbs and
// the flags. The float functions combine without subgroup arithmetic.
shared uint sh_acc[WG_MAX * 11];

void sh_put(uint k, Part st) {
	st = part_settle(st);
#define SH_PUT(i) sh_acc[11u * k + uint(i)] = st.acc[i];
	EXACT_UNROLL(SH_PUT)
#undef SH_PUT
	sh_acc[11u * k + 10u] = st.flags;
}

Part sh_get(uint k) {
	Part p;
#define SH_GET(i) p.acc[i] = sh_acc[11u * k + uint(i)];
	EXACT_UNROLL(SH_GET)
#undef SH_GET
	p.flags = sh_acc[11u * k + 10u];
	p.fast = uvec2(0u);
	p.win = LANE_NO_WINDOW;
	return p;
}
#else
// One entry per lane (SUBGROUP 0) or per subgroup (SUBGROUP 1).
shared uint sh_lo[WG_MAX], sh_hi[WG_MAX], sh_idx[WG_MAX], sh_p[WG_MAX];

void sh_put(uint k, Part st) {
	sh_lo[k] = st.s.x;
	sh_hi[k] = st.s.y;
	sh_idx[k] = st.i;
	sh_p[k] = st.p;
}

Part sh_get(uint k) { return Part(uvec2(sh_lo[k], sh_hi[k]), sh_idx[k], sh_p[k]); }

#endif

// group_combine merges every lane's st into the workgroup's Part and
// returns true in the one lane that holds it. The caller writes it there,
// then meets a barrier before the shared entries are reused.
bool group_combine(inout Part st) {
#if SUBGROUP
	st = sg_part(st);
	if (subgroupElect()) {
		sh_put(gl_SubgroupID, st);
	}
	barrier();
	bool lead = false;
	if (gl_SubgroupID == 0u) {
		Part b = part_identity();
		for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) {
			b = part_merge(b, sh_get(k));
		}
		st = sg_part(b);
		lead = subgroupElect();
	}
	return lead;
#else
	uint t = gl_LocalInvocationID.x;
	sh_put(t, st);
	barrier();
	for (uint h = gl_WorkGroupSize.x / 2u; h > 0u; h >>= 1) {
		if (t < h) {
			sh_put(t, part_merge(sh_get(t), sh_get(t + h)));
		}
		barrier();
	}
	st = sh_get(0u);
	return t == 0u;
#endif
}
