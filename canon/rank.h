/* SPDX-License-Identifier: MIT */
/* Dense ranking of cell sets: the colexicographic rank of a k-subset of 64 cells
 * (0 .. C(n, k) - 1, independent of n), its inverse, binomial coefficients, and
 * bit extraction and deposit, from which games build the rank of a whole position
 * within its tier (for example: which cells hold stones, then which of those are
 * black). */
#ifndef BP_CANON_RANK_H
#define BP_CANON_RANK_H

#include <stdint.h>

/* C(n, k) for 0 <= n <= 64; 0 when k < 0 or k > n. Every such value fits. */
uint64_t bp_binom(int n, int k);

/* Colex rank of the set of bits of mask among all sets of the same size:
 * sum over its i-th lowest set bit c_i (i from 1) of C(c_i, i). */
uint64_t bp_rank_subset(uint64_t mask);

/* The k-subset of colex rank index (index < C(64, k)). */
uint64_t bp_unrank_subset(int k, uint64_t index);

/* The bits of v at the positions of mask, packed into the low bits (as x86 PEXT). */
uint64_t bp_bits_extract(uint64_t v, uint64_t mask);

/* The low bits of v spread to the positions of mask (as x86 PDEP). */
uint64_t bp_bits_deposit(uint64_t v, uint64_t mask);

#endif
