/* SPDX-License-Identifier: MIT */
/* Retrograde analysis with child counters over the reachable graph.
 *
 * 1. Marking. Reachable canonical positions are marked in one bitmap over the global
 *    index space (tier offset + dense index), breadth first: a pass expands the
 *    frontier (the positions first marked by the pass before), and the worker whose
 *    atomic OR sets a child's bit adds the child to its part of the next frontier, so
 *    each position is expanded exactly once. Its distinct canonical children are
 *    kept: every worker appends, to its own list of blocks, a header (the position's
 *    global index, its outcome, its number of distinct children) and the children's
 *    global indices, 64 bits each. The lists grow with the graph, so marking checks
 *    them against the memory limit as it goes.
 * 2. The graph. A count of the set bits before each 512 bits (one cache line of the
 *    bitmap) makes the bitmap a rank structure, which numbers the reachable positions
 *    0..N-1 in index order. Each block is rewritten in place with those 32-bit
 *    numbers (and its freed tail unmapped), the children counted into each
 *    position's counter. A walk over the blocks counts each child's predecessors, a
 *    prefix sum gives the predecessor lists' offsets (CSR), and a second walk fills
 *    them; both walks are cut by child number, one range per worker, so that no
 *    increment needs a lock.
 *    Blocks are mapped (mmap) rather than allocated, so that what is unmapped is
 *    given back at once and the peak follows the model.
 * 3. Propagation, from a FIFO queue, as in the textbook. Terminal wins and losses
 *    enter with remoteness 0. Popping v of remoteness r: a predecessor not yet solved
 *    becomes a win in r + 1 when v is a loss; when v is a win its counter drops, and at
 *    zero (every child a win) it becomes a loss in r + 1. Positions enter the queue in
 *    order of remoteness, so the first losing child popped is the fastest, and the last
 *    winning child is the slowest: exactly the win in k (some child a loss in k - 1)
 *    and the loss in k (every child a win, the slowest in k - 1) of cyclic.c's
 *    passes. Then draws: terminal draws enter with remoteness 0 and a breadth-first
 *    search along predecessors still unsolved gives the fewest turns to a terminal
 *    draw; what it never reaches is a draw by repetition.
 * Every step but the propagation runs on the workers. Memory: see
 * bp_solve_counter_need. Against the level passes of cyclic.c, which generate every
 * unsolved position's moves once per remoteness level, each position's moves are
 * generated and canonicalized once, at the price of 4 bytes per (position, child)
 * pair for the predecessor lists (8 while they are built). */
#include "solver/counter.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"

#define FRONT_ITEM 1024		 /* frontier positions per work item of a marking pass */
#define BLOCK_WORDS (1ull << 20) /* 64-bit words per block of a worker's list */

#define MAX_KEY (1ull << 44)			/* global indices fit a header's 44 bits */
#define REM_LIMIT (BP_RECORD_NO_REMOTENESS - 1) /* as cyclic.c: refused from here */

/* A block of a worker's list, mapped. Marking writes 64-bit entries:
 *     header: key << 20 | outcome << 16 | children; then each child's key.
 * The graph step rewrites it in place as 32-bit entries (never ahead of what it reads):
 *     position number; outcome << 16 | children; then each child's number.
 * Entries are read and written with memcpy: the same bytes hold both widths. */
struct block {
	struct block *next;
	uint64_t used;	 /* words (of 64 bits; after the rewrite, of 32 bits) */
	uint64_t mapped; /* bytes mapped, this header included */
	uint64_t w[];
};

struct worker {
	struct block *head, *tail;
	uint64_t *kids;	 /* max_moves scratch keys */
	uint32_t *ktier; /* max_moves scratch tiers, for the game's children() */
	uint64_t *next;	 /* this worker's part of the next frontier */
	uint64_t nnext, capnext;
	uint64_t expanded, edges;
	uint64_t unlisted; /* bytes of lists written, not yet added to the shared count */
	char pad[64];
};

struct csolve {
	const struct bp_game *g;
	uint32_t nt;
	uint64_t *toff; /* first global index of each tier; [nt] = total */
	uint64_t total, nwords;
	uint64_t *reach;
	uint64_t *front, nfront; /* the frontier a marking pass expands */
	uint64_t frontier_peak;	 /* bytes of frontiers held at once, at most */
	uint64_t listed;	 /* bytes of the lists written (atomic) */
	uint64_t limit;		 /* what the lists may take: memory limit less the bitmap */
	uint64_t *cnt;		 /* set bits of reach before each 512 bits */
	uint64_t ncnt;
	struct bp_move **mv;
	struct worker *wk;
	int threads;
	struct block **blocks; /* every block, for the graph step's work items */
	uint64_t nblocks;
	uint64_t npos, nedges;
	uint16_t *rec, *left;
	uint64_t *off; /* predecessor offsets, npos + 1 */
	uint32_t *pred;
	struct bp_solve_meter meter;
	uint32_t passes;
	char errmsg[200];
};

static uint64_t pages(uint64_t n)
{
	return bp_solve_pages(n);
}

uint64_t bp_solve_counter_need(uint64_t indices, uint64_t positions, uint64_t edges,
			       uint64_t frontier, int threads)
{
	uint64_t n = positions, e = edges, t = threads > 0 ? (uint64_t)threads : 1;
	uint64_t bm = pages(8 * (indices / 64 + 1));
	uint64_t rs = pages(8 * (indices / 512 + 1)); /* the counts beside the bitmap */
	uint64_t slack = t * 8192; /* blocks are filled in order: untouched pages are free */
	uint64_t lists64 = 8 * (n + e), lists32 = 4 * (2 * n + e);
	uint64_t arrays = 2 * n + 2 * n + 8 * (n + 1); /* records, counters, offsets */
	uint64_t marking = bm + lists64 + 8 * frontier + slack;
	uint64_t rewrite = bm + rs + lists64 + arrays + slack;
	uint64_t fill = bm + rs + lists32 + arrays + 4 * e;
	uint64_t propagate = bm + rs + arrays + 4 * e + 4 * n;
	uint64_t peak = marking;
	peak = rewrite > peak ? rewrite : peak;
	peak = fill > peak ? fill : peak;
	peak = propagate > peak ? propagate : peak;
	return peak + BP_SOLVE_BASE_MEMORY;
}

int bp_solve_counter_estimate(const struct bp_game *g, uint64_t *bytes)
{
	if (!g->ops->tier || !g->ops->tier_size || !g->ops->rank || !g->ops->unrank || !g->ntiers)
		return BP_EUNSUPPORTED;
	uint64_t total = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz;
		int rc = g->ops->tier_size(g, t, &sz);
		if (rc)
			return rc;
		if (__builtin_add_overflow(total, sz, &total) || total >= MAX_KEY)
			return BP_ERANGE;
	}
	*bytes = bp_solve_counter_need(total, 0, 0, 0, 1);
	return BP_OK;
}

static uint32_t tier_of(const struct csolve *s, uint64_t key)
{
	uint32_t lo = 0, hi = s->nt; /* toff[lo] <= key < toff[hi] */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (s->toff[mid] <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---- 1. marking ------------------------------------------------------------------ */

/* Room for need words at the end of worker w's list. */
static uint64_t *list_room(struct csolve *s, struct worker *w, uint64_t need)
{
	struct block *b = w->tail;
	if (!b || b->used + need > BLOCK_WORDS) {
		uint64_t cap = need > BLOCK_WORDS ? need : BLOCK_WORDS;
		uint64_t bytes = pages(sizeof *b + cap * sizeof(uint64_t));
		b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return NULL;
		b->next = NULL;
		b->used = 0;
		b->mapped = bytes;
		if (w->tail)
			w->tail->next = b;
		else
			w->head = b;
		w->tail = b;
		__atomic_fetch_add(&s->nblocks, 1, __ATOMIC_RELAXED);
	}
	/* written words count (untouched pages of a block cost nothing) */
	/* a worker adds to the shared count a megabyte at a time (no cache line bouncing
	 * between workers per position); the count errs low by under 1 MiB a worker */
	w->unlisted += 8 * need;
	if (w->unlisted >= (1u << 20)) {
		uint64_t sum = __atomic_add_fetch(&s->listed, w->unlisted, __ATOMIC_RELAXED);
		w->unlisted = 0;
		if (sum > s->limit)
			return NULL;
	}
	uint64_t *at = b->w + b->used;
	b->used += need;
	return at;
}

/* Insertion sort: a position's children are a few dozen keys, often in runs. */
static void sort_keys(uint64_t *k, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t x = k[i];
		int j = i;
		for (; j > 0 && k[j - 1] > x; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

static int expand(struct csolve *s, int worker, uint64_t key)
{
	const struct bp_game *g = s->g;
	struct worker *w = &s->wk[worker];
	uint32_t t = tier_of(s, key);
	struct bp_pos p, c, canon;
	int rc = g->ops->unrank(g, t, key - s->toff[t], &p);
	if (rc)
		return rc;
	w->expanded++;
	enum bp_value v = g->ops->outcome(g, &p);
	int n = 0;
	if (v == BP_VALUE_NONE && g->ops->children) {
		/* the game's fast path: tiers and indices of the canonical children */
		int nm = g->ops->children(g, &p, w->ktier, w->kids);
		if (nm < 0)
			return nm;
		for (int i = 0; i < nm; i++) {
			if (w->ktier[i] >= s->nt)
				return BP_EINVAL;
			w->kids[i] += s->toff[w->ktier[i]];
		}
		sort_keys(w->kids, nm);
		for (int i = 0; i < nm; i++)
			if (i == 0 || w->kids[i] != w->kids[i - 1])
				w->kids[n++] = w->kids[i];
	} else if (v == BP_VALUE_NONE) {
		int nm = g->ops->moves(g, &p, s->mv[worker]);
		for (int i = 0; i < nm; i++) {
			uint64_t cidx;
			c = p;
			g->ops->apply(g, &c, s->mv[worker][i]);
			bp_game_canonical(g, &c, &canon);
			uint32_t ct = g->ops->tier(g, &canon);
			if (ct >= s->nt || (rc = g->ops->rank(g, &canon, &cidx)))
				return rc ? rc : BP_EINVAL;
			w->kids[i] = s->toff[ct] + cidx;
		}
		sort_keys(w->kids, nm);
		for (int i = 0; i < nm; i++)
			if (i == 0 || w->kids[i] != w->kids[i - 1])
				w->kids[n++] = w->kids[i];
	}
	uint64_t *at = list_room(s, w, 1 + (uint64_t)n);
	if (!at)
		return s->listed > s->limit ? BP_ERANGE : BP_ENOMEM;
	at[0] = key << 20 | (uint64_t)v << 16 | (uint64_t)n;
	if (w->nnext + (uint64_t)n > w->capnext) {
		uint64_t cap = 2 * w->capnext + (uint64_t)n + 1024;
		uint64_t *nx = realloc(w->next, cap * sizeof *nx);
		if (!nx)
			return BP_ENOMEM;
		w->next = nx;
		w->capnext = cap;
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = w->kids[i], bit = 1ull << (k % 64);
		at[1 + i] = k;
		/* Most children were reached before (a position has several parents), and a
		 * bit once set stays set: a plain read settles those, with no write and no
		 * lock. One worker alone needs no lock at all; a locked OR waits for its
		 * cache miss, plain accesses let the next children's misses overlap it. */
		uint64_t old = __atomic_load_n(&s->reach[k / 64], __ATOMIC_RELAXED);
		if (old & bit)
			continue;
		if (s->threads == 1)
			s->reach[k / 64] = old | bit;
		else
			old = __atomic_fetch_or(&s->reach[k / 64], bit, __ATOMIC_RELAXED);
		if (!(old & bit))
			w->next[w->nnext++] = k;
	}
	w->edges += (uint64_t)n;
	return BP_OK;
}

static int mark_chunk(void *ctx, int worker, uint64_t item)
{
	struct csolve *s = ctx;
	uint64_t i0 = item * FRONT_ITEM, i1 = i0 + FRONT_ITEM;
	if (i1 > s->nfront)
		i1 = s->nfront;
	for (uint64_t i = i0; i < i1; i++) {
		int rc = expand(s, worker, s->front[i]);
		if (rc)
			return rc;
	}
	return BP_OK;
}

/* ---- 2. the graph ----------------------------------------------------------------- */

static uint64_t rank_of(const struct csolve *s, uint64_t key)
{
	const uint64_t *line = s->reach + (key / 512) * 8;
	uint64_t r = s->cnt[key / 512], word = key / 64 % 8;
	for (uint64_t i = 0; i < word; i++)
		r += (uint64_t)__builtin_popcountll(line[i]);
	return r + (uint64_t)__builtin_popcountll(line[word] & ((1ull << (key % 64)) - 1));
}

static uint64_t get64(const struct block *b, uint64_t i)
{
	uint64_t x;
	memcpy(&x, (const unsigned char *)b->w + 8 * i, 8);
	return x;
}

static uint32_t get32(const struct block *b, uint64_t i)
{
	uint32_t x;
	memcpy(&x, (const unsigned char *)b->w + 4 * i, 4);
	return x;
}

static void put32(struct block *b, uint64_t i, uint64_t x)
{
	uint32_t y = (uint32_t)x;
	memcpy((unsigned char *)b->w + 4 * i, &y, 4);
}

/* Rewrites one block in place with position numbers and sets each position's counter.
 * An entry of n children shrinks from 2 + 2n 32-bit words to 2 + n, so the output (at
 * o) never passes what is still to be read: a child's number is written after its key
 * is read, at or before the key's first half. */
static int rewrite_block(void *ctx, int worker, uint64_t item)
{
	(void)worker;
	struct csolve *s = ctx;
	struct block *b = s->blocks[item];
	uint64_t o = 0;
	for (uint64_t i = 0; i < b->used;) {
		uint64_t h = get64(b, i), n = h & 0xffff;
		unsigned v = (unsigned)(h >> 16 & 0xf);
		uint64_t u = rank_of(s, h >> 20);
		put32(b, o++, u);
		put32(b, o++, h & 0xfffff);
		s->left[u] = (uint16_t)n;
		if (v != BP_VALUE_NONE)
			s->rec[u] = bp_record_make(v, 0);
		for (uint64_t j = 0; j < n; j++)
			put32(b, o++, rank_of(s, get64(b, i + 1 + j)));
		i += 1 + n;
	}
	b->used = o;
	/* give the freed tail back */
	uint64_t keep = pages(sizeof *b + 4 * o);
	if (keep < b->mapped && munmap((unsigned char *)b + keep, b->mapped - keep) == 0)
		b->mapped = keep;
	return BP_OK;
}

/* The predecessor lists are built in two walks over every block, counting then
 * filling, each cut by child: worker part `item` of s->threads takes the children
 * numbered in its range only. Each walk reads the lists once per worker, in order,
 * which costs less than the locked increments that cutting by block would need on
 * offsets shared by all: a locked increment waits for its cache miss, plain ones
 * overlap theirs. */
static void part_range(const struct csolve *s, uint64_t item, uint32_t *lo, uint32_t *hi)
{
	uint64_t t = (uint64_t)s->threads;
	*lo = (uint32_t)(s->npos * item / t);
	*hi = (uint32_t)(s->npos * (item + 1) / t);
}

/* One walk of worker part `item`: counts (fill 0) or fills (fill 1) the predecessor
 * lists of the children in its range. */
static int pred_part(struct csolve *s, uint64_t item, int fill)
{
	uint32_t lo, hi;
	part_range(s, item, &lo, &hi);
	for (uint64_t k = 0; k < s->nblocks; k++) {
		const struct block *b = s->blocks[k];
		for (uint64_t i = 0; i < b->used;) {
			uint32_t u = get32(b, i), n = get32(b, i + 1) & 0xffff;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t c = get32(b, i + 2 + j);
				if (c < lo || c >= hi)
					continue;
				if (fill)
					s->pred[s->off[c]++] = u;
				else
					s->off[c + 1]++;
			}
			i += 2 + n;
		}
	}
	return BP_OK;
}

static int count_part(void *ctx, int worker, uint64_t item)
{
	(void)worker;
	return pred_part(ctx, item, 0);
}

static int fill_part(void *ctx, int worker, uint64_t item)
{
	(void)worker;
	return pred_part(ctx, item, 1);
}

static int build_counts(void *ctx, int worker, uint64_t item)
{
	(void)worker;
	struct csolve *s = ctx;
	/* item: a run of 4096 counts; they are made prefix sums afterwards */
	uint64_t l1 = (item + 1) * 4096 < s->ncnt ? (item + 1) * 4096 : s->ncnt;
	for (uint64_t l = item * 4096; l < l1; l++) {
		uint64_t c = 0;
		for (uint64_t wi = 8 * l; wi < 8 * l + 8 && wi < s->nwords; wi++)
			c += (uint64_t)__builtin_popcountll(s->reach[wi]);
		s->cnt[l] = c;
	}
	return BP_OK;
}

/* ---- writing ---------------------------------------------------------------------- */

struct fillctx {
	const struct csolve *s;
	uint32_t t;
};

static int fill_records(void *ctx, uint64_t first, uint64_t n, uint16_t *dst)
{
	const struct fillctx *f = ctx;
	const struct csolve *s = f->s;
	uint64_t key = s->toff[f->t] + first;
	memset(dst, 0, n * sizeof *dst);
	uint64_t i = 0;
	while (i < n) {
		uint64_t k = key + i;
		uint64_t w = s->reach[k / 64] >> (k % 64), span = 64 - k % 64;
		if (span > n - i)
			span = n - i;
		if (span < 64)
			w &= (1ull << span) - 1;
		if (w) {
			uint64_t r = rank_of(s, k);
			for (; w; w &= w - 1)
				dst[i + (uint64_t)__builtin_ctzll(w)] = s->rec[r++];
		}
		i += span;
	}
	return BP_OK;
}

/* ---- 3. propagation ----------------------------------------------------------------- */

static int propagate(struct csolve *s, const struct bp_solve_opts *opts, double t0)
{
	uint64_t n = s->npos, head = 0, tail = 0;
	uint32_t *q = malloc(sizeof *q * (n ? n : 1));
	if (!q)
		return BP_ENOMEM;
	uint16_t *rec = s->rec;
	for (uint64_t i = 0; i < n; i++) {
		unsigned v = bp_record_value(rec[i]);
		if (v == BP_VALUE_WIN || v == BP_VALUE_LOSS)
			q[tail++] = (uint32_t)i;
	}
	int rc = BP_OK;
	unsigned level = 0;
	while (head < tail && !rc) {
		uint32_t v = q[head++];
		unsigned val = bp_record_value(rec[v]), r = bp_record_remoteness(rec[v]) + 1;
		if (r > level && opts->progress) {
			struct bp_solve_progress pr = { .phase = 1,
							.tier = r - 1,
							.seconds = bp_solve_clock() - t0 };
			opts->progress(opts->ctx, &pr);
		}
		level = r > level ? r : level;
		if ((head & 0xfffff) == 0 && opts->cancel && opts->cancel(opts->ctx)) {
			rc = BP_ECANCELED;
			break;
		}
		for (uint64_t e = s->off[v]; e < s->off[v + 1]; e++) {
			uint32_t u = s->pred[e];
			if (rec[u])
				continue;
			if (val == BP_VALUE_LOSS) {
				rec[u] = bp_record_make(BP_VALUE_WIN, r);
			} else if (--s->left[u] == 0) {
				rec[u] = bp_record_make(BP_VALUE_LOSS, r);
			} else {
				continue;
			}
			if (r >= REM_LIMIT) {
				snprintf(s->errmsg, sizeof s->errmsg,
					 "remoteness %u is too large to store", r + 1);
				rc = BP_ERANGE;
				break;
			}
			q[tail++] = u;
		}
	}
	/* draws: fewest turns to a terminal draw through unsolved positions */
	head = tail = 0;
	for (uint64_t i = 0; i < n && !rc; i++)
		if (rec[i] && bp_record_value(rec[i]) == BP_VALUE_DRAW)
			q[tail++] = (uint32_t)i;
	while (head < tail && !rc) {
		uint32_t v = q[head++];
		unsigned r = bp_record_remoteness(rec[v]) + 1;
		for (uint64_t e = s->off[v]; e < s->off[v + 1]; e++) {
			uint32_t u = s->pred[e];
			if (rec[u])
				continue;
			if (r >= REM_LIMIT) {
				snprintf(s->errmsg, sizeof s->errmsg,
					 "draw remoteness %u is too large to store", r);
				rc = BP_ERANGE;
				break;
			}
			rec[u] = bp_record_make(BP_VALUE_DRAW, r);
			q[tail++] = u;
		}
	}
	for (uint64_t i = 0; i < n && !rc; i++)
		if (!rec[i])
			rec[i] = bp_record_make(BP_VALUE_DRAW, BP_RECORD_NO_REMOTENESS);
	free(q);
	return rc;
}

static void free_blocks(struct csolve *s)
{
	for (int i = 0; s->wk && i < s->threads; i++) {
		for (struct block *b = s->wk[i].head, *nx; b; b = nx) {
			nx = b->next;
			munmap(b, b->mapped);
		}
		s->wk[i].head = s->wk[i].tail = NULL;
	}
}

/* The tier offsets, move buffers, workers and the bitmap; *sizes gets the tier sizes
 * (calloc). @return BP_OK; BP_ENOMEM; BP_ERANGE (s->errmsg says why). */
static int prepare(struct csolve *s, uint64_t **sizes)
{
	s->toff = calloc(s->nt + 1, sizeof *s->toff);
	*sizes = calloc(s->nt, sizeof **sizes);
	s->mv = bp_solve_move_buffers(s->g, s->threads);
	s->wk = calloc((size_t)s->threads, sizeof *s->wk);
	if (!s->toff || !*sizes || !s->mv || !s->wk)
		return BP_ENOMEM;
	for (int i = 0; i < s->threads; i++)
		if (!(s->wk[i].kids = malloc(sizeof(uint64_t) * (size_t)(s->g->max_moves + 1))) ||
		    !(s->wk[i].ktier = malloc(sizeof(uint32_t) * (size_t)(s->g->max_moves + 1))))
			return BP_ENOMEM;
	if (s->g->max_moves > 0xffff) {
		snprintf(s->errmsg, sizeof s->errmsg, "%d moves in a position are too many",
			 s->g->max_moves);
		return BP_ERANGE;
	}
	for (uint32_t t = 0; t < s->nt; t++) {
		s->g->ops->tier_size(s->g, t, &(*sizes)[t]);
		s->toff[t + 1] = s->toff[t] + (*sizes)[t];
	}
	s->total = s->toff[s->nt];
	s->nwords = s->total / 64 + 1;
	/* whole cache lines: a rank reads one line of 8 words */
	s->reach = aligned_alloc(64, pages(8 * (s->nwords + 8)));
	if (s->reach)
		memset(s->reach, 0, pages(8 * (s->nwords + 8)));
	return s->reach ? BP_OK : BP_ENOMEM;
}

/* 1. Marking from skey, breadth first, each position expanded once: s->npos, s->nedges
 * and s->frontier_peak. @return BP_OK; BP_ERANGE over the limit (s->errmsg); BP_ENOMEM;
 * BP_ECANCELED; a rule's error. */
static int mark(struct csolve *s, const struct bp_solve_opts *opts, uint64_t skey, double t0)
{
	int rc;
	s->meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	s->limit = ~0ull;
	if (opts->memory_limit) {
		/* what marking holds besides the lists (the frontiers are left out) */
		uint64_t fixed = pages(8 * s->nwords) + BP_SOLVE_BASE_MEMORY;
		s->limit = opts->memory_limit > fixed ? opts->memory_limit - fixed : 0;
	}
	s->reach[skey / 64] |= 1ull << (skey % 64);
	if (!(s->front = malloc(sizeof *s->front)))
		return BP_ENOMEM;
	s->front[0] = skey;
	s->nfront = 1;
	while (s->nfront) {
		rc = bp_solve_metered(&s->meter, 2, ++s->passes, 0, s->threads,
				      (s->nfront + FRONT_ITEM - 1) / FRONT_ITEM, FRONT_ITEM,
				      s->nfront, mark_chunk, s);
		for (int i = 0; i < s->threads; i++) {
			s->listed += s->wk[i].unlisted;
			s->wk[i].unlisted = 0;
		}
		if (!rc && s->listed > s->limit)
			rc = BP_ERANGE;
		uint64_t held = s->nfront;
		for (int i = 0; i < s->threads; i++)
			held += s->wk[i].capnext;
		if (8 * held > s->frontier_peak)
			s->frontier_peak = 8 * held;
		if (rc == BP_ERANGE) {
			uint64_t n = 0;
			for (int i = 0; i < s->threads; i++)
				n += s->wk[i].expanded;
			char lbuf[32];
			snprintf(s->errmsg, sizeof s->errmsg,
				 "the reachable graph passed the memory limit of %s after %llu "
				 "positions",
				 bp_text_bytes(opts->memory_limit, lbuf, sizeof lbuf),
				 (unsigned long long)n);
		}
		if (rc)
			return rc;
		/* the next frontier: the workers' parts, end to end */
		uint64_t n = 0;
		for (int i = 0; i < s->threads; i++)
			n += s->wk[i].nnext;
		free(s->front);
		if (!(s->front = malloc(sizeof *s->front * (n ? n : 1))))
			return BP_ENOMEM;
		s->nfront = 0;
		for (int i = 0; i < s->threads; i++) {
			if (s->wk[i].nnext) /* a worker that found nothing has no list */
				memcpy(s->front + s->nfront, s->wk[i].next,
				       sizeof *s->front * s->wk[i].nnext);
			s->nfront += s->wk[i].nnext;
			s->wk[i].nnext = 0;
		}
	}
	free(s->front);
	s->front = NULL;
	for (int i = 0; i < s->threads; i++) {
		free(s->wk[i].next);
		s->wk[i].next = NULL;
		s->wk[i].capnext = 0;
	}
	if ((rc = bp_game_status(s->g))) {
		snprintf(s->errmsg, sizeof s->errmsg, "a rule failed: %s", bp_strerror(rc));
		return rc;
	}
	for (int i = 0; i < s->threads; i++) {
		s->npos += s->wk[i].expanded;
		s->nedges += s->wk[i].edges;
	}
	return BP_OK;
}

/* Frees everything s holds. */
static void release(struct csolve *s)
{
	free_blocks(s);
	for (int i = 0; s->wk && i < s->threads; i++) {
		free(s->wk[i].kids);
		free(s->wk[i].ktier);
		free(s->wk[i].next);
	}
	free(s->wk);
	bp_solve_free_move_buffers(s->mv, s->threads);
	free(s->reach);
	free(s->front);
	free(s->cnt);
	free(s->rec);
	free(s->left);
	free(s->off);
	free(s->pred);
	free(s->blocks);
	free(s->toff);
}

int bp_solve_counter_count(const struct bp_game *g, const struct bp_solve_opts *opts,
			   struct bp_counter_count *out, uint64_t **reach, struct bp_err *err)
{
	double t0 = bp_solve_clock();
	int threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	struct csolve s = { .g = g, .nt = g->ntiers, .threads = threads };
	uint64_t *sizes = NULL, need;
	uint32_t st;
	uint64_t sidx;
	memset(out, 0, sizeof *out);
	int rc = bp_solve_plan(g, bp_solve_counter_estimate, opts, &need, err);
	if (rc)
		return rc;
	if (!(rc = prepare(&s, &sizes)) && !(rc = bp_solve_start(g, &st, &sidx)) &&
	    !(rc = mark(&s, opts, s.toff[st] + sidx, t0))) {
		out->indices = s.total;
		out->positions = s.npos;
		out->edges = s.nedges;
		out->frontier = s.frontier_peak / 8;
		out->need =
			bp_solve_counter_need(s.total, s.npos, s.nedges, out->frontier, threads);
		out->seconds = bp_solve_clock() - t0;
		if (reach) { /* handed over */
			*reach = s.reach;
			s.reach = NULL;
		}
	}
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, s.errmsg[0] ? s.errmsg : bp_strerror(rc));
	release(&s);
	free(sizes);
	return rc;
}

int bp_solve_counter(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		     struct bp_solve_result *out, struct bp_err *err)
{
	double t0 = bp_solve_clock();
	int rc, threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	struct csolve s = { .g = g, .nt = g->ntiers, .threads = threads };
	bp_table *tab = NULL;
	uint64_t *sizes = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = bp_solve_plan(g, bp_solve_counter_estimate, opts, &out->memory_estimate, err)))
		return rc;
	if ((rc = prepare(&s, &sizes)))
		goto out;
	if ((rc = bp_solve_open_table(g, db, sizes, opts, 1, &tab, err)))
		goto out_quiet;

	uint32_t st;
	uint64_t sidx;
	if ((rc = bp_solve_start(g, &st, &sidx)))
		goto out;
	int done;
	if ((rc = bp_solve_if_stored(tab, s.nt, st, sidx, out, &done)) || done)
		goto out;

	/* 1. marking, breadth first, each position expanded once */
	uint64_t skey = s.toff[st] + sidx;
	if ((rc = mark(&s, opts, skey, t0)))
		goto out;
	/* the exact plan, before the graph is built */
	out->memory_estimate =
		bp_solve_counter_need(s.total, s.npos, s.nedges, s.frontier_peak / 8, threads);
	if (s.npos >= 0xffffffffull) {
		snprintf(s.errmsg, sizeof s.errmsg,
			 "%llu reachable positions: more than 32-bit numbers hold",
			 (unsigned long long)s.npos);
		rc = BP_ERANGE;
		goto out;
	}
	if (opts->memory_limit && out->memory_estimate > opts->memory_limit) {
		char nbuf[32], lbuf[32];
		snprintf(s.errmsg, sizeof s.errmsg,
			 "%llu reachable positions and %llu moves need about %s, more than "
			 "the memory limit of %s",
			 (unsigned long long)s.npos, (unsigned long long)s.nedges,
			 bp_text_bytes(out->memory_estimate, nbuf, sizeof nbuf),
			 bp_text_bytes(opts->memory_limit, lbuf, sizeof lbuf));
		rc = BP_ERANGE;
		goto out;
	}

	/* 2. the rank structure, then the graph */
	s.ncnt = s.nwords / 8 + 1;
	if (!(s.cnt = malloc(sizeof *s.cnt * s.ncnt))) {
		rc = BP_ENOMEM;
		goto out;
	}
	if ((rc = bp_parallel_for(threads, (s.ncnt + 4095) / 4096, build_counts, &s)))
		goto out;
	for (uint64_t l = 0, sum = 0; l < s.ncnt; l++) {
		uint64_t c = s.cnt[l];
		s.cnt[l] = sum;
		sum += c;
	}
	s.rec = calloc(s.npos ? s.npos : 1, sizeof *s.rec);
	s.left = calloc(s.npos ? s.npos : 1, sizeof *s.left);
	s.off = calloc(s.npos + 1, sizeof *s.off);
	s.blocks = malloc(sizeof *s.blocks * (s.nblocks ? s.nblocks : 1));
	if (!s.rec || !s.left || !s.off || !s.blocks) {
		rc = BP_ENOMEM;
		goto out;
	}
	uint64_t nb = 0;
	for (int i = 0; i < threads; i++)
		for (struct block *b = s.wk[i].head; b; b = b->next)
			s.blocks[nb++] = b;
	assert(nb == s.nblocks);
	if ((rc = bp_parallel_for(threads, nb, rewrite_block, &s)) ||
	    (rc = bp_parallel_for(threads, (uint64_t)threads, count_part, &s)))
		goto out;
	for (uint64_t i = 0; i < s.npos; i++)
		s.off[i + 1] += s.off[i];
	if (!(s.pred = malloc(sizeof *s.pred * (s.nedges ? s.nedges : 1)))) {
		rc = BP_ENOMEM;
		goto out;
	}
	if ((rc = bp_parallel_for(threads, (uint64_t)threads, fill_part, &s)))
		goto out;
	/* off[c] now ends c's list: shift back to starts */
	memmove(s.off + 1, s.off, sizeof *s.off * s.npos);
	s.off[0] = 0;
	free_blocks(&s);

	/* 3. propagation */
	if ((rc = propagate(&s, opts, t0)))
		goto out;
	if ((rc = bp_game_status(g))) {
		snprintf(s.errmsg, sizeof s.errmsg, "a rule failed: %s", bp_strerror(rc));
		goto out;
	}
	free(s.pred);
	free(s.off);
	free(s.left);
	s.pred = NULL;
	s.off = NULL;
	s.left = NULL;
	for (uint64_t i = 0; i < s.npos; i++)
		out->counts[bp_record_value(s.rec[i])]++;
	out->counts[0] = 0;
	for (uint32_t t = 0; t < s.nt; t++) {
		struct fillctx f = { .s = &s, .t = t };
		if ((rc = bp_table_put_tier_fill(tab, t, fill_records, &f, bp_solve_clock() - t0,
						 bp_solve_peak_memory(), "solver=counter\n"))) {
			snprintf(s.errmsg, sizeof s.errmsg, "writing tier %u: %s", t,
				 bp_strerror(rc));
			goto out;
		}
		out->solved_tiers++;
	}
	rc = bp_solve_finish(tab, s.rec[rank_of(&s, skey)], out);
out:
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, s.errmsg[0] ? s.errmsg : bp_strerror(rc));
out_quiet:
	out->seconds = bp_solve_clock() - t0;
	out->peak_memory = bp_solve_peak_memory();
	bp_table_close(tab);
	release(&s);
	free(sizes);
	return rc;
}
