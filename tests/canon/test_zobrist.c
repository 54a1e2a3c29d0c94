/* SPDX-License-Identifier: MIT */
/* Zobrist hashes of images (canon/zobrist.c): h[s] is the identity hash of the image
 * under symmetry s, the smallest is returned, and an update by any number of changed
 * cells (one to a whole board, so past the four-row batches) equals the full hash. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "canon/symmetry.h"
#include "canon/zobrist.h"
#include "tests/rng.h"

ParameterizedTestParameters(zobrist, images_and_updates)
{
	static char names[][8] = { "hex2", "hex4", "tri6", "rh4x4", "8x8", "5x6", "3x3" };
	return cr_make_param_array(char[8], names, sizeof names / sizeof names[0]);
}

ParameterizedTest(char (*name)[8], zobrist, images_and_updates)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	int syms[BP_ZOBRIST_MAX_SYM];
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	bp_perm64 *t;
	bp_zobrist *z;
	cr_assert_eq(bp_perm64_create(b, syms, b->nsym, &t), BP_OK);
	cr_assert_eq(bp_zobrist_create(b, 3, &z), BP_OK);
	uint64_t full = b->ncells == 64 ? ~0ull : (1ull << b->ncells) - 1, seed = 77;
	printf("zobrist.images_and_updates %s: seed 77\n", *name);
	for (int i = 0; i < 3000; i++) {
		uint64_t p[3], q[3], h[BP_ZOBRIST_MAX_SYM], hi[BP_ZOBRIST_MAX_SYM];
		uint64_t hq[BP_ZOBRIST_MAX_SYM], hu[BP_ZOBRIST_MAX_SYM];
		for (int k = 0; k < 3; k++)
			p[k] = splitmix64(&seed) & full;
		uint64_t extra = splitmix64(&seed) % 5;
		uint64_t key = bp_zobrist_hash(z, p, extra, h), least = h[0];
		for (int s = 0; s < b->nsym; s++) {
			uint64_t img[3];
			for (int k = 0; k < 3; k++)
				img[k] = bp_perm64_apply(t, s, p[k]);
			cr_expect_eq(bp_zobrist_hash(z, img, extra, hi), key);
			cr_expect_eq(hi[0], h[s], "%s: h[%d] is not the image's hash", *name, s);
			least = h[s] < least ? h[s] : least;
		}
		cr_expect_eq(key, least);
		/* change 1, 2, ... cells (i % 9 + 1 of them, or random words) */
		for (int k = 0; k < 3; k++)
			q[k] = p[k];
		int nchange = i % 10;
		if (nchange == 9)
			for (int k = 0; k < 3; k++)
				q[k] = splitmix64(&seed) & full;
		else
			for (int c = 0; c <= nchange; c++)
				q[c % 3] ^= (1ull << (splitmix64(&seed) % (uint64_t)b->ncells));
		uint64_t qextra = i & 1 ? extra : splitmix64(&seed) % 5;
		uint64_t want = bp_zobrist_hash(z, q, qextra, hq);
		cr_expect_eq(bp_zobrist_update(z, p, q, extra, qextra, h, hu), want);
		cr_expect_eq(memcmp(hu, hq, sizeof(uint64_t) * (size_t)b->nsym), 0, "%s: update",
			     *name);
		cr_expect_eq(bp_zobrist_update(z, p, q, extra, qextra, h, NULL), want);
		/* in place */
		cr_expect_eq(bp_zobrist_update(z, p, q, extra, qextra, h, h), want);
		cr_expect_eq(memcmp(h, hq, sizeof(uint64_t) * (size_t)b->nsym), 0);
	}
	bp_zobrist_destroy(z);
	bp_perm64_destroy(t);
	bp_board_destroy(b);
}

ParameterizedTestParameters(zobrist, named_cells)
{
	static char names[][8] = { "hex4", "tri6", "rh4x4", "5x5", "5x6", "3x3", "rh4x5", "hex3" };
	return cr_make_param_array(char[8], names, sizeof names / sizeof names[0]);
}

/* bp_zobrist_update_cells, told the changed cells (one to four, on any planes), equals
 * the full hash of the changed position, its images' hashes included; so does
 * bp_zobrist_child_key for one or two. Every symmetry count with a copy of its own (4,
 * 6, 8, 12) and one without (rh4x5: 2). */
ParameterizedTest(char (*name)[8], zobrist, named_cells)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	bp_zobrist *z;
	cr_assert_eq(bp_zobrist_create(b, 3, &z), BP_OK);
	uint64_t full = b->ncells == 64 ? ~0ull : (1ull << b->ncells) - 1, seed = 78;
	printf("zobrist.named_cells %s: seed 78\n", *name);
	/* the keys by the processor's vector instructions (where it has them) and by the
	 * portable code, both against the full hash */
	for (int i = 0; i < 6000; i++) {
		if (i % 3000 == 0)
			bp_zobrist_set_vector(z, i == 0);
		uint64_t p[3], q[3], h[BP_ZOBRIST_MAX_SYM], hq[BP_ZOBRIST_MAX_SYM];
		uint64_t hu[BP_ZOBRIST_MAX_SYM];
		for (int k = 0; k < 3; k++)
			q[k] = p[k] = splitmix64(&seed) & full;
		uint64_t extra = splitmix64(&seed) % 5, qextra = i & 1 ? extra : (uint64_t)(i % 7);
		bp_zobrist_hash(z, p, extra, h);
		int cells[4], n = i % 5;
		for (int k = 0; k < n; k++) {
			int c, plane;
			do {
				c = (int)(splitmix64(&seed) % (uint64_t)b->ncells);
				plane = (int)(splitmix64(&seed) % 3);
			} while ((q[plane] ^ p[plane]) >> c & 1); /* each cell of a plane once */
			q[plane] ^= 1ull << c;
			cells[k] = c * 3 + plane;
		}
		uint64_t want = bp_zobrist_hash(z, q, qextra, hq);
		cr_expect_eq(bp_zobrist_update_cells(z, cells, n, extra, qextra, h, NULL), want,
			     "%s: %d cells", *name, n);
		if (n == 1 || n == 2)
			cr_expect_eq(bp_zobrist_child_key(z, cells[0], n == 2 ? cells[1] : -1,
							  extra, qextra, h),
				     want, "%s: child key, %d cells", *name, n);
		cr_expect_eq(bp_zobrist_update_cells(z, cells, n, extra, qextra, h, hu), want);
		cr_expect_eq(memcmp(hu, hq, sizeof(uint64_t) * (size_t)b->nsym), 0, "%s: images",
			     *name);
	}
	bp_zobrist_destroy(z);
	bp_board_destroy(b);
}

/* The extra word's part of every hash is mix(extra) as first written (splitmix64 of
 * extra ^ 0x6a09e667f3bcc909, here computed anew): the table of the small words'
 * mixes must give the same, or the keys change and a kept table of an earlier build
 * no longer opens. Words on both sides of the table's end, and updates across it. */
Test(zobrist, extra_words)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("5x5", &b, NULL), BP_OK);
	bp_zobrist *z;
	cr_assert_eq(bp_zobrist_create(b, 2, &z), BP_OK);
	static const uint64_t extras[] = {
		0, 1, 2, 3, 258, 513, 1023, 1024, 1025, 5000, (uint64_t)1 << 40, UINT64_MAX
	};
	const int n = (int)(sizeof extras / sizeof extras[0]);
	uint64_t none[2] = { 0, 0 }, h[BP_ZOBRIST_MAX_SYM], hq[BP_ZOBRIST_MAX_SYM];
	for (int i = 0; i < n; i++) {
		uint64_t st = extras[i] ^ 0x6a09e667f3bcc909ull;
		st += 0x9E3779B97F4A7C15ull;
		st = (st ^ (st >> 30)) * 0xBF58476D1CE4E5B9ull;
		st = (st ^ (st >> 27)) * 0x94D049BB133111EBull;
		uint64_t want = st ^ (st >> 31);
		cr_expect_eq(bp_zobrist_hash(z, none, extras[i], h), want, "extra %llu",
			     (unsigned long long)extras[i]);
		for (int s = 0; s < b->nsym; s++)
			cr_expect_eq(h[s], want);
	}
	uint64_t seed = 79;
	printf("zobrist.extra_words: seed 79\n");
	for (int i = 0; i < 2000; i++) {
		uint64_t p[2], q[2];
		for (int k = 0; k < 2; k++)
			q[k] = p[k] = splitmix64(&seed) & ((1ull << 25) - 1);
		uint64_t from = extras[splitmix64(&seed) % (uint64_t)n];
		uint64_t to = extras[splitmix64(&seed) % (uint64_t)n];
		bp_zobrist_hash(z, p, from, h);
		int cells[2], nc = 1 + i % 2;
		for (int k = 0; k < nc; k++) {
			int c = (int)(splitmix64(&seed) % 25);
			while ((q[k] ^ p[k]) >> c & 1)
				c = (c + 1) % 25;
			q[k] ^= 1ull << c;
			cells[k] = c * 2 + k;
		}
		uint64_t want = bp_zobrist_hash(z, q, to, hq);
		cr_expect_eq(bp_zobrist_update_cells(z, cells, nc, from, to, h, NULL), want);
		cr_expect_eq(
			bp_zobrist_child_key(z, cells[0], nc == 2 ? cells[1] : -1, from, to, h),
			want);
		cr_expect_eq(bp_zobrist_update(z, p, q, from, to, h, NULL), want);
	}
	bp_zobrist_destroy(z);
	bp_board_destroy(b);
}
