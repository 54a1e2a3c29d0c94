/* SPDX-License-Identifier: MIT */
/* Colex order is chosen over lex order because a subset's rank does not depend on the
 * board size, so the same code ranks every board, and because it is a plain sum of
 * table entries. Unranking walks from the top element down, finding each element by
 * binary search over the column of the binomial table. */
#include "canon/rank.h"

#include <assert.h>

static uint64_t binom_table[65][65];
static int binom_ready;

static void binom_init(void)
{
	for (int n = 0; n <= 64; n++) {
		binom_table[n][0] = 1;
		for (int k = 1; k <= n; k++)
			binom_table[n][k] =
				binom_table[n - 1][k - 1] + (k < n ? binom_table[n - 1][k] : 0);
	}
	binom_ready = 1;
}

uint64_t bp_binom(int n, int k)
{
	/* the table is written once with the same values, so a race on first use is
	 * harmless; call bp_binom once before starting threads to avoid it entirely */
	if (!binom_ready)
		binom_init();
	if (n < 0 || n > 64 || k < 0 || k > n)
		return 0;
	return binom_table[n][k];
}

uint64_t bp_rank_subset(uint64_t mask)
{
	if (!binom_ready)
		binom_init();
	uint64_t rank = 0;
	int i = 1;
	while (mask) {
		int c = __builtin_ctzll(mask);
		mask &= mask - 1;
		rank += c >= i ? binom_table[c][i] : 0;
		i++;
	}
	return rank;
}

uint64_t bp_unrank_subset(int k, uint64_t index)
{
	if (!binom_ready)
		binom_init();
	uint64_t mask = 0;
	int hi = 64; /* elements are below hi */
	for (int i = k; i >= 1; i--) {
		/* largest c < hi with C(c, i) <= index; C(c, i) grows with c for c >= i */
		int lo = i - 1, top = hi - 1;
		while (lo < top) {
			int mid = (lo + top + 1) / 2;
			if (binom_table[mid][i] <= index)
				lo = mid;
			else
				top = mid - 1;
		}
		assert(lo >= i - 1);
		mask |= 1ull << lo;
		index -= lo >= i ? binom_table[lo][i] : 0;
		hi = lo;
	}
	return mask;
}

uint64_t bp_bits_extract(uint64_t v, uint64_t mask)
{
	uint64_t out = 0;
	for (uint64_t bit = 1; mask; bit <<= 1) {
		uint64_t low = mask & -mask;
		if (v & low)
			out |= bit;
		mask ^= low;
	}
	return out;
}

uint64_t bp_bits_deposit(uint64_t v, uint64_t mask)
{
	uint64_t out = 0;
	for (uint64_t bit = 1; mask; bit <<= 1) {
		uint64_t low = mask & -mask;
		if (v & bit)
			out |= low;
		mask ^= low;
	}
	return out;
}
