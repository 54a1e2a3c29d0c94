/* SPDX-License-Identifier: MIT */
/* The counter engine (solver/counter.c) against the cycles engine (solver/cyclic.c),
 * the level-pass solver kept as its cross-check: one content hash from two algorithms
 * on every small Blooms board (Blooms has no variant keys: the board is the instance)
 * and on acyclic games of every family with dense ranking; and its memory checks,
 * before any work and once the reachable positions are counted. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "solver/counter.h"
#include "solver/cyclic.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/solve_common.h"
#include "tests/support.h"

ParameterizedTestParameters(counter, agrees_with_cycles_engine)
{
	/* blooms:rh2x4 (203,591 positions) is the largest: about 5 s for the cycles
	 * engine on a quiet core */
	static char specs[][64] = { "blooms:tri2",
				    "blooms:rh2x2",
				    "blooms:rh2x3",
				    "blooms:tri3",
				    "blooms:hex2",
				    "blooms:rh2x4",
				    "taifas:3x3",
				    "taifas:2x4,tie=draw",
				    "taifas:3x3,tie=last-stone",
				    "chicken:hex2",
				    "glorieta:hex2",
				    "mirador:4x4",
				    "landscape:hex2,neutrals=1,layout=b2" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], counter, agrees_with_cycles_engine)
{
	struct bp_game *g = open_game(*spec);
	char *a = temp_db(), *b = temp_db();
	struct bp_solve_result ra, rb;
	ra = solve_into(a, g,
			(struct bp_solve_opts){
				.engine = BP_ENGINE_CYCLES, .threads = 2, .block_records = 512 });
	rb = solve_into(b, g,
			(struct bp_solve_opts){
				.engine = BP_ENGINE_COUNTER, .threads = 2, .block_records = 512 });
	cr_expect_eq(rb.engine, BP_ENGINE_COUNTER);
	cr_expect_eq(ra.value, rb.value, "%s: start value", *spec);
	cr_expect_eq(ra.remoteness, rb.remoteness, "%s: start remoteness", *spec);
	cr_expect_eq(ra.positions, rb.positions, "%s: positions", *spec);
	for (int v = 1; v < 4; v++)
		cr_expect_eq(ra.counts[v], rb.counts[v], "%s: positions of value %d", *spec, v);
	struct bp_verify_report va = verify_db(a, g), vb = verify_db(b, g);
	cr_expect_eq(vb.inconsistencies, 0, "%s: verify finds %llu inconsistencies", *spec,
		     (unsigned long long)vb.inconsistencies);
	cr_expect_eq(vb.corrupt_blocks, 0);
	cr_expect_eq(va.content_hash, vb.content_hash, "%s: cycles and counter engines differ",
		     *spec);
	printf("%s: %llu positions, content hash %016llx\n", *spec,
	       (unsigned long long)rb.positions, (unsigned long long)vb.content_hash);
	/* one thread gives the same table (the predecessor lists' order differs) */
	char *c = temp_db();
	solve_into(c, g,
		   (struct bp_solve_opts){
			   .engine = BP_ENGINE_COUNTER, .threads = 1, .block_records = 512 });
	cr_expect_eq(verify_db(c, g).content_hash, vb.content_hash, "%s: 1 and 2 threads differ",
		     *spec);
	remove_db(a);
	remove_db(b);
	remove_db(c);
	bp_game_destroy(g);
}

static int refused(const char *spec, uint64_t limit, char *msg, size_t len)
{
	struct bp_game *g = open_game(spec);
	char *dir = temp_db();
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK);
	struct bp_solve_opts o = { .engine = BP_ENGINE_COUNTER,
				   .threads = 1, /* an exact need to compare: see solve_ring */
				   .memory_limit = limit };
	int rc = bp_solve(g, db, &o, &r, &err);
	snprintf(msg, len, "%s", err.msg);
	bp_table *tab = NULL;
	if (rc != BP_OK &&
	    bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &tab, NULL) == BP_OK) {
		bp_probe_set_holes(tab, g);
		struct bp_table_meta m;
		cr_assert_eq(bp_table_meta_get(tab, &m), BP_OK);
		for (uint32_t t = 0; t < m.ntiers; t++)
			cr_expect_not(m.tier_done[t], "a refused solve stored tier %u", t);
		bp_table_close(tab);
	}
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
	return rc;
}

/* Under the bitmap's need the solve is refused before any work; a little over it, while
 * the reachable positions are marked; just under the exact need, once they are counted,
 * saying how many; at the exact need it runs. */
Test(counter, refuses_what_does_not_fit)
{
	struct bp_game *g = open_game("blooms:hex2");
	uint64_t floor;
	cr_assert_eq(bp_solve_counter_estimate(g, &floor), BP_OK);
	char msg[256];
	cr_expect_eq(refused("blooms:hex2", floor - 1, msg, sizeof msg), BP_ERANGE);
	cr_expect(strstr(msg, "memory limit") != NULL, "%s", msg);
	cr_expect(strstr(msg, "reachable") == NULL, "refused before marking: %s", msg);
	cr_expect_eq(refused("blooms:hex2", floor + 1, msg, sizeof msg), BP_ERANGE);
	cr_expect(strstr(msg, "the reachable graph passed the memory limit") != NULL, "%s", msg);
	char *dir = temp_db();
	struct bp_solve_result r = solve_into(
		dir, g, (struct bp_solve_opts){ .engine = BP_ENGINE_COUNTER, .threads = 1 });
	cr_expect_eq(r.positions, 11677);
	cr_expect_gt(r.memory_estimate, floor, "the exact plan replaces the floor");
	cr_expect_eq(refused("blooms:hex2", r.memory_estimate - 1, msg, sizeof msg), BP_ERANGE);
	cr_expect(strstr(msg, "11677 reachable positions") != NULL, "%s", msg);
	cr_expect_eq(refused("blooms:hex2", r.memory_estimate, msg, sizeof msg), BP_OK, "%s", msg);
	remove_db(dir);
	bp_game_destroy(g);
}

/* The model's terms: nothing but the bitmaps for an empty graph, and 4 bytes per
 * predecessor at least for a large one. */
Test(counter, need_grows_with_the_graph)
{
	uint64_t empty = bp_solve_counter_need(1u << 20, 0, 0, 0, 1);
	uint64_t big = bp_solve_counter_need(1u << 20, 1000000, 30000000, 1000, 2);
	cr_expect_lt(empty, BP_SOLVE_BASE_MEMORY + (1u << 20));
	cr_expect_gt(big - empty, 8ull * 31000000);
}

/* The plan the engine makes once the positions are marked (exact counts of positions,
 * moves and frontiers) is its peak within 20%, here where the graph, not the fixed base,
 * is most of it (bench/plan_vs_peak.sh measures larger instances). Each test runs in
 * its own process, so the peak resident set is this solve's. */
Test(counter, plan_near_the_peak)
{
	if (BP_TEST_ASAN)
		cr_skip_test("the peak resident set means nothing under AddressSanitizer");
	struct bp_game *g = open_game("blooms:rh3x3");
	char *dir = temp_db();
	struct bp_solve_result r = solve_into(
		dir, g, (struct bp_solve_opts){ .engine = BP_ENGINE_COUNTER, .threads = 1 });
	double ratio = (double)r.memory_estimate / (double)r.peak_memory;
	printf("blooms:rh3x3: plan %llu bytes, peak %llu bytes, ratio %.3f\n",
	       (unsigned long long)r.memory_estimate, (unsigned long long)r.peak_memory, ratio);
	cr_expect(ratio > 0.8 && ratio < 1.2, "plan %llu, peak %llu: ratio %.3f",
		  (unsigned long long)r.memory_estimate, (unsigned long long)r.peak_memory, ratio);
	remove_db(dir);
	bp_game_destroy(g);
}

/* A game that repeats with a dense reachable graph, where the counter engine needs far
 * more than the cycles engine (no Blooms board is such: their reachable positions are a
 * few percent of the index space). Position i of 0..RING-1 (one tier, no symmetry):
 * every multiple of 7 is a terminal loss for the player to move; from any other i the
 * moves go to 3i + 1 .. 3i + STEPS (mod RING), all distinct. */
#define RING 100000
#define STEPS 24

static void ring_start(const struct bp_game *g, struct bp_pos *out)
{
	(void)g;
	memset(out, 0, sizeof *out);
	out->w[0] = 1;
}

static enum bp_value ring_outcome(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	return p->w[0] % 7 == 0 ? BP_VALUE_LOSS : BP_VALUE_NONE;
}

static int ring_moves(const struct bp_game *g, const struct bp_pos *p, struct bp_move *out)
{
	if (ring_outcome(g, p) != BP_VALUE_NONE)
		return 0;
	for (int k = 0; k < STEPS; k++)
		out[k].v = (uint32_t)((p->w[0] * 3 + (uint64_t)k + 1) % RING);
	return STEPS;
}

static void ring_apply(const struct bp_game *g, struct bp_pos *p, struct bp_move m)
{
	(void)g;
	p->w[0] = m.v;
}

static uint32_t ring_tier(const struct bp_game *g, const struct bp_pos *p)
{
	(void)g;
	(void)p;
	return 0;
}

static int ring_tier_size(const struct bp_game *g, uint32_t tier, uint64_t *out)
{
	(void)g;
	(void)tier;
	*out = RING;
	return BP_OK;
}

static int ring_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *out)
{
	(void)g;
	*out = p->w[0];
	return BP_OK;
}

static int ring_unrank(const struct bp_game *g, uint32_t tier, uint64_t index, struct bp_pos *out)
{
	(void)tier;
	ring_start(g, out);
	out->w[0] = index;
	return BP_OK;
}

static const struct bp_game_ops ring_ops = { .name = "ring",
					     .title = "a test game that repeats",
					     .flags = BP_GAME_CYCLIC,
					     .start = ring_start,
					     .moves = ring_moves,
					     .apply = ring_apply,
					     .outcome = ring_outcome,
					     .tier = ring_tier,
					     .tier_size = ring_tier_size,
					     .rank = ring_rank,
					     .unrank = ring_unrank };

static int solve_ring(const struct bp_game *g, const char *dir, uint64_t limit,
		      struct bp_solve_result *r, char *msg, size_t len)
{
	bp_store *db;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK, "%s", err.msg);
	/* one thread: with two, the marking's lists split between the workers as they
	 * race, and the exact need moves by up to a block of a list (8 MiB) from run to run */
	struct bp_solve_opts o = { .engine = BP_ENGINE_AUTO, .threads = 1, .memory_limit = limit };
	int rc = bp_solve(g, db, &o, r, &err);
	snprintf(msg, len, "%s", err.msg);
	bp_store_close(db);
	return rc;
}

/* Auto picks the counter engine for a game that repeats; under a --memory between the
 * two engines' needs it runs the cycles engine (after the counter engine's marking
 * refuses) and stores the same table; under both it refuses. */
Test(counter, auto_falls_back_to_cycles)
{
	struct bp_game g = { .ops = &ring_ops, .max_moves = STEPS, .nsym = 1, .ntiers = 1 };
	snprintf(g.spec, sizeof g.spec, "ring:test");
	uint64_t cycles_need;
	cr_assert_eq(bp_solve_cycles_estimate(&g, &cycles_need), BP_OK);
	char *a = temp_db(), *b = temp_db(), *c = temp_db();
	struct bp_solve_result ra, rb, rc;
	char msg[256];
	/* no limit: the counter engine, whose exact need passes the cycles engine's */
	cr_assert_eq(solve_ring(&g, a, 0, &ra, msg, sizeof msg), BP_OK, "%s", msg);
	cr_expect_eq(ra.engine, BP_ENGINE_COUNTER);
	cr_assert_gt(ra.memory_estimate, cycles_need + (4u << 20), "counter %llu, cycles %llu",
		     (unsigned long long)ra.memory_estimate, (unsigned long long)cycles_need);
	/* between the two: cycles */
	uint64_t between = cycles_need + (ra.memory_estimate - cycles_need) / 2;
	cr_assert_eq(solve_ring(&g, b, between, &rb, msg, sizeof msg), BP_OK, "%s", msg);
	cr_expect_eq(rb.engine, BP_ENGINE_CYCLES);
	cr_expect_eq(rb.positions, ra.positions);
	cr_expect_eq(rb.value, ra.value);
	cr_expect_eq(rb.remoteness, ra.remoteness);
	struct bp_verify_report va = verify_db(a, &g), vb = verify_db(b, &g);
	cr_expect_eq(vb.inconsistencies, 0);
	cr_expect_eq(va.content_hash, vb.content_hash, "the fallback stored another table");
	printf("ring: %llu positions (win %llu, loss %llu, draw %llu); counter %llu bytes, "
	       "cycles %llu bytes, limit %llu: %s\n",
	       (unsigned long long)ra.positions, (unsigned long long)ra.counts[BP_VALUE_WIN],
	       (unsigned long long)ra.counts[BP_VALUE_LOSS],
	       (unsigned long long)ra.counts[BP_VALUE_DRAW], (unsigned long long)ra.memory_estimate,
	       (unsigned long long)cycles_need, (unsigned long long)between,
	       bp_engine_name(rb.engine));
	/* at the counter engine's exact need it runs */
	cr_assert_eq(solve_ring(&g, c, ra.memory_estimate, &rc, msg, sizeof msg), BP_OK, "%s", msg);
	cr_expect_eq(rc.engine, BP_ENGINE_COUNTER);
	remove_db(c);
	/* under both: refused, saying why */
	c = temp_db();
	cr_expect_eq(solve_ring(&g, c, cycles_need - 1, &rc, msg, sizeof msg), BP_ERANGE);
	cr_expect(strstr(msg, "memory limit") != NULL, "%s", msg);
	remove_db(a);
	remove_db(b);
	remove_db(c);
}

/* The game's children() (Blooms has one) gives the same table as moves, apply,
 * canonical and rank one child at a time: the instance is solved twice, once with the
 * op hidden behind a copy of the game's table. */
ParameterizedTestParameters(counter, children_fast_path_same_table)
{
	static char specs[][64] = { "blooms:tri3", "blooms:rh2x3", "blooms:hex2" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], counter, children_fast_path_same_table)
{
	struct bp_game *g = open_game(*spec);
	cr_assert(g->ops->children != NULL, "%s has no children()", *spec);
	char *a = temp_db(), *b = temp_db();
	struct bp_solve_opts o = { .engine = BP_ENGINE_COUNTER,
				   .threads = 2,
				   .block_records = 512 };
	struct bp_solve_result ra = solve_into(a, g, o);
	const struct bp_game_ops *ops = g->ops;
	struct bp_game_ops plain = *ops;
	plain.children = NULL;
	g->ops = &plain;
	struct bp_solve_result rb = solve_into(b, g, o);
	g->ops = ops;
	cr_expect_eq(ra.positions, rb.positions, "%s: positions", *spec);
	uint64_t ha = verify_db(a, g).content_hash, hb = verify_db(b, g).content_hash;
	cr_expect_eq(ha, hb, "%s: children() %016llx, one child at a time %016llx", *spec,
		     (unsigned long long)ha, (unsigned long long)hb);
	remove_db(a);
	remove_db(b);
	bp_game_destroy(g);
}
