/* SPDX-License-Identifier: MIT */
/* Havannah (solver/games/havannah.c): hand-made positions for each rule (ring around
 * an empty, an opponent's and an own cell, bridge, fork, corners belonging to no side,
 * one stone completing two structures, the full-board draw, swap), malformed
 * positions and moves, and a naive second implementation (letters and breadth-first
 * search straight from the rules, corners and sides found from the cells' degrees)
 * that must agree with the bitboard one on every move list, outcome and perft count,
 * on every reachable position of hex2 and on random games up to hex5; then the
 * retrograde solvers against a naive memoized minimax. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "naive_loops.h"
#include "naive_solve.h"
#include "solver/enumerate.h"
#include "solver/games/perft.h"

/* ---- the naive reference ---------------------------------------------------- */

/* Corners are the cells with three neighbours; sides are the connected runs of cells
 * with four (on hexN every edge cell that is not a corner has four, and the corners
 * cut the edge into its six sides). */
struct nrules {
	struct naive_geo geo;
	int swap;
	int corner[64];
	int side[64]; /* side number, -1 for none */
};

struct nhav {
	char cell[64];
	char turn;    /* 'w' or 'b' */
	char swapped; /* 1 after a swap */
	char winner;  /* 0 in play, 'w', 'b', or 'd' for a draw */
};

static void nrules_init(struct nrules *R, const struct bp_game *g)
{
	const struct bp_board *b = g->board;
	naive_geo_init(&R->geo, b, NULL);
	R->swap = strcmp(bp_game_option(g, "swap"), "yes") == 0;
	int nsides = 0;
	for (int c = 0; c < b->ncells; c++) {
		R->corner[c] = b->cells[c].degree == 3;
		R->side[c] = -1;
	}
	for (int c = 0; c < b->ncells; c++) {
		if (b->cells[c].degree != 4 || R->side[c] >= 0)
			continue;
		int queue[64], head = 0, tail = 0;
		R->side[c] = nsides;
		queue[tail++] = c;
		while (head < tail) {
			int v = queue[head++];
			for (int i = 0; i < b->cells[v].degree; i++) {
				int u = b->cells[v].nb[i];
				if (b->cells[u].degree == 4 && R->side[u] < 0) {
					R->side[u] = nsides;
					queue[tail++] = u;
				}
			}
		}
		nsides++;
	}
	cr_assert_eq(nsides, b->a > 2 ? 6 : 0, "%s: %d sides", g->spec, nsides);
}

/* Does player pc have a ring, a bridge or a fork? */
static int n_wins(const struct nrules *R, const char *cells, char pc)
{
	const struct bp_board *b = R->geo.b;
	if (naive_has_loop(&R->geo, cells, pc))
		return 1;
	int seen[64] = { 0 };
	for (int s = 0; s < b->ncells; s++) {
		if (cells[s] != pc || seen[s])
			continue;
		int queue[64], head = 0, tail = 0, corners = 0, sides[6] = { 0 }, nsides = 0;
		seen[s] = 1;
		queue[tail++] = s;
		while (head < tail) {
			int v = queue[head++];
			corners += R->corner[v];
			if (R->side[v] >= 0 && !sides[R->side[v]]) {
				sides[R->side[v]] = 1;
				nsides++;
			}
			for (int i = 0; i < b->cells[v].degree; i++) {
				int u = b->cells[v].nb[i];
				if (!seen[u] && cells[u] == pc) {
					seen[u] = 1;
					queue[tail++] = u;
				}
			}
		}
		if (corners >= 2 || nsides >= 3)
			return 1;
	}
	return 0;
}

static void n_start(struct nhav *s)
{
	memset(s, 0, sizeof *s);
	memset(s->cell, '.', sizeof s->cell);
	s->turn = 'w';
}

/* Legal turns: a cell index, or -1 for swap. */
static int n_moves(const struct nrules *R, const struct nhav *s, int *out)
{
	const struct bp_board *b = R->geo.b;
	int n = 0, stones = 0, white = 0;
	if (s->winner)
		return 0;
	for (int c = 0; c < b->ncells; c++) {
		if (s->cell[c] == '.')
			out[n++] = c;
		stones += s->cell[c] != '.';
		white += s->cell[c] == 'w';
	}
	if (R->swap && !s->swapped && s->turn == 'b' && stones == 1 && white == 1)
		out[n++] = -1;
	return n;
}

static void n_play(const struct nrules *R, struct nhav *s, int c)
{
	const struct bp_board *b = R->geo.b;
	char me = s->turn;
	if (c < 0) {
		for (int i = 0; i < b->ncells; i++)
			if (s->cell[i] == 'w')
				s->cell[i] = 'b';
		s->swapped = 1;
	} else {
		s->cell[c] = me;
	}
	s->turn = me == 'w' ? 'b' : 'w';
	if (n_wins(R, s->cell, me)) {
		s->winner = me;
		return;
	}
	int full = 1;
	for (int i = 0; i < b->ncells; i++)
		full &= s->cell[i] != '.';
	if (full)
		s->winner = 'd';
}

static enum bp_value n_outcome(const struct nhav *s)
{
	if (!s->winner)
		return BP_VALUE_NONE;
	if (s->winner == 'd')
		return BP_VALUE_DRAW;
	return s->winner == s->turn ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static void n_text(const struct nrules *R, const struct nhav *s, char *out)
{
	naive_rows(R->geo.b, s->cell, out);
	sprintf(out + strlen(out), " %c", s->turn);
}

static void n_move_name(const struct bp_board *b, int c, char *buf)
{
	if (c < 0)
		strcpy(buf, "swap");
	else
		bp_board_cell_name(b, c, buf, 16);
}

/* Compares one node of both implementations: text, outcome, sorted move lists. */
static int compare_node(const struct bp_game *g, const struct nrules *R, const struct nhav *s,
			const struct bp_pos *p, int *moves, int invariants)
{
	char text[512];
	n_text(R, s, text);
	cr_assert_str_eq(fmt_pos(g, p), text);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(s), "%s: outcome of '%s'", g->spec, text);
	if (invariants)
		check_position_invariants(g, p);
	static char names[65][40], nnames[65][40];
	static char *sorted[65], *nsorted[65];
	int n = n_moves(R, s, moves);
	int m = fast_move_strings(g, p, names, sorted);
	cr_assert_eq(n, m, "%s: %d naive moves, %d fast in '%s'", g->spec, n, m, text);
	for (int i = 0; i < n; i++) {
		n_move_name(g->board, moves[i], nnames[i]);
		nsorted[i] = nnames[i];
	}
	qsort(nsorted, (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(sorted[i], nsorted[i], "%s: move lists differ in '%s'", g->spec,
				 text);
	return n;
}

static struct bp_pos fast_play(const struct bp_game *g, const struct bp_pos *p, int c)
{
	char name[16];
	n_move_name(g->board, c, name);
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	cr_assert_eq(g->ops->move_parse(g, p, name, &mv, &err), BP_OK, "%s: %s", name, err.msg);
	struct bp_pos q = *p;
	g->ops->apply(g, &q, mv);
	return q;
}

/* Both game trees in lockstep to `depth`; counts[d] gets perft d. */
static void lockstep(const struct bp_game *g, const struct nrules *R, const struct nhav *s,
		     const struct bp_pos *p, int d, int depth, uint64_t *counts)
{
	int moves[65];
	int n = compare_node(g, R, s, p, moves, 1);
	counts[d + 1] += (uint64_t)n;
	for (int i = 0; i < n && d + 1 < depth; i++) {
		struct nhav t = *s;
		n_play(R, &t, moves[i]);
		struct bp_pos q = fast_play(g, p, moves[i]);
		lockstep(g, R, &t, &q, d + 1, depth, counts);
	}
}

struct perft_case {
	char spec[48];
	int depth;
};

ParameterizedTestParameters(havannah, perft_matches_naive)
{
	static struct perft_case cases[] = {
		{ "havannah:hex2", 8 },
		{ "havannah:hex2,swap=yes", 9 },
		{ "havannah:hex3", 3 },
		{ "havannah:hex3,swap=yes", 3 },
	};
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct perft_case *pc, havannah, perft_matches_naive)
{
	struct bp_game *g = open_game(pc->spec);
	struct nrules R;
	nrules_init(&R, g);
	struct nhav s;
	n_start(&s);
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t naive[16] = { 0 }, fast[16] = { 0 };
	naive[0] = 1;
	lockstep(g, &R, &s, &p, 0, pc->depth, naive);
	cr_assert_eq(bp_perft(g, &p, pc->depth, fast), BP_OK);
	for (int d = 1; d <= pc->depth; d++)
		cr_expect_eq(fast[d], naive[d], "%s perft %d: fast %llu, naive %llu", pc->spec, d,
			     (unsigned long long)fast[d], (unsigned long long)naive[d]);
	bp_game_destroy(g);
}

/* Pinned perft of hex2: 7 openings; two adjacent outer cells of one colour are a
 * bridge (every outer cell of hex2 is a corner), so games end from the third stone. */
Test(havannah, perft_hex2_pinned)
{
	struct bp_game *g = open_game("havannah:hex2");
	struct bp_pos p;
	g->ops->start(g, &p);
	uint64_t c[9] = { 0 };
	cr_assert_eq(bp_perft(g, &p, 8, c), BP_OK);
	static const uint64_t want[9] = { 1, 7, 42, 210, 600, 1296, 288, 72, 0 };
	for (int d = 1; d <= 8; d++)
		cr_expect_eq(c[d], want[d], "perft %d: %llu", d, (unsigned long long)c[d]);
	bp_game_destroy(g);
}

/* Random games to the end, both implementations in lockstep. */
Test(havannah, random_games_match_naive)
{
	static const char *specs[] = { "havannah:hex3", "havannah:hex3,swap=yes", "havannah:hex4",
				       "havannah:hex4,swap=yes", "havannah:hex5" };
	unsigned seed = 20261124;
	printf("havannah random_games_match_naive: seed %u\n", seed);
	srand(seed);
	for (int v = 0; v < 5; v++) {
		struct bp_game *g = open_game(specs[v]);
		struct nrules R;
		nrules_init(&R, g);
		int ends[4] = { 0 };
		for (int game = 0; game < 60; game++) {
			struct nhav s;
			n_start(&s);
			struct bp_pos p;
			g->ops->start(g, &p);
			for (;;) {
				int moves[65];
				int n = compare_node(g, &R, &s, &p, moves, game < 10);
				if (!n)
					break;
				/* take the swap half the times it is offered */
				int i = moves[n - 1] < 0 && rand() % 2 ? n - 1 : rand() % n;
				p = fast_play(g, &p, moves[i]);
				n_play(&R, &s, moves[i]);
			}
			ends[s.winner == 'd' ? 0 : s.winner == 'w' ? 1 : 2]++;
		}
		printf("%s: 60 random games, %d draws, %d white wins, %d black wins\n", specs[v],
		       ends[0], ends[1], ends[2]);
		bp_game_destroy(g);
	}
}

/* ---- hand-made positions ----------------------------------------------------- */

/* Position text from lists of cell names ("a1 c3") for white and black. */
static const char *build(const char *spec, const char *white, const char *black, char to_move)
{
	static char out[512];
	struct bp_game *g = open_game(spec);
	char cells[64];
	memset(cells, '.', sizeof cells);
	const char *lists[2] = { white, black };
	for (int k = 0; k < 2; k++)
		for (const char *t = lists[k]; *t;) {
			if (*t == ' ') {
				t++;
				continue;
			}
			int c, used;
			cr_assert_eq(bp_board_cell_parse(g->board, t, &c, &used, NULL), BP_OK, "%s",
				     t);
			cr_assert_eq(cells[c], '.', "%s named twice", t);
			cells[c] = "wb"[k];
			t += used;
		}
	naive_rows(g->board, cells, out);
	sprintf(out + strlen(out), " %c", to_move);
	bp_game_destroy(g);
	return out;
}

/* The text lines of describe() for a position. */
static const char *described(const char *spec, const char *text)
{
	static char out[2048];
	struct bp_game *g = open_game(spec);
	struct bp_pos p = parse_pos(g, text);
	struct bp_text json = { 0 }, lines = { 0 };
	g->ops->describe(g, &p, &json, &lines);
	snprintf(out, sizeof out, "%s", bp_text_str(&lines));
	bp_text_free(&json);
	bp_text_free(&lines);
	bp_game_destroy(g);
	return out;
}

/* hex4 rows a (4) .. d (7) .. g (4); the centre d4 has the six neighbours c3 c4 d3 d5
 * e3 e4, none on the edge, so a ring of them is nothing else. */
Test(havannah, ring_around_empty_cell)
{
	char res[2048];
	const char *pos = build("havannah:hex4", "c3 c4 d3 d5 e3", "a2 a3 g2 g3 b3", 'w');
	cr_assert_eq(outcome_of("havannah:hex4", pos), BP_VALUE_NONE, "one stone missing");
	cr_expect_eq(after("havannah:hex4", pos, "e4", res), BP_VALUE_LOSS,
		     "white's ring around the empty d4: black, to move, has lost");
	cr_expect(strstr(described("havannah:hex4", res), "loops w:  1, cells c3 c4 d3 d5 e3 e4, "
							  "enclosing d4"),
		  "%s", described("havannah:hex4", res));
	cr_expect_eq(after("havannah:hex4", pos, "f2", res), BP_VALUE_NONE,
		     "the gap at e4 still open");
}

Test(havannah, ring_around_opponent_cell)
{
	const char *pos = build("havannah:hex4", "c3 c4 d3 d5 e3", "a2 a3 g2 d4 b3", 'w');
	cr_assert_eq(outcome_of("havannah:hex4", pos), BP_VALUE_NONE);
	cr_expect_eq(after("havannah:hex4", pos, "e4", NULL), BP_VALUE_LOSS,
		     "a ring around black's d4 wins for white");
}

/* Rules version 2 / Freeling: the encircled cells may hold the ring's own stones, so
 * seven stones in a flower are a ring. */
Test(havannah, ring_around_own_cell)
{
	const char *pos = build("havannah:hex4", "c3 c4 d3 d4 d5 e3", "a2 a3 g2 g3 b3 f2", 'w');
	cr_assert_eq(outcome_of("havannah:hex4", pos), BP_VALUE_NONE);
	cr_expect_eq(after("havannah:hex4", pos, "e4", NULL), BP_VALUE_LOSS,
		     "the flower around white's own d4 is a ring");
	cr_expect_eq(after("havannah:hex4", pos, "e2", NULL), BP_VALUE_NONE);
}

/* A ring may run along the edge: on hex3 the six around b2 are a1 a2 b1 b3 c2 c3 (one
 * corner, two sides). A group on the edge that surrounds nothing is no ring. */
Test(havannah, ring_along_the_edge)
{
	const char *pos = build("havannah:hex3", "a2 b1 b3 c2 c3", "d1 d2 e2 c5 d4", 'w');
	cr_assert_eq(outcome_of("havannah:hex3", pos), BP_VALUE_NONE);
	cr_expect_eq(after("havannah:hex3", pos, "a1", NULL), BP_VALUE_LOSS);
	cr_expect_eq(after("havannah:hex3", pos, "b2", NULL), BP_VALUE_NONE,
		     "a1 open: b2 reaches the outside through it");
}

Test(havannah, bridge_two_corners)
{
	/* hex3 top row: corners a1 and a3, side a2 */
	const char *pos = build("havannah:hex3", "a1 a3", "c3 d3", 'w');
	char res[2048];
	cr_expect_eq(after("havannah:hex3", pos, "a2", res), BP_VALUE_LOSS);
	cr_expect(strstr(described("havannah:hex3", res), "bridges w:  1, cells a1 a2 a3"), "%s",
		  described("havannah:hex3", res));
	/* black: corners c1 and e1 joined through d1, the side cell between them */
	pos = build("havannah:hex3", "a1 a3 b3", "c1 e1", 'b');
	cr_expect_eq(after("havannah:hex3", pos, "d1", NULL), BP_VALUE_LOSS);
	/* two corners not joined: nothing */
	cr_expect_eq(after("havannah:hex3", pos, "c3", NULL), BP_VALUE_NONE);
}

/* hex3: the sides are single cells a2 | b4 | d4 | e2 | d1 | b1, the corners a1 a3 c1 c5
 * e1 e3. White's group a2 b2 b3 b4 c2 c1 touches two sides (a2, b4) and the corner
 * c1, which lies between the sides b1 and d1 but belongs to neither: no fork. */
Test(havannah, corner_is_no_side)
{
	const char *pos = build("havannah:hex3", "a2 b2 b3 b4 c2 c1", "a3 c3 c4 d2 d3 e2", 'w');
	cr_assert_eq(outcome_of("havannah:hex3", pos), BP_VALUE_NONE,
		     "two sides and a corner are not a fork");
	cr_expect(strstr(described("havannah:hex3", pos), "forks w:  0"), "%s",
		  described("havannah:hex3", pos));
	char res[2048];
	cr_expect_eq(after("havannah:hex3", pos, "d1", res), BP_VALUE_LOSS,
		     "d1, a third side: a fork");
	cr_expect(strstr(described("havannah:hex3", res), "forks w:  1"), "%s",
		  described("havannah:hex3", res));
	cr_expect(strstr(described("havannah:hex3", res), "bridges w:  0"));
	cr_expect_eq(after("havannah:hex3", pos, "c5", res), BP_VALUE_LOSS,
		     "c5, a second corner: a bridge");
	cr_expect(strstr(described("havannah:hex3", res), "bridges w:  1"));
	cr_expect(strstr(described("havannah:hex3", res), "forks w:  0"));
	cr_expect_eq(after("havannah:hex3", pos, "d4", NULL), BP_VALUE_NONE,
		     "d4 is a side but not joined to the group");
}

/* hex4 sides have two cells: white's a2 b2 c2 d3 e2 touches the top side (a2); b1 adds
 * the upper-left side, f1 the lower-left one: a fork without a corner. */
Test(havannah, fork_three_sides_hex4)
{
	const char *pos = build("havannah:hex4", "a2 b2 c2 d3 e2", "d5 d6 e5 f4 g3", 'w');
	cr_assert_eq(outcome_of("havannah:hex4", pos), BP_VALUE_NONE);
	char res[2048];
	cr_expect_eq(after("havannah:hex4", pos, "b1", res), BP_VALUE_NONE, "two sides only");
	cr_expect_eq(after("havannah:hex4", res, "g4", res), BP_VALUE_NONE);
	cr_expect_eq(after("havannah:hex4", res, "f1", res), BP_VALUE_LOSS, "three sides");
	cr_expect(
		strstr(described("havannah:hex4", res), "forks w:  1, cells a2 b1 b2 c2 d3 e2 f1"),
		"%s", described("havannah:hex4", res));
}

/* a1 closes the ring around b2 and joins the corner a1 to the group holding the
 * corner c1: one stone, a ring and a bridge. */
Test(havannah, one_stone_two_structures)
{
	const char *pos = build("havannah:hex3", "a2 b1 b3 c1 c2 c3", "a3 c4 d1 d2 d3 e2", 'w');
	cr_assert_eq(outcome_of("havannah:hex3", pos), BP_VALUE_NONE);
	char res[2048];
	cr_expect_eq(after("havannah:hex3", pos, "a1", res), BP_VALUE_LOSS);
	const char *d = described("havannah:hex3", res);
	cr_expect(strstr(d, "loops w:  1") && strstr(d, "enclosing b2") &&
			  strstr(d, "bridges w:  1"),
		  "%s", d);
}

/* A full hex3 board without a structure: white's groups touch at most one corner and
 * two sides, black's likewise. White filling the last cell draws. */
Test(havannah, full_board_is_a_draw)
{
	const char *full = "bwb/bwww/wwwbb/bbbw/wbw b";
	cr_expect_eq(outcome_of("havannah:hex3", full), BP_VALUE_DRAW);
	cr_expect_eq(after("havannah:hex3", "bwb/bwww/wwwbb/bbbw/wb1 w", "e3", NULL),
		     BP_VALUE_DRAW);
	struct bp_game *g = open_game("havannah:hex3");
	struct bp_pos p = parse_pos(g, full);
	struct bp_move mv[64];
	cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	bp_game_destroy(g);
}

/* ---- swap ------------------------------------------------------------------------ */

Test(havannah, swap_takes_over_the_first_stone)
{
	char res[2048];
	cr_assert_eq(after("havannah:hex3,swap=yes", "3/4/5/4/3 w", "a1", res), BP_VALUE_NONE);
	cr_expect_str_eq(res, "w2/4/5/4/3 b");
	cr_expect_eq(after("havannah:hex3,swap=yes", res, "swap", res), BP_VALUE_NONE);
	cr_expect_str_eq(res, "b2/4/5/4/3 w", "the stone turns black, white to move");
	cr_expect_eq(after("havannah:hex3,swap=yes", res, "c3", res), BP_VALUE_NONE);
	cr_expect_str_eq(res, "b2/4/2w2/4/3 b", "level counts, black to move: after a swap");
	struct bp_game *g = open_game("havannah:hex3,swap=yes");
	struct bp_move mv[64];
	struct bp_err err = { { 0 } };
	struct bp_pos p = parse_pos(g, "b2/4/5/4/3 w");
	cr_expect_eq(g->ops->moves(g, &p, mv), 18, "no second swap");
	cr_expect_eq(g->ops->move_parse(g, &p, "swap", mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "first turn"), "%s", err.msg);
	p = parse_pos(g, "w2/4/5/4/3 b");
	cr_expect_eq(g->ops->moves(g, &p, mv), 19, "18 cells and swap");
	p = parse_pos(g, "w2/4/5/4/2b w");
	cr_expect_eq(g->ops->move_parse(g, &p, "swap", mv, &err), BP_EILLEGAL);
	/* tiers: the swap is a turn, so it raises the tier */
	p = parse_pos(g, "b2/4/5/4/3 w");
	cr_expect_eq(g->ops->tier(g, &p), 2);
	bp_game_destroy(g);
	/* without swap=yes, neither the move nor the positions after it exist */
	g = open_game("havannah:hex3");
	p = parse_pos(g, "w2/4/5/4/3 b");
	cr_expect_eq(g->ops->moves(g, &p, mv), 18);
	cr_expect_eq(g->ops->move_parse(g, &p, "swap", mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "swap=no"), "%s", err.msg);
	bp_game_destroy(g);
	expect_malformed("havannah:hex3", "b2/4/5/4/3 w", "swap=no");
	expect_malformed("havannah:hex3", "b2/4/2w2/4/3 b", "swap=no");
}

/* ---- malformed positions and moves ------------------------------------------------ */

struct bad_case {
	char spec[48];
	char text[80];
	char needle[64];
};

ParameterizedTestParameters(havannah, malformed)
{
	static struct bad_case cases[] = {
		{ "havannah:hex2", "ww/3/2 b", "2 white and 0 black stones with b" },
		{ "havannah:hex2", "w1/3/2 w", "1 white and 0 black stones with w" },
		{ "havannah:hex2", "b1/3/2 b", "swap=no" },
		{ "havannah:hex2,swap=yes", "bb/3/2 w", "after black's swap" },
		{ "havannah:hex2,swap=yes", "2/3/2 b", "0 white and 0 black" },
		{ "havannah:hex2", "2/3/2 x", "side to move 'x'" },
		{ "havannah:hex2", "2/3/2 w swapped=1", "unknown key 'swapped'" },
		{ "havannah:hex2", "2/3/1 w", "row c has 1 cells" },
		{ "havannah:hex2", "o1/3/2 w", "unknown cell character" },
		/* the player to move already won */
		{ "havannah:hex3", "www/4/1bb2/1b2/3 w", "white, to move, already has a bridge" },
		/* two bridges: no single last stone made them both */
		{ "havannah:hex3", "www/1bb1/1bbb1/4/www b", "no single last stone" },
		{ "havannah:hex4", "4/5/2ww2/2w1w2/2ww2/bbbbb/b3 w",
		  "white, to move, already has a ring" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, havannah, malformed)
{
	expect_malformed(bc->spec, bc->text, bc->needle);
}

Test(havannah, move_errors)
{
	struct bp_game *g = open_game("havannah:hex3");
	struct bp_pos p = parse_pos(g, "w2/4/5/4/3 b");
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "a1", &mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "occupied"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "z9", &mv, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "a4", &mv, &err), BP_EPARSE, "a has 3 cells");
	cr_expect_eq(g->ops->move_parse(g, &p, "c3+c4", &mv, &err), BP_EPARSE);
	cr_expect(strstr(err.msg, "unexpected '+c4'"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "e3", &mv, &err), BP_OK, "%s", err.msg);
	struct bp_text t = { 0 };
	g->ops->move_format(g, &p, mv, &t);
	cr_expect_str_eq(bp_text_str(&t), "e3");
	bp_text_free(&t);
	/* a finished game takes no move */
	p = parse_pos(g, "www/4/1bb2/4/3 b");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS);
	cr_expect_eq(g->ops->move_parse(g, &p, "e3", &mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "over"), "%s", err.msg);
	bp_game_destroy(g);
}

Test(havannah, spec_errors)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create("havannah:4x4", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("havannah:tri4", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("havannah:hex6", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "hex2 to hex5"), "%s", err.msg);
	cr_expect_eq(bp_game_create("havannah:hex3,swap=maybe", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("havannah:hex5", &g, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(g->board->ncells, 61);
	bp_game_destroy(g);
}

/* ---- ranking -------------------------------------------------------------------- */

struct rank_case {
	char spec[48];
	uint32_t max_tier;
};

ParameterizedTestParameters(havannah, rank_unrank_every_index)
{
	static struct rank_case cases[] = {
		{ "havannah:hex2", 99 },
		{ "havannah:hex2,swap=yes", 99 },
		{ "havannah:hex3", 5 },
		{ "havannah:hex3,swap=yes", 5 },
	};
	return cr_make_param_array(struct rank_case, cases, sizeof cases / sizeof cases[0]);
}

/* Every index of the tiers either unranks to a valid position that ranks back to it
 * and has that tier, or is a hole whose positions pos_parse refuses. */
ParameterizedTest(struct rank_case *rc, havannah, rank_unrank_every_index)
{
	struct bp_game *g = open_game(rc->spec);
	expect_rank_round_trip(g, rc->max_tier, 1);
	bp_game_destroy(g);
}

/* ---- every reachable position of small instances -------------------------------- */

#define SET_CAP (1u << 16)

static void visit_all(const struct bp_game *g, const struct nrules *R, struct pos_set *seen,
		      const struct bp_pos *p, const struct nhav *s)
{
	if (!set_insert(seen, p))
		return;
	int moves[65];
	int n = compare_node(g, R, s, p, moves, 1);
	for (int i = 0; i < n; i++) {
		struct nhav t = *s;
		n_play(R, &t, moves[i]);
		struct bp_pos q = fast_play(g, p, moves[i]);
		visit_all(g, R, seen, &q, &t);
	}
}

ParameterizedTestParameters(havannah, every_reachable_position)
{
	static char specs[][48] = { "havannah:hex2", "havannah:hex2,swap=yes" };
	return cr_make_param_array(char[48], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[48], havannah, every_reachable_position)
{
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	struct pos_set seen;
	pos_set_init(&seen, SET_CAP);
	struct nhav s;
	n_start(&s);
	struct bp_pos p;
	g->ops->start(g, &p);
	visit_all(g, &R, &seen, &p, &s);
	expect_enumeration_matches(g, &seen);
	pos_set_free(&seen);
	bp_game_destroy(g);
}

/* ---- the naive minimax against every solver ------------------------------------- */

static int nh_children(const void *rules, const void *state, void *out)
{
	const struct nrules *R = rules;
	int moves[65];
	int n = n_moves(R, state, moves);
	struct nhav *kids = out;
	for (int i = 0; i < n; i++) {
		kids[i] = *(const struct nhav *)state;
		n_play(R, &kids[i], moves[i]);
	}
	return n;
}

static enum bp_value nh_outcome(const void *rules, const void *state)
{
	(void)rules;
	return n_outcome(state);
}

static void nh_text(const void *rules, const void *state, char *out)
{
	n_text(rules, state, out);
}

struct solve_case {
	char spec[48];
	enum bp_value value;
	unsigned remoteness;
};

/* hex2: a corner wins in 3 (each corner has two corner neighbours; black blocks one),
 * the centre loses in 4 (black takes a corner, then a corner next to it). With swap,
 * black swaps a corner opening and does not swap the centre: white loses in 4. */
ParameterizedTestParameters(havannah, naive_minimax_agrees_with_every_solver)
{
	static struct solve_case cases[] = {
		{ "havannah:hex2", BP_VALUE_WIN, 3 },
		{ "havannah:hex2,swap=yes", BP_VALUE_LOSS, 4 },
	};
	return cr_make_param_array(struct solve_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct solve_case *sc, havannah, naive_minimax_agrees_with_every_solver)
{
	struct bp_game *g = open_game(sc->spec);
	struct nrules R;
	nrules_init(&R, g);
	struct nhav s;
	n_start(&s);
	struct naive_game ng = { .size = sizeof s,
				 .max_children = g->board->ncells + 1,
				 .rules = &R,
				 .children = nh_children,
				 .outcome = nh_outcome,
				 .text = nh_text };
	size_t n = naive_check_solvers(g, &ng, &s, 1u << 14);
	printf("%s: %zu positions agree with the naive minimax\n", sc->spec, n);
	char *dir = temp_db();
	struct bp_solve_result r = solve_into(dir, g, (struct bp_solve_opts){ .threads = 1 });
	cr_expect_eq(r.value, sc->value, "%s: start value %s", sc->spec, bp_value_name(r.value));
	cr_expect_eq(r.remoteness, sc->remoteness, "%s: start remoteness %u", sc->spec,
		     r.remoteness);
	struct bp_verify_report vr = verify_db(dir, g);
	cr_expect_eq(vr.inconsistencies, 0);
	cr_expect_eq(vr.corrupt_blocks, 0);
	cr_expect_gt(vr.positions_checked, 0);
	remove_db(dir);
	bp_game_destroy(g);
}

/* ---- the structural holes ------------------------------------------------------ */

/* canonical_mask agrees with the naive holes (unrank() accepts the index, which
 * validates the position, and canonical() leaves it as it is) on every index of hex2
 * with and without the swap, on the lower and top tiers of hex3 (the swap part
 * included) and on the lower tiers of hex4; whole tiers and seeded random ranges (any start, any length: across
 * occupied sets and the two parts of a tier). */
Test(havannah, canonical_mask_matches_naive)
{
	static const struct {
		const char *spec;
		uint32_t from, to; /* the tiers tested */
	} cases[] = {
		{ "havannah:hex2", 0, UINT32_MAX }, { "havannah:hex2,swap=yes", 0, UINT32_MAX },
		{ "havannah:hex3,swap=yes", 0, 6 }, { "havannah:hex3,swap=yes", 19, 20 },
		{ "havannah:hex3", 18, 19 },	    { "havannah:hex4", 0, 4 },
	};
	const uint64_t seed = 20261202;
	printf("havannah.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)seed);
	uint64_t state = seed;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const char *spec = cases[c].spec;
		struct bp_game *g = open_game(spec);
		expect_canonical_mask_range(g, spec, naive_valid_canonical, cases[c].from,
					    cases[c].to, &state);
		bp_game_destroy(g);
	}
}
