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
 * Canonicalizing every child costs a few table lookups per symmetry; the alternative
 * tried first (expanding every raw position, then copying each canonical record to
 * its whole class so children need only a rank) did about nsym times more work. */
#include "solver/retrograde.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"

#define CHUNK_WORDS 1024 /* bitmap words a work item covers: 65536 indices */

struct tier {
	uint64_t size;
	uint64_t *reach;  /* size bits */
	uint16_t *rec;	  /* size records, or NULL when not in memory */
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
	uint64_t chunk0; /* this rank's first work item of the tier */
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

static uint64_t chunks_of(uint64_t size)
{
	uint64_t words = size / 64 + 1;
	return (words + CHUNK_WORDS - 1) / CHUNK_WORDS;
}

/* ---- 1. reachability ------------------------------------------------------- */

/* Calls fn for every marked position of the current tier in work item `item`. */
typedef int marked_fn(struct solve *s, int worker, uint64_t idx, const struct bp_pos *p);

static int each_marked(struct solve *s, int worker, uint64_t item, marked_fn *fn)
{
	struct tier *tt = &s->tiers[s->t];
	uint64_t w0 = item * CHUNK_WORDS, w1 = w0 + CHUNK_WORDS;
	if (w1 > tt->size / 64 + 1)
		w1 = tt->size / 64 + 1;
	struct bp_pos p;
	for (uint64_t wi = w0; wi < w1; wi++)
		for (uint64_t w = tt->reach[wi]; w; w &= w - 1) {
			uint64_t idx = wi * 64 + (uint64_t)__builtin_ctzll(w);
			int rc = s->g->ops->unrank(s->g, s->t, idx, &p);
			if (rc || (rc = fn(s, worker, idx, &p)))
				return rc;
		}
	return BP_OK;
}

static int forward_one(struct solve *s, int worker, uint64_t idx, const struct bp_pos *pp)
{
	const struct bp_game *g = s->g;
	struct bp_pos p = *pp, c, canon;
	uint64_t cidx;
	int rc;
	(void)idx;
	if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
		return BP_OK;
	int n = g->ops->moves(g, &p, s->mv[worker]);
	for (int i = 0; i < n; i++) {
		c = p;
		g->ops->apply(g, &c, s->mv[worker][i]);
		bp_game_canonical(g, &c, &canon);
		uint32_t ct = g->ops->tier(g, &canon);
		if (ct <= s->t || ct >= s->nt) {
			snprintf(s->errmsg, sizeof s->errmsg,
				 "a move from tier %u leads to tier %u: the game's "
				 "tiers are not monotone",
				 s->t, ct);
			return BP_EINVAL;
		}
		if ((rc = g->ops->rank(g, &canon, &cidx)))
			return rc;
		__atomic_fetch_or(&s->tiers[ct].reach[cidx / 64], 1ull << (cidx % 64),
				  __ATOMIC_RELAXED);
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
	uint64_t i0 = item * CHUNK_WORDS * 64, i1 = i0 + CHUNK_WORDS * 64;
	if (i1 > tt->size)
		i1 = tt->size;
	struct bp_pos p, canon;
	for (uint64_t idx = i0; idx < i1; idx++) {
		int rc = g->ops->unrank(g, s->t, idx, &p);
		if (rc == BP_ENOTFOUND)
			continue;
		if (rc)
			return rc;
		bp_game_canonical(g, &p, &canon);
		if (bp_pos_equal(&p, &canon))
			tt->reach[idx / 64] |= 1ull << (idx % 64); /* words are the chunk's own */
	}
	return BP_OK;
}

static int load_tier(struct solve *s, uint32_t t);

/* The records of tier t, reading them from the table the first time. */
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

/* ---- 2. solving a tier ------------------------------------------------------ */

static int solve_one(struct solve *s, int worker, uint64_t idx, const struct bp_pos *pp)
{
	const struct bp_game *g = s->g;
	struct tier *tt = &s->tiers[s->t];
	struct bp_pos p = *pp, c, canon;
	uint64_t cidx;
	int rc;
	enum bp_value v = g->ops->outcome(g, &p);
	unsigned rem = 0;
	if (v == BP_VALUE_NONE) {
		int n = g->ops->moves(g, &p, s->mv[worker]);
		uint32_t best = 0;
		for (int i = 0; i < n; i++) {
			c = p;
			g->ops->apply(g, &c, s->mv[worker][i]);
			bp_game_canonical(g, &c, &canon);
			uint32_t ct = g->ops->tier(g, &canon);
			if ((rc = g->ops->rank(g, &canon, &cidx)))
				return rc;
			const uint16_t *crec = child_tier(s, ct, &rc);
			if (rc)
				return rc;
			uint16_t r = crec ? crec[cidx] : 0;
			if (bp_record_value(r) == BP_VALUE_NONE) {
				snprintf(s->errmsg, sizeof s->errmsg,
					 "tier %u index %llu: a child in tier %u "
					 "is not solved",
					 s->t, (unsigned long long)idx, ct);
				return BP_EINVAL;
			}
			uint32_t key = bp_solve_child_key(r);
			best = key > best ? key : best;
		}
		if (n == 0) {
			snprintf(s->errmsg, sizeof s->errmsg,
				 "tier %u index %llu: the game goes on but there is no move", s->t,
				 (unsigned long long)idx);
			return BP_EINVAL;
		}
		v = bp_solve_value_of_key(best, &rem);
	}
	if (rem >= BP_RECORD_NO_REMOTENESS) {
		snprintf(s->errmsg, sizeof s->errmsg, "remoteness %u is too large to store", rem);
		return BP_ERANGE;
	}
	tt->rec[idx] = bp_record_make(v, rem);
	s->counts[worker][v]++;
	return BP_OK;
}

static int solve_chunk(void *ctx, int worker, uint64_t item)
{
	return each_marked(ctx, worker, item, solve_one);
}

/* This rank's work items of tier t: [*c0, *c1). Item c covers indices
 * [c * CHUNK_WORDS * 64, (c + 1) * CHUNK_WORDS * 64). */
static void my_chunks(const struct solve *s, uint32_t t, uint64_t *c0, uint64_t *c1)
{
	uint64_t n = chunks_of(s->tiers[t].size);
	uint64_t r = s->dist ? (uint64_t)s->dist->rank : 0,
		 nr = s->dist ? (uint64_t)s->dist->nranks : 1;
	*c0 = n * r / nr;
	*c1 = n * (r + 1) / nr;
}

static int shifted(void *ctx, int worker, uint64_t item)
{
	struct solve *s = ctx;
	return s->fn(ctx, worker, item + s->chunk0);
}

static int run_tier(struct solve *s, uint32_t t, int phase, int (*fn)(void *, int, uint64_t))
{
	uint64_t c0, c1;
	s->t = t;
	s->fn = fn;
	my_chunks(s, t, &c0, &c1);
	s->chunk0 = c0;
	return bp_solve_metered(&s->meter, phase, t, s->nt, s->threads, c1 - c0, CHUNK_WORDS * 64,
				s->tiers[t].size, shifted, s);
}

/* Across ranks (a no-op in one process): every rank learns whether any failed, with n
 * counters of extra summed along. Collective. @return rc; BP_EIO when only another
 * rank failed. */
static int agree(struct solve *s, int rc, uint64_t *extra, int n)
{
	if (!s->dist)
		return rc;
	uint64_t v[8] = { rc != 0 };
	for (int i = 0; i < n; i++)
		v[1 + i] = extra[i];
	int crc = s->dist->sum(s->dist->ctx, v, n + 1);
	if (crc) {
		snprintf(s->errmsg, sizeof s->errmsg, "combining across ranks: %s",
			 bp_strerror(crc));
		return crc;
	}
	for (int i = 0; i < n; i++)
		extra[i] = v[1 + i];
	if (rc)
		return rc;
	if (v[0]) {
		snprintf(s->errmsg, sizeof s->errmsg, "%llu other rank%s failed",
			 (unsigned long long)v[0], v[0] == 1 ? "" : "s");
		return BP_EIO;
	}
	return BP_OK;
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

/* Makes tier t's records available in memory. */
static int load_tier(struct solve *s, uint32_t t)
{
	struct tier *tt = &s->tiers[t];
	if (tt->rec)
		return BP_OK;
	uint16_t *rec = malloc(sizeof(uint16_t) * (tt->size ? tt->size : 1));
	if (!rec)
		return BP_ENOMEM;
	int rc = bp_table_get_tier(s->tab, t, rec);
	if (rc == BP_ENOTFOUND && !is_writer(s) && (rc = reopen_table(s)) == BP_OK)
		rc = bp_table_get_tier(s->tab, t, rec);
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
	*bytes = BP_SOLVE_BASE_MEMORY + bits + window;
	return BP_OK;
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
		bits += 4096 * pages_marked(s->tiers[t].reach, s->tiers[t].size / 64 + 1, 512);
	for (uint32_t t = st; t < s->nt; t++) {
		if (s->tiers[t].done)
			continue;
		uint64_t w = 0;
		for (uint32_t c = t; c < s->nt; c++) {
			const struct tier *tc = &s->tiers[c];
			if (c > t && (tc->lastuse == UINT32_MAX || tc->lastuse > t))
				continue;
			w += tc->done ? bp_solve_pages(sizeof(uint16_t) * tc->size)
				      : 4096 * pages_marked(tc->reach, tc->size / 64 + 1, 32);
		}
		peak = w > peak ? w : peak;
	}
	return BP_SOLVE_BASE_MEMORY + bits + peak;
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
			   .load_lock = PTHREAD_MUTEX_INITIALIZER };
	uint64_t *sizes = NULL, *done_count = NULL, *bounds = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = bp_solve_plan(g, bp_solve_tiers_estimate, opts, &out->memory_estimate, err)))
		return rc;
	s.threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	s.tiers = calloc(s.nt, sizeof *s.tiers);
	sizes = calloc(s.nt, sizeof *sizes);
	s.succ_words = (s.nt + 63) / 64;
	s.succ = calloc((size_t)s.nt * s.succ_words, sizeof(uint64_t));
	s.mv = bp_solve_move_buffers(g, s.threads);
	s.counts = aligned_alloc(64, (size_t)s.threads * sizeof *s.counts);
	s.sizes = sizes;
	if (s.dist && !(bounds = calloc((size_t)s.dist->nranks + 1, sizeof *bounds)))
		rc = BP_ENOMEM;
	if (!s.tiers || !sizes || !s.succ || !s.mv || !s.counts || rc) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < s.nt; t++) {
		g->ops->tier_size(g, t, &s.tiers[t].size);
		sizes[t] = s.tiers[t].size;
		s.tiers[t].lastuse = UINT32_MAX;
		s.tiers[t].reach = calloc(s.tiers[t].size / 64 + 1, sizeof(uint64_t));
		if (!s.tiers[t].reach) {
			rc = BP_ENOMEM;
			goto out;
		}
	}
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
	if ((rc = bp_table_meta_get(s.tab, &meta)))
		goto out;
	double prior_seconds = meta.seconds;
	/* meta's pointers die at the first write */
	if (!(done_count = malloc(sizeof(uint64_t) * 4 * s.nt))) {
		rc = BP_ENOMEM;
		goto out;
	}
	memcpy(done_count, meta.tier_count, sizeof(uint64_t) * 4 * s.nt);
	for (uint32_t t = 0; t < s.nt; t++)
		s.tiers[t].done = meta.tier_done[t];

	/* 1. reachability */
	uint32_t st;
	uint64_t sidx;
	int dense = (g->ops->flags & BP_GAME_DENSE_REACHABLE) != 0;
	if ((rc = bp_solve_start(g, &st, &sidx)))
		goto out;
	s.tiers[st].reach[sidx / 64] |= 1ull << (sidx % 64);
	/* a dense game skips this pass: each tier is marked just before it is solved, and
	 * tier t is assumed to be needed by tier t - 1 only (any other tier it is needed
	 * by reads it back from the table) */
	for (uint32_t t = 0; dense && t < s.nt; t++)
		s.tiers[t].lastuse = t ? t - 1 : UINT32_MAX;
	s.meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	for (uint32_t t = st; !dense && t < s.nt; t++)
		s.meter.phase_total += s.tiers[t].size;
	for (uint32_t t = st; !dense && t < s.nt; t++) {
		/* every rank marked what its share of the tiers below reached */
		if (s.dist && (rc = s.dist->reduce_or(s.dist->ctx, s.tiers[t].reach,
						      s.tiers[t].size / 64 + 1)))
			goto out;
		if ((rc = agree(&s, run_tier(&s, t, 0, forward_chunk), NULL, 0)))
			goto out;
		if (opts->progress) {
			struct bp_solve_progress pr = { .phase = 0,
							.tier = t,
							.ntiers = s.nt,
							.seconds = bp_solve_clock() - t0 };
			for (uint64_t w = 0; w <= s.tiers[t].size / 64; w++)
				pr.positions += (uint64_t)__builtin_popcountll(s.tiers[t].reach[w]);
			opts->progress(opts->ctx, &pr);
		}
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
	for (uint32_t t = st; t < s.nt; t++)
		s.meter.phase_total += s.tiers[t].done ? 0 : s.tiers[t].size;
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
			if (!rc && !(tt->rec = calloc(tt->size ? tt->size : 1, sizeof(uint16_t))))
				rc = BP_ENOMEM;
			memset(s.counts, 0, sizeof *s.counts * (size_t)s.threads);
			if (!rc)
				rc = run_tier(&s, t, 1, solve_chunk);
			uint64_t tc[4] = { 0 };
			for (int i = 0; i < s.threads; i++)
				for (int v = 0; v < 4; v++)
					tc[v] += s.counts[i][v];
			/* every rank's share of the tier's records to every rank; then rank 0
			 * stores the tier, and the others wait for it */
			if ((rc = agree(&s, rc, tc, 4)))
				goto out;
			if (s.dist) {
				for (int r = 0; r <= s.dist->nranks; r++) {
					uint64_t c0 = chunks_of(tt->size) * (uint64_t)r /
						      (uint64_t)s.dist->nranks;
					uint64_t i0 = c0 * CHUNK_WORDS * 64;
					bounds[r] = i0 < tt->size ? i0 : tt->size;
				}
				if ((rc = s.dist->gather(s.dist->ctx, tt->rec, bounds)))
					goto out;
			}
			if (is_writer(&s))
				rc = bp_solve_put_tier(g, s.tab, t, tt->rec, s.threads,
						       prior_seconds + (bp_solve_clock() - t0), out,
						       s.errmsg, sizeof s.errmsg);
			else
				rc = bp_game_status(g);
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
	bp_table_close(s.tab);
	if (s.tiers)
		for (uint32_t t = 0; t < s.nt; t++) {
			free(s.tiers[t].reach);
			free(s.tiers[t].rec);
		}
	bp_solve_free_move_buffers(s.mv, s.threads);
	free(s.counts);
	free(s.succ);
	free(s.tiers);
	free(sizes);
	free(bounds);
	free(done_count);
	return rc;
}
