/* SPDX-License-Identifier: MIT */
/* Breadth-first enumeration of the positions reachable from the start with a hash set,
 * for games without tiers (cyclic games such as Blooms, where positions repeat and no
 * dense index is known). Positions are grouped by depth: the fewest turns that reach
 * them. Counts are exact; the work is refused, without a partial answer, as soon as
 * the set would pass a memory limit. */
#ifndef BP_SOLVER_REACH_H
#define BP_SOLVER_REACH_H

#include <stdint.h>

#include "solver/game.h"

struct bp_reach_counts {
	uint32_t ndepths;
	uint64_t *raw;	    /* per depth: positions first reached after that many turns */
	uint64_t *classes;  /* of which canonical (one per class up to symmetry) */
	uint64_t *terminal; /* of raw, the positions where the game is over */
};

/* Called after each depth with its counts; may be NULL. */
typedef void bp_reach_progress(void *ctx, uint32_t depth, uint64_t raw, uint64_t classes);

/* Enumerates every position reachable from g's start position, of any game. Stores
 * each position once, as its words up to the last one that any position uses, so the
 * memory is about (8 * words + 8) bytes a position. Class counts assume, as for every
 * game here, that the reachable set is closed under the instance's symmetries (true
 * when the start position and the rules are symmetric).
 * out's arrays are allocated here; free them with bp_reach_counts_free.
 * @return BP_OK; BP_ERANGE when the set would pass max_bytes or 2^32 - 2 positions
 * (out is then empty); BP_ENOMEM. */
int bp_reach(const struct bp_game *g, uint64_t max_bytes, bp_reach_progress *progress, void *ctx,
	     struct bp_reach_counts *out);

void bp_reach_counts_free(struct bp_reach_counts *c);

#endif
