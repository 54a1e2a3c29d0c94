/* SPDX-License-Identifier: MIT */
#include "canon/zobrist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "canon/error.h"
#include "canon/random.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AVX512_KEYS 1
#endif

#define MAX_PLANES 4
#define EXTRA_KEPT BP_ZOBRIST_EXTRA_KEPT /* mix_extra of the smaller extra words, computed once */

/* A child's key: the smallest of h[s] ^ e ^ r0[s] (^ r1[s]) over the nsym symmetries. */
typedef uint64_t key_fn(int nsym, const uint64_t *h, uint64_t e, const uint64_t *r0,
			const uint64_t *r1);

/* t[(c * nplanes + i) * BP_ZOBRIST_MAX_SYM + s] = Z[i][sym_s(c)]: the words one
 * changed cell needs lie side by side, one per symmetry. */
struct bp_zobrist {
	int nsym, nplanes;
	uint64_t *t;
	/* ex[x] = mix_extra(x): the games' extra words are small (Taifas 0 to 2, Chicken
	 * below 1024), and an update that changes it mixed both words each time */
	uint64_t ex[EXTRA_KEPT];
	int avx512; /* the processor has AVX-512F (key_avx512) */
	/* key[k]: a child's key from k + 1 changed cells, without the images (see
	 * choose_keys) */
	key_fn *key[2];
};

static void choose_keys(bp_zobrist *z);

static inline uint64_t mix_extra(uint64_t x)
{
	uint64_t st = x ^ 0x6a09e667f3bcc909ull;
	return bp_splitmix64(&st);
}

static inline uint64_t extra_word(const bp_zobrist *z, uint64_t x)
{
	return x < EXTRA_KEPT ? z->ex[x] : mix_extra(x);
}

int bp_zobrist_create(const struct bp_board *b, int nplanes, bp_zobrist **out)
{
	*out = NULL;
	if (b->ncells > 64 || b->nsym > BP_ZOBRIST_MAX_SYM || nplanes < 1 || nplanes > MAX_PLANES)
		return BP_ERANGE;
	bp_zobrist *z = calloc(1, sizeof *z);
	if (!z)
		return BP_ENOMEM;
	z->nsym = b->nsym;
	z->nplanes = nplanes;
	for (uint64_t x = 0; x < EXTRA_KEPT; x++)
		z->ex[x] = mix_extra(x);
#ifdef AVX512_KEYS
	z->avx512 = __builtin_cpu_supports("avx512f") != 0;
#endif
	/* each row of 16 words on a cache line of its own: a child's key reads a row with
	 * one 64-byte load (key_avx512), which costs two when the row straddles lines */
	const size_t tbytes = (size_t)64 * (size_t)nplanes * BP_ZOBRIST_MAX_SYM * sizeof *z->t;
	z->t = aligned_alloc(64, tbytes);
	if (!z->t) {
		free(z);
		return BP_ENOMEM;
	}
	memset(z->t, 0, tbytes);
	/* the words of one fixed stream: the same for every instance of a board */
	uint64_t zw[MAX_PLANES][64], st = 0x243f6a8885a308d3ull;
	for (int i = 0; i < nplanes; i++)
		for (int c = 0; c < 64; c++)
			zw[i][c] = bp_splitmix64(&st);
	for (int c = 0; c < b->ncells; c++)
		for (int i = 0; i < nplanes; i++)
			for (int s = 0; s < z->nsym; s++)
				z->t[((size_t)c * (size_t)nplanes + (size_t)i) *
					     BP_ZOBRIST_MAX_SYM +
				     (size_t)s] = zw[i][bp_board_sym(b, s, c)];
	choose_keys(z);
	*out = z;
	return BP_OK;
}

int bp_zobrist_set_vector(bp_zobrist *z, int on)
{
#ifdef AVX512_KEYS
	z->avx512 = on && __builtin_cpu_supports("avx512f");
#else
	(void)on;
#endif
	choose_keys(z);
	return z->avx512;
}

void bp_zobrist_destroy(bp_zobrist *z)
{
	if (!z)
		return;
	free(z->t);
	free(z);
}

uint64_t bp_zobrist_hash(const bp_zobrist *z, const uint64_t *planes, uint64_t extra, uint64_t *h)
{
	uint64_t e = extra_word(z, extra);
	for (int s = 0; s < z->nsym; s++)
		h[s] = e;
	for (int i = 0; i < z->nplanes; i++)
		for (uint64_t m = planes[i]; m; m &= m - 1) {
			int c = __builtin_ctzll(m);
			const uint64_t *row = &z->t[((size_t)c * (size_t)z->nplanes + (size_t)i) *
						    BP_ZOBRIST_MAX_SYM];
			for (int s = 0; s < z->nsym; s++)
				h[s] ^= row[s];
		}
	uint64_t best = h[0];
	for (int s = 1; s < z->nsym; s++)
		best = h[s] < best ? h[s] : best;
	return best;
}

/* h[s] ^ e ^ the rows' words s for s < nsym, written to out when not NULL; returns the
 * smallest. Inlined into copies where nsym, nrow and whether out is written are
 * constants (fold_n), so that the loop unrolls into straight XORs and compares: the
 * generic loop spent more on its own control than on the hashes, and this is the
 * hottest function of a proof-number search with class keys (one call per child). */
static inline __attribute__((always_inline)) uint64_t
fold(int nsym, int nrow, const uint64_t *src, uint64_t e, const uint64_t *const *row, uint64_t *out)
{
	uint64_t best = UINT64_MAX;
	for (int s = 0; s < nsym; s++) {
		uint64_t v = src[s] ^ e;
		for (int k = 0; k < nrow; k++)
			v ^= row[k][s];
		if (out)
			out[s] = v;
		best = v < best ? v : best;
	}
	return best;
}

static inline __attribute__((always_inline)) uint64_t fold_n(int nsym, int nrow,
							     const uint64_t *src, uint64_t e,
							     const uint64_t *const *row,
							     uint64_t *out)
{
	switch (nrow) {
	case 0: return out ? fold(nsym, 0, src, e, row, out) : fold(nsym, 0, src, e, row, NULL);
	case 1: return out ? fold(nsym, 1, src, e, row, out) : fold(nsym, 1, src, e, row, NULL);
	case 2: return out ? fold(nsym, 2, src, e, row, out) : fold(nsym, 2, src, e, row, NULL);
	case 3: return out ? fold(nsym, 3, src, e, row, out) : fold(nsym, 3, src, e, row, NULL);
	default: return out ? fold(nsym, 4, src, e, row, out) : fold(nsym, 4, src, e, row, NULL);
	}
}

/* The groups of the boards in use: square (8), hexagonal (12), rectangles and
 * rhombi (4), triangles (6) get their own copies; any other count the generic loop. */
static uint64_t fold_any(int nsym, int nrow, const uint64_t *src, uint64_t e,
			 const uint64_t *const *row, uint64_t *out)
{
	switch (nsym) {
	case 8: return fold_n(8, nrow, src, e, row, out);
	case 12: return fold_n(12, nrow, src, e, row, out);
	case 4: return fold_n(4, nrow, src, e, row, out);
	case 6: return fold_n(6, nrow, src, e, row, out);
	default: return fold(nsym, nrow, src, e, row, out);
	}
}

/* The key functions, one per (symmetries, rows) of the boards in use and a generic
 * one, chosen once per handle (choose_keys) so that a child's key costs one indirect
 * jump instead of the tests of the processor, the symmetry count and the row count
 * that each call made (the key is made once per child of a proof-number search). */
#define KEY_PORTABLE(NS, NR)                                                     \
	static uint64_t key_##NS##_##NR(int nsym, const uint64_t *h, uint64_t e, \
					const uint64_t *r0, const uint64_t *r1)  \
	{                                                                        \
		(void)nsym;                                                      \
		const uint64_t *const rows[2] = { r0, r1 };                      \
		return fold(NS, NR, h, e, rows, NULL);                           \
	}
KEY_PORTABLE(4, 1)
KEY_PORTABLE(4, 2)
KEY_PORTABLE(6, 1)
KEY_PORTABLE(6, 2)
KEY_PORTABLE(8, 1)
KEY_PORTABLE(8, 2)
KEY_PORTABLE(12, 1)
KEY_PORTABLE(12, 2)

static uint64_t key_any_1(int nsym, const uint64_t *h, uint64_t e, const uint64_t *r0,
			  const uint64_t *r1)
{
	const uint64_t *const rows[2] = { r0, r1 };
	return fold(nsym, 1, h, e, rows, NULL);
}

static uint64_t key_any_2(int nsym, const uint64_t *h, uint64_t e, const uint64_t *r0,
			  const uint64_t *r1)
{
	const uint64_t *const rows[2] = { r0, r1 };
	return fold(nsym, 2, h, e, rows, NULL);
}

#ifdef AVX512_KEYS
/* fold of one or two rows without out, for 8 or 12 symmetries on a processor with
 * AVX-512F (chosen at run time: the build targets older ones): the hashes in the lanes
 * of one or two 512-bit words and the smallest by one reduction, where the baseline's
 * 128-bit code needs four to six compares and blends of emulated unsigned 64-bit
 * order. */
__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) uint64_t
key_avx512(int nsym, int nrow, const uint64_t *h, uint64_t e, const uint64_t *r0,
	   const uint64_t *r1)
{
	__m512i ev = _mm512_set1_epi64((long long)e);
	__m512i v = _mm512_xor_si512(_mm512_loadu_si512(h), _mm512_loadu_si512(r0));
	if (nrow == 2)
		v = _mm512_xor_si512(v, _mm512_loadu_si512(r1));
	v = _mm512_xor_si512(v, ev);
	if (nsym == 12) {
		/* lanes 8 to 11; the others all ones, which no hash is below */
		const __mmask8 m = 0x0f;
		__m512i w = _mm512_xor_si512(_mm512_maskz_loadu_epi64(m, h + 8),
					     _mm512_maskz_loadu_epi64(m, r0 + 8));
		if (nrow == 2)
			w = _mm512_xor_si512(w, _mm512_maskz_loadu_epi64(m, r1 + 8));
		w = _mm512_mask_xor_epi64(_mm512_set1_epi64(-1), m, w, ev);
		v = _mm512_min_epu64(v, w);
	}
	return _mm512_reduce_min_epu64(v);
}

#define KEY_AVX512(NS, NR)                                                                       \
	__attribute__((target("avx512f"))) static uint64_t key_avx_##NS##_##NR(                  \
		int nsym, const uint64_t *h, uint64_t e, const uint64_t *r0, const uint64_t *r1) \
	{                                                                                        \
		(void)nsym;                                                                      \
		return key_avx512(NS, NR, h, e, r0, r1);                                         \
	}
KEY_AVX512(8, 1)
KEY_AVX512(8, 2)
KEY_AVX512(12, 1)
KEY_AVX512(12, 2)
#endif

static void choose_keys(bp_zobrist *z)
{
	switch (z->nsym) {
	case 4: z->key[0] = key_4_1, z->key[1] = key_4_2; break;
	case 6: z->key[0] = key_6_1, z->key[1] = key_6_2; break;
	case 8: z->key[0] = key_8_1, z->key[1] = key_8_2; break;
	case 12: z->key[0] = key_12_1, z->key[1] = key_12_2; break;
	default: z->key[0] = key_any_1, z->key[1] = key_any_2; break;
	}
#ifdef AVX512_KEYS
	if (z->avx512 && z->nsym == 8)
		z->key[0] = key_avx_8_1, z->key[1] = key_avx_8_2;
	if (z->avx512 && z->nsym == 12)
		z->key[0] = key_avx_12_1, z->key[1] = key_avx_12_2;
#endif
}

uint64_t bp_zobrist_update(const bp_zobrist *z, const uint64_t *from, const uint64_t *to,
			   uint64_t extra_from, uint64_t extra_to, const uint64_t *h, uint64_t *out)
{
	/* the rows of the changed cells, in batches of four folded into out (a move
	 * changes one to four cells; more take more passes), then one last fold that
	 * also takes the smallest */
	uint64_t e =
		extra_from == extra_to ? 0 : extra_word(z, extra_from) ^ extra_word(z, extra_to);
	const uint64_t *row[4];
	int nrow = 0;
	const uint64_t *src = h;
	uint64_t tmp[BP_ZOBRIST_MAX_SYM];
	for (int i = 0; i < z->nplanes; i++)
		for (uint64_t m = from[i] ^ to[i]; m; m &= m - 1) {
			int c = __builtin_ctzll(m);
			row[nrow++] = &z->t[((size_t)c * (size_t)z->nplanes + (size_t)i) *
					    BP_ZOBRIST_MAX_SYM];
			if (nrow == 4) {
				uint64_t *dst = out ? out : tmp;
				fold_any(z->nsym, 4, src, 0, row, dst);
				src = dst;
				nrow = 0;
			}
		}
	return fold_any(z->nsym, nrow, src, e, row, out);
}

uint64_t bp_zobrist_update_cells(const bp_zobrist *z, const int *cells, int ncells,
				 uint64_t extra_from, uint64_t extra_to, const uint64_t *h,
				 uint64_t *out)
{
	assert(ncells >= 0 && ncells <= 4);
	uint64_t e =
		extra_from == extra_to ? 0 : extra_word(z, extra_from) ^ extra_word(z, extra_to);
	if (!out && (ncells == 1 || ncells == 2))
		/* a child's key in a search (one stone, or a stone and a neutral): the rows
		 * straight from the cells, no row array */
		return z->key[ncells - 1](z->nsym, h, e,
					  &z->t[(size_t)cells[0] * BP_ZOBRIST_MAX_SYM],
					  &z->t[(size_t)cells[ncells - 1] * BP_ZOBRIST_MAX_SYM]);
	const uint64_t *row[4];
	for (int k = 0; k < ncells; k++)
		row[k] = &z->t[(size_t)cells[k] * BP_ZOBRIST_MAX_SYM];
	return fold_any(z->nsym, ncells, h, e, row, out);
}

uint64_t bp_zobrist_child_key(const bp_zobrist *z, int c0, int c1, uint64_t extra_from,
			      uint64_t extra_to, const uint64_t *h)
{
	uint64_t e =
		extra_from == extra_to ? 0 : extra_word(z, extra_from) ^ extra_word(z, extra_to);
	const uint64_t *r0 = &z->t[(size_t)c0 * BP_ZOBRIST_MAX_SYM];
	return z->key[c1 >= 0](z->nsym, h, e, r0,
			       c1 >= 0 ? &z->t[(size_t)c1 * BP_ZOBRIST_MAX_SYM] : r0);
}

void bp_zobrist_keys(const bp_zobrist *z, struct bp_zobrist_keys *out)
{
	out->nsym = z->nsym;
	out->t = z->t;
	out->ex = z->ex;
	out->key[0] = z->key[0];
	out->key[1] = z->key[1];
}
