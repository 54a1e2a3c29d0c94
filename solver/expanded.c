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
 * it needs it. Memory: two tiers of 16-bit records at a time (4.8 GiB for taifas:4x5);
 * three where moves may raise the tier by two (BP_GAME_TIER_SKIP, Chicken's pairs).
 *
 * A game whose walk cannot tell reached positions from valid ones
 * (BP_GAME_WALK_UNREACHED) gets a forward pass first, as the tiers engine's: one bit
 * per index of every tier, tiers upwards; a canonical position is reached when its bit
 * or one of its images' bits is set, and then sets its children's bits. The solve
 * skips canonical positions whose bit is clear, so the table is the tiers engine's.
 *
 * The result is the same table as solver/retrograde.c's; the tests compare content
 * hashes of both, and `solve --solver tiers` runs the other path (solver/solve.h). */
#include "solver/expanded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"

#define CHUNK ((uint64_t)1 << 16) /* indices a work item covers */

struct expanded {
	const struct bp_game *g;
	bp_table *tab;
	uint32_t nt, t; /* tiers; the one being worked on */
	uint64_t *size;
	uint16_t **rec; /* per tier, or NULL when not in memory */
	/* two buffers of the largest tier's size, used in turn (tier t: buf[t & 1]), so
	 * that memory is faulted in once, not once per tier */
	uint16_t *buf[3];
	int span;	  /* 1, or 2 with BP_GAME_TIER_SKIP: the child tiers kept */
	uint64_t **reach; /* per tier, with BP_GAME_WALK_UNREACHED: reached bits */
	uint64_t most;
	uint8_t *done;		   /* per tier: found stored when the solve began */
	uint64_t (*done_count)[4]; /* and its counts per value */
	int threads;
	uint64_t (*counts)[4];	     /* per worker */
	struct bp_solve_meter meter; /* cancel and ticks inside a tier */
	char errmsg[200];
};

struct worker {
	struct expanded *x;
	int id;
	uint16_t *rec;	      /* the tier being worked on */
	const uint16_t *crec; /* its children's tier, expanded */
	const uint16_t *frec; /* the tier above that (far children), expanded */
	uint64_t counts[4];   /* positions per value, added to x->counts at the end (the
			       * workers' rows share a cache line) */
};

/* A tier's records, zeroed, on transparent huge pages where the system allows them:
 * children are read all over a tier, and 2 MiB pages keep the TLB from missing. */
static uint16_t *records_alloc(uint64_t n)
{
	size_t bytes = sizeof(uint16_t) * (n ? n : 1);
	uint16_t *r = calloc(1, bytes);
#ifdef MADV_HUGEPAGE
	uintptr_t from = ((uintptr_t)r + 4095) & ~(uintptr_t)4095;
	uintptr_t to = ((uintptr_t)r + bytes) & ~(uintptr_t)4095;
	if (r && to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE); /* only a hint */
#endif
	return r;
}

static int solve_visit(void *ctx, const struct bp_walk *w)
{
	struct worker *k = ctx;
	struct expanded *x = k->x;
	enum bp_value v;
	unsigned rem = 0;
	if (x->reach && !(x->reach[x->t][w->index / 64] >> (w->index % 64) & 1))
		return BP_OK; /* never reached */
	if (w->nchildren < 0) {
		struct bp_pos p;
		int rc = x->g->ops->unrank(x->g, x->t, w->index, &p);
		if (rc)
			return rc;
		v = x->g->ops->outcome(x->g, &p);
	} else {
		uint32_t best = 0, unsolved = 0;
		for (int i = 0; i < w->nchildren; i++) {
			uint16_t r = k->crec[w->children[i]];
			uint32_t key = bp_solve_child_key(r);
			unsolved |= (r & 3u) == 0;
			best = key > best ? key : best;
		}
		for (int i = 0; i < w->nfar; i++) {
			uint16_t r = k->frec[w->far[i]];
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
	if (rem >= BP_RECORD_NO_REMOTENESS) {
		snprintf(x->errmsg, sizeof x->errmsg, "remoteness %u is too large to store", rem);
		return BP_ERANGE;
	}
	k->rec[w->index] = bp_record_make(v, rem);
	k->counts[v]++;
	return BP_OK;
}

static int expand_visit(void *ctx, const struct bp_walk *w)
{
	struct worker *k = ctx;
	uint16_t r = k->rec[w->index];
	for (int i = 0; i < w->nimages; i++)
		k->rec[w->images[i]] = r;
	return BP_OK;
}

static int bit_get(const uint64_t *bits, uint64_t i)
{
	return (int)(__atomic_load_n(&bits[i / 64], __ATOMIC_RELAXED) >> (i % 64) & 1);
}

static void bit_set(uint64_t *bits, uint64_t i)
{
	__atomic_fetch_or(&bits[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
}

/* The forward pass: a class is reached when any member's bit is set (its children
 * were marked raw, not canonicalized); then its canonical bit is set and its
 * children's bits too. Classes share no member, so workers decide disjoint classes;
 * the children's bits lie in the tiers above, set atomically. */
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
	bit_set(x->reach[t], w->index);
	k->counts[1]++;
	for (int i = 0; i < w->nchildren; i++)
		bit_set(x->reach[t + 1], w->children[i]);
	for (int i = 0; i < w->nfar; i++)
		bit_set(x->reach[t + 2], w->far[i]);
	return BP_OK;
}

static uint64_t chunks(const struct expanded *x)
{
	return (x->size[x->t] + CHUNK - 1) / CHUNK;
}

static int walk_chunk(struct expanded *x, int id, uint64_t item, unsigned what,
		      int (*visit)(void *, const struct bp_walk *))
{
	uint32_t t = x->t;
	struct worker k = { .x = x,
			    .id = id,
			    .rec = x->rec[t],
			    .crec = t + 1 < x->nt ? x->rec[t + 1] : NULL,
			    .frec = t + 2 < x->nt ? x->rec[t + 2] : NULL };
	uint64_t lo = item * CHUNK, hi = lo + CHUNK < x->size[t] ? lo + CHUNK : x->size[t];
	int rc = x->g->ops->tier_walk(x->g, t, lo, hi, what, visit, &k);
	for (int v = 0; v < 4; v++)
		x->counts[id][v] += k.counts[v];
	return rc;
}

/* Solving a chunk starts by clearing it: records of non-canonical indices stay 0. */
static int solve_chunk(void *ctx, int id, uint64_t item)
{
	struct expanded *x = ctx;
	uint64_t lo = item * CHUNK, hi = lo + CHUNK < x->size[x->t] ? lo + CHUNK : x->size[x->t];
	memset(x->rec[x->t] + lo, 0, sizeof(uint16_t) * (hi - lo));
	return walk_chunk(ctx, id, item, BP_WALK_CHILDREN, solve_visit);
}

static int expand_chunk(void *ctx, int id, uint64_t item)
{
	return walk_chunk(ctx, id, item, BP_WALK_IMAGES, expand_visit);
}

static int reach_chunk(void *ctx, int id, uint64_t item)
{
	return walk_chunk(ctx, id, item, BP_WALK_CHILDREN | BP_WALK_IMAGES, reach_visit);
}

/* Copies each canonical record of tier t to the rest of its class. Two classes share
 * no member, so the workers write disjoint records. */
static int expand(struct expanded *x, uint32_t t)
{
	x->t = t;
	return bp_parallel_for(x->threads, chunks(x), expand_chunk, x);
}

/* The buffer for tier t's records (contents undefined). */
static int take_buffer(struct expanded *x, uint32_t t)
{
	uint16_t **b = &x->buf[t % (uint32_t)(x->span + 1)];
	if (!*b && !(*b = records_alloc(x->most)))
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
	if ((rc = take_buffer(x, t)))
		return rc;
	rc = bp_table_get_tier(x->tab, t, x->rec[t]);
	if (rc) {
		snprintf(x->errmsg, sizeof x->errmsg, "reading stored tier %u: %s", t,
			 bp_strerror(rc));
		return rc;
	}
	return expand(x, t);
}

static void drop(struct expanded *x, uint32_t t)
{
	x->rec[t] = NULL;
}

/* What the solve allocates and writes: buffer i holds the tiers t with t % nbuf == i
 * in turn, and each is written in full (cleared chunk by chunk, or read back), so it
 * grows to the largest of them; the reached bits, one per index of every tier; the
 * base. Resumed tiers that no solved tier needs are never loaded, so this is the
 * most a solve touches. */
static int estimate(const struct bp_game *g, uint64_t *bytes)
{
	uint64_t most[3] = { 0, 0, 0 }, bits = 0;
	if (!g->ops->tier_size || g->ntiers == 0)
		return BP_EUNSUPPORTED;
	const uint32_t nbuf = g->ops->flags & BP_GAME_TIER_SKIP ? 3 : 2;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz;
		int rc = g->ops->tier_size(g, t, &sz);
		if (rc)
			return rc;
		most[t % nbuf] = sz > most[t % nbuf] ? sz : most[t % nbuf];
		bits += bp_solve_pages(8 * (sz / 64 + 1));
	}
	*bytes = BP_SOLVE_BASE_MEMORY;
	for (uint32_t i = 0; i < nbuf; i++)
		*bytes += bp_solve_pages(sizeof(uint16_t) * most[i]);
	if (g->ops->flags & BP_GAME_WALK_UNREACHED)
		*bytes += bits;
	return BP_OK;
}

/* The forward pass of BP_GAME_WALK_UNREACHED games, tiers upwards from the start's. */
static int mark_reached(struct expanded *x, uint32_t st, uint64_t sidx, double t0)
{
	const struct bp_solve_opts *opts = x->meter.o;
	int rc;
	for (uint32_t t = 0; t < x->nt; t++)
		if (!(x->reach[t] = calloc(x->size[t] / 64 + 1, sizeof(uint64_t))))
			return BP_ENOMEM;
	bit_set(x->reach[st], sidx);
	for (uint32_t t = st; t < x->nt; t++)
		x->meter.phase_total += x->size[t];
	for (uint32_t t = st; t < x->nt; t++) {
		memset(x->counts, 0, sizeof *x->counts * (size_t)x->threads);
		x->t = t;
		if ((rc = bp_solve_metered(&x->meter, 0, t, x->nt, x->threads, chunks(x), CHUNK,
					   x->size[t], reach_chunk, x)))
			return rc;
		if (opts->progress) {
			struct bp_solve_progress pr = { .phase = 0,
							.tier = t,
							.ntiers = x->nt,
							.seconds = bp_solve_clock() - t0 };
			for (int i = 0; i < x->threads; i++)
				pr.positions += x->counts[i][1];
			opts->progress(opts->ctx, &pr);
		}
	}
	x->meter.phase_done = x->meter.phase_total = 0;
	return BP_OK;
}

int bp_solve_walk(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		  struct bp_solve_result *out, struct bp_err *err)
{
	int rc;
	double t0 = bp_solve_clock();
	struct expanded x = { .g = g,
			      .nt = g->ntiers,
			      .span = g->ops->flags & BP_GAME_TIER_SKIP ? 2 : 1 };
	memset(out, 0, sizeof *out);
	if ((rc = bp_solve_plan(g, estimate, opts, &out->memory_estimate, err)))
		return rc;
	x.threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	x.size = calloc(x.nt, sizeof *x.size);
	x.rec = calloc(x.nt, sizeof *x.rec);
	x.done = calloc(x.nt, sizeof *x.done);
	x.done_count = calloc(x.nt, sizeof *x.done_count);
	x.counts = calloc((size_t)x.threads, sizeof *x.counts);
	if (!x.size || !x.rec || !x.done || !x.done_count || !x.counts) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < x.nt; t++) {
		g->ops->tier_size(g, t, &x.size[t]);
		x.most = x.size[t] > x.most ? x.size[t] : x.most;
	}
	rc = bp_solve_open_table(g, db, x.size, opts, 1, &x.tab, err);
	if (rc)
		goto out_quiet;
	struct bp_table_meta meta;
	if ((rc = bp_table_meta_get(x.tab, &meta)))
		goto out;
	double prior_seconds = meta.seconds;
	/* meta's pointers die at the first write */
	memcpy(x.done, meta.tier_done, x.nt);
	memcpy(x.done_count, meta.tier_count, x.nt * sizeof *x.done_count);

	uint32_t st;
	uint64_t sidx;
	if ((rc = bp_solve_start(g, &st, &sidx)))
		goto out;

	x.meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	if (g->ops->flags & BP_GAME_WALK_UNREACHED) {
		if (!(x.reach = calloc(x.nt, sizeof *x.reach))) {
			rc = BP_ENOMEM;
			goto out;
		}
		if ((rc = mark_reached(&x, st, sidx, t0)))
			goto out;
	}
	for (uint32_t t = st; t < x.nt; t++)
		x.meter.phase_total += x.done[t] ? 0 : x.size[t];
	for (uint32_t t = x.nt; t-- > st;) {
		struct bp_solve_progress pr = { .phase = 1, .tier = t, .ntiers = x.nt };
		if (x.done[t]) {
			out->resumed_tiers++;
			bp_solve_add_counts(x.done_count[t], out, &pr);
			pr.resumed = 1;
		} else {
			for (uint32_t d = 1; d <= (uint32_t)x.span && t + d < x.nt; d++)
				if ((rc = load_expanded(&x, t + d)))
					goto out;
			if ((rc = take_buffer(&x, t)))
				goto out;
			memset(x.counts, 0, sizeof *x.counts * (size_t)x.threads);
			x.t = t;
			if ((rc = bp_solve_metered(&x.meter, 1, t, x.nt, x.threads, chunks(&x),
						   CHUNK, x.size[t], solve_chunk, &x)))
				goto out;
			uint64_t tc[4] = { 0 };
			for (int i = 0; i < x.threads; i++)
				for (int v = 0; v < 4; v++)
					tc[v] += x.counts[i][v];
			if ((rc = bp_solve_put_tier(x.g, x.tab, t, x.rec[t], x.threads,
						    prior_seconds + (bp_solve_clock() - t0), out,
						    x.errmsg, sizeof x.errmsg)))
				goto out;
			out->solved_tiers++;
			bp_solve_add_counts(tc, out, &pr);
			/* tier t is needed by the tiers t - span .. t - 1 still to solve */
			int needed = 0;
			for (uint32_t d = 1; d <= (uint32_t)x.span && d <= t - st; d++)
				needed |= !x.done[t - d];
			if (needed && (rc = expand(&x, t)))
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
	if ((rc = bp_table_get(x.tab, st, sidx, &r)) || (rc = bp_solve_finish(x.tab, r, out)))
		goto out;
out:
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, x.errmsg[0] ? x.errmsg : bp_strerror(rc));
out_quiet:
	out->seconds = bp_solve_clock() - t0;
	out->peak_memory = bp_solve_peak_memory();
	bp_table_close(x.tab);
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
