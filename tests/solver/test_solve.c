/* SPDX-License-Identifier: MIT */
/* The solve entry point (solver/solve.c): which engine `auto` picks and that the
 * result names it, the engines a game cannot use refused before any work, the engine
 * names, and a game op that failed without an error path (bp_game_fail) stopping
 * every engine before it stores anything; a cancel callback stopping every engine, and
 * the stopped solve resumed to the same table. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "solver/solve.h"
#include "tests/support.h"

struct pick {
	char spec[48];
	enum bp_engine asked, ran;
	int rc;
};

ParameterizedTestParameters(solve, picks_and_reports_the_engine)
{
	static struct pick picks[] = {
		{ "taifas:2x3", BP_ENGINE_AUTO, BP_ENGINE_WALK, BP_OK },
		{ "taifas:2x3", BP_ENGINE_TIERS, BP_ENGINE_TIERS, BP_OK },
		{ "taifas:2x3", BP_ENGINE_WALK, BP_ENGINE_WALK, BP_OK },
		{ "taifas:2x3", BP_ENGINE_CYCLES, BP_ENGINE_CYCLES, BP_OK },
		{ "chicken:hex2", BP_ENGINE_AUTO, BP_ENGINE_WALK, BP_OK },
		{ "chicken:hex2", BP_ENGINE_TIERS, BP_ENGINE_TIERS, BP_OK },
		{ "havannah:hex2", BP_ENGINE_AUTO, BP_ENGINE_TIERS, BP_OK },
		{ "havannah:hex2", BP_ENGINE_WALK, 0, BP_EUNSUPPORTED },
		{ "taifas:2x3", BP_ENGINE_COUNTER, BP_ENGINE_COUNTER, BP_OK },
		{ "blooms:rh2x2", BP_ENGINE_AUTO, BP_ENGINE_COUNTER, BP_OK },
		{ "blooms:rh2x2", BP_ENGINE_CYCLES, BP_ENGINE_CYCLES, BP_OK },
		{ "blooms:rh2x2", BP_ENGINE_COUNTER, BP_ENGINE_COUNTER, BP_OK },
		{ "blooms:rh2x2", BP_ENGINE_TIERS, 0, BP_EUNSUPPORTED },
		{ "blooms:rh2x2", BP_ENGINE_WALK, 0, BP_EUNSUPPORTED },
	};
	return cr_make_param_array(struct pick, picks, sizeof picks / sizeof picks[0]);
}

ParameterizedTest(struct pick *t, solve, picks_and_reports_the_engine)
{
	struct bp_game *g = open_game(t->spec);
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK);
	struct bp_solve_opts o = { .engine = t->asked, .threads = 1 };
	int rc = bp_solve(g, db, &o, &r, &err);
	cr_expect_eq(rc, t->rc, "%s with %s: %s", t->spec, bp_engine_name(t->asked), err.msg);
	if (rc == BP_OK) {
		cr_expect_eq(r.engine, t->ran, "%s: %s ran, not %s", t->spec,
			     bp_engine_name(r.engine), bp_engine_name(t->ran));
	} else {
		/* refused before any work: no table */
		bp_table *tab = NULL;
		cr_expect_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &tab, NULL),
			     BP_ENOTFOUND, "%s: a refused solve left a table", t->spec);
		bp_table_close(tab);
		cr_expect(strstr(err.msg, "engine") != NULL, "'%s' names the engines", err.msg);
	}
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

Test(solve, engine_names)
{
	static const char *const names[] = { "auto", "tiers", "walk", "cycles", "counter" };
	for (int e = 0; e < 5; e++) {
		enum bp_engine got;
		cr_expect_str_eq(bp_engine_name((enum bp_engine)e), names[e]);
		cr_expect_eq(bp_engine_parse(names[e], &got), BP_OK);
		cr_expect_eq(got, (enum bp_engine)e);
	}
	enum bp_engine got;
	cr_expect_eq(bp_engine_parse("quick", &got), BP_ENOTFOUND);
}

/* A rule that failed (here: marked failed before the solve) must stop every engine
 * with its code, and nothing it computed may be stored. */
ParameterizedTestParameters(solve, a_failed_rule_stores_nothing)
{
	static enum bp_engine engines[] = { BP_ENGINE_TIERS, BP_ENGINE_WALK, BP_ENGINE_CYCLES,
					    BP_ENGINE_COUNTER };
	return cr_make_param_array(enum bp_engine, engines, 4);
}

ParameterizedTest(enum bp_engine *e, solve, a_failed_rule_stores_nothing)
{
	struct bp_game *g = open_game("taifas:2x3");
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK);
	bp_game_fail(g, BP_ENOMEM);
	struct bp_solve_opts o = { .engine = *e, .threads = 2 };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ENOMEM, "%s", bp_engine_name(*e));
	bp_table *tab = NULL;
	if (bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &tab, NULL) == BP_OK) {
		struct bp_table_meta m;
		cr_assert_eq(bp_table_meta_get(tab, &m), BP_OK);
		for (uint32_t t = 0; t < m.ntiers; t++)
			cr_expect_not(m.tier_done[t], "%s stored tier %u after a rule failed",
				      bp_engine_name(*e), t);
		bp_table_close(tab);
	}
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}

/* ---- cancel and ticks ------------------------------------------------------- */

struct stopper {
	int polls, stop_after; /* cancel answers yes from poll stop_after on */
	int ticks, bad_ticks;
};

static int stop_cancel(void *ctx)
{
	struct stopper *s = ctx;
	return ++s->polls > s->stop_after;
}

static void count_tick(void *ctx, const struct bp_solve_tick *t)
{
	struct stopper *s = ctx;
	s->ticks++;
	if (t->tier_done > t->tier_total || (t->phase_total && t->phase_done > t->phase_total))
		s->bad_ticks++;
}

struct cancel_case {
	char spec[48];
	enum bp_engine engine;
};

ParameterizedTestParameters(solve, cancels_and_resumes)
{
	static struct cancel_case cases[] = {
		{ "taifas:3x4", BP_ENGINE_TIERS },
		{ "taifas:3x4", BP_ENGINE_WALK },
		{ "landscape:hex2,neutrals=1,layout=b2", BP_ENGINE_WALK },
		{ "blooms:hex2", BP_ENGINE_CYCLES },
		{ "blooms:hex2", BP_ENGINE_COUNTER },
	};
	return cr_make_param_array(struct cancel_case, cases, sizeof cases / sizeof cases[0]);
}

/* A cancel callback that says stop after a few work items stops every engine with
 * BP_ECANCELED; a solve without it then finishes the same table as a solve never
 * stopped, reusing the tiers the stopped one stored (tiers and walk). Ticks come with
 * progress that never passes its total. */
ParameterizedTest(struct cancel_case *c, solve, cancels_and_resumes)
{
	struct bp_game *g = open_game(c->spec);
	char *ref = temp_db(), *dir = temp_db();
	solve_into(ref, g, (struct bp_solve_opts){ .threads = 1, .engine = c->engine });
	uint64_t want = verify_db(ref, g).content_hash;
	struct stopper st = { .stop_after = 3 };
	struct bp_solve_opts o = { .threads = 1,
				   .engine = c->engine,
				   .cancel = stop_cancel,
				   .tick = count_tick,
				   .tick_seconds = 1e-9,
				   .ctx = &st };
	bp_store *db;
	struct bp_solve_result r;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK);
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ECANCELED, "%s: %s", c->spec, err.msg);
	bp_store_close(db);
	cr_expect_eq(st.polls, st.stop_after + 1, "polled %d times", st.polls);
	cr_expect_gt(st.ticks, 0);
	cr_expect_eq(st.bad_ticks, 0);
	uint32_t kept = r.solved_tiers;
	if (c->engine == BP_ENGINE_CYCLES || c->engine == BP_ENGINE_COUNTER)
		cr_expect_eq(kept, 0);
	struct bp_solve_result r2 =
		solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .engine = c->engine });
	cr_expect_eq(r2.resumed_tiers, kept);
	cr_expect_gt(r2.solved_tiers, 0);
	cr_expect_eq(verify_db(dir, g).content_hash, want, "%s: resumed table differs", c->spec);
	/* a third solve finds everything stored */
	struct bp_solve_result r3 =
		solve_into(dir, g, (struct bp_solve_opts){ .threads = 1, .engine = c->engine });
	cr_expect_eq(r3.solved_tiers, 0);
	cr_expect_gt(r3.resumed_tiers, 0);
	cr_expect_eq(r3.value, r2.value);
	cr_expect_eq(r3.positions, r2.positions);
	remove_db(ref);
	remove_db(dir);
	bp_game_destroy(g);
}
