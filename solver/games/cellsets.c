/* SPDX-License-Identifier: MIT */
/* The walks' table of cell sets (see the header). One pass over the 2^n sets, each
 * imaged by every symmetry until a smaller image settles it, and two flood fills. */
#include "solver/games/cellsets.h"

#include <stdlib.h>

static void fill(const struct bp_loops *L, const bp_perm64 *perm, int nsym, uint16_t *z)
{
	for (uint64_t s = 0; s <= L->full; s++) {
		unsigned e = 0;
		for (int sy = 1; sy < nsym && !(e & BP_CELLSETS_SMALLER); sy++) {
			uint64_t img = bp_perm64_apply(perm, sy, s);
			e |= img < s ? BP_CELLSETS_SMALLER : img == s ? 1u << sy : 0;
		}
		if (e & BP_CELLSETS_SMALLER)
			e = BP_CELLSETS_SMALLER;
		e |= bp_loops_enclosed(L, 0, s) ? BP_CELLSETS_LOOP0 : 0;
		e |= bp_loops_enclosed(L, 1, s) ? BP_CELLSETS_LOOP1 : 0;
		z[s] = (uint16_t)e;
	}
}

const uint16_t *bp_cellsets_get(uint16_t **slot, const struct bp_loops *L, const bp_perm64 *perm,
				int nsym)
{
	uint16_t *z = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *none = NULL;
	if (z || L->ncells > BP_CELLSETS_CELLS || nsym > 12)
		return z;
	if (!(z = malloc(sizeof *z << L->ncells)))
		return NULL;
	fill(L, perm, nsym, z);
	if (!__atomic_compare_exchange_n(slot, &none, z, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		free(z);
		z = none;
	}
	return z;
}
