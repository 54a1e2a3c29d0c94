/* SPDX-License-Identifier: MIT */
/* Taifas (RULES.md section 7): the seed's example, each tie-break reading, fraction
 * scoring, position and move text, symmetry, ranking and counting, and a deliberately
 * naive second implementation (a char grid, breadth-first zones, no bit tricks) that
 * must agree with the bitboard one on moves, `last`, outcomes and perft; and the
 * value bounds for proof-number search (bp_game_ops.bounds) against the solved tables
 * on every position of small boards, and bounds_node/bounds_child (the children of a
 * node, their work shared) against bounds child by child. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/enumerate.h"
#include "solver/games/game.h"
#include "solver/games/perft.h"
#include "solver/games/taifas.h"
#include "solver/probe.h"
#include "store/store.h"
#include "tests/rng.h"
#include "tests/support.h"

/* ---- the naive reference ---------------------------------------------------- */

struct naive {
	int w, h;
	char cell[64]; /* 'x', 'o', '.' ; row-major, top row first */
	char last;     /* '-', 'x', 'o' */
};

/* Zones of the player owning colour c: breadth-first over squares not holding c. */
static int naive_zones(const struct naive *n, char c, int *sizes)
{
	int seen[64] = { 0 }, count = 0, queue[64];
	for (int s = 0; s < n->w * n->h; s++) {
		if (seen[s] || n->cell[s] == c)
			continue;
		int head = 0, tail = 0, touches = 0;
		queue[tail++] = s;
		seen[s] = 1;
		while (head < tail) {
			int v = queue[head++], x = v % n->w, y = v / n->w;
			int nx[4] = { x - 1, x + 1, x, x }, ny[4] = { y, y, y - 1, y + 1 };
			for (int d = 0; d < 4; d++) {
				if (nx[d] < 0 || ny[d] < 0 || nx[d] >= n->w || ny[d] >= n->h)
					continue;
				int u = ny[d] * n->w + nx[d];
				if (n->cell[u] == c)
					touches = 1;
				else if (!seen[u]) {
					seen[u] = 1;
					queue[tail++] = u;
				}
			}
		}
		if (touches) {
			if (sizes)
				sizes[count] = tail;
			count++;
		}
	}
	return count;
}

static void naive_play(struct naive *n, char colour, int cell, const char *tie)
{
	int before = naive_zones(n, colour, NULL);
	n->cell[cell] = colour;
	if (strcmp(tie, "last-stone") == 0)
		n->last = colour;
	else if (strcmp(tie, "last-zone") == 0 && naive_zones(n, colour, NULL) > before)
		n->last = colour;
}

/* Outcome for the player to move on a full board, as words of RULES.md 7.3-7.4. */
static enum bp_value naive_outcome(const struct naive *n, const char *tie, const char *score)
{
	int stones = 0;
	for (int i = 0; i < n->w * n->h; i++)
		stones += n->cell[i] != '.';
	if (stones < n->w * n->h)
		return BP_VALUE_NONE;
	char mover = stones % 2 ? 'o' : 'x';
	double px, po; /* fractions compared in long double would be inexact: use counts */
	int sx[64], so[64];
	int zx = naive_zones(n, 'x', sx), zo = naive_zones(n, 'o', so);
	int cmp;
	if (strcmp(score, "zones") == 0) {
		cmp = (zx > zo) - (zx < zo);
	} else {
		/* exact: compare sum 1/a against sum 1/b with a common denominator 720720
		 * * ... is not enough for big zones, so use the board's cells: zones of a
		 * 3x3 or 3x4 board have at most 12 squares, and lcm(1..12) = 27720 */
		long lx = 0, lo = 0;
		for (int i = 0; i < zx; i++)
			lx += 27720 / sx[i];
		for (int i = 0; i < zo; i++)
			lo += 27720 / so[i];
		cmp = (lx > lo) - (lx < lo);
	}
	(void)px;
	(void)po;
	if (cmp)
		return (cmp > 0) == (mover == 'x') ? BP_VALUE_WIN : BP_VALUE_LOSS;
	if (strcmp(tie, "draw") == 0)
		return BP_VALUE_DRAW;
	if (strcmp(tie, "last-zone") == 0)
		return n->last == mover ? BP_VALUE_LOSS : BP_VALUE_WIN;
	return n->last == mover ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

/* Moves as text: every empty square, x then o, in reading order. */
static int naive_moves(const struct naive *n, char moves[][16])
{
	int count = 0;
	for (int i = 0; i < n->w * n->h; i++) {
		if (n->cell[i] != '.')
			continue;
		for (int c = 0; c < 2; c++)
			snprintf(moves[count++], 16, "%c%c%d", "xo"[c], 'a' + i / n->w,
				 i % n->w + 1);
	}
	return count;
}

static uint64_t naive_perft(struct naive *n, int depth, const char *tie, const char *score)
{
	if (depth == 0)
		return 1;
	if (naive_outcome(n, tie, score) != BP_VALUE_NONE)
		return 0;
	uint64_t total = 0;
	for (int i = 0; i < n->w * n->h; i++) {
		if (n->cell[i] != '.')
			continue;
		for (int c = 0; c < 2; c++) {
			struct naive child = *n;
			naive_play(&child, "xo"[c], i, tie);
			total += naive_perft(&child, depth - 1, tie, score);
		}
	}
	return total;
}

/* ---- rules ------------------------------------------------------------------ */

Test(taifas, seed_example_five_zones_each)
{
	/* the seed's 5x5 example: "both X's and O's have five zones" */
	struct bp_game *g = open_game("taifas:5x5");
	struct bp_pos p = parse_pos(g, "xox1o/ooxo1/1xo2/x1xoo/1xox1 o last=x");
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 0), 5);
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 1), 5);
	struct naive n = { 5, 5, { 0 }, 'x' };
	memcpy(n.cell, "xox.oooxo..xo..x.xoo.xox.", 25);
	cr_expect_eq(naive_zones(&n, 'x', NULL), 5);
	cr_expect_eq(naive_zones(&n, 'o', NULL), 5);
	struct bp_text json = { 0 }, text = { 0 };
	g->ops->describe(g, &p, &json, &text);
	cr_expect_str_eq(bp_text_str(&json), "\"zones\": {\"x\": 5, \"o\": 5}");
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(g);
}

/* A full 2x2 board "xo/ox" gives each player 2 zones: a tie decided by the rule. With 4
 * stones x is to move. */
Test(taifas, tie_last_zone)
{
	struct bp_game *g = open_game("taifas:2x2,tie=last-zone");
	struct bp_pos p = parse_pos(g, "xo/ox x last=x");
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 0), 2);
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 1), 2);
	/* x's owner completed the last zone: x's owner (to move) loses */
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS);
	p = parse_pos(g, "xo/ox x last=o");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN);
	bp_game_destroy(g);
}

Test(taifas, tie_last_stone)
{
	struct bp_game *g = open_game("taifas:2x2,tie=last-stone");
	struct bp_pos p = parse_pos(g, "xo/ox x last=x");
	/* the final stone was x: x's owner wins the tie */
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN);
	p = parse_pos(g, "xo/ox x last=o");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS);
	bp_game_destroy(g);
}

Test(taifas, tie_draw)
{
	struct bp_game *g = open_game("taifas:2x2,tie=draw");
	struct bp_pos p = parse_pos(g, "xo/ox x");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_DRAW);
	cr_expect_str_eq(fmt_pos(g, &p), "xo/ox x");
	p = parse_pos(g, "xo/ox x last=-");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_DRAW);
	bp_game_destroy(g);
}

Test(taifas, more_zones_wins)
{
	/* 3x3, x to move? 9 stones: o is to move. x stones split o's... count by hand:
	 *   x o x      zones of x: non-x components touching x: {a2,b1,b2,b3? ...}
	 *   o o o      o's stones: a2, b1, b2, b3, c2 (one cross-shaped group)
	 *   x o x      non-o squares: four corners, each alone: 4 zones for o's owner;
	 *              non-x squares: the cross, one zone for x's owner. */
	struct bp_game *g = open_game("taifas:3x3");
	struct bp_pos p = parse_pos(g, "xox/ooo/xox o last=x");
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 0), 1);
	cr_expect_eq(bp_taifas_zones(g, p.w[0], p.w[1], 1), 4);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN); /* o to move, o has more */
	bp_game_destroy(g);
}

Test(taifas, fraction_score)
{
	/* 2x3 full board (6 stones, x to move):
	 *   x x o      x's zones: {c... } non-x: a3, b2, b3 -> one zone of 3: 1/3
	 *   x o o      o's zones: non-o: a1, a2, b1 -> one zone of 3: 1/3        tie.
	 * Instead "xox/oxo": non-x {a2}, {b1}, {b3}: 3 zones of 1 = 3;
	 *                    non-o {a1}, {a3}, {b2}: 3 zones of 1 = 3: tie too.
	 * Use 3x3 "xxx/xoo/xoo": non-x = the 2x2 block of o: 1 zone of 4 = 1/4;
	 * non-o = the x L-shape, 5 squares, 1 zone: 1/5. Zones tie 1-1, points
	 * 1/4 > 1/5 so x's owner leads. 9 stones: o to move. */
	struct bp_game *gz = open_game("taifas:3x3,score=zones,tie=draw");
	struct bp_game *gf = open_game("taifas:3x3,score=fraction,tie=draw");
	struct bp_pos p = parse_pos(gf, "xxx/xoo/xoo o");
	cr_expect_eq(gz->ops->outcome(gz, &p), BP_VALUE_DRAW);
	cr_expect_eq(gf->ops->outcome(gf, &p), BP_VALUE_LOSS);
	struct bp_text json = { 0 }, text = { 0 };
	gf->ops->describe(gf, &p, &json, &text);
	cr_expect(strstr(bp_text_str(&json), "\"points\": {\"x\": \"1/4\", \"o\": \"1/5\"}"), "%s",
		  bp_text_str(&json));
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(gz);
	bp_game_destroy(gf);
}

Test(taifas, completes_zone_sets_last)
{
	struct bp_game *g = open_game("taifas:3x3");
	struct bp_pos p;
	struct bp_move m;
	g->ops->start(g, &p);
	/* the first stone always completes a zone */
	cr_assert_eq(g->ops->move_parse(g, &p, "ob2", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_str_eq(fmt_pos(g, &p), "3/1o1/3 o last=o");
	/* an x stone in a corner: x's zones go 0 -> 1 */
	cr_assert_eq(g->ops->move_parse(g, &p, "xa1", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_str_eq(fmt_pos(g, &p), "x2/1o1/3 x last=x");
	/* o at a3 splits nothing: o's non-o region stays one piece */
	cr_assert_eq(g->ops->move_parse(g, &p, "oa3", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_str_eq(fmt_pos(g, &p), "x1o/1o1/3 o last=x");
	/* o at a2 neither: a1 still reaches the rest through b1 */
	struct bp_pos q = p;
	cr_assert_eq(g->ops->move_parse(g, &q, "oa2", &m, NULL), BP_OK);
	g->ops->apply(g, &q, m);
	cr_expect_str_eq(fmt_pos(g, &q), "xoo/1o1/3 x last=x");
	/* o at b1 cuts {a1, a2} off from {c1, c2, c3, b3}: o's zones 1 -> 2 */
	cr_assert_eq(g->ops->move_parse(g, &p, "ob1", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	cr_expect_str_eq(fmt_pos(g, &p), "x1o/oo1/3 x last=o");
	bp_game_destroy(g);
}

/* ---- against the naive reference -------------------------------------------- */

struct variant {
	char spec[48];
	char tie[16];
	char score[16];
	int w, h;
};

ParameterizedTestParameters(taifas, random_play_matches_naive)
{
	static struct variant v[] = {
		{ "taifas:3x3", "last-zone", "zones", 3, 3 },
		{ "taifas:4x3,tie=last-stone", "last-stone", "zones", 4, 3 },
		{ "taifas:3x4,tie=draw,score=fraction", "draw", "fraction", 3, 4 },
		{ "taifas:4x3,score=fraction", "last-zone", "fraction", 4, 3 },
	};
	return cr_make_param_array(struct variant, v, sizeof v / sizeof v[0]);
}

ParameterizedTest(struct variant *v, taifas, random_play_matches_naive)
{
	unsigned seed = 20261121;
	printf("random_play_matches_naive %s: seed %u\n", v->spec, seed);
	srand(seed);
	struct bp_game *g = open_game(v->spec);
	struct bp_move *mv = bp_game_move_buffer(g);
	char nm[128][16];
	for (int game = 0; game < 300; game++) {
		struct bp_pos p;
		struct naive n = { v->w, v->h, { 0 }, '-' };
		memset(n.cell, '.', sizeof n.cell);
		g->ops->start(g, &p);
		for (;;) {
			int cnt = g->ops->moves(g, &p, mv), ncnt = naive_moves(&n, nm);
			cr_assert_eq(cnt, ncnt, "%s: move counts differ at %s", v->spec,
				     fmt_pos(g, &p));
			for (int i = 0; i < cnt; i++) {
				struct bp_text t = { 0 };
				g->ops->move_format(g, &p, mv[i], &t);
				cr_assert_str_eq(bp_text_str(&t), nm[i]);
				bp_text_free(&t);
			}
			enum bp_value want = naive_outcome(&n, v->tie, v->score);
			cr_assert_eq(g->ops->outcome(g, &p), want, "%s: outcome of %s", v->spec,
				     fmt_pos(g, &p));
			if (cnt == 0)
				break;
			int pick = rand() % cnt;
			g->ops->apply(g, &p, mv[pick]);
			int cell = (int)(mv[pick].v >> 1);
			naive_play(&n, "xo"[mv[pick].v & 1], cell, v -> tie);
			if (strcmp(v->tie, "draw") != 0)
				cr_assert_eq("-xo"[p.w[2]], n.last, "%s: last differs at %s",
					     v->spec, fmt_pos(g, &p));
		}
	}
	free(mv);
	bp_game_destroy(g);
}

Test(taifas, perft_matches_naive_3x3)
{
	const char *ties[] = { "last-zone", "last-stone", "draw" };
	for (int t = 0; t < 3; t++) {
		char spec[64];
		snprintf(spec, sizeof spec, "taifas:3x3,tie=%s", ties[t]);
		struct bp_game *g = open_game(spec);
		struct bp_pos p;
		g->ops->start(g, &p);
		uint64_t counts[7];
		cr_assert_eq(bp_perft(g, &p, 6, counts), BP_OK);
		for (int d = 1; d <= 6; d++) {
			struct naive n = { 3, 3, { 0 }, '-' };
			memset(n.cell, '.', sizeof n.cell);
			if (d <= 5 || t == 0)
				cr_expect_eq(counts[d], naive_perft(&n, d, ties[t], "zones"),
					     "%s depth %d", spec, d);
		}
		/* no game ends before the board is full: 18 * 16 * 14 * ... */
		cr_expect_eq(counts[3], 18ull * 16 * 14);
		bp_game_destroy(g);
	}
}

Test(taifas, perft_whole_game_2x3)
{
	/* every sequence fills the board: 12 * 10 * 8 * 6 * 4 * 2 sequences of length 6 */
	struct bp_game *g = open_game("taifas:3x2");
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t counts[8];
	cr_assert_eq(bp_perft(g, &p, 7, counts), BP_OK);
	cr_expect_eq(counts[6], 46080);
	cr_expect_eq(counts[7], 0);
	struct naive n = { 3, 2, { 0 }, '-' };
	memset(n.cell, '.', sizeof n.cell);
	cr_expect_eq(counts[6], naive_perft(&n, 6, "last-zone", "zones"));
	bp_game_destroy(g);
}

/* ---- text ------------------------------------------------------------------- */

Test(taifas, position_round_trip)
{
	const char *specs[] = { "taifas:4x4", "taifas:4x4,tie=draw", "taifas:5x3,tie=last-stone" };
	srand(7);
	printf("position_round_trip: seed 7\n");
	for (int s = 0; s < 3; s++) {
		struct bp_game *g = open_game(specs[s]);
		struct bp_move *mv = bp_game_move_buffer(g);
		for (int game = 0; game < 50; game++) {
			struct bp_pos p, q;
			g->ops->start(g, &p);
			for (int n; (n = g->ops->moves(g, &p, mv)) > 0;) {
				char text[2048];
				snprintf(text, sizeof text, "%s", fmt_pos(g, &p));
				q = parse_pos(g, text);
				cr_assert(bp_pos_equal(&p, &q), "%s: '%s' does not round-trip",
					  specs[s], text);
				g->ops->apply(g, &p, mv[rand() % n]);
			}
		}
		free(mv);
		bp_game_destroy(g);
	}
}

struct bad_text {
	char text[64];
	char why[48]; /* a fragment the message must contain */
};

ParameterizedTestParameters(taifas, malformed_positions)
{
	static struct bad_text bad[] = {
		{ "", "empty position" },
		{ "3/3/3", "missing side to move" },
		{ "3/3 x last=-", "2 rows given" },
		{ "3/3/3/3 x last=-", "more than 3 rows" },
		{ "4/3/3 x last=-", "row a has more than 3" },
		{ "2/3/3 x last=-", "row a has 2 cells" },
		{ "xx/3/3 x last=x", "row a has 2 cells" },
		{ "3/3/3/ x last=-", "more than 3 rows" },
		{ "3/3/0 x last=-", "cannot be 0" },
		{ "3/3/3 o last=-", "0 stones" },
		{ "x2/3/3 x last=x", "o moves" },
		{ "3/3/3 z last=-", "must be x or o" },
		{ "3/3/3 x", "missing key 'last'" },
		{ "3/3/3 x last=x", "empty board" },
		{ "x2/3/3 o last=-", "with stones" },
		{ "x2/3/3 o last=o", "no o stone" },
		{ "x2/3/3 o last=q", "expected -, x or o" },
		{ "x2/3/3 o last=x last=x", "given twice" },
		{ "x2/3/3 o last=x ko=1", "unknown key 'ko'" },
		{ "x2/3/3 o last=x junk", "malformed key" },
		{ "q2/3/3 o last=x", "unknown cell character 'q'" },
		{ "X2/3/3 o last=x", "unknown cell character 'X'" },
	};
	return cr_make_param_array(struct bad_text, bad, sizeof bad / sizeof bad[0]);
}

ParameterizedTest(struct bad_text *b, taifas, malformed_positions)
{
	expect_malformed("taifas:3x3", b->text, b->why);
}

Test(taifas, malformed_moves)
{
	struct bp_game *g = open_game("taifas:3x3");
	struct bp_pos p = parse_pos(g, "x2/3/3 o last=x");
	struct bp_move m;
	struct {
		const char *text;
		int rc;
		const char *why;
	} cases[] = {
		{ "a1", BP_EPARSE, "must start with the colour" },
		{ "xa1", BP_EILLEGAL, "occupied" },
		{ "xd1", BP_EPARSE, "no cell 'd1'" },
		{ "xa4", BP_EPARSE, "no cell 'a4'" },
		{ "xa2z", BP_EPARSE, "unexpected 'z'" },
		{ "x", BP_EPARSE, "expected a cell" },
		{ "", BP_EPARSE, "must start" },
		{ "xa0", BP_EPARSE, "row number" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bp_err err = { { 0 } };
		cr_expect_eq(g->ops->move_parse(g, &p, cases[i].text, &m, &err), cases[i].rc,
			     "'%s'", cases[i].text);
		cr_expect(strstr(err.msg, cases[i].why), "'%s': '%s'", cases[i].text, err.msg);
	}
	struct bp_pos full = parse_pos(g, "xox/oxo/xox o last=x");
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &full, "xa1", &m, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->moves(g, &full, &m), 0);
	bp_game_destroy(g);
}

Test(taifas, bad_specs)
{
	const char *bad[] = { "taifas",
			      "taifas:",
			      "taifas:hex3",
			      "taifas:9x9",
			      "taifas:4x4,tie=foo",
			      "taifas:4x4,foo=1",
			      "taifas:4x4,tie",
			      "taifas:4x4,tie=draw,tie=draw",
			      "taifas:4x4,",
			      "taifas:4x4,tie=",
			      "taifa:4x4" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_expect_eq(bp_game_create(bad[i], &g, &err), BP_ESPEC, "'%s' accepted", bad[i]);
		cr_expect(strlen(err.msg) > 0);
	}
	struct bp_game *g = open_game("taifas:4x4,score=fraction,tie=draw");
	cr_expect_str_eq(g->spec, "taifas:4x4,score=fraction,tie=draw");
	bp_game_destroy(g);
	g = open_game("taifas:4x4");
	cr_expect_str_eq(g->spec, "taifas:4x4,score=zones,tie=last-zone");
	bp_game_destroy(g);
}

/* ---- symmetry, ranking, counting -------------------------------------------- */

Test(taifas, canonical_invariant_under_symmetry)
{
	const char *specs[] = { "taifas:4x4", "taifas:5x3", "taifas:8x8" };
	unsigned seed = 99;
	printf("canonical_invariant_under_symmetry: seed %u\n", seed);
	srand(seed);
	for (int s = 0; s < 3; s++) {
		struct bp_game *g = open_game(specs[s]);
		cr_expect_eq(g->nsym, g->board->a == g->board->b ? 8 : 4);
		struct bp_move *mv = bp_game_move_buffer(g);
		for (int trial = 0; trial < 200; trial++) {
			struct bp_pos p, c, img, ci;
			g->ops->start(g, &p);
			int len = rand() % (g->board->ncells + 1);
			for (int i = 0; i < len; i++)
				g->ops->apply(g, &p, mv[rand() % g->ops->moves(g, &p, mv)]);
			bp_game_canonical(g, &p, &c);
			for (int k = 0; k < g->nsym; k++) {
				g->ops->transform(g, &p, k, &img);
				bp_game_canonical(g, &img, &ci);
				cr_assert(bp_pos_equal(&c, &ci),
					  "%s: symmetry %d changes the canonical form of %s",
					  specs[s], k, fmt_pos(g, &p));
				cr_assert_eq(g->ops->outcome(g, &img), g->ops->outcome(g, &p));
			}
		}
		free(mv);
		bp_game_destroy(g);
	}
}

Test(taifas, rank_round_trip_whole_tiers)
{
	const char *specs[] = { "taifas:3x3", "taifas:3x3,tie=draw", "taifas:2x4" };
	for (int s = 0; s < 3; s++) {
		struct bp_game *g = open_game(specs[s]);
		uint64_t total = 0;
		for (uint32_t t = 0; t < g->ntiers; t++) {
			uint64_t size, r;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			for (uint64_t i = 0; i < size; i++) {
				struct bp_pos p;
				int rc = g->ops->unrank(g, t, i, &p);
				if (rc == BP_ENOTFOUND)
					continue; /* a hole: last names an absent colour */
				cr_assert_eq(rc, BP_OK);
				cr_assert_eq(g->ops->tier(g, &p), t);
				cr_assert_eq(g->ops->rank(g, &p, &r), BP_OK);
				cr_assert_eq(r, i, "%s tier %u: unrank(%llu) ranks as %llu",
					     specs[s], t, (unsigned long long)i,
					     (unsigned long long)r);
				total++;
			}
		}
		/* the valid indices are exactly the reachable positions (3^9 fillings...) */
		struct bp_enum_counts ec;
		cr_assert_eq(bp_enumerate(g, 1 << 20, NULL, NULL, &ec), BP_OK);
		uint64_t reach = 0;
		for (uint32_t t = 0; t < ec.ntiers; t++)
			reach += ec.raw[t];
		cr_expect_eq(total, reach, "%s: %llu valid indices, %llu reachable", specs[s],
			     (unsigned long long)total, (unsigned long long)reach);
		bp_enum_counts_free(&ec);
		bp_game_destroy(g);
	}
}

/* The naive structural hole: index i of tier t is a position when unrank() accepts it
 * and no symmetric image (transform(), compared as the pair (x stones, o stones)) is
 * smaller; canonical() must agree. */
static int naive_canonical_index(const struct bp_game *g, uint32_t t, uint64_t i)
{
	struct bp_pos p, q;
	if (g->ops->unrank(g, t, i, &p) != BP_OK)
		return 0;
	int smallest = 1;
	for (int s = 1; s < g->nsym; s++) {
		g->ops->transform(g, &p, s, &q);
		if (q.w[0] < p.w[0] || (q.w[0] == p.w[0] && q.w[1] < p.w[1]))
			smallest = 0;
	}
	g->ops->canonical(g, &p, &q);
	cr_assert_eq(memcmp(&p, &q, sizeof p) == 0, smallest, "tier %u index %llu", t,
		     (unsigned long long)i);
	return smallest;
}

/* canonical_mask agrees with the naive holes on every index of small boards, over
 * whole tiers and over seeded random ranges (any start, any length, across the
 * boundaries of occupied sets and of `last`). */
Test(taifas, canonical_mask_matches_naive)
{
	const char *specs[] = { "taifas:2x2", "taifas:3x3", "taifas:3x3,tie=draw",
				"taifas:2x4,tie=last-stone", "taifas:3x4" };
	const uint64_t seed = 20261128;
	printf("taifas.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)seed);
	uint64_t state = seed;
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		struct bp_game *g = open_game(specs[s]);
		expect_canonical_mask_tiers(g, specs[s], naive_canonical_index, &state);
		bp_game_destroy(g);
	}
}

Test(taifas, count_formula_matches_enumeration)
{
	const char *specs[] = { "taifas:3x3", "taifas:3x4", "taifas:3x4,tie=draw",
				"taifas:2x5,tie=last-stone" };
	for (int s = 0; s < 4; s++) {
		struct bp_game *g = open_game(specs[s]);
		struct bp_enum_counts ec;
		cr_assert_eq(bp_enumerate(g, 1 << 24, NULL, NULL, &ec), BP_OK);
		mpz_t raw, classes;
		mpz_inits(raw, classes, NULL);
		for (uint32_t t = 0; t < g->ntiers; t++) {
			cr_assert_eq(g->ops->count_tier(g, t, raw, classes), BP_OK);
			cr_expect_eq(mpz_get_ui(raw), ec.raw[t], "%s tier %u raw", specs[s], t);
			cr_expect_eq(mpz_get_ui(classes), ec.classes[t], "%s tier %u classes",
				     specs[s], t);
		}
		mpz_clears(raw, classes, NULL);
		bp_enum_counts_free(&ec);
		bp_game_destroy(g);
	}
}

Test(taifas, count_beyond_64_bits)
{
	/* 8x8: sum over k of C(64,k)(2^(k+1)-2) + 1 = 2 * 3^64 - 2^65 + 1 > 2^64 */
	struct bp_game *g = open_game("taifas:8x8");
	mpz_t raw, classes, total, want;
	mpz_inits(raw, classes, total, want, NULL);
	for (uint32_t t = 0; t < g->ntiers; t++) {
		cr_assert_eq(g->ops->count_tier(g, t, raw, classes), BP_OK);
		mpz_add(total, total, raw);
	}
	mpz_ui_pow_ui(want, 3, 64);
	mpz_mul_ui(want, want, 2);
	mpz_t two65;
	mpz_init(two65);
	mpz_ui_pow_ui(two65, 2, 65);
	mpz_sub(want, want, two65);
	mpz_add_ui(want, want, 1);
	cr_expect_eq(mpz_cmp(total, want), 0);
	mpz_clears(raw, classes, total, want, two65, NULL);
	bp_game_destroy(g);
}

/* Every move of every 3x3 position, and of random positions on boards up to 64 cells
 * (each with its own density and colour mix, so that walls of one colour, which cut
 * regions in two, are common): whether it completes a zone (tie=last-zone's `last`)
 * agrees with the naive zone count before and after. */
static void check_every_move(const struct bp_game *g, const struct naive *nv,
			     const struct bp_pos *p)
{
	int n = nv->w * nv->h;
	for (int c = 0; c < n; c++) {
		if (nv->cell[c] != '.')
			continue;
		for (int col = 0; col < 2; col++) {
			struct naive after = *nv;
			int before = naive_zones(nv, "xo"[col], NULL);
			after.cell[c] = "xo"[col];
			int rises = naive_zones(&after, "xo"[col], NULL) > before;
			/* `last` names the other colour: a move that completes no zone keeps it */
			struct bp_pos q = *p;
			q.w[2] = (uint64_t)(2 - col);
			g->ops->apply(g, &q, (struct bp_move){ (uint32_t)(c * 2 + col) });
			cr_assert_eq(q.w[2] == (uint64_t)col + 1, rises,
				     "%s: %c at cell %d of %s: completes %d", g->spec, "xo"[col], c,
				     fmt_pos(g, p), rises);
			/* naming the colour already, and with no colour named: `last` ends
			 * as the colour, or as it was where the move completes no zone */
			for (uint64_t before_last = 0; before_last <= 2; before_last++) {
				q = *p;
				q.w[2] = before_last;
				g->ops->apply(g, &q, (struct bp_move){ (uint32_t)(c * 2 + col) });
				cr_assert_eq(q.w[2], rises ? (uint64_t)col + 1 : before_last,
					     "%s: %c at cell %d of %s, last %d", g->spec, "xo"[col],
					     c, fmt_pos(g, p), (int)before_last);
			}
		}
	}
}

Test(taifas, every_move_of_every_3x3_position_completes_zones_as_naive)
{
	struct bp_game *g = open_game("taifas:3x3");
	for (int code = 0; code < 19683; code++) {
		struct naive nv = { 3, 3, { 0 }, 'x' };
		struct bp_pos p = { { 0 } };
		memset(nv.cell, '.', sizeof nv.cell);
		for (int c = 0, r = code; c < 9; c++, r /= 3)
			if (r % 3) {
				nv.cell[c] = ".xo"[r % 3];
				p.w[r % 3 - 1] |= 1ull << c;
			}
		check_every_move(g, &nv, &p);
	}
	bp_game_destroy(g);
}

Test(taifas, every_move_completes_zones_as_naive)
{
	/* every width that completes_zone has its own copy for (3 to 8) and the generic
	 * one, boards 2 wide (no box test) and the widest, 32x2 */
	static const int sizes[][2] = { { 4, 5 }, { 5, 4 }, { 6, 5 }, { 3, 7 },	 { 8, 8 }, { 5, 5 },
					{ 7, 9 }, { 2, 8 }, { 9, 7 }, { 16, 4 }, { 32, 2 } };
	unsigned seed = 20261121;
	printf("every_move_completes_zones_as_naive: seed %u\n", seed);
	srand(seed);
	for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++) {
		char spec[32];
		int w = sizes[b][0], h = sizes[b][1], n = w * h;
		snprintf(spec, sizeof spec, "taifas:%dx%d", w, h);
		struct bp_game *g = open_game(spec);
		for (int trial = 0; trial < 400; trial++) {
			struct naive nv = { w, h, { 0 }, 'x' };
			struct bp_pos p = { { 0 } };
			int density = rand() % 101, ox = rand() % 101;
			memset(nv.cell, '.', sizeof nv.cell);
			for (int c = 0; c < n; c++)
				if (rand() % 100 < density) {
					int col = rand() % 100 < ox;
					nv.cell[c] = "xo"[col];
					p.w[col] |= 1ull << c;
				}
			check_every_move(g, &nv, &p);
		}
		bp_game_destroy(g);
	}
}

/* ---- bounds for proof-number search (bp_game_ops.bounds) --------------------- */

/* Every stored position of the strongly solved instance: the value lies within the
 * bounds. Logs, per number of empty cells, how many positions the bounds decide
 * exactly (lo == hi) and how many they decide one of df-pn's goals for (lo >= 0 or
 * hi <= 0: "win" or "not lose" settled). @return the positions decided exactly. */
static long bounds_hold(const char *spec)
{
	struct bp_game *g = open_game(spec);
	cr_assert_not_null(g->ops->bounds);
	char *dir = temp_db();
	solve_into(dir, g, (struct bp_solve_opts){ .threads = 1 });
	bp_store *db;
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	bp_probe_set_holes(t, g);
	long all[65] = { 0 }, exact[65] = { 0 }, goal[65] = { 0 }, decided = 0;
	for (uint32_t tier = 0; tier < g->ntiers; tier++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, tier, &size), BP_OK);
		int empty = (int)g->ntiers - 1 - (int)tier;
		static uint16_t recs[1 << 16];
		for (uint64_t i = 0; i < size; i++) {
			uint64_t at = i % (1 << 16);
			if (at == 0)
				cr_assert_eq(bp_table_get_range(t, tier, i,
								size - i < (1 << 16) ? size - i
										     : (1 << 16),
								recs),
					     BP_OK);
			uint16_t rec = recs[at];
			struct bp_pos p;
			if (bp_record_value(rec) == BP_VALUE_NONE)
				continue;
			cr_assert_eq(g->ops->unrank(g, tier, i, &p), BP_OK);
			if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
				continue;
			all[empty]++;
			int lo = -2, hi = 2;
			if (!g->ops->bounds(g, &p, &lo, &hi))
				continue;
			cr_assert(lo >= -1 && lo <= hi && hi <= 1, "%s %s: bounds %d..%d", spec,
				  fmt_pos(g, &p), lo, hi);
			enum bp_value v = bp_record_value(rec);
			int val = v == BP_VALUE_WIN ? 1 : v == BP_VALUE_LOSS ? -1 : 0;
			cr_assert(lo <= val && val <= hi,
				  "%s %s: value %s outside the bounds %d..%d", spec, fmt_pos(g, &p),
				  bp_value_name(v), lo, hi);
			exact[empty] += lo == hi;
			goal[empty] += lo >= 0 || hi <= 0;
			decided += lo == hi;
		}
	}
	char line[2048];
	int at = snprintf(line, sizeof line,
			  "%s, empty cells: decided exactly / a goal / all:", spec);
	for (int e = 1; e < (int)g->ntiers && at < (int)sizeof line; e++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %d: %ld/%ld/%ld", e, exact[e],
			       goal[e], all[e]);
	cr_log_info("%s", line);
	bp_table_close(t);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
	return decided;
}

/* Each reading of the score and the tie-break on two boards; the bounds must decide
 * some positions of each, or they would be checked vacuously. */
/* The count is pinned: the bounds decided 892,030 positions exactly when they were
 * written, before the flood-free filter in front of them, which must never turn one
 * away (it only answers "nothing" sooner). */
Test(taifas, bounds_hold_on_every_position_4x4)
{
	cr_expect_eq(bounds_hold("taifas:4x4"), 892030);
}

Test(taifas, bounds_hold_on_every_position_4x4_fraction)
{
	cr_expect_gt(bounds_hold("taifas:4x4,score=fraction,tie=draw"), 0);
}

Test(taifas, bounds_hold_on_every_position)
{
	static const char *const specs[] = {
		"taifas:3x3",
		"taifas:3x3,tie=last-stone",
		"taifas:3x3,tie=draw",
		"taifas:3x3,score=fraction",
		"taifas:3x3,score=fraction,tie=last-stone",
		"taifas:3x3,score=fraction,tie=draw",
		"taifas:3x4",
		"taifas:3x4,tie=last-stone",
		"taifas:3x4,tie=draw",
		"taifas:3x4,score=fraction",
		"taifas:3x4,score=fraction,tie=last-stone",
		"taifas:3x4,score=fraction,tie=draw",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		cr_expect_gt(bounds_hold(specs[i]), 0, "%s: the bounds decide nothing", specs[i]);
}

/* ---- the bounds against their first implementation ---------------------------- */

/* The bounds op as it was first written (before issue 12 made it cheaper: cell loops
 * where it now counts in bit planes, a flood per group), kept here as the reference:
 * the op must give exactly its answer, return code and lo..hi, on every position,
 * so that df-pn's search tree, nodes and proofs stay the same. Its argument is in
 * solver/games/taifas.c. */
struct refb {
	int n, w;
	uint64_t full, not_left, not_right, nbr[64];
	int last_zone, last_stone, draw, fraction;
};

static void refb_init(struct refb *r, const struct bp_game *g)
{
	const struct bp_board *b = g->board;
	memset(r, 0, sizeof *r);
	r->n = b->ncells;
	r->w = b->a;
	r->full = r->n == 64 ? ~0ull : (1ull << r->n) - 1;
	for (int c = 0; c < r->n; c++) {
		if (b->cells[c].q != 0)
			r->not_left |= 1ull << c;
		if (b->cells[c].q != r->w - 1)
			r->not_right |= 1ull << c;
	}
	r->last_zone = strcmp(g->value[0], "last-zone") == 0;
	r->last_stone = strcmp(g->value[0], "last-stone") == 0;
	r->draw = strcmp(g->value[0], "draw") == 0;
	r->fraction = strcmp(g->value[1], "fraction") == 0;
	for (int c = 0; c < r->n; c++) {
		uint64_t v = 1ull << c;
		r->nbr[c] =
			((v << 1 & r->not_left) | (v >> 1 & r->not_right) | v << r->w | v >> r->w) &
			r->full;
	}
}

static uint64_t refb_grow(const struct refb *t, uint64_t m)
{
	return (m | (m << 1 & t->not_left) | (m >> 1 & t->not_right) | m << t->w | m >> t->w) &
	       t->full;
}

static uint64_t refb_flood(const struct refb *t, uint64_t region, uint64_t seed)
{
	uint64_t m = seed & region, prev;
	do {
		prev = m;
		m = refb_grow(t, m) & region;
	} while (m != prev);
	return m;
}

static int refb_components_with(const struct refb *t, uint64_t region, uint64_t seed, int *sizes)
{
	int n = 0;
	for (seed &= region; seed; n++) {
		uint64_t comp = refb_flood(t, region, seed & -seed);
		seed &= ~comp;
		if (sizes)
			sizes[n] = __builtin_popcountll(comp);
	}
	return n;
}

static int refb_independent_bound(const struct refb *t, uint64_t f)
{
	int n = __builtin_popcountll(f), matched = 0;
	for (uint64_t left = f; left;) {
		uint64_t v = left & -left;
		left &= ~v;
		uint64_t nb = t->nbr[__builtin_ctzll(v)] & left;
		if (nb) {
			left &= ~(nb & -nb);
			matched++;
		}
	}
	return n - matched;
}

__extension__ typedef unsigned __int128 refb_u128;

static refb_u128 refb_gcd(refb_u128 a, refb_u128 b)
{
	while (b) {
		refb_u128 r = a % b;
		a = b;
		b = r;
	}
	return a;
}

static void refb_fraction(const int *sizes, int count, refb_u128 *num, refb_u128 *den)
{
	refb_u128 l = 1;
	for (int i = 0; i < count; i++)
		l = l / refb_gcd(l, (refb_u128)sizes[i]) * (refb_u128)sizes[i];
	refb_u128 s = 0;
	for (int i = 0; i < count; i++)
		s += l / (refb_u128)sizes[i];
	refb_u128 g = refb_gcd(s, l);
	*num = g ? s / g : 0;
	*den = g ? l / g : 1;
}

static int refb_compare_points(const int *a, int na, const int *b, int nb)
{
	refb_u128 n1, d1, n2, d2;
	refb_fraction(a, na, &n1, &d1);
	refb_fraction(b, nb, &n2, &d2);
	refb_u128 l = d1 / refb_gcd(d1, d2) * d2;
	refb_u128 x = n1 * (l / d1), y = n2 * (l / d2);
	return (x > y) - (x < y);
}

static void refb_points_bounds(const struct refb *t, uint64_t own, uint64_t other, int *nlo,
			       int lo_sizes[64], int *nhi, int hi_sizes[64])
{
	uint64_t empty = t->full & ~own & ~other;
	int m = refb_independent_bound(t, empty & ~refb_grow(t, own));
	*nlo = refb_components_with(t, t->full & ~other, own, lo_sizes);
	int g = refb_components_with(t, own, own, hi_sizes);
	for (int i = 0; i < m; i++)
		hi_sizes[g + i] = 1;
	*nhi = g + m;
}

static int refb_touching(const uint64_t ge[4], int v)
{
	return (int)(ge[0] >> v & 1) + (int)(ge[1] >> v & 1) + (int)(ge[2] >> v & 1) +
	       (int)(ge[3] >> v & 1);
}

static void refb_groups_next(const struct refb *t, uint64_t x, uint64_t o, uint64_t ax[4],
			     uint64_t ao[4], int *gx, int *go)
{
	uint64_t empty = t->full & ~x & ~o;
	*gx = *go = 0;
	memset(ax, 0, 4 * sizeof *ax);
	memset(ao, 0, 4 * sizeof *ao);
	for (int c = 0; c < 2; c++) {
		uint64_t *a = c ? ao : ax;
		for (uint64_t left = c ? o : x; left; ++*(c ? go : gx)) {
			uint64_t grp = refb_flood(t, left, left & -left);
			left &= ~grp;
			uint64_t m = refb_grow(t, grp) & empty;
			a[3] |= a[2] & m;
			a[2] |= a[1] & m;
			a[1] |= a[0] & m;
			a[0] |= m;
		}
	}
}

static void refb_lead_by_cells(const struct refb *t, uint64_t x, uint64_t o, const uint64_t ax[4],
			       const uint64_t ao[4], int d, int *least, int *most)
{
	uint64_t empty = t->full & ~x & ~o;
	*least = *most = d;
	for (uint64_t m = empty; m; m &= m - 1) {
		int v = __builtin_ctzll(m), nx = refb_touching(ax, v), no = refb_touching(ao, v);
		int q = __builtin_popcountll(t->nbr[v] & empty & ((1ull << v) - 1));
		int wlo = 1 - no - q, whi = no ? 0 : 1;
		int blo = nx ? 0 : -1, bhi = nx + q - 1;
		*least += wlo < blo ? wlo : blo;
		*most += whi > bhi ? whi : bhi;
	}
}

static void refb_group_count_bounds(const struct refb *t, uint64_t s, int *lo, int *hi)
{
	uint64_t h = s & s >> 1 & t->not_right, v = s & s >> t->w;
	*hi = __builtin_popcountll(s & ~(s << 1 & t->not_left) & ~(s << t->w));
	int chi = __builtin_popcountll(s) - __builtin_popcountll(h) - __builtin_popcountll(v) +
		  __builtin_popcountll(h & v & v >> 1);
	*lo = chi > 1 ? chi : 1;
}

static int refb_lead_undecided(const struct refb *t, uint64_t x, uint64_t o, uint64_t last,
			       uint64_t empty, int mx, int mo)
{
	int tie_loss = t->last_stone || (t->last_zone && last == 1);
	int tie_win = t->last_stone || (t->last_zone && last == 2);
	int xlo, xhi, olo, ohi;
	refb_group_count_bounds(t, x, &xlo, &xhi);
	refb_group_count_bounds(t, o, &olo, &ohi);
	int dhi = ohi - xlo, dlo = olo - xhi;
	int least = dhi, most = dlo;
	uint64_t nx = refb_grow(t, x), no = refb_grow(t, o);
	for (uint64_t m = empty; m; m &= m - 1) {
		int c = __builtin_ctzll(m), hx = (int)(nx >> c & 1), ho = (int)(no >> c & 1);
		int q = __builtin_popcountll(t->nbr[c] & empty & ((1ull << c) - 1));
		int wlo = 1 - ho - q, blo = hx - 1, whi = 1 - ho, bhi = hx + q - 1;
		least += wlo < blo ? wlo : blo;
		most += whi > bhi ? whi : bhi;
		if (t->last_zone) {
			int e = __builtin_popcountll(t->nbr[c] & empty);
			tie_loss |= ho + e >= 2;
			tie_win |= hx + e >= 2;
		}
	}
	least = least > dhi - mx ? least : dhi - mx;
	most = most < dlo + mo ? most : dlo + mo;
	return (least < 0 || (least == 0 && tie_loss)) && (most > 0 || (most == 0 && tie_win));
}

static int refb_last_cell_value(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_move m[2];
	int best = -1;
	for (int i = 0, n = g->ops->moves(g, p, m); i < n; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, m[i]);
		enum bp_value v = g->ops->outcome(g, &c);
		int mine = v == BP_VALUE_LOSS ? 1 : v == BP_VALUE_WIN ? -1 : 0;
		best = mine > best ? mine : best;
	}
	return best;
}

static int refb_bounds(const struct refb *t, const struct bp_game *g, const struct bp_pos *p,
		       int *lo, int *hi)
{
	uint64_t x = p->w[0], o = p->w[1], empty = t->full & ~x & ~o;
	if (!x || !o || !empty)
		return 0;
	if (__builtin_popcountll(empty) == 1) {
		*lo = *hi = refb_last_cell_value(g, p);
		return 1;
	}
	int mx = refb_independent_bound(t, empty & ~refb_grow(t, x));
	int mo = refb_independent_bound(t, empty & ~refb_grow(t, o));
	if (!t->fraction && refb_lead_undecided(t, x, o, p->w[2], empty, mx, mo))
		return 0;
	uint64_t ax[4], ao[4];
	int gx, go;
	refb_groups_next(t, x, o, ax, ao, &gx, &go);
	int least, most;
	if (t->fraction) {
		int xlo, xhi, olo, ohi, xs_lo[64], xs_hi[64], os_lo[64], os_hi[64];
		refb_points_bounds(t, x, o, &xlo, xs_lo, &xhi, xs_hi);
		refb_points_bounds(t, o, x, &olo, os_lo, &ohi, os_hi);
		least = refb_compare_points(os_lo, olo, xs_hi, xhi);
		most = refb_compare_points(os_hi, ohi, xs_lo, xlo);
	} else {
		int cl, cm, d = go - gx;
		refb_lead_by_cells(t, x, o, ax, ao, d, &cl, &cm);
		if (cl <= 0 && d - mx >= 0) {
			int olo = refb_components_with(t, t->full & ~x, o, NULL);
			cl = cl > olo - gx - mx ? cl : olo - gx - mx;
		}
		if (cm >= 0 && d + mo <= 0) {
			int xlo = refb_components_with(t, t->full & ~o, x, NULL);
			cm = cm < go + mo - xlo ? cm : go + mo - xlo;
		}
		least = (cl > 0) - (cl < 0);
		most = (cm > 0) - (cm < 0);
	}
	int tie_lo = -1, tie_hi = 1;
	if (t->draw) {
		tie_lo = tie_hi = 0;
	} else if (t->last_zone && (least == 0 || most == 0)) {
		unsigned may = p->w[2] == 1 ? 1u : 2u;
		for (uint64_t m = empty; m && may != 3; m &= m - 1) {
			int v = __builtin_ctzll(m), e = __builtin_popcountll(t->nbr[v] & empty);
			may |= (refb_touching(ao, v) + e >= 2 ? 1u : 0u) |
			       (refb_touching(ax, v) + e >= 2 ? 2u : 0u);
		}
		tie_lo = may & 1 ? -1 : 1;
		tie_hi = may & 2 ? 1 : -1;
	}
	int blo = least > 0 ? 1 : least == 0 ? tie_lo : -1;
	int bhi = most < 0 ? -1 : most == 0 ? tie_hi : 1;
	int mover = __builtin_popcountll(x | o) & 1;
	*lo = mover ? -bhi : blo;
	*hi = mover ? -blo : bhi;
	return 1;
}

/* One position: the op and the reference give the same answer. @return 1 when they
 * agree (the caller stops at the first disagreement, naming the position). */
static int bounds_agree(const struct refb *r, const struct bp_game *g, const struct bp_pos *p)
{
	int lo = -5, hi = 5, rlo = -5, rhi = 5;
	int rc = g->ops->bounds(g, p, &lo, &hi), rrc = refb_bounds(r, g, p, &rlo, &rhi);
	if (rc == rrc && (!rc || (lo == rlo && hi == rhi)))
		return 1;
	cr_log_error("%s %s: bounds %d %d..%d, reference %d %d..%d", g->spec, fmt_pos(g, p), rc, lo,
		     hi, rrc, rlo, rhi);
	return 0;
}

static const char *const bounds_variants[] = {
	"",
	",tie=last-stone",
	",tie=draw",
	",score=fraction",
	",score=fraction,tie=last-stone",
	",score=fraction,tie=draw",
};

/* The board numbered b in base 3, cell c its digit c (0 empty, 1 x, 2 o), `last` 0. */
static struct bp_pos board_of(uint64_t b)
{
	struct bp_pos p;
	memset(&p, 0, sizeof p);
	for (uint64_t k = b, c = 0; k; k /= 3, c++)
		if (k % 3)
			p.w[k % 3 - 1] |= 1ull << c;
	return p;
}

/* A random board of n cells (full: their bits) with `empty` of them empty, the others
 * x or o at random, and a random `last`. */
static struct bp_pos random_board(int n, uint64_t full, int empty, uint64_t *rs)
{
	struct bp_pos p;
	memset(&p, 0, sizeof p);
	uint64_t left = full;
	for (int k = 0; k < empty; k++) {
		/* a random cell still to place stays empty */
		int at = (int)(splitmix64(rs) % (uint64_t)(n - k));
		uint64_t m = left;
		while (at--)
			m &= m - 1;
		left &= ~(m & -m);
	}
	uint64_t colours = splitmix64(rs);
	p.w[0] = left & colours;
	p.w[1] = left & ~colours;
	p.w[2] = splitmix64(rs) % 3;
	return p;
}

/* Every board of x, o and empty cells, with each value of `last`, of a small board
 * under every variant (positions play could not reach included: the op must not
 * care). @return the positions the op bounds. */
static long bounds_same_everywhere(const char *board)
{
	long bounded = 0;
	for (size_t vi = 0; vi < sizeof bounds_variants / sizeof bounds_variants[0]; vi++) {
		char spec[64];
		snprintf(spec, sizeof spec, "taifas:%s%s", board, bounds_variants[vi]);
		struct bp_game *g = open_game(spec);
		struct refb r;
		refb_init(&r, g);
		uint64_t boards = 1;
		for (int i = 0; i < r.n; i++)
			boards *= 3;
		for (uint64_t b = 0; b < boards; b++) {
			struct bp_pos p = board_of(b);
			for (uint64_t last = 0; last < 3; last++) {
				p.w[2] = last;
				int lo, hi;
				cr_assert(bounds_agree(&r, g, &p));
				bounded += g->ops->bounds(g, &p, &lo, &hi);
			}
		}
		bp_game_destroy(g);
	}
	return bounded;
}

Test(taifas, bounds_same_as_reference_on_every_3x3_and_3x4_board)
{
	cr_expect_gt(bounds_same_everywhere("3x3"), 0);
	cr_expect_gt(bounds_same_everywhere("3x4"), 0);
}

/* Every 11th board of 4x4 (3.9 M of the 3^16; all of them take 45 s), each under
 * one variant and one `last` in turn: all six variants and all three values of `last`
 * are met about equally often, 11 being prime to 6 and 3. */
Test(taifas, bounds_same_as_reference_on_4x4_boards)
{
	enum { NV = sizeof bounds_variants / sizeof bounds_variants[0] };
	struct bp_game *g[NV];
	struct refb r[NV];
	for (int vi = 0; vi < NV; vi++) {
		char spec[64];
		snprintf(spec, sizeof spec, "taifas:4x4%s", bounds_variants[vi]);
		g[vi] = open_game(spec);
		refb_init(&r[vi], g[vi]);
	}
	long bounded = 0;
	for (uint64_t b = 0; b < 43046721; b += 11) {
		struct bp_pos p = board_of(b);
		p.w[2] = b / NV % 3;
		int vi = (int)(b % NV), lo, hi;
		cr_assert(bounds_agree(&r[vi], g[vi], &p));
		bounded += g[vi]->ops->bounds(g[vi], &p, &lo, &hi);
	}
	cr_expect_gt(bounded, 0);
	for (int vi = 0; vi < NV; vi++)
		bp_game_destroy(g[vi]);
}

/* The boards of the random-position tests: widths 2 to 9, so that each path of the op
 * is taken (3 to 8 its copies with a constant width, 2 and 9 the general one). */
static const char *const random_boards[] = {
	"5x5", "4x5", "5x4", "6x6", "8x8", "7x3", "2x8", "9x7"
};

/* Seeded random positions of larger boards, every variant: for each number of empty
 * cells from 0 to 16 (to 24 on boards of more than 30 cells), the other cells x or o
 * at random, and a random `last`. 40,000 per board and variant: 240,000 of taifas:5x5,
 * 4x5 and 5x4 each. The widths 2 to 9 take each path of the op: 3 to 8 its copies with
 * a constant width, 2 and 9 the general one, 9 without independent_bound's table. */
Test(taifas, bounds_same_as_reference_on_random_boards)
{
	const uint64_t seed = 20261125;
	cr_log_info("seed %llu", (unsigned long long)seed);
	uint64_t rs = seed;
	for (size_t bi = 0; bi < sizeof random_boards / sizeof random_boards[0]; bi++)
		for (size_t vi = 0; vi < sizeof bounds_variants / sizeof bounds_variants[0]; vi++) {
			char spec[64];
			snprintf(spec, sizeof spec, "taifas:%s%s", random_boards[bi],
				 bounds_variants[vi]);
			struct bp_game *g = open_game(spec);
			struct refb r;
			refb_init(&r, g);
			int most_empty = r.n > 30 ? 24 : 16;
			long decided = 0;
			for (int i = 0; i < 40000; i++) {
				int empty = i % (most_empty + 1);
				struct bp_pos p = random_board(r.n, r.full, empty, &rs);
				int lo, hi;
				cr_assert(bounds_agree(&r, g, &p), "seed %llu",
					  (unsigned long long)seed);
				decided += g->ops->bounds(g, &p, &lo, &hi) && (lo >= 0 || hi <= 0);
			}
			cr_expect_gt(decided, 0, "%s: the bounds decide nothing", spec);
			bp_game_destroy(g);
		}
}

/* ---- bounds_node and bounds_child: the children of a node, their work shared -- */

/* Every child of p: bounds_child, after bounds_node on p, gives bounds()'s answer
 * (return code, lo and hi) for each, asked in a random order (the search may stop at
 * any child; the op must not care). @return the children it bounds plus 1 when they
 * agree, else 0 (naming the first child that does not). */
static int children_agree(const struct bp_game *g, const struct bp_pos *p, uint64_t *rs)
{
	struct bp_move mv[128];
	static _Alignas(64) unsigned char ctx[4096];
	cr_assert_leq(g->ops->bounds_ctx_size, sizeof ctx);
	int n = g->ops->moves(g, p, mv), bounded = 0;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(splitmix64(rs) % (uint64_t)(i + 1));
		struct bp_move m = mv[i];
		mv[i] = mv[j];
		mv[j] = m;
	}
	g->ops->bounds_node(g, p, ctx);
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, mv[i]);
		int l = -5, h = 5, r = g->ops->bounds(g, &c, &l, &h);
		int kl = -5, kh = 5, kr = g->ops->bounds_child(g, ctx, &c, mv[i], &kl, &kh);
		bounded += r;
		if (r == kr && (!r || (l == kl && h == kh)))
			continue;
		cr_log_error("%s %s, move %s%c%d: bounds %d %d..%d, bounds_child %d %d..%d",
			     g->spec, fmt_pos(g, p), mv[i].v & 1 ? "o" : "x",
			     'a' + (int)(mv[i].v >> 1) % g->board->a,
			     g->board->b - (int)(mv[i].v >> 1) / g->board->a, r, l, h, kr, kl, kh);
		return 0;
	}
	return bounded + 1;
}

/* Every board of a small board (as bounds_same_everywhere), each `last`, every
 * variant; under score=fraction, where bounds_child runs the op itself
 * (and its exact fractions take most of the time), every 7th board only. @return the
 * children bounds_child bounds. */
static long children_same_everywhere(const char *board)
{
	long bounded = 0;
	for (size_t vi = 0; vi < sizeof bounds_variants / sizeof bounds_variants[0]; vi++) {
		char spec[64];
		snprintf(spec, sizeof spec, "taifas:%s%s", board, bounds_variants[vi]);
		struct bp_game *g = open_game(spec);
		cr_assert_not_null(g->ops->bounds_child);
		uint64_t rs = 20261126;
		int cells = g->board->ncells;
		uint64_t boards = 1;
		for (int i = 0; i < cells; i++)
			boards *= 3;
		uint64_t step = strstr(spec, "fraction") ? 7 : 1;
		for (uint64_t b = 0; b < boards; b += step) {
			struct bp_pos p = board_of(b);
			for (uint64_t last = 0; last < 3; last++) {
				p.w[2] = last;
				int agree = children_agree(g, &p, &rs);
				cr_assert(agree);
				bounded += agree - 1;
			}
		}
		bp_game_destroy(g);
	}
	return bounded;
}

Test(taifas, bounds_child_same_as_bounds_on_every_3x3_and_3x4_board)
{
	cr_expect_gt(children_same_everywhere("3x3"), 0);
	cr_expect_gt(children_same_everywhere("3x4"), 0);
}

/* Every 97th board of 4x4 (0.44 M), each under one variant and one `last` in turn (97
 * is prime to 6 and 3, as 11 is for bounds_same_as_reference_on_4x4_boards). */
Test(taifas, bounds_child_same_as_bounds_on_4x4_boards)
{
	enum { NV = sizeof bounds_variants / sizeof bounds_variants[0] };
	struct bp_game *g[NV];
	for (int vi = 0; vi < NV; vi++) {
		char spec[64];
		snprintf(spec, sizeof spec, "taifas:4x4%s", bounds_variants[vi]);
		g[vi] = open_game(spec);
	}
	uint64_t rs = 20261127; /* the order of the children */
	for (uint64_t b = 0; b < 43046721; b += 97) {
		struct bp_pos p = board_of(b);
		p.w[2] = b / NV % 3;
		cr_assert(children_agree(g[b % NV], &p, &rs));
	}
	for (int vi = 0; vi < NV; vi++)
		bp_game_destroy(g[vi]);
}

/* Seeded random positions of the boards of bounds_same_as_reference_on_random_boards,
 * every variant, 1 to 16 empty cells (to 24 on boards of more than 30 cells), 4,000
 * per board and variant, and every child of each. */
Test(taifas, bounds_child_same_as_bounds_on_random_boards)
{
	const uint64_t seed = 20261126;
	cr_log_info("seed %llu", (unsigned long long)seed);
	uint64_t rs = seed;
	for (size_t bi = 0; bi < sizeof random_boards / sizeof random_boards[0]; bi++)
		for (size_t vi = 0; vi < sizeof bounds_variants / sizeof bounds_variants[0]; vi++) {
			char spec[64];
			snprintf(spec, sizeof spec, "taifas:%s%s", random_boards[bi],
				 bounds_variants[vi]);
			struct bp_game *g = open_game(spec);
			int n = g->board->ncells, most_empty = n > 30 ? 24 : 16;
			uint64_t full = n == 64 ? ~0ull : (1ull << n) - 1;
			for (int i = 0; i < 4000; i++) {
				int empty = 1 + i % most_empty;
				struct bp_pos p = random_board(n, full, empty, &rs);
				cr_assert(children_agree(g, &p, &rs), "seed %llu",
					  (unsigned long long)seed);
			}
			bp_game_destroy(g);
		}
}

/* ---- kids ops: the children of a node for proof-number search ------------------ */

/* kids_child after kids_node makes exactly what apply makes, gives outcome()'s value
 * and returns exactly sym_hash_move's key, for every move of seeded random positions of the
 * random boards under every variant (1 to 16 empty cells, to 24 on boards of more
 * than 30 cells), the moves in a random order and some asked twice. */
Test(taifas, kids_child_same_as_apply_outcome_and_sym_hash_move)
{
	const uint64_t seed = 20261128;
	cr_log_info("seed %llu", (unsigned long long)seed);
	uint64_t rs = seed, children = 0, changed_last = 0, ended = 0;
	for (size_t bi = 0; bi < sizeof random_boards / sizeof random_boards[0]; bi++)
		for (size_t vi = 0; vi < sizeof bounds_variants / sizeof bounds_variants[0]; vi++) {
			char spec[64];
			snprintf(spec, sizeof spec, "taifas:%s%s", random_boards[bi],
				 bounds_variants[vi]);
			struct bp_game *g = open_game(spec);
			cr_assert(g->ops->kids_node && g->ops->kids_child);
			void *ctx = malloc(g->ops->kids_ctx_size);
			struct bp_move *mv = bp_game_move_buffer(g);
			int *order = malloc(sizeof *order * (size_t)g->max_moves * 2);
			cr_assert(ctx && mv && order);
			int n = g->board->ncells, most_empty = n > 30 ? 24 : 16;
			uint64_t full = n == 64 ? ~0ull : (1ull << n) - 1;
			for (int i = 0; i < 1000; i++) {
				struct bp_pos p = random_board(n, full, 1 + i % most_empty, &rs);
				uint64_t h[BP_GAME_SYM_HASH_MAX];
				g->ops->sym_hash(g, &p, h);
				int k = g->ops->moves(g, &p, mv), asks = k + k / 4;
				for (int j = 0; j < k; j++)
					order[j] = j;
				for (int j = k - 1; j > 0; j--) {
					int r = (int)(splitmix64(&rs) % (uint64_t)(j + 1)),
					    t = order[j];
					order[j] = order[r];
					order[r] = t;
				}
				for (int j = k; j < asks; j++)
					order[j] = (int)(splitmix64(&rs) % (uint64_t)k);
				g->ops->kids_node(g, &p, ctx);
				for (int j = 0; j < asks; j++) {
					char what[96];
					snprintf(what, sizeof what, "%s, seed %llu", spec,
						 (unsigned long long)seed);
					struct bp_pos want = expect_kids_child(g, ctx, &p, h,
									       mv[order[j]], what);
					ended += g->ops->outcome(g, &want) != BP_VALUE_NONE;
					children++;
					changed_last += want.w[2] != p.w[2];
				}
			}
			free(order);
			free(mv);
			free(ctx);
			bp_game_destroy(g);
		}
	cr_log_info("%llu children, %llu with another last, %llu over",
		    (unsigned long long)children, (unsigned long long)changed_last,
		    (unsigned long long)ended);
	cr_expect_gt(ended, 1000);
	cr_expect_gt(changed_last, 1000);
}
