/* SPDX-License-Identifier: MIT */
/* The tier walk (bp_game_ops.tier_walk) against the game's own single-position ops,
 * and the expanded solver (solver/expanded.c) against the generic tiered one.
 *
 * 1. For every index of every tier: the walk visits it exactly when unrank() gives a
 *    canonical position reachable from the start (reachability found here by a plain
 *    forward search over raw positions: every move of every reached position that
 *    is not over), or with BP_GAME_WALK_UNREACHED exactly when unrank() gives a
 *    canonical position at all (every reached one among them); its children are the
 *    ranks of apply() over moves() (as multisets; those two tiers up in `far`), its
 *    images the ranks of transform() over the symmetries, less itself; a terminal
 *    position (outcome() decided) has nchildren -1. Ranges are cut at uneven places,
 *    so a walk that starts inside a block is checked too.
 * 2. Both solvers store the same content (verify's content hash), on every tie and
 *    score rule, and resuming the expanded solver from any stored tier gives it too. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <unistd.h>

#include "solver/probe.h"
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
	/* NULL, or bits of the positions whose images may be left out
	 * (BP_WALK_IMAGES_UNMARKED) */
	const uint64_t *images_optional;
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
		/* an outcome the walk gives is the rules' */
		cr_assert(w->outcome == BP_VALUE_NONE || w->outcome == g->ops->outcome(g, &p),
			  "%s: the walk says outcome %d, the rules %d", fmt_pos(g, &p),
			  (int)w->outcome, (int)g->ops->outcome(g, &p));
	} else {
		cr_assert_eq(w->outcome, BP_VALUE_NONE, "%s: the game goes on", fmt_pos(g, &p));
		static struct bp_move mv[4096];
		static uint64_t want[2][4096], got[2][4096];
		int n = g->ops->moves(g, &p, mv), nw[2] = { 0, 0 };
		cr_assert_leq(n, 4096);
		for (int i = 0; i < n; i++) {
			c = p;
			g->ops->apply(g, &c, mv[i]);
			uint32_t ct = g->ops->tier(g, &c);
			cr_assert(ct == s->tier + 1 || ct == s->tier + 2, "%s: a child in tier %u",
				  fmt_pos(g, &p), ct);
			int far = ct == s->tier + 2;
			cr_assert(!far || (g->ops->flags & BP_GAME_TIER_SKIP));
			cr_assert_eq(g->ops->rank(g, &c, &want[far][nw[far]++]), BP_OK);
		}
		cr_assert_eq(w->nchildren, nw[0], "%s: %d children, %d moves one tier up",
			     fmt_pos(g, &p), w->nchildren, nw[0]);
		cr_assert_eq(w->nfar, nw[1], "%s: %d far children, %d moves two tiers up",
			     fmt_pos(g, &p), w->nfar, nw[1]);
		for (int i = 0; i < nw[0]; i++)
			got[0][i] = w->children[i];
		for (int i = 0; i < nw[1]; i++)
			got[1][i] = w->far[i];
		for (int k = 0; k < 2; k++) {
			qsort(want[k], (size_t)nw[k], sizeof *want[k], cmp_u64);
			qsort(got[k], (size_t)nw[k], sizeof *got[k], cmp_u64);
			for (int i = 0; i < nw[k]; i++)
				cr_assert_eq(got[k][i], want[k][i],
					     "%s: %s child %d is %llu, want %llu", fmt_pos(g, &p),
					     k ? "far" : "near", i, (unsigned long long)got[k][i],
					     (unsigned long long)want[k][i]);
		}
	}
	if (s->images_optional && (s->images_optional[w->index / 64] >> (w->index % 64) & 1) &&
	    w->nimages == 0)
		return 0;
	/* images: exactly the other members of the class; an image without an index must
	 * be invalid (Glorieta's colour-exchanged images whose counts do not fit), so no
	 * member of the class */
	uint64_t want[64], got[64];
	int nw = 0, ng = 0;
	for (int sym = 1; sym < g->nsym; sym++) {
		g->ops->transform(g, &p, sym, &c);
		uint64_t r;
		int rc = g->ops->rank(g, &c, &r);
		if (rc == BP_ERANGE) {
			struct bp_pos q;
			struct bp_err err = { { 0 } };
			char text[2048];
			snprintf(text, sizeof text, "%s", fmt_pos(g, &c));
			cr_assert_neq(g->ops->pos_parse(g, text, &q, &err), BP_OK,
				      "%s: image %s has no index but is valid", fmt_pos(g, &p),
				      text);
			continue;
		}
		cr_assert_eq(rc, BP_OK);
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
	char spec[64];
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
		/* Landscape: holes (the mover's loop), terminal positions that no game
		 * reaches, and without layout= an index block per neutral set */
		{ "landscape:hex2,neutrals=1,layout=a1", 0 },
		{ "landscape:hex2,neutrals=1,layout=b2", 0 },
		{ "landscape:hex2,neutrals=0", 0 },
		{ "landscape:hex2,neutrals=2", 0 },
		{ "landscape:rh3x3,neutrals=1,layout=a1", 0 },
		{ "landscape:tri4,neutrals=2,layout=a1;a3", 0 },
		{ "landscape:hex3,neutrals=6,layout=a1;a3;c1;c3;c5;e1", 0 },
		{ "landscape:hex3,neutrals=6,layout=a2;b1;b4;c3;d1;d4", 0 },
		/* over 20 cells: no table of cell sets, every symmetry compared */
		{ "landscape:tri6,neutrals=2,layout=a1;a6", 5 },
		{ "landscape:tri6,neutrals=0", 5 },
		/* Chicken: pairs two tiers up, unreached valid positions visited, and
		 * every reading of the keys that change moves or outcomes */
		{ "chicken:hex2", 0 },
		{ "chicken:hex2,forced=free", 0 },
		{ "chicken:hex2,both=opponent,formed=mover", 0 },
		{ "chicken:tri3", 0 },
		{ "chicken:tri3,forced=free", 0 },
		{ "chicken:tri4", 0 },
		{ "chicken:tri4,forced=free", 0 },
		{ "chicken:tri4,forced=free,formed=mover", 0 },
		{ "chicken:tri4,both=opponent,formed=mover", 0 },
		{ "chicken:rh3x3,forced=free,formed=mover", 0 },
		/* over 20 cells: no table of black-stone sets, every symmetry compared */
		{ "chicken:rh5x5", 4 },
		/* revised Glorieta: two-stone drops two tiers up, flips, hands (most
		 * indices holes), colour-exchanging symmetries (24 without a ring) */
		{ "glorieta:hex2", 0 },
		{ "glorieta:hex2,hand=2", 0 },
		{ "glorieta:hex2,hand=3,ring=alt", 0 },
		{ "glorieta:hex2,hand=1,ring=none", 0 },
		{ "glorieta:hex2,hand=2,ring=yyyyyyyyyyyy", 0 },
		{ "glorieta:hex2,hand=3,ring=bybbbbyyyyyb", 0 },
		{ "glorieta:tri3,hand=3,ring=none,both=opponent", 0 },
		{ "glorieta:rh2x3,hand=2,ring=none", 0 },
		{ "glorieta:rh2x2,hand=20,ring=none", 0 },
	};
	return cr_make_param_array(struct walk_case, cases, sizeof cases / sizeof cases[0]);
}

/* Marks in reached[t + 1] and reached[t + 2] every child of the reached positions of
 * tier t. */
static void reach_next(const struct bp_game *g, uint32_t t, uint64_t size, uint8_t **reached)
{
	static struct bp_move mv[4096];
	for (uint64_t i = 0; i < size; i++) {
		struct bp_pos p, c;
		if (!reached[t][i])
			continue;
		cr_assert_eq(g->ops->unrank(g, t, i, &p), BP_OK);
		if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
			continue;
		int n = g->ops->moves(g, &p, mv);
		for (int k = 0; k < n; k++) {
			uint64_t r;
			c = p;
			g->ops->apply(g, &c, mv[k]);
			uint32_t ct = g->ops->tier(g, &c);
			cr_assert(ct == t + 1 || ct == t + 2);
			cr_assert_eq(g->ops->rank(g, &c, &r), BP_OK);
			reached[ct][r] = 1;
		}
	}
}

/* Walks tier t (size indices) with flags and marked in uneven ranges: the first of
 * `step` indices, each next one `grow` longer, every visit checked by check_visit. */
static void walk_in_ranges(const struct bp_game *g, uint32_t t, uint64_t size, uint64_t step,
			   uint64_t grow, unsigned flags, const uint64_t *marked, struct seen *s)
{
	for (uint64_t lo = 0; lo < size; lo += step, step += grow) {
		uint64_t hi = lo + step < size ? lo + step : size;
		cr_assert_eq(g->ops->tier_walk(g, t, lo, hi, flags, marked, check_visit, s), BP_OK);
	}
}

ParameterizedTest(struct walk_case *wc, walk, agrees_with_the_rules)
{
	struct bp_game *g = open_game(wc->spec);
	cr_assert_not_null(g->ops->tier_walk, "%s has no tier walk", wc->spec);
	/* reached positions, raw: tier 0 holds the start */
	struct bp_pos start;
	uint64_t sidx, size0;
	g->ops->start(g, &start);
	cr_assert_eq(g->ops->tier(g, &start), 0);
	cr_assert_eq(g->ops->rank(g, &start, &sidx), BP_OK);
	cr_assert_eq(g->ops->tier_size(g, 0, &size0), BP_OK);
	(void)size0;
	const int unreached = (g->ops->flags & BP_GAME_WALK_UNREACHED) != 0;
	uint8_t **reached = calloc(g->ntiers, sizeof *reached);
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t size = 0;
		g->ops->tier_size(g, t, &size); /* tiers past the checked ones may be too big */
		reached[t] = calloc(t < (wc->tiers ? wc->tiers + 2 : g->ntiers) ? size + 1 : 1, 1);
	}
	reached[0][sidx] = 1;
	for (uint32_t t = 0; t < (wc->tiers ? wc->tiers : g->ntiers); t++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		struct seen s = { .g = g, .tier = t, .visited = calloc(size + 1, 1) };
		/* uneven ranges: 1, 2, 3, ... indices */
		walk_in_ranges(g, t, size, 1, 1, BP_WALK_CHILDREN | BP_WALK_IMAGES, NULL, &s);
		/* with `marked` (fixed pseudo-random bits: half of the indices in one run
		 * of 256 in 16, one in 1024 elsewhere, so that walks that jump to the next
		 * marked index make short and long jumps): the walk may leave out
		 * unmarked positions, no others, and lists the same; asked for the images
		 * of unmarked positions only, it visits every position and may leave out
		 * only the images of marked ones */
		uint64_t *marked = calloc(size / 64 + 1, sizeof *marked);
		for (uint64_t i = 0; i < size; i++)
			if ((i / 256 % 16 ? (i * 0x9e3779b97f4a7c15ull) >> 54 == 0
					  : (i * 0x9e3779b97f4a7c15ull) >> 63))
				marked[i / 64] |= 1ull << (i % 64);
		struct seen sm = { .g = g, .tier = t, .visited = calloc(size + 1, 1) };
		walk_in_ranges(g, t, size, 3, 2,
			       BP_WALK_CHILDREN | BP_WALK_IMAGES | BP_WALK_ONLY_MARKED, marked,
			       &sm);
		struct seen si = {
			.g = g, .tier = t, .visited = calloc(size + 1, 1), .images_optional = marked
		};
		walk_in_ranges(g, t, size, 2, 3,
			       BP_WALK_CHILDREN | BP_WALK_IMAGES | BP_WALK_IMAGES_UNMARKED, marked,
			       &si);
		/* as the forward pass asks: it may leave out the classes with no member
		 * marked, no others */
		struct seen sc = {
			.g = g, .tier = t, .visited = calloc(size + 1, 1), .images_optional = marked
		};
		walk_in_ranges(g, t, size, 5, 4,
			       BP_WALK_CHILDREN | BP_WALK_IMAGES | BP_WALK_IMAGES_UNMARKED |
				       BP_WALK_ONLY_CLASS_MARKED,
			       marked, &sc);
		for (uint64_t i = 0; i < size; i++) {
			cr_assert(!sc.visited[i] || s.visited[i],
				  "tier %u index %llu: visited asking for marked classes only", t,
				  (unsigned long long)i);
			if (!s.visited[i] || sc.visited[i])
				continue;
			struct bp_pos p, c;
			cr_assert_eq(g->ops->unrank(g, t, i, &p), BP_OK);
			for (int sym = 0; sym < g->nsym; sym++) {
				uint64_t r;
				g->ops->transform(g, &p, sym, &c);
				if (g->ops->rank(g, &c, &r) != BP_OK)
					continue;
				cr_assert_not(
					marked[r / 64] >> (r % 64) & 1,
					"tier %u index %llu: left out, but its member %llu is "
					"marked",
					t, (unsigned long long)i, (unsigned long long)r);
			}
		}
		free(sc.visited);
		for (uint64_t i = 0; i < size; i++) {
			int mark = (int)(marked[i / 64] >> (i % 64) & 1);
			cr_assert(!sm.visited[i] || s.visited[i],
				  "tier %u index %llu: visited with marks only", t,
				  (unsigned long long)i);
			cr_assert(!mark || sm.visited[i] == s.visited[i],
				  "tier %u index %llu: marked, left out", t, (unsigned long long)i);
			cr_assert_eq(
				si.visited[i], s.visited[i],
				"tier %u index %llu: visited %d times of %d asking fewer images", t,
				(unsigned long long)i, si.visited[i], s.visited[i]);
		}
		free(sm.visited);
		free(si.visited);
		free(marked);
		/* visited exactly the reached canonical positions (or every valid one) */
		for (uint64_t i = 0; i < size; i++) {
			struct bp_pos p, canon;
			if (s.visited[i]) {
				cr_assert(unreached || reached[t][i],
					  "tier %u index %llu: visited, never reached", t,
					  (unsigned long long)i);
				continue;
			}
			if (!reached[t][i] && !unreached)
				continue;
			if (g->ops->unrank(g, t, i, &p) != BP_OK) {
				cr_assert_not(reached[t][i],
					      "tier %u index %llu: reached, no position", t,
					      (unsigned long long)i);
				continue;
			}
			bp_game_canonical(g, &p, &canon);
			cr_assert_not(bp_pos_equal(&p, &canon),
				      "tier %u index %llu: canonical %s never visited", t,
				      (unsigned long long)i, fmt_pos(g, &p));
		}
		free(s.visited);
		reach_next(g, t, size, reached);
	}
	for (uint32_t t = 0; t < g->ntiers; t++)
		free(reached[t]);
	free(reached);
	bp_game_destroy(g);
}

Test(walk, refuses_a_range_outside_the_tier)
{
	struct bp_game *g = open_game("taifas:2x2");
	uint64_t size;
	cr_assert_eq(g->ops->tier_size(g, 2, &size), BP_OK);
	cr_expect_eq(
		g->ops->tier_walk(g, 2, 0, size + 1, BP_WALK_CHILDREN, NULL, check_visit, NULL),
		BP_ERANGE);
	cr_expect_eq(g->ops->tier_walk(g, 9, 0, 1, BP_WALK_CHILDREN, NULL, check_visit, NULL),
		     BP_ERANGE);
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
		"landscape:hex2,neutrals=1,layout=a1",
		"landscape:hex2,neutrals=0",
		"landscape:hex2,neutrals=2",
		"landscape:rh3x3,neutrals=1,layout=a1",
		"landscape:tri4,neutrals=2,layout=a1;a3",
		"landscape:hex3,neutrals=6,layout=a1;a3;c1;c3;c5;e1",
		"landscape:hex3,neutrals=5,layout=a1;a3;c1;c3;c5",
		"chicken:hex2",
		"chicken:hex2,forced=free",
		"chicken:tri3",
		"chicken:tri3,forced=free,formed=mover",
		"chicken:tri4",
		"chicken:tri4,both=opponent,forced=free,formed=mover",
		"chicken:rh3x3,forced=free",
		/* revised Glorieta: hex2 with every hand size under every named ring */
		"glorieta:hex2,hand=1",
		"glorieta:hex2,hand=2",
		"glorieta:hex2,hand=3",
		"glorieta:hex2,hand=4",
		"glorieta:hex2,hand=5",
		"glorieta:hex2",
		"glorieta:hex2,hand=1,ring=alt",
		"glorieta:hex2,hand=2,ring=alt",
		"glorieta:hex2,hand=3,ring=alt",
		"glorieta:hex2,hand=4,ring=alt",
		"glorieta:hex2,hand=5,ring=alt",
		"glorieta:hex2,ring=alt",
		"glorieta:hex2,hand=1,ring=none",
		"glorieta:hex2,hand=2,ring=none",
		"glorieta:hex2,hand=3,ring=none",
		"glorieta:hex2,hand=4,ring=none",
		"glorieta:hex2,hand=5,ring=none",
		"glorieta:hex2,ring=none",
		"glorieta:hex2,hand=5,both=opponent",
		"glorieta:hex2,hand=2,ring=yyyyyyyyyyyy",
		"glorieta:hex2,hand=3,ring=bybbbbyyyyyb",
		"glorieta:tri3,hand=3,ring=none",
		"glorieta:rh2x3,hand=2,ring=none",
		"glorieta:rh2x2,hand=20,ring=none",
		"glorieta:rh3x3,hand=2,ring=none",
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

/* The walk's records held in 8 bits (every walk game here: fewer than 64 tiers) and in
 * the store's 16 (wide_records) store the same table, fresh and resumed: the compact
 * layout is narrowed on reading a stored tier back and widened on storing. */
ParameterizedTestParameters(expanded, compact_and_wide_records_agree)
{
	static char specs[][64] = { "taifas:3x4", "chicken:tri4,forced=free", "chicken:hex2",
				    "glorieta:hex2,hand=3", "landscape:hex2,neutrals=1,layout=a1" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Stops a solve once it has solved (not resumed) two tiers. */
static int stop_after_two(void *ctx)
{
	return *(int *)ctx >= 2;
}

static void count_tier(void *ctx, const struct bp_solve_progress *p)
{
	*(int *)ctx += p->phase == 1 && !p->resumed;
}

ParameterizedTest(char (*spec)[64], expanded, compact_and_wide_records_agree)
{
	struct bp_game *g = open_game(*spec);
	char *a = temp_db(), *b = temp_db(), *c = temp_db();
	struct bp_solve_result ra =
		solve_into(a, g, (struct bp_solve_opts){ .threads = 2, .block_records = 1024 });
	struct bp_solve_result rb = solve_into(
		b, g,
		(struct bp_solve_opts){ .threads = 2, .block_records = 1024, .wide_records = 1 });
	cr_expect_eq(ra.value, rb.value);
	cr_expect_eq(ra.remoteness, rb.remoteness);
	cr_expect_eq(ra.positions, rb.positions);
	uint64_t want = verify_db(a, g).content_hash;
	cr_expect_eq(verify_db(b, g).content_hash, want, "%s: 8-bit and 16-bit records differ",
		     *spec);
	/* stopped early in one layout, resumed in the other */
	for (int wide = 0; wide < 2; wide++) {
		int solved = 0;
		bp_store *db;
		struct bp_err err = { { 0 } };
		struct bp_solve_result r;
		cr_assert_eq(bp_store_open(c, BP_STORE_CREATE, &db, NULL), BP_OK);
		struct bp_solve_opts o = { .threads = 1,
					   .block_records = 1024,
					   .wide_records = wide,
					   .progress = wide ? NULL : count_tier,
					   .cancel = wide ? NULL : stop_after_two,
					   .ctx = &solved };
		int rc = bp_solve(g, db, &o, &r, &err);
		cr_expect_eq(rc, wide ? BP_OK : BP_ECANCELED, "%s: %s", *spec, err.msg);
		if (wide)
			cr_expect_eq(r.resumed_tiers, 2, "%s", *spec);
		bp_store_close(db);
	}
	cr_expect_eq(verify_db(c, g).content_hash, want, "%s: resumed across layouts", *spec);
	remove_db(a);
	remove_db(b);
	remove_db(c);
	bp_game_destroy(g);
}

/* A solve that stopped after any number of tiers resumes to the same table: the
 * stored tiers are read back and expanded. The stop is simulated by copying the
 * table's tiers from a finished solve one at a time into a fresh database. */
ParameterizedTestParameters(expanded, resumes_from_every_tier)
{
	/* Chicken: two child tiers kept, and the forward pass over stored tiers */
	static char specs[][64] = { "taifas:3x3", "chicken:tri4", "chicken:hex2,forced=free",
				    "glorieta:hex2,hand=3" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], expanded, resumes_from_every_tier)
{
	struct bp_game *g = open_game(*spec);
	char *full = temp_db();
	struct bp_solve_result rf =
		solve_into(full, g, (struct bp_solve_opts){ .threads = 1, .block_records = 1024 });
	uint64_t want = verify_db(full, g).content_hash;
	bp_store *src;
	bp_table *st;
	cr_assert_eq(bp_store_open(full, BP_STORE_READONLY, &src, NULL), BP_OK);
	cr_assert_eq(bp_table_open(src, g->spec, NULL, BP_STORE_READONLY, &st, NULL), BP_OK);
	bp_probe_set_holes(st, g);
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
		bp_probe_set_holes(dt, g);
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

/* The memory plans against the peak the solve reached, loosely (tiny instances: the
 * base dominates, and the test process is not the command's): each engine's estimate
 * is within a factor of two of its peak. A 64 MiB allowance, as the plans had, fails
 * this; bench/plan_vs_peak.sh measures the ratio on larger instances. */
struct plan_case {
	char spec[32];
	enum bp_engine engine;
};

ParameterizedTestParameters(expanded, memory_plan_near_the_peak)
{
	static struct plan_case cases[] = {
		{ "taifas:3x4", BP_ENGINE_WALK },    { "taifas:3x4", BP_ENGINE_TIERS },
		{ "chicken:tri4", BP_ENGINE_WALK },  { "chicken:tri4", BP_ENGINE_TIERS },
		{ "glorieta:hex2", BP_ENGINE_WALK }, { "glorieta:hex2", BP_ENGINE_TIERS },
		{ "blooms:tri3", BP_ENGINE_CYCLES },
	};
	return cr_make_param_array(struct plan_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct plan_case *pc, expanded, memory_plan_near_the_peak)
{
	if (BP_TEST_ASAN)
		cr_skip_test("the peak resident set means nothing under AddressSanitizer");
	/* a test process is forked from Criterion's runner and starts with the runner's
	 * resident set as its peak (larger while tests run in parallel): reset it (Linux
	 * 4.0 and later; elsewhere the figure keeps the runner's) */
	FILE *cr = fopen("/proc/self/clear_refs", "w");
	if (cr) {
		fputs("5", cr);
		fclose(cr);
	}
	/* the pages still shared with the runner count in the peak too: once seen, under
	 * load, 18 MB against an estimate of 9 MB. What the process holds at the start
	 * beyond a small program's 4 MiB is the runner's, not the solve's. */
	uint64_t inherited = 0;
	FILE *sm = fopen("/proc/self/statm", "r");
	unsigned long long pages_total, pages_resident;
	if (sm && fscanf(sm, "%llu %llu", &pages_total, &pages_resident) == 2) {
		uint64_t rss = (uint64_t)pages_resident * (uint64_t)sysconf(_SC_PAGESIZE);
		inherited = rss > ((uint64_t)4 << 20) ? rss - ((uint64_t)4 << 20) : 0;
	}
	if (sm)
		fclose(sm);
	struct bp_game *g = open_game(pc->spec);
	char *db = temp_db();
	struct bp_solve_result r =
		solve_into(db, g, (struct bp_solve_opts){ .threads = 1, .engine = pc->engine });
	cr_assert_gt(r.peak_memory, inherited);
	double ratio = (double)r.memory_estimate / (double)(r.peak_memory - inherited);
	cr_expect(ratio > 0.5 && ratio < 2.0,
		  "%s, %s: estimate %llu, peak %llu less %llu held at the start (ratio %.2f)",
		  pc->spec, bp_engine_name(pc->engine), (unsigned long long)r.memory_estimate,
		  (unsigned long long)r.peak_memory, (unsigned long long)inherited, ratio);
	remove_db(db);
	bp_game_destroy(g);
}

/* ---- segments (bp_game_ops.walk_segments) ------------------------------------ */

/* The game's segments tile every tier, come after every segment they read, and hold
 * every child the walk lists: a child of a position of segment s lies in one of s's
 * declared children (of the tier it lies in). So no segment is solved before one it
 * reads, whatever the engine does with them. */
struct seg_check {
	const struct bp_segment *sg;
	int n, at; /* the segment walked */
	uint64_t children;
};

static int seg_has(const struct seg_check *c, uint32_t tier, uint64_t idx)
{
	const struct bp_segment *s = &c->sg[c->at];
	for (int j = 0; j < s->nchildren; j++) {
		const struct bp_segment *k = &c->sg[s->children[j]];
		if (k->tier == tier && idx >= k->lo && idx < k->hi)
			return 1;
	}
	return 0;
}

static int seg_visit(void *ctx, const struct bp_walk *w)
{
	struct seg_check *c = ctx;
	uint32_t t = c->sg[c->at].tier;
	for (int i = 0; i < w->nchildren; i++) {
		cr_expect(seg_has(c, t + 1, w->children[i]),
			  "segment %d: child %llu of %llu outside its declared children", c->at,
			  (unsigned long long)w->children[i], (unsigned long long)w->index);
		c->children++;
	}
	for (int i = 0; i < w->nfar; i++) {
		cr_expect(seg_has(c, t + 2, w->far[i]),
			  "segment %d: far child %llu of %llu outside its declared children", c->at,
			  (unsigned long long)w->far[i], (unsigned long long)w->index);
		c->children++;
	}
	return BP_OK;
}

ParameterizedTestParameters(segments, every_child_lies_in_a_segment_solved_before)
{
	static char specs[][64] = { "chicken:tri4", "chicken:hex2,forced=free", "chicken:rh3x3",
				    "chicken:tri5" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], segments, every_child_lies_in_a_segment_solved_before)
{
	struct bp_game *g = open_game(*spec);
	cr_assert_not_null(g->ops->walk_segments);
	int n = g->ops->walk_segments(g, NULL, 0);
	cr_assert_gt(n, (int)g->ntiers - 1);
	struct bp_segment *sg = calloc((size_t)n, sizeof *sg);
	cr_assert_eq(g->ops->walk_segments(g, sg, n), n);
	/* tiled: each tier's segments, by index, cover it once */
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t size, at = 0;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		for (int found = 1; found;) {
			found = 0;
			for (int i = 0; i < n; i++)
				if (sg[i].tier == t && sg[i].lo == at && sg[i].hi > at) {
					at = sg[i].hi;
					found = 1;
				}
		}
		cr_expect_eq(at, size, "%s tier %u: segments cover %llu of %llu", *spec, t,
			     (unsigned long long)at, (unsigned long long)size);
	}
	struct seg_check c = { .sg = sg, .n = n };
	for (c.at = 0; c.at < n; c.at++) {
		for (int j = 0; j < sg[c.at].nchildren; j++) {
			int k = sg[c.at].children[j];
			cr_expect(k >= 0 && k < c.at, "%s: segment %d reads %d, not before it",
				  *spec, c.at, k);
		}
		cr_expect_eq(g->ops->tier_walk(g, sg[c.at].tier, sg[c.at].lo, sg[c.at].hi,
					       BP_WALK_CHILDREN, NULL, seg_visit, &c),
			     BP_OK);
	}
	cr_expect_gt(c.children, 0);
	free(sg);
	bp_game_destroy(g);
}

/* Stops after a few work items (the cancel hook polled before each): ctx[0] counts the
 * polls, ctx[1] is the limit. */
static int stop_soon(void *ctx)
{
	int *polls = ctx;
	return ++polls[0] > polls[1];
}

/* The scratch files in dir whose names match the grep pattern pat; first gets the
 * path of the first one (by name). */
static int scratch_files(const char *dir, const char *pat, char *first, size_t len)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '%s'", dir, pat);
	FILE *p = popen(cmd, "r");
	int n = 0;
	cr_assert_not_null(p);
	cr_expect_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	snprintf(cmd, sizeof cmd, "ls '%s' | grep '%s' | head -1", dir, pat);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	char name[256] = "";
	if (fgets(name, sizeof name, p))
		name[strcspn(name, "\n")] = 0;
	pclose(p);
	snprintf(first, len, "%s/%s", dir, name);
	return n;
}

static int seg_files(const char *dir, char *first, size_t len)
{
	return scratch_files(dir, "^walk-.*\\.seg$", first, len);
}

/* Flips a bit of the last byte of path: its length and head still fit. */
static void damage_file(const char *path)
{
	FILE *f = fopen(path, "r+b");
	cr_assert_not_null(f, "%s", path);
	fseek(f, -1, SEEK_END);
	int ch = fgetc(f);
	fseek(f, -1, SEEK_END);
	fputc(ch ^ 0x04, f);
	fclose(f);
}

/* Interrupted mid-way through the segments (no tier, or a few, stored yet), a solve
 * resumes from the segments' scratch files to the uninterrupted table and leaves no
 * file behind; a file damaged in between is found, removed and solved again. */
ParameterizedTestParameters(segments, a_stopped_solve_resumes_from_its_segments)
{
	static char specs[][64] = { "chicken:tri4", "chicken:hex2,forced=free" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], segments, a_stopped_solve_resumes_from_its_segments)
{
	struct bp_game *g = open_game(*spec);
	char *ref = temp_db(), *dir = temp_db();
	struct bp_solve_result rf = solve_into(ref, g,
					       (struct bp_solve_opts){ .threads = 1,
								       .block_records = 1024,
								       .engine = BP_ENGINE_TIERS });
	uint64_t want = verify_db(ref, g).content_hash;
	for (int damage = 0; damage < 2; damage++) {
		/* the forward pass polls once a tier; then ten segments' items */
		int polls[2] = { 0, (int)g->ntiers + 10 };
		bp_store *db;
		struct bp_err err = { { 0 } };
		struct bp_solve_result r;
		char file[512];
		cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
		struct bp_solve_opts o = {
			.threads = 1, .block_records = 1024, .cancel = stop_soon, .ctx = polls
		};
		cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ECANCELED, "%s", err.msg);
		bp_store_close(db);
		int files = seg_files(dir, file, sizeof file);
		cr_assert_gt(files, 0, "%s: no segment file after the stop", *spec);
		if (damage) { /* one record byte flipped: the file's length and head still fit */
			damage_file(file);
			cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
			o.cancel = NULL;
			int rc = bp_solve(g, db, &o, &r, &err);
			bp_store_close(db);
			cr_expect_eq(rc, BP_ECORRUPT, "%s: a damaged segment file was used", *spec);
			cr_expect(strstr(err.msg, "checksum") != NULL, "%s", err.msg);
			cr_expect_eq(access(file, F_OK), -1, "%s: the damaged file stays", file);
		}
		struct bp_solve_result rr = solve_into(
			dir, g, (struct bp_solve_opts){ .threads = 2, .block_records = 1024 });
		if (!damage)
			cr_expect_eq(rr.resumed_segments, (uint32_t)files, "%s", *spec);
		/* the forward pass was over before the stop: taken back whole */
		cr_expect_eq(rr.resumed_reach_tiers, g->ntiers, "%s", *spec);
		cr_expect_eq(rr.positions, rf.positions);
		cr_expect_eq(rr.value, rf.value);
		cr_expect_eq(verify_db(dir, g).content_hash, want, "%s: resumed from segments",
			     *spec);
		cr_expect_eq(seg_files(dir, file, sizeof file), 0, "%s: files left", *spec);
		remove_db(dir);
		dir = temp_db();
	}
	remove_db(ref);
	remove_db(dir);
	bp_game_destroy(g);
}

/* Stops a solve after a number of polls of the cancel hook and counts the forward
 * pass's tiers reported (progress, phase 0), and of those the ones taken from files. */
struct reach_watch {
	int polls, limit;
	uint32_t marked, resumed;
};

static int reach_stop(void *ctx)
{
	struct reach_watch *w = ctx;
	return w->limit > 0 && ++w->polls > w->limit;
}

static void reach_progress(void *ctx, const struct bp_solve_progress *p)
{
	struct reach_watch *w = ctx;
	if (p->phase == 0) {
		w->marked++;
		w->resumed += p->resumed ? 1 : 0;
	}
}

/* Stopped during the forward pass (BP_GAME_WALK_UNREACHED), a solve leaves the reached
 * bits of the tiers marked so far in scratch files; the resumed solve takes those tiers
 * back and marks only the rest, to the uninterrupted table, and leaves no file behind.
 * A file damaged in between is found, removed and its tiers marked again. */
ParameterizedTestParameters(reach, a_stopped_forward_pass_resumes_from_its_files)
{
	static char specs[][64] = { "chicken:tri4", "chicken:hex2,forced=free" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], reach, a_stopped_forward_pass_resumes_from_its_files)
{
	struct bp_game *g = open_game(*spec);
	char *ref = temp_db(), *dir = temp_db();
	struct bp_solve_result rf = solve_into(ref, g,
					       (struct bp_solve_opts){ .threads = 1,
								       .block_records = 1024,
								       .engine = BP_ENGINE_TIERS });
	uint64_t want = verify_db(ref, g).content_hash;
	for (int damage = 0; damage < 2; damage++) {
		/* the forward pass polls once a work item: stop half way up the tiers */
		struct reach_watch w = { .limit = (int)g->ntiers / 2 };
		bp_store *db;
		struct bp_err err = { { 0 } };
		struct bp_solve_result r;
		char file[512];
		cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
		struct bp_solve_opts o = { .threads = 1,
					   .block_records = 1024,
					   .cancel = reach_stop,
					   .progress = reach_progress,
					   .ctx = &w };
		cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ECANCELED, "%s", err.msg);
		bp_store_close(db);
		uint32_t marked = w.marked;
		cr_assert(marked > 0 && marked < g->ntiers, "%s: %u tiers marked before the stop",
			  *spec, marked);
		cr_expect_eq(seg_files(dir, file, sizeof file), 0, "%s", *spec);
		int files = scratch_files(dir, "^walk-.*-reach-0\\.bits$", file, sizeof file);
		cr_assert_eq(files, 1, "%s: no file of tier 0's bits after the stop", *spec);
		if (damage)
			damage_file(file);
		char tmp[600]; /* as a kill leaves a file half-written: gone at the end too */
		snprintf(tmp, sizeof tmp, "%s.tmp", file);
		FILE *f = fopen(tmp, "w");
		cr_assert_not_null(f);
		fclose(f);
		w = (struct reach_watch){ 0 };
		struct bp_solve_result rr =
			solve_into(dir, g,
				   (struct bp_solve_opts){ .threads = 2,
							   .block_records = 1024,
							   .progress = reach_progress,
							   .ctx = &w });
		/* tier 0 (the start's) and those above it marked before the stop, or none */
		uint32_t taken = damage ? 0 : marked;
		cr_expect_eq(rr.resumed_reach_tiers, taken, "%s: damage %d", *spec, damage);
		cr_expect_eq(w.resumed, taken, "%s: damage %d", *spec, damage);
		cr_expect_eq(w.marked, g->ntiers, "%s", *spec);
		cr_expect_eq(rr.damaged_reach_files, (uint32_t)damage, "%s", *spec);
		cr_expect_eq(access(file, F_OK), -1, "%s: left behind", file);
		cr_expect_eq(rr.positions, rf.positions);
		cr_expect_eq(verify_db(dir, g).content_hash, want, "%s: resumed marking", *spec);
		cr_expect_eq(scratch_files(dir, "^walk-", file, sizeof file), 0, "%s: files left",
			     *spec);
		remove_db(dir);
		dir = temp_db();
	}
	remove_db(ref);
	remove_db(dir);
	bp_game_destroy(g);
}

/* solve --replace's step: an interrupted solve's scratch files (segments and reached
 * bits) go, another table's stay. */
Test(reach, removing_scratch_files_takes_only_the_tables_own)
{
	struct bp_game *g = open_game("chicken:tri4");
	char *dir = temp_db();
	int polls[2] = { 0, (int)g->ntiers + 10 }; /* past the forward pass, into segments */
	bp_store *db;
	struct bp_err err = { { 0 } };
	struct bp_solve_result r;
	char file[512], other[600];
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, NULL), BP_OK);
	struct bp_solve_opts o = { .threads = 1, .cancel = stop_soon, .ctx = polls };
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_ECANCELED, "%s", err.msg);
	int segs = seg_files(dir, file, sizeof file);
	int bits = scratch_files(dir, "\\.bits$", file, sizeof file);
	cr_assert_gt(segs, 0);
	cr_assert_eq(bits, (int)g->ntiers);
	snprintf(other, sizeof other, "%s/walk-0123456789abcdef-reach-0.bits", dir);
	FILE *f = fopen(other, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_expect_eq(bp_solve_remove_scratch(g, db), segs + bits);
	cr_expect_eq(scratch_files(dir, "^walk-", file, sizeof file), 1);
	cr_expect_eq(access(other, F_OK), 0, "another table's file was removed");
	cr_expect_eq(bp_solve_remove_scratch(g, db), 0);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
