/* SPDX-License-Identifier: MIT */
/* Planning a tiered solve split across ranks (processes, e.g. MPI ranks on a cluster)
 * before running it: from the exact tier sizes (ops->tier_size: records a tier stores)
 * and, where the game counts them (ops->count_tier), the exact positions up to
 * symmetry per tier, the memory each rank needs, the bytes it sends and receives, the
 * disk the table takes and an estimated time. Nothing is solved; nothing is printed.
 *
 * The memory model is the tiered engine's own (bp_solve_tiers_estimate in
 * retrograde.c): one reachability bit per index of every tier, kept the whole solve;
 * 2-byte records of the tier being solved and of the tier above it (two above for
 * games whose moves may skip a tier, BP_GAME_TIER_SKIP): the window its children come
 * from; BP_SOLVE_BASE_MEMORY for everything else. The tiers engine refines its own
 * figure once the reachable positions are marked (only pages holding one are
 * written), so a plan is an upper bound for games whose index has holes. Split
 * across R ranks:
 *   sliced      each rank holds 1/R of every bitmap, its 1/R slice of the tier being
 *               solved and its slices of the two child tiers (children it reads from
 *               other ranks' slices are received, not kept);
 *   replicated  what `solve --mpi` does today: every rank holds whole child tiers and
 *               whole bitmaps (the tier's records are all-gathered after each tier),
 *               so only the work is split, not the memory.
 * Exchange per tier solved: each rank sends its slice of the tier's records to every
 * other rank and receives theirs, 2 * size * (R - 1) / R bytes each way. */
#ifndef BP_SOLVER_PLAN_H
#define BP_SOLVER_PLAN_H

#include <stdint.h>

#include "solver/games/game.h"

struct bp_plan_opts {
	int ranks;		  /* >= 1 */
	int threads;		  /* per rank, >= 1 */
	uint64_t memory_per_rank; /* bytes; 0: no limit */
	double bits_per_position; /* stored bits per position up to symmetry */
	double rate_per_core;	  /* positions solved per second per thread */
};

struct bp_plan_tier {
	uint64_t records;	 /* indices of the tier (tier_size) */
	uint64_t classes;	 /* positions up to symmetry (count_tier), else records */
	uint64_t mem_sliced;	 /* bytes per rank while solving the tier, sliced */
	uint64_t mem_replicated; /* the same, replicated (solve --mpi today) */
	uint64_t exchanged;	 /* bytes each rank sends (and receives) after solving it */
	uint64_t disk;		 /* bytes stored */
	double seconds;		 /* estimated wall time to solve it */
	int too_large;		 /* its index space passes 2^60: no figures (all 0) */
};

struct bp_plan {
	uint32_t ntiers;
	uint32_t too_large;	   /* tiers whose index space passes 2^60; the totals omit them */
	int exact_classes;	   /* 1 when every tier's classes came from count_tier */
	struct bp_plan_tier *tier; /* ntiers entries; free with bp_plan_free */
	uint64_t records, classes, disk, exchanged;
	uint64_t mem_sliced, mem_replicated; /* the largest over the tiers */
	uint32_t peak_tier;		     /* where mem_sliced is largest */
	double seconds;
};

/* Plans g's tiered solve with o.
 * @return BP_OK; BP_EUNSUPPORTED (no tiers or tier sizes); BP_EINVAL (bad options);
 * BP_ENOMEM; BP_ERANGE (a tier's count passes 2^63). err says what. A tier too
 * large to index is flagged (too_large), not an error. The caller
 * compares mem_sliced with o->memory_per_rank. */
int bp_plan_tiers(const struct bp_game *g, const struct bp_plan_opts *o, struct bp_plan *out,
		  struct bp_err *err);

void bp_plan_free(struct bp_plan *p);

#endif
