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

/* Bytes a record of g takes in the walk engine's memory: 1 where every remoteness fits
 * in 6 bits (fewer than 65 tiers: a walk game's moves all raise the tier), else 2 (the
 * store's record). The memory plans count with it. */
int bp_solve_walk_record_bytes(const struct bp_game *g);

/* What storing a tier adds to the walk engine's arrays where it holds 8-bit records
 * (and does not go by segments): the store's batch writer fed a batch at a time,
 * whose 16-bit staging (bp_table_fill_bytes) grows with the threads (128 blocks, 4
 * MiB, a thread), for a largest tier of most records written on `threads` threads. */
uint64_t bp_solve_walk_feed_bytes(uint64_t most, int threads);

/* The walk engine's peak in one process for a game that cuts its tiers into segments
 * (bp_game_ops.walk_segments): the forward pass's reached bits of every tier, then, in
 * the game's order, the segments held (each from its solve until its last reader is
 * solved) with the bits of the segments not solved yet, plus BP_SOLVE_BASE_MEMORY.
 * tier_peak (ntiers entries, may be NULL) gets the most while solving each tier's
 * segments. What storing and the segment files hold besides is included. @return BP_OK; BP_EUNSUPPORTED (no segments); BP_ENOMEM; the game's error. */
int bp_solve_walk_segment_plan(const struct bp_game *g, uint64_t *tier_peak, uint64_t *peak);

/* Removes the walk engine's scratch files of g's table from dir (the database's
 * directory): segments' records and reached bits (whole, or left half-written by a
 * kill), named by a hash of g's spec, the rules version and the tier sizes; other
 * tables' files stay. What `solve --replace` calls (bp_solve_remove_scratch), so that a
 * table solved anew takes nothing from an earlier solve. @return the files removed
 * (>= 0, also 0 for a game without a tier walk); BP_EIO (errno says why); BP_ENOMEM; the
 * game's error. */
int bp_solve_walk_remove_scratch(const struct bp_game *g, const char *dir);

#endif
