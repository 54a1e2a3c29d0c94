/* SPDX-License-Identifier: MIT */
/* Subset ranking: colex rank and unrank are inverse bijections onto 0..C(n,k)-1, in
 * increasing order of the sets read as numbers; bit extract and deposit. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "canon/rank.h"

Test(rank, binomials)
{
	cr_expect_eq(bp_binom(0, 0), 1);
	cr_expect_eq(bp_binom(5, 2), 10);
	cr_expect_eq(bp_binom(64, 32), 1832624140942590534ull);
	cr_expect_eq(bp_binom(64, 64), 1);
	cr_expect_eq(bp_binom(3, 4), 0);
	cr_expect_eq(bp_binom(3, -1), 0);
	for (int n = 1; n <= 64; n++)
		for (int k = 1; k < n; k++)
			cr_assert_eq(bp_binom(n, k), bp_binom(n - 1, k - 1) + bp_binom(n - 1, k));
}

/* For n = 12, every k: enumerate all 12-bit masks in increasing order; the masks of
 * popcount k must get ranks 0, 1, 2, ... (colex order of sets = numeric order). */
Test(rank, whole_levels_in_order)
{
	int next[13] = { 0 };
	for (uint64_t m = 0; m < (1u << 12); m++) {
		int k = __builtin_popcountll(m);
		cr_assert_eq(bp_rank_subset(m), (uint64_t)next[k], "mask %llx",
			     (unsigned long long)m);
		cr_assert_eq(bp_unrank_subset(k, (uint64_t)next[k]), m);
		next[k]++;
	}
	for (int k = 0; k <= 12; k++)
		cr_expect_eq((uint64_t)next[k], bp_binom(12, k));
}

Test(rank, wide_masks)
{
	uint64_t seed = 0x12345678;
	printf("rank.wide_masks: seed %llu\n", (unsigned long long)seed);
	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t m = seed ^ (seed >> 17);
		int k = __builtin_popcountll(m);
		uint64_t r = bp_rank_subset(m);
		cr_assert_lt(r, bp_binom(64, k));
		cr_assert_eq(bp_unrank_subset(k, r), m);
	}
	cr_expect_eq(bp_rank_subset(~0ull), 0);
	cr_expect_eq(bp_unrank_subset(64, 0), ~0ull);
	cr_expect_eq(bp_rank_subset(1ull << 63), 63);
}

Test(rank, extract_deposit)
{
	cr_expect_eq(bp_bits_extract(0xF0, 0xAA), 0xC);
	cr_expect_eq(bp_bits_deposit(0xC, 0xAA), 0xA0);
	uint64_t seed = 42;
	for (int i = 0; i < 10000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t mask = seed, v = seed * 31 + 7;
		uint64_t e = bp_bits_extract(v, mask);
		cr_assert_lt(e, __builtin_popcountll(mask) == 64
					? ~0ull
					: (1ull << __builtin_popcountll(mask)));
		cr_assert_eq(bp_bits_deposit(e, mask), v & mask);
	}
}
