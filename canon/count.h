/* SPDX-License-Identifier: MIT */
/* Exact counting with GMP: fillings of a board fixed by a symmetry, and Burnside's
 * lemma for the number of classes up to symmetry. Counts on big boards exceed 2^64
 * (3^61 on blooms:hex5 alone), so everything here is an mpz_t. */
#ifndef BP_CANON_COUNT_H
#define BP_CANON_COUNT_H

#include <gmp.h>

#include "canon/board.h"

/* The cycle lengths of board symmetry s, into lengths (room for b->ncells).
 * @return the number of cycles. */
int bp_sym_cycles(const struct bp_board *b, int s, int *lengths);

/* For k = 0..b->ncells, coef[k] = the number of ways to put a stone of one of
 * `colours` colours on exactly k cells, the rest empty, such that symmetry s maps the
 * filling to itself: the coefficient of z^k in the product over the cycles of s of
 * (1 + colours * z^len). coef must hold b->ncells + 1 initialised mpz_t.
 * With s = 0 (the identity) this is C(n, k) * colours^k.
 * @return BP_OK; BP_ENOMEM. */
int bp_count_fixed_fillings(const struct bp_board *b, int s, unsigned long colours, mpz_t *coef);

/* Burnside: classes = (sum of fixed[i] over the group) / group_size, asserting that
 * the division is exact (a failed assertion means a fixed-point count is wrong). */
void bp_count_burnside(mpz_t classes, const mpz_t *fixed, int group_size);

#endif
