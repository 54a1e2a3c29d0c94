/* SPDX-License-Identifier: MIT */
/* A filling fixed by a permutation is constant on each of its cycles, so the fixed
 * fillings of a symmetry are counted by multiplying one small polynomial per cycle:
 * a cycle of length L is either empty (1) or filled with one colour (colours * z^L). */
#include "canon/count.h"

#include <assert.h>
#include <stdlib.h>

int bp_sym_cycles(const struct bp_board *b, int s, int *lengths)
{
	int n = b->ncells, ncyc = 0;
	char *seen = calloc((size_t)n, 1);
	if (!seen)
		return BP_ENOMEM;
	for (int c = 0; c < n; c++) {
		if (seen[c])
			continue;
		int len = 0;
		for (int x = c; !seen[x]; x = bp_board_sym(b, s, x)) {
			seen[x] = 1;
			len++;
		}
		lengths[ncyc++] = len;
	}
	free(seen);
	return ncyc;
}

int bp_count_fixed_fillings(const struct bp_board *b, int s, unsigned long colours, mpz_t *coef)
{
	int n = b->ncells;
	int *len = malloc(sizeof(int) * (size_t)n);
	if (!len)
		return BP_ENOMEM;
	int ncyc = bp_sym_cycles(b, s, len);
	if (ncyc < 0) {
		free(len);
		return ncyc;
	}
	for (int k = 0; k <= n; k++)
		mpz_set_ui(coef[k], k == 0);
	int deg = 0;
	mpz_t t;
	mpz_init(t);
	for (int i = 0; i < ncyc; i++) {
		/* multiply by (1 + colours z^L), highest degree first so each term is used once */
		for (int k = deg; k >= 0; k--) {
			mpz_mul_ui(t, coef[k], colours);
			mpz_add(coef[k + len[i]], coef[k + len[i]], t);
		}
		deg += len[i];
	}
	assert(deg == n);
	mpz_clear(t);
	free(len);
	return BP_OK;
}

void bp_count_burnside(mpz_t classes, const mpz_t *fixed, int group_size)
{
	mpz_set_ui(classes, 0);
	for (int i = 0; i < group_size; i++)
		mpz_add(classes, classes, fixed[i]);
	assert(mpz_divisible_ui_p(classes, (unsigned long)group_size));
	mpz_divexact_ui(classes, classes, (unsigned long)group_size);
}
