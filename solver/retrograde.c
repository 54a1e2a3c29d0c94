/* SPDX-License-Identifier: MIT */
/* Retrograde analysis over tiers.
 *
 * 1. Forward: mark the canonical form of every position reachable from the start in
 *    one bitmap per tier (bit = dense index), tier by tier in increasing order, and
 *    note which tiers each tier's moves lead to (succ). Moves only raise the tier, so
 *    a tier's bitmap is complete when the tiers below it are expanded. Only canonical
 *    positions are expanded: the rules are symmetric, so the children of a position's
 *    images are the images of its children.
 * 2. Backward, from the last tier down. For tier t, every marked position is solved
 *    from its children's canonical records (or the terminal rule):
 *        some child lost   -> win,  1 + the smallest remoteness of a losing child
 *        else some draw    -> draw, 1 + the smallest remoteness of a drawing child
 *        else (all won)    -> loss, 1 + the largest remoteness of the children
 *    Records of non-canonical and unreachable indices stay 0: the array is exactly
 *    what the table stores, and it is committed as soon as the tier is solved. A tier
 *    is kept in memory only until the lowest tier that moves into it is done.
 *
 * A tier found already stored (an interrupted solve being resumed) is read back from
 * the table when a lower tier needs it.
 *
 * Split across ranks (opts->dist): every tier is cut into chunks (work items), dealt
 * out to the ranks in turn (chunk c is rank c % nranks's, see owner()), and a rank holds
 * only its own chunks of each tier's reach bits and records. Work
 * goes in rounds of a few chunks, the same number of rounds on every rank:
 *     forward:  children owned here are marked at once; the others' keys (tier and
 *               index) are bucketed by owner and sent in one exchange per round;
 *     backward: pass A solves the positions whose children are all owned here and
 *               lists the children of the others; their keys go to the owners, which
 *               answer with the records (a second exchange, the same counts turned
 *               around); pass B then solves those positions, reading the answers in
 *               the order the keys were sent.
 * Rank 0 writes each tier through the store's batch writer, receiving the other
 * ranks' chunks one at a time as the writer reaches them; no rank ever holds a whole
 * tier. A resumed rank reads only its chunks of the stored tiers. With one process every child is owned here: no key is kept and pass B
 * finds nothing to do.
 *
 * Canonicalizing every child costs a few table lookups per symmetry; the alternative
 * tried first (expanding every raw position, then copying each canonical record to
 * its whole class so children need only a rank) did about nsym times more work. A game
 * with children() (game.h: Mirador's works on its pieces, with no position built per
 * child) gives every child's tier and index at once instead. */
#include "solver/retrograde.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/dist.h"
#include "solver/parallel.h"
#include "solver/solve_common.h"

#define CHUNK_WORDS 1024 /* bitmap words a work item covers: 65536 indices */
#define SMALL_ITEMS 4	 /* across ranks: a small tier is cut into this many items a rank */
#define DONE UINT32_MAX	 /* pass A solved the position */

/* A round's work item (backward, pass A to pass B). */
struct item_buf {
	struct bp_dist_ask ask; /* the children held elsewhere of the positions left */
	struct bp_vec nk;	/* uint32_t per marked position: those children, or DONE */
	struct bp_vec part;	/* uint32_t per position left: the largest key of its children
			   * held here; bits 16-30 the tier of one not solved, bit 31 set
			   * when there is one */
};

struct tier {
	uint64_t size;
	uint64_t cw;	  /* bitmap words a work item covers: CHUNK_WORDS, or fewer for a
			   * tier too small to give every rank SMALL_ITEMS items of that */
	uint64_t nchunks; /* work items of the tier: chunk c is rank c % nranks's */
	uint64_t mine;	  /* this rank's chunks; its j-th is chunk me + j * nranks */
	uint64_t *reach;  /* mine * cw words: this rank's chunks' bits, in order */
	uint16_t *rec;	  /* mine * cw * 64 records, the same way (local()), or NULL when
			   * not in memory */
	int done;	  /* stored in the table */
	uint32_t lastuse; /* lowest tier whose moves reach this one; UINT32_MAX: none */
};

struct solve {
	const struct bp_game *g;
	bp_table *tab;
	bp_store *db;
	const struct bp_solve_opts *opts;
	const struct bp_solve_dist *dist; /* NULL: one process */
	const uint64_t *sizes;
	uint64_t chunk0;	 /* the first work item of the current run */
	int me, nranks;		 /* 0 and 1 in one process */
	uint64_t round_items;	 /* work items a rank takes in one round */
	struct bp_vec *fwd;	 /* forward: threads * nranks arrays of keys to send */
	struct item_buf *ib;	 /* backward: round_items */
	uint64_t **keybuf;	 /* per worker: one position's children keys */
	uint32_t **tierbuf;	 /* per worker, when the game has children(): their tiers */
	const uint16_t *answers; /* backward: the records answered, by rank then item */
	struct bp_dist dx;
	int (*fn)(void *ctx, int worker, uint64_t item); /* run_tier's */
	pthread_mutex_t load_lock;			 /* tiers read from the table on demand */
	struct tier *tiers;
	uint32_t nt;
	uint64_t *succ; /* nt * words: bit s of row t set when tier t moves into tier s */
	size_t succ_words;
	int threads;
	struct bp_move **mv; /* one move buffer per worker */
	uint32_t t;	     /* the tier being worked on */
	/* per worker: canonical positions per value; a cache line each, or the workers'
	 * increments would fight over one */
	uint64_t (*counts)[8];
	struct bp_solve_meter meter; /* cancel and ticks inside a tier */
	char errmsg[200];
};

static uint64_t chunks_of(const struct tier *tt)
{
	return bp_dist_chunks(tt->size, tt->cw * 64);
}

/* Chunk c covers indices [c * cw * 64, (c + 1) * cw * 64) and is rank c % nranks's: the
 * chunks are dealt out in turn, as cards. Canonical positions crowd into parts of a
 * tier's index range (with Taifas the first quarter of a tier holds twice its share),
 * so contiguous slices would give one rank most of the work. */
static int owner(const struct solve *s, uint32_t t, uint64_t idx)
{
	return bp_dist_owner(&s->dx, s->tiers[t].cw * 64, idx);
}

/* The indices of tier t this rank works on (its ticks count those). */
static uint64_t share(const struct tier *tt)
{
	uint64_t n = tt->mine * tt->cw * 64;
	return n < tt->size ? n : tt->size;
}

/* Where index idx of tier t (owned here) is in this rank's arrays. */
static uint64_t local(const struct solve *s, uint32_t t, uint64_t idx)
{
	return bp_dist_local(&s->dx, s->tiers[t].cw * 64, idx);
}

/* ---- 1. reachability ------------------------------------------------------- */

/* Calls fn for every marked position of the current tier in work item `item`. */
typedef int marked_fn(struct solve *s, int worker, uint64_t idx, const struct bp_pos *p);

static int each_marked(struct solve *s, int worker, uint64_t item, marked_fn *fn)
{
	struct tier *tt = &s->tiers[s->t];
	/* item is a chunk of this rank's: its words here, and its first index */
	uint64_t w0 = item / (uint64_t)s->nranks * tt->cw, i0 = item * tt->cw * 64;
	struct bp_pos p;
	for (uint64_t k = 0; k < tt->cw; k++)
		for (uint64_t w = tt->reach[w0 + k]; w; w &= w - 1) {
			uint64_t idx = i0 + k * 64 + (uint64_t)__builtin_ctzll(w);
			int rc = s->g->ops->unrank(s->g, s->t, idx, &p);
			if (rc || (rc = fn(s, worker, idx, &p)))
				return rc;
		}
	return BP_OK;
}

static void mark(struct solve *s, uint32_t t, uint64_t idx)
{
	uint64_t i = local(s, t, idx);
	__atomic_fetch_or(&s->tiers[t].reach[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
}

/* The moves of p (not over): by children() into the worker's buffers where the game
 * has it, else its move list. @return how many, or a negative error. */
static int expand(struct solve *s, int worker, const struct bp_pos *p)
{
	const struct bp_game *g = s->g;
	if (s->tierbuf)
		return g->ops->children(g, p, s->tierbuf[worker], s->keybuf[worker]);
	return g->ops->moves(g, p, s->mv[worker]);
}

/* Child i of p after expand: its tier and index. */
static int child(struct solve *s, int worker, const struct bp_pos *p, int i, uint32_t *ct,
		 uint64_t *cidx)
{
	const struct bp_game *g = s->g;
	if (s->tierbuf) {
		*ct = s->tierbuf[worker][i];
		*cidx = s->keybuf[worker][i];
		return BP_OK;
	}
	struct bp_pos c = *p, canon;
	g->ops->apply(g, &c, s->mv[worker][i]);
	bp_game_canonical(g, &c, &canon);
	*ct = g->ops->tier(g, &canon);
	return g->ops->rank(g, &canon, cidx);
}

static int forward_one(struct solve *s, int worker, uint64_t idx, const struct bp_pos *pp)
{
	const struct bp_game *g = s->g;
	struct bp_pos p = *pp;
	uint64_t cidx;
	int rc;
	(void)idx;
	if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
		return BP_OK;
	int n = expand(s, worker, &p);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		uint32_t ct;
		if ((rc = child(s, worker, &p, i, &ct, &cidx)))
			return rc;
		if (ct <= s->t || ct >= s->nt) {
			snprintf(s->errmsg, sizeof s->errmsg,
				 "a move from tier %u leads to tier %u: the game's "
				 "tiers are not monotone",
				 s->t, ct);
			return BP_EINVAL;
		}
		int d = owner(s, ct, cidx);
		if (d == s->me) {
			mark(s, ct, cidx);
		} else {
			uint64_t key = bp_dist_key(ct, cidx);
			if ((rc = bp_vec_push(
				     &s->fwd[(size_t)worker * (size_t)s->nranks + (size_t)d], &key,
				     sizeof key)))
				return rc;
		}
		uint64_t *row = s->succ + (size_t)s->t * s->succ_words;
		if (!(row[ct / 64] >> (ct % 64) & 1))
			__atomic_fetch_or(&row[ct / 64], 1ull << (ct % 64), __ATOMIC_RELAXED);
	}
	return BP_OK;
}

static int forward_chunk(void *ctx, int worker, uint64_t item)
{
	return each_marked(ctx, worker, item, forward_one);
}

/* Dense games (BP_GAME_DENSE_REACHABLE): every valid canonical index is reachable. */
static int mark_chunk(void *ctx, int worker, uint64_t item)
{
	struct solve *s = ctx;
	const struct bp_game *g = s->g;
	struct tier *tt = &s->tiers[s->t];
	(void)worker;
	uint64_t i0 = item * tt->cw * 64, i1 = i0 + tt->cw * 64;
	if (i1 > tt->size)
		i1 = tt->size;
	if (g->ops->flags & BP_GAME_INDEX_CANONICAL) {
		for (uint64_t idx = i0; idx < i1; idx++)
			tt->reach[local(s, s->t, idx) / 64] |= 1ull << (idx % 64);
		return BP_OK;
	}
	struct bp_pos p, canon;
	for (uint64_t idx = i0; idx < i1; idx++) {
		int rc = g->ops->unrank(g, s->t, idx, &p);
		if (rc == BP_ENOTFOUND)
			continue;
		if (rc)
			return rc;
		bp_game_canonical(g, &p, &canon);
		if (bp_pos_equal(&p, &canon)) /* words are the chunk's own */
			tt->reach[local(s, s->t, idx) / 64] |= 1ull << (idx % 64);
	}
	return BP_OK;
}

static int load_tier(struct solve *s, uint32_t t);

/* This rank's slice of the records of tier t, reading it from the table the first
 * time. */
static const uint16_t *child_tier(struct solve *s, uint32_t t, int *rc)
{
	uint16_t *rec = __atomic_load_n(&s->tiers[t].rec, __ATOMIC_ACQUIRE);
	*rc = BP_OK;
	if (rec)
		return rec;
	pthread_mutex_lock(&s->load_lock);
	if (!s->tiers[t].rec && s->tiers[t].done)
		*rc = load_tier(s, t);
	rec = s->tiers[t].rec;
	pthread_mutex_unlock(&s->load_lock);
	return rec;
}

/* The record of (ct, cidx), which this rank owns. */
static int local_record(struct solve *s, uint32_t ct, uint64_t cidx, uint16_t *r)
{
	int rc;
	const uint16_t *crec = child_tier(s, ct, &rc);
	*r = crec ? crec[local(s, ct, cidx)] : 0;
	return rc;
}

/* ---- 2. solving a tier ------------------------------------------------------ */

/* The value rule over n children's records, into the tier's record at idx. */
static int settle(struct solve *s, int worker, uint64_t idx, uint32_t best, int n,
		  uint32_t unsolved_tier, int unsolved)
{
	struct tier *tt = &s->tiers[s->t];
	unsigned rem = 0;
	if (unsolved) {
		snprintf(s->errmsg, sizeof s->errmsg,
			 "tier %u index %llu: a child in tier %u is not solved", s->t,
			 (unsigned long long)idx, unsolved_tier);
		return BP_EINVAL;
	}
	if (n == 0) {
		snprintf(s->errmsg, sizeof s->errmsg,
			 "tier %u index %llu: the game goes on but there is no move", s->t,
			 (unsigned long long)idx);
		return BP_EINVAL;
	}
	enum bp_value v = bp_solve_value_of_key(best, &rem);
	if (rem >= BP_RECORD_NO_REMOTENESS) {
		snprintf(s->errmsg, sizeof s->errmsg, "remoteness %u is too large to store", rem);
		return BP_ERANGE;
	}
	tt->rec[local(s, s->t, idx)] = bp_record_make(v, rem);
	s->counts[worker][v]++;
	return BP_OK;
}

/* Pass A: a position whose children are all owned here (always, in one process) is
 * solved; the others' children keys are kept for pass B. */
static int solve_one(struct solve *s, int worker, uint64_t idx, const struct bp_pos *pp)
{
	const struct bp_game *g = s->g;
	struct tier *tt = &s->tiers[s->t];
	struct item_buf *ib =
		s->nranks > 1 ? &s->ib[idx / (tt->cw * 64) / (uint64_t)s->nranks - s->chunk0]
			      : NULL;
	struct bp_pos p = *pp;
	uint64_t cidx;
	uint32_t nk = DONE;
	int rc;
	enum bp_value v = g->ops->outcome(g, &p);
	if (v != BP_VALUE_NONE) {
		tt->rec[local(s, s->t, idx)] = bp_record_make(v, 0);
		s->counts[worker][v]++;
		return ib ? bp_vec_push(&ib->nk, &nk, sizeof nk) : BP_OK;
	}
	uint64_t *keys = s->keybuf[worker];
	int n = expand(s, worker, &p), remote = 0;
	uint32_t best = 0, bad_tier = 0;
	int unsolved = 0;
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		uint32_t ct;
		if ((rc = child(s, worker, &p, i, &ct, &cidx)))
			return rc;
		keys[i] = bp_dist_key(ct, cidx);
		if (owner(s, ct, cidx) != s->me) {
			remote = 1;
			continue;
		}
		uint16_t r;
		if ((rc = local_record(s, ct, cidx, &r)))
			return rc;
		if (bp_record_value(r) == BP_VALUE_NONE && !unsolved) {
			unsolved = 1;
			bad_tier = ct;
		}
		uint32_t key = bp_solve_child_key(r);
		best = key > best ? key : best;
	}
	if (!remote)
		return (rc = settle(s, worker, idx, best, n, bad_tier, unsolved)) || !ib
			       ? rc
			       : bp_vec_push(&ib->nk, &nk, sizeof nk);
	/* only the children held elsewhere wait, with what those held here gave */
	uint32_t part = best | (bad_tier & 0x7fffu) << 16 | (uint32_t)unsolved << 31;
	nk = 0;
	for (int i = 0; i < n; i++) {
		int d = owner(s, bp_dist_key_tier(keys[i]), bp_dist_key_index(keys[i]));
		if (d == s->me)
			continue;
		if ((rc = bp_dist_ask_push(&ib->ask, keys[i], d)))
			return rc;
		nk++;
	}
	if ((rc = bp_vec_push(&ib->nk, &nk, sizeof nk)) ||
	    (rc = bp_vec_push(&ib->part, &part, sizeof part)))
		return rc;
	return BP_OK;
}

static int solve_chunk(void *ctx, int worker, uint64_t item)
{
	return each_marked(ctx, worker, item, solve_one);
}

/* Pass B: the positions pass A left, from their children's records (the owners'
 * answers, in the order the keys were sent). */
static int finish_chunk(void *ctx, int worker, uint64_t item)
{
	struct solve *s = ctx;
	struct tier *tt = &s->tiers[s->t];
	struct item_buf *ib = &s->ib[item / (uint64_t)s->nranks - s->chunk0];
	const uint32_t *nk = ib->nk.a, *part = ib->part.a;
	const uint64_t *keys = ib->ask.keys.a;
	size_t pos = 0, k = 0, left = 0;
	uint64_t w0 = item / (uint64_t)s->nranks * tt->cw, i0 = item * tt->cw * 64;
	if (ib->ask.keys.n == 0)
		return BP_OK;
	for (uint64_t kw = 0; kw < tt->cw; kw++)
		for (uint64_t w = tt->reach[w0 + kw]; w; w &= w - 1, pos++) {
			assert(pos < ib->nk.n);
			if (nk[pos] == DONE)
				continue;
			uint64_t idx = i0 + kw * 64 + (uint64_t)__builtin_ctzll(w);
			uint32_t pt = part[left++], best = pt & 0xffffu,
				 bad_tier = pt >> 16 & 0x7fffu;
			int unsolved = (int)(pt >> 31), rc;
			for (uint32_t i = 0; i < nk[pos]; i++, k++) {
				uint32_t ct = bp_dist_key_tier(keys[k]);
				int d = owner(s, ct, bp_dist_key_index(keys[k]));
				uint16_t r = s->answers[ib->ask.cursor[d]++];
				if (bp_record_value(r) == BP_VALUE_NONE && !unsolved) {
					unsolved = 1;
					bad_tier = ct;
				}
				uint32_t key = bp_solve_child_key(r);
				best = key > best ? key : best;
			}
			if ((rc = settle(s, worker, idx, best, (int)nk[pos], bad_tier, unsolved)))
				return rc;
		}
	return BP_OK;
}

static int shifted(void *ctx, int worker, uint64_t item)
{
	struct solve *s = ctx;
	/* the run's item'th item is this rank's (chunk0 + item)'th chunk */
	return s->fn(ctx, worker, (uint64_t)s->me + (item + s->chunk0) * (uint64_t)s->nranks);
}

/* Runs fn over this rank's work items first..first+n-1 of tier t (its j-th item is
 * chunk me + j * nranks), metered. */
static int run_items(struct solve *s, uint32_t t, int phase, uint64_t first, uint64_t n,
		     int (*fn)(void *, int, uint64_t))
{
	uint64_t mine = s->tiers[t].mine;
	s->t = t;
	s->fn = fn;
	s->chunk0 = first;
	if (first + n > mine)
		n = mine > first ? mine - first : 0;
	return bp_solve_metered(&s->meter, phase, t, s->nt, s->threads, n, s->tiers[t].cw * 64,
				share(&s->tiers[t]), shifted, s);
}

static int run_tier(struct solve *s, uint32_t t, int phase, int (*fn)(void *, int, uint64_t))
{
	return run_items(s, t, phase, 0, UINT64_MAX / 2, fn);
}

/* Across ranks (a no-op in one process): every rank learns whether any failed, with n
 * counters of extra summed along. Collective. @return rc; BP_EIO when only another
 * rank failed. */
static int agree(struct solve *s, int rc, uint64_t *extra, int n)
{
	return bp_dist_agree(&s->dx, rc, extra, n);
}

/* The rounds of tier t: enough for the rank with the most work items. Every rank
 * computes the same number from the tier's size alone. */
static uint64_t rounds_of(const struct solve *s, uint32_t t)
{
	/* rank 0 has the most chunks */
	uint64_t most = (s->tiers[t].nchunks + (uint64_t)s->nranks - 1) / (uint64_t)s->nranks;
	return (most + s->round_items - 1) / s->round_items;
}

/* Forward, one round's keys: each rank's marks to their owners, set there. */
static int forward_exchange(struct solve *s)
{
	uint64_t *got = NULL, n = 0;
	int rc = bp_dist_exchange_lists(&s->dx, BP_OK, s->fwd, s->threads, sizeof *got,
					(void **)&got, &n);
	for (uint64_t i = 0; !rc && i < n; i++) {
		uint32_t ct = bp_dist_key_tier(got[i]);
		uint64_t cidx = bp_dist_key_index(got[i]);
		if (ct >= s->nt || cidx >= s->tiers[ct].size || owner(s, ct, cidx) != s->me) {
			snprintf(s->errmsg, sizeof s->errmsg,
				 "a rank sent a mark for tier %u index %llu, not owned here", ct,
				 (unsigned long long)cidx);
			rc = BP_EIO;
			break;
		}
		mark(s, ct, cidx);
	}
	free(got);
	return rc;
}

/* The lookup's view of the backward pass (bp_dist_lookup): keys are (tier, index) of
 * children, answered from this rank's records of their tiers. */
static struct bp_dist_ask *ask_of(void *ctx, uint64_t j)
{
	return &((struct solve *)ctx)->ib[j].ask;
}

static int key_owner(void *ctx, uint64_t key)
{
	const struct solve *s = ctx;
	uint32_t ct = bp_dist_key_tier(key);
	uint64_t cidx = bp_dist_key_index(key);
	return ct < s->nt && ct > s->t && cidx < s->tiers[ct].size ? owner(s, ct, cidx) : -1;
}

static int answer_keys(void *ctx, const uint64_t *keys, uint64_t n, uint16_t *out)
{
	struct solve *s = ctx;
	for (uint64_t i = 0; i < n; i++) {
		int rc = local_record(s, bp_dist_key_tier(keys[i]), bp_dist_key_index(keys[i]),
				      &out[i]);
		if (rc)
			return rc;
	}
	return BP_OK;
}

/* Backward, one round after pass A: the keys to their owners, the records back. */
static int backward_exchange(struct solve *s, uint64_t nitems, uint16_t **answers)
{
	const struct bp_dist_lookup_ops ops = {
		.ctx = s, .ask = ask_of, .owner = key_owner, .answer = answer_keys
	};
	return bp_dist_lookup(&s->dx, s->threads, nitems, &ops, answers);
}

static int is_writer(const struct solve *s)
{
	return !s->dist || s->dist->rank == 0;
}

/* A rank that does not write sees tiers stored since it opened the table only once it
 * opens it again. */
static int reopen_table(struct solve *s)
{
	struct bp_err e = { { 0 } };
	bp_table_close(s->tab);
	s->tab = NULL;
	return bp_solve_open_table(s->g, s->db, s->sizes, s->opts, is_writer(s), &s->tab, &e);
}

/* Makes this rank's chunks of tier t's records available in memory. */
static int load_tier(struct solve *s, uint32_t t)
{
	struct tier *tt = &s->tiers[t];
	uint64_t cb = tt->cw * 64, n = tt->mine * cb;
	if (tt->rec)
		return BP_OK;
	uint16_t *rec = calloc(n ? n : 1, sizeof *rec);
	if (!rec)
		return BP_ENOMEM;
	int rc = bp_dist_read_tier(&s->dx, s->tab, t, tt->size, cb, rec, sizeof *rec);
	if (rc == BP_ENOTFOUND && !is_writer(s) && (rc = reopen_table(s)) == BP_OK)
		rc = bp_dist_read_tier(&s->dx, s->tab, t, tt->size, cb, rec, sizeof *rec);
	if (rc)
		free(rec);
	else
		__atomic_store_n(&tt->rec, rec, __ATOMIC_RELEASE);
	if (rc)
		snprintf(s->errmsg, sizeof s->errmsg, "reading stored tier %u: %s", t,
			 bp_strerror(rc));
	return rc;
}

static void free_tier(struct tier *tt)
{
	free(tt->rec);
	tt->rec = NULL;
}

/* ---- driver ----------------------------------------------------------------- */

/* Before any work: one reachability bit per index of every tier, and the largest
 * window of records (the tier being solved and the one or two above it that its moves
 * reach), each written in full: an upper bound, refined by refine_estimate once the
 * reached positions are known. */
int bp_solve_tiers_estimate(const struct bp_game *g, uint64_t *bytes)
{
	const struct bp_game_ops *ops = g->ops;
	if (!ops->tier || !ops->tier_size || !ops->rank || !ops->unrank || g->ntiers == 0)
		return BP_EUNSUPPORTED;
	const uint32_t span = ops->flags & BP_GAME_TIER_SKIP ? 2 : 1;
	uint64_t bits = 0, window = 0, size[3] = { 0, 0, 0 };
	for (uint32_t t = g->ntiers; t-- > 0;) {
		uint64_t sz;
		int rc = ops->tier_size(g, t, &sz);
		if (rc)
			return rc;
		bits += bp_solve_pages(8 * (sz / 64 + 1));
		size[2] = size[1];
		size[1] = size[0];
		size[0] = bp_solve_pages(sizeof(uint16_t) * sz);
		uint64_t w = size[0] + size[1] + (span == 2 ? size[2] : 0);
		window = w > window ? w : window;
	}
	*bytes = bp_solve_base_memory(g) + bits + window;
	return BP_OK;
}

/* Sets up the ranks: each tier's slices, and the round buffers. */
static int dist_setup(struct solve *s)
{
	int nr = s->nranks;
	for (uint32_t t = 0; t < s->nt; t++) {
		struct tier *tt = &s->tiers[t];
		uint64_t size = tt->size;
		if (nr > 1 && (size >= (uint64_t)1 << 48 || t >= (1u << 16))) {
			snprintf(s->errmsg, sizeof s->errmsg,
				 "tier %u: too large to split across ranks", t);
			return BP_ERANGE;
		}
		/* a small tier in smaller items, so that every rank has a share of it */
		uint64_t words = size / 64 + 1, few = (uint64_t)nr * SMALL_ITEMS;
		if (nr > 1 && words < CHUNK_WORDS * few)
			tt->cw = (words + few - 1) / few;
		tt->nchunks = chunks_of(tt);
		tt->mine =
			tt->nchunks > (uint64_t)s->me
				? (tt->nchunks - (uint64_t)s->me + (uint64_t)nr - 1) / (uint64_t)nr
				: 0;
	}
	if (nr == 1)
		return BP_OK;
	s->round_items = (uint64_t)(4 * s->threads > 8 ? 4 * s->threads : 8);
	s->fwd = calloc((size_t)s->threads * (size_t)nr, sizeof *s->fwd);
	s->ib = calloc((size_t)s->round_items, sizeof *s->ib);
	if (!s->fwd || !s->ib)
		return BP_ENOMEM;
	for (uint64_t j = 0; j < s->round_items; j++)
		if (bp_dist_ask_init(&s->ib[j].ask, nr))
			return BP_ENOMEM;
	return BP_OK;
}

static void dist_free(struct solve *s)
{
	if (s->fwd)
		for (int i = 0; i < s->threads * s->nranks; i++)
			free(s->fwd[i].a);
	if (s->ib)
		for (uint64_t j = 0; j < s->round_items; j++) {
			bp_dist_ask_free(&s->ib[j].ask);
			free(s->ib[j].nk.a);
			free(s->ib[j].part.a);
		}
	free(s->fwd);
	free(s->ib);
}

/* Forward over tier t: one run in one process, rounds across ranks. */
static int forward_tier(struct solve *s, uint32_t t)
{
	if (s->nranks == 1)
		return run_tier(s, t, 0, forward_chunk);
	int rc = BP_OK;
	for (uint64_t k = 0, n = rounds_of(s, t); k < n; k++) {
		s->meter.keep = k > 0;
		rc = run_items(s, t, 0, k * s->round_items, s->round_items, forward_chunk);
		if ((rc = agree(s, rc, NULL, 0)) || (rc = forward_exchange(s)) ||
		    (rc = agree(s, rc, NULL, 0)))
			return rc;
	}
	return rc;
}

/* Backward over tier t (its records allocated): pass A, the exchange, pass B. */
static int backward_tier(struct solve *s, uint32_t t)
{
	if (s->nranks == 1)
		return run_tier(s, t, 1, solve_chunk);
	int rc = BP_OK;
	for (uint64_t k = 0, n = rounds_of(s, t); k < n; k++) {
		for (uint64_t j = 0; j < s->round_items; j++) {
			s->ib[j].nk.n = s->ib[j].part.n = 0;
			bp_dist_ask_clear(&s->ib[j].ask, s->nranks);
		}
		uint64_t first = k * s->round_items, mine = s->tiers[t].mine;
		uint64_t nitems = first >= mine			  ? 0
				  : mine - first < s->round_items ? mine - first
								  : s->round_items;
		s->meter.keep = k > 0;
		rc = run_items(s, t, 1, first, s->round_items, solve_chunk);
		uint16_t *answers = NULL;
		if (!(rc = agree(s, rc, NULL, 0)))
			rc = backward_exchange(s, nitems, &answers);
		s->answers = answers;
		if (!(rc = agree(s, rc, NULL, 0))) {
			s->t = t;
			s->chunk0 = first;
			s->fn = finish_chunk;
			rc = bp_parallel_for(s->threads, nitems, shifted, s);
		}
		free(answers);
		s->answers = NULL;
		if ((rc = agree(s, rc, NULL, 0)))
			return rc;
	}
	return rc;
}

/* The words of this rank's reach bits of a tier (its chunks'; split or not). */
static uint64_t words_of(const struct tier *tt)
{
	return tt->mine * tt->cw + 1;
}

/* Pages of `words` bitmap words (from bits) holding a set bit, counted in groups of
 * `per` words (one page of whatever array the bits stand for). */
static uint64_t pages_marked(const uint64_t *bits, uint64_t words, uint64_t per)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < words; i += per) {
		uint64_t any = 0;
		for (uint64_t j = i; j < i + per && j < words; j++)
			any |= bits[j];
		n += any != 0;
	}
	return n;
}

/* After the forward pass the solve's memory is known, not bounded: a tier's records
 * are calloc'ed and written only at its reached canonical positions (the marked bits),
 * so only the pages holding one become resident; a tier stays from its solve until its
 * lowest parent tier is done (lastuse); a stored tier read back is written in full.
 * The same holds for the bitmaps. Returns the peak over the tiers still to solve. */
static uint64_t refine_estimate(const struct solve *s, uint32_t st)
{
	uint64_t bits = 0, peak = 0;
	for (uint32_t t = 0; t < s->nt; t++)
		bits += 4096 * pages_marked(s->tiers[t].reach, words_of(&s->tiers[t]), 512);
	for (uint32_t t = st; t < s->nt; t++) {
		if (s->tiers[t].done)
			continue;
		uint64_t w = 0;
		for (uint32_t c = t; c < s->nt; c++) {
			const struct tier *tc = &s->tiers[c];
			if (c > t && (tc->lastuse == UINT32_MAX || tc->lastuse > t))
				continue;
			w += tc->done ? bp_solve_pages(sizeof(uint16_t) * share(tc))
				      : 4096 * pages_marked(tc->reach, words_of(tc), 32);
		}
		peak = w > peak ? w : peak;
	}
	return bp_solve_base_memory(s->g) + bits + peak;
}

int bp_solve_tiers(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		   struct bp_solve_result *out, struct bp_err *err)
{
	int rc;
	double t0 = bp_solve_clock();
	struct solve s = { .g = g,
			   .db = db,
			   .opts = opts,
			   .dist = opts->dist,
			   .nt = g->ntiers,
			   .nranks = 1,
			   .load_lock = PTHREAD_MUTEX_INITIALIZER };
	uint64_t *sizes = NULL, *done_count = NULL;
	memset(out, 0, sizeof *out);
	bp_dist_init(&s.dx, s.dist, s.errmsg, sizeof s.errmsg);
	/* Across ranks, every failure before the first pass is agreed on before any rank
	 * leaves (the others would wait for it in their next collective): the plan (ranks
	 * on other machines may have another memory limit), the allocations, reading the
	 * table's metadata. */
	rc = bp_solve_plan(g, bp_solve_tiers_estimate, opts, &out->memory_estimate, err);
	if (s.dist && agree(&s, rc, NULL, 0) && !rc) {
		bp_err_set(err, BP_EIO, "%s: %s", g->spec, s.errmsg);
		return BP_EIO;
	}
	if (rc)
		return rc;
	s.me = s.dx.me;
	s.nranks = s.dx.nranks;
	s.threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	s.tiers = calloc(s.nt, sizeof *s.tiers);
	sizes = calloc(s.nt, sizeof *sizes);
	s.succ_words = (s.nt + 63) / 64;
	s.succ = calloc((size_t)s.nt * s.succ_words, sizeof(uint64_t));
	s.mv = bp_solve_move_buffers(g, s.threads);
	s.counts = aligned_alloc(64, (size_t)s.threads * sizeof *s.counts);
	s.sizes = sizes;
	if ((s.keybuf = calloc((size_t)s.threads, sizeof *s.keybuf)))
		for (int i = 0; i < s.threads; i++)
			if (!(s.keybuf[i] = malloc(sizeof(uint64_t) *
						   (size_t)(g->max_moves ? g->max_moves : 1))))
				rc = BP_ENOMEM;
	if (g->ops->children && (s.tierbuf = calloc((size_t)s.threads, sizeof *s.tierbuf)))
		for (int i = 0; i < s.threads; i++)
			if (!(s.tierbuf[i] = malloc(sizeof(uint32_t) *
						    (size_t)(g->max_moves ? g->max_moves : 1))))
				rc = BP_ENOMEM;
	if (!s.tiers || !sizes || !s.succ || !s.mv || !s.counts || !s.keybuf || rc ||
	    (g->ops->children && !s.tierbuf))
		rc = BP_ENOMEM;
	if ((rc = agree(&s, rc, NULL, 0)))
		goto out;
	for (uint32_t t = 0; t < s.nt; t++) {
		g->ops->tier_size(g, t, &s.tiers[t].size);
		sizes[t] = s.tiers[t].size;
		s.tiers[t].lastuse = UINT32_MAX;
		s.tiers[t].cw = CHUNK_WORDS;
	}
	rc = dist_setup(&s);
	for (uint32_t t = 0; !rc && t < s.nt; t++)
		if (!(s.tiers[t].reach =
			      calloc(s.tiers[t].mine * s.tiers[t].cw + 1, sizeof(uint64_t))))
			rc = BP_ENOMEM;
	if ((rc = agree(&s, rc, NULL, 0)))
		goto out;
	/* rank 0 creates the table before the others open it (a table created by two
	 * processes at once leaves one of them a stale handle) */
	for (int pass = 0; pass < 2; pass++) {
		int mine = pass == 0 ? is_writer(&s) : !is_writer(&s);
		if (mine)
			rc = bp_solve_open_table(g, db, sizes, opts, is_writer(&s), &s.tab, err);
		if (!s.dist)
			break;
		if (agree(&s, rc, NULL, 0) && !rc) {
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
	if (!(rc = bp_table_meta_get(s.tab, &meta))) {
		prior_seconds = meta.seconds;
		/* meta's pointers die at the first write */
		if (!(done_count = malloc(sizeof(uint64_t) * 4 * s.nt))) {
			rc = BP_ENOMEM;
		} else {
			memcpy(done_count, meta.tier_count, sizeof(uint64_t) * 4 * s.nt);
			for (uint32_t t = 0; t < s.nt; t++)
				s.tiers[t].done = meta.tier_done[t];
		}
	}

	/* 1. reachability */
	uint32_t st = 0;
	uint64_t sidx = 0;
	int dense = (g->ops->flags & BP_GAME_DENSE_REACHABLE) != 0;
	if (!rc)
		rc = bp_solve_start(g, &st, &sidx);
	if ((rc = agree(&s, rc, NULL, 0)))
		goto out;
	if (owner(&s, st, sidx) == s.me)
		mark(&s, st, sidx);
	/* a dense game skips this pass: each tier is marked just before it is solved, and
	 * tier t is assumed to be needed by tier t - 1 only (any other tier it is needed
	 * by reads it back from the table) */
	for (uint32_t t = 0; dense && t < s.nt; t++)
		s.tiers[t].lastuse = t ? t - 1 : UINT32_MAX;
	s.meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	for (uint32_t t = st; !dense && t < s.nt; t++)
		s.meter.phase_total += share(&s.tiers[t]);
	for (uint32_t t = st; !dense && t < s.nt; t++) {
		if ((rc = agree(&s, forward_tier(&s, t), NULL, 0)))
			goto out;
		struct bp_solve_progress pr = {
			.phase = 0, .tier = t, .ntiers = s.nt, .seconds = bp_solve_clock() - t0
		};
		for (uint64_t w = 0; w < s.tiers[t].mine * s.tiers[t].cw; w++)
			pr.positions += (uint64_t)__builtin_popcountll(s.tiers[t].reach[w]);
		if ((rc = agree(&s, rc, &pr.positions, 1)))
			goto out;
		if (opts->progress)
			opts->progress(opts->ctx, &pr);
	}
	if (s.dist && !dense &&
	    (rc = s.dist->reduce_or(s.dist->ctx, s.succ, (uint64_t)s.nt * s.succ_words)))
		goto out;
	for (uint32_t t = s.nt; !dense && t-- > 0;)
		for (uint32_t c = 0; c < s.nt; c++)
			if (s.succ[(size_t)t * s.succ_words + c / 64] >> (c % 64) & 1)
				s.tiers[c].lastuse = t;
	if (!dense && !s.dist) {
		out->memory_estimate = refine_estimate(&s, st);
		if (opts->memory_limit && out->memory_estimate > opts->memory_limit) {
			char nbuf[32], lbuf[32];
			rc = bp_err_set(err, BP_ERANGE,
					"%s needs about %s once its reachable positions are "
					"marked, more than the memory limit of %s",
					g->spec,
					bp_text_bytes(out->memory_estimate, nbuf, sizeof nbuf),
					bp_text_bytes(opts->memory_limit, lbuf, sizeof lbuf));
			goto out_quiet;
		}
	}

	/* 2. tiers from the last to the first */
	s.meter.phase_done = s.meter.phase_total = 0;
	for (uint32_t t = st; t < s.nt; t++) /* a dense game walks each tier twice: marks */
		s.meter.phase_total += s.tiers[t].done ? 0 : (dense ? 2 : 1) * share(&s.tiers[t]);
	for (uint32_t t = s.nt; t-- > st;) {
		struct tier *tt = &s.tiers[t];
		struct bp_solve_progress pr = { .phase = 1, .tier = t, .ntiers = s.nt };
		if (tt->done) {
			out->resumed_tiers++;
			bp_solve_add_counts(done_count + (size_t)t * 4, out, &pr);
			if (tt->lastuse != UINT32_MAX && tt->lastuse < t)
				rc = load_tier(&s, t);
			if ((rc = agree(&s, rc, NULL, 0)))
				goto out;
			pr.resumed = 1;
		} else {
			for (uint32_t c = t + 1; !rc && c < s.nt; c++)
				if (s.succ[(size_t)t * s.succ_words + c / 64] >> (c % 64) & 1)
					rc = load_tier(&s, c);
			if (!rc && dense)
				rc = run_tier(&s, t, 1, mark_chunk);
			if (!rc &&
			    !(tt->rec = calloc(tt->mine * tt->cw * 64 + 1, sizeof(uint16_t))))
				rc = BP_ENOMEM;
			memset(s.counts, 0, sizeof *s.counts * (size_t)s.threads);
			if ((rc = agree(&s, rc, NULL, 0)) || (rc = backward_tier(&s, t)))
				goto out;
			uint64_t tc[4] = { 0 };
			for (int i = 0; i < s.threads; i++)
				for (int v = 0; v < 4; v++)
					tc[v] += s.counts[i][v];
			if ((rc = agree(&s, rc, tc, 4)))
				goto out;
			/* rank 0 stores the tier, fed the others' slices; they wait for it */
			rc = bp_dist_store_tier(&s.dx, g, s.tab, t, tt->size, tt->cw * 64, tt->rec,
						sizeof *tt->rec, s.threads,
						prior_seconds + (bp_solve_clock() - t0), out);
			if ((rc = agree(&s, rc, NULL, 0)))
				goto out;
			tt->done = 1;
			out->solved_tiers++;
			bp_solve_add_counts(tc, out, &pr);
		}
		/* children no lower tier needs any more */
		for (uint32_t c = t; c < s.nt; c++)
			if (s.tiers[c].rec &&
			    (s.tiers[c].lastuse == UINT32_MAX || s.tiers[c].lastuse >= t))
				free_tier(&s.tiers[c]);
		pr.seconds = bp_solve_clock() - t0;
		if (opts->progress)
			opts->progress(opts->ctx, &pr);
	}

	/* the start position's value */
	uint16_t r = 0;
	if (!is_writer(&s) && (rc = reopen_table(&s)))
		goto out;
	if ((rc = bp_table_get(s.tab, st, sidx, &r)) || (rc = bp_solve_finish(s.tab, r, out)))
		goto out;
out:
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, s.errmsg[0] ? s.errmsg : bp_strerror(rc));
out_quiet:
	out->seconds = bp_solve_clock() - t0;
	out->peak_memory = bp_solve_peak_memory();
	out->sent_bytes = s.dx.sent;
	out->received_bytes = s.dx.received;
	bp_table_close(s.tab);
	if (s.tiers)
		for (uint32_t t = 0; t < s.nt; t++) {
			free(s.tiers[t].reach);
			free(s.tiers[t].rec);
		}
	if (s.keybuf)
		for (int i = 0; i < s.threads; i++)
			free(s.keybuf[i]);
	free(s.keybuf);
	if (s.tierbuf)
		for (int i = 0; i < s.threads; i++)
			free(s.tierbuf[i]);
	free(s.tierbuf);
	dist_free(&s);
	bp_solve_free_move_buffers(s.mv, s.threads);
	free(s.counts);
	free(s.succ);
	free(s.tiers);
	free(sizes);
	free(done_count);
	return rc;
}
