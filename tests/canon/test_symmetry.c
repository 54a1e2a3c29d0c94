/* SPDX-License-Identifier: MIT */
/* Byte-table permutations agree with the cell permutations they were built from, and
 * canonical forms are the same for every image of a position. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>

#include "canon/symmetry.h"

static uint64_t slow_apply(const struct bp_board *b, int s, uint64_t m)
{
	uint64_t out = 0;
	for (int c = 0; c < b->ncells; c++)
		if (m >> c & 1)
			out |= 1ull << bp_board_sym(b, s, c);
	return out;
}

ParameterizedTestParameters(symmetry, tables)
{
	static char names[][8] = { "hex2",  "hex3",  "hex4", "hex5", "tri6",
				   "rh4x4", "rh3x7", "8x8",  "5x6" };
	return cr_make_param_array(char[8], names, sizeof names / sizeof names[0]);
}

ParameterizedTest(char (*name)[8], symmetry, tables)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	int syms[12];
	for (int s = 0; s < b->nsym; s++)
		syms[s] = s;
	bp_perm64 *t;
	cr_assert_eq(bp_perm64_create(b, syms, b->nsym, &t), BP_OK);
	cr_expect_eq(bp_perm64_count(t), b->nsym);
	uint64_t full = b->ncells == 64 ? ~0ull : (1ull << b->ncells) - 1, seed = 5;
	printf("symmetry.tables %s: seed 5\n", *name);
	for (int i = 0; i < 2000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t planes[2] = { (seed >> 3) & full, 0 }, canon[2], img[2], ci[2];
		planes[1] = (seed * 0x9e3779b97f4a7c15ull) & full & ~planes[0];
		bp_perm64_canonical(t, planes, 2, canon);
		for (int s = 0; s < b->nsym; s++) {
			img[0] = bp_perm64_apply(t, s, planes[0]);
			img[1] = bp_perm64_apply(t, s, planes[1]);
			cr_assert_eq(img[0], slow_apply(b, s, planes[0]));
			uint64_t words_in[1] = { planes[1] }, words_out[1];
			bp_sym_apply_bits(b, s, words_in, words_out);
			cr_assert_eq(img[1], words_out[0]);
			bp_perm64_canonical(t, img, 2, ci);
			cr_assert(ci[0] == canon[0] && ci[1] == canon[1], "%s: symmetry %d", *name,
				  s);
		}
	}
	bp_perm64_destroy(t);
	bp_board_destroy(b);
}

Test(symmetry, big_board_bits)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("27x27", &b, NULL), BP_OK);
	bp_perm64 *t;
	int s0 = 0;
	cr_expect_eq(bp_perm64_create(b, &s0, 1, &t), BP_ERANGE);
	uint64_t in[12] = { 0 }, out[12], back[12];
	in[0] = 1;		      /* a1 */
	in[11] = 1ull << (728 - 704); /* the last cell, aa27 */
	for (int s = 0; s < b->nsym; s++) {
		bp_sym_apply_bits(b, s, in, out);
		int inv = bp_sym_inverse(b, s);
		bp_sym_apply_bits(b, inv, out, back);
		for (int w = 0; w < 12; w++)
			cr_assert_eq(back[w], in[w]);
		int count = 0;
		for (int w = 0; w < 12; w++)
			count += __builtin_popcountll(out[w]);
		cr_expect_eq(count, 2);
	}
	bp_board_destroy(b);
}
