/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the two solvers (solver/retrograde.c, solver/cyclic.c): the
 * memory check made before any work, per-worker move buffers, opening the instance's
 * table with its tier layout, and the clocks behind the figures they report. */
#ifndef BP_SOLVER_SOLVE_COMMON_H
#define BP_SOLVER_SOLVE_COMMON_H

#include <stdint.h>

#include "solver/retrograde.h"

/* Seconds on a monotonic clock. */
double bp_solve_clock(void);

/* The process's peak resident set, in bytes. */
uint64_t bp_solve_peak_memory(void);

/* Plans a solve before any work: runs estimate (the solver's memory estimate) into
 * *need and refuses, with a message saying why, a game without dense ranking, an
 * index space too large, or a need over o->memory_limit.
 * @return BP_OK; BP_EUNSUPPORTED; BP_ERANGE. */
int bp_solve_plan(const struct bp_game *g, int (*estimate)(const struct bp_game *, uint64_t *),
		  const struct bp_solve_opts *o, uint64_t *need, struct bp_err *err);

/* One move buffer of g->max_moves moves per worker; NULL when out of memory. Free
 * with bp_solve_free_move_buffers. */
struct bp_move **bp_solve_move_buffers(const struct bp_game *g, int threads);

void bp_solve_free_move_buffers(struct bp_move **mv, int threads);

/* Opens (creating if absent) the table of g with the given tier sizes and the store
 * options of o. @return as bp_table_open. */
int bp_solve_open_table(const struct bp_game *g, bp_store *db, const uint64_t *sizes,
			const struct bp_solve_opts *o, bp_table **out, struct bp_err *err);

#endif
