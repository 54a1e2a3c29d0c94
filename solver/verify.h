/* SPDX-License-Identifier: MIT */
/* Verification of a stored table, independent of the solver's bookkeeping: every
 * block is decoded and checksummed, and every stored position's value and remoteness
 * is recomputed from the terminal rule or from its children's stored records (each
 * child canonicalized and looked up afresh). A content hash of the decoded stream
 * identifies the table's content whatever its compression or block size. */
#ifndef BP_SOLVER_VERIFY_H
#define BP_SOLVER_VERIFY_H

#include <stdint.h>

#include "solver/games/game.h"
#include "store/store.h"

struct bp_verify_report {
	uint64_t positions_checked;
	uint64_t positions_hashed; /* stored records in the content hash */
	uint64_t inconsistencies;  /* wrong value or remoteness, missing child, misplaced record */
	uint64_t corrupt_blocks;
	uint64_t missing_tiers; /* tiers not stored (an unfinished solve) */
	uint64_t content_hash;	/* of (tier, index, record) for every stored record (and,
				 * for a table indexed by its reachable positions, of the
				 * index) */
	/* a table indexed by its reachable positions: the positions a fresh enumeration
	 * by the rules reached, compared with the stored index (0: dense, or hash only) */
	uint64_t index_enumerated;
};

/* Called for each problem found, from any worker thread but one call at a time, in
 * the order one thread would find them whatever the number of threads. */
typedef void bp_verify_problem(void *ctx, const char *what);
/* Called after each tier, on the calling thread. */
typedef void bp_verify_progress(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t checked);
/* Called inside a tier's full check (or hash_only's reading of it) about every
 * tick_seconds, from one worker at a time: done of the tier's total indices checked so far, seconds since the check of
 * the tier began (a long tier's progress: chicken:hex3's largest takes minutes). */
/* After each tier of the fresh enumeration of a table indexed by its reachable
 * positions: the tier's positions and the seconds since it began. */
typedef void bp_verify_enumerated(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t positions,
				  double seconds);
typedef void bp_verify_tick(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done,
			    uint64_t total, double seconds);

struct bp_verify_opts {
	int threads;		      /* worker threads; <= 0: one per online core */
	bp_verify_problem *problem;   /* may be NULL */
	bp_verify_progress *progress; /* may be NULL */
	bp_verify_tick *tick;	      /* may be NULL */
	double tick_seconds;	      /* between ticks; 0: 0.5 */
	int hash_only;		      /* decode, checksum and hash every stored record; re-derive
					 nothing (positions_checked stays 0), reading each tier a
					 range at a time (memory bounded whatever the tier) */
	/* hash_only, and the loads of packed tiers: records read at a time; 0: 16 M */
	uint64_t hash_range;
	/* > 0: re-derive only this many stored positions, drawn at random (by `seed`,
	 * tiers in proportion to their positions), on one thread, reading each record it
	 * needs by itself: for tables whose tiers do not fit in memory. No content hash
	 * (0), no scan of every block, and positions_checked counts the sample. */
	uint64_t sample;
	uint64_t seed;
	/* How the full check holds tiers in memory: 0 dense (a record an index), but
	 * packed (solver/packedtier.h) where three dense tiers would not fit 4 GiB and
	 * packing halves the bytes (a tier of mostly holes); > 0 every tier packed; < 0
	 * every tier dense. The report is the same either way. */
	int packed;
	/* The full check's cache of tiers, in bytes (it can go over by the tiers that one
	 * tier's moves reach); 0: 4 GiB, or three times the largest tier when that is
	 * more. */
	uint64_t cache_bytes;
	/* A table indexed by its reachable positions, full check: enumerate them afresh
	 * with the tiers on disk in a directory made here (solve --spill), compare the
	 * stored index with it one tier at a time (each stored tier let go after), and
	 * check the records over the fresh index, which is then the same: neither index
	 * is held in the process's own memory whole. NULL: both in memory. */
	const char *spill_dir;
	bp_verify_enumerated *enumerated; /* may be NULL */
	void *ctx;			  /* passed to problem and progress */
};

/* Verifies table t of game g with the options opts (NULL: every core, no callbacks).
 * Problems are counted in out and described to opts->problem. The report, the content
 * hash included, is the same for any number of threads.
 * @return BP_OK when the check ran (look at out for its findings); BP_EUNSUPPORTED;
 * BP_EFORMAT (the table is not of g); BP_ERULES (solved under another rules version);
 * BP_ENOMEM; BP_EIO. */
int bp_verify(const struct bp_game *g, bp_table *t, const struct bp_verify_opts *opts,
	      struct bp_verify_report *out);

#endif
