/* SPDX-License-Identifier: MIT */
/* The walk engine: retrograde analysis over expanded tiers, for games with a tier walk
 * (bp_game_ops.tier_walk). It stores the same table as the tiers engine, much faster.
 * Called through bp_solve (solver/solve.h). */
#ifndef BP_SOLVER_EXPANDED_H
#define BP_SOLVER_EXPANDED_H

#include "solver/engine.h"

/* Solves g (which must have a tier walk) into db. Returns as bp_solve. */
int bp_solve_walk(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		  struct bp_solve_result *out, struct bp_err *err);

#endif
