/* SPDX-License-Identifier: MIT */
/* The tiers engine: strong solving of a tiered game by retrograde analysis, tier by
 * tier, canonicalizing and ranking every child. Tiers are solved from the last to the
 * first, each in its own transaction, so an interrupted solve resumes at the first
 * tier not yet stored. Called through bp_solve (solver/solve.h). */
#ifndef BP_SOLVER_RETROGRADE_H
#define BP_SOLVER_RETROGRADE_H

#include "solver/engine.h"

/* Estimates the memory a solve of g needs (reachability bitmaps plus the records of
 * the two largest neighbouring tiers). @return BP_OK; BP_EUNSUPPORTED; BP_ERANGE. */
int bp_solve_tiers_estimate(const struct bp_game *g, uint64_t *bytes);

/* Solves g into db with the tiers engine, whatever g's flags (bp_solve checks that
 * g never repeats a position). Returns as bp_solve. */
int bp_solve_tiers(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		   struct bp_solve_result *out, struct bp_err *err);

#endif
