/* SPDX-License-Identifier: MIT */
/* Planning a tiered solve split across ranks (processes, e.g. MPI ranks on a cluster)
 * before running it: from the exact tier sizes (ops->tier_size: records a tier stores)
 * and, where the game counts them (ops->count_tier), the exact positions up to
 * symmetry per tier, the memory each rank needs, the bytes it sends and receives, the
 * disk the table takes and an estimated time. Nothing is solved; nothing is printed.
 *
 * The model is the tiers engine's split across R ranks (solver/retrograde.c): rank r
 * owns one slice of every tier's index range and holds only its slices.
 *   memory per rank: 1/R of every tier's reachability bitmap (1 bit an index, kept the
 *     whole solve); its slices (2-byte records) of the tier being solved and of the
 *     tier above it (two with BP_GAME_TIER_SKIP: the window its children come from,
 *     as bp_solve_tiers_estimate assumes); one round's exchange buffers (below); BP_SOLVE_BASE_MEMORY for
 *     everything else.
 *   bytes sent and received per tier by a rank: its positions' children owned by
 *     another rank ((R-1)/R of them) cost 8 bytes each going up (the reach mark,
 *     forward) and 8 + 2 each way when the tier is solved (the key, the record
 *     answered); then every rank but 0 sends its slice of the solved records to rank 0
 *     (2 bytes an index), which receives all of them.
 *   A round: max(8, 4 * threads) work items of 65536 indices; its buffers hold, per
 *     child of the round's positions, about 28 bytes (keys kept, sent and received;
 *     records answered and received).
 * The walk engine (solver/expanded.c, o->walk) keeps no bitmaps: a rank holds its chunks
 * of two tiers, in two buffers of the largest tier's share, at 1 byte a record where
 * remoteness fits in 6 bits (bp_solve_walk_record_bytes; 2 elsewhere, and the slices
 * sent to rank 0 go at that width); besides the lookups (8 + 2
 * bytes per child held elsewhere) it sends each record copied to a member of its class
 * held elsewhere (8 bytes an image: the tier's indices that are not canonical). Where
 * moves skip a tier (BP_GAME_TIER_SKIP) it keeps three buffers; where its walk visits
 * unreached positions (BP_GAME_WALK_UNREACHED: Chicken) it keeps the reach bits of
 * every tier (its share), and its reach pass adds a mark (8) per child and a key and
 * an answer (8 + 2) per image held elsewhere, at most.
 * In one process, a game that cuts its tiers into segments (bp_game_ops.walk_segments:
 * Chicken) is solved segment by segment, and its figure per tier is the segment
 * order's (bp_solve_walk_segment_plan): the most held while solving that tier's
 * segments, or during the forward pass over every tier's reached bits.
 * Children per position are not counted exactly: they are the average over up to 256
 * canonical positions of the tier, drawn from its index range with a fixed seed (every
 * index of a tier of at most 4096). */
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
	int walk;		  /* model the walk engine (the game must have a tier walk);
				   * 0: the tiers engine */
};

struct bp_plan_tier {
	uint64_t records;	  /* indices of the tier (tier_size) */
	uint64_t classes;	  /* positions up to symmetry (count_tier), else records */
	double children;	  /* average children of a position (sampled) */
	uint64_t mem;		  /* bytes per rank while solving the tier */
	uint64_t mem_one;	  /* the same in one process (ranks = 1) */
	uint64_t sent, received;  /* bytes a rank other than 0 sends and receives for it */
	uint64_t writer_received; /* bytes rank 0 receives for it (the lookups included) */
	uint64_t disk;		  /* bytes stored */
	double seconds;		  /* estimated wall time to solve it */
	int too_large;		  /* its index space passes 2^60: no figures (all 0) */
};

struct bp_plan {
	uint32_t ntiers;
	uint32_t too_large;	   /* tiers whose index space passes 2^60; the totals omit them */
	int exact_classes;	   /* 1 when every tier's classes came from count_tier */
	int sampled;		   /* 1 when children were sampled (the game can unrank) */
	struct bp_plan_tier *tier; /* ntiers entries; free with bp_plan_free */
	uint64_t records, classes, disk, sent, received, writer_received;
	uint64_t mem, mem_one; /* the largest over the tiers */
	uint32_t peak_tier;    /* where mem is largest */
	double seconds;
};

/* Plans g's tiered solve with o.
 * @return BP_OK; BP_EUNSUPPORTED (no tiers or tier sizes); BP_EINVAL (bad options);
 * BP_ENOMEM; BP_ERANGE (a tier's count passes 2^63). err says what. A tier too
 * large to index is flagged (too_large), not an error. The caller
 * compares mem with o->memory_per_rank. */
int bp_plan_tiers(const struct bp_game *g, const struct bp_plan_opts *o, struct bp_plan *out,
		  struct bp_err *err);

void bp_plan_free(struct bp_plan *p);

/* Planning a solve with an engine over the reachable graph, for games that repeat
 * (solve's choice for them) or any game with dense ranking: the counter engine
 * (solver/counter.h) or the cycles engine (solver/cyclic.h), in one process.
 *   counter: its peak follows the reachable graph, unknown before its marking step
 *     runs. Without counting, the plan is a range: at least the bitmap over the index
 *     space and the fixed base (bp_solve_counter_estimate: nothing reached), at most
 *     bp_solve_counter_need with every position up to symmetry reachable, each with
 *     the game's most moves. With count set, the marking step runs (bp_solve_counter_
 *     count: as much time and memory as that step of a solve) and the plan is the
 *     engine's own exact figure.
 *   cycles: it writes records and two bitmaps for every index (bp_solve_cycles_estimate,
 *     the figure it enforces up front: an upper bound); pages of records it never
 *     writes (no reachable position among their indices) cost nothing, so the peak
 *     lies between the two bitmaps with the base and that bound, and where is not
 *     known before running. */
struct bp_plan_graph {
	int counter;	      /* 1: the counter engine; 0: the cycles engine */
	uint64_t indices;     /* the global index space */
	uint64_t classes;     /* positions up to symmetry (count_tier), else indices */
	int exact_classes;    /* 1 when classes came from count_tier */
	int counted;	      /* 1: the marking ran: positions, edges and peak are exact */
	uint64_t positions;   /* reachable positions (counted only) */
	uint64_t edges;	      /* distinct (position, child) pairs (counted only) */
	double count_seconds; /* the marking's wall time (counted only) */
	uint64_t low, high;   /* bytes: the peak lies in low..high (equal when exact) */
	uint64_t enforced;    /* bytes the engine checks a memory limit against up front */
};

/* Plans g's solve with the counter (counter = 1) or cycles engine on threads workers;
 * count (counter only) runs the marking step, under memory_limit (0: none).
 * @return BP_OK; BP_EUNSUPPORTED (no dense ranking); BP_ERANGE (index space too large,
 * or the marking passed memory_limit); BP_ENOMEM; a rule's error. err says what. */
int bp_plan_graph(const struct bp_game *g, int counter, int count, int threads,
		  uint64_t memory_limit, struct bp_plan_graph *out, struct bp_err *err);

#endif
