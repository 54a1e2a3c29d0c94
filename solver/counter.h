/* SPDX-License-Identifier: MIT */
/* The counter engine: classic retrograde analysis with child counters over the graph
 * of reachable canonical positions, for games whose positions repeat (Blooms) or any
 * game with dense ranking. Each reachable position's children are generated once;
 * values then spread from the terminal positions along predecessor lists, in queue
 * order, so that it stores exactly the table of the cycles engine (solver/cyclic.h:
 * values, remoteness, draws' remoteness and draws by repetition), which the tests
 * check by content hash. */
#ifndef BP_SOLVER_COUNTER_H
#define BP_SOLVER_COUNTER_H

#include "solver/engine.h"

/* Solves g into db, as bp_solve, for any game with tier, tier_size, rank and unrank.
 * Memory follows the reachable graph: one bit per index of the whole index space, then,
 * per reachable position and per distinct child, the bytes bp_solve_counter_need
 * counts. The limit opts->memory_limit is checked up front against the bitmap, while
 * positions are marked against the lists of children as they grow, and again, with
 * the exact counts, once they are marked and before the graph is built (BP_ERANGE,
 * nothing stored). The table is written when the solve is complete (an interrupted
 * solve starts again). */
int bp_solve_counter(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		     struct bp_solve_result *out, struct bp_err *err);

/* The memory bp_solve_counter needs before it knows the reachable graph: the bitmap
 * over the index space and the rank structure (a lower bound of its peak).
 * @return as bp_solve_tiers_estimate. */
int bp_solve_counter_estimate(const struct bp_game *g, uint64_t *bytes);

/* The peak memory of bp_solve_counter on an index space of `indices` with `positions`
 * reachable canonical positions, `edges` distinct (position, canonical child) pairs
 * and at most `frontier` positions in the marking's frontiers at once, solved on
 * `threads` workers. */
uint64_t bp_solve_counter_need(uint64_t indices, uint64_t positions, uint64_t edges,
			       uint64_t frontier, int threads);

/* What the marking step of bp_solve_counter found: the reachable graph's size and
 * the exact plan (bp_solve_counter_need) a solve with the same threads would make. */
struct bp_counter_count {
	uint64_t indices;   /* the global index space */
	uint64_t positions; /* reachable canonical positions */
	uint64_t edges;	    /* distinct (position, canonical child) pairs */
	uint64_t frontier;  /* positions held in the marking's frontiers at once, at most */
	uint64_t need;	    /* bytes: bp_solve_counter_need of the above */
	double seconds;	    /* the marking's wall time */
};

/* Runs only the marking step of bp_solve_counter (its memory, its threads, its
 * opts->memory_limit and opts->cancel; nothing stored) and fills out. With reach, on
 * success, *reach gets the bitmap of the reachable canonical positions over the global
 * index space (tier t's index i is bit (sum of the sizes of tiers below t) + i; free).
 * @return as bp_solve_counter. */
int bp_solve_counter_count(const struct bp_game *g, const struct bp_solve_opts *opts,
			   struct bp_counter_count *out, uint64_t **reach, struct bp_err *err);

#endif
