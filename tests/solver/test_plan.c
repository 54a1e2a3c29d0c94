/* SPDX-License-Identifier: MIT */
/* The plan of a solve split across ranks (solver/plan.c): its model against figures
 * worked out by hand from the tier sizes and Taifas' moves. */
#include <criterion/criterion.h>

#include "solver/expanded.h"
#include "solver/plan.h"
#include "solver/retrograde.h"
#include "solver/solve.h"
#include "tests/support.h"

static struct bp_plan plan_of(const struct bp_game *g, int ranks, int threads)
{
	struct bp_plan_opts o = {
		.ranks = ranks, .threads = threads, .bits_per_position = 1, .rate_per_core = 1e6
	};
	struct bp_plan p;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_plan_tiers(g, &o, &p, &err), BP_OK, "%s", err.msg);
	return p;
}

/* Taifas places one stone a move, of either colour, on any empty cell: a position of
 * tier t (t stones) on n cells has 2 (n - t) children, the last tier none. Small tiers
 * are sampled whole, so the averages are exact. */
Test(plan, taifas_children_are_two_per_empty_cell)
{
	struct bp_game *g = open_game("taifas:3x3");
	struct bp_plan p = plan_of(g, 1, 1);
	cr_assert(p.sampled);
	for (uint32_t t = 0; t < p.ntiers; t++)
		cr_expect_eq(p.tier[t].children, 2.0 * (9 - t), "tier %u: %g", t,
			     p.tier[t].children);
	bp_plan_free(&p);
	bp_game_destroy(g);
}

/* One rank: nothing travels, and its memory is the one-process figure. */
Test(plan, one_rank_sends_nothing)
{
	struct bp_game *g = open_game("taifas:4x4");
	struct bp_plan p = plan_of(g, 1, 2);
	cr_expect_eq(p.sent + p.received + p.writer_received, 0);
	cr_expect_eq(p.mem, p.mem_one);
	bp_plan_free(&p);
	bp_game_destroy(g);
}

/* More ranks, less memory each; the writer receives every other rank's records, the
 * others send their share: tier by tier, by the model's formulas. */
Test(plan, memory_falls_with_ranks_and_the_writer_gets_every_record)
{
	struct bp_game *g = open_game("taifas:5x5");
	struct bp_plan p1 = plan_of(g, 1, 2), p4 = plan_of(g, 4, 2), p64 = plan_of(g, 64, 2);
	cr_expect_lt(p4.mem, p1.mem / 3);
	cr_expect_lt(p64.mem, p4.mem / 10);
	for (uint32_t t = 0; t < p4.ntiers; t++) {
		const struct bp_plan_tier *pt = &p4.tier[t];
		uint64_t share = (pt->records + 3) / 4;
		double edges = (double)((pt->classes + 3) / 4) * pt->children;
		uint64_t lookups = (uint64_t)(edges * 0.75 * 18);
		cr_expect_eq(pt->received, lookups, "tier %u", t);
		cr_expect_eq(pt->sent, lookups + 2 * share, "tier %u", t);
		cr_expect_eq(pt->writer_received, lookups + 2 * (pt->records - share), "tier %u",
			     t);
	}
	bp_plan_free(&p1);
	bp_plan_free(&p4);
	bp_plan_free(&p64);
	bp_game_destroy(g);
}

/* The walk engine keeps no bitmaps and two tiers' buffers: less memory than the tiers
 * engine's three-tier window; a game without a tier walk cannot be planned with it. */
Test(plan, the_walk_needs_less_and_only_where_there_is_one)
{
	struct bp_game *g = open_game("taifas:5x5");
	struct bp_plan_opts o = {
		.ranks = 64, .threads = 2, .bits_per_position = 1, .rate_per_core = 1e6
	};
	struct bp_plan pt, pw;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_plan_tiers(g, &o, &pt, &err), BP_OK);
	o.walk = 1;
	cr_assert_eq(bp_plan_tiers(g, &o, &pw, &err), BP_OK);
	cr_expect_lt(pw.mem, pt.mem);
	cr_expect_lt(pw.mem_one, pt.mem_one);
	bp_plan_free(&pt);
	bp_plan_free(&pw);
	bp_game_destroy(g);
	g = open_game("havannah:hex2"); /* no tier walk */
	cr_expect_eq(bp_plan_tiers(g, &o, &pw, &err), BP_EUNSUPPORTED);
	bp_game_destroy(g);
}

/* A game that cuts its tiers into segments (Chicken) is planned, in one process, by the
 * segment order: the figure the solve checks up front (its memory_estimate), below the
 * whole-tier model that ranks use; across ranks the whole-tier model stays. */
Test(plan, segments_in_one_process)
{
	struct bp_game *g = open_game("chicken:tri4");
	struct bp_plan_opts o = {
		.ranks = 1, .threads = 1, .bits_per_position = 1, .rate_per_core = 1e6, .walk = 1
	};
	struct bp_plan p1, p2;
	struct bp_err err = { { 0 } };
	uint64_t peak = 0;
	cr_assert_eq(bp_solve_walk_segment_plan(g, NULL, &peak), BP_OK);
	cr_assert_eq(bp_plan_tiers(g, &o, &p1, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(p1.mem, peak);
	cr_expect_eq(p1.mem_one, peak);
	o.ranks = 2;
	cr_assert_eq(bp_plan_tiers(g, &o, &p2, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(p2.mem_one, peak);
	cr_expect_gt(p2.mem, peak / 2); /* whole tiers, halved */
	char *db = temp_db();
	struct bp_solve_result r = solve_into(db, g, (struct bp_solve_opts){ .threads = 1 });
	cr_expect_eq(r.memory_estimate, peak);
	remove_db(db);
	bp_plan_free(&p1);
	bp_plan_free(&p2);
	bp_game_destroy(g);
	/* a game without segments has none to plan */
	g = open_game("taifas:3x3");
	cr_expect_eq(bp_solve_walk_segment_plan(g, NULL, &peak), BP_EUNSUPPORTED);
	bp_game_destroy(g);
}

/* The plans of the engines over the reachable graph (a game that repeats): before
 * counting, a range around the counted figure; counted, the counter engine's plan is
 * the figure its solve makes (same threads; the frontiers aside), and the cycles engine's lies between
 * its bitmaps and what it checks up front. */
Test(plan, graph_engines_range_then_count)
{
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_err err = { { 0 } };
	struct bp_plan_graph c0, c1, y0, y1;
	cr_assert_eq(bp_plan_graph(g, 1, 0, 2, 0, &c0, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_plan_graph(g, 1, 1, 2, 0, &c1, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_plan_graph(g, 0, 0, 2, 0, &y0, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_plan_graph(g, 0, 1, 2, 0, &y1, &err), BP_OK, "%s", err.msg);
	cr_expect_not(c0.counted);
	cr_expect_lt(c0.low, c0.high);
	cr_expect(c1.counted && c1.positions == 11677, "%llu positions",
		  (unsigned long long)c1.positions);
	cr_expect_eq(c1.low, c1.high);
	cr_expect(c0.low < c1.low && c1.low < c0.high);
	char *dir = temp_db();
	struct bp_solve_result r = solve_into(
		dir, g, (struct bp_solve_opts){ .engine = BP_ENGINE_COUNTER, .threads = 2 });
	/* the frontiers' share between workers varies from run to run: within 1% */
	uint64_t d = c1.low > r.memory_estimate ? c1.low - r.memory_estimate
						: r.memory_estimate - c1.low;
	cr_expect_leq(d, c1.low / 100, "plan %llu, the solve's plan %llu",
		      (unsigned long long)c1.low, (unsigned long long)r.memory_estimate);
	remove_db(dir);
	cr_expect_eq(y0.enforced, y0.high);
	cr_expect_eq(y1.positions, 11677);
	cr_expect(y0.low < y1.low && y1.low < y0.high, "%llu < %llu < %llu",
		  (unsigned long long)y0.low, (unsigned long long)y1.low,
		  (unsigned long long)y0.high);
	/* a limit under the bitmap stops the count before any work */
	cr_expect_eq(bp_plan_graph(g, 1, 1, 2, c0.low - 1, &c1, &err), BP_ERANGE);
	bp_game_destroy(g);
}

/* A game's own tables are held all along, and plans count them beside the fixed base:
 * Mirador's sets of compatible places behind its ranks (1.4 M of them on 9x9, a third
 * of that solve's peak) move the plan's peak by exactly their bytes. */
Test(plan, counts_the_games_own_tables)
{
	struct bp_game *g = open_game("mirador:9x9");
	uint64_t tables = g->table_bytes;
	cr_assert_gt(tables, 8u << 20, "%llu", (unsigned long long)tables);
	struct bp_plan with = plan_of(g, 1, 1);
	g->table_bytes = 0;
	struct bp_plan without = plan_of(g, 1, 1);
	cr_expect_eq(with.mem_one - without.mem_one, tables);
	uint64_t a, b;
	g->table_bytes = tables;
	cr_assert_eq(bp_solve_tiers_estimate(g, &a), BP_OK);
	g->table_bytes = 0;
	cr_assert_eq(bp_solve_tiers_estimate(g, &b), BP_OK);
	cr_expect_eq(a - b, tables);
	g->table_bytes = tables;
	bp_plan_free(&with);
	bp_plan_free(&without);
	bp_game_destroy(g);
}
