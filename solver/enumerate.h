/* SPDX-License-Identifier: MIT */
/* Enumeration of the positions reachable from the start, tier by tier, with one bit
 * per index of a tier's dense index space: the exact count of a tiered game where
 * no formula is known, and the cross-check of the formulas where one is. */
#ifndef BP_SOLVER_ENUMERATE_H
#define BP_SOLVER_ENUMERATE_H

#include <stdint.h>

#include "solver/games/game.h"

struct bp_enum_counts {
	uint32_t ntiers;
	uint64_t *raw;	   /* reachable positions per tier */
	uint64_t *classes; /* of which canonical (one per class up to symmetry) */
};

/* Called after each tier with the tier's counts; may be NULL. */
typedef void bp_enum_progress(void *ctx, uint32_t tier, uint64_t raw, uint64_t classes);

/* Enumerates every position reachable from g's start position. Needs a tiered game
 * (ops->tier, tier_size, rank, unrank) whose moves always lead to higher tiers.
 * Refuses with BP_ERANGE, before any work, when the bitmaps of the two largest
 * consecutive tiers would exceed max_bytes. out->raw and out->classes are allocated
 * here; free them with bp_enum_counts_free.
 * @return BP_OK; BP_EUNSUPPORTED (not tiered); BP_ERANGE; BP_ENOMEM. */
int bp_enumerate(const struct bp_game *g, uint64_t max_bytes, bp_enum_progress *progress, void *ctx,
		 struct bp_enum_counts *out);

void bp_enum_counts_free(struct bp_enum_counts *c);

/* ---- by keys, with the tiers on disk ----------------------------------------------
 * For games with a 128-bit key (game.h key_pack: Mirador) whose dense index space is
 * too large for the bitmaps above: the reachable canonical positions tier by tier,
 * with the tiers on disk (solver/enumerate_keys.c). The in-memory enumeration of the
 * sparse index holds every tier's keys (16 bytes a position, about 54 with what it
 * sorts and merges), which stops mirador:11x11 at its eighth tier on a 24 GiB machine;
 * this one holds only fixed buffers. A tier is a file of its sorted keys; its positions
 * are read back in chunks and expanded on every thread, each worker gathering the
 * children's keys in a buffer that, when full, is sorted, cleared of repeats and
 * written as a run; a tier's runs are merged (a k-way merge dropping repeats) into its
 * file when the tiers below it are done, and a tier's file is removed once its
 * children are counted. Exact, and the same counts as both other enumerations (the
 * tests compare them tier by tier). */

/* 1 when g can be counted by keys (it has key_pack and tiers, and does not repeat). */
int bp_enumerate_keys_supported(const struct bp_game *g);

/* 1 when g can be counted by keys and some tier's dense index does not fit (so
 * bp_enumerate cannot count it): `count`'s auto method picks keys there. */
int bp_enumerate_keys_wanted(const struct bp_game *g);

struct bp_enum_keys_opts {
	int threads;	 /* <= 0: one per online core */
	uint64_t memory; /* bytes for the workers' buffers of keys; 0: 1 GiB */
	const char *dir; /* where the files go (a directory made inside it); NULL: $TMPDIR, /tmp */
	/* after each tier: its classes, positions and positions over, and the bytes on
	 * disk at most so far; may be NULL */
	void (*progress)(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t classes,
			 uint64_t positions, uint64_t over, uint64_t disk_bytes, double seconds);
	/* inside a tier, about every tick_seconds (0: 0.5 s), from one worker at a time:
	 * the tier's positions expanded so far and in all; may be NULL */
	void (*tick)(void *ctx, uint32_t tier, uint32_t ntiers, uint64_t done, uint64_t total,
		     double seconds);
	double tick_seconds;
	int (*cancel)(void *ctx); /* nonzero: stop with BP_ECANCELED; may be NULL */
	/* runs a merge reads at once (more are merged that many at a time first); < 2:
	 * 128. For the tests, which merge many runs in several passes */
	uint32_t merge_fanin;
	void *ctx;
};

struct bp_enum_keys_counts {
	uint32_t ntiers;
	uint64_t *classes;   /* canonical reachable positions per tier */
	uint64_t *positions; /* of every symmetric image: the sum of the classes' orbits */
	uint64_t *over;	     /* classes where the game is over */
	uint64_t disk_peak;  /* bytes of files at most */
};

/* Counts the reachable canonical positions of g (bp_enumerate_keys_supported) per tier.
 * positions assumes, as bp_reach does, that the reachable set is closed under the
 * instance's symmetries. out's arrays are allocated here (bp_enum_keys_counts_free),
 * also when the count stops early: the tiers finished by then are filled in.
 * @return BP_OK; BP_EUNSUPPORTED; BP_EINVAL (a move that does not raise the tier, or a
 * key that does not unpack); BP_ERANGE (a child without a key); BP_EIO (a file: err
 * names it); BP_ECANCELED; BP_ENOMEM; a rule's failure (bp_game_status). Every file is
 * removed before it returns. */
int bp_enumerate_keys(const struct bp_game *g, const struct bp_enum_keys_opts *opts,
		      struct bp_enum_keys_counts *out, struct bp_err *err);

void bp_enum_keys_counts_free(struct bp_enum_keys_counts *c);

#endif
