/* SPDX-License-Identifier: MIT */
/* The colex rank of a small cell set (below 2^BP_SETRANK_BITS) by one look-up a byte,
 * as bp_rank_subset gives it bit by bit: the tier walks rank a pattern of stones
 * within a set (orange within the friendly stones, and so on) per symmetry image.
 * Byte b of a set, with j of its elements in the bytes below, adds
 * row[BP_SETRANK_ROW(b, j)][byte]: the colex terms C(8b + i, j + r + 1) of its r-th
 * element i. */
#ifndef BP_SOLVER_GAMES_SETRANK_H
#define BP_SOLVER_GAMES_SETRANK_H

#include <stdint.h>

#define BP_SETRANK_BITS 24
#define BP_SETRANK_ROW(b, j) ((b) * (8 * (b)-6) / 2 + (j)) /* rows 0; 1..9; 10..26 */
#define BP_SETRANK_ROWS 27

struct bp_setrank {
	uint32_t row[BP_SETRANK_ROWS][256];
};

/* Fills the rows (27 KiB; a few thousand binomials). */
void bp_setrank_init(struct bp_setrank *r);

/* The colex rank of set (set < 2^BP_SETRANK_BITS), equal to bp_rank_subset(set). */
static inline uint64_t bp_setrank_of(const struct bp_setrank *r, uint64_t set)
{
	const uint32_t lo = (uint32_t)set & 255, mid = (uint32_t)(set >> 8) & 255;
	return (uint64_t)r->row[BP_SETRANK_ROW(0, 0)][lo] +
	       r->row[BP_SETRANK_ROW(1, __builtin_popcount(lo))][mid] +
	       r->row[BP_SETRANK_ROW(2, __builtin_popcountll(set & 0xffff))][set >> 16 & 255];
}

/* bp_setrank_of for a set below 2^16: two look-ups (the third byte adds 0). */
static inline uint64_t bp_setrank_of16(const struct bp_setrank *r, uint64_t set)
{
	const uint32_t lo = (uint32_t)set & 255, mid = (uint32_t)(set >> 8) & 255;
	return (uint64_t)r->row[BP_SETRANK_ROW(0, 0)][lo] +
	       r->row[BP_SETRANK_ROW(1, __builtin_popcount(lo))][mid];
}

#endif
