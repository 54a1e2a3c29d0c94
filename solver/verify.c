/* SPDX-License-Identifier: MIT */
/* Tiers are checked from the last to the first. A tier's stored records are read
 * whole; children's tiers are read on demand into a cache of whole tiers, bounded by
 * bytes: 4 GiB, or three times the largest tier when that is more, so that the tier
 * being checked and two tiers its moves reach always fit. A tier is held either as a
 * dense array (a record an index) or, when three dense ones would not fit 4 GiB and it
 * is mostly holes, packed (solver/packedtier.h: a bitmap with ranks and only the
 * stored records, read a range at a time): chicken:hex3's 58.9 G indices hold 4.3 G
 * positions, and its largest tier dense is 24 GB, packed 2.6 GB. Small games whose moves
 * reach many tiers (Blooms: captures lower the stone count) keep them all; games whose
 * moves reach the next tier or two never read one twice.
 * Corrupt blocks are counted by the store's own scan first; a tier that fails to
 * decode is then skipped, and its positions are not counted as checked.
 * An unfinished solve is reported by its missing tiers; a stored position with a child
 * in a missing tier is not checked (nor counted as checked, nor an inconsistency): the
 * tier engines write the last tier first, so their stored tiers never have such
 * children, but the cycles engine writes tiers 0, 1, ... after solving them all in
 * memory, and a move (a capture) may lead to any tier, so a write stopped half-way (a
 * full disk) leaves stored tiers whose children are not.
 *
 * Threads. A tier's index space is cut into work items of CHUNK indices for
 * bp_parallel_for; each worker has its own move buffer and counters.
 *   - The cache. A tier is read once, by the first worker that needs it, under a
 *     mutex, and published by an atomic flag (retrograde.c's child_tier pattern), so
 *     readers take no lock. Tiers are dropped (least recently used first) only
 *     between two tiers' checks, on the calling thread: a pointer a worker holds never
 *     dangles. The price: during one tier's check the cache can go over its budget by
 *     the tiers that tier's moves reach, where an evicting cache would keep to it by
 *     reading them again whenever the positions alternate between them.
 *   - Problems. A chunk's problems are collected by its worker, then handed to the
 *     callback under a mutex in chunk order, once every earlier chunk is reported:
 *     the report reads the same for any number of threads, and the callback never
 *     runs twice at once.
 *   - The content hash chains every record of the table in index order, so it cannot
 *     be split between workers without changing its value: one extra work item
 *     computes it (and counts the tier's positions) while the others check. It is a
 *     few multiplications a record, against a move generation and a few ranks for
 *     every checked position.
 *
 * The rule that turns children's values into a value (RULES.md section 10) is written
 * out here again on purpose rather than shared with the solvers: a check that reused
 * the solver's code would repeat its mistakes. */
#include "solver/verify.h"

#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/random.h"
#include "solver/packedtier.h"
#include "solver/parallel.h"
#include "solver/sparse.h"
#include "store/codec.h"

#define CHUNK 1024		 /* indices a work item checks, at least */
#define MAX_CHUNKS (1u << 20)	 /* work items of a tier, at most (more indices an item) */
#define CACHE_BYTES (4ull << 30) /* the cache's byte budget, at least */

/* Indices a work item checks in a tier of size indices: CHUNK, or more, so that the
 * problems kept per item stay a few MiB in a tier of billions of indices. */
static uint64_t chunk_of(uint64_t size)
{
	uint64_t c = (size + MAX_CHUNKS - 1) / MAX_CHUNKS;
	return c > CHUNK ? c : CHUNK;
}

/* A tier in the cache: dense (rec, one record an index) or packed (only the stored
 * records, solver/packedtier.h), whichever verify_table chose for it. */
struct cached {
	uint16_t *rec;		     /* dense; NULL: packed, not stored, or unreadable */
	struct bp_packedtier packed; /* packed.line NULL: dense, not stored, or unreadable */
	uint64_t bytes;		     /* held */
	int loaded;		     /* final: stored with release, read with acquire */
	uint64_t used;		     /* the tier check (clock) that last used it; relaxed atomics */
};

static int readable(const struct cached *c)
{
	return c->rec || c->packed.line;
}

static uint16_t record_at(const struct cached *c, uint64_t idx)
{
	return c->rec ? c->rec[idx] : bp_packedtier_get(&c->packed, idx);
}

/* A chunk's problems: NUL-terminated messages one after another. */
struct msgs {
	char *s;
	size_t len, cap;
	int done; /* the chunk is checked (in the pending list) */
};

struct worker {
	struct bp_move *mv;
	uint64_t inconsistencies;
	uint64_t unchecked; /* positions with a child in a missing tier */
	struct msgs found;  /* in the chunk being checked */
};

struct verifier {
	const struct bp_game *g;
	bp_table *t;
	struct bp_table_meta meta;
	struct bp_verify_opts o;
	pthread_mutex_t load_lock;   /* reading a tier into the cache */
	pthread_mutex_t report_lock; /* the pending list and calls of o.problem */
	struct cached *cache;	     /* one per tier */
	uint64_t bytes;		     /* records held in the cache */
	uint64_t budget;	     /* bytes the cache may hold between two tiers' checks */
	uint64_t clock;		     /* tier checks begun */
	int threads;
	struct worker *w; /* threads */
	/* the tier being checked */
	uint32_t tier;
	const struct cached *rec;
	uint64_t chunk; /* indices a work item checks */
	uint64_t nchunks;
	struct msgs *pending; /* per chunk: problems not yet reported */
	uint64_t reported;    /* chunks reported, all of them before any other */
	uint64_t hash;	      /* of every record so far, in order */
	uint64_t counted;     /* the tier's stored records */
	/* o.tick: indices checked in the tier, when the next tick is due, its start, and
	 * whether a worker is ticking */
	uint64_t done;
	uint64_t next_tick; /* nanoseconds on bp_parallel_clock */
	double t0;
	int ticking;
	/* the full check: each tier's corrupt or missing blocks are counted into
	 * *corrupt (and reported) as the tier is read. A tier with one is kept as
	 * unreadable (make_room drops only readable tiers), so it is never read, nor
	 * counted, twice. Where moves may lead to a lower tier (BP_GAME_CYCLIC), that read
	 * may be a worker's, under load_lock: the report takes report_lock */
	int count_at_load;
	uint64_t *corrupt;
};

/* Reports a problem directly: only while no workers run. */
static void problem(struct verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct verifier *v, const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (v->o.problem)
		v->o.problem(v->o.ctx, buf);
}

/* Counts an inconsistency found by worker w and keeps its description for the
 * chunk's report. @return BP_OK; BP_ENOMEM. */
static int inconsistent(struct verifier *v, struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int inconsistent(struct verifier *v, struct worker *w, const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	w->inconsistencies++;
	if (!v->o.problem)
		return BP_OK;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct msgs *m = &w->found;
	size_t n = strlen(buf) + 1;
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		char *s = realloc(m->s, cap);
		if (!s)
			return BP_ENOMEM;
		m->s = s;
		m->cap = cap;
	}
	memcpy(m->s + m->len, buf, n);
	m->len += n;
	return BP_OK;
}

/* Hands chunk's problems over from worker w, then reports, in order, every chunk all
 * of whose predecessors are reported. */
static void chunk_done(struct verifier *v, struct worker *w, uint64_t chunk)
{
	if (!v->o.problem)
		return;
	pthread_mutex_lock(&v->report_lock);
	v->pending[chunk] = w->found;
	v->pending[chunk].done = 1;
	w->found = (struct msgs){ 0 };
	for (; v->reported < v->nchunks && v->pending[v->reported].done; v->reported++) {
		struct msgs *m = &v->pending[v->reported];
		for (size_t i = 0; i < m->len; i += strlen(m->s + i) + 1)
			v->o.problem(v->o.ctx, m->s + i);
		free(m->s);
		*m = (struct msgs){ .done = 1 };
	}
	pthread_mutex_unlock(&v->report_lock);
}

static uint64_t dense_bytes(const struct verifier *v, uint32_t tier)
{
	return sizeof(uint16_t) * (v->meta.tier_size[tier] ? v->meta.tier_size[tier] : 1);
}

/* The positions stored in a tier: its records with a value, 0 while not done. */
static uint64_t stored_in(const struct verifier *v, uint32_t tier)
{
	const uint64_t *c = v->meta.tier_count + 4 * (uint64_t)tier;
	return v->meta.tier_done[tier] ? c[BP_VALUE_WIN] + c[BP_VALUE_LOSS] + c[BP_VALUE_DRAW] : 0;
}

/* Whether tier is held packed: always or never when the options say so; otherwise
 * when three such tiers dense would not fit the default cache (4 GiB) and packed takes
 * at most half the bytes (a tier of mostly holes). Smaller tiers stay dense: a packed
 * look-up costs a second cache line, and checks ran 2 to 8% longer packed (one thread,
 * chicken:tri5 and taifas:4x4, side by side). */
static int packed(const struct verifier *v, uint32_t tier)
{
	if (v->o.packed)
		return v->o.packed > 0;
	return 3 * dense_bytes(v, tier) > CACHE_BYTES &&
	       2 * bp_packedtier_bytes_for(v->meta.tier_size[tier], stored_in(v, tier)) <=
		       dense_bytes(v, tier);
}

/* The bytes tier takes in the cache. */
static uint64_t tier_bytes(const struct verifier *v, uint32_t tier)
{
	return packed(v, tier)
		       ? bp_packedtier_bytes_for(v->meta.tier_size[tier], stored_in(v, tier))
		       : dense_bytes(v, tier);
}

static void count_bad_block(void *ctx, uint32_t tier, uint64_t block, const char *why);

/* A tier read by a count_at_load check: its bad blocks counted, and any makes the
 * tier unreadable (BP_ECORRUPT), as a first failure does otherwise. */
static int counted_read(struct verifier *v, int got)
{
	if (got > 0) {
		*v->corrupt += (uint64_t)got;
		return BP_ECORRUPT;
	}
	return got;
}

/* Reads tier into the cache: under load_lock, or while no workers run. */
static int load(struct verifier *v, uint32_t tier)
{
	struct cached *c = &v->cache[tier];
	if (v->meta.tier_done[tier]) {
		int rc;
		if (packed(v, tier)) {
			rc = v->count_at_load
				     ? counted_read(v, bp_packedtier_load_each(
							       v->t, tier, v->meta.tier_size[tier],
							       stored_in(v, tier), v->o.hash_range,
							       count_bad_block, v, &c->packed))
				     : bp_packedtier_load(v->t, tier, v->meta.tier_size[tier],
							  stored_in(v, tier), v->o.hash_range,
							  &c->packed);
			c->bytes = rc ? 0 : bp_packedtier_bytes(&c->packed);
		} else {
			uint16_t *rec = malloc(dense_bytes(v, tier));
			if (!rec)
				return BP_ENOMEM;
			rc = v->count_at_load
				     ? counted_read(v, bp_table_get_tier_each(v->t, tier, rec,
									      count_bad_block, v))
				     : bp_table_get_tier(v->t, tier, rec);
			if (rc)
				free(rec);
			c->rec = rc ? NULL : rec;
			c->bytes = rc ? 0 : dense_bytes(v, tier);
		}
		if (rc && rc != BP_ECORRUPT && rc != BP_ENOTFOUND)
			return rc;
		v->bytes += c->bytes;
	}
	__atomic_store_n(&c->loaded, 1, __ATOMIC_RELEASE);
	return BP_OK;
}

/* The records of tier, or NULL when the tier is not stored or unreadable (*rc set
 * only for an error that stops the check). Safe from any worker. */
static const struct cached *tier_records(struct verifier *v, uint32_t tier, int *rc)
{
	struct cached *c = &v->cache[tier];
	*rc = BP_OK;
	if (!__atomic_load_n(&c->loaded, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&v->load_lock);
		if (!__atomic_load_n(&c->loaded, __ATOMIC_ACQUIRE))
			*rc = load(v, tier);
		pthread_mutex_unlock(&v->load_lock);
		if (*rc)
			return NULL;
	}
	if (__atomic_load_n(&c->used, __ATOMIC_RELAXED) != v->clock)
		__atomic_store_n(&c->used, v->clock, __ATOMIC_RELAXED);
	return readable(c) ? c : NULL;
}

/* Drops the least recently used tiers other than keep until need more bytes fit the
 * budget, or nothing else is left. Only while no workers run. Among tiers last used
 * by the same check, the highest goes first: tiers are checked downwards, so it is the
 * farthest from the next ones (tier t's check uses t, t + 1 and t + 2 in Chicken: the
 * check of t - 1 needs t and t + 1 again, not t + 2). */
static void make_room(struct verifier *v, uint32_t keep, uint64_t need)
{
	while (v->bytes + need > v->budget) {
		struct cached *lru = NULL;
		for (uint32_t tr = 0; tr < v->g->ntiers; tr++) {
			struct cached *c = &v->cache[tr];
			if (readable(c) && tr != keep && (!lru || c->used <= lru->used))
				lru = c;
		}
		if (!lru)
			break;
		v->bytes -= lru->bytes;
		free(lru->rec);
		bp_packedtier_free(&lru->packed);
		*lru = (struct cached){ 0 };
	}
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* Chains records first..first+n-1 of the tier being checked (rec[0] is record
 * first) into the content hash, in index order, and counts the stored ones. */
static void hash_records(struct verifier *v, const uint16_t *rec, uint64_t first, uint64_t n)
{
	uint64_t h = v->hash, k = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint16_t r = rec[i];
		if (r) {
			h = mix(mix(mix(h, v->tier), first + i), r);
			k++;
		}
	}
	v->hash = h;
	v->counted += k;
}

/* The content hash over the tier's records, in index order. */
static void hash_tier(struct verifier *v)
{
	const struct cached *c = v->rec;
	v->counted = 0;
	if (c->rec) {
		hash_records(v, c->rec, 0, v->meta.tier_size[v->tier]);
		return;
	}
	const struct bp_packedtier *p = &c->packed;
	uint64_t h = v->hash, k = 0;
	for (uint64_t idx = bp_packedtier_next(p, 0); idx < p->size;
	     idx = bp_packedtier_next(p, idx + 1), k++)
		h = mix(mix(mix(h, v->tier), idx), bp_packedtier_at(p, k));
	v->hash = h;
	v->counted = k;
}

/* Records a hash-only check reads at a time by default: the tier is never whole in
 * memory, so that a table whose largest tier alone is over the machine's memory
 * (chicken:hex3: 12 billion indices, 24 GB of records) is hashed in 32 MiB. */
#define HASH_RANGE ((uint64_t)1 << 24)

/* Seconds between two of o.tick's calls. */
static double tick_every(const struct verifier *v)
{
	return v->o.tick_seconds > 0 ? v->o.tick_seconds : 0.5;
}

/* The content hash of a whole tier read a range at a time (hash-only), the tier's
 * corrupt or missing blocks reported (count_bad_block) and counted into *bad as they
 * are met: a hash-only check reads each block once, where a check of every block
 * first (bp_table_check_blocks) decoded each twice. A tier with a block that fails
 * leaves the hash as it was. @return BP_OK; BP_ECORRUPT (a block failed);
 * BP_ENOTFOUND; BP_ENOMEM. */
static int hash_tier_streamed(struct verifier *v, uint32_t tier, uint64_t *bad)
{
	uint64_t size = v->meta.tier_size[tier], before = v->hash;
	uint64_t range = v->o.hash_range ? v->o.hash_range : HASH_RANGE;
	range = size < range ? (size ? size : 1) : range;
	uint16_t *rec = malloc(sizeof *rec * range);
	if (!rec)
		return BP_ENOMEM;
	int rc = BP_OK;
	v->tier = tier;
	v->counted = 0;
	double t0 = bp_parallel_clock(), next = t0 + tick_every(v);
	uint64_t nbad = 0;
	for (uint64_t first = 0; first < size && rc == BP_OK; first += range) {
		uint64_t n = size - first < range ? size - first : range;
		int got = bp_table_get_range_each(v->t, tier, first, n, rec, count_bad_block, v);
		if (got < 0)
			rc = got;
		else if (got > 0)
			nbad += (uint64_t)got; /* the rest is read for its bad blocks only */
		else if (!nbad)
			hash_records(v, rec, first, n);
		double now = bp_parallel_clock();
		if (v->o.tick && now >= next && first + n < size) {
			v->o.tick(v->o.ctx, tier, v->g->ntiers, first + n, size, now - t0);
			next = now + tick_every(v);
		}
	}
	free(rec);
	*bad += nbad;
	if (rc == BP_OK && nbad)
		rc = BP_ECORRUPT;
	if (rc) {
		v->hash = before;
		v->counted = 0;
	}
	return rc;
}

/* The record of index cidx of tier ct: *have 0 when the tier is not readable (not
 * stored, or unreadable: then *cr is 0). A sampling check reads it by itself from the
 * store (its block cache), the whole check from the cache of whole tiers.
 * @return BP_OK; an error that ends the check. */
static int child_record(struct verifier *v, uint32_t ct, uint64_t cidx, uint16_t *cr, int *have)
{
	int rc = BP_OK;
	*cr = 0;
	*have = 0;
	if (v->o.sample) {
		if (!v->meta.tier_done[ct])
			return BP_OK;
		if ((rc = bp_table_get(v->t, ct, cidx, cr)))
			return rc;
		*have = 1;
		return BP_OK;
	}
	const struct cached *c = tier_records(v, ct, &rc);
	if (c) {
		*cr = record_at(c, cidx);
		*have = 1;
	}
	return rc;
}

/* Recomputes the value and remoteness of the position at idx, stored as r. */
static int check_one(struct verifier *v, struct worker *w, uint64_t idx, uint16_t r)
{
	const struct bp_game *g = v->g;
	const uint32_t tier = v->tier;
	struct bp_pos p, canon, c;
	int rc = BP_OK;
	if (g->ops->unrank(g, tier, idx, &p) != BP_OK)
		return inconsistent(v, w, "tier %u index %llu: a record where no position is", tier,
				    (unsigned long long)idx);
	bp_game_canonical(g, &p, &canon);
	if (!bp_pos_equal(&p, &canon))
		return inconsistent(v, w,
				    "tier %u index %llu: a record at a non-canonical position",
				    tier, (unsigned long long)idx);
	enum bp_value want = g->ops->outcome(g, &p);
	unsigned wrem = 0;
	if (want == BP_VALUE_NONE) {
		int n = g->ops->moves(g, &p, w->mv);
		int any_loss = 0, any_draw = 0;
		unsigned lmin = ~0u, dmin = ~0u, wmax = 0;
		for (int i = 0; i < n; i++) {
			uint64_t cidx;
			c = p;
			g->ops->apply(g, &c, w->mv[i]);
			bp_game_canonical(g, &c, &canon);
			uint32_t ct = g->ops->tier(g, &canon);
			uint16_t cr = 0;
			int have = 0;
			if (ct < g->ntiers && g->ops->rank(g, &canon, &cidx) == BP_OK &&
			    cidx < v->meta.tier_size[ct] &&
			    (rc = child_record(v, ct, cidx, &cr, &have)))
				return rc;
			if (!have && ct < g->ntiers && !v->meta.tier_done[ct]) {
				w->unchecked++; /* unfinished: cannot be checked yet */
				return BP_OK;
			}
			unsigned cv = bp_record_value(cr), crem = bp_record_remoteness(cr);
			if (cv == BP_VALUE_NONE)
				return inconsistent(
					v, w, "tier %u index %llu: a child has no stored value",
					tier, (unsigned long long)idx);
			if (cv == BP_VALUE_LOSS) {
				any_loss = 1;
				lmin = crem < lmin ? crem : lmin;
			} else if (cv == BP_VALUE_DRAW) {
				any_draw = 1;
				if (crem != BP_RECORD_NO_REMOTENESS && crem < dmin)
					dmin = crem;
			} else {
				wmax = crem > wmax ? crem : wmax;
			}
		}
		want = any_loss ? BP_VALUE_WIN : any_draw ? BP_VALUE_DRAW : BP_VALUE_LOSS;
		wrem = 1 + (any_loss ? lmin : any_draw ? dmin : wmax);
		/* a draw that reaches no terminal draw: a draw by repetition */
		if (!any_loss && any_draw && dmin == ~0u)
			wrem = BP_RECORD_NO_REMOTENESS;
	}
	if (bp_record_value(r) != want || bp_record_remoteness(r) != wrem) {
		struct bp_text pt = { 0 };
		g->ops->pos_format(g, &p, &pt);
		rc = inconsistent(
			v, w, "'%s' (tier %u index %llu): stored %s in %u, children give %s in %u",
			bp_text_str(&pt), tier, (unsigned long long)idx,
			bp_value_name(bp_record_value(r)), bp_record_remoteness(r),
			bp_value_name(want), wrem);
		bp_text_free(&pt);
	}
	return rc;
}

/* Work item 0 hashes the tier; item k > 0 checks chunk k - 1. */
static int check_item(void *ctx, int worker, uint64_t item)
{
	struct verifier *v = ctx;
	struct worker *w = &v->w[worker];
	if (item == 0) {
		hash_tier(v);
		return BP_OK;
	}
	uint64_t chunk = item - 1, i0 = chunk * v->chunk, i1 = i0 + v->chunk;
	if (i1 > v->meta.tier_size[v->tier])
		i1 = v->meta.tier_size[v->tier];
	int rc;
	const uint16_t *rec = v->rec->rec;
	if (rec) {
		for (uint64_t idx = i0; idx < i1; idx++)
			if (rec[idx] && (rc = check_one(v, w, idx, rec[idx])))
				return rc;
	} else {
		const struct bp_packedtier *p = &v->rec->packed;
		uint64_t k = bp_packedtier_rank(p, i0);
		for (uint64_t idx = bp_packedtier_next(p, i0); idx < i1;
		     idx = bp_packedtier_next(p, idx + 1))
			if ((rc = check_one(v, w, idx, bp_packedtier_at(p, k++))))
				return rc;
	}
	chunk_done(v, w, chunk);
	if (v->o.tick) {
		uint64_t done = __atomic_add_fetch(&v->done, i1 - i0, __ATOMIC_RELAXED);
		double now = bp_parallel_clock();
		if ((uint64_t)(now * 1e9) >= __atomic_load_n(&v->next_tick, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(&v->ticking, 1, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&v->next_tick, (uint64_t)((now + tick_every(v)) * 1e9),
					 __ATOMIC_RELAXED);
			/* read again under the flag: ticks one at a time never go back */
			done = __atomic_load_n(&v->done, __ATOMIC_RELAXED);
			v->o.tick(v->o.ctx, v->tier, v->g->ntiers, done, v->meta.tier_size[v->tier],
				  now - v->t0);
			__atomic_store_n(&v->ticking, 0, __ATOMIC_RELEASE);
		}
	}
	return BP_OK;
}

static void count_bad_block(void *ctx, uint32_t tier, uint64_t block, const char *why)
{
	struct verifier *v = ctx;
	pthread_mutex_lock(&v->report_lock); /* a worker's read may be reporting */
	problem(v, "tier %u block %llu: %s", tier, (unsigned long long)block, why);
	pthread_mutex_unlock(&v->report_lock);
}

/* Tries at a random index of a tier before it is passed over as too sparse. */
#define SAMPLE_TRIES 100000

/* The sampling check (bp_verify_opts.sample): stored positions drawn at random, tiers
 * in proportion to their stored positions, each re-derived from its children's
 * records read one at a time. Problems are reported as found. */
static int verify_sample(struct verifier *v, struct bp_verify_report *out)
{
	const struct bp_game *g = v->g;
	uint64_t total = 0, state = v->o.seed;
	for (uint32_t tr = 0; tr < g->ntiers; tr++) {
		if (!v->meta.tier_done[tr]) {
			out->missing_tiers++;
			problem(v, "tier %u is not stored (unfinished solve)", tr);
			continue;
		}
		total += stored_in(v, tr);
	}
	struct worker *w = &v->w[0];
	int rc = BP_OK;
	for (uint64_t i = 0; i < v->o.sample && total && rc == BP_OK; i++) {
		uint64_t pick = bp_splitmix64(&state) % total;
		uint32_t tier = 0;
		for (; pick >= stored_in(v, tier); tier++)
			pick -= stored_in(v, tier);
		uint64_t idx = 0;
		uint16_t r = 0;
		for (int tries = 0; !r && tries < SAMPLE_TRIES && rc == BP_OK; tries++) {
			idx = bp_splitmix64(&state) % v->meta.tier_size[tier];
			rc = bp_table_get(v->t, tier, idx, &r);
		}
		if (rc || !r)
			continue; /* a tier too sparse to hit: the sample is smaller */
		v->tier = tier;
		uint64_t before = w->unchecked;
		rc = check_one(v, w, idx, r);
		out->positions_checked += w->unchecked == before;
		for (size_t k = 0; k < w->found.len; k += strlen(w->found.s + k) + 1)
			v->o.problem(v->o.ctx, w->found.s + k);
		w->found.len = 0;
		if (v->o.progress && (i + 1) % 1000 == 0)
			v->o.progress(v->o.ctx, tier, g->ntiers, out->positions_checked);
	}
	free(w->found.s);
	w->found = (struct msgs){ 0 };
	out->inconsistencies += w->inconsistencies;
	return rc ? rc : bp_game_status(g);
}

static int verify_table(const struct bp_game *g, bp_table *t, const struct bp_verify_opts *opts,
			struct bp_verify_report *out)
{
	struct verifier v = { .g = g,
			      .t = t,
			      .load_lock = PTHREAD_MUTEX_INITIALIZER,
			      .report_lock = PTHREAD_MUTEX_INITIALIZER,
			      .hash = 0x736f6d6570736575ull };
	int rc = BP_OK;
	memset(out, 0, sizeof *out);
	if (opts)
		v.o = *opts;
	if (!g->ops->tier || !g->ops->rank || !g->ops->unrank)
		return BP_EUNSUPPORTED;
	if ((rc = bp_table_meta_get(t, &v.meta)))
		return rc;
	if (strcmp(v.meta.spec, g->spec) != 0 || v.meta.ntiers != g->ntiers)
		return BP_EFORMAT;
	if (bp_table_check_rules(t, BP_RULES_VERSION, NULL))
		return BP_ERULES; /* re-deriving values under other rules proves nothing */
	if (v.o.sample) {
		if (!(v.w = calloc(1, sizeof *v.w)) || !(v.w[0].mv = bp_game_move_buffer(g))) {
			rc = BP_ENOMEM;
		} else {
			v.threads = 1;
			rc = verify_sample(&v, out);
		}
		if (v.w)
			free(v.w[0].mv);
		free(v.w);
		return rc;
	}
	v.threads = v.o.threads > 0 ? v.o.threads : bp_parallel_cores();
	v.budget = v.o.cache_bytes ? v.o.cache_bytes : CACHE_BYTES;
	uint64_t max_chunks = 0;
	for (uint32_t tr = 0; tr < g->ntiers; tr++) {
		if (!v.o.cache_bytes && 3 * tier_bytes(&v, tr) > v.budget)
			v.budget = 3 * tier_bytes(&v, tr);
		uint64_t n = (v.meta.tier_size[tr] + chunk_of(v.meta.tier_size[tr]) - 1) /
			     chunk_of(v.meta.tier_size[tr]);
		max_chunks = n > max_chunks ? n : max_chunks;
	}
	/* the store decodes whole tiers on as many threads (the same results) */
	if ((rc = bp_table_set_threads(t, v.threads)))
		return rc;
	/* a hash-only check counts the bad blocks as it reads the ranges, a full check as
	 * it first reads each tier (so each block is decoded once, where a first pass
	 * over every block decoded it twice; Blooms' full check did so until
	 * 2026-12-03) */
	v.corrupt = &out->corrupt_blocks;
	v.count_at_load = !v.o.hash_only;
	v.cache = calloc(g->ntiers ? g->ntiers : 1, sizeof *v.cache);
	v.w = calloc((size_t)v.threads, sizeof *v.w);
	if (v.o.problem)
		v.pending = calloc(max_chunks ? max_chunks : 1, sizeof *v.pending);
	if (!v.cache || !v.w || (v.o.problem && !v.pending)) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (int i = 0; i < v.threads; i++)
		if (!(v.w[i].mv = bp_game_move_buffer(g))) {
			rc = BP_ENOMEM;
			goto out;
		}
	for (uint32_t tier = g->ntiers; tier-- > 0;) {
		if (!v.meta.tier_done[tier]) {
			out->missing_tiers++;
			problem(&v, "tier %u is not stored (unfinished solve)", tier);
			continue;
		}
		if (v.o.hash_only) {
			rc = hash_tier_streamed(&v, tier, &out->corrupt_blocks);
			if (rc == BP_ECORRUPT || rc == BP_ENOTFOUND) {
				rc = BP_OK;
				problem(&v, "tier %u cannot be read; its positions are not hashed",
					tier);
				continue;
			}
			if (rc)
				goto out;
			out->positions_hashed += v.counted;
			if (v.o.progress)
				v.o.progress(v.o.ctx, tier, g->ntiers, out->positions_hashed);
			continue;
		}
		v.clock++;
		make_room(&v, tier, v.cache[tier].loaded ? 0 : tier_bytes(&v, tier));
		v.rec = tier_records(&v, tier, &rc);
		if (rc)
			goto out;
		if (!v.rec) {
			problem(&v, "tier %u cannot be read; its positions are not checked", tier);
			continue;
		}
		v.tier = tier;
		v.chunk = chunk_of(v.meta.tier_size[tier]);
		v.nchunks = (v.meta.tier_size[tier] + v.chunk - 1) / v.chunk;
		v.reported = 0;
		v.done = 0;
		v.t0 = bp_parallel_clock();
		v.next_tick = (uint64_t)((v.t0 + tick_every(&v)) * 1e9);
		if (v.pending)
			memset(v.pending, 0, sizeof *v.pending * v.nchunks);
		rc = bp_parallel_for(v.threads, v.nchunks + 1, check_item, &v);
		for (uint64_t i = 0; v.pending && i < v.nchunks; i++)
			free(v.pending[i].s); /* chunks left unreported by an error */
		if (rc)
			goto out;
		assert(!v.pending || v.reported == v.nchunks);
		out->positions_hashed += v.counted;
		if (!v.o.hash_only)
			out->positions_checked += v.counted;
		if (v.o.progress)
			v.o.progress(v.o.ctx, tier, g->ntiers, out->positions_checked);
	}
	/* the start position must be stored: with every stored position's children
	 * stored, that makes every reachable position stored */
	struct bp_pos start, canon;
	uint64_t sidx;
	uint16_t r = 0;
	g->ops->start(g, &start);
	bp_game_canonical(g, &start, &canon);
	uint32_t st = g->ops->tier(g, &canon);
	if (g->ops->rank(g, &canon, &sidx) == BP_OK && v.meta.tier_done[st]) {
		const struct cached *c = tier_records(&v, st, &rc);
		if (rc)
			goto out;
		r = c ? record_at(c, sidx) : 0;
	}
	for (int i = 0; i < v.threads; i++) {
		out->inconsistencies += v.w[i].inconsistencies;
		out->positions_checked -= v.w[i].unchecked;
	}
	if (!r && !out->missing_tiers) {
		out->inconsistencies++;
		problem(&v, "the start position has no stored value");
	}
	out->content_hash = v.hash;
	if (!rc)
		rc = bp_game_status(g); /* a rule failed: the check means nothing */
out:
	for (uint32_t tr = 0; v.cache && tr < g->ntiers; tr++) {
		free(v.cache[tr].rec);
		bp_packedtier_free(&v.cache[tr].packed);
	}
	for (int i = 0; v.w && i < v.threads; i++) {
		free(v.w[i].mv);
		free(v.w[i].found.s);
	}
	free(v.cache);
	free(v.w);
	free(v.pending);
	return rc;
}

/* The fresh enumeration's tiers to bp_verify_opts.enumerated. */
static void fresh_tier(void *ctx, const struct bp_solve_progress *p)
{
	const struct bp_verify_opts *o = ctx;
	o->enumerated(o->ctx, p->tier, p->ntiers, p->positions, p->seconds);
}

/* A table indexed by its reachable positions (solver/sparse.h; probe.c attached the
 * stored index when it opened the table): the index is checked against a fresh
 * enumeration of the reachable positions by the rules, made here and not read from
 * the table, and the records through a view of the game indexed by the stored index.
 * The checks of verify_table then prove every stored position's value, and the
 * enumeration proves that the stored positions are exactly the reachable ones. */
int bp_verify(const struct bp_game *g, bp_table *t, const struct bp_verify_opts *opts,
	      struct bp_verify_report *out)
{
	bp_sparse *ix = bp_table_attached(t);
	if (!ix)
		return verify_table(g, t, opts, out);
	struct bp_game *view = NULL;
	bp_sparse *fresh = NULL;
	char why[200] = "";
	struct bp_err err = { { 0 } };
	int rc, mismatch = 0;
	/* with spill_dir: the stored index compared tier by tier, the records over the
	 * fresh one (the same keys, when it matches) */
	int low = opts && opts->spill_dir && !opts->hash_only && !opts->sample;
	const bp_sparse *over = ix;
	if (low) {
		struct bp_solve_opts eo = { .threads = opts->threads,
					    .spill_dir = opts->spill_dir,
					    .progress = opts->enumerated ? fresh_tier : NULL,
					    .ctx = (void *)(uintptr_t)opts };
		if ((rc = bp_sparse_enumerate(g, &eo, &fresh, &err))) {
			if (opts->problem)
				opts->problem(opts->ctx, err.msg);
			return rc;
		}
		for (uint32_t tr = 0; tr < g->ntiers; tr++) {
			char w[200];
			rc = bp_sparse_compare_tier(ix, fresh, tr, w, sizeof w);
			bp_sparse_release(ix, tr);
			if (rc && (rc != BP_ECORRUPT || bp_sparse_why(ix)[0])) {
				/* the stored tier does not read (as bp_sparse_read_all's failure) */
				if (opts->problem)
					opts->problem(opts->ctx,
						      bp_sparse_why(ix)[0] ? bp_sparse_why(ix) : w);
				bp_sparse_free(fresh);
				return rc;
			}
			if (rc && !mismatch) {
				mismatch = 1;
				snprintf(why, sizeof why, "%s", w);
			}
		}
		if (!mismatch)
			over = fresh;
	} else if ((rc = bp_sparse_read_all(ix, &err))) {
		if (opts && opts->problem)
			opts->problem(opts->ctx, err.msg);
		return rc;
	}
	if ((rc = bp_sparse_view(g, over, &view))) {
		bp_sparse_free(fresh);
		return rc;
	}
	if (!low && !(opts && (opts->hash_only || opts->sample))) {
		struct bp_solve_opts eo = { .threads = opts ? opts->threads : 0,
					    .progress =
						    opts && opts->enumerated ? fresh_tier : NULL,
					    .ctx = (void *)(uintptr_t)opts };
		if ((rc = bp_sparse_enumerate(g, &eo, &fresh, NULL)))
			goto out;
		mismatch = bp_sparse_compare(ix, fresh, why, sizeof why) != BP_OK;
	}
	rc = verify_table(view, t, opts, out);
	out->index_enumerated = fresh ? bp_sparse_positions(fresh) : 0;
	/* an index names the positions of the records: it is part of the content */
	uint64_t pair[2] = { out->content_hash, bp_sparse_hash(over) };
	if (!(opts && opts->sample)) /* a sample has no content hash */
		out->content_hash = bp_hash64(pair, sizeof pair, 0x696e646578);
	if (!rc && mismatch) {
		char buf[300];
		snprintf(buf, sizeof buf,
			 "the stored index is not the set of reachable positions: %s", why);
		out->inconsistencies++;
		if (opts && opts->problem)
			opts->problem(opts->ctx, buf);
	}
out:
	bp_sparse_free(fresh);
	bp_sparse_view_free(view);
	return rc;
}
