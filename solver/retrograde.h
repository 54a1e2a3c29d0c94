/* SPDX-License-Identifier: MIT */
/* Strong solving of a tiered game by retrograde analysis, into the position database.
 *
 * Every position reachable from the start gets a value for the player to move and a
 * remoteness (RULES.md section 10). Positions are stored once per symmetry class, at
 * the dense index (ops->rank) of their canonical form; other indices hold record 0.
 * Tiers are solved from the last to the first, each in its own transaction, so an
 * interrupted solve resumes at the first tier not yet stored. */
#ifndef BP_SOLVER_RETROGRADE_H
#define BP_SOLVER_RETROGRADE_H

#include <stdint.h>

#include "solver/games/game.h"
#include "store/store.h"

/* What a progress callback sees, after each tier of each phase. */
struct bp_solve_progress {
	int phase; /* 0: marking reachable positions (tiers upwards); 1: solving (downwards) */
	uint32_t tier, ntiers;
	uint64_t positions; /* canonical positions reached (phase 0) or solved (1) in the tier */
	double seconds;	    /* since the solve started */
	int resumed;	    /* 1 when the tier was already stored */
};

struct bp_solve_opts {
	int threads;		/* worker threads; <= 0: one per online core */
	uint64_t memory_limit;	/* bytes; 0: no limit. Checked up front (BP_ERANGE) */
	uint32_t block_records; /* passed to the store; 0: its default */
	int compression_level;	/* passed to the store; 0: its default */
	/* 1: canonicalize and rank every child even when the game has a tier walk (to
	 * cross-check solver/expanded.c) */
	int generic;
	void (*progress)(void *ctx, const struct bp_solve_progress *p); /* may be NULL */
	void *ctx;
};

struct bp_solve_result {
	enum bp_value value; /* of the start position */
	unsigned remoteness;
	uint64_t positions;	  /* canonical reachable positions stored */
	uint64_t counts[4];	  /* of those, per value (index enum bp_value) */
	double seconds;		  /* this run's wall time */
	uint64_t peak_memory;	  /* bytes: the process's peak resident set */
	uint64_t memory_estimate; /* bytes the solve planned for */
	uint64_t stored_bytes;	  /* compressed size of the table */
	uint32_t resumed_tiers;	  /* tiers found already stored */
};

/* Estimates the memory a solve of g needs (reachability bitmaps plus the records of
 * the two largest neighbouring tiers). @return BP_OK; BP_EUNSUPPORTED; BP_ERANGE. */
int bp_solve_estimate(const struct bp_game *g, uint64_t *bytes);

/* Solves g into db (the table named g->spec, created if absent; completed tiers are
 * reused). Games flagged BP_GAME_CYCLIC go to bp_solve_cyclic (solver/cyclic.h), games
 * with a tier walk to bp_solve_expanded (unless opts->generic). @return BP_OK; BP_EUNSUPPORTED (game without tiers and ranking); BP_ERANGE
 * (over opts->memory_limit, before any work; or a remoteness too large to store);
 * BP_EFORMAT (a table of another spec or version); BP_ECORRUPT; BP_EIO; BP_ENOMEM.
 * err says what. */
int bp_solve(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
	     struct bp_solve_result *out, struct bp_err *err);

/* The same, over expanded tiers, for games with a tier walk (solver/expanded.c):
 * identical tables, much faster. Same returns as bp_solve. */
int bp_solve_expanded(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		      struct bp_solve_result *out, struct bp_err *err);

/* The RULES.md version values are solved under; stored with every table. */
#define BP_RULES_VERSION 1

#endif
