// elem.glsl: the element vocabulary every vkdml kernel shares. It declares
// the storage buffers, loads and stores elements on both storage paths
// (8/16-bit storage, or 32-bit words with atomic sub-word stores), moves
// 64-bit values as two 32-bit words (so no kernel needs shaderInt64 for
// data), and defines the one order-preserving key every comparison uses.
// Include it right after the #extension lines of the kernel itself.
//
// Defines read (all optional unless a feature below needs them):
//   ELEM_BITS  8, 16, 32 or 64: the element width. Needed by the element
//              views (ELEM_SRC, ELEM_DST) and by the key.
//   NATIVE     8/16-bit elements only. 1: 8/16-bit storage buffers
//              (storageBuffer8BitAccess / storageBuffer16BitAccess); 0 or
//              undefined: 32-bit words, elements extracted by shifts and
//              stored through atomicAnd/atomicOr, so that neighbouring
//              elements, which other invocations own, are never touched
//              (for devices without 8/16-bit storage).
//   ELEM_SRC   binding of the element input  -> elem_src,  elem_load
//   ELEM_SRC_TEXEL  with ELEM_SRC, 32-bit elements: the input is a uniform
//              texel buffer of R32G32B32A32_UINT texels (usamplerBuffer,
//              the host binds a buffer view of the range) -> elem_srct;
//              elem_load reads word w as component w % 4 of texel w / 4
//   ELEM_DST   binding of the element output -> elem_dst,  elem_store
//   WORD_SRC   binding of a 32-bit word input (partials)   -> word_src
//   WORD_DST   binding of a 32-bit word output (indices, partials)
//                                            -> word_dst,  store_index
//   WORD_DST_RW  with WORD_DST: word_dst is read-write (atomics)
//   WORD_DST2  binding of a 64-bit index output, as 8-byte (uvec2) entries
//              (the host keeps its base offset even)  -> word_dst2
//   ELEM_SRC4, ELEM_DST4, WORD_DST4: bindings of 16-byte (uvec4) views ->
//              elem_src4, elem_dst4, word_dst4. A view may alias another
//              binding's scalar view (read-only buffers may alias).
//
// Offsets: every load and store takes the binding's base offset in 32-bit
// words (the host passes it in push constants, see common.glsl) and an
// element offset relative to it.

#if NATIVE && ELEM_BITS == 8
#extension GL_EXT_shader_8bit_storage : require
#define ELEM_STORAGE uint8_t
#define ELEM_PER_WORD 4u
#elif NATIVE && ELEM_BITS == 16
#extension GL_EXT_shader_16bit_storage : require
#define ELEM_STORAGE uint16_t
#define ELEM_PER_WORD 2u
#else
#define ELEM_STORAGE uint
#endif

// ELEM_SUBWORD: sub-word elements packed in 32-bit words.
#if defined(ELEM_BITS) && ELEM_BITS < 32 && !NATIVE
#define ELEM_SUBWORD 1
#else
#define ELEM_SUBWORD 0
#endif

#if defined(ELEM_SRC) && ELEM_SRC_TEXEL
#if ELEM_BITS != 32
#error ELEM_SRC_TEXEL reads 32-bit elements only
#endif
layout(binding = ELEM_SRC) uniform usamplerBuffer elem_srct;
#elif defined(ELEM_SRC)
layout(std430, binding = ELEM_SRC) readonly buffer ElemSrc { ELEM_STORAGE x[]; } elem_src;
#endif
#ifdef ELEM_DST
#if ELEM_SUBWORD
// Read-write: the atomic sub-word stores read the word they update.
layout(std430, binding = ELEM_DST) buffer ElemDst { uint x[]; } elem_dst;
#else
layout(std430, binding = ELEM_DST) writeonly buffer ElemDst { ELEM_STORAGE x[]; } elem_dst;
#endif
#endif
#ifdef WORD_SRC
layout(std430, binding = WORD_SRC) readonly buffer WordSrc { uint x[]; } word_src;
#endif
#ifdef WORD_DST
#ifdef WORD_DST_RW
// Read-write: atomic sub-word stores read the word they update.
layout(std430, binding = WORD_DST) buffer WordDst { uint x[]; } word_dst;
#else
layout(std430, binding = WORD_DST) writeonly buffer WordDst { uint x[]; } word_dst;
#endif
#endif
#ifdef WORD_DST2
layout(std430, binding = WORD_DST2) writeonly buffer WordDst2 { uvec2 x[]; } word_dst2;
#endif
#ifdef ELEM_SRC4
layout(std430, binding = ELEM_SRC4) readonly buffer ElemSrc4 { uvec4 x[]; } elem_src4;
#endif
#ifdef ELEM_DST4
layout(std430, binding = ELEM_DST4) writeonly buffer ElemDst4 { uvec4 x[]; } elem_dst4;
#endif
#ifdef WORD_DST4
layout(std430, binding = WORD_DST4) writeonly buffer WordDst4 { uvec4 x[]; } word_dst4;
#endif

#if ELEM_SUBWORD
const uint ELEM_PER_WORD = 32u / ELEM_BITS;
#endif
#if defined(ELEM_BITS) && ELEM_BITS < 32
const uint ELEM_MASK = (1u << ELEM_BITS) - 1u;
// ELEM_SUB(q, b): sub-element b (lowest bits first) of every 32-bit word
// of q, a uint or uvecN of packed elements.
#define ELEM_SUB(q, b) (((q) >> (uint(b) * ELEM_BITS)) & ELEM_MASK)
#elif defined(ELEM_BITS)
const uint ELEM_MASK = 0xFFFFFFFFu;
#endif

#ifdef ELEM_SRC
// elem_load returns the raw bits of the element at element offset e of the
// binding whose base offset is base words: the low word in x, the high word
// (64-bit elements; 0 otherwise) in y.
uvec2 elem_load(uint base, uint e) {
#if ELEM_BITS == 64
	uint w = base + 2u * e;
	return uvec2(elem_src.x[w], elem_src.x[w + 1u]);
#elif ELEM_BITS == 32 && ELEM_SRC_TEXEL
	uint w = base + e;
	return uvec2(texelFetch(elem_srct, int(w >> 2))[w & 3u], 0u);
#elif ELEM_BITS == 32
	return uvec2(elem_src.x[base + e], 0u);
#elif NATIVE
	return uvec2(uint(elem_src.x[base * ELEM_PER_WORD + e]), 0u);
#else
	uint s = base * ELEM_PER_WORD + e;
	return uvec2(bitfieldExtract(elem_src.x[s / ELEM_PER_WORD], int((s % ELEM_PER_WORD) * ELEM_BITS), ELEM_BITS), 0u);
#endif
}
#endif

#ifdef ELEM_DST
// elem_store writes raw bits (as elem_load returns them) to the element at
// element offset e of the binding whose base offset is base words, and
// nothing else.
void elem_store(uint base, uint e, uvec2 raw) {
#if ELEM_BITS == 64
	uint w = base + 2u * e;
	elem_dst.x[w] = raw.x;
	elem_dst.x[w + 1u] = raw.y;
#elif ELEM_BITS == 32
	elem_dst.x[base + e] = raw.x;
#elif NATIVE
	elem_dst.x[base * ELEM_PER_WORD + e] = ELEM_STORAGE(raw.x);
#else
	// Clear the element's bits, then set them: each atomic leaves the
	// neighbours, which other invocations may be storing, as they are.
	uint t = base * ELEM_PER_WORD + e;
	uint sh = (t % ELEM_PER_WORD) * ELEM_BITS;
	atomicAnd(elem_dst.x[t / ELEM_PER_WORD], ~(ELEM_MASK << sh));
	atomicOr(elem_dst.x[t / ELEM_PER_WORD], (raw.x & ELEM_MASK) << sh);
#endif
}
#endif

#ifdef WORD_DST
// store_index writes index i to entry e of the word output whose base
// offset is base words: as one 32-bit word, or (wide) as a 64-bit value in
// two words, i then 0 (indices are below 2^32: vkdml's tensors have fewer
// than 2^32 elements).
void store_index(uint base, uint e, uint i, bool wide) {
	if (wide) {
		uint w = base + 2u * e;
		word_dst.x[w] = i;
		word_dst.x[w + 1u] = 0u;
	} else {
		word_dst.x[base + e] = i;
	}
}
#endif

// Element kinds, the KIND specialization constant of the kernels that
// compare elements (shaders.Kind* on the Go side).
const uint KIND_UNSIGNED = 0u;
const uint KIND_SIGNED = 1u;
const uint KIND_FLOAT = 2u; // FLOAT32 and FLOAT16, compared as bit patterns

// key_gt: does key a come after key b? (High words first.)
bool key_gt(uvec2 a, uvec2 b) { return a.y > b.y || (a.y == b.y && a.x > b.x); }

#ifdef ELEM_BITS
// THE KEY. elem_key maps an element's raw bits to an unsigned key with the
// same order as the values: unsigned integers are their own key; signed
// integers get their sign bit flipped; floats (sign-magnitude) become
// 2^(ELEM_BITS-1) ± magnitude, so -0 and +0 share one key, and for FLOAT32
// every non-NaN key lies in [key(-inf), key(+inf)] = [0x00800000, 0xFF800000]
// and for FLOAT16 in [0x0400, 0xFC00]: strictly between 0 and the all-ones
// word, which ARGMAX's NaN scores rely on. NaN (a magnitude above
// infinity's) gets a key too, but has no place in the order: callers test
// elem_is_nan. 64-bit elements (integers only) use elem_key2, whose high
// word is compared first; for narrower elements elem_key2 is elem_key in
// the low word and 0 in the high word, so (y, x) compares lexicographically
// at every width.
//
// The float arm negates the magnitude m of a negative value in two's
// complement, (m ^ -s) + s with s the sign bit (0 or 1), and then flips the
// sign bit: that is 2^(B-1) - m or 2^(B-1) + m. One expression serves uint
// and uvec4.
#if ELEM_BITS < 64
const uint ELEM_SIGN = 1u << (ELEM_BITS - 1);
// The magnitude of infinity; no magnitude exceeds it for 8-bit elements,
// which are never floats.
const uint ELEM_INF = ELEM_BITS == 32 ? 0x7F800000u : ELEM_BITS == 16 ? 0x7C00u : ELEM_SIGN - 1u;
#define ELEM_KEY_EXPR(raw, kind)                                                                            \
	((kind) == KIND_FLOAT                                                                                   \
	     ? (((((raw) & (ELEM_SIGN - 1u)) ^ (0u - ((raw) >> (ELEM_BITS - 1)))) + ((raw) >> (ELEM_BITS - 1))) ^ \
	        ELEM_SIGN) & ELEM_MASK                                                                          \
	     : (kind) == KIND_SIGNED ? (raw) ^ ELEM_SIGN : (raw))
uint elem_key(uint raw, uint kind) { return ELEM_KEY_EXPR(raw, kind); }
uvec4 elem_key(uvec4 raw, uint kind) { return ELEM_KEY_EXPR(raw, kind); }
#undef ELEM_KEY_EXPR

// elem_is_nan: is raw a floating-point NaN?
bool elem_is_nan(uint raw, uint kind) { return kind == KIND_FLOAT && (raw & (ELEM_SIGN - 1u)) > ELEM_INF; }
bvec4 elem_is_nan(uvec4 raw, uint kind) {
	return kind == KIND_FLOAT ? greaterThan(raw & (ELEM_SIGN - 1u), uvec4(ELEM_INF)) : bvec4(false);
}

uvec2 elem_key2(uvec2 raw, uint kind) { return uvec2(elem_key(raw.x, kind), 0u); }
#else
uvec2 elem_key2(uvec2 raw, uint kind) { return kind == KIND_SIGNED ? uvec2(raw.x, raw.y ^ 0x80000000u) : raw; }
#endif

// elem_lowest is the raw bits of the lowest finite value of the kind at
// ELEM_BITS (MAX_POOLING's starting value): -FLT_MAX, -65504, the signed
// minimum or 0.
uvec2 elem_lowest(uint kind) {
#if ELEM_BITS == 64
	return uvec2(0u, kind == KIND_SIGNED ? 0x80000000u : 0u);
#else
	return uvec2(kind == KIND_FLOAT ? (ELEM_BITS == 32 ? 0xFF7FFFFFu : 0xFBFFu) : kind == KIND_SIGNED ? ELEM_SIGN : 0u, 0u);
#endif
}
#endif // ELEM_BITS
