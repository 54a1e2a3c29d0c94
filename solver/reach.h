/* SPDX-License-Identifier: MIT */
/* Breadth-first enumeration of the positions reachable from the start with a hash set,
 * for games whose moves do not raise a tier (cyclic games such as Blooms, where
 * positions repeat) or that have no dense index at all. Memory follows the reachable
 * set, not an index space. Positions are grouped by depth: the fewest turns that reach
 * them. Counts are exact; the work is refused, without a partial answer, as soon as
 * the set would pass a memory limit. A small in-memory retrograde solver on the same
 * set cross-checks the stored cycle-aware solver (solver/cyclic.h). */
#ifndef BP_SOLVER_REACH_H
#define BP_SOLVER_REACH_H

#include <stdint.h>

#include "solver/games/game.h"

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

/* ---- solving in memory ---------------------------------------------------------
 * Retrograde analysis on the reachable graph held in memory, for games whose
 * positions repeat (no tiers needed): values and remoteness as RULES.md section 10
 * defines them. A position that neither player can force to a decided end is a draw;
 * its remoteness is the fewest turns to a drawn end when drawing lines end the game,
 * and none (a draw by repetition) when every drawing line goes on forever. Meant for
 * the small instances that check the tiered solver's reading of the rules and the
 * seeds' claims; the table is not stored. */

#define BP_REACH_NO_REMOTENESS 0xffffffffu

typedef struct bp_reach_table bp_reach_table;

struct bp_reach_summary {
	uint64_t positions;	   /* reachable positions (every one, not classes) */
	uint64_t edges;		   /* moves between them */
	uint64_t counts[4];	   /* positions per value (index enum bp_value) */
	uint64_t repetition_draws; /* draws without remoteness */
	enum bp_value start_value; /* of the start position, for player to move */
	unsigned start_remoteness; /* BP_REACH_NO_REMOTENESS: draw by repetition */
	unsigned max_remoteness;   /* over decided positions */
};

/* Enumerates and solves every position reachable from g's start. The memory is about
 * (8 * words + 30) bytes a position plus 8 bytes a move; refused past max_bytes.
 * @return BP_OK; BP_ERANGE (over max_bytes or 2^32 - 2 positions or edges);
 * BP_ENOMEM. The caller owns *out (bp_reach_table_destroy). */
int bp_reach_solve(const struct bp_game *g, uint64_t max_bytes, bp_reach_table **out);

void bp_reach_table_destroy(bp_reach_table *t);

void bp_reach_table_summary(const bp_reach_table *t, struct bp_reach_summary *out);

/* The value and remoteness of p (BP_REACH_NO_REMOTENESS for a draw by repetition).
 * @return BP_OK; BP_ENOTFOUND when p is not reachable. */
int bp_reach_table_lookup(const bp_reach_table *t, const struct bp_pos *p, enum bp_value *value,
			  unsigned *remoteness);

#endif
