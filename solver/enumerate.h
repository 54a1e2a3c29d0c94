/* SPDX-License-Identifier: MIT */
/* Enumeration of the positions reachable from the start, tier by tier, with one bit
 * per index of a tier's dense index space: the exact count of a tiered game where
 * no formula is known, and the cross-check of the formulas where one is. */
#ifndef BP_SOLVER_ENUMERATE_H
#define BP_SOLVER_ENUMERATE_H

#include <stdint.h>

#include "solver/games/game.h"

struct bp_enum_counts {
	uint32_t ntiers;
	uint64_t *raw;	   /* reachable positions per tier */
	uint64_t *classes; /* of which canonical (one per class up to symmetry) */
};

/* Called after each tier with the tier's counts; may be NULL. */
typedef void bp_enum_progress(void *ctx, uint32_t tier, uint64_t raw, uint64_t classes);

/* Enumerates every position reachable from g's start position. Needs a tiered game
 * (ops->tier, tier_size, rank, unrank) whose moves always lead to higher tiers.
 * Refuses with BP_ERANGE, before any work, when the bitmaps of the two largest
 * consecutive tiers would exceed max_bytes. out->raw and out->classes are allocated
 * here; free them with bp_enum_counts_free.
 * @return BP_OK; BP_EUNSUPPORTED (not tiered); BP_ERANGE; BP_ENOMEM. */
int bp_enumerate(const struct bp_game *g, uint64_t max_bytes, bp_enum_progress *progress, void *ctx,
		 struct bp_enum_counts *out);

void bp_enum_counts_free(struct bp_enum_counts *c);

#endif
