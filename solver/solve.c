/* SPDX-License-Identifier: MIT */
/* The choice of engine, made once: the rules of bp_solve's comment, then a call. */
#include "solver/solve.h"

#include <string.h>

#include "solver/counter.h"
#include "solver/cyclic.h"
#include "solver/expanded.h"
#include "solver/retrograde.h"
#include "solver/solve_common.h"
#include "solver/sparse.h"

static const char *const names[] = { "auto", "tiers", "walk", "cycles", "counter" };

const char *bp_engine_name(enum bp_engine e)
{
	return (unsigned)e < sizeof names / sizeof names[0] ? names[e] : "unknown";
}

int bp_engine_parse(const char *name, enum bp_engine *out)
{
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i], name) == 0) {
			*out = (enum bp_engine)i;
			return BP_OK;
		}
	return BP_ENOTFOUND;
}

/* Auto for a game that repeats, under a memory limit: the counter engine, unless it
 * does not fit where the cycles engine does. The counter engine's need is known only
 * once its marking has counted the reachable graph (its bitmap alone, the need it
 * checks before any work, is less than the cycles engine's records and bitmaps), so
 * when it refuses (BP_ERANGE: while marking or with the exact counts, nothing stored)
 * the cycles engine, whose whole need is known up front, runs after it if it fits.
 * (A remoteness too large to store is BP_ERANGE too: the cycles engine then refuses
 * it in turn.) */
static int solve_repeating(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
			   struct bp_solve_result *out, struct bp_err *err)
{
	uint64_t cycles_need;
	int rc = bp_solve_counter(g, db, opts, out, err);
	out->engine = BP_ENGINE_COUNTER;
	if (rc != BP_ERANGE || bp_solve_cycles_estimate(g, &cycles_need) != BP_OK ||
	    cycles_need > opts->memory_limit)
		return rc;
	if (err)
		memset(err, 0, sizeof *err);
	rc = bp_solve_cycles(g, db, opts, out, err);
	out->engine = BP_ENGINE_CYCLES;
	return rc;
}

int bp_solve_sparse_wanted(const struct bp_game *g)
{
	return bp_sparse_wanted(g);
}

int bp_solve_remove_scratch(const struct bp_game *g, bp_store *db)
{
	return bp_solve_walk_remove_scratch(g, bp_store_path(db));
}

/* Whether g's table in db has stored a tier already (a solve begun, or done). */
static int table_begun(bp_store *db, const struct bp_game *g)
{
	bp_table *t = NULL;
	struct bp_table_meta m;
	int begun = 0;
	if (bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL) != BP_OK)
		return 0;
	if (bp_table_meta_get(t, &m) == BP_OK)
		for (uint32_t i = 0; i < m.ntiers; i++)
			begun |= m.tier_done[i] != 0;
	bp_table_close(t);
	return begun;
}

/* The caller's progress, and the index's tiers that no move from the tiers left to solve
 * reaches (three and more above a solved one) let go: a stored index read on first use
 * (--spill on a resumed solve) then holds a few tiers at a time, not all. */
struct past {
	const struct bp_solve_opts *o;
	bp_sparse *ix;
};

static void solved_past(void *ctx, const struct bp_solve_progress *p)
{
	const struct past *pa = ctx;
	if (p->phase == 1)
		for (uint32_t t = p->tier + 3; t < p->ntiers; t++)
			bp_sparse_release(pa->ix, t);
	if (pa->o->progress)
		pa->o->progress(pa->o->ctx, p);
}

/* The caller's tick and cancel, behind solved_past's context. */
static void past_tick(void *ctx, const struct bp_solve_tick *t)
{
	const struct past *pa = ctx;
	pa->o->tick(pa->o->ctx, t);
}

static int past_cancel(void *ctx)
{
	const struct past *pa = ctx;
	return pa->o->cancel(pa->o->ctx);
}

/* Reachable positions only: the index (enumerated and stored first, or read back when
 * the table was begun with it), then the walk engine on the view it indexes where the
 * view has a tier walk (the game lists its children by keys: Mirador), else the tiers
 * engine; `--solver tiers` asks for the tiers engine anyway (the same table). The index
 * is held through the solve, so it counts against the memory limit (with the tiers
 * engine's need, the larger of the two); with --spill its keys are mapped from files
 * (page cache, counted in the estimate but not refused). */
static int solve_sparse(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
			struct bp_solve_result *out, struct bp_err *err)
{
	bp_sparse *ix = NULL;
	struct bp_game *view = NULL;
	char nb[32], lb[32];
	int rc, made = 0; /* made: the index enumerated and stored here */
	out->engine = BP_ENGINE_TIERS;
	if (opts->dist)
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s: a table indexed by its reachable positions is solved in "
				  "one process",
				  g->spec);
	if (opts->engine != BP_ENGINE_AUTO && opts->engine != BP_ENGINE_TIERS &&
	    opts->engine != BP_ENGINE_WALK)
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s: a table indexed by its reachable positions is solved by "
				  "the walk or the tiers engine",
				  g->spec);
	if (table_begun(db, g)) {
		/* with --spill, the stored index read a tier at a time as the solve reaches
		 * it, and let go once the solve is past it (solved_past below), rather than
		 * all of it first: 16 bytes a position (mirador:11x11: 14 GB) */
		rc = opts->spill_dir ? bp_sparse_open(db, g, &ix, err)
				     : bp_sparse_load(db, g, &ix, err);
		if (rc == BP_ENOTFOUND)
			return bp_err_set(err, BP_EFORMAT,
					  "%s: the table was begun without an index of reachable "
					  "positions; re-solve it (solve --replace)",
					  g->spec);
		if (rc)
			return rc;
	} else {
		double t0 = bp_solve_clock();
		if ((rc = bp_sparse_enumerate(g, opts, &ix, err)) ||
		    (rc = bp_sparse_store(db, g->spec, ix, err)))
			goto out;
		out->index_seconds = bp_solve_clock() - t0;
		made = 1;
	}
	/* the whole need, now that the positions are known: the index, held throughout,
	 * and the tiers engine's own (its bitmaps and records over the index) */
	uint64_t need = bp_sparse_bytes(ix), records = 0;
	struct bp_solve_opts o = *opts;
	o.memory_limit = 0; /* checked here, with the index counted */
	if ((rc = bp_sparse_view(g, ix, &view)) || (rc = bp_solve_tiers_estimate(view, &records)))
		goto out;
	if (o.engine == BP_ENGINE_AUTO)
		o.engine = view->ops->tier_walk ? BP_ENGINE_WALK : BP_ENGINE_TIERS;
	if (o.engine == BP_ENGINE_WALK && !view->ops->tier_walk) {
		rc = bp_err_set(err, BP_EUNSUPPORTED,
				"%s has no tier walk over its index: solve it with the tiers "
				"engine",
				g->spec);
		goto out;
	}
	if (opts->memory_limit && need + records > opts->memory_limit) {
		char rb[32], kb[32];
		rc = bp_err_set(err, BP_ERANGE,
				"%s needs about %s: %s for its index of %llu reachable "
				"positions and %s to solve over it, more than the memory limit "
				"of %s",
				g->spec, bp_text_bytes(need + records, nb, sizeof nb),
				bp_text_bytes(need, rb, sizeof rb),
				(unsigned long long)bp_sparse_positions(ix),
				bp_text_bytes(records, kb, sizeof kb),
				bp_text_bytes(opts->memory_limit, lb, sizeof lb));
		goto out;
	}
	double seconds = out->index_seconds;
	struct past pa = { opts, ix };
	o.progress = solved_past;
	o.tick = opts->tick ? past_tick : NULL;
	o.cancel = opts->cancel ? past_cancel : NULL;
	o.ctx = &pa;
	rc = o.engine == BP_ENGINE_WALK ? bp_solve_walk(view, db, &o, out, err)
					: bp_solve_tiers(view, db, &o, out, err);
	out->index_seconds = seconds;
	out->seconds += seconds;
	out->index_bytes = need;
	out->index_stored_bytes = bp_sparse_stored_bytes(ix);
	/* and, with the keys mapped from files (--spill), the two tiers' keys a tier's
	 * solve reads: page cache, not refused above, but resident when it runs well */
	out->memory_estimate += need + bp_sparse_mapped_pair(ix);
	if (out->memory_estimate < bp_sparse_enumeration_bytes(ix) + need)
		out->memory_estimate =
			bp_sparse_enumeration_bytes(ix) + need; /* its peak came first */
	uint64_t store_peak = bp_sparse_store_peak(ix) + bp_solve_base_memory(g);
	if (made && out->memory_estimate < store_peak)
		out->memory_estimate = store_peak; /* or its writing */
	out->engine = o.engine;
out:
	bp_sparse_view_free(view);
	bp_sparse_free(ix);
	return rc;
}

/* Auto: a table begun goes on with the index it was begun with; a new one is indexed by
 * its reachable positions where the game has keys for them and its dense index does
 * not fit, or fits but is mostly holes (BP_GAME_SPARSE_FIRST: Mirador 9x9 stores 0.6
 * bits a position and 7.9 of index against 43.6, and solves 3.4 times as fast), unless
 * the solve is split across ranks or asks for an engine other than the walk or the
 * tiers engine, which only the dense index serves (`--index dense` asks for it). */
static int auto_sparse(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *o)
{
	if (!bp_sparse_supported(g))
		return 0;
	if (table_begun(db, g))
		return bp_sparse_stored(db, g->spec);
	if (bp_sparse_wanted(g))
		return 1;
	return (g->ops->flags & BP_GAME_SPARSE_FIRST) && !o->dist &&
	       (o->engine == BP_ENGINE_AUTO || o->engine == BP_ENGINE_WALK ||
		o->engine == BP_ENGINE_TIERS);
}

int bp_solve(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
	     struct bp_solve_result *out, struct bp_err *err)
{
	int cyclic = (g->ops->flags & BP_GAME_CYCLIC) != 0;
	enum bp_engine e = opts->engine;
	memset(out, 0, sizeof *out);
	if (opts->index == BP_INDEX_SPARSE && !bp_sparse_supported(g))
		return bp_err_set(
			err, BP_EUNSUPPORTED,
			"%s has no index of reachable positions (a key for each position)",
			g->spec);
	if (opts->index == BP_INDEX_SPARSE ||
	    (opts->index == BP_INDEX_AUTO && auto_sparse(g, db, opts)))
		return solve_sparse(g, db, opts, out, err);
	if (opts->dist && (e == BP_ENGINE_CYCLES || e == BP_ENGINE_COUNTER || cyclic))
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s: only the tiers and walk engines solve across ranks%s",
				  g->spec,
				  cyclic ? " (and they cannot solve a game that repeats)" : "");
	if (e == BP_ENGINE_AUTO && cyclic && opts->memory_limit) {
		int rc = solve_repeating(g, db, opts, out, err);
		out->memory_estimate += bp_solve_coder_bytes(g, opts);
		return rc;
	}
	if (e == BP_ENGINE_AUTO)
		e = cyclic		? BP_ENGINE_COUNTER
		    : g->ops->tier_walk ? BP_ENGINE_WALK
					: BP_ENGINE_TIERS;
	if (e == BP_ENGINE_TIERS && cyclic)
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s can repeat positions: solve it with the cycles or counter "
				  "engine",
				  g->spec);
	if (e == BP_ENGINE_WALK && !g->ops->tier_walk)
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s has no tier walk: solve it with the tiers or cycles engine",
				  g->spec);
	int rc = e == BP_ENGINE_CYCLES	  ? bp_solve_cycles(g, db, opts, out, err)
		 : e == BP_ENGINE_COUNTER ? bp_solve_counter(g, db, opts, out, err)
		 : e == BP_ENGINE_WALK	  ? bp_solve_walk(g, db, opts, out, err)
					  : bp_solve_tiers(g, db, opts, out, err);
	out->engine = e;
	out->memory_estimate += bp_solve_coder_bytes(g, opts);
	return rc;
}
