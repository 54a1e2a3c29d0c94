/* SPDX-License-Identifier: MIT */
/* Revised Glorieta (RULES.md sections 3 and 6): loops with ring spaces under each
 * ring reading, flips, hands and their refill, the full-board and no-legal-turn
 * rules, malformed positions and specs, symmetries with the ring's colours, and a
 * naive second implementation that must agree with the bitboard one node by node. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "naive_loops.h"
#include "naive_solve.h"
#include "solver/enumerate.h"
#include "solver/games/perft.h"
#include "solver/probe.h"

/* ---- the naive reference ---------------------------------------------------- */

struct ngl {
	char cell[64];
	char to;     /* 'y' or 'b' */
	int hand[2]; /* [0] yellow, [1] black; -1 before the hands are taken */
	int plus[2];
	char winner; /* 0, 'y', 'b', 'd' */
};

struct nrules {
	struct naive_geo geo;
	int H, both_mover;
};

struct nmove {
	int kind; /* 1 drop one, 2 drop two, 3 flip */
	int a, b;
};

static int side(char c)
{
	return c == 'b';
}

/* Rule 6.3-6.4, read directly. */
static int n_moves(const struct nrules *R, const struct ngl *s, struct nmove *out)
{
	const struct bp_board *bd = R->geo.b;
	int n = 0;
	if (s->winner)
		return 0;
	int me = side(s->to);
	int h = s->hand[me] < 0 ? 1 : s->hand[me]; /* yellow's first stone */
	if (h >= 1)
		for (int a = 0; a < bd->ncells; a++)
			if (s->cell[a] == '.')
				out[n++] = (struct nmove){ 1, a, -1 };
	if (h >= 2 && s->hand[me] >= 0)
		for (int a = 0; a < bd->ncells; a++)
			for (int b = a + 1; b < bd->ncells; b++)
				if (s->cell[a] == '.' && s->cell[b] == '.')
					out[n++] = (struct nmove){ 2, a, b };
	if (s->hand[me] >= 0)
		for (int a = 0; a < bd->ncells; a++)
			if (s->cell[a] == s->to)
				out[n++] = (struct nmove){ 3, a, -1 };
	return n;
}

static void n_play(const struct nrules *R, struct ngl *s, struct nmove m)
{
	int me = side(s->to);
	char other = s->to == 'y' ? 'b' : 'y';
	if (s->hand[me] < 0) { /* yellow's first stone, then the hands */
		s->cell[m.a] = 'y';
		s->hand[0] = s->hand[1] = R->H;
	} else if (m.kind == 3) {
		s->cell[m.a] = 'n';
		s->plus[me] = 1;
	} else {
		s->cell[m.a] = s->to;
		s->hand[me]--;
		if (m.kind == 2) {
			s->cell[m.b] = s->to;
			s->hand[me]--;
		}
	}
	if (s->hand[me] == 0 && s->plus[me]) {
		s->hand[me] = R->H;
		s->plus[me] = 0;
	}
	int mine = naive_has_loop(&R->geo, s->cell, s->to);
	int theirs = naive_has_loop(&R->geo, s->cell, other);
	if (mine && theirs)
		s->winner = R->both_mover ? s->to : other;
	else if (mine)
		s->winner = s->to;
	else if (theirs)
		s->winner = other;
	s->to = other;
	struct nmove buf[64 * 64];
	if (!s->winner && n_moves(R, s, buf) == 0)
		s->winner = 'd'; /* no legal turn: a draw */
}

static enum bp_value n_outcome(const struct ngl *s)
{
	if (!s->winner)
		return BP_VALUE_NONE;
	if (s->winner == 'd')
		return BP_VALUE_DRAW;
	return s->winner == s->to ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static void n_text(const struct nrules *R, const struct ngl *s, char *out)
{
	naive_rows(R->geo.b, s->cell, out);
	sprintf(out + strlen(out), " %c", s->to);
	for (int p = 0; p < 2; p++) {
		if (s->hand[p] < 0)
			sprintf(out + strlen(out), " %c=-", "yb"[p]);
		else
			sprintf(out + strlen(out), " %c=%d%s", "yb"[p], s -> hand[p],
				s -> plus[p] ? "+" : "");
	}
}

static void n_move_name(const struct bp_board *b, struct nmove m, char *out)
{
	char x[16], y[16];
	if (m.kind == 1)
		sprintf(out, "%s", naive_cell_name(b, m.a, x));
	else if (m.kind == 2)
		sprintf(out, "%s+%s", naive_cell_name(b, m.a, x), naive_cell_name(b, m.b, y));
	else
		sprintf(out, "~%s", naive_cell_name(b, m.a, x));
}

static void n_start(struct ngl *s)
{
	memset(s, 0, sizeof *s);
	memset(s->cell, '.', sizeof s->cell);
	s->to = 'y';
	s->hand[0] = s->hand[1] = -1;
}

/* The start of a game: a ring of one colour already holds that player's loop. */
static void n_start_game(const struct nrules *R, struct ngl *s)
{
	n_start(s);
	if (naive_has_loop(&R->geo, s->cell, 'y'))
		s->winner = 'y';
	else if (naive_has_loop(&R->geo, s->cell, 'b'))
		s->winner = 'b';
}

static void nrules_init(struct nrules *R, const struct bp_game *g)
{
	const char *ring = bp_game_option(g, "ring");
	char letters[6 * 8 + 1];
	int n = g->board->a;
	if (strcmp(ring, "sides") == 0) /* six runs of N, black first */
		for (int i = 0; i < 6 * n; i++)
			letters[i] = (i / n) % 2 ? 'y' : 'b';
	else if (strcmp(ring, "alt") == 0)
		for (int i = 0; i < 6 * n; i++)
			letters[i] = i % 2 ? 'y' : 'b';
	else if (strcmp(ring, "none") != 0)
		snprintf(letters, sizeof letters, "%s", ring);
	naive_geo_init(&R->geo, g->board, strcmp(ring, "none") ? letters : NULL);
	R->H = atoi(bp_game_option(g, "hand"));
	R->both_mover = strcmp(bp_game_option(g, "both"), "mover") == 0;
}

#define MAXM (64 * 64)

static void lockstep(const struct bp_game *g, const struct nrules *R, const struct ngl *s,
		     const struct bp_pos *p, int d, int depth, uint64_t *counts, int invariants)
{
	char text[512];
	n_text(R, s, text);
	cr_assert_str_eq(fmt_pos(g, p), text);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(s), "%s: outcome of '%s'", g->spec, text);
	if (invariants)
		check_position_invariants(g, p);
	static struct nmove mv[10][MAXM];
	static char names[10][MAXM][40], nnames[10][MAXM][40];
	static char *sorted[10][MAXM], *nsorted[10][MAXM];
	int n = n_moves(R, s, mv[d]);
	int m = fast_move_strings(g, p, names[d], sorted[d]);
	counts[d + 1] += (uint64_t)n;
	cr_assert_eq(n, m, "%s: %d naive moves, %d fast in '%s'", g->spec, n, m, text);
	for (int i = 0; i < n; i++) {
		n_move_name(g->board, mv[d][i], nnames[d][i]);
		nsorted[d][i] = nnames[d][i];
	}
	qsort(nsorted[d], (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(sorted[d][i], nsorted[d][i], "%s: move lists differ in '%s'",
				 g->spec, text);
	for (int i = 0; i < n && d + 1 < depth; i++) {
		struct ngl t = *s;
		n_play(R, &t, mv[d][i]);
		struct bp_move fm;
		struct bp_err err;
		cr_assert_eq(g->ops->move_parse(g, p, nnames[d][i], &fm, &err), BP_OK, "%s: %s",
			     nnames[d][i], err.msg);
		struct bp_pos q = *p;
		g->ops->apply(g, &q, fm);
		lockstep(g, R, &t, &q, d + 1, depth, counts, invariants);
	}
}

struct perft_case {
	char spec[64];
	int depth;
	int invariants;
};

ParameterizedTestParameters(glorieta, perft_matches_naive)
{
	static struct perft_case cases[] = {
		{ "glorieta:hex2", 5, 1 },
		{ "glorieta:hex2,hand=2,ring=alt", 6, 1 },
		{ "glorieta:hex2,hand=1,ring=none", 9, 1 },
		{ "glorieta:hex2,hand=1,ring=bbbbbbbbbbyy,both=opponent", 8, 1 },
		{ "glorieta:tri3,hand=2,ring=none", 7, 1 },
		{ "glorieta:hex2,hand=3,ring=yyyyyyyyyyyy", 3, 1 },
		{ "glorieta:hex2,hand=2,ring=bbbbbbbbbbbb", 3, 1 },
		{ "glorieta:hex3", 3, 0 },
	};
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct perft_case *pc, glorieta, perft_matches_naive)
{
	struct bp_game *g = open_game(pc->spec);
	struct nrules R;
	nrules_init(&R, g);
	struct ngl s;
	n_start_game(&R, &s);
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t naive[16] = { 0 }, fast[16] = { 0 };
	naive[0] = 1;
	lockstep(g, &R, &s, &p, 0, pc->depth, naive, pc->invariants);
	cr_assert_eq(bp_perft(g, &p, pc->depth, fast), BP_OK);
	for (int d = 1; d <= pc->depth; d++)
		cr_expect_eq(fast[d], naive[d], "%s perft %d: fast %llu, naive %llu", pc->spec, d,
			     (unsigned long long)fast[d], (unsigned long long)naive[d]);
	bp_game_destroy(g);
}

/* Random games to the end (flips, refills, full boards), both implementations in
 * lockstep, with the position invariants (text, symmetry, rank) at every step. */
ParameterizedTestParameters(glorieta, random_games_match_naive)
{
	static char specs[][64] = { "glorieta:hex3",
				    "glorieta:hex3,ring=alt,hand=3",
				    "glorieta:hex2,hand=2,ring=none",
				    "glorieta:hex2,hand=6",
				    "glorieta:rh3x3,ring=none,hand=2,both=opponent",
				    "glorieta:rh8x8,ring=none,hand=3",
				    "glorieta:hex5,ring=alt" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], glorieta, random_games_match_naive)
{
	unsigned seed = 4242;
	printf("glorieta random_games_match_naive %s: seed %u\n", *spec, seed);
	srand(seed);
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	static struct nmove mv[MAXM];
	int ends[4] = { 0 };
	for (int game = 0; game < 30; game++) {
		struct ngl s;
		n_start_game(&R, &s);
		struct bp_pos p;
		g->ops->start(g, &p);
		for (int turn = 0; turn < 400; turn++) {
			uint64_t counts[2] = { 0 };
			lockstep(g, &R, &s, &p, 0, 1, counts, 1);
			int n = n_moves(&R, &s, mv);
			if (!n) {
				ends[n_outcome(&s)]++;
				break;
			}
			/* flips are few among the moves: favour them now and then */
			int i = rand() % n;
			if (rand() % 4 == 0 && mv[n - 1].kind == 3)
				i = n - 1 - rand() % 2;
			if (i < 0 || mv[i].kind == 0)
				i = n - 1;
			char name[40];
			n_move_name(g->board, mv[i], name);
			struct bp_move fm;
			cr_assert_eq(g->ops->move_parse(g, &p, name, &fm, NULL), BP_OK);
			g->ops->apply(g, &p, fm);
			n_play(&R, &s, mv[i]);
		}
	}
	printf("  %s: ends win %d, loss %d, draw %d\n", *spec, ends[BP_VALUE_WIN],
	       ends[BP_VALUE_LOSS], ends[BP_VALUE_DRAW]);
	bp_game_destroy(g);
}

/* ---- hand-made positions ----------------------------------------------------- */

/* hex3 and its ring under ring=sides (runs of three, black first, clockwise from
 * above-left of a1):
 *
 *            b  b  b  y
 *          y  a1 a2 a3  y
 *        y  b1 b2 b3 b4  y
 *      y  c1 c2 c3 c4 c5  b
 *        b  d1 d2 d3 d4  b
 *          b  e1 e2 e3  b
 *            b  y  y  y
 *
 * a2 touches ring spaces 1 and 2, both black under sides; under alt they differ. */
Test(glorieta, loop_around_edge_cell_with_ring)
{
	const char *before = "b1b/1b2/yy3/y3/2y b y=3 b=3";
	cr_assert_eq(outcome_of("glorieta:hex3", before), BP_VALUE_NONE);
	cr_expect_eq(after("glorieta:hex3", before, "b3", NULL), BP_VALUE_LOSS,
		     "ring=sides: black's a1 a3 b2 b3 and two black ring spaces enclose a2");
	cr_expect_eq(after("glorieta:hex3,ring=bbbyyybbbyyybbbyyy", before, "b3", NULL),
		     BP_VALUE_LOSS, "the same ring spelled out");
	cr_expect_eq(after("glorieta:hex3,ring=alt", before, "b3", NULL), BP_VALUE_NONE,
		     "ring=alt: one of the two spaces is yellow");
	cr_expect_eq(after("glorieta:hex3,ring=none", before, "b3", NULL), BP_VALUE_NONE,
		     "ring=none: a2 touches the outside");
	cr_expect_eq(after("glorieta:hex3,ring=yyybbbyyybbbyyybbb", before, "b3", NULL),
		     BP_VALUE_NONE, "spaces 1 and 2 yellow");
}

/* Under ring=alt no two neighbouring ring spaces share a colour, so a loop around an
 * edge cell, which always touches two or three consecutive spaces, is impossible:
 * yellow's four stones around b1 (a1 b2 c1 c2) with the ring do not make one. */
Test(glorieta, alt_ring_edge_cells_never_enclosed)
{
	struct bp_game *g = open_game("glorieta:hex3,ring=alt");
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t around_b1 = 1ull << 0 | 1ull << 4 | 1ull << 7 | 1ull << 8, b1 = 1ull << 3;
	p.w[0] = around_b1;
	struct bp_text t = { 0 }, tt = { 0 };
	g->ops->describe(g, &p, &t, &tt);
	cr_expect(strstr(bp_text_str(&t), "\"y\": {\"loops\": 0"), "%s", bp_text_str(&t));
	bp_text_free(&t);
	bp_text_free(&tt);
	/* rules version 2: a yellow board but b1 is a loop all the same, since c3 (and
	 * every inner cell but b2 and c2, which touch the open b1) is surrounded by
	 * yellow's own stones */
	p.w[0] = ((1ull << 19) - 1) & ~b1;
	g->ops->describe(g, &p, &t, &tt);
	cr_expect(strstr(bp_text_str(&t), "\"y\": {\"loops\": 1"), "%s", bp_text_str(&t));
	cr_expect(strstr(bp_text_str(&t), "\"enclosed\": [\"b3\", \"c3\", \"c4\", \"d2\", "
					  "\"d3\"]"),
		  "%s", bp_text_str(&t));
	bp_text_free(&t);
	bp_text_free(&tt);
	bp_game_destroy(g);
	/* under ring=sides b1 (touching spaces 16 and 17, both yellow) is enclosed */
	g = open_game("glorieta:hex3");
	g->ops->start(g, &p);
	p.w[0] = around_b1;
	g->ops->describe(g, &p, &t, &tt);
	cr_expect(strstr(bp_text_str(&t), "\"y\": {\"loops\": 1"), "%s", bp_text_str(&t));
	cr_expect(strstr(bp_text_str(&t), "\"enclosed\": [\"b1\"]"), "%s", bp_text_str(&t));
	bp_text_free(&t);
	bp_text_free(&tt);
	/* and so it is when b1 holds yellow's own stone */
	p.w[0] = around_b1 | b1;
	g->ops->describe(g, &p, &t, &tt);
	cr_expect(strstr(bp_text_str(&t), "\"enclosed\": [\"b1\"]"), "%s", bp_text_str(&t));
	bp_text_free(&t);
	bp_text_free(&tt);
	bp_game_destroy(g);
}

/* An explicit ring of one colour surrounds the whole board: the start position already
 * holds that player's loop, and a finished position is terminal (RULES.md section 2). */
Test(glorieta, one_colour_ring_start_is_terminal)
{
	struct bp_game *g = open_game("glorieta:hex2,hand=3,ring=yyyyyyyyyyyy");
	struct bp_pos p;
	struct bp_move mv[64];
	g->ops->start(g, &p);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN, "yellow, to move, owns the loop");
	cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	struct bp_pos q = parse_pos(g, "2/3/2 y y=- b=-");
	cr_expect(bp_pos_equal(&p, &q), "start() and the parsed start agree");
	bp_game_destroy(g);
	g = open_game("glorieta:hex2,hand=3,ring=bbbbbbbbbbbb");
	g->ops->start(g, &p);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS, "black's ring: yellow has lost");
	bp_game_destroy(g);
}

/* c3 is the centre of hex3; its six are b2 b3 c2 c4 d2 d3. Black flips his own d3: it
 * turns neutral and completes yellow's loop. A flip forms only the opponent's loop. */
Test(glorieta, flip_forms_opponents_loop)
{
	const char *before = "b2/1yy1/1y1y1/1yb1/b2 b y=2 b=3";
	char res[2048];
	cr_assert_eq(outcome_of("glorieta:hex3", before), BP_VALUE_NONE);
	cr_expect_eq(after("glorieta:hex3", before, "~d3", res), BP_VALUE_WIN,
		     "yellow, to move, owns the loop");
	cr_expect_str_eq(res, "b2/1yy1/1y1y1/1yn1/b2 y y=2 b=3+");
	cr_expect_eq(after("glorieta:hex3", before, "~a1", NULL), BP_VALUE_NONE);
	/* the smallest loop around the centre, by a drop */
	const char *y5 = "b1b/1yy1/1y1y1/1y2/b2 y y=2 b=3";
	cr_expect_eq(outcome_of("glorieta:hex3", y5), BP_VALUE_NONE);
	cr_expect_eq(after("glorieta:hex3", y5, "d3", NULL), BP_VALUE_LOSS);
	cr_expect_eq(after("glorieta:hex3", y5, "d3+e3", NULL), BP_VALUE_LOSS);
}

Test(glorieta, hands_flips_and_refill)
{
	const char *spec = "glorieta:hex3,hand=2";
	char res[2048];
	struct bp_game *g = open_game(spec);
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_str_eq(fmt_pos(g, &p), "3/4/5/4/3 y y=- b=-");
	struct bp_move mv[400];
	cr_expect_eq(g->ops->moves(g, &p, mv), 19, "yellow's first turn: one stone");
	bp_game_destroy(g);
	after(spec, "3/4/5/4/3 y y=- b=-", "e3", res);
	cr_expect_str_eq(res, "3/4/5/4/2y b y=2 b=2", "the hands are taken");
	after(spec, res, "a1+a2", res);
	cr_expect_str_eq(res, "bb1/4/5/4/2y y y=2 b=0");
	after(spec, res, "e1", res);
	cr_expect_str_eq(res, "bb1/4/5/4/y1y b y=1 b=0");
	/* black's hand is empty and black has not flipped: only flips */
	g = open_game(spec);
	p = parse_pos(g, res);
	cr_expect_eq(g->ops->moves(g, &p, mv), 2);
	struct bp_move m;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "c3", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "must be a flip"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "~e1", &m, &err), BP_EILLEGAL);
	bp_game_destroy(g);
	after(spec, res, "~a1", res);
	cr_expect_str_eq(res, "nb1/4/5/4/y1y y y=1 b=2", "the flip empties nothing: a new hand");
	/* a flip with stones in hand, then the last stone: the refill comes at the end
	 * of the turn that empties the hand */
	after(spec, res, "~e1", res);
	cr_expect_str_eq(res, "nb1/4/5/4/n1y b y=1+ b=2");
	after(spec, res, "c3", res);
	cr_expect_str_eq(res, "nb1/4/2b2/4/n1y y y=1+ b=1");
	after(spec, res, "c1", res);
	cr_expect_str_eq(res, "nb1/4/y1b2/4/n1y b y=2 b=1");
	/* one stone in hand: no pair */
	g = open_game(spec);
	p = parse_pos(g, res);
	cr_expect_eq(g->ops->move_parse(g, &p, "d1+d2", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "only one stone"), "%s", err.msg);
	bp_game_destroy(g);
}

Test(glorieta, full_board_flip_only_and_no_turn_draw)
{
	const char *spec = "glorieta:hex2,hand=2,ring=none";
	struct bp_game *g = open_game(spec);
	struct bp_pos p = parse_pos(g, "nn/byy/yy b y=0 b=2");
	struct bp_move mv[64];
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	cr_expect_eq(g->ops->moves(g, &p, mv), 1, "the board is full: a flip only");
	struct bp_move m;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "a1", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "board is full"), "%s", err.msg);
	/* the flip fills b1 with a neutral: the whole board is yellow's group set, and
	 * the centre b2 is surrounded by it (rules version 2): yellow, to move, wins */
	char res[2048];
	cr_expect_eq(after(spec, "nn/byy/yy b y=0 b=2", "~b1", res), BP_VALUE_WIN);
	cr_expect_str_eq(res, "nn/nyy/yy y y=0 b=2+");
	bp_game_destroy(g);
	/* a board with no inner cell full of neutral stones holds no loop: the player to
	 * move has no stone to flip and no legal turn, a draw */
	g = open_game("glorieta:tri3,hand=2,ring=none");
	struct bp_pos q = parse_pos(g, "nnn/nn/n y y=2+ b=1+");
	cr_expect_eq(g->ops->outcome(g, &q), BP_VALUE_DRAW);
	cr_expect_eq(g->ops->moves(g, &q, mv), 0);
	bp_game_destroy(g);
}

/* ---- spec and position errors ---------------------------------------------- */

Test(glorieta, spec_errors)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create("glorieta:rh3x3", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "ring=none"), "%s", err.msg);
	cr_expect_eq(bp_game_create("glorieta:tri4,ring=alt", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("glorieta:hex2,ring=bby", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "12 letters"), "%s", err.msg);
	cr_expect_eq(bp_game_create("glorieta:hex2,ring=bbbbbbbbbbbx", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "character 12"), "%s", err.msg);
	cr_expect_eq(bp_game_create("glorieta:hex2,hand=0", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("glorieta:hex2,hand=x", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("glorieta:hex7", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "at most 64"), "%s", err.msg);
	cr_expect_eq(bp_game_create("glorieta:rh3x3,ring=none", &g, &err), BP_OK, "%s", err.msg);
	bp_game_destroy(g);
}

struct bad_case {
	char spec[48];
	char text[80];
	char needle[48];
};

ParameterizedTestParameters(glorieta, malformed)
{
	static struct bad_case cases[] = {
		{ "glorieta:hex2", "y1/3/2 b y=7 b=6", "at most 6" },
		{ "glorieta:hex2,hand=3", "y1/3/2 b y=3 b=4", "b=4: a hand holds at most 3" },
		{ "glorieta:hex2", "y1/3/2 b y=0+ b=6", "y=0+" },
		{ "glorieta:hex2", "y1/3/2 b y=- b=6", "go together" },
		{ "glorieta:hex2", "y1/3/2 y y=- b=-", "only the start position" },
		{ "glorieta:hex2", "2/3/2 b y=- b=-", "only the start position" },
		{ "glorieta:hex2", "yy/3/2 b y=6 b=6", "do not fit the turn order" },
		{ "glorieta:hex2", "y1/3/2 y y=6 b=6", "do not fit the turn order" },
		{ "glorieta:hex2", "y1/3/2 b y=5 b=6", "do not fit the turn order" },
		{ "glorieta:hex2", "yb/3/2 b y=6 b=5", "do not fit the turn order" },
		{ "glorieta:hex2", "2/3/2 b y=6 b=6", "do not fit the turn order" },
		/* a player still on the first hand without '+' has never flipped (the
		 * same boards with y=4+ b=3+ are positions) */
		{ "glorieta:hex2,ring=none", "yn/n1b/bn b y=4 b=3+", "none by a player on the" },
		{ "glorieta:hex2,ring=none", "nn/nnn/n1 y y=4 b=3", "without '+'" },
		{ "glorieta:hex2", "y1/3/2 b y=6", "missing key 'b'" },
		{ "glorieta:hex2", "y1/3/2 b y=x b=6", "y=x" },
		{ "glorieta:hex2", "y1/3/2 b y=06 b=6", "y=06" },
		{ "glorieta:hex2", "y1/3/2 o y=6 b=6", "side to move 'o'" },
		{ "glorieta:hex2", "y1/3/2 b y=6 b=6 declined=-", "unknown key" },
		{ "glorieta:hex2", "y1/o2/2 b y=6 b=6", "unknown cell character" },
		{ "glorieta:hex2", "y1/3/3 b y=6 b=6", "row c has more than 2" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, glorieta, malformed)
{
	expect_malformed(bc->spec, bc->text, bc->needle);
}

/* ---- symmetry and ranking ------------------------------------------------------ */

Test(glorieta, symmetry_groups_follow_the_ring)
{
	struct {
		const char *spec;
		int nsym;
	} cases[] = {
		/* sides: rotations by 120 degrees keep the runs, by 60 exchange them; a
		 * reflection would reverse the walk, and each run holds its first corner
		 * but not its last, so no reflection keeps or exchanges them all */
		{ "glorieta:hex3", 6 },
		{ "glorieta:hex2,ring=alt", 12 },	   /* N even: 60 degrees keeps alt */
		{ "glorieta:hex3,ring=alt", 12 },	   /* N odd: 60 degrees exchanges */
		{ "glorieta:hex2,ring=none", 24 },	   /* every symmetry, with or without */
		{ "glorieta:hex2,ring=bbbbbbbbbbbb", 12 }, /* one colour: keeps only */
		{ "glorieta:hex2,ring=bbbbbbbbbbby", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bp_game *g = open_game(cases[i].spec);
		cr_expect_eq(g->nsym, cases[i].nsym, "%s: %d symmetries", cases[i].spec, g->nsym);
		bp_game_destroy(g);
	}
}

/* The ring's colours under each symmetry: a symmetry either keeps every ring space's
 * colour (no exchange) or flips every one (with the exchange), checked with the naive
 * ring walk and the board's cell permutation on the board's outer cells. */
Test(glorieta, transform_keeps_loops_relative_to_players)
{
	struct bp_game *g = open_game("glorieta:hex3");
	struct bp_pos p = parse_pos(g, "b1b/1bb1/yy3/y3/2y y y=3 b=2");
	cr_assert_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS);
	for (int s = 0; s < g->nsym; s++) {
		struct bp_pos q;
		g->ops->transform(g, &p, s, &q);
		cr_expect_eq(g->ops->outcome(g, &q), BP_VALUE_LOSS, "symmetry %d", s);
		struct bp_text t = { 0 }, tt = { 0 };
		g->ops->describe(g, &q, &t, &tt);
		/* the loop now belongs to whoever is not to move */
		char owner = "yb"[!q.w[3]];
		char want[32];
		snprintf(want, sizeof want, "\"%c\": {\"loops\": 1", owner);
		cr_expect(strstr(bp_text_str(&t), want), "symmetry %d: %s", s, bp_text_str(&t));
		bp_text_free(&t);
		bp_text_free(&tt);
	}
	bp_game_destroy(g);
}

Test(glorieta, rank_unrank_every_index_small)
{
	struct bp_game *g = open_game("glorieta:tri2,ring=none,hand=2");
	cr_expect_gt(expect_rank_round_trip(g, UINT32_MAX, 0), 10);
	bp_game_destroy(g);
}

/* canonical_mask (the tier walk's visits, bp_game_walk_mask) agrees on every index of
 * small boards with the naive holes: unrank() accepts the index and canonical() leaves
 * the position as it is; over whole tiers and seeded random ranges, for each ring
 * reading (the ring decides the symmetry group) and a colour-exchanging hand size. */
Test(glorieta, canonical_mask_matches_naive)
{
	const char *specs[] = { "glorieta:tri2,ring=none,hand=2", "glorieta:hex2,hand=1",
				"glorieta:hex2,hand=2,ring=alt", "glorieta:tri3,ring=none,hand=1",
				"glorieta:hex2" };
	uint64_t state = 20261202;
	printf("glorieta.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)state);
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		struct bp_game *g = open_game(specs[s]);
		expect_canonical_mask_tiers(g, specs[s], naive_valid_canonical, &state);
		bp_game_destroy(g);
	}
}

/* ---- every reachable position of small instances -------------------------------- */

#define SET_CAP (1u << 17)

/* The naive state of a fast position, read from its text. */
static void naive_of(const struct bp_game *g, const struct bp_pos *p, struct ngl *s)
{
	n_start(s);
	for (int c = 0; c < g->board->ncells; c++)
		s->cell[c] = g->ops->cell_char(g, p, c);
	const char *t = strchr(fmt_pos(g, p), ' ');
	char y[8], b[8];
	cr_assert_eq(sscanf(t, " %c y=%7s b=%7s", &s->to, y, b), 3);
	const char *h[2] = { y, b };
	for (int i = 0; i < 2; i++) {
		s->hand[i] = h[i][0] == '-' ? -1 : atoi(h[i]);
		s->plus[i] = strchr(h[i], '+') != NULL;
	}
	s->winner = 0;
}

/* Walks every reachable position once. At each: the naive rules give the same
 * outcome and moves, every child's outcome matches the naive child's, the cached
 * outcome equals a fresh parse of the text, and the position ranks and unranks. */
static void visit_all(const struct bp_game *g, const struct nrules *R, struct pos_set *seen,
		      const struct bp_pos *p, const struct ngl *ns)
{
	if (!set_insert(seen, p))
		return;
	check_position_invariants(g, p);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(ns), "%s: outcome of '%s'", g->spec,
		     fmt_pos(g, p));
	if (ns->winner)
		return;
	struct nmove *mv = malloc(sizeof *mv * MAXM);
	int n = n_moves(R, ns, mv);
	struct bp_move *fm = bp_game_move_buffer(g);
	cr_assert_eq(g->ops->moves(g, p, fm), n, "%s: move count of '%s'", g->spec, fmt_pos(g, p));
	for (int i = 0; i < n; i++) {
		char name[40];
		n_move_name(g->board, mv[i], name);
		struct bp_move m;
		cr_assert_eq(g->ops->move_parse(g, p, name, &m, NULL), BP_OK, "%s", name);
		struct bp_pos q = *p;
		g->ops->apply(g, &q, m);
		struct ngl t = *ns;
		n_play(R, &t, mv[i]);
		/* the naive child as read back from the fast child must agree with the naive
		 * play, winner aside */
		struct ngl back;
		naive_of(g, &q, &back);
		cr_assert(memcmp(back.cell, t.cell, sizeof t.cell) == 0 && back.to == t.to &&
				  back.hand[0] == t.hand[0] && back.hand[1] == t.hand[1] &&
				  back.plus[0] == t.plus[0] && back.plus[1] == t.plus[1],
			  "%s: '%s' after %s", g->spec, fmt_pos(g, p), name);
		visit_all(g, R, seen, &q, &t);
	}
	free(fm);
	free(mv);
}

ParameterizedTestParameters(glorieta, every_reachable_position)
{
	static char specs[][64] = { "glorieta:hex2,hand=2", "glorieta:hex2,hand=1,ring=alt",
				    "glorieta:hex2,hand=2,ring=none,both=opponent",
				    "glorieta:tri3,ring=none,hand=3" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], glorieta, every_reachable_position)
{
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	struct pos_set seen;
	pos_set_init(&seen, SET_CAP);
	struct bp_pos p;
	g->ops->start(g, &p);
	struct ngl s;
	n_start_game(&R, &s);
	visit_all(g, &R, &seen, &p, &s);
	expect_enumeration_matches(g, &seen);
	pos_set_free(&seen);
	bp_game_destroy(g);
}

/* ---- the naive minimax against every solver ------------------------------------- */

static int ng_children(const void *rules, const void *state, void *out)
{
	const struct nrules *R = rules;
	struct nmove *mv = malloc(sizeof *mv * MAXM);
	cr_assert_not_null(mv);
	int n = n_moves(R, state, mv);
	struct ngl *kids = out;
	for (int i = 0; i < n; i++) {
		kids[i] = *(const struct ngl *)state;
		n_play(R, &kids[i], mv[i]);
	}
	free(mv);
	return n;
}

static enum bp_value ng_outcome(const void *rules, const void *state)
{
	(void)rules;
	return n_outcome(state);
}

static void ng_text(const void *rules, const void *state, char *out)
{
	n_text(rules, state, out);
}

ParameterizedTestParameters(glorieta, naive_minimax_agrees_with_every_solver)
{
	static char specs[][64] = {
		"glorieta:hex2,hand=2",
		"glorieta:hex2,hand=6",
		"glorieta:hex2,hand=2,ring=alt",
		"glorieta:hex2,hand=6,ring=alt",
		"glorieta:hex2,hand=2,ring=none",
		"glorieta:hex2,hand=6,ring=none",
		"glorieta:hex2,hand=3,ring=yyyyyyyyyyyy",
		"glorieta:tri3,hand=2,ring=none",
	};
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Every position reachable under the naive rules has, in the tables of the tiered
 * and the level-pass solvers, the value and remoteness of a naive minimax. */
ParameterizedTest(char (*spec)[64], glorieta, naive_minimax_agrees_with_every_solver)
{
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	struct ngl s;
	n_start_game(&R, &s);
	int nc = g->board->ncells;
	struct naive_game ng = { .size = sizeof s,
				 .max_children = nc + nc * nc,
				 .rules = &R,
				 .children = ng_children,
				 .outcome = ng_outcome,
				 .text = ng_text };
	size_t n = naive_check_solvers(g, &ng, &s, 1u << 18);
	printf("%s: %zu positions agree with the naive minimax\n", *spec, n);
	bp_game_destroy(g);
}

/* Only hands that fit a block's stone counts get an index: on boards too small for a
 * loop (no position has both players' loops), every index is a valid position. */
Test(glorieta, every_index_valid_without_loops)
{
	const char *specs[] = { "glorieta:tri2,ring=none,hand=2", "glorieta:tri2,ring=none,hand=5",
				"glorieta:rh2x2,ring=none,hand=3" };
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		struct bp_game *g = open_game(specs[i]);
		uint64_t total = 0;
		for (uint32_t t = 0; t < g->ntiers; t++) {
			uint64_t size;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			total += size;
		}
		cr_expect_eq(expect_rank_round_trip(g, UINT32_MAX, 0), total,
			     "%s: %llu indices, not all valid", specs[i],
			     (unsigned long long)total);
		bp_game_destroy(g);
	}
}

/* The counts rule (fit_list) against play: on boards too small for a loop, a
 * position's counts, hands and side to move (its signature) occur in some game under
 * the naive rules exactly when the index has a position with them. A rule too loose
 * (as the first-hand rule was missing) leaves signatures no game reaches; one too
 * strict, reached ones without an index. */
#define SIG_ROOM (8 * 8 * 8 * 16 * 16 * 2)
static uint32_t signature(const struct bp_board *b, const struct ngl *s)
{
	int n[3] = { 0, 0, 0 };
	for (int c = 0; c < b->ncells; c++)
		n[0] += s->cell[c] == 'y', n[1] += s->cell[c] == 'b', n[2] += s->cell[c] == 'n';
	uint32_t st[2];
	for (int i = 0; i < 2; i++)
		st[i] = s->hand[i] == 0 ? 0u : (uint32_t)(1 + 2 * (s->hand[i] - 1) + s->plus[i]);
	return ((((uint32_t)n[0] * 8 + (uint32_t)n[1]) * 8 + (uint32_t)n[2]) * 16 + st[0]) * 32 +
	       st[1] * 2 + (s->to == 'b');
}

/* A naive state of a board of at most 16 cells as 64 bits: 2 bits a cell, then the
 * hands, the '+'s and the side to move (the winner follows from them). */
static uint64_t state_key(const struct bp_board *b, const struct ngl *s)
{
	uint64_t k = 0;
	for (int c = 0; c < b->ncells; c++)
		k = k << 2 | (uint64_t)(s->cell[c] == 'y'   ? 1
					: s->cell[c] == 'b' ? 2
					: s->cell[c] == 'n' ? 3
							    : 0);
	for (int i = 0; i < 2; i++)
		k = k << 9 | (uint64_t)(s->hand[i] + 1) << 1 | (uint64_t)s->plus[i];
	return k << 1 | (s->to == 'b');
}

struct key_set {
	uint64_t *tab; /* key + 1; 0 is empty */
	size_t cap, n;
};

static int key_insert(struct key_set *ks, uint64_t key)
{
	if (2 * (ks->n + 1) > ks->cap) {
		struct key_set big = { calloc(ks->cap * 2, sizeof *big.tab), ks->cap * 2, 0 };
		cr_assert_not_null(big.tab);
		for (size_t i = 0; i < ks->cap; i++)
			if (ks->tab[i])
				key_insert(&big, ks->tab[i] - 1);
		free(ks->tab);
		*ks = big;
	}
	size_t h = (size_t)((key + 1) * 0x9e3779b97f4a7c15ull >> 20) & (ks->cap - 1);
	for (; ks->tab[h]; h = (h + 1) & (ks->cap - 1))
		if (ks->tab[h] == key + 1)
			return 0;
	ks->tab[h] = key + 1;
	ks->n++;
	return 1;
}

static void play_signatures(const struct nrules *R, const struct bp_board *b, const struct ngl *s,
			    uint8_t *sig, struct key_set *seen)
{
	if (!key_insert(seen, state_key(b, s)))
		return;
	if (s->hand[0] >= 0)
		sig[signature(b, s)] = 1;
	if (s->winner)
		return;
	struct nmove *mv = malloc(sizeof *mv * MAXM);
	cr_assert_not_null(mv);
	int n = n_moves(R, s, mv);
	for (int i = 0; i < n; i++) {
		struct ngl t = *s;
		n_play(R, &t, mv[i]);
		play_signatures(R, b, &t, sig, seen);
	}
	free(mv);
}

Test(glorieta, counts_rule_is_what_play_reaches)
{
	const char *specs[] = { "glorieta:tri2,ring=none,hand=2", "glorieta:tri2,ring=none,hand=5",
				"glorieta:rh2x2,ring=none,hand=3", "glorieta:tri3,ring=none,hand=2",
				"glorieta:tri3,ring=none,hand=6" };
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		struct bp_game *g = open_game(specs[i]);
		struct nrules R;
		nrules_init(&R, g);
		uint8_t *played = calloc(SIG_ROOM, 1), *indexed = calloc(SIG_ROOM, 1);
		cr_assert(played && indexed);
		struct key_set seen = { calloc(1024, sizeof *seen.tab), 1024, 0 };
		cr_assert_not_null(seen.tab);
		struct ngl s;
		n_start_game(&R, &s);
		play_signatures(&R, g->board, &s, played, &seen);
		free(seen.tab);
		for (uint32_t t = 1; t < g->ntiers; t++) {
			uint64_t size;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			for (uint64_t x = 0; x < size; x++) {
				struct bp_pos p;
				if (g->ops->unrank(g, t, x, &p) != BP_OK)
					continue;
				naive_of(g, &p, &s);
				indexed[signature(g->board, &s)] = 1;
			}
		}
		size_t both = 0;
		for (uint32_t x = 0; x < SIG_ROOM; x++) {
			cr_expect_eq(played[x], indexed[x],
				     "%s: signature %u (%u y, %u b, %u n, hands %u %u, %c to move) "
				     "%s",
				     specs[i], x, x >> 15, (x >> 12) & 7, (x >> 9) & 7,
				     (x >> 5) & 15, (x >> 1) & 15, x & 1 ? 'b' : 'y',
				     played[x] ? "played but not indexed"
					       : "indexed but never played");
			both += played[x] && indexed[x];
		}
		cr_expect_geq(both, 10, "%s: %zu signatures", specs[i], both);
		free(played);
		free(indexed);
		bp_game_destroy(g);
	}
}

/* A table written with the earlier index layout (a dense hand index: tier 1 of
 * hex2 with hands of 2 held 7 cells * 2 colours * 5 * 5 hands * 2 sides = 700
 * records) is refused by the solver and by every reader, saying why. */
Test(glorieta, old_layout_table_refused)
{
	struct bp_game *g = open_game("glorieta:hex2,hand=2");
	uint64_t sizes[64];
	for (uint32_t t = 0; t < g->ntiers; t++)
		cr_assert_eq(g->ops->tier_size(g, t, &sizes[t]), BP_OK);
	cr_assert_neq(sizes[1], 700);
	sizes[1] = 700;
	char *dir = temp_db();
	bp_store *db;
	bp_table *t = NULL;
	struct bp_err err = { { 0 } };
	struct bp_table_info info = { .rules_version = BP_RULES_VERSION,
				      .ntiers = g->ntiers,
				      .tier_size = sizes };
	snprintf(info.spec, sizeof info.spec, "%s", g->spec);
	cr_assert_eq(bp_store_open(dir, BP_STORE_CREATE, &db, &err), BP_OK, "%s", err.msg);
	cr_assert_eq(bp_table_open(db, g->spec, &info, BP_STORE_CREATE, &t, &err), BP_OK);
	bp_table_close(t);
	t = NULL;
	cr_expect_eq(bp_probe_open(db, g, &t, &err), BP_EFORMAT);
	cr_expect_null(t);
	cr_expect(strstr(err.msg, "tier 1 has 700 records stored") &&
			  strstr(err.msg, "another index layout") && strstr(err.msg, "--replace"),
		  "%s", err.msg);
	struct bp_solve_opts o = { .threads = 1 };
	struct bp_solve_result r;
	err.msg[0] = 0;
	cr_expect_eq(bp_solve(g, db, &o, &r, &err), BP_EFORMAT);
	cr_expect(strstr(err.msg, "another index layout") && strstr(err.msg, "--replace"), "%s",
		  err.msg);
	bp_store_close(db);
	remove_db(dir);
	bp_game_destroy(g);
}
