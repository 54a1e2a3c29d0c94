/* SPDX-License-Identifier: MIT */
/* Level-synchronous retrograde analysis, for games with cycles.
 *
 * 1. Reachable canonical positions are marked to a fixpoint: each pass expands the
 *    marked positions not yet expanded, until a pass expands none.
 * 2. Terminal positions get their outcome and remoteness 0. Then pass k = 1, 2, ...
 *    resolves exactly the positions of remoteness k:
 *        win  in k  when some child is a loss in k - 1,
 *        loss in k  when every child is a win and the slowest is a win in k - 1.
 *    By induction every loss and win of remoteness below k is resolved before pass
 *    k, so the first time either rule applies gives the right remoteness, and a
 *    record written during pass k (remoteness k) never satisfies a rule of pass k.
 *    The passes stop when one resolves nothing: no position can then have a larger
 *    remoteness. This needs no predecessor lists and no child counters, at the cost
 *    of one sweep per remoteness level; for the small cyclic instances that fit in
 *    memory at all, that trade keeps memory at two bytes a position.
 * 3. What is left has no losing child and not only winning children: a draw. Its
 *    remoteness is the fewest turns to a terminal draw through draws, found by the
 *    same kind of passes; a draw that never reaches one is a draw by repetition. */
#include "solver/cyclic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/parallel.h"
#include "solver/solve_common.h"

#define CHUNK_WORDS 1024

struct ctier {
	uint64_t size;
	uint64_t *reach, *expanded;
	uint16_t *rec;
};

struct csolve {
	const struct bp_game *g;
	struct ctier *tiers;
	uint32_t nt;
	uint64_t *chunk_start; /* first global chunk of each tier; [nt] = total */
	struct bp_move **mv;
	int phase;		     /* what a pass does: see pass_chunk */
	unsigned level;		     /* the remoteness being resolved */
	uint64_t (*changed)[8];	     /* per worker, [0]; a cache line each (no false sharing) */
	struct bp_solve_meter meter; /* cancel and ticks inside a pass */
	uint32_t passes;	     /* run so far */
	char errmsg[200];
};

enum { EXPAND, TERMINAL, WINLOSS, DRAWS, REPETITION };

static uint16_t load(const uint16_t *r)
{
	return __atomic_load_n(r, __ATOMIC_RELAXED);
}

static void store(uint16_t *r, uint16_t v)
{
	__atomic_store_n(r, v, __ATOMIC_RELAXED);
}

/* The record of p's canonical form; sets *rc on error. */
static uint16_t child_record(struct csolve *s, const struct bp_pos *c, int *rc)
{
	struct bp_pos canon;
	uint64_t idx;
	bp_game_canonical(s->g, c, &canon);
	uint32_t t = s->g->ops->tier(s->g, &canon);
	if ((*rc = s->g->ops->rank(s->g, &canon, &idx)))
		return 0;
	return load(&s->tiers[t].rec[idx]);
}

static int visit(struct csolve *s, int worker, uint32_t t, uint64_t idx)
{
	const struct bp_game *g = s->g;
	struct ctier *tt = &s->tiers[t];
	struct bp_pos p, c, canon;
	int rc = g->ops->unrank(g, t, idx, &p);
	if (rc)
		return rc;
	if (s->phase == EXPAND) {
		__atomic_fetch_or(&tt->expanded[idx / 64], 1ull << (idx % 64), __ATOMIC_RELAXED);
		s->changed[worker][0]++;
		if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
			return BP_OK;
		int n = g->ops->moves(g, &p, s->mv[worker]);
		for (int i = 0; i < n; i++) {
			uint64_t cidx;
			c = p;
			g->ops->apply(g, &c, s->mv[worker][i]);
			bp_game_canonical(g, &c, &canon);
			uint32_t ct = g->ops->tier(g, &canon);
			if (ct >= s->nt || (rc = g->ops->rank(g, &canon, &cidx)))
				return rc ? rc : BP_EINVAL;
			__atomic_fetch_or(&s->tiers[ct].reach[cidx / 64], 1ull << (cidx % 64),
					  __ATOMIC_RELAXED);
		}
		return BP_OK;
	}
	if (s->phase == TERMINAL) {
		enum bp_value v = g->ops->outcome(g, &p);
		if (v != BP_VALUE_NONE) {
			store(&tt->rec[idx], bp_record_make(v, 0));
			s->changed[worker][0]++;
		}
		return BP_OK;
	}
	if (load(&tt->rec[idx]))
		return BP_OK;
	if (s->phase == REPETITION) {
		store(&tt->rec[idx], bp_record_make(BP_VALUE_DRAW, BP_RECORD_NO_REMOTENESS));
		s->changed[worker][0]++;
		return BP_OK;
	}
	int n = g->ops->moves(g, &p, s->mv[worker]);
	int all_won = 1, hit = 0;
	unsigned max_win = 0;
	for (int i = 0; i < n; i++) {
		c = p;
		g->ops->apply(g, &c, s->mv[worker][i]);
		uint16_t r = child_record(s, &c, &rc);
		if (rc)
			return rc;
		unsigned v = bp_record_value(r), rem = bp_record_remoteness(r);
		if (s->phase == WINLOSS) {
			if (v == BP_VALUE_LOSS && rem == s->level - 1) {
				store(&tt->rec[idx], bp_record_make(BP_VALUE_WIN, s->level));
				s->changed[worker][0]++;
				return BP_OK;
			}
			if (v != BP_VALUE_WIN)
				all_won = 0;
			else if (rem > max_win)
				max_win = rem;
		} else if (v == BP_VALUE_DRAW && rem == s->level - 1) { /* DRAWS */
			hit = 1;
		}
	}
	if (s->phase == WINLOSS && all_won && n > 0 && max_win == s->level - 1) {
		store(&tt->rec[idx], bp_record_make(BP_VALUE_LOSS, s->level));
		s->changed[worker][0]++;
	} else if (s->phase == DRAWS && hit) {
		store(&tt->rec[idx], bp_record_make(BP_VALUE_DRAW, s->level));
		s->changed[worker][0]++;
	}
	return BP_OK;
}

static int pass_chunk(void *ctx, int worker, uint64_t item)
{
	struct csolve *s = ctx;
	uint32_t t = 0;
	while (item >= s->chunk_start[t + 1])
		t++;
	struct ctier *tt = &s->tiers[t];
	uint64_t w0 = (item - s->chunk_start[t]) * CHUNK_WORDS, w1 = w0 + CHUNK_WORDS;
	if (w1 > tt->size / 64 + 1)
		w1 = tt->size / 64 + 1;
	for (uint64_t wi = w0; wi < w1; wi++) {
		uint64_t w = tt->reach[wi];
		if (s->phase == EXPAND)
			w &= ~__atomic_load_n(&tt->expanded[wi], __ATOMIC_RELAXED);
		for (; w; w &= w - 1) {
			int rc = visit(s, worker, t, wi * 64 + (uint64_t)__builtin_ctzll(w));
			if (rc)
				return rc;
		}
	}
	return BP_OK;
}

static uint64_t run_pass(struct csolve *s, int threads, int phase, unsigned level, int *rc)
{
	s->phase = phase;
	s->level = level;
	memset(s->changed, 0, sizeof *s->changed * (size_t)threads);
	uint64_t n = s->chunk_start[s->nt];
	*rc = bp_solve_metered(&s->meter, 2, ++s->passes, 0, threads, n, CHUNK_WORDS * 64,
			       n * CHUNK_WORDS * 64, pass_chunk, s);
	uint64_t total = 0;
	for (int i = 0; i < threads; i++)
		total += s->changed[i][0];
	return total;
}

int bp_solve_cycles_estimate(const struct bp_game *g, uint64_t *bytes)
{
	if (!g->ops->tier || !g->ops->tier_size || !g->ops->rank || !g->ops->unrank || !g->ntiers)
		return BP_EUNSUPPORTED;
	uint64_t total = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t sz;
		int rc = g->ops->tier_size(g, t, &sz);
		if (rc)
			return rc;
		/* records, reached and expanded bits, all written */
		total += bp_solve_pages(2 * sz) + 2 * bp_solve_pages(8 * (sz / 64 + 1));
	}
	*bytes = total + bp_solve_base_memory(g);
	return BP_OK;
}

int bp_solve_cycles(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
		    struct bp_solve_result *out, struct bp_err *err)
{
	double t0 = bp_solve_clock();
	int rc, threads = opts->threads > 0 ? opts->threads : bp_parallel_cores();
	struct csolve s = { .g = g, .nt = g->ntiers };
	bp_table *tab = NULL;
	uint64_t *sizes = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = bp_solve_plan(g, bp_solve_cycles_estimate, opts, &out->memory_estimate, err)))
		return rc;
	s.tiers = calloc(s.nt, sizeof *s.tiers);
	s.chunk_start = calloc(s.nt + 1, sizeof *s.chunk_start);
	sizes = calloc(s.nt, sizeof *sizes);
	s.mv = bp_solve_move_buffers(g, threads);
	s.changed = aligned_alloc(64, (size_t)threads * sizeof *s.changed);
	if (!s.tiers || !s.chunk_start || !sizes || !s.mv || !s.changed) {
		rc = BP_ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < s.nt; t++) {
		struct ctier *tt = &s.tiers[t];
		g->ops->tier_size(g, t, &tt->size);
		sizes[t] = tt->size;
		s.chunk_start[t + 1] =
			s.chunk_start[t] + (tt->size / 64 + CHUNK_WORDS) / CHUNK_WORDS;
		tt->reach = calloc(tt->size / 64 + 1, sizeof(uint64_t));
		tt->expanded = calloc(tt->size / 64 + 1, sizeof(uint64_t));
		tt->rec = calloc(tt->size ? tt->size : 1, sizeof(uint16_t));
		if (!tt->reach || !tt->expanded || !tt->rec) {
			rc = BP_ENOMEM;
			goto out;
		}
	}
	if ((rc = bp_solve_open_table(g, db, sizes, opts, 1, &tab, err)))
		goto out_quiet;

	uint32_t st;
	uint64_t sidx;
	if ((rc = bp_solve_start(g, &st, &sidx)))
		goto out;
	int done;
	if ((rc = bp_solve_if_stored(tab, s.nt, st, sidx, out, &done)) || done)
		goto out;
	s.meter = (struct bp_solve_meter){ .o = opts, .t0 = t0 };
	s.tiers[st].reach[sidx / 64] |= 1ull << (sidx % 64);
	while (run_pass(&s, threads, EXPAND, 0, &rc) && !rc)
		;
	if (rc)
		goto out;
	run_pass(&s, threads, TERMINAL, 0, &rc);
	for (unsigned k = 1; !rc; k++) {
		if (k >= BP_RECORD_NO_REMOTENESS) {
			snprintf(s.errmsg, sizeof s.errmsg, "remoteness %u is too large to store",
				 k);
			rc = BP_ERANGE;
			break;
		}
		if (!run_pass(&s, threads, WINLOSS, k, &rc))
			break;
		if (opts->progress) {
			struct bp_solve_progress pr = {
				.phase = 1, .tier = k, .ntiers = 0, .seconds = bp_solve_clock() - t0
			};
			opts->progress(opts->ctx, &pr);
		}
	}
	for (unsigned k = 1; !rc && run_pass(&s, threads, DRAWS, k, &rc); k++)
		if (k + 1 >= BP_RECORD_NO_REMOTENESS) {
			rc = BP_ERANGE;
			break;
		}
	if (!rc)
		run_pass(&s, threads, REPETITION, 0, &rc);
	if (!rc && (rc = bp_game_status(g)))
		snprintf(s.errmsg, sizeof s.errmsg, "a rule failed: %s", bp_strerror(rc));
	if (rc)
		goto out;
	for (uint32_t t = 0; t < s.nt; t++) {
		struct ctier *tt = &s.tiers[t];
		for (uint64_t i = 0; i < tt->size; i++)
			out->counts[bp_record_value(tt->rec[i])]++;
		if ((rc = bp_table_put_tier(tab, t, tt->rec, bp_solve_clock() - t0,
					    bp_solve_peak_memory(), "solver=cyclic\n"))) {
			bp_solve_write_error(tab, t, rc, s.errmsg, sizeof s.errmsg);
			goto out;
		}
		out->solved_tiers++;
	}
	out->counts[0] = 0;
	if ((rc = bp_solve_finish(tab, s.tiers[st].rec[sidx], out)))
		goto out;
out:
	if (rc && err)
		bp_err_set(err, rc, "%s: %s", g->spec, s.errmsg[0] ? s.errmsg : bp_strerror(rc));
out_quiet:
	out->seconds = bp_solve_clock() - t0;
	out->peak_memory = bp_solve_peak_memory();
	bp_table_close(tab);
	if (s.tiers)
		for (uint32_t t = 0; t < s.nt; t++) {
			free(s.tiers[t].reach);
			free(s.tiers[t].expanded);
			free(s.tiers[t].rec);
		}
	bp_solve_free_move_buffers(s.mv, threads);
	free(s.changed);
	free(s.chunk_start);
	free(s.tiers);
	free(sizes);
	return rc;
}
