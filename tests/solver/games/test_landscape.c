/* SPDX-License-Identifier: MIT */
/* Glorieta "Landscape" (RULES.md sections 3 and 5): layouts and their validation,
 * loops through neutral stones, the full-board draw, symmetries that keep the layout,
 * layout enumeration against brute force, malformed positions, ranking, and a naive
 * second implementation compared node by node. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <gmp.h>

#include "canon/symmetry.h"
#include "naive_loops.h"
#include "naive_solve.h"
#include "solver/games/landscape.h"
#include "solver/games/perft.h"

/* ---- the naive reference ---------------------------------------------------- */

struct nland {
	char cell[64];
	char winner; /* 0, 'b', 'o', 'd' */
};

static char n_to_move(const struct bp_board *b, const struct nland *s)
{
	int nb = 0, no = 0;
	for (int c = 0; c < b->ncells; c++) {
		nb += s->cell[c] == 'b';
		no += s->cell[c] == 'o';
	}
	return nb > no ? 'o' : 'b';
}

static void n_play(const struct naive_geo *geo, struct nland *s, int c, int both_mover)
{
	char me = n_to_move(geo->b, s), other = me == 'b' ? 'o' : 'b';
	s->cell[c] = me;
	int mine = naive_has_loop(geo, s->cell, me), theirs = naive_has_loop(geo, s->cell, other);
	if (mine && theirs)
		s->winner = both_mover ? me : other;
	else if (mine || theirs)
		s->winner = mine ? me : other;
	else if (!memchr(s->cell, '.', (size_t)geo->b->ncells))
		s->winner = 'd';
}

static enum bp_value n_outcome(const struct naive_geo *geo, const struct nland *s)
{
	if (!s->winner)
		return BP_VALUE_NONE;
	if (s->winner == 'd')
		return BP_VALUE_DRAW;
	return s->winner == n_to_move(geo->b, s) ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static void lockstep(const struct bp_game *g, const struct naive_geo *geo, const struct nland *s,
		     const struct bp_pos *p, int d, int depth, uint64_t *counts)
{
	char text[512];
	naive_rows(g->board, s->cell, text);
	sprintf(text + strlen(text), " %c", n_to_move(g->board, s));
	cr_assert_str_eq(fmt_pos(g, p), text);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(geo, s), "%s: outcome of '%s'", g->spec,
		     text);
	check_position_invariants(g, p);
	if (s->winner)
		return;
	struct bp_move mv[64];
	int n = g->ops->moves(g, p, mv), k = 0;
	for (int c = 0; c < g->board->ncells; c++) {
		if (s->cell[c] != '.')
			continue;
		cr_assert_lt(k, n);
		cr_assert_eq((int)mv[k].v, c, "%s: moves differ in '%s'", g->spec, text);
		k++;
		counts[d + 1]++;
		if (d + 1 < depth) {
			struct nland t = *s;
			n_play(geo, &t, c, 1);
			struct bp_pos q = *p;
			g->ops->apply(g, &q, mv[k - 1]);
			lockstep(g, geo, &t, &q, d + 1, depth, counts);
		}
	}
	cr_assert_eq(k, n, "%s: %d naive moves, %d fast in '%s'", g->spec, k, n, text);
}

struct perft_case {
	char spec[64];
	int depth;
};

ParameterizedTestParameters(landscape, perft_matches_naive)
{
	static struct perft_case cases[] = {
		{ "landscape:hex2,neutrals=1", 7 },
		{ "landscape:hex2,neutrals=1,layout=b2", 7 },
		{ "landscape:hex3,neutrals=3", 4 },
		{ "landscape:hex3,neutrals=6,layout=a2;b4;c1;c3;d4;e2", 5 },
		{ "landscape:rh3x3,neutrals=2", 8 },
	};
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct perft_case *pc, landscape, perft_matches_naive)
{
	struct bp_game *g = open_game(pc->spec);
	struct naive_geo geo;
	naive_geo_init(&geo, g->board, NULL);
	struct bp_pos p;
	g->ops->start(g, &p);
	struct nland s;
	memset(&s, 0, sizeof s);
	for (int c = 0; c < g->board->ncells; c++)
		s.cell[c] = g->ops->cell_char(g, &p, c);
	uint64_t naive[20] = { 0 }, fast[20] = { 0 };
	naive[0] = 1;
	lockstep(g, &geo, &s, &p, 0, pc->depth, naive);
	cr_assert_eq(bp_perft(g, &p, pc->depth, fast), BP_OK);
	for (int d = 1; d <= pc->depth; d++)
		cr_expect_eq(fast[d], naive[d], "%s perft %d", pc->spec, d);
	bp_game_destroy(g);
}

/* Random games to the end, both implementations in lockstep. */
Test(landscape, random_games_match_naive)
{
	static const char *specs[] = { "landscape:hex3,neutrals=4", "landscape:hex4,neutrals=8",
				       "landscape:hex3,neutrals=2,layout=b2;d3" };
	unsigned seed = 777;
	printf("landscape random_games_match_naive: seed %u\n", seed);
	srand(seed);
	for (int v = 0; v < 3; v++) {
		struct bp_game *g = open_game(specs[v]);
		struct naive_geo geo;
		naive_geo_init(&geo, g->board, NULL);
		int loops = 0;
		for (int game = 0; game < 40; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			struct nland s;
			memset(&s, 0, sizeof s);
			for (int c = 0; c < g->board->ncells; c++)
				s.cell[c] = g->ops->cell_char(g, &p, c);
			for (;;) {
				uint64_t counts[2] = { 0 };
				lockstep(g, &geo, &s, &p, 0, 1, counts);
				struct bp_move mv[64];
				int n = g->ops->moves(g, &p, mv);
				if (!n)
					break;
				struct bp_move m = mv[rand() % n];
				g->ops->apply(g, &p, m);
				n_play(&geo, &s, (int)m.v, 1);
			}
			loops += s.winner == 'b' || s.winner == 'o';
		}
		cr_expect_gt(loops, 0, "%s: no game ended in a loop", specs[v]);
		bp_game_destroy(g);
	}
}

/* ---- hand-made positions ----------------------------------------------------- */

Test(landscape, layout_and_start)
{
	struct bp_game *g = open_game("landscape:hex3,neutrals=3,layout=e3;a1;c3");
	cr_expect_str_eq(g->spec, "landscape:hex3,both=mover,layout=a1;c3;e3,neutrals=3",
			 "the layout is spelled in board order");
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_str_eq(fmt_pos(g, &p), "n2/4/2n2/4/2n b");
	/* the symmetries keeping {a1, c3, e3}: the identity and the reflection through
	 * the a1-e3 axis... and the half turn maps a1 to e3 */
	cr_expect_eq(g->nsym, 4);
	bp_game_destroy(g);
	/* without a layout: the colex-first layout */
	g = open_game("landscape:hex3,neutrals=3");
	g->ops->start(g, &p);
	cr_expect_str_eq(fmt_pos(g, &p), "1n1/n2n/5/4/3 b");
	cr_expect_eq(g->nsym, 2, "the symmetries of the start layout a2;b1;b4");
	bp_game_destroy(g);
}

Test(landscape, spec_errors)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create("landscape:hex3", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "neutrals"), "%s", err.msg);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=2,layout=a1;a2", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "adjacent"), "%s", err.msg);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=3,layout=a1;c3", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "names 2 cells"), "%s", err.msg);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=2,layout=a1;z9", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=2,layout=a1;a1", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=2,layout=a1,c3", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("landscape:hex2,neutrals=4", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "no 4 cells"), "%s", err.msg);
	cr_expect_eq(bp_game_create("landscape:hex3,neutrals=x", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("landscape:9x9,neutrals=2", &g, &err), BP_ESPEC);
}

/* hex3: the six around c3 are b2 b3 c2 c4 d2 d3. With neutrals on b2 and d3 black
 * needs only four stones. */
Test(landscape, loop_through_neutrals)
{
	const char *spec = "landscape:hex3,neutrals=2,layout=b2;d3";
	struct bp_game *g = open_game(spec);
	struct bp_pos p = parse_pos(g, "o1o/1nb1/1b1b1/2n1/o2 b");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	struct bp_move m;
	cr_assert_eq(g->ops->move_parse(g, &p, "d2", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS, "black's loop; orange to move");
	struct bp_text j = { 0 }, t = { 0 };
	g->ops->describe(g, &p, &j, &t);
	cr_expect(strstr(bp_text_str(&j),
			 "\"b\": {\"loops\": 1, \"cells\": [\"b2\", \"b3\", "
			 "\"c2\", \"c4\", \"d2\", \"d3\"], \"enclosed\": [\"c3\"]"),
		  "%s", bp_text_str(&j));
	bp_text_free(&j);
	bp_text_free(&t);
	/* a chain along the edge is no loop */
	p = parse_pos(g, "bbb/1n1b/o3b/o1n1/oo1 o");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	bp_game_destroy(g);
}

/* Rules version 2: a flower is a loop whatever its centre holds. With the one neutral
 * on c3, black's six around it close a loop round a cell of black's own group set; an
 * orange stone in the centre is enclosed as well. */
Test(landscape, flower_around_neutral_or_opponent_centre)
{
	const char *spec = "landscape:hex3,neutrals=1,layout=c3";
	char res[2048];
	const char *before = "o1o/1bb1/obnb1/1b2/o1o b";
	cr_assert_eq(outcome_of(spec, before), BP_VALUE_NONE);
	cr_expect_eq(after(spec, before, "d3", res), BP_VALUE_LOSS, "black's loop round n");
	cr_expect_eq(after(spec, before, "e2", res), BP_VALUE_NONE, "a petal still missing");
	cr_expect_eq(after("landscape:hex3,neutrals=1,layout=a2", "ono/1bb1/1bob1/1b2/o1o b", "d3",
			   NULL),
		     BP_VALUE_LOSS, "black's loop round an orange stone");
}

Test(landscape, full_board_is_a_draw)
{
	/* tri3 has no inner cell: the board fills without a loop */
	struct bp_game *g = open_game("landscape:tri3,neutrals=1,layout=a1");
	struct bp_pos p = parse_pos(g, "nbo/bo/1 b");
	struct bp_move m;
	cr_assert_eq(g->ops->move_parse(g, &p, "c1", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_DRAW);
	struct bp_move mv[8];
	cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	bp_game_destroy(g);
}

struct bad_case {
	char spec[64];
	char text[64];
	char needle[48];
};

ParameterizedTestParameters(landscape, malformed)
{
	static struct bad_case cases[] = {
		{ "landscape:hex2,neutrals=1", "nb/3/2 b", "side to move is b" },
		{ "landscape:hex2,neutrals=1", "nb/b2/2 o", "2 black and 0 orange" },
		{ "landscape:hex2,neutrals=1", "2/3/2 b", "0 neutral stones" },
		{ "landscape:hex2,neutrals=2", "nn/3/2 b", "are adjacent" },
		{ "landscape:hex2,neutrals=1,layout=b2", "n1/3/2 b", "not on the layout" },
		{ "landscape:hex2,neutrals=1", "n1/3/2 b declined=-", "unknown key" },
		{ "landscape:hex2,neutrals=1", "n1/3/2 y", "side to move 'y'" },
		/* orange to move owns a loop: only the mover's loop can form */
		{ "landscape:hex3,neutrals=2,layout=b2;d3", "b1b/1no1/1o1o1/bon1/b1b o",
		  "the player to move, has a loop" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, landscape, malformed)
{
	expect_malformed(bc->spec, bc->text, bc->needle);
}

Test(landscape, move_errors)
{
	struct bp_game *g = open_game("landscape:hex2,neutrals=1,layout=b2");
	struct bp_pos p;
	g->ops->start(g, &p);
	struct bp_move m;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "b2", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "neutral"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "a1+a2", &m, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "q1", &m, &err), BP_EPARSE);
	bp_game_destroy(g);
}

/* ---- layouts ------------------------------------------------------------------- */

/* Brute force: every k-subset of the cells, checked for adjacency, and its smallest
 * image under the board's symmetries (applied cell by cell). */
static void brute_layouts(const struct bp_board *b, int k, unsigned long *raw,
			  unsigned long *classes)
{
	*raw = *classes = 0;
	int n = b->ncells;
	for (uint64_t m = 0; m < (1ull << n); m++) {
		if (__builtin_popcountll(m) != k)
			continue;
		int ok = 1;
		for (int c = 0; c < n && ok; c++)
			for (int i = 0; i < b->cells[c].degree && ok; i++)
				if (m >> c & 1 && m >> b->cells[c].nb[i] & 1)
					ok = 0;
		if (!ok)
			continue;
		(*raw)++;
		int smallest = 1;
		for (int s = 0; s < b->nsym && smallest; s++) {
			uint64_t img = 0;
			for (int c = 0; c < n; c++)
				if (m >> c & 1)
					img |= 1ull << bp_board_sym(b, s, c);
			if (img < m)
				smallest = 0;
		}
		*classes += (unsigned long)smallest;
	}
}

static int sum_orbits(void *ctx, uint64_t layout, int orbit)
{
	(void)layout;
	*(long *)ctx += orbit;
	return 0;
}

ParameterizedTestParameters(landscape, layouts_match_brute_force)
{
	static char boards[][16] = { "hex2", "hex3", "tri4", "rh3x4", "rh4x4", "tri5" };
	return cr_make_param_array(char[16], boards, sizeof boards / sizeof boards[0]);
}

ParameterizedTest(char (*name)[16], landscape, layouts_match_brute_force)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	mpz_t raw, classes, draw, dclasses;
	mpz_inits(raw, classes, draw, dclasses, NULL);
	for (int k = 0; k <= 7; k++) {
		unsigned long braw, bclasses;
		brute_layouts(b, k, &braw, &bclasses);
		long orbits = 0;
		cr_assert_eq(bp_landscape_layouts(b, k, sum_orbits, &orbits, raw, classes), BP_OK);
		cr_expect_eq(mpz_get_ui(raw), braw, "%s k=%d raw", *name, k);
		cr_expect_eq(mpz_get_ui(classes), bclasses, "%s k=%d classes", *name, k);
		cr_expect_eq((unsigned long)orbits, braw, "%s k=%d: orbits sum to the layouts",
			     *name, k);
		cr_assert_eq(bp_landscape_count_layouts(b, k, draw, dclasses), BP_OK);
		cr_expect_eq(mpz_get_ui(draw), braw, "%s k=%d raw (dynamic program)", *name, k);
		cr_expect_eq(mpz_get_ui(dclasses), bclasses, "%s k=%d classes (dynamic program)",
			     *name, k);
	}
	mpz_clears(raw, classes, draw, dclasses, NULL);
	bp_board_destroy(b);
}

/* ---- ranking ------------------------------------------------------------------- */

Test(landscape, rank_unrank_every_index)
{
	static const char *specs[] = { "landscape:hex2,neutrals=1",
				       "landscape:hex3,neutrals=4,layout=a1;a3;c3;e2" };
	for (int v = 0; v < 2; v++) {
		struct bp_game *g = open_game(specs[v]);
		expect_rank_round_trip(g, UINT32_MAX, 1);
		bp_game_destroy(g);
	}
}

/* ---- the naive minimax against every solver ------------------------------------- */

struct nland_rules {
	struct naive_geo geo;
	int both_mover;
};

static int nl_children(const void *rules, const void *state, void *out)
{
	const struct nland_rules *R = rules;
	const struct nland *s = state;
	struct nland *kids = out;
	int n = 0;
	if (s->winner)
		return 0;
	for (int c = 0; c < R->geo.b->ncells; c++)
		if (s->cell[c] == '.') {
			kids[n] = *s;
			n_play(&R->geo, &kids[n++], c, R->both_mover);
		}
	return n;
}

static enum bp_value nl_outcome(const void *rules, const void *state)
{
	return n_outcome(&((const struct nland_rules *)rules)->geo, state);
}

static void nl_text(const void *rules, const void *state, char *out)
{
	const struct nland_rules *R = rules;
	naive_rows(R->geo.b, ((const struct nland *)state)->cell, out);
	sprintf(out + strlen(out), " %c", n_to_move(R->geo.b, state));
}

ParameterizedTestParameters(landscape, naive_minimax_agrees_with_every_solver)
{
	static char specs[][64] = {
		"landscape:hex2,neutrals=1,layout=b2",
		"landscape:hex2,neutrals=2,layout=a1;c2",
		"landscape:hex2,neutrals=2,layout=a1;c2,both=opponent",
		"landscape:hex3,neutrals=7,layout=a2;b1;b4;c3;d1;d4;e2",
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Every position reachable under the naive rules has, in the tables of the tiered
 * and the level-pass solvers, the value and remoteness of a naive minimax. */
ParameterizedTest(char (*spec)[64], landscape, naive_minimax_agrees_with_every_solver)
{
	struct bp_game *g = open_game(*spec);
	struct nland_rules R;
	naive_geo_init(&R.geo, g->board, NULL);
	R.both_mover = strcmp(bp_game_option(g, "both"), "mover") == 0;
	struct nland s;
	memset(&s, 0, sizeof s);
	memset(s.cell, '.', sizeof s.cell);
	struct bp_pos p;
	g->ops->start(g, &p);
	for (int c = 0; c < g->board->ncells; c++)
		s.cell[c] = g->ops->cell_char(g, &p, c) == 'n' ? 'n' : '.';
	struct naive_game ng = { .size = sizeof s,
				 .max_children = g->board->ncells,
				 .rules = &R,
				 .children = nl_children,
				 .outcome = nl_outcome,
				 .text = nl_text };
	size_t n = naive_check_solvers(g, &ng, &s, 1u << 19);
	printf("%s: %zu positions agree with the naive minimax\n", *spec, n);
	bp_game_destroy(g);
}

/* ---- the structural holes ------------------------------------------------------ */

/* canonical_mask agrees with the naive holes on every index of small instances:
 * unrank() accepts the index and canonical() leaves the position as it is. Free
 * layouts (a block per neutral set: holes for the sets that are not layouts, and
 * symmetries that move the others), fixed layouts with 2 to 12 symmetries, and a
 * board over BP_CELLSETS_CELLS cells (no cell-set table: the test per position, its
 * lower tiers), and the top tiers of hex3 (orange patterns over 16 cells); whole tiers
 * and seeded random ranges. The tier walk visits fewer (it
 * drops the positions whose loop cannot have been formed last), and some instances
 * have such positions: the mask must keep them. */
Test(landscape, canonical_mask_matches_naive)
{
	static const struct {
		const char *spec;
		uint32_t from, to; /* the tiers tested */
	} cases[] = {
		{ "landscape:hex2,neutrals=1", 0, UINT32_MAX },
		{ "landscape:hex2,neutrals=2", 0, UINT32_MAX },
		{ "landscape:tri4,neutrals=2", 0, UINT32_MAX },
		{ "landscape:rh3x3,neutrals=2", 0, UINT32_MAX },
		{ "landscape:hex2,neutrals=1,layout=b2", 0, UINT32_MAX },
		{ "landscape:hex3,neutrals=7,layout=a2;b1;b4;c3;d1;d4;e2", 0, UINT32_MAX },
		{ "landscape:hex3,neutrals=6,layout=a1;a3;c1;c3;c5;e1", 0, UINT32_MAX },
		{ "landscape:tri6,neutrals=7,layout=a3;a6;b1;b4;c2;d3;e1", 0, 9 },
		/* tiers over 17 stones: patterns of more than 8 + 8 cells */
		{ "landscape:hex3,neutrals=1,layout=a1", 17, 18 },
		{ "landscape:hex3,neutrals=0", 19, 19 },
	};
	uint64_t state = 20261202, unreached_all = 0;
	printf("landscape.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)state);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const char *spec = cases[c].spec;
		struct bp_game *g = open_game(spec);
		cr_assert(g->ops->canonical_mask);
		uint64_t set = 0, all = 0, unreached = 0;
		for (uint32_t t = cases[c].from; t < g->ntiers && t <= cases[c].to; t++) {
			uint64_t size;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			if (!size)
				continue;
			uint8_t *want = malloc(size);
			uint64_t *walk = malloc(((size + 63) / 64 + 1) * 8);
			cr_assert(want && walk);
			for (uint64_t i = 0; i < size; i++)
				set += want[i] = (uint8_t)naive_valid_canonical(g, t, i);
			all += size;
			expect_canonical_mask(g, t, size, want, 20, &state, spec);
			uint64_t past;
			cr_expect_eq(g->ops->canonical_mask(g, t, size, 1, &past), BP_ERANGE);
			/* the walk's visits: within the mask, and fewer where a loop cannot
			 * have been formed last */
			cr_assert_eq(bp_game_walk_mask(g, t, 0, (uint32_t)size, walk), BP_OK);
			for (uint64_t i = 0; i < size; i++) {
				const int w = walk[i / 64] >> i % 64 & 1;
				cr_expect(!w || want[i],
					  "%s tier %u index %llu: walked, not in mask", spec, t,
					  (unsigned long long)i);
				unreached += want[i] && !w;
			}
			free(walk);
			free(want);
		}
		printf("%s: %llu of %llu indices are valid canonical positions, %llu of them "
		       "never reached\n",
		       spec, (unsigned long long)set, (unsigned long long)all,
		       (unsigned long long)unreached);
		unreached_all += unreached;
		bp_game_destroy(g);
	}
	cr_expect(unreached_all > 0, "no valid canonical position the walk leaves out");
}
