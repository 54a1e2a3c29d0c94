/* SPDX-License-Identifier: MIT */
/* The choice of engine, made once: the rules of bp_solve's comment, then a call. */
#include "solver/solve.h"

#include <string.h>

#include "solver/counter.h"
#include "solver/cyclic.h"
#include "solver/expanded.h"
#include "solver/retrograde.h"

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

int bp_solve(const struct bp_game *g, bp_store *db, const struct bp_solve_opts *opts,
	     struct bp_solve_result *out, struct bp_err *err)
{
	int cyclic = (g->ops->flags & BP_GAME_CYCLIC) != 0;
	enum bp_engine e = opts->engine;
	memset(out, 0, sizeof *out);
	if (opts->dist && (e == BP_ENGINE_CYCLES || e == BP_ENGINE_COUNTER || cyclic))
		return bp_err_set(err, BP_EUNSUPPORTED,
				  "%s: only the tiers and walk engines solve across ranks%s",
				  g->spec,
				  cyclic ? " (and they cannot solve a game that repeats)" : "");
	if (e == BP_ENGINE_AUTO && cyclic && opts->memory_limit)
		return solve_repeating(g, db, opts, out, err);
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
	return rc;
}
