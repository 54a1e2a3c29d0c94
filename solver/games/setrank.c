/* SPDX-License-Identifier: MIT */
/* Byte tables of colex terms (see the header). */
#include "solver/games/setrank.h"

#include <assert.h>

#include "canon/rank.h"

void bp_setrank_init(struct bp_setrank *r)
{
	for (int b = 0; b < 3; b++)
		for (int j = 0; j <= 8 * b; j++)
			for (int v = 0; v < 256; v++) {
				uint64_t sum = 0;
				int k = 0;
				for (int i = 0; i < 8; i++)
					if (v >> i & 1)
						sum += bp_binom(8 * b + i, j + ++k);
				assert(sum <= UINT32_MAX);
				r->row[BP_SETRANK_ROW(b, j)][v] = (uint32_t)sum;
			}
}
