/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the three engines (retrograde.c, expanded.c, cyclic.c): the
 * memory check made before any work, per-worker move buffers, opening the instance's
 * table with its tier layout, and the clocks behind the figures they report. */
#ifndef BP_SOLVER_SOLVE_COMMON_H
#define BP_SOLVER_SOLVE_COMMON_H

#include <stdint.h>

#include "solver/engine.h"

/* What a solve holds besides its engine's arrays: the program and its libraries,
 * LMDB's and the codec's buffers, the table's metadata. Measured as the peak resident
 * set of solves of a few hundred positions (7.3 to 7.6 MB with every engine); the
 * memory plans add it to the arrays they count (bp_solve_base_memory). */
#define BP_SOLVE_BASE_MEMORY (8ull << 20)

/* BP_SOLVE_BASE_MEMORY and the game's own tables (struct bp_game's table_bytes:
 * Mirador's sets for its ranks, three arrays of 4 MB on 9x9, a third of that solve's
 * peak). The counter engine's need (bp_solve_counter_need, of counts alone) keeps the
 * plain base: Blooms' tables are small. */
static inline uint64_t bp_solve_base_memory(const struct bp_game *g)
{
	return BP_SOLVE_BASE_MEMORY + (g ? g->table_bytes : 0);
}

/* Bytes of an array of n bytes once written: whole 4 KiB pages. */
static inline uint64_t bp_solve_pages(uint64_t n)
{
	return (n + 4095) & ~(uint64_t)4095;
}

/* Seconds on a monotonic clock. */
double bp_solve_clock(void);

/* The process's peak resident set, in bytes. */
uint64_t bp_solve_peak_memory(void);

/* Plans a solve before any work: runs estimate (the solver's memory estimate, which
 * adds BP_SOLVE_BASE_MEMORY of fixed costs; split across ranks each rank's share of the
 * rest)
 * into *need and refuses, with a message saying why, a game without dense ranking, an
 * index space too large, or a need over o->memory_limit.
 * @return BP_OK; BP_EUNSUPPORTED; BP_ERANGE. */
int bp_solve_plan(const struct bp_game *g, int (*estimate)(const struct bp_game *, uint64_t *),
		  const struct bp_solve_opts *o, uint64_t *need, struct bp_err *err);

/* bp_solve_plan for an estimate already made (rc its outcome, *need its bytes): for an
 * engine whose estimate takes more than the game (the walk's, the threads). */
int bp_solve_plan_check(const struct bp_game *g, int rc, const struct bp_solve_opts *o,
			uint64_t *need, struct bp_err *err);

/* One move buffer of g->max_moves moves per worker; NULL when out of memory. Free
 * with bp_solve_free_move_buffers. */
struct bp_move **bp_solve_move_buffers(const struct bp_game *g, int threads);

void bp_solve_free_move_buffers(struct bp_move **mv, int threads);

/* The memory the store's coders take beyond the default blocks' on o's threads, for
 * blocks of o's --block-records or, at an archival level, of the size a table of g
 * gets there (about 20 bytes a record of a block a worker). Engines' estimates leave
 * it out; bp_solve adds it. */
uint64_t bp_solve_coder_bytes(const struct bp_game *g, const struct bp_solve_opts *o);

/* Opens (creating if absent) the table of g with the given tier sizes and the store
 * options of o, as its one writer (the store's writer lock: BP_EBUSY while another
 * solve holds it); writer 0 opens an existing table to read only (the ranks of a
 * distributed solve other than rank 0). @return as bp_table_open. */
int bp_solve_open_table(const struct bp_game *g, bp_store *db, const uint64_t *sizes,
			const struct bp_solve_opts *o, int writer, bp_table **out,
			struct bp_err *err);

/* Adds a tier's positions per value (index enum bp_value) to the result and to the
 * tier's progress line. */
void bp_solve_add_counts(const uint64_t count[4], struct bp_solve_result *out,
			 struct bp_solve_progress *pr);

/* Stores a solved tier with the solve's figures: threads, memory estimate, seconds so
 * far, peak memory; unless an op of g failed while solving it (bp_game_status), which
 * is returned instead. On failure writes why into errmsg (errlen bytes).
 * @return as bp_table_put_tier; the code of bp_game_status. */
int bp_solve_put_tier(const struct bp_game *g, bp_table *tab, uint32_t t, const uint16_t *rec,
		      int threads, double seconds, const struct bp_solve_result *out, char *errmsg,
		      size_t errlen);

/* As bp_solve_put_tier, with the records a batch at a time from fill
 * (bp_table_put_tier_fill). @return as bp_table_put_tier_fill; as bp_game_status. */
int bp_solve_put_tier_fill(const struct bp_game *g, bp_table *tab, uint32_t t,
			   int (*fill)(void *ctx, uint64_t first, uint64_t n, uint16_t *dst),
			   void *ctx, int threads, double seconds,
			   const struct bp_solve_result *out, char *errmsg, size_t errlen);

/* Writes "writing tier T: CAUSE" into errmsg after bp_table_put_tier(_fill) failed
 * with rc: the cause as the store names it (a full map or disk, bp_table_why), else
 * bp_strerror(rc). */
void bp_solve_write_error(bp_table *tab, uint32_t t, int rc, char *errmsg, size_t errlen);

/* For the engines that store a table only whole (cycles, counter): when every one of
 * its ntiers tiers is stored, fills out as a solve would (counts, resumed tiers, the
 * start's value from its record at st, sidx) and sets *done; a table stored completely
 * is not solved again (the same rules give the same table, and such an engine has
 * nothing to resume from otherwise). @return as bp_table_meta_get, bp_table_get. */
int bp_solve_if_stored(bp_table *tab, uint32_t ntiers, uint32_t st, uint64_t sidx,
		       struct bp_solve_result *out, int *done);

/* The tier and dense index of the start position's canonical form.
 * @return as ops->rank. */
int bp_solve_start(const struct bp_game *g, uint32_t *tier, uint64_t *index);

/* Fills the result's value and remoteness from the start position's record, its
 * position count from its counts, and its stored bytes from the table.
 * @return as bp_table_meta_get. */
int bp_solve_finish(bp_table *tab, uint16_t start_record, struct bp_solve_result *out);

/* The rule that turns children's values into a value (RULES.md section 10), as a
 * maximum so that the solvers' inner loops have no branches: a child's record maps to
 * a key, and the largest key among the children is a perfect-play move.
 *     child lost  -> class 3, then the smaller remoteness first
 *     child drew  -> class 2, the same
 *     child won   -> class 1, then the larger remoteness first
 * (verify.c writes the rule out again on purpose.) */
static inline uint32_t bp_solve_child_key(uint16_t child)
{
	uint32_t v = child & 3u, rem = (uint32_t)child >> 2;
	uint32_t cls = v ^ (v >> 1); /* none 0, win 1, loss 3, draw 2 */
	return cls << 14 | (cls == 1 ? rem : 0x3fffu ^ rem);
}

/* The value and remoteness of a position whose children's largest key is best
 * (best >= 1 << 14: at least one child, all solved). */
static inline enum bp_value bp_solve_value_of_key(uint32_t best, unsigned *remoteness)
{
	uint32_t cls = best >> 14, low = best & 0x3fffu;
	*remoteness = 1 + (cls == 1 ? low : 0x3fffu ^ low);
	return cls == 3 ? BP_VALUE_WIN : cls == 2 ? BP_VALUE_DRAW : BP_VALUE_LOSS;
}

/* The state behind bp_solve_metered: one per solve, zeroed but for o and t0. */
struct bp_solve_meter {
	const struct bp_solve_opts *o;
	double t0;			  /* the solve's start, bp_solve_clock */
	uint64_t phase_done, phase_total; /* see bp_solve_tick; phase_done advances */
	/* inside a run: */
	struct bp_solve_tick tick; /* its fields that workers do not change */
	uint64_t tier_done;	   /* changed by the workers, atomically */
	uint64_t item_indices;
	uint64_t next_ns; /* clock time of the next tick, in nanoseconds (atomic) */
	int busy;	  /* a worker is ticking */
	int keep;	  /* set by the caller: this run goes on with the last one's tier
			   * (tier_done is not reset); cleared by every run */
	int (*fn)(void *ctx, int worker, uint64_t item);
	void *ctx;
};

/* Runs a tier's (or pass's) work items on threads, as bp_parallel_for, with the
 * caller's cancel callback polled before each item and its tick callback called, at
 * most every o->tick_seconds, from one worker at a time. Each item covers
 * item_indices dense indices of the tier (the last one may cover fewer; tier_total is
 * the tier's size).
 * @return as fn; BP_ECANCELED when o->cancel asked to stop. */
int bp_solve_metered(struct bp_solve_meter *m, int phase, uint32_t tier, uint32_t ntiers,
		     int threads, uint64_t nitems, uint64_t item_indices, uint64_t tier_total,
		     int (*fn)(void *ctx, int worker, uint64_t item), void *ctx);

#endif
