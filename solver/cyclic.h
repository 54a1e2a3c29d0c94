/* SPDX-License-Identifier: MIT */
/* Strong solving of a game whose positions can repeat (Blooms), or of any game with
 * dense ranking, by level-synchronous retrograde passes over the whole index space
 * held in memory. What no pass resolves is a draw by repetition, stored with no
 * remoteness (BP_RECORD_NO_REMOTENESS). On an acyclic game it gives exactly what the
 * tiered solver (solver/retrograde.h) gives, which the tests use as a cross-check. */
#ifndef BP_SOLVER_CYCLIC_H
#define BP_SOLVER_CYCLIC_H

#include "solver/engine.h"

/* The cycles engine, as bp_solve, for any game with tier, tier_size, rank and unrank,
 * whether or not its
 * moves raise the tier. Every tier is in memory at once; the table is written when
 * the solve is complete (an interrupted cyclic solve starts again). */
int bp_solve_cycles(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		    struct bp_solve_result *out, struct bp_err *err);

/* The memory bp_solve_cycles needs. @return as bp_solve_tiers_estimate. */
int bp_solve_cycles_estimate(const struct bp_game *g, uint64_t *bytes);

#endif
