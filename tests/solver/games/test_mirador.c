/* SPDX-License-Identifier: MIT */
/* Mirador (RULES.md section 9): hand-made positions for every placement rule and
 * each kind of link, position and move text (malformed positions are rejected with
 * a message naming where), symmetry, and a deliberately naive second implementation
 * (a char grid, pairwise piece scans, and a literal one-after-another enumeration of
 * every set of opponent placements) that must agree with the fast one on links,
 * chains, the unbreakable test and perft. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/enumerate.h"
#include "solver/games/game.h"
#include "solver/games/mirador.h"
#include "solver/games/perft.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "solver/verify.h"
#include "tests/support.h"

/* ---- the naive reference ---------------------------------------------------- */

#define NMAX 64

struct naive {
	int w, h, p;
	char cell[NMAX * NMAX]; /* 'r', 'b', '.'; row-major, top row first */
};

static char at(const struct naive *n, int x, int y)
{
	return n->cell[y * n->w + x];
}

static struct naive naive_of(const struct bp_game *g, const struct bp_pos *p, int piece)
{
	struct naive n;
	n.w = g->board->a;
	n.h = g->board->b;
	n.p = piece;
	for (int c = 0; c < n.w * n.h; c++)
		n.cell[c] = g->ops->cell_char(g, p, c);
	return n;
}

/* Rule 1, square by square. */
static int naive_can_place(const struct naive *n, char colour, int x, int y)
{
	if (x < 0 || y < 0 || x + n->p > n->w || y + n->p > n->h)
		return 0;
	for (int dy = 0; dy < n->p; dy++)
		for (int dx = 0; dx < n->p; dx++) {
			int sx = x + dx, sy = y + dy;
			if (at(n, sx, sy) != '.')
				return 0;
			for (int ny = sy - 1; ny <= sy + 1; ny++)
				for (int nx = sx - 1; nx <= sx + 1; nx++) {
					if (nx < 0 || ny < 0 || nx >= n->w || ny >= n->h)
						continue;
					if (nx >= x && nx < x + n->p && ny >= y && ny < y + n->p)
						continue;
					char o = at(n, nx, ny);
					if (o == '.')
						continue;
					if (nx == sx || ny == sy)
						return 0; /* side contact */
					if (o != colour)
						return 0; /* corner contact with the opponent */
				}
		}
	return 1;
}

static void naive_put(struct naive *n, char colour, int x, int y)
{
	for (int dy = 0; dy < n->p; dy++)
		for (int dx = 0; dx < n->p; dx++)
			n->cell[(y + dy) * n->w + x + dx] = colour;
}

static int naive_pieces(const struct naive *n, char colour, int *px, int *py)
{
	int k = 0;
	for (int y = 0; y < n->h; y++)
		for (int x = 0; x < n->w; x++)
			if (at(n, x, y) == colour && (x == 0 || at(n, x - 1, y) != colour) &&
			    (y == 0 || at(n, x, y - 1) != colour)) {
				px[k] = x;
				py[k] = y;
				k++;
			}
	return k;
}

static int empty_run(const struct naive *n, int vert, int line, int from, int to)
{
	for (int i = from; i <= to; i++)
		if ((vert ? at(n, line, i) : at(n, i, line)) != '.')
			return 0;
	return 1;
}

/* Lanes of line of sight between pieces i and j (0: none); *corner set when they
 * touch at a corner. */
static int naive_pair(const struct naive *n, int xi, int yi, int xj, int yj, int *corner)
{
	int P = n->p, lanes = 0;
	*corner = abs(xi - xj) == P && abs(yi - yj) == P;
	for (int r = 0; r < n->h; r++) {
		if (r < yi || r >= yi + P || r < yj || r >= yj + P)
			continue;
		int l = xi < xj ? xi : xj, rgt = xi < xj ? xj : xi;
		if (rgt > l + P - 1)
			lanes += empty_run(n, 0, r, l + P, rgt - 1);
	}
	for (int c = 0; c < n->w; c++) {
		if (c < xi || c >= xi + P || c < xj || c >= xj + P)
			continue;
		int t = yi < yj ? yi : yj, bot = yi < yj ? yj : yi;
		if (bot > t + P - 1)
			lanes += empty_run(n, 1, c, t + P, bot - 1);
	}
	return lanes;
}

/* Side s (0 N, 1 S, 2 W, 3 E): -1 touching, else lanes of line of sight. */
static int naive_side(const struct naive *n, int x, int y, int s)
{
	int P = n->p, lanes = 0;
	if ((s == 0 && y == 0) || (s == 1 && y + P == n->h) || (s == 2 && x == 0) ||
	    (s == 3 && x + P == n->w))
		return -1;
	for (int k = 0; k < P; k++) {
		if (s == 0)
			lanes += empty_run(n, 1, x + k, 0, y - 1);
		else if (s == 1)
			lanes += empty_run(n, 1, x + k, y + P, n->h - 1);
		else if (s == 2)
			lanes += empty_run(n, 0, y + k, 0, x - 1);
		else
			lanes += empty_run(n, 0, y + k, x + P, n->w - 1);
	}
	return lanes;
}

/* Directions (BP_MIRADOR_* mask) in which colour has a chain: a path of pieces,
 * first linked to one side, last to the opposite side. */
static int naive_chains(const struct naive *n, char colour)
{
	int px[NMAX * NMAX / 4 + 4], py[NMAX * NMAX / 4 + 4];
	int k = naive_pieces(n, colour, px, py), mask = 0;
	for (int d = 0; d < 2; d++) {
		int from = d ? 2 : 0, to = d ? 3 : 1;
		char seen[NMAX * NMAX / 4 + 4] = { 0 };
		int queue[NMAX * NMAX / 4 + 4], head = 0, tail = 0;
		for (int i = 0; i < k; i++)
			if (naive_side(n, px[i], py[i], from) != 0) {
				seen[i] = 1;
				queue[tail++] = i;
			}
		while (head < tail) {
			int i = queue[head++];
			if (naive_side(n, px[i], py[i], to) != 0) {
				mask |= d ? BP_MIRADOR_EW : BP_MIRADOR_NS;
				break;
			}
			for (int j = 0; j < k; j++) {
				int corner;
				if (seen[j] || j == i)
					continue;
				if (naive_pair(n, px[i], py[i], px[j], py[j], &corner) || corner) {
					seen[j] = 1;
					queue[tail++] = j;
				}
			}
		}
	}
	return mask;
}

struct brute {
	int nplace, px[NMAX * NMAX], py[NMAX * NMAX];
	char colour, opp;
	int dirs; /* the directions whose chains must all be broken */
	long sets;
};

/* Places opponent pieces one after another (each legal when placed), trying every
 * set once (increasing index order); 1 when some set leaves colour without a chain. */
static int brute_rec(struct brute *b, struct naive *n, int start)
{
	b->sets++;
	if (!(naive_chains(n, b->colour) & b->dirs))
		return 1;
	for (int i = start; i < b->nplace; i++) {
		if (!naive_can_place(n, b->opp, b->px[i], b->py[i]))
			continue;
		struct naive save = *n;
		naive_put(n, b->opp, b->px[i], b->py[i]);
		int found = brute_rec(b, n, i + 1);
		*n = save;
		if (found)
			return 1;
	}
	return 0;
}

/* 1 when colour has a chain in one of the directions `dirs` that no set of
 * opponent placements breaks. */
static int naive_unbreakable_dirs(const struct naive *n0, char colour, int dirs, long *sets)
{
	if (!(naive_chains(n0, colour) & dirs))
		return 0;
	struct brute *b = calloc(1, sizeof *b);
	cr_assert(b);
	struct naive n = *n0;
	b->colour = colour;
	b->dirs = dirs;
	b->opp = colour == 'r' ? 'b' : 'r';
	for (int y = 0; y < n.h; y++)
		for (int x = 0; x < n.w; x++)
			if (naive_can_place(&n, b->opp, x, y)) {
				b->px[b->nplace] = x;
				b->py[b->nplace++] = y;
			}
	int r = !brute_rec(b, &n, 0);
	if (sets)
		*sets = b->sets;
	free(b);
	return r;
}

/* Squares on colour's lines of sight: from each piece, along each of its rows and
 * columns, the empty squares up to a friendly piece or a side. */
static void naive_lane_squares(const struct naive *n, char colour, char *mark)
{
	int px[NMAX * NMAX / 4 + 4], py[NMAX * NMAX / 4 + 4];
	int k = naive_pieces(n, colour, px, py);
	memset(mark, 0, (size_t)(n->w * n->h));
	static const int dir[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
	for (int i = 0; i < k; i++)
		for (int d = 0; d < 4; d++)
			for (int j = 0; j < n->p; j++) {
				int dx = dir[d][0], dy = dir[d][1];
				/* start just outside the piece, on its j-th row or column */
				int x = dx > 0 ? px[i] + n->p : dx < 0 ? px[i] - 1 : px[i] + j;
				int y = dy > 0 ? py[i] + n->p : dy < 0 ? py[i] - 1 : py[i] + j;
				int x0 = x, y0 = y;
				while (x >= 0 && y >= 0 && x < n->w && y < n->h &&
				       at(n, x, y) == '.') {
					x += dx;
					y += dy;
				}
				int open = x < 0 || y < 0 || x >= n->w || y >= n->h ||
					   at(n, x, y) == colour;
				for (int u = x0, v = y0; open && (u != x || v != y);
				     u += dx, v += dy)
					mark[v * n->w + u] = 1;
			}
}

/* The brute force over the opponent placements that cover a square of mark only
 * (the others remove no link): for boards too big for naive_unbreakable. */
static int naive_unbreakable_marked_dirs(const struct naive *n0, char colour, int dirs, long *sets)
{
	if (!(naive_chains(n0, colour) & dirs))
		return 0;
	char mark[NMAX * NMAX];
	naive_lane_squares(n0, colour, mark);
	struct brute *b = calloc(1, sizeof *b);
	cr_assert(b);
	struct naive n = *n0;
	b->colour = colour;
	b->dirs = dirs;
	b->opp = colour == 'r' ? 'b' : 'r';
	for (int y = 0; y < n.h; y++)
		for (int x = 0; x < n.w; x++) {
			int covers = 0;
			for (int dy = 0; dy < n.p && y + dy < n.h; dy++)
				for (int dx = 0; dx < n.p && x + dx < n.w; dx++)
					covers |= mark[(y + dy) * n.w + x + dx];
			if (covers && naive_can_place(&n, b->opp, x, y)) {
				b->px[b->nplace] = x;
				b->py[b->nplace++] = y;
			}
		}
	int r = !brute_rec(b, &n, 0);
	if (sets)
		*sets = b->sets;
	free(b);
	return r;
}

static int naive_unbreakable_marked(const struct naive *n, char colour, long *sets)
{
	return naive_unbreakable_marked_dirs(n, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, sets);
}

static int naive_unbreakable(const struct naive *n, char colour, long *sets)
{
	return naive_unbreakable_dirs(n, colour, BP_MIRADOR_NS | BP_MIRADOR_EW, sets);
}

/* Checks a witness by hand: each placement legal when made, no chain after. */
static void check_witness(const struct bp_game *g, const struct bp_pos *p, int piece, int colour,
			  const struct bp_mirador_verdict *v)
{
	struct naive n = naive_of(g, p, piece);
	char opp = colour ? 'r' : 'b';
	for (int i = 0; i < v->nwitness; i++) {
		int x = v->witness[i] % n.w, y = v->witness[i] / n.w;
		cr_assert(naive_can_place(&n, opp, x, y),
			  "%s: witness placement %d at (%d,%d) illegal", fmt_pos(g, p), i, x, y);
		naive_put(&n, opp, x, y);
	}
	cr_assert_eq(naive_chains(&n, colour ? 'b' : 'r'), 0, "%s: witness leaves a chain",
		     fmt_pos(g, p));
}

/* ---- the naive game, for perft -------------------------------------------------- */

struct nstate {
	struct naive n;
	char to_move;
	int passes; /* consecutive passes just made */
};

/* Moves as (x, y), or (-1, -1) for a pass; 0 when the game is over. */
static int naive_moves(const struct nstate *s, int *mx, int *my)
{
	char prev = s->to_move == 'r' ? 'b' : 'r';
	if (naive_unbreakable(&s->n, prev, NULL) || s->passes >= 2)
		return 0;
	int k = 0;
	for (int y = 0; y < s->n.h; y++)
		for (int x = 0; x < s->n.w; x++)
			if (naive_can_place(&s->n, s->to_move, x, y)) {
				mx[k] = x;
				my[k++] = y;
			}
	if (!k) {
		mx[0] = my[0] = -1;
		k = 1;
	}
	return k;
}

static void naive_perft(const struct nstate *s, int depth, int d, uint64_t *counts)
{
	int mx[NMAX * NMAX], my[NMAX * NMAX];
	int k = naive_moves(s, mx, my);
	if (d == depth)
		return;
	counts[d + 1] += (uint64_t)k;
	for (int i = 0; i < k; i++) {
		struct nstate c = *s;
		if (mx[i] < 0) {
			c.passes++;
		} else {
			naive_put(&c.n, s->to_move, mx[i], my[i]);
			c.passes = 0;
		}
		c.to_move = s->to_move == 'r' ? 'b' : 'r';
		naive_perft(&c, depth, d + 1, counts);
	}
}

/* ---- placement --------------------------------------------------------------------- */

struct place_case {
	char spec[32], pos[96];
	char colour; /* 'r' or 'b' */
	int x, y, legal;
	char why[48];
};

ParameterizedTestParameters(mirador, placement)
{
	/* red's piece at b2 covers columns 1-2 of rows 1-2 */
	static struct place_case cases[] = {
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 3, 3, 0, "corner, opponent" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'r', 3, 3, 1, "corner, own colour" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'r', 0, 3, 0, "side contact, own, offset" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 3, 0, 0, "side contact" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 1, 3, 0, "side contact below" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'r', 2, 3, 0, "side contact, own" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 1, 4, 1, "one row between" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 4, 1, 1, "one column between" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 2, 2, 0, "overlap" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 5, 0, 0, "leaves the grid (east)" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 0, 5, 0, "leaves the grid (south)" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 4, 4, 1, "bottom-right corner" },
		{ "mirador:6x6", "6/1rr3/1rr3/6/6/6 b", 'b', 0, 4, 1, "bottom-left" },
		{ "mirador:6x6,piece=1", "6/1r4/6/6/6/6 b", 'b', 2, 2, 0, "1x1 corner, opponent" },
		{ "mirador:6x6,piece=1", "6/1r4/6/6/6/6 b", 'r', 2, 2, 1, "1x1 corner, own" },
		{ "mirador:6x6,piece=1", "6/1r4/6/6/6/6 b", 'b', 1, 2, 0, "1x1 side" },
		{ "mirador:6x6,piece=1", "6/1r4/6/6/6/6 b", 'b', 1, 3, 1, "1x1 gap" },
		{ "mirador:7x7,piece=3", "7/1rrr3/1rrr3/1rrr3/7/7/7 b", 'r', 4, 4, 1,
		  "3x3 corner" },
		{ "mirador:7x7,piece=3", "7/1rrr3/1rrr3/1rrr3/7/7/7 b", 'b', 4, 4, 0,
		  "3x3 corner, opponent" },
		{ "mirador:7x7,piece=3", "7/1rrr3/1rrr3/1rrr3/7/7/7 b", 'b', 4, 3, 0, "3x3 side" },
	};
	return cr_make_param_array(struct place_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct place_case *pc, mirador, placement)
{
	struct bp_game *g = open_game(pc->spec);
	struct bp_pos p = parse_pos(g, pc->pos);
	int colour = pc->colour == 'b';
	int piece = atoi(bp_game_option(g, "piece"));
	cr_expect_eq(bp_mirador_can_place(g, &p, colour, pc->x, pc->y), pc->legal,
		     "%s %s: %c at (%d,%d) (%s)", pc->spec, pc->pos, pc->colour, pc->x, pc->y,
		     pc->why);
	struct naive n = naive_of(g, &p, piece);
	cr_expect_eq(naive_can_place(&n, pc->colour, pc->x, pc->y), pc->legal, "naive: %s (%s)",
		     pc->pos, pc->why);
	/* for the player to move, the move list agrees and move_parse says why not */
	if (colour == (int)p.w[24]) {
		struct bp_move *mv = bp_game_move_buffer(g);
		int k = g->ops->moves(g, &p, mv), found = 0;
		for (int i = 0; i < k; i++)
			found |= (int)mv[i].v == pc->y * g->board->a + pc->x;
		cr_expect_eq(found, pc->legal, "%s: move list", pc->why);
		free(mv);
		if (pc->x < g->board->a && pc->y < g->board->b) {
			char name[16];
			struct bp_move m;
			struct bp_err err = { { 0 } };
			bp_board_cell_name(g->board, pc->y * g->board->a + pc->x, name,
					   sizeof name);
			int rc = g->ops->move_parse(g, &p, name, &m, &err);
			cr_expect_eq(rc, pc->legal ? BP_OK : BP_EILLEGAL, "%s: %s", name, err.msg);
		}
	}
	bp_game_destroy(g);
}

Test(mirador, move_text)
{
	struct bp_game *g = open_game("mirador:6x6");
	struct bp_pos p = parse_pos(g, "6/1rr3/1rr3/6/6/6 b");
	struct bp_move m;
	struct bp_err err = { { 0 } };
	cr_assert_eq(g->ops->move_parse(g, &p, "e2", &m, &err), BP_OK, "%s", err.msg);
	struct bp_text t = { 0 };
	g->ops->move_format(g, &p, m, &t);
	cr_expect_str_eq(bp_text_str(&t), "e2");
	bp_text_free(&t);
	cr_expect_eq(g->ops->move_parse(g, &p, "d4", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "corner"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "a4", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "side"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "c3", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "occupied"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "f1", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "grid"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "pass", &m, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->move_parse(g, &p, "z9", &m, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "e2x", &m, &err), BP_EPARSE);
	bp_game_destroy(g);
}

/* ---- links -------------------------------------------------------------------------- */

static int find_link(const struct bp_mirador_link *l, int n, int from, int to, char kind)
{
	for (int i = 0; i < n; i++)
		if (((l[i].from == from && l[i].to == to) ||
		     (l[i].from == to && l[i].to == from)) &&
		    l[i].kind == kind)
			return l[i].kind == 's' ? l[i].lanes : 1;
	return 0;
}

Test(mirador, links)
{
	/* 10x8: red A a1 (touches N and W), B c3 (corner contact with A), C c8 (row
	 * sight to B along rows c-d; sees N and E; sees S along column 9 only, blue g7
	 * covering column 8) */
	struct bp_game *g = open_game("mirador:10x8");
	struct bp_pos p = parse_pos(g, "rr8/rr8/2rr3rr1/2rr3rr1/10/10/bb4bb2/bb4bb2 b");
	struct bp_mirador_link l[64];
	int n = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 64);
	cr_assert(n <= 64);
	int A = 0, B = 2 * 10 + 2, C = 2 * 10 + 7;
	cr_expect_eq(find_link(l, n, A, -1, 't'), 1, "A touches N");
	cr_expect_eq(find_link(l, n, A, -3, 't'), 1, "A touches W");
	cr_expect_eq(find_link(l, n, A, B, 'c'), 1, "A-B corner");
	cr_expect_eq(find_link(l, n, B, C, 's'), 2, "B-C row sight, 2 rows");
	cr_expect_eq(find_link(l, n, C, -4, 's'), 2, "C sees E along rows c, d");
	cr_expect_eq(find_link(l, n, C, -1, 's'), 2, "C sees N");
	cr_expect_eq(find_link(l, n, C, -2, 's'), 1, "C sees S along column 9 only");
	cr_expect_eq(find_link(l, n, A, -2, 's'), 0, "blue g1 blocks A's view south");
	cr_expect_eq(find_link(l, n, A, C, 's'), 0, "B stands between A and C");
	/* and nothing else: a1 N W E c3, c3 N S W c8, c8 N S E */
	cr_expect_eq(n, 11, "%d links", n);
	bp_game_destroy(g);
}

/* A link is blocked by a piece of either colour in its lane. */
Test(mirador, blocked_links)
{
	struct bp_game *g = open_game("mirador:11x6");
	struct bp_mirador_link l[64];
	/* red a1 and a10 see each other along rows a-b */
	struct bp_pos p = parse_pos(g, "rr7rr/rr7rr/11/11/4bb5/4bb5 b");
	int n = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 64);
	cr_expect_eq(find_link(l, n, 0, 9, 's'), 2);
	/* a blue piece between cuts both rows */
	p = parse_pos(g, "rr2bb3rr/rr2bb3rr/11/11/11/11 b");
	n = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 64);
	cr_expect_eq(find_link(l, n, 0, 9, 's'), 0, "blocked by blue");
	/* a red piece between: the link is replaced by two, through it */
	p = parse_pos(g, "rr2rr3rr/rr2rr3rr/11/11/bb3bb4/bb3bb4 b");
	n = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 64);
	cr_expect_eq(find_link(l, n, 0, 9, 's'), 0, "blocked by red");
	cr_expect_eq(find_link(l, n, 0, 4, 's'), 2);
	cr_expect_eq(find_link(l, n, 4, 9, 's'), 2);
	/* half blocked: row a is still clear */
	p = parse_pos(g, "rr7rr/rr2bb3rr/4bb5/11/11/11 b");
	n = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 64);
	cr_expect_eq(find_link(l, n, 0, 9, 's'), 1, "half blocked");
	bp_game_destroy(g);
}

/* ---- the unbreakable test ---------------------------------------------------- */

struct verdict_case {
	char spec[32], pos[160];
	int colour;
	int chains, unbreakable;
	int min_blockers; /* fewest opponent pieces that break the chains (0: unbreakable) */
	char why[64];
};

ParameterizedTestParameters(mirador, verdicts)
{
	static struct verdict_case cases[] = {
		/* red a1 - i1 along columns 1-2 (rows c..h) is its only chain; blue e1
		 * cuts both columns at once */
		{ "mirador:9x10", "rr2bb3/rr2bb3/9/9/9/9/9/9/rr2bb3/rr2bb3 r", 0, BP_MIRADOR_NS, 0,
		  1, "one blocker" },
		/* two disjoint north-south paths (columns 1-2 and 8-9): two blockers
		 * (the seed's figure 4 idea) */
		{ "mirador:9x10", "rr1bb2rr/rr1bb2rr/9/9/3bb4/3bb4/9/9/rr1bb2rr/rr1bb2rr b", 0,
		  BP_MIRADOR_NS, 0, 2, "two blockers" },
		/* every gap is a single row, too narrow for a blocker: secure */
		{ "mirador:7x6", "1rr2bb/1rr2bb/7/1rr4/1rr4/7 b", 0, BP_MIRADOR_NS | BP_MIRADOR_EW,
		  1, 0, "secure" },
		/* rows a-b east of a1: every blocker would touch c3 or c8 along a side or
		 * at a corner, so W-a1-E is secure */
		{ "mirador:10x8", "rr8/rr8/2rr3rr1/2rr3rr1/10/10/bb4bb2/bb4bb2 b", 0,
		  BP_MIRADOR_NS | BP_MIRADOR_EW, 1, 0, "secure by contact" },
		/* a lone piece in the open: both directions, one blocker each */
		{ "mirador:8x8", "8/8/8/3rr3/3rr3/8/8/8 b", 0, BP_MIRADOR_NS | BP_MIRADOR_EW, 0, 2,
		  "lone piece" },
		/* no chain at all: nothing to break */
		{ "mirador:8x8", "8/8/8/3rr3/3rr3/8/8/8 b", 1, 0, 0, 0, "no pieces, no chain" },
	};
	return cr_make_param_array(struct verdict_case, cases, sizeof cases / sizeof cases[0]);
}

/* Both directions threatened at once (the seed's figure 6 idea): a lone piece in
 * the open has a north-south and an east-west chain; one blocker stops either, and
 * the challenger needs one for each. */
Test(mirador, both_directions)
{
	struct bp_game *g = open_game("mirador:8x8");
	struct bp_pos p = parse_pos(g, "8/8/8/3rr3/3rr3/8/8/8 b");
	struct bp_mirador_verdict ns, ew, both;
	bp_mirador_test_dirs(g, &p, BP_MIRADOR_RED, BP_MIRADOR_NS, &ns);
	bp_mirador_test_dirs(g, &p, BP_MIRADOR_RED, BP_MIRADOR_EW, &ew);
	bp_mirador_test(g, &p, BP_MIRADOR_RED, &both);
	cr_expect(!ns.unbreakable && !ew.unbreakable && !both.unbreakable);
	cr_expect_eq(ns.nwitness, 1, "north-south: one blocker");
	cr_expect_eq(ew.nwitness, 1, "east-west: one blocker");
	cr_expect_eq(both.nwitness, 2, "both: two blockers");
	check_witness(g, &p, 2, BP_MIRADOR_RED, &both);
	/* after the north-south blocker alone, the east-west chain is still there */
	struct naive n = naive_of(g, &p, 2);
	naive_put(&n, 'b', ns.witness[0] % 8, ns.witness[0] / 8);
	cr_expect_eq(naive_chains(&n, 'r'), BP_MIRADOR_EW);
	bp_game_destroy(g);

	/* the seed: red's first mirador on 27x27 "has a tenuous line-of-sight connection
	 * with all four sides" */
	g = open_game("mirador:27x27");
	p = parse_pos(g, "start");
	struct bp_move m;
	cr_assert_eq(g->ops->move_parse(g, &p, "m13", &m, NULL), BP_OK);
	g->ops->apply(g, &p, m);
	struct bp_mirador_link l[16];
	int nl = bp_mirador_links(g, &p, BP_MIRADOR_RED, l, 16);
	cr_expect_eq(nl, 4);
	for (int s = 0; s < 4; s++)
		cr_expect_eq(find_link(l, nl, 12 * 27 + 12, -1 - s, 's'), 2, "side %d", s);
	bp_mirador_test(g, &p, BP_MIRADOR_RED, &both);
	cr_expect_eq(both.chains, BP_MIRADOR_NS | BP_MIRADOR_EW);
	cr_expect(!both.unbreakable);
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	check_witness(g, &p, 2, BP_MIRADOR_RED, &both);
	bp_game_destroy(g);
}

/* Pieces from ROWS, placed one by one where rule 1 allows, ignoring turn order. */
static struct bp_pos board_of(const struct bp_game *g, const char *rows)
{
	struct naive n;
	n.w = g->board->a;
	n.h = g->board->b;
	n.p = atoi(bp_game_option(g, "piece"));
	int k = 0;
	for (const char *c = rows; *c && k < n.w * n.h; c++) {
		if (*c == '/')
			continue;
		if (*c >= '1' && *c <= '9') {
			int run = (int)strtol(c, (char **)&c, 10);
			c--;
			while (run--)
				n.cell[k++] = '.';
			continue;
		}
		n.cell[k++] = *c;
	}
	cr_assert_eq(k, n.w * n.h, "%s", rows);
	struct bp_pos p = parse_pos(g, "start");
	for (int c = 0; c < k; c++) {
		char ch = n.cell[c];
		int x = c % n.w, y = c / n.w;
		if (ch == '.' || (x > 0 && at(&n, x - 1, y) == ch) ||
		    (y > 0 && at(&n, x, y - 1) == ch))
			continue;
		cr_assert(bp_mirador_can_place(g, &p, ch == 'b', x, y), "%s: %c at %d", rows, ch,
			  c);
		p.w[24] = ch == 'b';
		g->ops->apply(g, &p, (struct bp_move){ (uint32_t)c });
	}
	p.w[24] = p.w[25] = 0;
	return p;
}

/* The seed's figure 6: north-south alone can be broken, east-west alone can be
 * broken, both cannot. Found by a random search over boards; the naive brute force
 * (over the placements that touch a line of sight) confirms each claim. Red has just
 * moved on 10x10 and wins (blue's chains are unbreakable too, which does not matter:
 * only the player who just moved can have won); the 12x12 board is a second case. */
struct fig6_case {
	char spec[32], rows[96];
	int game; /* rows + " b" is a valid position with red to have just moved */
};

ParameterizedTestParameters(mirador, fig6)
{
	static struct fig6_case cases[] = {
		{ "mirador:10x10", "2rr6/2rr6/rr8/rr1bb5/3bb2rr1/7rr1/4bb4/4bb1rr1/bb5rr1/bb8", 1 },
		{ "mirador:12x12", "12/1rr5rr2/1rr5rr2/12/3bb7/3bb2rr3/7rr3/12/4bb6/4bb6/rr10/rr10",
		  0 },
	};
	return cr_make_param_array(struct fig6_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct fig6_case *fc, mirador, fig6)
{
	struct bp_game *g = open_game(fc->spec);
	int w = g->board->a;
	struct bp_pos p = board_of(g, fc->rows);
	if (fc->game) {
		char text[128];
		snprintf(text, sizeof text, "%s b", fc->rows);
		p = parse_pos(g, text);
		struct bp_move mv[128];
		cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS, "red has won");
		cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	}
	struct bp_mirador_verdict ns, ew, both;
	bp_mirador_test_dirs(g, &p, BP_MIRADOR_RED, BP_MIRADOR_NS, &ns);
	bp_mirador_test_dirs(g, &p, BP_MIRADOR_RED, BP_MIRADOR_EW, &ew);
	bp_mirador_test(g, &p, BP_MIRADOR_RED, &both);
	cr_expect_eq(both.chains, BP_MIRADOR_NS | BP_MIRADOR_EW);
	cr_expect(!ns.unbreakable && !ew.unbreakable && both.unbreakable);
	struct naive n = naive_of(g, &p, 2);
	for (int d = 0; d < 2; d++) {
		const struct bp_mirador_verdict *v = d ? &ew : &ns;
		struct naive m = n;
		for (int i = 0; i < v->nwitness; i++) {
			int x = v->witness[i] % w, y = v->witness[i] / w;
			cr_assert(naive_can_place(&m, 'b', x, y));
			naive_put(&m, 'b', x, y);
		}
		cr_expect_eq(naive_chains(&m, 'r') & (d ? BP_MIRADOR_EW : BP_MIRADOR_NS), 0,
			     "direction %d witness", d);
		cr_expect(!naive_unbreakable_marked_dirs(&n, 'r', d ? BP_MIRADOR_EW : BP_MIRADOR_NS,
							 NULL),
			  "naive: direction %d alone unbreakable", d);
	}
	long sets = 0;
	cr_expect(naive_unbreakable_marked(&n, 'r', &sets), "naive: breakable");
	printf("mirador fig6 %s: the brute force tried %ld sets\n", fc->spec, sets);
	bp_game_destroy(g);
}

/* Fewest opponent placements (made one after another) that leave no chain, by
 * iterative deepening over the naive model; 0 when none up to max. */
static int naive_min_blockers(struct naive *n, char colour, int depth, int start)
{
	if (!naive_chains(n, colour))
		return 1;
	if (depth == 0)
		return 0;
	char opp = colour == 'r' ? 'b' : 'r';
	for (int i = start; i < n->w * n->h; i++) {
		int x = i % n->w, y = i / n->w;
		if (!naive_can_place(n, opp, x, y))
			continue;
		struct naive save = *n;
		naive_put(n, opp, x, y);
		int ok = naive_min_blockers(n, colour, depth - 1, i + 1);
		*n = save;
		if (ok)
			return 1;
	}
	return 0;
}

ParameterizedTest(struct verdict_case *vc, mirador, verdicts)
{
	struct bp_game *g = open_game(vc->spec);
	struct bp_pos p = parse_pos(g, vc->pos);
	struct bp_mirador_verdict v;
	bp_mirador_test(g, &p, vc->colour, &v);
	cr_expect_eq(v.chains, vc->chains, "%s: chains %d", vc->why, v.chains);
	cr_expect_eq(v.unbreakable, vc->unbreakable, "%s", vc->why);
	struct naive n = naive_of(g, &p, 2);
	char c = vc->colour ? 'b' : 'r';
	cr_expect_eq(naive_chains(&n, c), vc->chains, "naive chains: %s", vc->why);
	cr_expect_eq(naive_unbreakable(&n, c, NULL), vc->unbreakable, "naive: %s", vc->why);
	if (vc->chains && !vc->unbreakable) {
		check_witness(g, &p, 2, vc->colour, &v);
		cr_expect(!naive_min_blockers(&n, c, vc->min_blockers - 1, 0),
			  "%s: fewer than %d blockers suffice", vc->why, vc->min_blockers);
		cr_expect(naive_min_blockers(&n, c, vc->min_blockers, 0), "%s: %d blockers do not",
			  vc->why, vc->min_blockers);
	}
	/* the player who just moved owning unbreakable chains ends the game */
	if (vc->colour != (int)p.w[24]) {
		enum bp_value o = g->ops->outcome(g, &p);
		cr_expect_eq(o, vc->unbreakable ? BP_VALUE_LOSS : BP_VALUE_NONE, "%s: outcome",
			     vc->why);
		struct bp_move *mv = bp_game_move_buffer(g);
		cr_expect_eq(g->ops->moves(g, &p, mv) == 0, vc->unbreakable, "%s: moves", vc->why);
		free(mv);
	}
	bp_game_destroy(g);
}

/* ---- random positions against the naive reference -------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A board with up to `pieces` pieces of random colours, each placed where rule 1
 * allows, ignoring the turn order and the end of the game (for testing the
 * unbreakable test on crowded boards that play would rarely reach). */
static struct bp_pos random_board(const struct bp_game *g, uint64_t *seed, int pieces)
{
	struct bp_pos p;
	g->ops->start(g, &p);
	int w = g->board->a, h = g->board->b;
	for (int i = 0; i < pieces; i++) {
		int c = (int)(rng_next(seed) & 1);
		for (int tries = 0; tries < 20; tries++) {
			int x = (int)(rng_next(seed) % (uint64_t)w),
			    y = (int)(rng_next(seed) % (uint64_t)h);
			if (bp_mirador_can_place(g, &p, c, x, y)) {
				p.w[24] = (uint64_t)c;
				g->ops->apply(g, &p, (struct bp_move){ (uint32_t)(y * w + x) });
				break;
			}
		}
	}
	p.w[24] = 0;
	p.w[25] = 0;
	return p;
}

/* A position after up to `plies` random legal turns from the start. */
static struct bp_pos random_position(const struct bp_game *g, uint64_t *seed, int plies)
{
	struct bp_pos p;
	struct bp_move *mv = bp_game_move_buffer(g);
	g->ops->start(g, &p);
	for (int i = 0; i < plies; i++) {
		int k = g->ops->moves(g, &p, mv);
		if (!k)
			break;
		g->ops->apply(g, &p, mv[rng_next(seed) % (uint64_t)k]);
	}
	free(mv);
	return p;
}

static void compare_links(const struct bp_game *g, const struct bp_pos *p, int piece, int colour)
{
	struct naive n = naive_of(g, p, piece);
	struct bp_mirador_link l[512];
	int nl = bp_mirador_links(g, p, colour, l, 512);
	cr_assert(nl <= 512);
	int px[1024], py[1024];
	int k = naive_pieces(&n, colour ? 'b' : 'r', px, py), expect = 0;
	for (int i = 0; i < k; i++) {
		int ci = py[i] * n.w + px[i];
		for (int s = 0; s < 4; s++) {
			int v = naive_side(&n, px[i], py[i], s);
			if (v == 0)
				continue;
			expect++;
			cr_expect_eq(find_link(l, nl, ci, -1 - s, v < 0 ? 't' : 's'), v < 0 ? 1 : v,
				     "%s: piece %d side %d", fmt_pos(g, p), ci, s);
		}
		for (int j = i + 1; j < k; j++) {
			int corner, lanes = naive_pair(&n, px[i], py[i], px[j], py[j], &corner);
			int cj = py[j] * n.w + px[j];
			if (corner) {
				expect++;
				cr_expect(find_link(l, nl, ci, cj, 'c'), "%s: corner %d %d",
					  fmt_pos(g, p), ci, cj);
			} else if (lanes) {
				/* naive_pair counts rows even through a third piece; the
				 * link exists only when the squares between are empty, which
				 * empty_run already requires */
				expect++;
				cr_expect_eq(find_link(l, nl, ci, cj, 's'), lanes,
					     "%s: sight %d %d", fmt_pos(g, p), ci, cj);
			}
		}
	}
	cr_expect_eq(nl, expect, "%s: %d links, naive %d", fmt_pos(g, p), nl, expect);
}

struct random_case {
	char spec[40];
	int positions, max_plies;
	int mixed; /* both answers must occur (on 4x4 every chain is unbreakable) */
	/* 1: too big for the brute force: check chains, links and witnesses only;
	 * 2: the brute force over placements on lines of sight only */
	int big;
};

ParameterizedTestParameters(mirador, random_vs_naive)
{
	static struct random_case cases[] = {
		{ "mirador:4x4", 60, 6, 0, 0 },		  { "mirador:5x5", 80, 8, 1, 0 },
		{ "mirador:6x6", 120, 12, 1, 0 },	  { "mirador:7x7", 300, 14, 1, 0 },
		{ "mirador:7x5", 80, 10, 1, 0 },	  { "mirador:4x4,piece=1", 60, 8, 1, 0 },
		{ "mirador:5x5,piece=1", 80, 14, 1, 0 },  { "mirador:6x6,piece=1", 60, 18, 1, 0 },
		{ "mirador:7x7,piece=3", 40, 6, 1, 0 },	  { "mirador:6x7", 80, 12, 1, 0 },
		{ "mirador:7x6", 80, 12, 1, 0 },	  { "mirador:12x12", 60, 30, 1, 2 },
		{ "mirador:8x8", 120, 20, 1, 2 },	  { "mirador:9x9", 120, 24, 1, 2 },
		{ "mirador:10x10", 80, 26, 1, 2 },	  { "mirador:27x27", 30, 80, 0, 1 },
		{ "mirador:20x9,piece=3", 30, 20, 0, 1 },
	};
	return cr_make_param_array(struct random_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct random_case *rc, mirador, random_vs_naive)
{
	struct bp_game *g = open_game(rc->spec);
	int piece = atoi(bp_game_option(g, "piece"));
	uint64_t seed = 0x4d495241444f52ull ^ (uint64_t)rc->positions;
	printf("mirador random_vs_naive %s: seed %llu\n", rc->spec, (unsigned long long)seed);
	struct bp_move *mv = bp_game_move_buffer(g);
	int stats[3] = { 0, 0, 0 };
	for (int i = 0; i < rc->positions; i++) {
		int plies = (int)(rng_next(&seed) % (uint64_t)(rc->max_plies + 1));
		int dense = i & 1;
		struct bp_pos p =
			dense ? random_board(g, &seed, plies) : random_position(g, &seed, plies);
		struct naive n = naive_of(g, &p, piece);
		/* text round trip (dense boards need not fit the turn order) */
		if (!dense) {
			struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
			cr_expect(bp_pos_equal(&p, &q), "round trip %s", fmt_pos(g, &p));
		}
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			bp_mirador_test(g, &p, c, &v);
			char ch = c ? 'b' : 'r';
			cr_expect_eq(v.chains, naive_chains(&n, ch), "%s: chains of %c",
				     fmt_pos(g, &p), ch);
			stats[!v.chains ? 0 : v.unbreakable ? 2 : 1]++;
			if (rc->big == 2) {
				long sets = 0;
				int nu = naive_unbreakable_marked(&n, ch, &sets);
				cr_expect_eq(v.unbreakable, nu,
					     "%s: unbreakable %c (naive %d, %ld sets)",
					     fmt_pos(g, &p), ch, nu, sets);
			}
			if (!rc->big) {
				long sets = 0;
				int nu = naive_unbreakable(&n, ch, &sets);
				cr_expect_eq(v.unbreakable, nu,
					     "%s: unbreakable %c (naive %d, %ld sets)",
					     fmt_pos(g, &p), ch, nu, sets);
				cr_expect_eq(bp_mirador_unbreakable(g, &p, c), nu,
					     "%s: outcome's test %c (naive %d)", fmt_pos(g, &p), ch,
					     nu);
				cr_expect_eq(naive_unbreakable_marked(&n, ch, NULL), nu,
					     "%s: marked brute force", fmt_pos(g, &p));
			}
			if (v.chains && !v.unbreakable)
				check_witness(g, &p, piece, c, &v);
			/* each direction on its own */
			for (int d = 1; d <= 2 && !rc->big; d++) {
				struct bp_mirador_verdict vd;
				bp_mirador_test_dirs(g, &p, c, d, &vd);
				cr_expect_eq(vd.unbreakable,
					     naive_unbreakable_dirs(&n, ch, d, NULL),
					     "%s: %c direction %d", fmt_pos(g, &p), ch, d);
			}
			compare_links(g, &p, piece, c);
			/* legal placements */
			for (int y = 0; y < n.h; y++)
				for (int x = 0; x < n.w; x++)
					cr_expect_eq(bp_mirador_can_place(g, &p, c, x, y),
						     naive_can_place(&n, ch, x, y),
						     "%s: %c at %d,%d", fmt_pos(g, &p), ch, x, y);
		}
		/* symmetry: chains and verdicts are invariant */
		struct bp_mirador_verdict v0[2];
		for (int c = 0; c < 2; c++)
			bp_mirador_test(g, &p, c, &v0[c]);
		for (int s = 1; s < g->nsym; s++) {
			struct bp_pos img;
			g->ops->transform(g, &p, s, &img);
			if (!dense) {
				struct bp_pos back = parse_pos(g, fmt_pos(g, &img));
				cr_expect(bp_pos_equal(&img, &back), "image %d parses", s);
			}
			for (int c = 0; c < 2; c++) {
				struct bp_mirador_verdict v;
				bp_mirador_test(g, &img, c, &v);
				int ch = v0[c].chains, ci = v.chains;
				/* a quarter turn swaps north-south and east-west */
				if (g->board->a == g->board->b && (ci & 3) != (ch & 3))
					ci = ((ci & 1) << 1) | ((ci & 2) >> 1);
				cr_expect_eq(ci, ch, "%s sym %d chains", fmt_pos(g, &p), s);
				cr_expect_eq(v.unbreakable, v0[c].unbreakable, "%s sym %d",
					     fmt_pos(g, &p), s);
			}
			cr_expect_eq(g->ops->moves(g, &img, mv), g->ops->moves(g, &p, mv));
		}
	}
	printf("mirador random_vs_naive %s: %d without chains, %d breakable, %d unbreakable\n",
	       rc->spec, stats[0], stats[1], stats[2]);
	/* the cases must exercise both answers */
	cr_expect(stats[2] > 0 && (stats[1] > 0 || !rc->mixed), "%s: too few interesting positions",
		  rc->spec);
	free(mv);
	bp_game_destroy(g);
}

/* ---- the safe-chain shortcut against the search --------------------------------------- */

/* bp_mirador_safe_chain (outcome's shortcut) must answer 1 exactly when the search
 * stops at its first node with "unbreakable" (a chain of weight 0 there), and outcome
 * must agree with the full test on every position. */
struct safe_case {
	char spec[40];
	int positions, max_plies;
};

ParameterizedTestParameters(mirador, safe_chain_vs_search)
{
	static struct safe_case cases[] = {
		{ "mirador:5x5", 3000, 8 },	     { "mirador:7x7", 6000, 14 },
		{ "mirador:7x5", 3000, 10 },	     { "mirador:6x7", 3000, 12 },
		{ "mirador:8x8", 6000, 20 },	     { "mirador:9x9", 6000, 24 },
		{ "mirador:10x10", 6000, 26 },	     { "mirador:11x11", 4000, 30 },
		{ "mirador:5x5,piece=1", 3000, 14 }, { "mirador:6x6,piece=1", 3000, 18 },
		{ "mirador:7x7,piece=3", 2000, 6 },
	};
	return cr_make_param_array(struct safe_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct safe_case *sc, mirador, safe_chain_vs_search)
{
	struct bp_game *g = open_game(sc->spec);
	uint64_t seed = 0x53414645ull ^ (uint64_t)sc->positions;
	printf("mirador safe_chain_vs_search %s: seed %llu\n", sc->spec, (unsigned long long)seed);
	int seen[2] = { 0, 0 }, searched = 0;
	for (int i = 0; i < sc->positions; i++) {
		int plies = (int)(rng_next(&seed) % (uint64_t)(sc->max_plies + 1));
		struct bp_pos p =
			i & 1 ? random_board(g, &seed, plies) : random_position(g, &seed, plies);
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			cr_assert_eq(bp_mirador_test(g, &p, c, &v), BP_OK);
			int fast = bp_mirador_safe_chain(g, &p, c);
			int first = v.chains && v.unbreakable && v.nodes == 1;
			cr_assert(fast == 0 || fast == 1, "%s: %d", fmt_pos(g, &p), fast);
			cr_expect_eq(fast, first,
				     "%s: %c safe chain %d, search %d at node 1 of %llu",
				     fmt_pos(g, &p), "rb"[c], fast, (int)v.unbreakable,
				     (unsigned long long)v.nodes);
			seen[fast]++;
			searched += v.chains && !fast;
			if (c == 1 - (int)p.w[24]) {
				enum bp_value o = g->ops->outcome(g, &p);
				cr_expect_eq(o == BP_VALUE_LOSS, v.unbreakable, "%s: outcome %d",
					     fmt_pos(g, &p), (int)o);
			}
		}
	}
	printf("mirador safe_chain_vs_search %s: %d safe chains, %d not (%d of them searched)\n",
	       sc->spec, seen[1], seen[0], searched);
	cr_expect(seen[1] > 0 && searched > 0, "%s: too few interesting positions", sc->spec);
	bp_game_destroy(g);
}

/* bp_mirador_unbreakable (outcome's test: the safe chain, then on small grids the
 * search on sets of places) must give the search's verdict on every position, for
 * either colour. The positions that reach the search on sets of places (a chain, no
 * safe one) must include breakable ones, and unbreakable ones where `both` is set (the
 * smallest grids gave none with these seeds);
 * 12x12 is not a small grid (mirador_chain.c's search alone). */
struct unbreakable_case {
	char spec[40];
	int positions, max_plies, both;
};

ParameterizedTestParameters(mirador, unbreakable_vs_search)
{
	static struct unbreakable_case cases[] = {
		{ "mirador:5x5", 2000, 8, 0 },		{ "mirador:7x7", 4000, 14, 1 },
		{ "mirador:7x5", 2000, 10, 0 },		{ "mirador:6x7", 2000, 12, 0 },
		{ "mirador:8x8", 4000, 20, 1 },		{ "mirador:9x9", 4000, 24, 1 },
		{ "mirador:10x10", 10000, 26, 1 },	{ "mirador:11x11", 4000, 30, 1 },
		{ "mirador:5x5,piece=1", 2000, 14, 1 }, { "mirador:6x6,piece=1", 2000, 18, 1 },
		{ "mirador:7x7,piece=3", 2000, 6, 0 },	{ "mirador:12x12", 200, 30, -1 },
	};
	return cr_make_param_array(struct unbreakable_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct unbreakable_case *sc, mirador, unbreakable_vs_search)
{
	struct bp_game *g = open_game(sc->spec);
	uint64_t seed = 0x554e4252ull ^ (uint64_t)sc->positions;
	printf("mirador unbreakable_vs_search %s: seed %llu\n", sc->spec, (unsigned long long)seed);
	int searched[2] = { 0, 0 };
	for (int i = 0; i < sc->positions; i++) {
		int plies = (int)(rng_next(&seed) % (uint64_t)(sc->max_plies + 1));
		struct bp_pos p =
			i & 1 ? random_board(g, &seed, plies) : random_position(g, &seed, plies);
		for (int c = 0; c < 2; c++) {
			struct bp_mirador_verdict v;
			cr_assert_eq(bp_mirador_test(g, &p, c, &v), BP_OK);
			int fast = bp_mirador_unbreakable(g, &p, c);
			cr_assert(fast == 0 || fast == 1, "%s: %d", fmt_pos(g, &p), fast);
			cr_expect_eq(fast, v.unbreakable, "%s: %c outcome's test %d, search %d",
				     fmt_pos(g, &p), "rb"[c], fast, v.unbreakable);
			if (v.chains && bp_mirador_safe_chain(g, &p, c) == 0)
				searched[v.unbreakable]++;
		}
	}
	printf("mirador unbreakable_vs_search %s: searched %d breakable, %d unbreakable\n",
	       sc->spec, searched[0], searched[1]);
	if (sc->both >= 0)
		cr_expect(searched[0] > 0 && (searched[1] > 0 || !sc->both),
			  "%s: too few interesting positions", sc->spec);
	bp_game_destroy(g);
}

/* bp_mirador_greedy against the same greedy set made by the rules (bp_mirador_can_place
 * and apply, place by place in the same order) and the chains left after it by the
 * network (bp_mirador_chains); each set it says breaks every chain must agree with the
 * search's verdict (breakable). On grids past 128 squares, where the unbreakable test
 * runs it, and on a small one; both answers must occur. */
ParameterizedTestParameters(mirador, greedy_vs_rules)
{
	static struct unbreakable_case cases[] = {
		{ "mirador:12x12", 300, 30, 0 },	 { "mirador:18x18", 150, 50, 0 },
		{ "mirador:27x27", 60, 90, 0 },		 { "mirador:20x9,piece=3", 150, 20, 0 },
		{ "mirador:13x11,piece=1", 150, 60, 0 }, { "mirador:9x9", 300, 24, 0 },
	};
	return cr_make_param_array(struct unbreakable_case, cases, sizeof cases / sizeof cases[0]);
}

/* What a walk from empty square (x, y) in direction (dx, dy) meets first: 1 a square
 * of colour, 0 the side, -1 the other colour's square. */
static int naive_meets(const struct naive *n, char colour, int x, int y, int dx, int dy)
{
	for (x += dx, y += dy; x >= 0 && y >= 0 && x < n->w && y < n->h; x += dx, y += dy)
		if (at(n, x, y) != '.')
			return at(n, x, y) == colour ? 1 : -1;
	return 0;
}

/* Whether empty square (x, y) is on a lane of colour (RULES.md 9.2): along its row or
 * its column, one way meets a square of colour and the other a square of colour or
 * the side. */
static int naive_on_lane(const struct naive *n, char colour, int x, int y)
{
	if (at(n, x, y) != '.')
		return 0;
	for (int vert = 0; vert < 2; vert++) {
		int a = naive_meets(n, colour, x, y, vert ? 0 : -1, vert ? -1 : 0);
		int b = naive_meets(n, colour, x, y, vert ? 0 : 1, vert ? 1 : 0);
		if ((a == 1 && b >= 0) || (b == 1 && a >= 0))
			return 1;
	}
	return 0;
}

ParameterizedTest(struct unbreakable_case *sc, mirador, greedy_vs_rules)
{
	struct bp_game *g = open_game(sc->spec);
	int w = g->board->a, h = g->board->b;
	uint64_t seed = 0x47524545ull ^ (uint64_t)sc->positions;
	printf("mirador greedy_vs_rules %s: seed %llu\n", sc->spec, (unsigned long long)seed);
	int seen[2] = { 0, 0 };
	for (int i = 0; i < sc->positions; i++) {
		int plies = (int)(rng_next(&seed) % (uint64_t)(sc->max_plies + 1));
		struct bp_pos p =
			i & 1 ? random_board(g, &seed, plies) : random_position(g, &seed, plies);
		int piece = atoi(bp_game_option(g, "piece"));
		struct naive n0 = naive_of(g, &p, piece);
		for (int c = 0; c < 2; c++)
			for (int order = 0; order < 8; order++) {
				struct bp_pos q = p;
				for (int k = 0; k < w * h; k++) {
					/* rows (0, 1) or columns (2, 3), each way; 4 to 7 the
					 * same with the places that cover a lane square only */
					int j = order & 1 ? w * h - 1 - k : k;
					int cell = (order & 3) < 2 ? j : j % h * w + j / h;
					int x = cell % w, y = cell / w, lane = 0;
					if (!bp_mirador_can_place(g, &q, 1 - c, x, y))
						continue;
					for (int d = 0; d < piece * piece && order >= 4 && !lane;
					     d++)
						lane = naive_on_lane(&n0, "rb"[c], x + d % piece,
								     y + d / piece);
					if (order >= 4 && !lane)
						continue;
					q.w[24] = (uint64_t)(1 - c);
					g->ops->apply(g, &q, (struct bp_move){ (uint32_t)cell });
				}
				int chains = bp_mirador_chains(g, &q, c);
				cr_assert(chains >= 0);
				int fast = bp_mirador_greedy(g, &p, c, order);
				cr_expect_eq(fast, chains == 0,
					     "%s: %c, order %d: greedy %d, chains left %d (%s)",
					     fmt_pos(g, &p), "rb"[c], order, fast, chains,
					     fmt_pos(g, &q));
				seen[fast]++;
				if (fast) {
					struct bp_mirador_verdict v;
					cr_assert_eq(bp_mirador_test(g, &p, c, &v), BP_OK);
					cr_expect(!v.unbreakable,
						  "%s: %c greedy breaks, search not",
						  fmt_pos(g, &p), "rb"[c]);
				}
			}
	}
	printf("mirador greedy_vs_rules %s: %d sets break every chain, %d not\n", sc->spec, seen[1],
	       seen[0]);
	cr_expect(seen[0] > 0 && seen[1] > 0, "%s: too few interesting positions", sc->spec);
	bp_game_destroy(g);
}

/* children_keys_first gives children_keys's first children, on small grids (the fast
 * path) and on 13x10 (130 squares: one child at a time; its keys hold 18 pieces). */
Test(mirador, children_keys_first)
{
	static const char *const specs[] = { "mirador:7x7", "mirador:10x10", "mirador:13x10" };
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = open_game(specs[k]);
		uint64_t seed = 0x4649525354ull + k;
		size_t mm = (size_t)g->max_moves;
		uint32_t *ta = malloc(sizeof *ta * mm), *tb = malloc(sizeof *tb * mm);
		uint64_t *ka = malloc(2 * sizeof *ka * mm), *kb = malloc(2 * sizeof *kb * 3);
		printf("mirador children_keys_first %s: seed %llu\n", specs[k],
		       (unsigned long long)seed);
		for (int i = 0; i < 200; i++) {
			struct bp_pos p = random_position(g, &seed, (int)(rng_next(&seed) % 16));
			if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
				continue;
			int n = g->ops->children_keys(g, &p, ta, ka);
			cr_assert_gt(n, 0, "%s: %d", fmt_pos(g, &p), n);
			for (int max = 1; max <= 3; max++) {
				int nf = g->ops->children_keys_first(g, &p, max, tb, kb);
				cr_assert_eq(nf, n < max ? n : max, "%s", fmt_pos(g, &p));
				for (int c = 0; c < nf; c++)
					cr_assert(tb[c] == ta[c] && kb[2 * c] == ka[2 * c] &&
							  kb[2 * c + 1] == ka[2 * c + 1],
						  "%s: first %d, child %d", fmt_pos(g, &p), max, c);
			}
		}
		free(ta);
		free(tb);
		free(ka);
		free(kb);
		bp_game_destroy(g);
	}
}

/* wins_at_once says 1 only where a move leads to a position over and lost for its
 * player to move (the rules: moves, apply, outcome), on random positions not over of
 * small grids, with 2x2, 1x1 and 3x3 pieces; never on a grid beyond the small ones. */
Test(mirador, wins_at_once_as_the_rules)
{
	static const char *const specs[] = { "mirador:5x5",	    "mirador:7x7",
					     "mirador:9x9",	    "mirador:10x10",
					     "mirador:11x11",	    "mirador:6x6,piece=1",
					     "mirador:8x8,piece=3", "mirador:12x12" };
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = open_game(specs[k]);
		uint64_t seed = 0x57494e53ull + k;
		struct bp_move *mv = bp_game_move_buffer(g);
		int said = 0, lost = 0, tried = 0;
		printf("mirador wins_at_once_as_the_rules %s: seed %llu\n", specs[k],
		       (unsigned long long)seed);
		cr_assert_not_null(g->ops->wins_at_once);
		for (int i = 0; i < 3000; i++) {
			struct bp_pos p = random_position(g, &seed, (int)(rng_next(&seed) % 24));
			if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
				continue;
			int n = g->ops->moves(g, &p, mv), wins = 0;
			for (int m = 0; m < n && !wins; m++) {
				struct bp_pos c = p;
				g->ops->apply(g, &c, mv[m]);
				wins = g->ops->outcome(g, &c) == BP_VALUE_LOSS;
			}
			int w = g->ops->wins_at_once(g, &p);
			cr_assert(w == 0 || w == 1, "%s: %d", fmt_pos(g, &p), w);
			cr_assert(!w || wins, "%s: wins at once, it says; no move does",
				  fmt_pos(g, &p));
			tried++;
			said += w;
			lost += wins;
		}
		printf("mirador wins_at_once_as_the_rules %s: %d positions, %d with a move that "
		       "wins at once, %d of them told\n",
		       specs[k], tried, lost, said);
		if (k + 1 < sizeof specs / sizeof specs[0])
			cr_expect_gt(said, 0, "%s", specs[k]);
		else
			cr_expect_eq(said, 0, "%s", specs[k]);
		free(mv);
		bp_game_destroy(g);
	}
}

/* move_count is what moves() counts, on random positions not over of small and large
 * grids, 2x2, 1x1 and 3x3 pieces, with positions where the mover must pass among them
 * (a pass is its one move). */
Test(mirador, move_count_as_moves)
{
	static const char *const specs[] = { "mirador:5x5",	    "mirador:10x10",
					     "mirador:6x6,piece=1", "mirador:8x8,piece=3",
					     "mirador:13x13",	    "mirador:19x17" };
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		struct bp_game *g = open_game(specs[k]);
		uint64_t seed = 0x4d4f5645ull + k;
		struct bp_move *mv = bp_game_move_buffer(g);
		int tried = 0, passes = 0;
		printf("mirador move_count_as_moves %s: seed %llu\n", specs[k],
		       (unsigned long long)seed);
		cr_assert_not_null(g->ops->move_count);
		for (int i = 0; i < 1500; i++) {
			struct bp_pos p = random_position(g, &seed, (int)(rng_next(&seed) % 40));
			if (g->ops->outcome(g, &p) != BP_VALUE_NONE)
				continue;
			int n = g->ops->moves(g, &p, mv);
			cr_assert_eq(g->ops->move_count(g, &p), n, "%s: %d against %d",
				     fmt_pos(g, &p), g->ops->move_count(g, &p), n);
			tried++;
			passes += n == 1 && mv[0].v == BP_MIRADOR_PASS;
		}
		printf("mirador move_count_as_moves %s: %d positions, %d with only a pass\n",
		       specs[k], tried, passes);
		cr_expect_gt(tried, 30, "%s", specs[k]);
		free(mv);
		bp_game_destroy(g);
	}
}

Test(mirador, safe_chain_large_grid)
{
	struct bp_game *g = open_game("mirador:12x12");
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_eq(bp_mirador_safe_chain(g, &p, 0), BP_EUNSUPPORTED);
	bp_game_destroy(g);
}

/* ---- perft against the naive game ---------------------------------------------------- */

struct perft_case {
	char spec[40], pos[96];
	int depth;
};

ParameterizedTestParameters(mirador, perft_vs_naive)
{
	static struct perft_case cases[] = {
		{ "mirador:6x6", "start", 7 },	       { "mirador:4x4,piece=1", "start", 7 },
		{ "mirador:5x4", "start", 7 },	       { "mirador:3x3,piece=3", "start", 3 },
		{ "mirador:6x6,piece=3", "start", 2 }, { "mirador:5x5,piece=1", "start", 3 },
	};
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct perft_case *pc, mirador, perft_vs_naive)
{
	struct bp_game *g = open_game(pc->spec);
	int piece = atoi(bp_game_option(g, "piece"));
	struct bp_pos p = parse_pos(g, pc->pos);
	uint64_t fast[16], slow[16] = { 0 };
	cr_assert_eq(bp_perft(g, &p, pc->depth, fast), BP_OK);
	struct nstate s = { .n = naive_of(g, &p, piece),
			    .to_move = p.w[24] ? 'b' : 'r',
			    .passes = (int)p.w[25] };
	slow[0] = 1;
	naive_perft(&s, pc->depth, 0, slow);
	for (int d = 0; d <= pc->depth; d++)
		cr_expect_eq(fast[d], slow[d], "%s perft %d: %llu, naive %llu", pc->spec, d,
			     (unsigned long long)fast[d], (unsigned long long)slow[d]);
	bp_game_destroy(g);
}

/* ---- position text --------------------------------------------------------------- */

struct bad_case {
	char spec[32], pos[96];
	char where[48]; /* the message must name this */
};

ParameterizedTestParameters(mirador, malformed)
{
	static struct bad_case cases[] = {
		{ "mirador:6x6", "r5/6/6/6/6/6 b", "a1" },		 /* 1x1 */
		{ "mirador:6x6", "rrr3/rrr3/6/6/6/6 b", "a3" },		 /* 2x3 */
		{ "mirador:6x6", "rr4/r5/6/6/6/6 b", "a1" },		 /* L shape */
		{ "mirador:6x6", "5r/5r/6/6/6/6 b", "a6" },		 /* cut by the edge */
		{ "mirador:6x6", "6/6/6/6/6/rr4 b", "f1" },		 /* cut by the edge */
		{ "mirador:6x6", "rrrr2/rrrr2/6/6/6/6 r", "a1 and a3" }, /* 2x4: two pieces */
		{ "mirador:6x6", "rr4/rr4/rr4/rr4/6/6 r", "a1 and c1" }, /* 4x2 */
		{ "mirador:6x6", "rrbb2/rrbb2/6/6/6/6 r", "side" },
		{ "mirador:6x6", "rr4/rr4/2bb2/2bb2/6/6 r", "corner" },
		{ "mirador:6x6", "rb4/6/6/6/6/6 r", "a1" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 r", "1 red and 0 blue" },
		{ "mirador:6x6", "rr2bb/rr2bb/6/6/6/6 b", "1 red and 1 blue" },
		{ "mirador:6x6", "6/6/6/6/6/6 b", "blue is ahead" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 r passed=1", "passed=1" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 b passed=1", "passed=1" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 b passed=2", "passed=2" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 x", "'x'" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 b foo=1", "foo" },
		{ "mirador:6x6", "rr4/rr4/6/6/6/6 b passed=0 passed=0", "passed" },
		{ "mirador:6x6", "rr4/rr4/6/6/6 b", "row" },
		{ "mirador:6x6", "rx4/rr4/6/6/6/6 b", "x" },
		{ "mirador:6x6", "rr4/rr4/7/6/6/6 b", "row c" },
		{ "mirador:6x6,piece=1", "rr4/6/6/6/6/6 r", "a1 and a2" },
		{ "mirador:7x7,piece=3", "rrr4/rrr4/7/7/7/7/7 b", "a1" },
		/* after red's pass (blue to move, passed=1, e = -1) red must have no move */
		{ "mirador:6x6", "6/6/6/6/6/6 b passed=1", "red" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, mirador, malformed)
{
	expect_malformed(bc->spec, bc->pos, bc->where);
}

Test(mirador, text_round_trip)
{
	struct bp_game *g = open_game("mirador:27x27");
	struct bp_pos p = parse_pos(g, "start");
	cr_expect_str_eq(fmt_pos(g, &p), "27/27/27/27/27/27/27/27/27/27/27/27/27/27/27/27/27/27/27/"
					 "27/27/27/27/27/27/27/27 r passed=0");
	const char *moves[] = { "z26", "a1", "m13", "b5" };
	for (int i = 0; i < 4; i++) {
		struct bp_move m;
		struct bp_err err = { { 0 } };
		cr_assert_eq(g->ops->move_parse(g, &p, moves[i], &m, &err), BP_OK, "%s: %s",
			     moves[i], err.msg);
		g->ops->apply(g, &p, m);
		struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
		cr_expect(bp_pos_equal(&p, &q), "%s", fmt_pos(g, &p));
	}
	/* bottom-right corner piece, top-left corner piece, the centre, and b5 */
	cr_expect_eq(g->ops->cell_char(g, &p, 26 * 27 + 26), 'r');
	cr_expect_eq(g->ops->cell_char(g, &p, 0), 'b');
	cr_expect_eq(g->ops->cell_char(g, &p, 13 * 27 + 13), 'r');
	cr_expect_eq(g->ops->cell_char(g, &p, 2 * 27 + 5), 'b');
	cr_expect_eq(g->ops->cell_char(g, &p, 1 * 27 + 3), '.');
	/* unused words stay zero */
	for (int w = 26; w < BP_POS_WORDS; w++)
		cr_expect_eq(p.w[w], 0);
	/* piece=2 is the default and part of the canonical spelling */
	cr_expect_str_eq(g->spec, "mirador:27x27,piece=2");
	bp_game_destroy(g);
}

Test(mirador, bad_specs)
{
	const char *bad[] = { "mirador:hex3",	     "mirador:6x6,piece=0", "mirador:6x6,piece=x",
			      "mirador:6x6,piece=",  "mirador:28x28",	    "mirador:65x2",
			      "mirador:6x6,colour=r" };
	for (int i = 0; i < 7; i++) {
		struct bp_game *g = NULL;
		struct bp_err err = { { 0 } };
		cr_expect_eq(bp_game_create(bad[i], &g, &err), BP_ESPEC, "%s accepted", bad[i]);
		cr_expect(err.msg[0], "%s: no message", bad[i]);
	}
}

/* ---- passes (RULES.md 9.4) ------------------------------------------------------------ */

Test(mirador, passes)
{
	struct bp_game *g = open_game("mirador:6x6");
	struct bp_move mv[64], m;
	struct bp_err err = { { 0 } };
	/* red has no legal placement and no one's chains are unbreakable */
	struct bp_pos p = parse_pos(g, "rr1bb1/rr1bb1/6/bb1rr1/bb1rr1/6 r");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	cr_assert_eq(g->ops->moves(g, &p, mv), 1);
	cr_expect_eq(mv[0].v, BP_MIRADOR_PASS);
	cr_expect_eq(g->ops->move_parse(g, &p, "a6", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "must pass"), "%s", err.msg);
	cr_assert_eq(g->ops->move_parse(g, &p, "pass", &m, &err), BP_OK, "%s", err.msg);
	g->ops->apply(g, &p, m);
	cr_expect_str_eq(fmt_pos(g, &p), "rr1bb1/rr1bb1/6/bb1rr1/bb1rr1/6 b passed=1");
	struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
	cr_expect(bp_pos_equal(&p, &q));
	/* blue has none either: its pass is the second in a row, a draw */
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	cr_assert_eq(g->ops->moves(g, &p, mv), 1);
	cr_expect_eq(mv[0].v, BP_MIRADOR_PASS);
	g->ops->apply(g, &p, mv[0]);
	cr_expect_str_eq(fmt_pos(g, &p), "rr1bb1/rr1bb1/6/bb1rr1/bb1rr1/6 r passed=1");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_DRAW);
	cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	q = parse_pos(g, fmt_pos(g, &p));
	cr_expect(bp_pos_equal(&p, &q));
	cr_expect_eq(g->ops->outcome(g, &q), BP_VALUE_DRAW, "the text keeps the game over");
	cr_expect_eq(g->ops->move_parse(g, &p, "pass", &m, &err), BP_EILLEGAL);
	bp_game_destroy(g);

	/* 7x7: red is out and passes, blue places, red passes again */
	g = open_game("mirador:7x7");
	p = parse_pos(g, "2rr1bb/2rr1bb/7/2bb1rr/2bb1rr/7/7 r");
	cr_assert_eq(g->ops->moves(g, &p, mv), 1);
	cr_expect_eq(mv[0].v, BP_MIRADOR_PASS);
	g->ops->apply(g, &p, mv[0]);
	int k = g->ops->moves(g, &p, mv);
	cr_assert(k >= 1 && mv[0].v != BP_MIRADOR_PASS, "blue can place");
	g->ops->apply(g, &p, mv[0]);
	cr_expect_eq(p.w[25], 0, "a placement clears passed");
	q = parse_pos(g, fmt_pos(g, &p)); /* 2 red, 3 blue, red to move: red is out */
	cr_expect(bp_pos_equal(&p, &q), "%s", fmt_pos(g, &p));
	if (g->ops->outcome(g, &p) == BP_VALUE_NONE) {
		cr_assert_eq(g->ops->moves(g, &p, mv), 1);
		cr_expect_eq(mv[0].v, BP_MIRADOR_PASS);
	}
	bp_game_destroy(g);
}

/* Random games that reach passes: every forced pass is right by the naive rules, and
 * every finished game ends by an unbreakable chain or two passes in a row. */
Test(mirador, random_games_with_passes)
{
	const char *specs[] = { "mirador:6x6", "mirador:7x7", "mirador:5x5,piece=1",
				"mirador:8x5" };
	uint64_t seed = 20261121;
	printf("mirador random_games_with_passes: seed %llu\n", (unsigned long long)seed);
	int passes = 0, draws = 0, wins = 0;
	for (int sp = 0; sp < 4; sp++) {
		struct bp_game *g = open_game(specs[sp]);
		int piece = atoi(bp_game_option(g, "piece"));
		struct bp_move *mv = bp_game_move_buffer(g);
		for (int i = 0; i < 300; i++) {
			struct bp_pos p = parse_pos(g, "start");
			int row = 0; /* passes in a row */
			for (;;) {
				int k = g->ops->moves(g, &p, mv);
				struct naive n = naive_of(g, &p, piece);
				char mover = p.w[24] ? 'b' : 'r', prev = p.w[24] ? 'r' : 'b';
				if (!k) {
					enum bp_value o = g->ops->outcome(g, &p);
					if (naive_unbreakable(&n, prev, NULL)) {
						cr_expect_eq(o, BP_VALUE_LOSS);
						wins++;
					} else {
						cr_expect_eq(row, 2, "%s over without a reason",
							     fmt_pos(g, &p));
						cr_expect_eq(o, BP_VALUE_DRAW);
						draws++;
					}
					break;
				}
				int any = 0;
				for (int c = 0; c < n.w * n.h; c++)
					any |= naive_can_place(&n, mover, c % n.w, c / n.w);
				cr_expect_eq(k == 1 && mv[0].v == BP_MIRADOR_PASS, !any, "%s",
					     fmt_pos(g, &p));
				struct bp_move m = mv[rng_next(&seed) % (uint64_t)k];
				row = m.v == BP_MIRADOR_PASS ? row + 1 : 0;
				passes += m.v == BP_MIRADOR_PASS;
				g->ops->apply(g, &p, m);
				struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
				cr_expect(bp_pos_equal(&p, &q), "%s", fmt_pos(g, &p));
			}
		}
		free(mv);
		bp_game_destroy(g);
	}
	printf("mirador random_games_with_passes: %d passes, %d wins, %d draws\n", passes, wins,
	       draws);
	cr_expect(passes > 0 && draws > 0 && wins > 0);
}

/* ---- describe ------------------------------------------------------------------------ */

Test(mirador, describe)
{
	struct bp_game *g = open_game("mirador:8x8");
	struct bp_pos p = parse_pos(g, "8/8/8/3rr3/3rr3/8/8/8 b");
	struct bp_text json = { 0 }, text = { 0 };
	g->ops->describe(g, &p, &json, &text);
	const char *j = bp_text_str(&json), *t = bp_text_str(&text);
	cr_expect(strstr(j, "\"red\": {\"pieces\": [\"d4\"]"), "%s", j);
	cr_expect(strstr(j, "\"chain_ns\": [\"N\", \"d4\", \"S\"]"), "%s", j);
	cr_expect(strstr(j, "\"unbreakable\": false, \"breaking_set\": [\""), "%s", j);
	cr_expect(strstr(t, "red chains can be broken by blue placing:"), "%s", t);
	cr_expect(strstr(t, "blue has no chain"), "%s", t);
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(g);
	g = open_game("mirador:10x8");
	p = parse_pos(g, "rr8/rr8/2rr3rr1/2rr3rr1/10/10/bb4bb2/bb4bb2 b");
	g->ops->describe(g, &p, &json, &text);
	t = bp_text_str(&text);
	cr_expect(strstr(t, "red chains cannot be broken"), "%s", t);
	cr_expect(strstr(t, "a1-c3(corner)"), "%s", t);
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(g);
}

/* ---- tiers, ranks and counts ---------------------------------------------------------- */

static void reach(const struct bp_game *g, const struct bp_pos *p, struct pos_set *s)
{
	if (!set_insert(s, p))
		return;
	struct bp_move mv[128];
	cr_assert(g->max_moves <= 128);
	int k = g->ops->moves(g, p, mv);
	for (int i = 0; i < k; i++) {
		struct bp_pos c = *p;
		g->ops->apply(g, &c, mv[i]);
		cr_assert_eq(g->ops->tier(g, &c), g->ops->tier(g, p) + 1, "a turn raises the tier");
		reach(g, &c, s);
	}
}

ParameterizedTestParameters(mirador, count_vs_search)
{
	static char specs[][32] = { "mirador:5x5", "mirador:6x6", "mirador:7x5",
				    "mirador:4x4,piece=1", "mirador:7x7,piece=3" };
	return cr_make_param_array(char[32], specs, sizeof specs / sizeof specs[0]);
}

/* Enumeration by tiers (which rests on rank and unrank) finds exactly the positions a
 * plain search from the start reaches, tier by tier, raw and up to symmetry. */
ParameterizedTest(char (*spec)[32], mirador, count_vs_search)
{
	struct bp_game *g = open_game(*spec);
	struct pos_set s;
	pos_set_init(&s, 1 << 16);
	struct bp_pos start = parse_pos(g, "start");
	reach(g, &start, &s);
	uint64_t raw[64] = { 0 }, classes[64] = { 0 };
	for (size_t i = 0; i < s.cap; i++) {
		if (!s.used[i])
			continue;
		const struct bp_pos *p = &s.tab[i];
		uint32_t t = g->ops->tier(g, p);
		cr_assert(t < g->ntiers && t < 64);
		raw[t]++;
		struct bp_pos c, u;
		bp_game_canonical(g, p, &c);
		classes[t] += bp_pos_equal(&c, p);
		uint64_t idx, size;
		cr_assert_eq(g->ops->rank(g, p, &idx), BP_OK);
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		cr_expect(idx < size);
		cr_assert_eq(g->ops->unrank(g, t, idx, &u), BP_OK, "%s", fmt_pos(g, p));
		cr_expect(bp_pos_equal(&u, p), "%s: unrank(rank) gives %s", fmt_pos(g, p),
			  fmt_pos(g, &u));
	}
	struct bp_enum_counts ec;
	cr_assert_eq(bp_enumerate(g, 1 << 28, NULL, NULL, &ec), BP_OK);
	for (uint32_t t = 0; t < ec.ntiers && t < 64; t++) {
		cr_expect_eq(ec.raw[t], raw[t], "%s tier %u: %llu, search %llu", *spec, t,
			     (unsigned long long)ec.raw[t], (unsigned long long)raw[t]);
		cr_expect_eq(ec.classes[t], classes[t], "%s tier %u classes", *spec, t);
	}
	bp_enum_counts_free(&ec);
	pos_set_free(&s);
	bp_game_destroy(g);
}

/* Every index of small tiers either names a valid position that ranks back to it or
 * is a hole; valid positions print and parse back unchanged. */
Test(mirador, unrank_all)
{
	struct bp_game *g = open_game("mirador:5x5");
	int valid = 0, holes = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		cr_assert(size < 4000000, "tier %u: %llu", t, (unsigned long long)size);
		for (uint64_t i = 0; i < size; i++) {
			struct bp_pos p;
			int rc = g->ops->unrank(g, t, i, &p);
			if (rc == BP_ENOTFOUND) {
				holes++;
				continue;
			}
			cr_assert_eq(rc, BP_OK);
			valid++;
			uint64_t back;
			cr_assert_eq(g->ops->rank(g, &p, &back), BP_OK);
			cr_expect_eq(back, i);
			cr_expect_eq(g->ops->tier(g, &p), t);
			struct bp_pos q = parse_pos(g, fmt_pos(g, &p));
			cr_expect(bp_pos_equal(&p, &q), "%s", fmt_pos(g, &p));
		}
	}
	printf("mirador unrank_all 5x5: %d valid, %d holes, %u tiers\n", valid, holes, g->ntiers);
	cr_expect(valid > 0 && holes > 0);
	uint64_t size;
	cr_expect_eq(g->ops->tier_size(g, g->ntiers, &size), BP_ERANGE);
	bp_game_destroy(g);
}

/* ---- solving, against minimax over the naive rules -------------------------------- */

struct nmemo_entry {
	struct nstate s;
	int used;
	enum bp_value value;
	unsigned rem;
};

struct nmemo {
	struct nmemo_entry *e;
	size_t cap, n;
};

static uint64_t nstate_hash(const struct nstate *s)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < s->n.w * s->n.h; i++)
		h = (h ^ (uint64_t)s->n.cell[i]) * 1099511628211ull;
	h = (h ^ (uint64_t)s->to_move) * 1099511628211ull;
	return (h ^ (uint64_t)s->passes) * 1099511628211ull;
}

static int nstate_equal(const struct nstate *a, const struct nstate *b)
{
	return a->to_move == b->to_move && a->passes == b->passes &&
	       memcmp(a->n.cell, b->n.cell, (size_t)(a->n.w * a->n.h)) == 0;
}

static struct nmemo_entry *nmemo_slot(struct nmemo *m, const struct nstate *s)
{
	size_t i = nstate_hash(s) & (m->cap - 1);
	while (m->e[i].used && !nstate_equal(&m->e[i].s, s))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

/* RULES.md sections 9 and 10 over the naive model: an unbreakable chain of the player
 * who just moved is a loss for the player to move; two passes in a row a draw; else
 * the best move (fastest win, else fastest draw, else slowest loss). Above 7x7 the
 * brute force tries only placements on lines of sight (checked against the full
 * one by random_vs_naive). */
static void naive_minimax(struct nmemo *m, const struct nstate *s, enum bp_value *v, unsigned *rem)
{
	struct nmemo_entry *slot = nmemo_slot(m, s);
	if (slot->used) {
		*v = slot->value;
		*rem = slot->rem;
		return;
	}
	char prev = s->to_move == 'r' ? 'b' : 'r';
	enum bp_value out = BP_VALUE_NONE;
	unsigned r = 0;
	if (s->n.w * s->n.h > 49 ? naive_unbreakable_marked(&s->n, prev, NULL)
				 : naive_unbreakable(&s->n, prev, NULL)) {
		out = BP_VALUE_LOSS;
	} else if (s->passes >= 2) {
		out = BP_VALUE_DRAW;
	} else {
		int mx[NMAX * NMAX], my[NMAX * NMAX];
		int k = naive_moves(s, mx, my);
		cr_assert_gt(k, 0);
		for (int i = 0; i < k; i++) {
			struct nstate c = *s;
			if (mx[i] < 0) {
				c.passes++;
			} else {
				naive_put(&c.n, s->to_move, mx[i], my[i]);
				c.passes = 0;
			}
			c.to_move = prev;
			enum bp_value cv;
			unsigned cr;
			naive_minimax(m, &c, &cv, &cr);
			enum bp_value mine = bp_value_flip(cv);
			int take = out == BP_VALUE_NONE;
			if (!take && mine != out)
				take = mine == BP_VALUE_WIN ||
				       (mine == BP_VALUE_DRAW && out == BP_VALUE_LOSS);
			else if (!take)
				take = mine == BP_VALUE_LOSS ? cr + 1 > r : cr + 1 < r;
			if (take) {
				out = mine;
				r = cr + 1;
			}
		}
	}
	slot = nmemo_slot(m, s);
	slot->used = 1;
	slot->s = *s;
	slot->value = out;
	slot->rem = r;
	m->n++;
	cr_assert_lt(m->n, m->cap / 2, "memo table too small");
	*v = out;
	*rem = r;
}

/* The game's position for a naive state: place the pieces (forcing the colour), then
 * the turn and `passed` the naive state implies. */
static struct bp_pos pos_of_nstate(const struct bp_game *g, const struct nstate *s)
{
	struct bp_pos p = parse_pos(g, "start");
	int w = s->n.w;
	for (int c = 0; c < s->n.w * s->n.h; c++) {
		char ch = s->n.cell[c];
		int x = c % w, y = c / w;
		if (ch == '.' || (x > 0 && at(&s->n, x - 1, y) == ch) ||
		    (y > 0 && at(&s->n, x, y - 1) == ch))
			continue;
		p.w[24] = ch == 'b';
		g->ops->apply(g, &p, (struct bp_move){ (uint32_t)c });
	}
	p.w[24] = s->to_move == 'b';
	p.w[25] = s->passes > 0;
	return p;
}

ParameterizedTestParameters(mirador, solve_vs_minimax)
{
	static char specs[][32] = { "mirador:4x4",	   "mirador:5x5",
				    "mirador:6x6",	   "mirador:7x5",
				    "mirador:6x5",	   "mirador:4x4,piece=1",
				    "mirador:7x7,piece=3", "mirador:3x3,piece=1",
				    "mirador:7x7",	   "mirador:8x8" };
	return cr_make_param_array(char[32], specs, sizeof specs / sizeof specs[0]);
}

/* Solve into a temporary database; every position reachable under the naive rules
 * has the value and remoteness of minimax over the naive rules; verify is clean. */
ParameterizedTest(char (*spec)[32], mirador, solve_vs_minimax)
{
	struct bp_game *g = open_game(*spec);
	int piece = atoi(bp_game_option(g, "piece"));
	char *dir = temp_db();
	struct bp_solve_result res =
		solve_into(dir, g, (struct bp_solve_opts){ .threads = 2, .index = BP_INDEX_DENSE });
	bp_store *db;

	struct nmemo m = { .cap = 1 << 18 };
	m.e = calloc(m.cap, sizeof *m.e);
	cr_assert_not_null(m.e);
	struct bp_pos start = parse_pos(g, "start");
	struct nstate s0 = { .n = naive_of(g, &start, piece), .to_move = 'r', .passes = 0 };
	enum bp_value v;
	unsigned rem;
	naive_minimax(&m, &s0, &v, &rem);
	cr_expect_eq(res.value, v, "%s: start value %d, minimax %d", *spec, res.value, v);
	cr_expect_eq(res.remoteness, rem, "%s: start remoteness %u, minimax %u", *spec,
		     res.remoteness, rem);
	bp_table *t;
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, NULL), BP_OK);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &t, NULL), BP_OK);
	size_t checked = 0;
	for (size_t i = 0; i < m.cap; i++) {
		if (!m.e[i].used)
			continue;
		struct bp_pos p = pos_of_nstate(g, &m.e[i].s);
		struct bp_probe pr;
		cr_assert_eq(bp_probe_position(g, t, &p, &pr), BP_OK, "%s: %s not stored", *spec,
			     fmt_pos(g, &p));
		cr_expect_eq(pr.value, m.e[i].value, "%s: %s value", *spec, fmt_pos(g, &p));
		cr_expect_eq(pr.remoteness, m.e[i].rem, "%s: %s remoteness", *spec, fmt_pos(g, &p));
		checked++;
	}
	struct bp_verify_report vr;
	cr_assert_eq(bp_verify(g, t, NULL, &vr), BP_OK);
	cr_expect_eq(vr.inconsistencies, 0);
	cr_expect_eq(vr.corrupt_blocks, 0);
	printf("mirador solve_vs_minimax %s: %s in %u; %zu positions agree with naive "
	       "minimax\n",
	       *spec, bp_value_name(res.value), res.remoteness, checked);
	bp_table_close(t);
	bp_store_close(db);
	free(m.e);
	remove_db(dir);
	bp_game_destroy(g);
}

/* ---- kids ops: the children of a node for proof-number search ------------------ */

/* Grids past the small ones (where the kids ops share the node's work), square and
 * not, a piece of 3, and a small grid (the ops' own path). */
static const char *const kids_specs[] = { "mirador:12x12",	   "mirador:13x13", "mirador:11x14",
					  "mirador:13x13,piece=3", "mirador:17x17", "mirador:8x8" };

/* Along seeded random games (passes included where they come), every position not over:
 * calls fn. */
static void along_random_games(const char *spec, int games, uint64_t seed,
			       void (*fn)(struct bp_game *g, const struct bp_pos *p, void *ctx,
					  uint64_t *rs),
			       void *ctx)
{
	struct bp_game *g = open_game(spec);
	struct bp_move *mv = bp_game_move_buffer(g);
	cr_assert_not_null(mv);
	uint64_t rs = seed;
	for (int k = 0; k < games; k++) {
		struct bp_pos p;
		g->ops->start(g, &p);
		while (g->ops->outcome(g, &p) == BP_VALUE_NONE) {
			fn(g, &p, ctx, &rs);
			int n = g->ops->moves(g, &p, mv);
			g->ops->apply(g, &p, mv[splitmix64(&rs) % (uint64_t)n]);
		}
	}
	free(mv);
	bp_game_destroy(g);
}

struct kids_count {
	uint64_t children, ended, positions;
};

static void kids_at(struct bp_game *g, const struct bp_pos *p, void *ctx, uint64_t *rs)
{
	struct kids_count *kc = ctx;
	void *kctx = malloc(g->ops->kids_ctx_size);
	struct bp_move *mv = bp_game_move_buffer(g);
	cr_assert(kctx && mv);
	uint64_t h[BP_GAME_SYM_HASH_MAX];
	g->ops->sym_hash(g, p, h);
	int n = g->ops->moves(g, p, mv), asks = n + n / 4;
	g->ops->kids_node(g, p, kctx);
	for (int j = 0; j < asks; j++) {
		/* every move once, in order from a random start, then some again */
		int i = j < n ? (int)((uint64_t)j + *rs % (uint64_t)n) % n
			      : (int)(splitmix64(rs) % (uint64_t)n);
		struct bp_pos c = expect_kids_child(g, kctx, p, h, mv[i], g->spec);
		kc->ended += g->ops->outcome(g, &c) != BP_VALUE_NONE;
		kc->children++;
	}
	splitmix64(rs);
	kc->positions++;
	free(mv);
	free(kctx);
}

/* kids_child after kids_node makes exactly what apply makes, gives outcome()'s value
 * and returns exactly sym_hash_move's key, for every move of the positions along
 * seeded random games, some moves asked twice; many children end the game. */
Test(mirador, kids_child_same_as_apply_outcome_and_sym_hash_move, .timeout = 120)
{
	for (size_t k = 0; k < sizeof kids_specs / sizeof kids_specs[0]; k++) {
		struct kids_count kc = { 0 };
		uint64_t seed = 20261203 + k;
		cr_log_info("%s: seed %llu", kids_specs[k], (unsigned long long)seed);
		along_random_games(kids_specs[k], 10, seed, kids_at, &kc);
		cr_log_info("%s: %llu positions, %llu children, %llu over", kids_specs[k],
			    (unsigned long long)kc.positions, (unsigned long long)kc.children,
			    (unsigned long long)kc.ended);
		cr_expect_gt(kc.ended, 20, "%s: children that end the game", kids_specs[k]);
	}
}

static void agree_at(struct bp_game *g, const struct bp_pos *p, void *ctx, uint64_t *rs)
{
	uint64_t *checked = ctx;
	(void)rs;
	int d = bp_mirador_kids_agree(g, p);
	cr_assert_eq(d, 0, "%s: %d children's preparations differ from their own", g->spec, d);
	(*checked)++;
}

/* On grids past the small ones each child's board and greedy preparation, derived from
 * its node's (bp_mirador_kids_child), equal those made from the child itself. */
Test(mirador, kids_child_preparation_is_the_childs_own, .timeout = 120)
{
	for (size_t k = 0; k + 1 < sizeof kids_specs / sizeof kids_specs[0]; k++) {
		uint64_t checked = 0;
		along_random_games(kids_specs[k], 16, 20261213 + k, agree_at, &checked);
		cr_expect_gt(checked, 40, "%s: positions checked", kids_specs[k]);
	}
	struct bp_game *g = open_game("mirador:8x8");
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_eq(bp_mirador_kids_agree(g, &p), -1, "a small grid: the ops' own path");
	bp_game_destroy(g);
}
