/* SPDX-License-Identifier: MIT */
/* The tier walk (bp_game_ops.tier_walk) against the game's own single-position ops,
 * and the expanded solver (solver/expanded.c) against the generic tiered one.
 *
 * 1. For every index of every tier: the walk visits it exactly when unrank() gives a
 *    canonical position; its children are the ranks of apply() over moves() (as
 *    multisets), its images the ranks of transform() over the symmetries, less itself;
 *    a terminal position (outcome() decided) has nchildren -1. Ranges are cut at
 *    uneven places, so a walk that starts inside a block is checked too.
 * 2. Both solvers store the same content (verify's content hash), on every tie and
 *    score rule, and resuming the expanded solver from any stored tier gives it too. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "solver/solve.h"
#include "solver/verify.h"
#include "store/store.h"
#include "tests/support.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

struct seen {
	const struct bp_game *g;
	uint32_t tier;
	uint64_t last; /* previous index visited + 1 */
	uint8_t *visited;
	uint64_t visits;
};

static int check_visit(void *ctx, const struct bp_walk *w)
{
	struct seen *s = ctx;
	const struct bp_game *g = s->g;
	struct bp_pos p, canon, c;
	cr_assert_geq(w->index, s->last, "tier %u: index %llu visited out of order", s->tier,
		      (unsigned long long)w->index);
	s->last = w->index + 1;
	s->visited[w->index] = 1;
	s->visits++;
	cr_assert_eq(g->ops->unrank(g, s->tier, w->index, &p), BP_OK);
	bp_game_canonical(g, &p, &canon);
	cr_assert(bp_pos_equal(&p, &canon), "tier %u index %llu: %s is not canonical", s->tier,
		  (unsigned long long)w->index, fmt_pos(g, &p));
	if (g->ops->outcome(g, &p) != BP_VALUE_NONE) {
		cr_assert_eq(w->nchildren, -1, "%s: the game is over", fmt_pos(g, &p));
	} else {
		struct bp_move mv[256];
		uint64_t want[256], got[256];
		int n = g->ops->moves(g, &p, mv);
		cr_assert_eq(w->nchildren, n, "%s: %d children, %d moves", fmt_pos(g, &p),
			     w->nchildren, n);
		for (int i = 0; i < n; i++) {
			c = p;
			g->ops->apply(g, &c, mv[i]);
			cr_assert_eq(g->ops->tier(g, &c), s->tier + 1);
			cr_assert_eq(g->ops->rank(g, &c, &want[i]), BP_OK);
			got[i] = w->children[i];
		}
		qsort(want, (size_t)n, sizeof *want, cmp_u64);
		qsort(got, (size_t)n, sizeof *got, cmp_u64);
		for (int i = 0; i < n; i++)
			cr_assert_eq(got[i], want[i], "%s: child %d is %llu, want %llu",
				     fmt_pos(g, &p), i, (unsigned long long)got[i],
				     (unsigned long long)want[i]);
	}
	/* images: exactly the other members of the class */
	uint64_t want[16], got[16];
	int nw = 0, ng = 0;
	for (int sym = 1; sym < g->nsym; sym++) {
		g->ops->transform(g, &p, sym, &c);
		uint64_t r;
		cr_assert_eq(g->ops->rank(g, &c, &r), BP_OK);
		if (r != w->index)
			want[nw++] = r;
	}
	for (int i = 0; i < w->nimages; i++) {
		cr_assert_neq(w->images[i], w->index, "%s: itself among its images",
			      fmt_pos(g, &p));
		got[ng++] = w->images[i];
	}
	qsort(want, (size_t)nw, sizeof *want, cmp_u64);
	qsort(got, (size_t)ng, sizeof *got, cmp_u64);
	/* repeats are allowed: compare the distinct images */
	int dw = 0, dg = 0;
	for (int i = 0; i < nw; i++)
		if (i == 0 || want[i] != want[i - 1])
			want[dw++] = want[i];
	for (int i = 0; i < ng; i++)
		if (i == 0 || got[i] != got[i - 1])
			got[dg++] = got[i];
	cr_assert_eq(dg, dw, "%s: %d distinct images, want %d", fmt_pos(g, &p), dg, dw);
	for (int i = 0; i < dw; i++)
		cr_assert_eq(got[i], want[i], "%s: image %d", fmt_pos(g, &p), i);
	return 0;
}

struct walk_case {
	char spec[48];
	uint32_t tiers; /* the first tiers checked; 0: all */
};

ParameterizedTestParameters(walk, agrees_with_the_rules)
{
	static struct walk_case cases[] = {
		{ "taifas:3x3", 0 },
		{ "taifas:3x3,tie=last-stone", 0 },
		{ "taifas:3x3,tie=draw", 0 },
		{ "taifas:2x4", 0 },
		{ "taifas:4x2,score=fraction", 0 },
		{ "taifas:2x3", 0 },
		{ "taifas:5x2", 0 },
		{ "taifas:2x2", 0 },
		{ "taifas:3x4,tie=draw", 0 },
		/* over 24 cells: no completes table, completes_zone per child */
		{ "taifas:5x5", 4 },
	};
	return cr_make_param_array(struct walk_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct walk_case *wc, walk, agrees_with_the_rules)
{
	struct bp_game *g = open_game(wc->spec);
	cr_assert_not_null(g->ops->tier_walk, "%s has no tier walk", wc->spec);
	for (uint32_t t = 0; t < (wc->tiers ? wc->tiers : g->ntiers); t++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		struct seen s = { .g = g, .tier = t, .visited = calloc(size + 1, 1) };
		/* uneven ranges: 1, 2, 3, ... indices */
		for (uint64_t lo = 0, step = 1; lo < size; lo += step, step++) {
			uint64_t hi = lo + step < size ? lo + step : size;
			cr_assert_eq(g->ops->tier_walk(g, t, lo, hi,
						       BP_WALK_CHILDREN | BP_WALK_IMAGES,
						       check_visit, &s),
				     BP_OK);
		}
		/* every canonical position was visited */
		for (uint64_t i = 0; i < size; i++) {
			struct bp_pos p, canon;
			if (s.visited[i])
				continue;
			if (g->ops->unrank(g, t, i, &p) != BP_OK)
				continue;
			bp_game_canonical(g, &p, &canon);
			cr_assert_not(bp_pos_equal(&p, &canon),
				      "tier %u index %llu: canonical %s never visited", t,
				      (unsigned long long)i, fmt_pos(g, &p));
		}
		free(s.visited);
	}
	bp_game_destroy(g);
}

Test(walk, refuses_a_range_outside_the_tier)
{
	struct bp_game *g = open_game("taifas:2x2");
	uint64_t size;
	cr_assert_eq(g->ops->tier_size(g, 2, &size), BP_OK);
	cr_expect_eq(g->ops->tier_walk(g, 2, 0, size + 1, BP_WALK_CHILDREN, check_visit, NULL),
		     BP_ERANGE);
	cr_expect_eq(g->ops->tier_walk(g, 9, 0, 1, BP_WALK_CHILDREN, check_visit, NULL), BP_ERANGE);
	bp_game_destroy(g);
}

/* ---- the expanded solver against the generic one ----------------------------- */

ParameterizedTestParameters(expanded, agrees_with_the_generic_solver)
{
	static char specs[][64] = {
		"taifas:3x3",
		"taifas:3x3,tie=last-stone",
		"taifas:3x3,tie=draw",
		"taifas:3x4",
		"taifas:2x5,score=fraction",
		"taifas:3x3,score=fraction,tie=draw",
		"taifas:4x3,tie=last-stone",
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], expanded, agrees_with_the_generic_solver)
{
	struct bp_game *g = open_game(*spec);
	char *a = temp_db(), *b = temp_db();
	struct bp_solve_result ra, rb;
	ra = solve_into(a, g,
			(struct bp_solve_opts){
				.threads = 2, .block_records = 1024, .engine = BP_ENGINE_TIERS });
	rb = solve_into(b, g, (struct bp_solve_opts){ .threads = 2, .block_records = 1024 });
	cr_expect_eq(ra.value, rb.value);
	cr_expect_eq(ra.remoteness, rb.remoteness);
	cr_expect_eq(ra.positions, rb.positions);
	for (int v = 0; v < 4; v++)
		cr_expect_eq(ra.counts[v], rb.counts[v]);
	cr_expect_eq(ra.stored_bytes, rb.stored_bytes);
	struct bp_verify_report va = verify_db(a, g), vb = verify_db(b, g);
	cr_expect_eq(vb.corrupt_blocks + vb.missing_tiers, 0);
	cr_expect_eq(vb.inconsistencies, 0);
	cr_expect_eq(vb.positions_checked, rb.positions);
	cr_expect_eq(va.content_hash, vb.content_hash, "%s: expanded and generic solvers differ",
		     *spec);
	remove_db(a);
	remove_db(b);
	bp_game_destroy(g);
}

/* A solve that stopped after any number of tiers resumes to the same table: the
 * stored tiers are read back and expanded. The stop is simulated by copying the
 * table's tiers from a finished solve one at a time into a fresh database. */
Test(expanded, resumes_from_every_tier)
{
	struct bp_game *g = open_game("taifas:3x3");
	char *full = temp_db();
	struct bp_solve_result rf =
		solve_into(full, g, (struct bp_solve_opts){ .threads = 1, .block_records = 1024 });
	uint64_t want = verify_db(full, g).content_hash;
	bp_store *src;
	bp_table *st;
	cr_assert_eq(bp_store_open(full, BP_STORE_READONLY, &src, NULL), BP_OK);
	cr_assert_eq(bp_table_open(src, g->spec, NULL, BP_STORE_READONLY, &st, NULL), BP_OK);
	uint64_t sizes[16];
	for (uint32_t t = 0; t < g->ntiers; t++)
		cr_assert_eq(g->ops->tier_size(g, t, &sizes[t]), BP_OK);
	for (uint32_t keep = 1; keep < g->ntiers; keep++) {
		char *dir = temp_db();
		bp_store *db;
		bp_table *dt;
		struct bp_table_info info = { .rules_version = BP_RULES_VERSION,
					      .ntiers = g->ntiers,
					      .tier_size = sizes,
					      .block_records = 1024 };
		snprintf(info.spec, sizeof info.spec, "%s", g->spec);
		cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
		cr_assert_eq(bp_table_open(db, g->spec, &info, BP_STORE_CREATE, &dt, NULL), BP_OK);
		for (uint32_t t = g->ntiers - keep; t < g->ntiers; t++) {
			uint16_t *rec = calloc(sizes[t], sizeof *rec);
			cr_assert_eq(bp_table_get_tier(st, t, rec), BP_OK);
			cr_assert_eq(bp_table_put_tier(dt, t, rec, 0, 0, NULL), BP_OK);
			free(rec);
		}
		bp_table_close(dt);
		bp_store_close(db);
		struct bp_solve_result r = solve_into(
			dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 1024 });
		cr_expect_eq(r.resumed_tiers, keep);
		cr_expect_eq(r.positions, rf.positions);
		cr_expect_eq(verify_db(dir, g).content_hash, want, "resumed after %u tiers", keep);
		remove_db(dir);
	}
	bp_table_close(st);
	bp_store_close(src);
	remove_db(full);
	bp_game_destroy(g);
}
