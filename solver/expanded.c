/* SPDX-License-Identifier: MIT */
/* Retrograde analysis over expanded tiers: the fast path for games with a tier walk
 * (bp_game_ops.tier_walk; Taifas), whose moves all lead from tier t to tier t + 1 and
 * whose dense index covers every position, canonical or not.
 *
 * From the last tier down, tier t is solved from tier t + 1 held *expanded*: every
 * member of every class carries the class's record, not only the canonical one. A
 * canonical position's children can then be read at their own indices, with no
 * canonical form and no rank per child, and the children of one occupied set lie in a
 * few neighbouring blocks of the child tier, so the reads stay in the cache. The game's
 * walk lists, per canonical position, the indices of its children (and, when asked,
 * of its class's other members); this file applies the value rule and stores.
 *
 * Per tier:
 *     1. solve: every canonical position from its children (or the terminal rule);
 *        non-canonical indices stay 0, exactly the table's layout;
 *     2. store the tier, in one transaction;
 *     3. expand it in place: copy each canonical record to the rest of its class;
 *     4. give tier t + 1's buffer back (two buffers of the largest tier's size serve
 *        every tier in turn: memory is faulted in once, and each chunk is cleared
 *        just before it is solved).
 * A tier found stored (a resumed solve) is read back and expanded when the tier below
 * it needs it. Memory: two tiers of records at a time, three where moves may raise the
 * tier by two (BP_GAME_TIER_SKIP, Chicken's pairs); a record takes 8 bits in memory
 * where the game's tiers are few enough (compact(): 2.4 GiB for taifas:4x5), else the
 * store's 16.
 *
 * In one process, a game that cuts its tiers into segments (bp_game_ops.walk_segments:
 * Chicken, by neutral count) is solved a segment at a time instead, holding only the
 * segments still to be read (see "segments" below): chicken:hex3 needs 13.8 GiB so,
 * where whole tiers took 40.7.
 *
 * A game whose walk cannot tell reached positions from valid ones
 * (BP_GAME_WALK_UNREACHED) gets a forward pass first, as the tiers engine's: one bit
 * per index of every tier, tiers upwards; a canonical position is reached when its bit
 * or one of its images' bits is set, and then sets its children's bits. The solve
 * skips canonical positions whose bit is clear, so the table is the tiers engine's.
 * The bits also go to the walk as hints (the `marked` of bp_game_ops.tier_walk): the
 * forward pass needs no images of a position whose own bit is set
 * (BP_WALK_IMAGES_UNMARKED), and solving a tier, and expanding it right after, needs
 * nothing of a position whose bit is clear (BP_WALK_ONLY_MARKED), which the Chicken
 * and Glorieta walks then leave out before their canonical test.
 * In one process each tier's bits are saved in a scratch file once it is marked, and a
 * resumed solve goes on from the files (see "reach files" below); a table complete
 * already skips the pass.
 *
 * Split across ranks (opts->dist; solver/dist.h): each tier is cut into chunks dealt
 * out to the ranks in turn, and a rank holds only its chunks of the tiers in memory
 * (records, and reached bits). Work goes in rounds of a few chunks, the same number on
 * every rank; keys name a tier and an index (bp_dist_key), as a move may lead to
 * t + 1 or t + 2:
 *     reach:  (BP_GAME_WALK_UNREACHED) pass A decides the classes whose own bit or an
 *             image's bit held here is set, and marks their children; a class with
 *             images elsewhere asks their owners for those bits (bp_dist_lookup), and
 *             pass B decides it; marks for other ranks go to them after each round;
 *     solve:  pass A solves the positions whose children are all held here and lists
 *             the others with their children's keys; the keys go to their owners,
 *             which answer with the (expanded) records (bp_dist_lookup); pass B solves
 *             the rest;
 *     store:  rank 0 writes, fed the others' chunks (bp_dist_store_tier);
 *     expand: images held here are set at once, the others sent to their owners as
 *             (index, record) pairs.
 * A resumed rank reads only its chunks of a stored tier, then expands them the same way.
 *
 * The result is the same table as solver/retrograde.c's; the tests compare content
 * hashes of both, and `solve --solver tiers` runs the other path (solver/solve.h). */
#include "solver/expanded.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "solver/dist.h"
#include "solver/parallel.h"
#include "solver/segfile.h"
#include "solver/solve_common.h"
#include "store/codec.h"
#include "store/store.h" /* bp_table_fill_bytes */

#define CHUNK ((uint64_t)1 << 16)      /* indices a work item covers */
#define SMALL_ITEMS 4		       /* across ranks: a small tier's items a rank */
#define DONE UINT32_MAX		       /* pass A solved the position */
#define READ_PIECE ((uint64_t)1 << 22) /* records a resumed tier is read by, narrowed */

/* A round's work item, from pass A to pass B. Keys are bp_dist_key (tier, index). */
struct item_buf {
	struct bp_vec pos;	/* uint64_t: the positions pass A left, in walk order */
	struct bp_vec nk;	/* uint32_t: their keys asked of other ranks */
	struct bp_vec part;	/* uint32_t, solving: the largest key of their children
				 * held here, with bit 31 set when one of those is not
				 * solved; reaching: how many children each has in kids */
	struct bp_vec kids;	/* uint64_t, reaching: their children's keys, marked if
				 * one of the images asked about turns out reached */
	struct bp_dist_ask ask; /* solving: children held elsewhere; reaching: images */
};

/* Expanded records of a child tier's index range lo .. lo + n - 1 (a whole tier, or a
 * segment: bp_game_ops.walk_segments). */
struct part {
	const void *rec;
	uint64_t lo, n;
};

struct expanded {
	const struct bp_game *g;
	bp_table *tab;
	uint32_t nt, t; /* tiers; the one being worked on */
	/* one process: the range of tier t being walked (the whole tier, or a segment), its
	 * records when solving or expanding (index lo0 at cur[0]), and where the records of
	 * its children are: ranges of tier t + 1 (near) and t + 2 (far) */
	uint64_t lo0, hi0;
	void *cur;
	struct part near[BP_SEGMENT_MAX_CHILDREN], far[BP_SEGMENT_MAX_CHILDREN];
	int nnear, nfar;
	/* tier t's reached bits for the walk's hints (bp_game_ops.tier_walk), or NULL:
	 * solving it and expanding it at once after, the positions whose bit is clear
	 * may be left out (BP_WALK_ONLY_MARKED: solve_visit skips them, their images stay
	 * 0); marking it, the images of a position whose bit is set may be
	 * (BP_WALK_IMAGES_UNMARKED: reach_visit needs no more) */
	const uint64_t *marked;
	unsigned marked_what;
	/* solving a segment that a later one reads: solved and expanded in one pass (the
	 * walk lists each canonical position's children and images at once), and the
	 * canonical positions' bits, per index of the range from lo0 on, say which
	 * records its scratch file keeps; else NULL */
	uint64_t *canon;
	/* the forward pass (one process): the bits of tier t's reached canonical
	 * positions alone, which replace the tier's bits when it is done */
	uint64_t *fresh;
	uint64_t *size;
	void **rec; /* per tier, or NULL when not in memory (records: rec_get) */
	/* two buffers of the largest tier's size, used in turn (tier t: buf[t & 1]), so
	 * that memory is faulted in once, not once per tier */
	void *buf[3];
	int wide;	  /* records of 16 bits in memory, else of 8 (compact()) */
	unsigned max_rem; /* the largest remoteness a record in memory holds */
	int span;	  /* 1, or 2 with BP_GAME_TIER_SKIP: the child tiers kept */
	uint64_t **reach; /* per tier, with BP_GAME_WALK_UNREACHED: reached bits */
	uint64_t most;
	uint8_t *done;		   /* per tier: found stored when the solve began */
	uint64_t (*done_count)[4]; /* and its counts per value */
	int threads;
	uint64_t (*counts)[4];	     /* per worker */
	struct bp_solve_meter meter; /* cancel and ticks inside a tier */
	char errmsg[4400];	     /* room for a scratch file's path */
	const char *dir;	     /* the database's directory (segments' scratch files) */
	uint64_t hash;		     /* of the solve, naming its scratch files (walk_hash) */
	/* split across ranks */
	struct bp_dist dx;
	uint64_t *cb;		 /* per tier: indices a chunk covers */
	uint64_t round_items;	 /* chunks a rank takes in one round */
	uint64_t round0;	 /* the round's first item */
	struct item_buf *ib;	 /* round_items */
	struct bp_vec *img;	 /* expand: threads * nranks arrays of (index, record); reach:
			       * of keys to mark */
	const uint16_t *answers; /* lookups answer store records, widened */
	const uint64_t *imgs;	 /* split_expand: (index, record) pairs received; reach: keys */
	uint64_t nimg;
};

struct worker {
	struct expanded *x;
	int id;
	int wide;		       /* x->wide */
	void *rec;		       /* the range being worked on (x->cur) */
	uint64_t base;		       /* the tier index of rec[0] */
	const struct part *near, *far; /* x->near, x->far */
	int nnear, nfar;
	uint64_t counts[4]; /* positions per value, added to x->counts at the end (the
			       * workers' rows share a cache line) */
};

/* Records in memory. A walk game's moves all raise the tier, so no remoteness passes
 * the number of tiers; where it stays below 64 (every walk game here: Taifas 4x5 has
 * 21 tiers, Chicken hex3 20), value and remoteness fit in a byte with the store's
 * layout (bits 0-1 value, 2-7 remoteness), and a record is held in 8 bits: half the
 * memory and half the memory traffic of the store's 16. It is widened only on the way
 * to the store (bp_dist_store_tier) and narrowed on the way back (bp_dist_read_tier);
 * lookups across ranks answer store records. Other games keep 16 bits. */
static int compact(uint32_t ntiers)
{
	return ntiers <= 64;
}

int bp_solve_walk_record_bytes(const struct bp_game *g)
{
	return compact(g->ntiers) ? 1 : 2;
}

static inline uint16_t rec_get(const void *r, int wide, uint64_t i)
{
	return wide ? ((const uint16_t *)r)[i] : ((const uint8_t *)r)[i];
}

static inline void rec_put(void *r, int wide, uint64_t i, uint16_t v)
{
	if (wide)
		((uint16_t *)r)[i] = v;
	else
		((uint8_t *)r)[i] = (uint8_t)v;
}

static size_t rec_width(const struct expanded *x)
{
	return x->wide ? sizeof(uint16_t) : sizeof(uint8_t);
}

/* Clears records lo..hi-1 of r. */
static void rec_clear(const struct expanded *x, void *r, uint64_t lo, uint64_t hi)
{
	memset((uint8_t *)r + lo * rec_width(x), 0, (hi - lo) * rec_width(x));
}

/* A tier's records (n of width bytes), zeroed, on transparent huge pages where the
 * system allows them: children are read all over a tier, and 2 MiB pages keep the TLB
 * from missing. */
static void *records_alloc(uint64_t n, size_t width)
{
	size_t bytes = width * (n ? n : 1);
	void *r = calloc(1, bytes);
#ifdef MADV_HUGEPAGE
	uintptr_t from = ((uintptr_t)r + 4095) & ~(uintptr_t)4095;
	uintptr_t to = ((uintptr_t)r + bytes) & ~(uintptr_t)4095;
	if (r && to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE); /* only a hint */
#endif
	return r;
}

/* The record of child c from the parts held; 0 (not solved) when none holds it. */
static inline uint16_t child_rec(const struct part *p, int np, int wide, uint64_t c)
{
	for (int i = 0; i < np; i++)
		if (c - p[i].lo < p[i].n)
			return rec_get(p[i].rec, wide, c - p[i].lo);
	return 0;
}

static int image_outside(struct expanded *x, const struct bp_walk *w)
{
	snprintf(x->errmsg, sizeof x->errmsg,
		 "tier %u index %llu: an image lies outside its segment", x->t,
		 (unsigned long long)w->index);
	return BP_EINVAL;
}

/* The value rule's key of a child over and lost for its player to move (remoteness
 * 0): the largest there is, so a position with such a child is a win in 1 whatever
 * its other children (bp_walk.wins_at_once). */
static uint32_t lost_at_once_key(void)
{
	return bp_solve_child_key(bp_record_make(BP_VALUE_LOSS, 0));
}

static int solve_visit(void *ctx, const struct bp_walk *w)
{
	struct worker *k = ctx;
	struct expanded *x = k->x;
	enum bp_value v;
	unsigned rem = 0;
	if (x->reach && !(x->reach[x->t][w->index / 64] >> (w->index % 64) & 1))
		return BP_OK; /* never reached */
	if (w->nchildren < 0 && w->outcome != BP_VALUE_NONE) {
		v = w->outcome; /* the walk says, as outcome() would */
	} else if (w->nchildren == 0 && w->wins_at_once) {
		v = bp_solve_value_of_key(lost_at_once_key(), &rem);
	} else if (w->nchildren < 0) {
		struct bp_pos p;
		int rc = x->g->ops->unrank(x->g, x->t, w->index, &p);
		if (rc)
			return rc;
		v = x->g->ops->outcome(x->g, &p);
	} else {
		uint32_t best = 0, unsolved = 0;
		for (int i = 0; i < w->nchildren; i++) {
			uint16_t r = child_rec(k->near, k->nnear, k->wide, w->children[i]);
			uint32_t key = bp_solve_child_key(r);
			unsolved |= (r & 3u) == 0;
			best = key > best ? key : best;
		}
		for (int i = 0; i < w->nfar; i++) {
			uint16_t r = child_rec(k->far, k->nfar, k->wide, w->far[i]);
			uint32_t key = bp_solve_child_key(r);
			unsolved |= (r & 3u) == 0;
			best = key > best ? key : best;
		}
		if (unsolved || w->nchildren + w->nfar == 0) {
			snprintf(x->errmsg, sizeof x->errmsg,
				 "tier %u index %llu: %s (the game's tier walk disagrees with "
				 "its rules)",
				 x->t, (unsigned long long)w->index,
				 w->nchildren + w->nfar ? "a child is not solved" : "no moves");
			return BP_EINVAL;
		}
		v = bp_solve_value_of_key(best, &rem);
	}
	if (v == BP_VALUE_NONE) {
		snprintf(x->errmsg, sizeof x->errmsg,
			 "tier %u index %llu: the walk says the game is over, outcome() does "
			 "not",
			 x->t, (unsigned long long)w->index);
		return BP_EINVAL;
	}
	if (rem > x->max_rem) {
		snprintf(x->errmsg, sizeof x->errmsg, "remoteness %u is too large to store", rem);
		return BP_ERANGE;
	}
	const uint16_t r = bp_record_make(v, rem);
	rec_put(k->rec, k->wide, w->index - k->base, r);
	k->counts[v]++;
	if (x->canon) {
		/* the expansion too; a chunk's bits are whole words of canon (CHUNK is a
		 * multiple of 64), its own worker's */
		const uint64_t i = w->index - x->lo0;
		x->canon[i / 64] |= 1ull << (i % 64);
		for (int j = 0; j < w->nimages; j++) {
			if (w->images[j] < x->lo0 || w->images[j] >= x->hi0)
				return image_outside(x, w);
			rec_put(k->rec, k->wide, w->images[j] - k->base, r);
		}
	}
	return BP_OK;
}

static int expand_visit(void *ctx, const struct bp_walk *w)
{
	struct worker *k = ctx;
	struct expanded *x = k->x;
	uint16_t r = rec_get(k->rec, k->wide, w->index - k->base);
	for (int i = 0; i < w->nimages; i++) {
		if (w->images[i] < x->lo0 || w->images[i] >= x->hi0)
			return image_outside(x, w);
		rec_put(k->rec, k->wide, w->images[i] - k->base, r);
	}
	return BP_OK;
}

static int bit_get(const uint64_t *bits, uint64_t i)
{
	return (int)(__atomic_load_n(&bits[i / 64], __ATOMIC_RELAXED) >> (i % 64) & 1);
}

/* Sets bit i; a plain load first spares the locked write where the bit is set already
 * (a raw child is often marked by several parents): a one-thread chicken:tri5 solve
 * spent 9% of its time in reach_visit's writes, 5.5% since. */
static void bit_set(uint64_t *bits, uint64_t i)
{
	const uint64_t b = 1ull << (i % 64);
	if (!(__atomic_load_n(&bits[i / 64], __ATOMIC_RELAXED) & b))
		__atomic_fetch_or(&bits[i / 64], b, __ATOMIC_RELAXED);
}

/* The forward pass: a class is reached when any member's bit is set (its children
 * were marked raw, not canonicalized); then its canonical bit is set and its
 * children's bits too. Classes share no member, so workers decide disjoint classes;
 * the children's bits lie in the tiers above, set atomically. The canonical bit goes
 * to x->fresh, where a chunk's bits are whole words (lo0 is 0, CHUNK a multiple of
 * 64), its own worker's: the tier's bits are then its reached canonical positions
 * alone, and solving it jumps over no other member of their classes. */
static int reach_visit(void *ctx, const struct bp_walk *w)
{
	struct worker *k = ctx;
	struct expanded *x = k->x;
	uint32_t t = x->t;
	int reached = bit_get(x->reach[t], w->index);
	for (int i = 0; i < w->nimages && !reached; i++)
		reached = bit_get(x->reach[t], w->images[i]);
	if (!reached)
		return BP_OK;
	x->fresh[w->index / 64] |= 1ull << (w->index % 64);
	k->counts[1]++;
	/* the children's words are far apart and a locked write waits for its line:
	 * fetched all at once first, they arrive together */
	for (int i = 0; i < w->nchildren; i++)
		__builtin_prefetch(&x->reach[t + 1][w->children[i] / 64], 1);
	for (int i = 0; i < w->nfar; i++)
		__builtin_prefetch(&x->reach[t + 2][w->far[i] / 64], 1);
	for (int i = 0; i < w->nchildren; i++)
		bit_set(x->reach[t + 1], w->children[i]);
	for (int i = 0; i < w->nfar; i++)
		bit_set(x->reach[t + 2], w->far[i]);
	return BP_OK;
}

static uint64_t chunks(const struct expanded *x)
{
	return (x->hi0 - x->lo0 + CHUNK - 1) / CHUNK;
}

/* Walks (one process) the range lo .. hi - 1 of tier t, records at cur. */
static void set_range(struct expanded *x, uint32_t t, uint64_t lo, uint64_t hi, void *cur)
{
	x->t = t;
	x->lo0 = lo;
	x->hi0 = hi;
	x->cur = cur;
}

static int walk_chunk(struct expanded *x, int id, uint64_t item, unsigned what,
		      int (*visit)(void *, const struct bp_walk *))
{
	uint32_t t = x->t;
	struct worker k = { .x = x,
			    .id = id,
			    .wide = x->wide,
			    .rec = x->cur,
			    .base = x->lo0,
			    .near = x->near,
			    .far = x->far,
			    .nnear = x->nnear,
			    .nfar = x->nfar };
	uint64_t lo = x->lo0 + item * CHUNK, hi = lo + CHUNK < x->hi0 ? lo + CHUNK : x->hi0;
	if (x->marked)
		what |= x->marked_what;
	int rc = x->g->ops->tier_walk(x->g, t, lo, hi, what, x->marked, visit, &k);
	for (int v = 0; v < 4; v++)
		x->counts[id][v] += k.counts[v];
	return rc;
}

/* Solving a chunk starts by clearing it: records of non-canonical indices stay 0.
 * Solved and expanded at once (x->canon), the range was cleared before: other chunks'
 * workers write their images into this one. */
static int solve_chunk(void *ctx, int id, uint64_t item)
{
	struct expanded *x = ctx;
	uint64_t lo = item * CHUNK,
		 hi = lo + CHUNK < x->hi0 - x->lo0 ? lo + CHUNK : x->hi0 - x->lo0;
	if (x->canon)
		return walk_chunk(ctx, id, item, BP_WALK_CHILDREN | BP_WALK_IMAGES, solve_visit);
	rec_clear(x, x->cur, lo, hi);
	return walk_chunk(ctx, id, item, BP_WALK_CHILDREN, solve_visit);
}

static int expand_chunk(void *ctx, int id, uint64_t item)
{
	return walk_chunk(ctx, id, item, BP_WALK_IMAGES, expand_visit);
}

/* ---- split across ranks ------------------------------------------------------ */

static int split(const struct expanded *x)
{
	return x->dx.nranks > 1;
}

static uint64_t mine_of(const struct expanded *x, uint32_t t)
{
	return bp_dist_mine(&x->dx, bp_dist_chunks(x->size[t], x->cb[t]));
}

/* The indices of tier t this rank works on (its ticks count those). */
static uint64_t share(const struct expanded *x, uint32_t t)
{
	uint64_t n = split(x) ? mine_of(x, t) * x->cb[t] : x->size[t];
	return n < x->size[t] ? n : x->size[t];
}

/* Enough rounds for the rank with the most chunks (rank 0); the same on every rank. */
static uint64_t rounds_of(const struct expanded *x, uint32_t t)
{
	uint64_t n = bp_dist_chunks(x->size[t], x->cb[t]), nr = (uint64_t)x->dx.nranks;
	uint64_t most = (n + nr - 1) / nr;
	return (most + x->round_items - 1) / x->round_items;
}

/* The indices of the round's item j (chunk me + (round0 + j) * nranks of tier x->t). */
static void item_span(const struct expanded *x, uint64_t j, uint64_t *lo, uint64_t *hi)
{
	uint64_t cb = x->cb[x->t];
	uint64_t c = (uint64_t)x->dx.me + (x->round0 + j) * (uint64_t)x->dx.nranks;
	*lo = c * cb;
	*hi = *lo + cb < x->size[x->t] ? *lo + cb : x->size[x->t];
}

struct split_worker {
	struct expanded *x;
	struct item_buf *ib;
	uint64_t counts[4];
	struct bp_vec *img; /* expand: this worker's arrays, one per rank */
};

/* Where index idx of tier t is in this rank's reach bits and records (it owns it). */
static uint64_t here(const struct expanded *x, uint32_t t, uint64_t idx)
{
	return bp_dist_local(&x->dx, x->cb[t], idx);
}

static int owner_of(const struct expanded *x, uint32_t t, uint64_t idx)
{
	return bp_dist_owner(&x->dx, x->cb[t], idx);
}

/* Writes the record of position idx of tier x->t from its children's largest key. */
static int settle(struct expanded *x, uint64_t *counts, uint64_t idx, uint32_t best, int n,
		  int unsolved)
{
	unsigned rem = 0;
	if (unsolved || n == 0) {
		snprintf(x->errmsg, sizeof x->errmsg,
			 "tier %u index %llu: %s (the game's tier walk disagrees with its rules)",
			 x->t, (unsigned long long)idx, n ? "a child is not solved" : "no moves");
		return BP_EINVAL;
	}
	enum bp_value v = bp_solve_value_of_key(best, &rem);
	if (rem > x->max_rem) {
		snprintf(x->errmsg, sizeof x->errmsg, "remoteness %u is too large to store", rem);
		return BP_ERANGE;
	}
	rec_put(x->rec[x->t], x->wide, here(x, x->t, idx), bp_record_make(v, rem));
	counts[v]++;
	return BP_OK;
}

/* One child (index c of tier ct) in pass A: its record when held here, or its key
 * asked of its owner. */
static int split_child(struct split_worker *k, uint32_t ct, uint64_t c, uint32_t *best,
		       int *unsolved, uint32_t *asked)
{
	struct expanded *x = k->x;
	int d = owner_of(x, ct, c);
	if (d != x->dx.me) {
		(*asked)++;
		return bp_dist_ask_push(&k->ib->ask, bp_dist_key(ct, c), d);
	}
	uint16_t r = rec_get(x->rec[ct], x->wide, here(x, ct, c));
	uint32_t key = bp_solve_child_key(r);
	*unsolved |= (r & 3u) == 0;
	*best = key > *best ? key : *best;
	return BP_OK;
}

/* Pass A: a position whose children are all held here is solved; the others wait, with
 * their children held elsewhere asked of the owners. */
static int split_visit(void *ctx, const struct bp_walk *w)
{
	struct split_worker *k = ctx;
	struct expanded *x = k->x;
	uint32_t t = x->t;
	int rc;
	if (x->reach && !bit_get(x->reach[t], here(x, t, w->index)))
		return BP_OK; /* never reached */
	if (w->nchildren < 0) {
		struct bp_pos p;
		if ((rc = x->g->ops->unrank(x->g, t, w->index, &p)))
			return rc;
		enum bp_value v = x->g->ops->outcome(x->g, &p);
		if (v == BP_VALUE_NONE) {
			snprintf(x->errmsg, sizeof x->errmsg,
				 "tier %u index %llu: the walk says the game is over, outcome() "
				 "does not",
				 t, (unsigned long long)w->index);
			return BP_EINVAL;
		}
		rec_put(x->rec[t], x->wide, here(x, t, w->index), bp_record_make(v, 0));
		k->counts[v]++;
		return BP_OK;
	}
	if (w->nchildren == 0 && w->wins_at_once)
		return settle(x, k->counts, w->index, lost_at_once_key(), 1, 0);
	if (t + 1 >= x->nt || (w->nfar && t + 2 >= x->nt))
		return settle(x, k->counts, w->index, 0, 0, 0); /* moves off the last tier */
	uint32_t best = 0, asked = 0;
	int unsolved = 0;
	for (int i = 0; i < w->nchildren; i++)
		if ((rc = split_child(k, t + 1, w->children[i], &best, &unsolved, &asked)))
			return rc;
	for (int i = 0; i < w->nfar; i++)
		if ((rc = split_child(k, t + 2, w->far[i], &best, &unsolved, &asked)))
			return rc;
	if (!asked)
		return settle(x, k->counts, w->index, best, w->nchildren + w->nfar, unsolved);
	/* only the children held elsewhere wait, with what those held here gave */
	uint32_t part = best | (uint32_t)unsolved << 31;
	if ((rc = bp_vec_push(&k->ib->pos, &w->index, sizeof w->index)) ||
	    (rc = bp_vec_push(&k->ib->nk, &asked, sizeof asked)) ||
	    (rc = bp_vec_push(&k->ib->part, &part, sizeof part)))
		return rc;
	return BP_OK;
}

static void item_clear(struct expanded *x, struct item_buf *ib)
{
	ib->pos.n = ib->nk.n = ib->part.n = ib->kids.n = 0;
	bp_dist_ask_clear(&ib->ask, x->dx.nranks);
}

static int split_solve_item(void *ctx, int id, uint64_t j)
{
	struct expanded *x = ctx;
	uint64_t lo, hi;
	struct item_buf *ib = &x->ib[j];
	item_span(x, j, &lo, &hi);
	item_clear(x, ib);
	rec_clear(x, x->rec[x->t], here(x, x->t, lo), here(x, x->t, lo) + (hi - lo));
	struct split_worker k = { .x = x, .ib = ib };
	int rc = x->g->ops->tier_walk(x->g, x->t, lo, hi, BP_WALK_CHILDREN, NULL, split_visit, &k);
	for (int v = 0; v < 4; v++)
		x->counts[id][v] += k.counts[v];
	return rc;
}

/* The answer to item j's next key asked of the rank that owns it (pass B reads them
 * in the order pass A asked). */
static uint16_t next_answer(const struct expanded *x, struct item_buf *ib, uint64_t key)
{
	uint32_t ct = bp_dist_key_tier(key);
	int d = owner_of(x, ct, bp_dist_key_index(key));
	return x->answers[ib->ask.cursor[d]++];
}

/* Pass B: the positions pass A left, from the answers in the order the keys went. */
static int split_finish_item(void *ctx, int id, uint64_t j)
{
	struct expanded *x = ctx;
	struct item_buf *ib = &x->ib[j];
	const uint64_t *pos = ib->pos.a, *keys = ib->ask.keys.a;
	const uint32_t *nk = ib->nk.a, *part = ib->part.a;
	size_t k = 0;
	for (size_t p = 0; p < ib->pos.n; p++) {
		uint32_t best = part[p] & 0x7fffffffu;
		int unsolved = (int)(part[p] >> 31), rc;
		for (uint32_t i = 0; i < nk[p]; i++, k++) {
			uint16_t r = next_answer(x, ib, keys[k]);
			uint32_t key = bp_solve_child_key(r);
			unsolved |= (r & 3u) == 0;
			best = key > best ? key : best;
		}
		if ((rc = settle(x, x->counts[id], pos[p], best, (int)nk[p], unsolved)))
			return rc;
	}
	return BP_OK;
}

/* The lookup's view (bp_dist_lookup): keys of the child tiers when solving, of the
 * tier itself when reaching (the images' bits). */
static struct bp_dist_ask *ask_of(void *ctx, uint64_t j)
{
	return &((struct expanded *)ctx)->ib[j].ask;
}

static int key_owner(const struct expanded *x, uint64_t key, uint32_t lo, uint32_t hi)
{
	uint32_t ct = bp_dist_key_tier(key);
	uint64_t c = bp_dist_key_index(key);
	return ct >= lo && ct <= hi && ct < x->nt && c < x->size[ct] && x->rec[ct]
		       ? owner_of(x, ct, c)
		       : -1;
}

static int child_owner(void *ctx, uint64_t key)
{
	const struct expanded *x = ctx;
	return key_owner(x, key, x->t + 1, x->t + (uint32_t)x->span);
}

static int answer_records(void *ctx, const uint64_t *keys, uint64_t n, uint16_t *out)
{
	const struct expanded *x = ctx;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t ct = bp_dist_key_tier(keys[i]);
		out[i] = rec_get(x->rec[ct], x->wide, here(x, ct, bp_dist_key_index(keys[i])));
	}
	return BP_OK;
}

static int image_owner(void *ctx, uint64_t key)
{
	const struct expanded *x = ctx;
	uint32_t ct = bp_dist_key_tier(key);
	uint64_t c = bp_dist_key_index(key);
	return ct == x->t && c < x->size[ct] ? owner_of(x, ct, c) : -1;
}

static int answer_bits(void *ctx, const uint64_t *keys, uint64_t n, uint16_t *out)
{
	const struct expanded *x = ctx;
	for (uint64_t i = 0; i < n; i++)
		out[i] = (uint16_t)bit_get(x->reach[x->t],
					   here(x, x->t, bp_dist_key_index(keys[i])));
	return BP_OK;
}

/* Sets received (index, record) pairs, a piece at a time. An index may come twice (a
 * class lists a member more than once), always with its class's one record: two
 * pieces may store the same value at once, so the stores are atomic. */
static int set_images(void *ctx, int worker, uint64_t item)
{
	struct expanded *x = ctx;
	uint64_t i0 = item * CHUNK;
	uint64_t i1 = i0 + CHUNK < x->nimg ? i0 + CHUNK : x->nimg;
	(void)worker;
	for (uint64_t i = i0; i < i1; i++) {
		uint64_t m = x->imgs[i] >> 16;
		if (m >= x->size[x->t] || owner_of(x, x->t, m) != x->dx.me)
			return BP_EIO;
		uint64_t at = here(x, x->t, m);
		uint16_t r = (uint16_t)(x->imgs[i] & 0xffffu);
		if (x->wide)
			__atomic_store_n((uint16_t *)x->rec[x->t] + at, r, __ATOMIC_RELAXED);
		else
			__atomic_store_n((uint8_t *)x->rec[x->t] + at, (uint8_t)r,
					 __ATOMIC_RELAXED);
	}
	return BP_OK;
}

/* Solves tier t (its buffer taken, tier t + 1 expanded) in rounds. Collective. */
static int split_solve(struct expanded *x, uint32_t t)
{
	int rc = BP_OK;
	uint64_t mine = mine_of(x, t);
	for (uint64_t k = 0, n = rounds_of(x, t); k < n && !rc; k++) {
		uint64_t first = k * x->round_items;
		uint64_t nitems = first >= mine			  ? 0
				  : mine - first < x->round_items ? mine - first
								  : x->round_items;
		uint16_t *answers = NULL;
		x->t = t;
		x->round0 = first;
		x->meter.keep = k > 0;
		rc = bp_solve_metered(&x->meter, 1, t, x->nt, x->threads, nitems, x->cb[t],
				      share(x, t), split_solve_item, x);
		const struct bp_dist_lookup_ops ops = {
			.ctx = x, .ask = ask_of, .owner = child_owner, .answer = answer_records
		};
		if (!(rc = bp_dist_agree(&x->dx, rc, NULL, 0)))
			rc = bp_dist_lookup(&x->dx, x->threads, nitems, &ops, &answers);
		x->answers = answers;
		if (!(rc = bp_dist_agree(&x->dx, rc, NULL, 0)))
			rc = bp_parallel_for(x->threads, nitems, split_finish_item, x);
		free(answers);
		x->answers = NULL;
		rc = bp_dist_agree(&x->dx, rc, NULL, 0);
	}
	return rc;
}

static int split_image_visit(void *ctx, const struct bp_walk *w)
{
	struct split_worker *k = ctx;
	struct expanded *x = k->x;
	uint64_t cb = x->cb[x->t];
	void *rec = x->rec[x->t];
	uint16_t r = rec_get(rec, x->wide, bp_dist_local(&x->dx, cb, w->index));
	if (r == 0) /* not reached: its images' records are 0 already (cleared or read) */
		return BP_OK;
	for (int i = 0; i < w->nimages; i++) {
		uint64_t m = w->images[i];
		int d = bp_dist_owner(&x->dx, cb, m);
		if (d == x->dx.me) {
			rec_put(rec, x->wide, bp_dist_local(&x->dx, cb, m), r);
		} else {
			uint64_t pair = m << 16 | r;
			int rc = bp_vec_push(&k->img[d], &pair, sizeof pair);
			if (rc)
				return rc;
		}
	}
	return BP_OK;
}

static int split_expand_item(void *ctx, int id, uint64_t j)
{
	struct expanded *x = ctx;
	uint64_t lo, hi;
	item_span(x, j, &lo, &hi);
	struct split_worker k = { .x = x, .img = x->img + (size_t)id * (size_t)x->dx.nranks };
	return x->g->ops->tier_walk(x->g, x->t, lo, hi, BP_WALK_IMAGES, NULL, split_image_visit,
				    &k);
}

/* Copies each canonical record of tier t to the rest of its class, wherever it is
 * held: images of other ranks go to them as (index, record) pairs. Collective. */
static int split_expand(struct expanded *x, uint32_t t)
{
	int rc = BP_OK;
	uint64_t mine = mine_of(x, t);
	for (uint64_t k = 0, n = rounds_of(x, t); k < n && !rc; k++) {
		uint64_t first = k * x->round_items, *got = NULL, total = 0;
		uint64_t nitems = first >= mine			  ? 0
				  : mine - first < x->round_items ? mine - first
								  : x->round_items;
		x->t = t;
		x->round0 = first;
		rc = bp_parallel_for(x->threads, nitems, split_expand_item, x);
		rc = bp_dist_exchange_lists(&x->dx, rc, x->img, x->threads, sizeof *got,
					    (void **)&got, &total);
		if (!rc) {
			x->imgs = got;
			x->nimg = total;
			rc = bp_parallel_for(x->threads, (total + CHUNK - 1) / CHUNK, set_images,
					     x);
			if (rc == BP_EIO)
				snprintf(x->errmsg, sizeof x->errmsg,
					 "a rank sent an image of tier %u not held here", t);
		}
		free(got);
		rc = bp_dist_agree(&x->dx, rc, NULL, 0);
	}
	return rc;
}

/* The forward pass across ranks, tier t, in rounds. Pass A walks this rank's chunks
 * with children and images: a class is reached when its own bit or an image's bit
 * held here is set, and then marks its children (at once when held here, else sent to
 * their owners at the end of the round, as keys); a class with a clear bit here and
 * images elsewhere waits, its images asked of their owners (bp_dist_lookup, answers
 * 0 or 1) and its children kept; pass B settles those. Marks reach only the tiers
 * above, which are walked later, so a tier's bits are complete when it is walked. */
static int reach_mark(struct split_worker *k, uint32_t ct, uint64_t c)
{
	struct expanded *x = k->x;
	int d = owner_of(x, ct, c);
	if (d == x->dx.me) {
		bit_set(x->reach[ct], here(x, ct, c));
		return BP_OK;
	}
	uint64_t key = bp_dist_key(ct, c);
	return bp_vec_push(&k->img[d], &key, sizeof key);
}

static int split_reach_visit(void *ctx, const struct bp_walk *w)
{
	struct split_worker *k = ctx;
	struct expanded *x = k->x;
	uint32_t t = x->t;
	const uint64_t *bits = x->reach[t];
	int reached = bit_get(bits, here(x, t, w->index)), remote = 0, rc;
	for (int i = 0; i < w->nimages && !reached; i++) {
		if (owner_of(x, t, w->images[i]) == x->dx.me)
			reached = bit_get(bits, here(x, t, w->images[i]));
		else
			remote = 1;
	}
	int nc = w->nchildren > 0 ? w->nchildren : 0;
	if (nc + w->nfar && t + 1 + (w->nfar > 0) >= x->nt) {
		snprintf(x->errmsg, sizeof x->errmsg,
			 "tier %u index %llu: a move leaves the last tier", t,
			 (unsigned long long)w->index);
		return BP_EINVAL;
	}
	if (reached) {
		bit_set(x->reach[t], here(x, t, w->index));
		k->counts[1]++;
		for (int i = 0; i < nc; i++)
			if ((rc = reach_mark(k, t + 1, w->children[i])))
				return rc;
		for (int i = 0; i < w->nfar; i++)
			if ((rc = reach_mark(k, t + 2, w->far[i])))
				return rc;
		return BP_OK;
	}
	if (!remote)
		return BP_OK; /* not reached */
	uint32_t asked = 0, nkids = (uint32_t)(nc + w->nfar);
	for (int i = 0; i < w->nimages; i++) {
		int d = owner_of(x, t, w->images[i]);
		if (d == x->dx.me)
			continue;
		if ((rc = bp_dist_ask_push(&k->ib->ask, bp_dist_key(t, w->images[i]), d)))
			return rc;
		asked++;
	}
	for (int i = 0; i < nc + w->nfar; i++) {
		uint64_t key = i < nc ? bp_dist_key(t + 1, w->children[i])
				      : bp_dist_key(t + 2, w->far[i - nc]);
		if ((rc = bp_vec_push(&k->ib->kids, &key, sizeof key)))
			return rc;
	}
	if ((rc = bp_vec_push(&k->ib->pos, &w->index, sizeof w->index)) ||
	    (rc = bp_vec_push(&k->ib->nk, &asked, sizeof asked)) ||
	    (rc = bp_vec_push(&k->ib->part, &nkids, sizeof nkids)))
		return rc;
	return BP_OK;
}

static int split_reach_item(void *ctx, int id, uint64_t j)
{
	struct expanded *x = ctx;
	uint64_t lo, hi;
	item_span(x, j, &lo, &hi);
	item_clear(x, &x->ib[j]);
	struct split_worker k = { .x = x,
				  .ib = &x->ib[j],
				  .img = x->img + (size_t)id * (size_t)x->dx.nranks };
	int rc = x->g->ops->tier_walk(x->g, x->t, lo, hi, BP_WALK_CHILDREN | BP_WALK_IMAGES, NULL,
				      split_reach_visit, &k);
	x->counts[id][1] += k.counts[1];
	return rc;
}

/* Pass B: a waiting class is reached when one of its images answered 1. */
static int split_reach_finish(void *ctx, int id, uint64_t j)
{
	struct expanded *x = ctx;
	struct item_buf *ib = &x->ib[j];
	const uint64_t *pos = ib->pos.a, *keys = ib->ask.keys.a, *kids = ib->kids.a;
	const uint32_t *nk = ib->nk.a, *nkids = ib->part.a;
	struct split_worker k = { .x = x, .img = x->img + (size_t)id * (size_t)x->dx.nranks };
	size_t a = 0, c = 0;
	int rc;
	for (size_t p = 0; p < ib->pos.n; c += nkids[p], p++) {
		uint16_t any = 0;
		for (uint32_t i = 0; i < nk[p]; i++, a++)
			any |= next_answer(x, ib, keys[a]);
		if (!any)
			continue;
		bit_set(x->reach[x->t], here(x, x->t, pos[p]));
		x->counts[id][1]++;
		for (uint32_t i = 0; i < nkids[p]; i++) {
			uint64_t key = kids[c + i];
			if ((rc = reach_mark(&k, bp_dist_key_tier(key), bp_dist_key_index(key))))
				return rc;
		}
	}
	return BP_OK;
}

/* Sets the marks received, a piece at a time (atomically: bits share words). */
static int set_marks(void *ctx, int worker, uint64_t item)
{
	struct expanded *x = ctx;
	uint64_t i0 = item * CHUNK, i1 = i0 + CHUNK < x->nimg ? i0 + CHUNK : x->nimg;
	(void)worker;
	for (uint64_t i = i0; i < i1; i++) {
		uint32_t ct = bp_dist_key_tier(x->imgs[i]);
		uint64_t c = bp_dist_key_index(x->imgs[i]);
		if (ct <= x->t || ct > x->t + (uint32_t)x->span || ct >= x->nt ||
		    c >= x->size[ct] || owner_of(x, ct, c) != x->dx.me)
			return BP_EIO;
		bit_set(x->reach[ct], here(x, ct, c));
	}
	return BP_OK;
}

static int split_reach(struct expanded *x, uint32_t t)
{
	int rc = BP_OK;
	uint64_t mine = mine_of(x, t);
	const struct bp_dist_lookup_ops ops = {
		.ctx = x, .ask = ask_of, .owner = image_owner, .answer = answer_bits
	};
	for (uint64_t k = 0, n = rounds_of(x, t); k < n && !rc; k++) {
		uint64_t first = k * x->round_items, *got = NULL, total = 0;
		uint64_t nitems = first >= mine			  ? 0
				  : mine - first < x->round_items ? mine - first
								  : x->round_items;
		uint16_t *answers = NULL;
		x->t = t;
		x->round0 = first;
		x->meter.keep = k > 0;
		rc = bp_solve_metered(&x->meter, 0, t, x->nt, x->threads, nitems, x->cb[t],
				      share(x, t), split_reach_item, x);
		if (!(rc = bp_dist_agree(&x->dx, rc, NULL, 0)))
			rc = bp_dist_lookup(&x->dx, x->threads, nitems, &ops, &answers);
		x->answers = answers;
		if (!(rc = bp_dist_agree(&x->dx, rc, NULL, 0)))
			rc = bp_parallel_for(x->threads, nitems, split_reach_finish, x);
		free(answers);
		x->answers = NULL;
		rc = bp_dist_exchange_lists(&x->dx, rc, x->img, x->threads, sizeof *got,
					    (void **)&got, &total);
		if (!rc) {
			x->imgs = got;
			x->nimg = total;
			rc = bp_parallel_for(x->threads, (total + CHUNK - 1) / CHUNK, set_marks, x);
			if (rc == BP_EIO)
				snprintf(x->errmsg, sizeof x->errmsg,
					 "a rank sent a mark above tier %u not held here", t);
		}
		free(got);
		rc = bp_dist_agree(&x->dx, rc, NULL, 0);
	}
	return rc;
}

static int reach_chunk(void *ctx, int id, uint64_t item)
{
	return walk_chunk(ctx, id, item, BP_WALK_CHILDREN | BP_WALK_IMAGES, reach_visit);
}

/* Copies each canonical record of tier t to the rest of its class. Two classes share
 * no member, so the workers write disjoint records. Collective across ranks. marked:
 * NULL, or the tier's reached bits (one process: the walk may leave out the positions
 * not reached, whose records and images are 0). */
static int expand(struct expanded *x, uint32_t t, const uint64_t *marked)
{
	/* every index a class of its own (the view of an index of reachable positions):
	 * no record to copy, and no pass over the tier to find that out (0.28 G of a
	 * one-thread mirador:10x10 solve's 31.6 G instructions) */
	if (x->g->ops->flags & BP_GAME_INDEX_CANONICAL)
		return BP_OK;
	if (split(x))
		return split_expand(x, t);
	set_range(x, t, 0, x->size[t], x->rec[t]);
	x->marked = marked;
	x->marked_what = BP_WALK_ONLY_MARKED;
	int rc = bp_parallel_for(x->threads, chunks(x), expand_chunk, x);
	x->marked = NULL;
	return rc;
}

/* The buffer for tier t's records (contents undefined). */
static int take_buffer(struct expanded *x, uint32_t t)
{
	void **b = &x->buf[t % (uint32_t)(x->span + 1)];
	if (!*b && !(*b = records_alloc(x->most, rec_width(x))))
		return BP_ENOMEM;
	x->rec[t] = *b;
	return BP_OK;
}

/* Tier t in memory and expanded, read from the table if needed. */
static int load_expanded(struct expanded *x, uint32_t t)
{
	int rc;
	if (x->rec[t])
		return BP_OK;
	if (!(rc = take_buffer(x, t))) {
		/* one process: 16-bit records whole, on the table's threads; 8-bit ones
		 * narrowed a piece at a time */
		if (split(x))
			rc = bp_dist_read_tier(&x->dx, x->tab, t, x->size[t], x->cb[t], x->rec[t],
					       rec_width(x));
		else if (x->wide)
			rc = bp_table_get_tier(x->tab, t, x->rec[t]);
		else
			rc = bp_dist_read_tier(&x->dx, x->tab, t, x->size[t], READ_PIECE, x->rec[t],
					       1);
	}
	if ((rc = bp_dist_agree(&x->dx, rc, NULL, 0))) {
		snprintf(x->errmsg, sizeof x->errmsg, "reading stored tier %u: %s", t,
			 bp_strerror(rc));
		return rc;
	}
	return expand(x, t, NULL); /* read back: the bits may be gone */
}

static void drop(struct expanded *x, uint32_t t)
{
	x->rec[t] = NULL;
}

/* What the solve allocates and writes: buffer i holds the tiers t with t % nbuf == i
 * in turn, and each is written in full (cleared chunk by chunk, or read back), so it
 * grows to the largest of them; the reached bits, one per index of every tier; the
 * base; with one-byte records, the store's staging of a tier's write on `threads`
 * threads. Resumed tiers that no solved tier needs are never loaded, so this is the
 * most a solve touches. */
static int estimate(const struct bp_game *g, int threads, uint64_t *bytes)
{
	uint64_t most[3] = { 0, 0, 0 }, bits = 0;
	if (!g->ops->tier_size || g->ntiers == 0)
		return BP_EUNSUPPORTED;
	const uint32_t nbuf = g->ops->flags & BP_GAME_TIER_SKIP ? 3 : 2;
	const uint64_t width = (uint64_t)bp_solve_walk_record_bytes(g);
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz;
		int rc = g->ops->tier_size(g, t, &sz);
		if (rc)
			return rc;
		most[t % nbuf] = sz > most[t % nbuf] ? sz : most[t % nbuf];
		bits += bp_solve_pages(8 * (sz / 64 + 1));
	}
	*bytes = bp_solve_base_memory(g);
	if (width == 1) {
		uint64_t largest = most[0] > most[1] ? most[0] : most[1];
		*bytes += bp_solve_walk_feed_bytes(largest > most[2] ? largest : most[2], threads);
	}
	for (uint32_t i = 0; i < nbuf; i++)
		*bytes += bp_solve_pages(width * most[i]);
	if (g->ops->flags & BP_GAME_WALK_UNREACHED)
		*bytes += bits;
	return BP_OK;
}

uint64_t bp_solve_walk_feed_bytes(uint64_t most, int threads)
{
	/* the records widened to two bytes for the store, a batch at a time (the encoded
	 * blocks it holds besides are compressed, and within the base) */
	return bp_table_fill_bytes(most, threads);
}

/* What storing and the scratch files add where the walk goes by segments: the store's
 * staging and, besides, the segment files' codecs and buffers, which grow with the
 * segments; measured (chicken:tri5 and rh3x4, 2026-11 and 2026-12-02) as at most four
 * bytes a record of the largest tier, near 16 MiB on one and two threads, and within
 * 3 to 7% of the peak so. */
#define SEGMENT_FEED_BYTES ((uint64_t)16 << 20)

static uint64_t segment_feed_bytes(uint64_t most)
{
	return 4 * most < SEGMENT_FEED_BYTES ? 4 * most : SEGMENT_FEED_BYTES;
}

int bp_solve_walk_segment_plan(const struct bp_game *g, uint64_t *tier_peak, uint64_t *peak)
{
	const struct bp_game_ops *ops = g->ops;
	if (!ops->walk_segments || !ops->tier_size || g->ntiers == 0)
		return BP_EUNSUPPORTED;
	int n = ops->walk_segments(g, NULL, 0);
	if (n < 0)
		return n;
	struct bp_segment *sg = calloc((size_t)n + 1, sizeof *sg);
	int *readers = calloc((size_t)n + 1, sizeof *readers);
	int rc = sg && readers ? BP_OK : BP_ENOMEM;
	if (!rc && ops->walk_segments(g, sg, n) != n)
		rc = BP_EINVAL;
	const uint64_t width = (uint64_t)bp_solve_walk_record_bytes(g);
	uint64_t bits = 0, live = 0, most = 0, largest = 0;
	for (uint32_t t = 0; !rc && t < g->ntiers; t++) {
		uint64_t sz;
		if ((rc = ops->tier_size(g, t, &sz)))
			break;
		largest = sz > largest ? sz : largest;
		if (ops->flags & BP_GAME_WALK_UNREACHED)
			bits += bp_solve_pages(8 * (sz / 64 + 1));
		if (tier_peak)
			tier_peak[t] = 0;
	}
	/* the forward pass holds every tier's bits, and walking one tier a second array of
	 * its bits (x->fresh) */
	most = bits +
	       (ops->flags & BP_GAME_WALK_UNREACHED ? bp_solve_pages(8 * (largest / 64 + 1)) : 0);
	for (uint32_t t = 0; tier_peak && t < g->ntiers; t++)
		tier_peak[t] = bits;
	for (int i = 0; !rc && i < n; i++)
		for (int j = 0; j < sg[i].nchildren; j++)
			if (sg[i].children[j] >= 0 && sg[i].children[j] < i)
				readers[sg[i].children[j]]++;
	for (int i = 0; !rc && i < n; i++) {
		uint64_t len = sg[i].hi - sg[i].lo;
		live += bp_solve_pages(width * len);
		/* a segment read later is solved with a bit per index (seg_solve's canon) */
		uint64_t now = live + bits + (readers[i] ? bp_solve_pages(8 * (len / 64 + 1)) : 0);
		most = now > most ? now : most;
		if (tier_peak && sg[i].tier < g->ntiers && now > tier_peak[sg[i].tier])
			tier_peak[sg[i].tier] = now;
		for (int j = 0; j < sg[i].nchildren; j++) {
			int c = sg[i].children[j];
			if (c >= 0 && c < i && --readers[c] == 0)
				live -= bp_solve_pages(width * (sg[c].hi - sg[c].lo));
		}
		if (readers[i] == 0)
			live -= bp_solve_pages(width * len);
		if (ops->flags & BP_GAME_WALK_UNREACHED) {
			uint64_t freed = len / 8 > 8192 ? (len / 8 - 8192) & ~4095ull : 0;
			bits -= freed < bits ? freed : bits;
		}
	}
	free(sg);
	free(readers);
	uint64_t fixed = bp_solve_base_memory(g) + segment_feed_bytes(largest);
	*peak = most + fixed;
	for (uint32_t t = 0; tier_peak && t < g->ntiers; t++)
		tier_peak[t] += fixed;
	return rc;
}

/* ---- reach files (one process) -------------------------------------------------
 *
 * The forward pass takes hours on the largest instances (chicken:hex3: 6.9 GiB of bits,
 * 1.5 to 3 hours on two cores), longer than a working session, so its bits wait in
 * scratch files next to the database, as the segments' records do, and a solve resumed
 * after a stop or a kill goes on marking where the files leave it. A tier's bits are
 * one file (solver/segfile.h: its bit words as 16-bit records, width 2, lo 0), under
 * the solve's hash (walk_hash) mixed with "reach", so that a segment's file never
 * passes for one. Its head says how far the pass had got when it was written:
 *     count[0] = k: the bits hold the marks of every tier below k (from the start's
 *                   tier), and, when k > its tier, the tier's own canonical bits: final;
 *     count[1]    : its reached canonical positions (when final), for the progress.
 * Processing tier t finishes t's bits, completes t + 1's inputs (moves go to t + 1 and
 * t + 2) and gives t + 2 its marks from t; so after tier t the files of t, t + 1 and
 * t + 2 are written with k = t + 1. Marks are facts about the game, never withdrawn, so
 * a file holding more than a resume needs is as good: the pass may resume at k when
 * every tier below k has a final file and tiers k and k + 1 have files with a k' >= k
 * (or none, at the start's tier). A resume takes the largest such k; k = ntiers means
 * the pass is done and is skipped. A file that fails (head, length or a checksum) is
 * removed and the choice made again without it: its tier is marked again. What a kill
 * loses: the tier being marked. The files go when the table is complete (and on
 * `solve --replace`: bp_solve_walk_remove_scratch). */

/* The solve a scratch file belongs to: the instance, its rules, the tier sizes. */
static uint64_t walk_hash(const struct bp_game *g, const uint64_t *size, uint32_t nt)
{
	uint64_t h = bp_hash64(g->spec, strlen(g->spec), BP_RULES_VERSION);
	return bp_hash64(size, sizeof *size * nt, h);
}

static int reach_files(const struct expanded *x)
{
	return x->dir && !split(x);
}

static void reach_path(const struct expanded *x, uint32_t t, char *out, size_t len)
{
	snprintf(out, len, "%s/walk-%016llx-reach-%u.bits", x->dir, (unsigned long long)x->hash, t);
}

static struct bp_segfile_head reach_head(const struct expanded *x, uint32_t t)
{
	return (struct bp_segfile_head){ .solve = bp_hash64("reach", 5, x->hash),
					 .tier = t,
					 .width = 2,
					 .lo = 0,
					 .hi = 4 * (x->size[t] / 64 + 1) };
}

/* Writes tier t's bits with k (and its reached positions, when final). */
static int reach_write(struct expanded *x, uint32_t t, uint64_t k, uint64_t reached)
{
	char path[4200];
	struct bp_segfile_head h = reach_head(x, t);
	h.count[0] = k;
	h.count[1] = reached;
	reach_path(x, t, path, sizeof path);
	int rc = bp_segfile_write(path, &h, x->reach[t], NULL, x->threads);
	if (rc)
		snprintf(x->errmsg, sizeof x->errmsg, "writing %s: %s", path, strerror(errno));
	return rc;
}

/* After tier t is processed: the files of t, t + 1 and t + 2 with k = t + 1. */
static int reach_save(struct expanded *x, uint32_t t, uint64_t reached)
{
	int rc = BP_OK;
	for (uint32_t u = t; u <= t + 2 && u < x->nt && !rc; u++)
		rc = reach_write(x, u, t + 1, u == t ? reached : 0);
	return rc;
}

/* The largest k the files allow (see above); have[u]: u's k', 0 for no file. */
static uint32_t reach_resume_at(const struct expanded *x, uint32_t st, const uint64_t *have)
{
	for (uint32_t k = x->nt; k > st; k--) {
		int ok = 1;
		for (uint32_t u = st; u < k && ok; u++)
			ok = have[u] > u;
		for (uint32_t u = k; u <= k + 1 && u < x->nt && ok; u++)
			ok = have[u] >= k;
		if (ok)
			return k;
	}
	return st;
}

/* Takes back what the files hold: *from gets the first tier to mark (x->nt: none),
 * reached[u] the positions of each final tier taken back. */
static int reach_load(struct expanded *x, uint32_t st, uint32_t *from, uint64_t *reached,
		      struct bp_solve_result *out)
{
	uint64_t *have = calloc(x->nt, sizeof *have);
	int rc = have ? BP_OK : BP_ENOMEM;
	char path[4200];
	for (uint32_t u = st; u < x->nt && !rc; u++) {
		struct bp_segfile_head h = reach_head(x, u);
		reach_path(x, u, path, sizeof path);
		int prc = bp_segfile_probe(path, &h);
		if (prc == BP_OK && h.count[0] > st && h.count[0] <= x->nt) {
			have[u] = h.count[0];
			reached[u] = h.count[1];
		} else if (prc != BP_ENOTFOUND) { /* another solve's, short, or a bad head */
			remove(path);
			out->damaged_reach_files++;
		}
	}
	uint32_t k = st;
	while (!rc) {
		k = reach_resume_at(x, st, have);
		uint32_t bad = x->nt;
		for (uint32_t u = st; u < k + 2 && u < x->nt && bad == x->nt && !rc; u++) {
			/* at the start's tier: nothing marked yet; a stored tier's bits are
			 * never read once the pass is over */
			if (!have[u] || (k == x->nt && x->done[u]))
				continue;
			struct bp_segfile_head h = reach_head(x, u);
			reach_path(x, u, path, sizeof path);
			if ((rc = bp_segfile_read(path, &h, x->reach[u])) == BP_ECORRUPT) {
				remove(path);
				out->damaged_reach_files++;
				have[u] = 0;
				bad = u;
				rc = BP_OK;
			}
		}
		if (rc || bad == x->nt)
			break;
		for (uint32_t u = st; u < x->nt; u++) /* choose again, from nothing read */
			memset(x->reach[u], 0, sizeof(uint64_t) * (x->size[u] / 64 + 1));
	}
	free(have);
	if (!rc) {
		*from = k;
		out->resumed_reach_tiers = k - st;
	}
	return rc;
}

int bp_solve_walk_remove_scratch(const struct bp_game *g, const char *dir)
{
	if (!g->ops->tier_walk || !g->ops->tier_size || g->ntiers == 0)
		return 0;
	uint64_t *size = calloc(g->ntiers, sizeof *size);
	if (!size)
		return BP_ENOMEM;
	int rc = BP_OK;
	for (uint32_t t = 0; t < g->ntiers && !rc; t++)
		rc = g->ops->tier_size(g, t, &size[t]);
	char prefix[64];
	if (!rc)
		snprintf(prefix, sizeof prefix, "walk-%016llx-",
			 (unsigned long long)walk_hash(g, size, g->ntiers));
	free(size);
	if (rc)
		return rc;
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : BP_EIO;
	int n = 0;
	const struct dirent *e;
	/* segments' and reached bits' files, whole or left half-written (.tmp) */
	while ((e = readdir(d)) != NULL && !rc) {
		char path[4200];
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
		    remove(path) != 0)
			rc = BP_EIO;
		else
			n++;
	}
	closedir(d);
	return rc ? rc : n;
}

/* The forward pass of BP_GAME_WALK_UNREACHED games, tiers upwards from the start's.
 * Across ranks each holds the bits of its chunks only; in one process the bits are
 * saved a tier at a time, and a resumed pass goes on from its files (reach files). */
static int mark_reached(struct expanded *x, uint32_t st, uint64_t sidx, double t0,
			struct bp_solve_result *out)
{
	const struct bp_solve_opts *opts = x->meter.o;
	uint64_t *taken = calloc(x->nt, sizeof *taken);
	uint32_t from = st;
	int rc = taken ? BP_OK : BP_ENOMEM;
	for (uint32_t t = 0; t < x->nt && !rc; t++)
		if (!(x->reach[t] = calloc(share(x, t) / 64 + 1, sizeof(uint64_t))))
			rc = BP_ENOMEM;
	if ((rc = bp_dist_agree(&x->dx, rc, NULL, 0)))
		goto out;
	if (reach_files(x) && (rc = reach_load(x, st, &from, taken, out)))
		goto out;
	for (uint32_t t = st; t < from && opts->progress; t++) {
		struct bp_solve_progress pr = { .phase = 0,
						.tier = t,
						.ntiers = x->nt,
						.positions = taken[t],
						.seconds = bp_solve_clock() - t0,
						.resumed = 1 };
		opts->progress(opts->ctx, &pr);
	}
	if (owner_of(x, st, sidx) == x->dx.me)
		bit_set(x->reach[st], split(x) ? here(x, st, sidx) : sidx);
	for (uint32_t t = from; t < x->nt; t++)
		x->meter.phase_total += share(x, t);
	for (uint32_t t = from; t < x->nt; t++) {
		memset(x->counts, 0, sizeof *x->counts * (size_t)x->threads);
		set_range(x, t, 0, x->size[t], NULL);
		/* a position whose own bit is set is reached: its images are not needed;
		 * a class with no member's bit set is not, and needs no children */
		x->marked = split(x) ? NULL : x->reach[t];
		x->marked_what = BP_WALK_IMAGES_UNMARKED | BP_WALK_ONLY_CLASS_MARKED;
		if (!split(x) && !(x->fresh = calloc(x->size[t] / 64 + 1, sizeof(uint64_t))))
			rc = BP_ENOMEM;
		if (!rc)
			rc = split(x) ? split_reach(x, t)
				      : bp_solve_metered(&x->meter, 0, t, x->nt, x->threads,
							 chunks(x), CHUNK, x->size[t], reach_chunk,
							 x);
		x->marked = NULL;
		if (x->fresh && !rc) { /* the tier is done: marks reach it no more */
			free(x->reach[t]);
			x->reach[t] = x->fresh;
		} else {
			free(x->fresh);
		}
		x->fresh = NULL;
		uint64_t reached = 0;
		for (int i = 0; i < x->threads; i++)
			reached += x->counts[i][1];
		if ((rc = bp_dist_agree(&x->dx, rc, &reached, 1)))
			goto out;
		if (reach_files(x) && (rc = reach_save(x, t, reached)))
			goto out;
		if (opts->progress) {
			struct bp_solve_progress pr = { .phase = 0,
							.tier = t,
							.ntiers = x->nt,
							.positions = reached,
							.seconds = bp_solve_clock() - t0 };
			opts->progress(opts->ctx, &pr);
		}
	}
	x->meter.phase_done = x->meter.phase_total = 0;
out:
	free(taken);
	return rc;
}

/* ---- segments (one process; bp_game_ops.walk_segments) ----------------------------
 *
 * A game that cuts its tiers into segments (index ranges closed under the symmetry,
 * listed so that each comes after the segments its children lie in) is solved one
 * segment at a time in the game's order. Only the segments still to be read by a
 * segment not yet solved are held, expanded, each in its own allocation, freed as soon
 * as its last reader is solved. Such a segment is solved and expanded in one walk: the
 * walk lists each canonical position's children and images at once (where whole tiers
 * take a pass each), and a bit per index marks the canonical records, the only ones
 * its scratch file keeps. A tier is stored in one transaction, so a solved
 * segment's records (canonical layout, as stored) wait in a scratch file next to the
 * database (solver/segfile.h) until its tier is complete; the tier is then stored from
 * its files, read in order, and they are removed. A segment's reached bits (one array
 * per tier, as the forward pass left them) are given back to the system once it is
 * solved.
 *
 * Resumed after a stop or a kill: a stored tier is read back a segment at a time where
 * a segment to solve needs it; a segment whose scratch file checks out (magic, head,
 * length) counts as solved, its records checked against their checksum when they are
 * read; a file that fails is removed and the solve stops with BP_ECORRUPT (the next
 * run solves that segment again). What a kill loses: the segments being solved, and
 * nothing that reached its file. */

enum { SEG_TODO, SEG_SOLVED, SEG_FILE, SEG_STORED, SEG_BELOW };

struct seg {
	struct bp_segment s;
	int state;
	int readers; /* segments to solve that read it */
	void *rec;   /* expanded, or NULL */
	uint64_t count[4];
};

struct segs {
	struct seg *v;
	int n;
	int **by_tier; /* per tier, its segments in index order */
	int *nby;
	uint64_t hash;
};

static void seg_path(const struct expanded *x, const struct segs *S, int i, char *out, size_t len)
{
	snprintf(out, len, "%s/walk-%016llx-%d.seg", x->dir, (unsigned long long)S->hash, i);
}

static struct bp_segfile_head seg_head(const struct expanded *x, const struct segs *S, int i)
{
	const struct bp_segment *sg = &S->v[i].s;
	return (struct bp_segfile_head){ .solve = S->hash,
					 .tier = sg->tier,
					 .width = (uint32_t)rec_width(x),
					 .lo = sg->lo,
					 .hi = sg->hi };
}

/* The game's segments, checked: every child listed before its reader, in the tier
 * above or two above, and each tier tiled by its segments. */
static int segs_load(struct expanded *x, struct segs *S)
{
	const struct bp_game *g = x->g;
	int n = g->ops->walk_segments(g, NULL, 0);
	if (n < 0)
		return n;
	struct bp_segment *tmp = calloc((size_t)n + 1, sizeof *tmp);
	S->v = calloc((size_t)n + 1, sizeof *S->v);
	S->by_tier = calloc(x->nt, sizeof *S->by_tier);
	S->nby = calloc(x->nt, sizeof *S->nby);
	if (!tmp || !S->v || !S->by_tier || !S->nby) {
		free(tmp);
		return BP_ENOMEM;
	}
	int rc = g->ops->walk_segments(g, tmp, n) == n ? BP_OK : BP_EINVAL;
	S->n = n;
	for (int i = 0; i < n && !rc; i++) {
		const struct bp_segment *sg = &tmp[i];
		S->v[i].s = *sg;
		if (sg->tier >= x->nt || sg->lo > sg->hi || sg->hi > x->size[sg->tier] ||
		    sg->nchildren < 0 || sg->nchildren > BP_SEGMENT_MAX_CHILDREN)
			rc = BP_EINVAL;
		for (int j = 0; j < sg->nchildren && !rc; j++) {
			int c = sg->children[j];
			uint32_t ct = c >= 0 && c < i ? tmp[c].tier : 0;
			if (c < 0 || c >= i || ct <= sg->tier || ct > sg->tier + (uint32_t)x->span)
				rc = BP_EINVAL;
		}
		if (!rc)
			S->nby[sg->tier]++;
	}
	free(tmp);
	for (uint32_t t = 0; t < x->nt && !rc; t++)
		if (!(S->by_tier[t] = calloc((size_t)S->nby[t] + 1, sizeof(int))))
			rc = BP_ENOMEM;
	if (rc) {
		if (rc == BP_EINVAL)
			snprintf(x->errmsg, sizeof x->errmsg,
				 "the game's segments are out of order or out of range");
		return rc;
	}
	memset(S->nby, 0, x->nt * sizeof *S->nby);
	for (int i = 0; i < n; i++) {
		uint32_t t = S->v[i].s.tier;
		S->by_tier[t][S->nby[t]++] = i;
	}
	for (uint32_t t = 0; t < x->nt; t++) {
		int *b = S->by_tier[t]; /* by index: few segments a tier, insertion sort */
		for (int j = 1; j < S->nby[t]; j++)
			for (int k = j; k > 0 && S->v[b[k - 1]].s.lo > S->v[b[k]].s.lo; k--) {
				int sw = b[k];
				b[k] = b[k - 1];
				b[k - 1] = sw;
			}
		uint64_t at = 0;
		for (int j = 0; j < S->nby[t]; j++) {
			const struct bp_segment *sg = &S->v[S->by_tier[t][j]].s;
			if (sg->lo != at)
				break;
			at = sg->hi;
		}
		if (at != x->size[t]) {
			snprintf(x->errmsg, sizeof x->errmsg,
				 "tier %u: the game's segments do not tile it", t);
			return BP_EINVAL;
		}
	}
	S->hash = x->hash;
	return BP_OK;
}

static void segs_free(struct expanded *x, struct segs *S)
{
	for (int i = 0; S->v && i < S->n; i++)
		free(S->v[i].rec);
	for (uint32_t t = 0; S->by_tier && t < x->nt; t++)
		free(S->by_tier[t]);
	free(S->by_tier);
	free(S->nby);
	free(S->v);
}

/* Gives back the pages of reached bits that lie wholly inside segment sg. */
static void reach_release(struct expanded *x, const struct bp_segment *sg)
{
	if (!x->reach || !x->reach[sg->tier])
		return;
	uintptr_t from = (uintptr_t)(x->reach[sg->tier] + sg->lo / 64 + 1);
	uintptr_t to = (uintptr_t)(x->reach[sg->tier] + sg->hi / 64);
	from = (from + 4095) & ~(uintptr_t)4095;
	to &= ~(uintptr_t)4095;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED); /* read as zeros: never again */
}

/* Records lo .. hi - 1 of stored tier t into rec, narrowed where they are 8 bits. */
static int read_range(struct expanded *x, uint32_t t, uint64_t lo, uint64_t hi, void *rec)
{
	if (x->wide)
		return bp_table_get_range(x->tab, t, lo, hi - lo, rec);
	uint16_t *w = malloc(sizeof *w * READ_PIECE);
	int rc = w ? BP_OK : BP_ENOMEM;
	for (uint64_t at = lo; at < hi && !rc; at += READ_PIECE) {
		uint64_t k = hi - at < READ_PIECE ? hi - at : READ_PIECE;
		if ((rc = bp_table_get_range(x->tab, t, at, k, w)))
			break;
		uint8_t *dst = (uint8_t *)rec + (at - lo);
		for (uint64_t i = 0; i < k && !rc; i++) {
			dst[i] = (uint8_t)w[i];
			rc = w[i] >> 8 ? BP_ERANGE : BP_OK;
		}
	}
	free(w);
	return rc;
}

/* A damaged scratch file: removed, and the message says so. */
static int seg_damaged(struct expanded *x, const struct segs *S, int i)
{
	char path[4200];
	seg_path(x, S, i, path, sizeof path);
	remove(path);
	snprintf(x->errmsg, sizeof x->errmsg,
		 "%s failed a checksum: removed; run the solve again to solve its segment "
		 "again",
		 path);
	return BP_ECORRUPT;
}

/* Segment i in memory, expanded: from its file, or from its stored tier. */
static int seg_load(struct expanded *x, struct segs *S, int i)
{
	struct seg *sg = &S->v[i];
	int rc;
	if (sg->rec)
		return BP_OK;
	if (sg->state != SEG_FILE && sg->state != SEG_STORED) {
		snprintf(x->errmsg, sizeof x->errmsg, "segment %d read before it is solved", i);
		return BP_EINVAL;
	}
	if (!(sg->rec = records_alloc(sg->s.hi - sg->s.lo, rec_width(x))))
		return BP_ENOMEM;
	if (sg->state == SEG_FILE) {
		char path[4200];
		struct bp_segfile_head h = seg_head(x, S, i);
		seg_path(x, S, i, path, sizeof path);
		if ((rc = bp_segfile_read(path, &h, sg->rec)))
			return rc == BP_ENOMEM ? rc : seg_damaged(x, S, i);
	} else if ((rc = read_range(x, sg->s.tier, sg->s.lo, sg->s.hi, sg->rec))) {
		snprintf(x->errmsg, sizeof x->errmsg, "reading stored tier %u: %s", sg->s.tier,
			 bp_strerror(rc));
		return rc;
	}
	set_range(x, sg->s.tier, sg->s.lo, sg->s.hi, sg->rec);
	return bp_parallel_for(x->threads, chunks(x), expand_chunk, x);
}

static void seg_drop(struct segs *S, int i)
{
	free(S->v[i].rec);
	S->v[i].rec = NULL;
}

/* Tier t's records for the store, from its segments' files in index order. */
struct tier_feed {
	struct expanded *x;
	struct segs *S;
	uint32_t t;
	int k; /* the segment (in by_tier[t]) being read; -1: none open */
	uint64_t end;
	struct bp_segfile_stream st;
	int bad; /* the segment whose file failed, or -1 */
};

static int feed_segments(void *ctx, uint64_t first, uint64_t n, uint16_t *dst)
{
	struct tier_feed *f = ctx;
	while (n) {
		if (f->k < 0 || first >= f->end) {
			int i = f->S->by_tier[f->t][++f->k];
			char path[4200];
			struct bp_segfile_head h = seg_head(f->x, f->S, i);
			bp_segfile_close(&f->st);
			seg_path(f->x, f->S, i, path, sizeof path);
			f->bad = i;
			int rc = bp_segfile_open(path, &h, &f->st);
			if (rc)
				return rc == BP_ENOMEM ? rc : BP_ECORRUPT;
			f->end = h.hi;
		}
		uint64_t k = f->end - first < n ? f->end - first : n;
		int rc = bp_segfile_next(&f->st, k, dst);
		if (rc)
			return rc == BP_ENOMEM ? rc : BP_ECORRUPT;
		first += k;
		dst += k;
		n -= k;
	}
	return BP_OK;
}

/* Stores tier t from its segments' files, then removes them. */
static int seg_store_tier(struct expanded *x, struct segs *S, uint32_t t, double seconds,
			  struct bp_solve_result *out)
{
	struct tier_feed f = { .x = x, .S = S, .t = t, .k = -1, .bad = -1 };
	int rc = bp_solve_put_tier_fill(x->g, x->tab, t, feed_segments, &f, x->threads, seconds,
					out, x->errmsg, sizeof x->errmsg);
	bp_segfile_close(&f.st);
	if (rc == BP_ECORRUPT && f.bad >= 0) /* a fill error: nothing was written */
		return seg_damaged(x, S, f.bad);
	for (int j = 0; !rc && j < S->nby[t]; j++) {
		char path[4200];
		seg_path(x, S, S->by_tier[t][j], path, sizeof path);
		remove(path);
	}
	return rc;
}

/* When every segment of tier t is solved (or in its file), stores the tier. */
static int seg_tier_check(struct expanded *x, struct segs *S, uint32_t t, double t0, double prior,
			  struct bp_solve_result *out)
{
	uint64_t tc[4] = { 0 };
	for (int j = 0; j < S->nby[t]; j++) {
		const struct seg *sg = &S->v[S->by_tier[t][j]];
		if (sg->state != SEG_SOLVED && sg->state != SEG_FILE)
			return BP_OK;
		for (int v = 0; v < 4; v++)
			tc[v] += sg->count[v];
	}
	int rc = seg_store_tier(x, S, t, prior + (bp_solve_clock() - t0), out);
	if (rc)
		return rc;
	for (int j = 0; j < S->nby[t]; j++)
		S->v[S->by_tier[t][j]].state = SEG_STORED;
	struct bp_solve_progress pr = { .phase = 1, .tier = t, .ntiers = x->nt };
	out->solved_tiers++;
	bp_solve_add_counts(tc, out, &pr);
	pr.seconds = bp_solve_clock() - t0;
	if (x->meter.o->progress)
		x->meter.o->progress(x->meter.o->ctx, &pr);
	return BP_OK;
}

/* Solves segment i (its children in memory). */
static int seg_solve(struct expanded *x, struct segs *S, int i)
{
	struct seg *sg = &S->v[i];
	uint32_t t = sg->s.tier;
	int rc;
	if (!(sg->rec = records_alloc(sg->s.hi - sg->s.lo, rec_width(x))))
		return BP_ENOMEM;
	x->nnear = x->nfar = 0;
	for (int j = 0; j < sg->s.nchildren; j++) {
		const struct seg *c = &S->v[sg->s.children[j]];
		struct part p = { c->rec, c->s.lo, c->s.hi - c->s.lo };
		if (c->s.tier == t + 1)
			x->near[x->nnear++] = p;
		else
			x->far[x->nfar++] = p;
	}
	memset(x->counts, 0, sizeof *x->counts * (size_t)x->threads);
	set_range(x, t, sg->s.lo, sg->s.hi, sg->rec);
	x->meter.keep = 0;
	x->marked = x->reach ? x->reach[t] : NULL;
	x->marked_what = BP_WALK_ONLY_MARKED;
	/* read later: solved and expanded in one pass (sg->rec is zeroed) */
	if (sg->readers > 0 &&
	    !(x->canon = calloc((sg->s.hi - sg->s.lo) / 64 + 1, sizeof *x->canon)))
		return BP_ENOMEM;
	rc = bp_solve_metered(&x->meter, 1, t, x->nt, x->threads, chunks(x), CHUNK,
			      sg->s.hi - sg->s.lo, solve_chunk, x);
	x->marked = NULL;
	if (rc)
		goto out;
	for (int w = 0; w < x->threads; w++)
		for (int v = 0; v < 4; v++)
			sg->count[v] += x->counts[w][v];
	if ((rc = bp_game_status(x->g))) {
		snprintf(x->errmsg, sizeof x->errmsg, "solving tier %u: a rule failed: %s", t,
			 bp_strerror(rc));
		goto out;
	}
	char path[4200];
	struct bp_segfile_head h = seg_head(x, S, i);
	memcpy(h.count, sg->count, sizeof h.count);
	seg_path(x, S, i, path, sizeof path);
	if ((rc = bp_segfile_write(path, &h, sg->rec, x->canon, x->threads))) {
		snprintf(x->errmsg, sizeof x->errmsg, "writing %s: %s", path, strerror(errno));
		goto out;
	}
	sg->state = SEG_SOLVED;
out:
	free(x->canon);
	x->canon = NULL;
	return rc;
}

static int solve_segments(struct expanded *x, uint32_t st, double t0, double prior,
			  struct bp_solve_result *out)
{
	struct segs S = { 0 };
	int rc = segs_load(x, &S);
	if (rc)
		goto out;
	/* what is solved already: stored tiers, and segments in their files */
	for (int i = 0; i < S.n; i++) {
		struct seg *sg = &S.v[i];
		uint32_t t = sg->s.tier;
		char path[4200];
		struct bp_segfile_head h = seg_head(x, &S, i);
		seg_path(x, &S, i, path, sizeof path);
		if (t < st) {
			sg->state = SEG_BELOW;
		} else if (x->done[t]) {
			sg->state = SEG_STORED;
			remove(path); /* left by a run killed after storing the tier */
		} else if (bp_segfile_probe(path, &h) == BP_OK) {
			sg->state = SEG_FILE;
			memcpy(sg->count, h.count, sizeof h.count);
			out->resumed_segments++;
		}
	}
	for (uint32_t t = st; t < x->nt; t++)
		if (x->done[t]) {
			struct bp_solve_progress pr = { .phase = 1, .tier = t, .ntiers = x->nt };
			out->resumed_tiers++;
			bp_solve_add_counts(x->done_count[t], out, &pr);
			pr.resumed = 1;
			pr.seconds = bp_solve_clock() - t0;
			if (x->meter.o->progress)
				x->meter.o->progress(x->meter.o->ctx, &pr);
		} else if ((rc = seg_tier_check(x, &S, t, t0, prior, out))) {
			goto out; /* every segment in its file: stored at once */
		}
	for (int i = 0; i < S.n; i++)
		if (S.v[i].state == SEG_TODO) {
			x->meter.phase_total += S.v[i].s.hi - S.v[i].s.lo;
			for (int j = 0; j < S.v[i].s.nchildren; j++)
				S.v[S.v[i].s.children[j]].readers++;
		}
	for (int i = 0; i < S.n; i++) {
		struct seg *sg = &S.v[i];
		if (sg->state != SEG_TODO)
			continue;
		for (int j = 0; j < sg->s.nchildren; j++)
			if ((rc = seg_load(x, &S, sg->s.children[j])))
				goto out;
		if ((rc = seg_solve(x, &S, i)))
			goto out;
		for (int j = 0; j < sg->s.nchildren; j++) {
			int c = sg->s.children[j];
			if (--S.v[c].readers == 0)
				seg_drop(&S, c);
		}
		if (sg->readers == 0)
			seg_drop(&S, i); /* else seg_solve expanded it */
		reach_release(x, &sg->s);
		if ((rc = seg_tier_check(x, &S, sg->s.tier, t0, prior, out)))
			goto out;
	}
	for (uint32_t t = st; t < x->nt; t++)
		for (int j = 0; j < S.nby[t]; j++)
			if (S.v[S.by_tier[t][j]].state != SEG_STORED) {
				snprintf(x->errmsg, sizeof x->errmsg, "tier %u was left unstored",
					 t);
				rc = BP_EINVAL;
				goto out;
			}
out:
	segs_free(x, &S);
	return rc;
}

int bp_solve_walk(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		  struct bp_solve_result *out, struct bp_err *err)
{
	int rc;
	double t0 = bp_solve_clock();
	struct expanded x = { .g = g,
			      .nt = g->ntiers,
			      .span = g->ops->flags & BP_GAME_TIER_SKIP ? 2 : 1,
			      .wide = opts->wide_records || !compact(g->ntiers) };
	x.max_rem = x.wide ? BP_RECORD_NO_REMOTENESS - 1 : 63;
	memset(out, 0, sizeof *out);
	bp_dist_init(&x.dx, opts->dist, x.errmsg, sizeof x.errmsg);
	/* one process: segment by segment where the game cuts its tiers */
	const int segmented = g->ops->walk_segments && !(opts->dist && opts->dist->nranks > 1);
	/* across ranks, a failure before the first pass is agreed on before any rank
	 * leaves: the others would wait for it (ranks on other machines may even have
	 * another memory limit) */
	const int threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	rc = segmented ? bp_solve_walk_segment_plan(g, NULL, &out->memory_estimate)
		       : estimate(g, threads, &out->memory_estimate);
	rc = bp_solve_plan_check(g, rc, opts, &out->memory_estimate, err);
	if (bp_dist_agree(&x.dx, rc, NULL, 0) && !rc) {
		bp_err_set(err, BP_EIO, "%s: %s", g->spec, x.errmsg);
		return BP_EIO;
	}
	if (rc)
		return rc;
	x.threads = threads;
	x.cb = calloc(x.nt, sizeof *x.cb);
	x.size = calloc(x.nt, sizeof *x.size);
	x.rec = calloc(x.nt, sizeof *x.rec);
	x.done = calloc(x.nt, sizeof *x.done);
	x.done_count = calloc(x.nt, sizeof *x.done_count);
	x.counts = calloc((size_t)x.threads, sizeof *x.counts);
	if (!x.size || !x.rec || !x.done || !x.done_count || !x.counts || !x.cb)
		rc = BP_ENOMEM;
	if ((rc = bp_dist_agree(&x.dx, rc, NULL, 0)))
		goto out;
	int nr = x.dx.nranks;
	for (uint32_t t = 0; t < x.nt; t++) {
		g->ops->tier_size(g, t, &x.size[t]);
		x.cb[t] = CHUNK;
		/* across ranks, a small tier in smaller chunks: every rank gets a share */
		uint64_t few = (uint64_t)nr * SMALL_ITEMS;
		if (nr > 1 && x.size[t] < CHUNK * few)
			x.cb[t] = x.size[t] > few ? (x.size[t] + few - 1) / few : 1;
		if (nr > 1 && x.size[t] >= (uint64_t)1 << 48) {
			snprintf(x.errmsg, sizeof x.errmsg,
				 "tier %u: too large to split across ranks", t);
			rc = BP_ERANGE;
			goto out;
		}
		/* a rank's records of a tier: its chunks, whole */
		uint64_t held = nr > 1 ? mine_of(&x, t) * x.cb[t] : x.size[t];
		x.most = held > x.most ? held : x.most;
	}
	if (nr > 1) {
		x.round_items = (uint64_t)(4 * x.threads > 8 ? 4 * x.threads : 8);
		x.ib = calloc((size_t)x.round_items, sizeof *x.ib);
		x.img = calloc((size_t)x.threads * (size_t)nr, sizeof *x.img);
		if (!x.ib || !x.img)
			rc = BP_ENOMEM;
		for (uint64_t j = 0; !rc && j < x.round_items; j++)
			rc = bp_dist_ask_init(&x.ib[j].ask, nr);
		if ((rc = bp_dist_agree(&x.dx, rc, NULL, 0)))
			goto out;
	}
	/* rank 0 creates the table before the others open it to read */
	for (int pass = 0; pass < 2; pass++) {
		int writer = x.dx.me == 0;
		if (pass == 0 ? writer : !writer)
			rc = bp_solve_open_table(g, db, x.size, opts, writer, &x.tab, err);
		if (nr == 1)
			break;
		if (bp_dist_agree(&x.dx, rc, NULL, 0) && !rc) {
			rc = BP_EIO;
			goto out;
		}
		if (rc)
			goto out_quiet;
	}
	if (rc)
		goto out_quiet;
	struct bp_table_meta meta;
	double prior_seconds = 0;
	if (!(rc = bp_table_meta_get(x.tab, &meta))) {
		prior_seconds = meta.seconds;
		/* meta's pointers die at the first write */
		memcpy(x.done, meta.tier_done, x.nt);
		memcpy(x.done_count, meta.tier_count, x.nt * sizeof *x.done_count);
	}

	uint32_t st = 0;
	uint64_t sidx = 0;
	if (!rc)
		rc = bp_solve_start(g, &st, &sidx);
	if ((rc = bp_dist_agree(&x.dx, rc, NULL, 0)))
		goto out;

	x.meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	x.dir = bp_store_path(db);
	x.hash = walk_hash(g, x.size, x.nt);
	/* a table complete already needs no bits */
	int all_done = 1;
	for (uint32_t t = st; t < x.nt; t++)
		all_done &= x.done[t] != 0;
	if ((g->ops->flags & BP_GAME_WALK_UNREACHED) && !all_done) {
		x.reach = calloc(x.nt, sizeof *x.reach);
		if ((rc = bp_dist_agree(&x.dx, x.reach ? BP_OK : BP_ENOMEM, NULL, 0)) ||
		    (rc = mark_reached(&x, st, sidx, t0, out)))
			goto out;
	}
	if (segmented && (rc = solve_segments(&x, st, t0, prior_seconds, out)))
		goto out;
	for (uint32_t t = st; !segmented && t < x.nt; t++)
		x.meter.phase_total += x.done[t] ? 0 : share(&x, t);
	for (uint32_t t = x.nt; !segmented && t-- > st;) {
		struct bp_solve_progress pr = { .phase = 1, .tier = t, .ntiers = x.nt };
		if (x.done[t]) {
			out->resumed_tiers++;
			bp_solve_add_counts(x.done_count[t], out, &pr);
			pr.resumed = 1;
		} else {
			for (uint32_t d = 1; d <= (uint32_t)x.span && t + d < x.nt; d++)
				if ((rc = load_expanded(&x, t + d)))
					goto out;
			if ((rc = bp_dist_agree(&x.dx, take_buffer(&x, t), NULL, 0)))
				goto out;
			memset(x.counts, 0, sizeof *x.counts * (size_t)x.threads);
			set_range(&x, t, 0, x.size[t], x.rec[t]);
			x.nnear = x.nfar = 0;
			if (t + 1 < x.nt)
				x.near[x.nnear++] = (struct part){ x.rec[t + 1], 0, x.size[t + 1] };
			if (t + 2 < x.nt && x.rec[t + 2])
				x.far[x.nfar++] = (struct part){ x.rec[t + 2], 0, x.size[t + 2] };
			x.marked = x.reach && !split(&x) ? x.reach[t] : NULL;
			x.marked_what = BP_WALK_ONLY_MARKED;
			rc = split(&x)
				     ? split_solve(&x, t)
				     : bp_solve_metered(&x.meter, 1, t, x.nt, x.threads, chunks(&x),
							CHUNK, x.size[t], solve_chunk, &x);
			x.marked = NULL;
			if (rc)
				goto out;
			uint64_t tc[4] = { 0 };
			for (int i = 0; i < x.threads; i++)
				for (int v = 0; v < 4; v++)
					tc[v] += x.counts[i][v];
			if ((rc = bp_dist_agree(&x.dx, rc, tc, 4)))
				goto out;
			/* one process: stored at once; across ranks rank 0 writes, fed */
			rc = bp_dist_store_tier(&x.dx, x.g, x.tab, t, x.size[t], x.cb[t], x.rec[t],
						rec_width(&x), x.threads,
						prior_seconds + (bp_solve_clock() - t0), out);
			if ((rc = bp_dist_agree(&x.dx, rc, NULL, 0)))
				goto out;
			out->solved_tiers++;
			bp_solve_add_counts(tc, out, &pr);
			/* tier t is needed by the tiers t - span .. t - 1 still to solve */
			int needed = 0;
			for (uint32_t d = 1; d <= (uint32_t)x.span && d <= t - st; d++)
				needed |= !x.done[t - d];
			if (needed && (rc = expand(&x, t, x.reach ? x.reach[t] : NULL)))
				goto out;
			if (!needed)
				drop(&x, t);
		}
		if (t + (uint32_t)x.span < x.nt)
			drop(&x, t + (uint32_t)x.span);
		pr.seconds = bp_solve_clock() - t0;
		if (opts->progress)
			opts->progress(opts->ctx, &pr);
	}

	uint16_t r = 0;
	if (x.dx.me != 0) { /* tiers stored since it opened the table: open it again */
		bp_table_close(x.tab);
		x.tab = NULL;
		if ((rc = bp_solve_open_table(g, db, x.size, opts, 0, &x.tab, err)))
			goto out_quiet;
	}
	if ((rc = bp_table_get(x.tab, st, sidx, &r)) || (rc = bp_solve_finish(x.tab, r, out)))
		goto out;
	/* the table is complete: its reached bits' files go, and any file a kill left
	 * half-written (.tmp); a file that cannot be removed fails nothing */
	if (reach_files(&x))
		bp_solve_walk_remove_scratch(g, x.dir);
out:
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, x.errmsg[0] ? x.errmsg : bp_strerror(rc));
out_quiet:
	out->seconds = bp_solve_clock() - t0;
	out->peak_memory = bp_solve_peak_memory();
	out->sent_bytes = x.dx.sent;
	out->received_bytes = x.dx.received;
	bp_table_close(x.tab);
	if (x.ib)
		for (uint64_t j = 0; j < x.round_items; j++) {
			free(x.ib[j].pos.a);
			free(x.ib[j].nk.a);
			free(x.ib[j].part.a);
			free(x.ib[j].kids.a);
			bp_dist_ask_free(&x.ib[j].ask);
		}
	if (x.img)
		for (int i = 0; i < x.threads * x.dx.nranks; i++)
			free(x.img[i].a);
	free(x.ib);
	free(x.img);
	free(x.cb);
	for (int i = 0; i < 3; i++)
		free(x.buf[i]);
	for (uint32_t t = 0; x.reach && t < x.nt; t++)
		free(x.reach[t]);
	free(x.reach);
	free(x.rec);
	free(x.counts);
	free(x.done);
	free(x.done_count);
	free(x.size);
	return rc;
}
