/* SPDX-License-Identifier: MIT */
/* The plumbing of a solve split across ranks (struct bp_solve_dist, solver/engine.h),
 * shared by the engines that split (retrograde.c: tiers; expanded.c: the tier walk):
 * agreeing on failure, all-to-all exchanges with their sizes, the lookup round both
 * engines make (keys to their owners, records back), and the layout of a tier across
 * ranks with the one writer fed by the others.
 *
 * Layout: a tier of `size` indices is cut into chunks of cb indices; chunk c belongs
 * to rank c % nranks (dealt out in turn: canonical positions crowd into parts of a
 * tier's index range, so contiguous slices would give one rank most of the work). A
 * rank keeps its chunks' records one after the other, cb each (bp_dist_local). */
#ifndef BP_SOLVER_DIST_H
#define BP_SOLVER_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "solver/engine.h"

struct bp_dist {
	const struct bp_solve_dist *d; /* NULL: one process */
	int me, nranks;		       /* 0 and 1 in one process */
	uint64_t sent, received;       /* bytes exchanged with other ranks */
	char *errmsg;		       /* the engine's message buffer */
	size_t errlen;
};

/* A growing array of elements of one size, for the lists a split solve builds (keys
 * to send, answers, images). Free with free(v->a). */
struct bp_vec {
	void *a;
	size_t n, cap; /* elements */
};

/* Appends one element of elem bytes. @return BP_OK; BP_ENOMEM (v unchanged). */
int bp_vec_push(struct bp_vec *v, const void *x, size_t elem);

/* Sets up x for d (NULL: one process), writing messages into errmsg. */
void bp_dist_init(struct bp_dist *x, const struct bp_solve_dist *d, char *errmsg, size_t errlen);

/* The chunk of index idx: a shift when cb is a power of two (every tier but the
 * smallest), as owner and local run once per child of every position. */
static inline uint64_t bp_dist_chunk(uint64_t cb, uint64_t idx)
{
	return (cb & (cb - 1)) == 0 ? idx >> __builtin_ctzll(cb) : idx / cb;
}

/* The rank that owns index idx of a tier cut into chunks of cb indices. */
static inline int bp_dist_owner(const struct bp_dist *x, uint64_t cb, uint64_t idx)
{
	uint64_t c = bp_dist_chunk(cb, idx);
	return c >> 32 ? (int)(c % (uint64_t)x->nranks) : (int)((uint32_t)c % (uint32_t)x->nranks);
}

/* Where index idx (owned here) is in this rank's records of the tier. */
static inline uint64_t bp_dist_local(const struct bp_dist *x, uint64_t cb, uint64_t idx)
{
	uint64_t c = bp_dist_chunk(cb, idx);
	uint64_t j = c >> 32 ? c / (uint64_t)x->nranks : (uint32_t)c / (uint32_t)x->nranks;
	return j * cb + (idx - c * cb);
}

/* The chunks of a tier, and how many of them are this rank's. */
static inline uint64_t bp_dist_chunks(uint64_t size, uint64_t cb)
{
	return (size + cb - 1) / cb;
}

static inline uint64_t bp_dist_mine(const struct bp_dist *x, uint64_t nchunks)
{
	uint64_t me = (uint64_t)x->me, nr = (uint64_t)x->nranks;
	return nchunks > me ? (nchunks - me + nr - 1) / nr : 0;
}

/* Every rank learns whether any failed, with n (at most 7) counters of extra summed
 * along. Collective; in one process returns rc. @return rc; BP_EIO when only another
 * rank failed; the hook's error. */
int bp_dist_agree(struct bp_dist *x, int rc, uint64_t *extra, int n);

/* All to all, sizes first: scount[r] elements of elem bytes for rank r (in rank order
 * in send) go to rank r; *recv (malloc'd, the caller frees it, also on failure) gets
 * what every rank sent here, rcount[r] from rank r. Collective. */
int bp_dist_exchange(struct bp_dist *x, const void *send, const uint64_t *scount, size_t elem,
		     void **recv, uint64_t *rcount);

/* A key of a split solve's lookups and marks: a tier (below 2^16) and an index in it
 * (below 2^48; the engines refuse to split larger tiers). */
static inline uint64_t bp_dist_key(uint32_t t, uint64_t idx)
{
	return (uint64_t)t << 48 | idx;
}

static inline uint32_t bp_dist_key_tier(uint64_t key)
{
	return (uint32_t)(key >> 48);
}

static inline uint64_t bp_dist_key_index(uint64_t key)
{
	return key & (((uint64_t)1 << 48) - 1);
}

/* Sends lists[w * nranks + r] (elements of elem bytes, for every w < nlists) to rank
 * r, emptying the lists; *recv (malloc'd, the caller frees it, also on failure) gets
 * the *n elements every rank sent here. rc is this rank's outcome so far: every rank
 * learns of a failure before anything moves. Collective. @return BP_OK; rc; BP_ENOMEM;
 * BP_EIO (another rank failed); the hook's error. */
int bp_dist_exchange_lists(struct bp_dist *x, int rc, struct bp_vec *lists, int nlists, size_t elem,
			   void **recv, uint64_t *n);

/* What one work item of a round asks other ranks for: keys (uint64_t) of records they
 * hold, every one owned by another rank (bp_dist_ask_push counts them per owner). */
struct bp_dist_ask {
	struct bp_vec keys;
	uint64_t *cnt;	  /* per rank: keys owned there (0 for this rank) */
	uint64_t *cursor; /* per rank: where the item's answers from there start in the
			   * answers (set by bp_dist_lookup; pass B advances them) */
};

/* cnt and cursor for nranks ranks. @return BP_OK; BP_ENOMEM. */
int bp_dist_ask_init(struct bp_dist_ask *a, int nranks);

/* Forgets the keys (keeps the memory). */
void bp_dist_ask_clear(struct bp_dist_ask *a, int nranks);

void bp_dist_ask_free(struct bp_dist_ask *a);

/* Asks for key, owned by rank d (not this one). @return BP_OK; BP_ENOMEM. */
static inline int bp_dist_ask_push(struct bp_dist_ask *a, uint64_t key, int d)
{
	int rc = bp_vec_push(&a->keys, &key, sizeof key);
	a->cnt[d] += rc == BP_OK;
	return rc;
}

/* The engine's side of a lookup. */
struct bp_dist_lookup_ops {
	void *ctx;
	/* the round's item j (0 <= j < nitems) */
	struct bp_dist_ask *(*ask)(void *ctx, uint64_t j);
	/* the rank that owns key's record; -1 for a key that names no record (a bad
	 * tier or index, which another rank can only have sent by mistake) */
	int (*owner)(void *ctx, uint64_t key);
	/* the records of n keys owned here into out (called from worker threads, on
	 * pieces of the keys received) @return BP_OK or an error */
	int (*answer)(void *ctx, const uint64_t *keys, uint64_t n, uint16_t *out);
};

/* One lookup round, the exchange both split engines make after their pass A: every
 * item's keys go to their owners (one all-to-all), the owners answer with the records,
 * and the answers come back in the order the keys went (the same counts turned
 * around): item j's answers from rank d start at answers[ask(j)->cursor[d]], one per
 * key of item j owned by d, in the order they were pushed. threads workers pack and
 * answer. *answers is malloc'd (the caller frees it, also on failure). Collective.
 * @return BP_OK; BP_ENOMEM; BP_EIO (a rank asked for a record it does not hold here,
 * with a message, or another rank failed); answer's error; the hook's error. */
int bp_dist_lookup(struct bp_dist *x, int threads, uint64_t nitems,
		   const struct bp_dist_lookup_ops *ops, uint16_t **answers);

/* Stores tier t (size indices, chunks of cb) from every rank's records rec, width bytes
 * each in memory (2: the store's records; 1: the same records narrowed, remoteness
 * below 64, widened on the way to the store): rank 0 writes it with the store's batch
 * writer, receiving the others' chunks one at a time as it reaches them; the others
 * send theirs (width bytes a record). In one process a plain bp_solve_put_tier (width
 * 2) or its batch writer fed from rec (width 1). Collective (but the caller agrees on
 * the outcome afterwards). @return as bp_solve_put_tier. */
int bp_dist_store_tier(struct bp_dist *x, const struct bp_game *g, bp_table *tab, uint32_t t,
		       uint64_t size, uint64_t cb, const void *rec, size_t width, int threads,
		       double seconds, const struct bp_solve_result *out);

/* Reads this rank's chunks of stored tier t into rec, width bytes a record (1: each
 * record narrowed to a byte). Not collective; in one process cb is only the size of
 * the pieces read. @return as bp_table_get_range; BP_ENOMEM; BP_ERANGE (width 1 and a
 * stored record does not fit in a byte). */
int bp_dist_read_tier(struct bp_dist *x, bp_table *tab, uint32_t t, uint64_t size, uint64_t cb,
		      void *rec, size_t width);

#endif
