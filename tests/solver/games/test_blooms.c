/* SPDX-License-Identifier: MIT */
/* Blooms (RULES.md section 8): hand-made positions for each rule, the cycle that
 * captures allow, symmetry, position text, reachable counts, and a deliberately naive
 * second implementation (a char array, coordinates compared cell by cell, breadth-first
 * blooms recomputed from scratch, move lists as text) that must agree with the
 * bitboard one on every move list, every resulting position and perft.
 *
 * Cell names on hex2 (used by most hand-made positions):
 *
 *        a1  a2            a1: a2 b1 b2         b2: every other cell
 *      b1  b2  b3          a2: a1 b2 b3         c1: b1 b2 c2
 *        c1  c2            b1: a1 b2 c1         c2: c1 b2 b3;  b3: a2 b2 c2
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon/rank.h"
#include "solver/cyclic.h"
#include "solver/games/blooms.h"
#include "solver/games/game.h"
#include "solver/games/perft.h"
#include "solver/probe.h"
#include "solver/reach.h"
#include "solver/verify.h"
#include "tests/support.h"

/* Plays a move given as text; fails the test when it is not legal. */
static void play(const struct bp_game *g, struct bp_pos *p, const char *move)
{
	struct bp_move m;
	struct bp_err err = { { 0 } };
	int rc = g->ops->move_parse(g, p, move, &m, &err);
	cr_assert_eq(rc, BP_OK, "move %s in '%s': %s", move, fmt_pos(g, p), err.msg);
	g->ops->apply(g, p, m);
}

static int is_illegal(const struct bp_game *g, const struct bp_pos *p, const char *move)
{
	struct bp_move m;
	struct bp_err err = { { 0 } };
	return g->ops->move_parse(g, p, move, &m, &err) == BP_EILLEGAL && err.msg[0];
}

/* Is move (as text) in the generated list? */
static int listed(const struct bp_game *g, const struct bp_pos *p, const char *move)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, p, mv), found = 0;
	for (int i = 0; i < n && !found; i++) {
		struct bp_text t = { 0 };
		g->ops->move_format(g, p, mv[i], &t);
		found = strcmp(bp_text_str(&t), move) == 0;
		bp_text_free(&t);
	}
	free(mv);
	return found;
}

static int count_moves(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, p, mv);
	free(mv);
	return n;
}

/* ---- the naive reference ---------------------------------------------------- */

#define NMAX 64

struct ngeo {
	int n;
	int q[NMAX], r[NMAX];
	char name[NMAX][8];
	int rows, row_len[16];
};

struct nstate {
	char cell[NMAX + 1]; /* 'r', 'y', 'g', 'k', '.' */
	int mover;	     /* 1 or 2 */
	char firstpass;	     /* '-', '1', '2' */
	int passed, over;
};

/* Builds cells straight from RULES.md section 1: rows by r, q increasing. */
static void ngeo_build(struct ngeo *g, const char *board)
{
	int a = 0, b = 0;
	memset(g, 0, sizeof *g);
	int lo_r, hi_r;
	if (sscanf(board, "hex%d", &a) == 1) {
		lo_r = -(a - 1);
		hi_r = a - 1;
	} else if (sscanf(board, "tri%d", &a) == 1) {
		lo_r = 0;
		hi_r = a - 1;
	} else {
		cr_assert_eq(sscanf(board, "rh%dx%d", &a, &b), 2, "board %s", board);
		lo_r = 0;
		hi_r = b - 1;
	}
	for (int r = lo_r; r <= hi_r; r++) {
		int len = 0;
		for (int q = -40; q <= 40; q++) {
			int in;
			if (board[0] == 'h')
				in = abs(q) <= a - 1 && abs(r) <= a - 1 && abs(q + r) <= a - 1;
			else if (board[0] == 't')
				in = q >= 0 && r >= 0 && q + r <= a - 1;
			else
				in = q >= 0 && q < a;
			if (!in)
				continue;
			g->q[g->n] = q;
			g->r[g->n] = r;
			snprintf(g->name[g->n], sizeof g->name[0], "%c%d", 'a' + g->rows,
				 (len + 1) % 100);
			g->n++;
			len++;
		}
		g->row_len[g->rows++] = len;
	}
}

static int nadj(const struct ngeo *g, int i, int j)
{
	int dq = g->q[j] - g->q[i], dr = g->r[j] - g->r[i];
	return (dq == 1 && dr == 0) || (dq == -1 && dr == 0) || (dq == 0 && dr == 1) ||
	       (dq == 0 && dr == -1) || (dq == 1 && dr == -1) || (dq == -1 && dr == 1);
}

/* The bloom of cell s: breadth-first over cells of the same colour. */
static int nbloom(const struct ngeo *g, const char *cell, int s, int *members)
{
	int seen[NMAX] = { 0 }, count = 0;
	members[count++] = s;
	seen[s] = 1;
	for (int h = 0; h < count; h++)
		for (int j = 0; j < g->n; j++)
			if (!seen[j] && cell[j] == cell[s] && nadj(g, members[h], j)) {
				seen[j] = 1;
				members[count++] = j;
			}
	return count;
}

static int nfenced(const struct ngeo *g, const char *cell, int s)
{
	int members[NMAX];
	int count = nbloom(g, cell, s, members);
	for (int h = 0; h < count; h++)
		for (int j = 0; j < g->n; j++)
			if (cell[j] == '.' && nadj(g, members[h], j))
				return 0;
	return 1;
}

static const char *ncolours(int player)
{
	return player == 1 ? "ry" : "gk";
}

/* Rule 3: place, capture every fenced opponent bloom at once, then no mover bloom may
 * be fenced. Returns 1 and updates st when legal. */
static int nplace(const struct ngeo *g, struct nstate *st, int c1, char col1, int c2, char col2)
{
	char cell[NMAX + 1];
	memcpy(cell, st->cell, sizeof cell);
	cell[c1] = col1;
	if (c2 >= 0)
		cell[c2] = col2;
	const char *opp = ncolours(3 - st->mover), *own = ncolours(st->mover);
	int doomed[NMAX] = { 0 };
	for (int i = 0; i < g->n; i++)
		if (cell[i] != '.' && strchr(opp, cell[i]) && nfenced(g, cell, i))
			doomed[i] = 1;
	for (int i = 0; i < g->n; i++)
		if (doomed[i])
			cell[i] = '.';
	for (int i = 0; i < g->n; i++)
		if (cell[i] != '.' && strchr(own, cell[i]) && nfenced(g, cell, i))
			return 0;
	memcpy(st->cell, cell, sizeof cell);
	st->passed = 0;
	st->mover = 3 - st->mover;
	return 1;
}

static void npass(struct nstate *st)
{
	if (st->passed)
		st->over = 1;
	if (st->firstpass == '-')
		st->firstpass = (char)('0' + st->mover);
	st->passed = 1;
	st->mover = 3 - st->mover;
}

struct nmove {
	char text[24];
	int c1, c2;
	char col1, col2; /* col1 0: pass */
};

static int nmoves(const struct ngeo *g, const struct nstate *st, struct nmove *out)
{
	int n = 0, empty_board = 1;
	if (st->over)
		return 0;
	for (int i = 0; i < g->n; i++)
		empty_board &= st->cell[i] == '.';
	const char *own = ncolours(st->mover);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < g->n; i++) {
			struct nstate t = *st;
			if (st->cell[i] != '.' || !nplace(g, &t, i, own[k], -1, 0))
				continue;
			snprintf(out[n].text, sizeof out[n].text, "%c%s", own[k], g->name[i]);
			out[n].c1 = i;
			out[n].col1 = own[k];
			out[n].c2 = -1;
			n++;
		}
	if (empty_board) /* rule 1: the first turn is one stone */
		return n;
	for (int i = 0; i < g->n; i++)
		for (int j = 0; j < g->n; j++) {
			struct nstate t = *st;
			if (i == j || st->cell[i] != '.' || st->cell[j] != '.' ||
			    !nplace(g, &t, i, own[0], j, own[1]))
				continue;
			snprintf(out[n].text, sizeof out[n].text, "%c%s+%c%s", own[0], g->name[i],
				 own[1], g->name[j]);
			out[n].c1 = i;
			out[n].col1 = own[0];
			out[n].c2 = j;
			out[n].col2 = own[1];
			n++;
		}
	snprintf(out[n].text, sizeof out[n].text, "pass");
	out[n].col1 = 0;
	n++;
	return n;
}

static void nplay(const struct ngeo *g, struct nstate *st, const struct nmove *m)
{
	if (!m->col1) {
		npass(st);
		return;
	}
	int ok = nplace(g, st, m->c1, m->col1, m->c2, m->col2);
	cr_assert(ok);
}

/* The position text, written from RULES.md section 2 (and "over=1" as the fast side
 * prints a finished game). */
static void ntext(const struct ngeo *g, const struct nstate *st, char *buf, size_t len)
{
	size_t u = 0;
	int c = 0;
	for (int row = 0; row < g->rows; row++) {
		int run = 0;
		if (row)
			u += (size_t)snprintf(buf + u, len - u, "/");
		for (int i = 0; i < g->row_len[row]; i++, c++) {
			if (st->cell[c] == '.') {
				run++;
				continue;
			}
			if (run)
				u += (size_t)snprintf(buf + u, len - u, "%d", run);
			run = 0;
			u += (size_t)snprintf(buf + u, len - u, "%c", st->cell[c]);
		}
		if (run)
			u += (size_t)snprintf(buf + u, len - u, "%d", run);
	}
	u += (size_t)snprintf(buf + u, len - u, " %d firstpass=%c passed=%d", st->mover,
			      st->firstpass, st->passed);
	if (st->over)
		snprintf(buf + u, len - u, " over=1");
}

/* Rule 4 and the territory definition, for a finished game: the value for the mover. */
static enum bp_value noutcome(const struct ngeo *g, const struct nstate *st)
{
	if (!st->over)
		return BP_VALUE_NONE;
	int score[3] = { 0, 0, 0 }, seen[NMAX] = { 0 };
	for (int i = 0; i < g->n; i++) {
		if (st->cell[i] != '.') {
			score[strchr("ry", st->cell[i]) ? 1 : 2]++;
			continue;
		}
		if (seen[i])
			continue;
		int region[NMAX], count = 0, touch[3] = { 0, 0, 0 };
		region[count++] = i;
		seen[i] = 1;
		for (int h = 0; h < count; h++)
			for (int j = 0; j < g->n; j++) {
				if (!nadj(g, region[h], j))
					continue;
				if (st->cell[j] == '.' && !seen[j]) {
					seen[j] = 1;
					region[count++] = j;
				} else if (st->cell[j] != '.') {
					touch[strchr("ry", st->cell[j]) ? 1 : 2] = 1;
				}
			}
		if (touch[1] && !touch[2])
			score[1] += count;
		if (touch[2] && !touch[1])
			score[2] += count;
	}
	int me = st->mover, other = 3 - me;
	if (score[me] != score[other])
		return score[me] > score[other] ? BP_VALUE_WIN : BP_VALUE_LOSS;
	return st->firstpass == '0' + me ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Compares the fast move list of p with the naive one of st, as sorted text, and the
 * position reached by each move, then recurses. Returns the naive perft count of
 * sequences of exactly `depth` moves. */
struct cross {
	const struct bp_game *g;
	const struct ngeo *geo;
	uint64_t nodes;
};

static uint64_t cross_walk(struct cross *x, const struct bp_pos *p, const struct nstate *st,
			   int depth)
{
	char want[600];
	ntext(x->geo, st, want, sizeof want);
	cr_assert_str_eq(fmt_pos(x->g, p), want);
	cr_assert_eq(x->g->ops->outcome(x->g, p), noutcome(x->geo, st), "outcome of %s", want);
	x->nodes++;
	if (depth == 0)
		return 1;
	struct nmove *nm = malloc(sizeof *nm * (size_t)x->g->max_moves);
	struct bp_move *mv = bp_game_move_buffer(x->g);
	int nn = nmoves(x->geo, st, nm);
	int nf = x->g->ops->moves(x->g, p, mv);
	cr_assert_eq(nf, nn, "%s: %d moves, the naive reference has %d", want, nf, nn);
	char(*ft)[24] = malloc(sizeof *ft * (size_t)nf);
	char(*nt)[24] = malloc(sizeof *nt * (size_t)nn);
	for (int i = 0; i < nf; i++) {
		struct bp_text t = { 0 };
		x->g->ops->move_format(x->g, p, mv[i], &t);
		snprintf(ft[i], sizeof ft[i], "%s", bp_text_str(&t));
		bp_text_free(&t);
	}
	for (int i = 0; i < nn; i++)
		memcpy(nt[i], nm[i].text, sizeof nt[i]);
	qsort(ft, (size_t)nf, sizeof ft[0], cmp_str);
	qsort(nt, (size_t)nn, sizeof nt[0], cmp_str);
	for (int i = 0; i < nn; i++)
		cr_assert_str_eq(ft[i], nt[i], "%s: move lists differ", want);
	free(ft);
	free(nt);
	uint64_t total = 0;
	for (int i = 0; i < nn; i++) {
		struct bp_pos c = *p;
		struct bp_move m;
		struct bp_err err = { { 0 } };
		cr_assert_eq(x->g->ops->move_parse(x->g, p, nm[i].text, &m, &err), BP_OK,
			     "%s: move %s: %s", want, nm[i].text, err.msg);
		x->g->ops->apply(x->g, &c, m);
		struct nstate t = *st;
		nplay(x->geo, &t, &nm[i]);
		total += cross_walk(x, &c, &t, depth - 1);
	}
	free(nm);
	free(mv);
	return total;
}

static struct nstate nstart(void)
{
	struct nstate st;
	memset(st.cell, '.', sizeof st.cell);
	st.mover = 1;
	st.firstpass = '-';
	st.passed = 0;
	st.over = 0;
	return st;
}

struct perft_case {
	char board[8];
	int depth;
};

ParameterizedTestParameters(blooms, perft_naive)
{
	static struct perft_case cases[] = { { "hex2", 4 }, { "tri3", 4 }, { "rh2x2", 5 } };
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

/* Perft against the naive reference, comparing every node's move list and every
 * position on the way. */
ParameterizedTest(struct perft_case *pc, blooms, perft_naive)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", pc->board);
	struct bp_game *g = open_game(spec);
	struct ngeo geo;
	ngeo_build(&geo, pc->board);
	cr_assert_eq(geo.n, g->board->ncells);
	struct bp_pos p;
	g->ops->start(g, &p);
	struct nstate st = nstart();
	uint64_t counts[8];
	cr_assert_eq(bp_perft(g, &p, pc->depth, counts), BP_OK);
	for (int d = 1; d <= pc->depth; d++) {
		struct cross x = { g, &geo, 0 };
		uint64_t naive = cross_walk(&x, &p, &st, d);
		cr_expect_eq(counts[d], naive, "%s perft %d: %llu, naive %llu", spec, d,
			     (unsigned long long)counts[d], (unsigned long long)naive);
		printf("%s perft %d = %llu\n", spec, d, (unsigned long long)counts[d]);
	}
	bp_game_destroy(g);
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seeded random games on bigger boards, every node checked against the naive side. */
Test(blooms, random_games_naive)
{
	static const char *const boards[] = { "hex3", "rh3x4", "tri4", "rh4x2" };
	const uint64_t seed = 20261121;
	printf("blooms random_games_naive: seed %llu\n", (unsigned long long)seed);
	uint64_t rs = seed;
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		char spec[32];
		snprintf(spec, sizeof spec, "blooms:%s", boards[b]);
		struct bp_game *g = open_game(spec);
		struct ngeo geo;
		ngeo_build(&geo, boards[b]);
		struct nmove *nm = malloc(sizeof *nm * (size_t)g->max_moves);
		for (int game = 0; game < 12; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			struct nstate st = nstart();
			for (int turn = 0; turn < 40; turn++) {
				struct cross x = { g, &geo, 0 };
				cross_walk(&x, &p, &st, 1);
				int n = nmoves(&geo, &st, nm);
				if (n == 0)
					break;
				/* prefer placements so that boards fill and captures happen */
				int k = (int)(rng_next(&rs) % (uint64_t)n);
				struct bp_move m;
				cr_assert_eq(g->ops->move_parse(g, &p, nm[k].text, &m, NULL),
					     BP_OK);
				g->ops->apply(g, &p, m);
				nplay(&geo, &st, &nm[k]);
			}
		}
		free(nm);
		bp_game_destroy(g);
	}
}

/* On boards too big for the naive side: the generator (scanned blooms, quiet cells)
 * against move_parse (place(): flood fills after placing), for every single stone and
 * every pair, in crowded positions from seeded random games. */
Test(blooms, generator_matches_parser)
{
	static const char *const specs[] = { "blooms:hex5", "blooms:rh8x8", "blooms:tri10" };
	const uint64_t seed = 77;
	printf("blooms generator_matches_parser: seed %llu\n", (unsigned long long)seed);
	uint64_t rs = seed;
	for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
		struct bp_game *g = open_game(specs[si]);
		struct bp_move *mv = bp_game_move_buffer(g);
		char *in_list = malloc(70000);
		int checked = 0;
		for (int game = 0; game < 3; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			for (int turn = 0; turn < 60; turn++) {
				int n = g->ops->moves(g, &p, mv);
				if (n == 0)
					break;
				if (turn % 4 == 3) {
					memset(in_list, 0, 70000);
					for (int i = 0; i < n; i++) {
						uint32_t v = mv[i].v;
						if (v & 0x1000000u)
							in_list[256 + (v & 0xff) * 256 +
								(v >> 16 & 0xff)] = 1;
						else if (v)
							in_list[v & 0xff] = 1;
					}
					int pl = (int)p.w[4], nc = g->board->ncells;
					const char *cols = pl ? "gk" : "ry";
					for (int c1 = 0; c1 < nc; c1++)
						for (int c2 = -1; c2 < nc; c2++)
							for (int k = 0; k < (c2 < 0 ? 2 : 1); k++) {
								char text[32], a[12], b[12];
								int idx;
								bp_board_cell_name(g->board, c1, a,
										   sizeof a);
								if (c2 < 0) {
									snprintf(text, sizeof text,
										 "%c%s", cols[k],
										 a);
									idx = (2 * pl + k) * 64 +
									      c1;
								} else {
									bp_board_cell_name(
										g->board, c2, b,
										sizeof b);
									snprintf(text, sizeof text,
										 "%c%s+%c%s",
										 cols[0], a,
										 cols[1], b);
									idx = 256 +
									      (2 * pl * 64 + c1) *
										      256 +
									      (2 * pl + 1) * 64 +
									      c2;
								}
								struct bp_move m;
								int ok = g->ops->move_parse(
										 g, &p, text, &m,
										 NULL) == BP_OK;
								cr_assert_eq(ok, in_list[idx],
									     "%s: %s parses %d, "
									     "listed %d",
									     fmt_pos(g, &p), text,
									     ok, in_list[idx]);
								checked += ok;
							}
				}
				/* two-stone turns fill the board fast and make captures */
				int k = (int)(rng_next(&rs) % (uint64_t)n);
				g->ops->apply(g, &p, mv[k]);
			}
		}
		cr_expect_gt(checked, 1000);
		free(in_list);
		free(mv);
		bp_game_destroy(g);
	}
}

/* ---- rules, by hand ---------------------------------------------------------- */

Test(blooms, first_turn_is_one_stone)
{
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_str_eq(fmt_pos(g, &p), "2/3/2 1 firstpass=- passed=0");
	cr_expect_eq(count_moves(g, &p), 14); /* r or y on any of 7 cells */
	cr_expect(is_illegal(g, &p, "pass"));
	cr_expect(is_illegal(g, &p, "ra1+yb2"));
	cr_expect(is_illegal(g, &p, "ga1"));
	play(g, &p, "yb2");
	cr_expect_str_eq(fmt_pos(g, &p), "2/1y1/2 2 firstpass=- passed=0");
	/* 6 empty cells: 12 singles, 6 * 5 pairs, pass */
	cr_expect_eq(count_moves(g, &p), 12 + 30 + 1);
	cr_expect(listed(g, &p, "ga1+kc2"));
	cr_expect(!listed(g, &p, "kc2+ga1"), "each pair is listed once, first colour first");
	bp_game_destroy(g);
}

Test(blooms, capture_single)
{
	/* g a1 has one liberty, b2; y b2 fills it */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "gr/r2/2 1 firstpass=- passed=0");
	play(g, &p, "yb2");
	cr_expect_str_eq(fmt_pos(g, &p), "1r/ry1/2 2 firstpass=- passed=0");
	bp_game_destroy(g);
}

Test(blooms, capture_multiple)
{
	/* Every bloom here has the single liberty b2. Player 1 filling it captures both
	 * of player 2's blooms (g a1, k c2); player 2 filling it captures all three of
	 * player 1's (r a2, r b1+c1, y b3). Before the captures the mover's own blooms
	 * are fenced, so these are also capture-then-legal turns. */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "gr/r1y/rk 1 firstpass=- passed=0");
	struct bp_pos q = p;
	play(g, &q, "rb2");
	cr_expect_str_eq(fmt_pos(g, &q), "1r/rry/r1 2 firstpass=- passed=0");
	p = parse_pos(g, "gr/r1y/rk 2 firstpass=- passed=0");
	play(g, &p, "gb2");
	cr_expect_str_eq(fmt_pos(g, &p), "g1/1g1/1k 1 firstpass=- passed=0");
	bp_game_destroy(g);
}

Test(blooms, self_fencing_is_illegal)
{
	/* a1's neighbours a2, b1, b2 are all player 2's, and none of them loses its
	 * last liberty there: r or y on a1 would be fenced */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "1g/kg1/2 1 firstpass=- passed=0");
	cr_expect(is_illegal(g, &p, "ra1"));
	cr_expect(is_illegal(g, &p, "ya1"));
	cr_expect(is_illegal(g, &p, "ra1+yc2"));
	cr_expect(!listed(g, &p, "ra1"));
	cr_expect(!listed(g, &p, "ya1"));
	cr_expect(!listed(g, &p, "ra1+yc2"));
	cr_expect(listed(g, &p, "rc1"));
	/* with y on c1, k b1 loses its last liberty and is captured: r a1 is legal */
	cr_expect(listed(g, &p, "ra1+yc1"));
	/* a turn may not fence the mover's own older bloom either: player 2's k b1 has
	 * liberties a1 and c1, and k a1 + g c1 takes both (k a1 joins it; g c1 joins
	 * g b2) while capturing nothing (r c2 keeps b3) */
	struct bp_pos q = parse_pos(g, "1g/kg1/1r 2 firstpass=- passed=0");
	cr_expect(listed(g, &q, "ga1")); /* joins g a2+b2, which keeps b3 and c1 */
	cr_expect(!listed(g, &q, "ka1+gc1"), "k a1+b1 would be fenced");
	cr_expect(is_illegal(g, &q, "ka1+gc1"));
	bp_game_destroy(g);
}

Test(blooms, capture_then_legal)
{
	/* r a1 has no empty neighbour after placing (a2 g, b1 k, b2 r), but g a2's only
	 * liberty was a1, so g a2 is captured and the bloom r a1+b2 gets a2 back */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "1g/kry/2 1 firstpass=- passed=0");
	cr_expect(listed(g, &p, "ra1"));
	play(g, &p, "ra1");
	cr_expect_str_eq(fmt_pos(g, &p), "r1/kry/2 2 firstpass=- passed=0");
	/* y a1 does not join r b2: same capture, and y a1 gets a2 */
	p = parse_pos(g, "1g/kry/2 1 firstpass=- passed=0");
	play(g, &p, "ya1");
	cr_expect_str_eq(fmt_pos(g, &p), "y1/kry/2 2 firstpass=- passed=0");
	bp_game_destroy(g);
}

Test(blooms, two_stones_where_the_first_alone_is_illegal)
{
	/* r a1 alone is fenced (a2 g keeps b3, b1 k keeps c1); adding y b3 takes g a2's
	 * last liberty, g a2 is captured and r a1 breathes through a2 */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "1g/ky1/2 1 firstpass=- passed=0");
	cr_expect(is_illegal(g, &p, "ra1"));
	cr_expect(!listed(g, &p, "ra1"));
	cr_expect(listed(g, &p, "ra1+yb3"));
	struct bp_pos q = p;
	play(g, &q, "yb3+ra1"); /* either order parses to the same move */
	play(g, &p, "ra1+yb3");
	cr_expect(bp_pos_equal(&p, &q));
	cr_expect_str_eq(fmt_pos(g, &p), "r1/kyy/2 2 firstpass=- passed=0");
	bp_game_destroy(g);
}

Test(blooms, territory_mixed_colours)
{
	/* the ring around b2 alternates r and y: six blooms of player 1 enclose b2 */
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "ry/y1r/ry 2 firstpass=- passed=0");
	struct bp_blooms_eval e;
	bp_blooms_evaluate(g, &p, &e);
	cr_expect_eq(e.territory[0], 1ull << 3, "b2 is cell 3");
	cr_expect_eq(e.territory[1], 0);
	cr_expect_eq(e.score[0], 7);
	cr_expect_eq(e.score[1], 0);
	cr_expect_eq(e.fenced, 0);
	/* a bigger region on hex3: player 1's r and y wall off the top-left corner */
	struct bp_game *h = open_game("blooms:hex3");
	struct bp_pos q = parse_pos(h, "2r/1ry1/yr3/4/1g1 1 firstpass=- passed=0");
	bp_blooms_evaluate(h, &q, &e);
	/* a1, a2 and b1 touch only r and y; everything else touches g too */
	uint64_t want = 1ull << 0 | 1ull << 1 | 1ull << 3;
	cr_expect_eq(e.territory[0], want, "territory %llx", (unsigned long long)e.territory[0]);
	cr_expect_eq(e.score[0], 5 + 3);
	cr_expect_eq(e.score[1], 1);
	bp_game_destroy(h);
	bp_game_destroy(g);
}

Test(blooms, neutral_region)
{
	struct bp_game *g = open_game("blooms:hex2");
	/* r a1 and g c2 both touch the one empty region: it is nobody's */
	struct bp_pos p = parse_pos(g, "r1/3/1g 1 firstpass=- passed=0");
	struct bp_blooms_eval e;
	bp_blooms_evaluate(g, &p, &e);
	cr_expect_eq(e.territory[0] | e.territory[1], 0);
	cr_expect_eq(e.neutral, 0x7full & ~(1ull | 1ull << 6));
	cr_expect_eq(e.score[0], 1);
	cr_expect_eq(e.score[1], 1);
	/* an empty board: no stone touches the region, so it is nobody's either */
	g->ops->start(g, &p);
	bp_blooms_evaluate(g, &p, &e);
	cr_expect_eq(e.territory[0] | e.territory[1], 0);
	cr_expect_eq(e.neutral, 0x7full);
	bp_game_destroy(g);
}

Test(blooms, two_passes_end_the_game_one_does_not)
{
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "r1/3/1g 1 firstpass=- passed=0");
	play(g, &p, "pass");
	cr_expect_str_eq(fmt_pos(g, &p), "r1/3/1g 2 firstpass=1 passed=1");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	cr_expect_gt(count_moves(g, &p), 0);
	/* a placement in between resets passed */
	struct bp_pos q = p;
	play(g, &q, "ga2");
	play(g, &q, "pass");
	cr_expect_eq(g->ops->outcome(g, &q), BP_VALUE_NONE);
	cr_expect_str_eq(fmt_pos(g, &q), "rg/3/1g 2 firstpass=1 passed=1");
	/* the second pass in a row ends it */
	play(g, &p, "pass");
	cr_expect_eq(count_moves(g, &p), 0);
	cr_expect_neq(g->ops->outcome(g, &p), BP_VALUE_NONE);
	cr_expect(is_illegal(g, &p, "pass"));
	cr_expect(is_illegal(g, &p, "rb2"));
	/* a finished game prints with over=1 and is refused as position text */
	cr_expect_str_eq(fmt_pos(g, &p), "r1/3/1g 1 firstpass=1 passed=1 over=1");
	struct bp_pos back;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->pos_parse(g, fmt_pos(g, &p), &back, &err), BP_EPARSE);
	cr_expect(strstr(err.msg, "two passes") != NULL, "%s", err.msg);
	bp_game_destroy(g);
}

Test(blooms, tie_break_by_first_pass)
{
	struct bp_game *g = open_game("blooms:hex2");
	/* 1 : 1 with a neutral region. Player 1 passes first, then player 2: player 1
	 * (to move after the second pass) wins the tie. */
	struct bp_pos p = parse_pos(g, "r1/3/1g 1 firstpass=- passed=0");
	play(g, &p, "pass");
	play(g, &p, "pass");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN);
	/* player 2 passes first: player 2 is to move at the end and wins */
	p = parse_pos(g, "r1/3/1g 2 firstpass=- passed=0");
	play(g, &p, "pass");
	play(g, &p, "pass");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_WIN);
	/* player 1 passed long ago; now player 2 and then player 1 pass: player 2 is to
	 * move at the end and loses the tie */
	p = parse_pos(g, "r1/3/1g 2 firstpass=1 passed=0");
	play(g, &p, "pass");
	play(g, &p, "pass");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS);
	/* no tie: territory decides, whoever passed first */
	p = parse_pos(g, "ry/y1r/ry 2 firstpass=- passed=0");
	play(g, &p, "pass");
	play(g, &p, "pass");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS, "player 2, to move, has 0 : 7");
	bp_game_destroy(g);
}

/* Positions repeat through captures alone, with no pass: a ko. On hex2, from
 *
 *        g r             k b1 captures y c1          y c1 captures k b1
 *      . g .      ->       g r               ->        g r
 *       y k    (2)       k g .     (1)               . g .
 *                         . k                         y k     (2): the same
 *
 * and on hex3 another found by random play: r a1 captures k a2, k a2 captures r a1. */
Test(blooms, cycle_through_captures)
{
	struct bp_game *g = open_game("blooms:hex2");
	const char *x = "gr/1g1/yk 2 firstpass=- passed=0";
	struct bp_pos p = parse_pos(g, x), start = p;
	play(g, &p, "kb1");
	cr_expect_str_eq(fmt_pos(g, &p), "gr/kg1/1k 1 firstpass=- passed=0");
	play(g, &p, "yc1");
	cr_expect_str_eq(fmt_pos(g, &p), x);
	cr_expect(bp_pos_equal(&p, &start), "the position repeats");
	for (int round = 0; round < 3; round++) { /* and forever */
		play(g, &p, "kb1");
		play(g, &p, "yc1");
	}
	cr_expect(bp_pos_equal(&p, &start));
	bp_game_destroy(g);

	g = open_game("blooms:hex3");
	const char *y = "1ky/kyy1/y1yyy/yy1k/1rg 1 firstpass=- passed=0";
	p = parse_pos(g, y);
	struct bp_blooms_eval e0, e1, e2;
	bp_blooms_evaluate(g, &p, &e0);
	play(g, &p, "ra1");
	bp_blooms_evaluate(g, &p, &e1);
	cr_expect_eq(e1.stones[0], e0.stones[0] + 1);
	cr_expect_lt(e1.stones[1], e0.stones[1], "player 2 lost stones");
	play(g, &p, "ka2");
	bp_blooms_evaluate(g, &p, &e2);
	cr_expect_lt(e2.stones[0], e1.stones[0], "player 1 lost stones");
	cr_expect_str_eq(fmt_pos(g, &p), y);
	bp_game_destroy(g);
}

/* ---- symmetry ----------------------------------------------------------------- */

/* Random positions by random play; the canonical form is the same for all 48 images
 * (hex), every image is a valid position with as many moves. */
ParameterizedTestParameters(blooms, canonical_invariant)
{
	static char boards[][8] = { "hex3", "hex5", "tri4", "rh3x3", "rh3x4" };
	return cr_make_param_array(char[8], boards, sizeof boards / sizeof boards[0]);
}

ParameterizedTest(char (*board)[8], blooms, canonical_invariant)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", *board);
	struct bp_game *g = open_game(spec);
	const uint64_t seed = 4242;
	printf("blooms canonical_invariant %s: seed %llu\n", spec, (unsigned long long)seed);
	uint64_t rs = seed;
	struct bp_move *mv = bp_game_move_buffer(g);
	cr_expect_eq(g->nsym, 4 * g->board->nsym);
	for (int game = 0; game < 6; game++) {
		struct bp_pos p;
		g->ops->start(g, &p);
		for (int turn = 0; turn < 30; turn++) {
			int n = g->ops->moves(g, &p, mv);
			if (n == 0)
				break;
			struct bp_pos canon, ic, img;
			bp_game_canonical(g, &p, &canon);
			int distinct_images = 0;
			for (int s = 0; s < g->nsym; s++) {
				g->ops->transform(g, &p, s, &img);
				bp_game_canonical(g, &img, &ic);
				cr_assert(bp_pos_equal(&ic, &canon), "%s: image %d of %s", spec, s,
					  fmt_pos(g, &p));
				struct bp_pos back;
				cr_assert_eq(g->ops->pos_parse(g, fmt_pos(g, &img), &back, NULL),
					     BP_OK);
				cr_assert(bp_pos_equal(&back, &img));
				struct bp_move *m2 = bp_game_move_buffer(g);
				cr_expect_eq(g->ops->moves(g, &img, m2), n, "%s: image %d", spec,
					     s);
				free(m2);
				distinct_images += s == 0 || !bp_pos_equal(&img, &p);
			}
			if (turn > 0) /* a colour swap moves some stone */
				cr_expect_gt(distinct_images, 1);
			/* the canonical form is itself an image */
			int found = 0;
			for (int s = 0; s < g->nsym && !found; s++) {
				g->ops->transform(g, &p, s, &img);
				found = bp_pos_equal(&img, &canon);
			}
			cr_expect(found);
			/* mostly placements: pick a non-pass move (the pass is listed last) */
			int k = (int)(rng_next(&rs) % (uint64_t)(n > 1 ? n - 1 : 1));
			g->ops->apply(g, &p, mv[k]);
		}
	}
	free(mv);
	bp_game_destroy(g);
}

/* ---- text --------------------------------------------------------------------- */

struct bad_case {
	char board[8];
	char text[80];
	char says[40]; /* a piece of the expected message */
};

ParameterizedTestParameters(blooms, malformed)
{
	static struct bad_case cases[] = {
		{ "hex2", "2/3/2", "missing side to move" },
		{ "hex2", "2/3/2 1", "missing key 'firstpass'" },
		{ "hex2", "2/3/2 1 firstpass=-", "missing key 'passed'" },
		{ "hex2", "2/3/2 3 firstpass=- passed=0", "must be 1 or 2" },
		{ "hex2", "2/3/2 x firstpass=- passed=0", "must be 1 or 2" },
		{ "hex2", "2/3 1 firstpass=- passed=0", "2 rows given" },
		{ "hex2", "2/3/2/1 1 firstpass=- passed=0", "more than 3 rows" },
		{ "hex2", "3/3/2 1 firstpass=- passed=0", "row a has more than 2" },
		{ "hex2", "1/3/2 1 firstpass=- passed=0", "row a has 1 cells" },
		{ "hex2", "2/1x1/2 1 firstpass=- passed=0", "unknown cell character 'x'" },
		{ "hex2", "r1/3/1g 1 firstpass=3 passed=0", "firstpass=3" },
		{ "hex2", "r1/3/1g 1 firstpass=- passed=2", "passed=2" },
		{ "hex2", "r1/3/1g 1 firstpass=- passed=0 ko=a1", "unknown key 'ko'" },
		{ "hex2", "r1/3/1g 1 firstpass=- firstpass=1 passed=0", "given twice" },
		{ "hex2", "r1/3/1g 1 firstpass=- passed=1", "passed=1 with firstpass=-" },
		{ "hex2", "r1/3/1g 1 firstpass=1 passed=1 over=1", "two passes" },
		{ "hex2", "r1/3/1g 1 firstpass=1 passed=0 over", "malformed key" },
		/* fenced blooms: a full board, a corner, a bigger bloom */
		{ "hex2", "rg/kry/gk 1 firstpass=- passed=0", "fenced" },
		{ "hex2", "gr/r2/2 2 firstpass=- passed=0", "" }, /* valid: see below */
		{ "hex2", "gr/ry1/2 2 firstpass=- passed=0", "the g bloom at a1 (1 stone)" },
		{ "hex3", "rrg/rrg1/ggg2/4/3 2 firstpass=- passed=0", "r bloom at a1 (4 stones)" },
		/* turn order */
		{ "hex2", "2/3/2 2 firstpass=- passed=0", "start position" },
		{ "hex2", "2/3/2 1 firstpass=1 passed=0", "start position" },
		{ "hex2", "r1/3/2 1 firstpass=- passed=0", "player 2, who just placed" },
		{ "hex2", "g1/3/2 2 firstpass=- passed=0", "player 1, who just placed" },
		{ "hex2", "g1/3/2 1 firstpass=2 passed=1", "player 1, who placed stones" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, blooms, malformed)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", bc->board);
	struct bp_game *g = open_game(spec);
	struct bp_pos p;
	struct bp_err err = { { 0 } };
	int rc = g->ops->pos_parse(g, bc->text, &p, &err);
	if (!bc->says[0]) {
		cr_expect_eq(rc, BP_OK, "'%s' is valid: %s", bc->text, err.msg);
	} else {
		cr_expect_eq(rc, BP_EPARSE, "'%s' must be rejected", bc->text);
		cr_expect(strstr(err.msg, bc->says) != NULL, "'%s': message '%s' lacks '%s'",
			  bc->text, err.msg, bc->says);
	}
	bp_game_destroy(g);
}

Test(blooms, text_round_trip_and_moves)
{
	struct bp_game *g = open_game("blooms:hex3");
	const char *texts[] = {
		"3/4/5/4/3 1 firstpass=- passed=0",
		"2r/1ry1/yr3/4/1g1 1 firstpass=- passed=0",
		"2r/1ry1/yr3/4/1g1 2 firstpass=1 passed=1",
		"r2/4/2k2/4/2y 2 firstpass=2 passed=0",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct bp_pos p = parse_pos(g, texts[i]);
		cr_expect_str_eq(fmt_pos(g, &p), texts[i]);
		struct bp_move *mv = bp_game_move_buffer(g);
		int n = g->ops->moves(g, &p, mv);
		for (int k = 0; k < n; k++) {
			struct bp_text t = { 0 };
			struct bp_move back;
			g->ops->move_format(g, &p, mv[k], &t);
			cr_assert_eq(g->ops->move_parse(g, &p, bp_text_str(&t), &back, NULL), BP_OK,
				     "%s: %s", texts[i], bp_text_str(&t));
			cr_expect_eq(back.v, mv[k].v);
			bp_text_free(&t);
		}
		free(mv);
	}
	struct bp_pos p = parse_pos(g, texts[1]);
	struct bp_move m;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "ra1+ra2", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "each of"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "ra1+ya1", &m, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->move_parse(g, &p, "ga1", &m, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->move_parse(g, &p, "ra3", &m, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "occupied"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "xa1", &m, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "ra1+", &m, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "ra1 ", &m, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "rz9", &m, &err), BP_EPARSE);
	bp_game_destroy(g);
}

Test(blooms, describe)
{
	struct bp_game *g = open_game("blooms:hex2");
	struct bp_pos p = parse_pos(g, "ry/y1r/ry 2 firstpass=- passed=0");
	struct bp_text json = { 0 }, text = { 0 };
	g->ops->describe(g, &p, &json, &text);
	cr_expect_str_eq(bp_text_str(&json),
			 "\"score\": {\"1\": 7, \"2\": 0}, \"stones\": {\"1\": 6, \"2\": 0}, "
			 "\"territory_1\": [\"b2\"], \"territory_2\": [], \"neutral\": [], "
			 "\"fenced\": []");
	cr_expect(strstr(bp_text_str(&text), "territory 1: b2") != NULL, "%s", bp_text_str(&text));
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(g);
}

Test(blooms, boards)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create("blooms:hex6", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "at most 64"), "%s", err.msg);
	cr_expect_eq(bp_game_create("blooms:5x5", &g, &err), BP_ESPEC);
	g = open_game("blooms:rh8x8");
	cr_expect_eq(g->board->ncells, 64);
	struct bp_pos p;
	g->ops->start(g, &p);
	cr_expect_eq(count_moves(g, &p), 128);
	play(g, &p, "rh8");
	cr_expect_eq(count_moves(g, &p), 2 * 63 + 63 * 62 + 1);
	bp_game_destroy(g);
	g = open_game("blooms:hex5");
	cr_expect_eq(g->nsym, 48);
	g->ops->start(g, &p);
	play(g, &p, "re5");
	cr_expect_eq(count_moves(g, &p), 2 * 60 + 60 * 59 + 1);
	bp_game_destroy(g);
}

/* ---- reachable positions ----------------------------------------------------- */

/* Breadth-first over naive states keyed by their text, against bp_reach. */
static uint64_t naive_reach(const char *board)
{
	struct ngeo geo;
	ngeo_build(&geo, board);
	size_t cap = 1 << 16, count = 0;
	char(*seen)[96] = malloc(cap * sizeof *seen);
	struct nstate *queue = malloc(cap * sizeof *queue);
	struct nmove nm[64 * 64 + 200];
	queue[count] = nstart();
	ntext(&geo, &queue[0], seen[count], sizeof seen[0]);
	count++;
	for (size_t h = 0; h < count; h++) {
		int n = nmoves(&geo, &queue[h], nm);
		for (int i = 0; i < n; i++) {
			struct nstate t = queue[h];
			nplay(&geo, &t, &nm[i]);
			char key[96];
			ntext(&geo, &t, key, sizeof key);
			int dup = 0;
			for (size_t j = 0; j < count && !dup; j++)
				dup = strcmp(seen[j], key) == 0;
			if (dup)
				continue;
			cr_assert_lt(count, cap);
			queue[count] = t;
			memcpy(seen[count], key, sizeof key);
			count++;
		}
	}
	free(seen);
	free(queue);
	return count;
}

Test(blooms, reach_counts)
{
	static const char *const boards[] = { "tri2", "rh2x2" };
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		char spec[32];
		snprintf(spec, sizeof spec, "blooms:%s", boards[b]);
		struct bp_game *g = open_game(spec);
		struct bp_reach_counts rc;
		cr_assert_eq(bp_reach(g, 1 << 26, NULL, NULL, &rc), BP_OK);
		uint64_t raw = 0, classes = 0;
		for (uint32_t d = 0; d < rc.ndepths; d++) {
			raw += rc.raw[d];
			classes += rc.classes[d];
		}
		cr_expect_eq(raw, naive_reach(boards[b]), "%s", spec);
		cr_expect_eq(rc.raw[0], 1);
		/* every class has at most nsym members */
		cr_expect_geq(classes * (uint64_t)g->nsym, raw);
		cr_expect_lt(classes, raw);
		printf("%s: %llu positions, %llu classes, %u depths\n", spec,
		       (unsigned long long)raw, (unsigned long long)classes, rc.ndepths);
		bp_reach_counts_free(&rc);
		/* a limit that is too small is refused */
		cr_expect_eq(bp_reach(g, 4096, NULL, NULL, &rc), BP_ERANGE);
		cr_expect_null(rc.raw);
		bp_game_destroy(g);
	}
}

/* ---- solving small boards ---------------------------------------------------- */

/* The naive game graph: breadth-first over naive states, keyed by their text. */
struct ngraph {
	int n, cap;
	struct nstate *st;
	char (*key)[96];
	int *hash; /* open addressing, index + 1 */
	int hcap;
	int *off, *child, nchild, childcap;
};

static unsigned long nhash(const char *k)
{
	unsigned long h = 1469598103934665603ul;
	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ul;
	return h;
}

static int ngraph_index(struct ngraph *gr, const struct nstate *st, const struct ngeo *geo)
{
	char key[96];
	ntext(geo, st, key, sizeof key);
	unsigned long h = nhash(key) % (unsigned long)gr->hcap;
	for (; gr->hash[h]; h = (h + 1) % (unsigned long)gr->hcap)
		if (strcmp(gr->key[gr->hash[h] - 1], key) == 0)
			return gr->hash[h] - 1;
	cr_assert_lt(gr->n, gr->cap);
	gr->st[gr->n] = *st;
	memcpy(gr->key[gr->n], key, sizeof key);
	gr->hash[h] = ++gr->n;
	return gr->n - 1;
}

static void ngraph_build(struct ngraph *gr, const char *board, int cap)
{
	struct ngeo geo;
	ngeo_build(&geo, board);
	memset(gr, 0, sizeof *gr);
	gr->cap = cap;
	gr->hcap = 2 * cap + 1;
	gr->st = malloc(sizeof *gr->st * (size_t)cap);
	gr->key = malloc(sizeof *gr->key * (size_t)cap);
	gr->hash = calloc((size_t)gr->hcap, sizeof *gr->hash);
	gr->off = malloc(sizeof *gr->off * (size_t)(cap + 1));
	gr->childcap = 1 << 20;
	gr->child = malloc(sizeof *gr->child * (size_t)gr->childcap);
	struct nmove *nm = malloc(sizeof *nm * (64 * 64 + 200));
	struct nstate s0 = nstart();
	ngraph_index(gr, &s0, &geo);
	for (int i = 0; i < gr->n; i++) {
		gr->off[i] = gr->nchild;
		int n = nmoves(&geo, &gr->st[i], nm);
		for (int k = 0; k < n; k++) {
			struct nstate t = gr->st[i];
			nplay(&geo, &t, &nm[k]);
			if (gr->nchild == gr->childcap) {
				gr->childcap *= 2;
				gr->child = realloc(gr->child,
						    sizeof *gr->child * (size_t)gr->childcap);
			}
			gr->child[gr->nchild++] = ngraph_index(gr, &t, &geo);
		}
	}
	gr->off[gr->n] = gr->nchild;
	free(nm);
}

static void ngraph_free(struct ngraph *gr)
{
	free(gr->st);
	free(gr->key);
	free(gr->hash);
	free(gr->off);
	free(gr->child);
}

/* Values by rounds, straight from RULES.md section 10: in round k a position not yet
 * decided is won in k if a move reaches a position lost in k - 1, and lost in k if
 * every move reaches a position won in at most k - 1. Whatever no round decides is a
 * draw (Blooms has no drawn end, so every draw repeats forever). */
static void nsolve(const struct ngraph *gr, const struct ngeo *geo, enum bp_value *val, int *rem)
{
	for (int i = 0; i < gr->n; i++) {
		val[i] = noutcome(geo, &gr->st[i]);
		rem[i] = val[i] ? 0 : -1;
	}
	for (int k = 1;; k++) {
		int changed = 0;
		enum bp_value *nv = malloc(sizeof *nv * (size_t)gr->n);
		memcpy(nv, val, sizeof *nv * (size_t)gr->n);
		for (int i = 0; i < gr->n; i++) {
			if (val[i])
				continue;
			int win = 0, all_won = 1;
			for (int e = gr->off[i]; e < gr->off[i + 1]; e++) {
				int j = gr->child[e];
				win |= val[j] == BP_VALUE_LOSS && rem[j] <= k - 1;
				all_won &= val[j] == BP_VALUE_WIN && rem[j] <= k - 1;
			}
			if (win || all_won) {
				nv[i] = win ? BP_VALUE_WIN : BP_VALUE_LOSS;
				changed = 1;
			}
		}
		for (int i = 0; i < gr->n; i++)
			if (nv[i] != val[i]) {
				val[i] = nv[i];
				rem[i] = k;
			}
		free(nv);
		if (!changed)
			break;
	}
	for (int i = 0; i < gr->n; i++)
		if (!val[i])
			val[i] = BP_VALUE_DRAW;
}

ParameterizedTestParameters(blooms, solve_small)
{
	static char boards[][8] = { "tri2", "rh2x2", "tri3", "rh2x3" };
	return cr_make_param_array(char[8], boards, sizeof boards / sizeof boards[0]);
}

/* Both solvers for cyclic games, against the naive rounds on every position: the
 * in-memory one (solver/reach.h) and the stored one (solver/cyclic.h, through
 * Blooms' dense ranking), which verify must also accept. */
ParameterizedTest(char (*board)[8], blooms, solve_small)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", *board);
	struct bp_game *g = open_game(spec);
	struct ngeo geo;
	ngeo_build(&geo, *board);
	struct ngraph gr;
	ngraph_build(&gr, *board, 200000);
	enum bp_value *val = malloc(sizeof *val * (size_t)gr.n);
	int *rem = malloc(sizeof *rem * (size_t)gr.n);
	nsolve(&gr, &geo, val, rem);
	bp_reach_table *t;
	cr_assert_eq(bp_reach_solve(g, 1 << 28, &t), BP_OK);
	struct bp_reach_summary sum;
	bp_reach_table_summary(t, &sum);
	cr_expect_eq(sum.positions, (uint64_t)gr.n);
	cr_expect_eq(sum.edges, (uint64_t)gr.off[gr.n]);
	uint64_t counts[4] = { 0, 0, 0, 0 };
	int checked = 0;
	for (int i = 0; i < gr.n; i++) {
		counts[val[i]]++;
		if (gr.st[i].over)
			continue; /* no text for a finished game; counted above */
		struct bp_pos p = parse_pos(g, gr.key[i]);
		enum bp_value v;
		unsigned r;
		cr_assert_eq(bp_reach_table_lookup(t, &p, &v, &r), BP_OK, "%s", gr.key[i]);
		cr_assert_eq(v, val[i], "%s: %s, naive %s", gr.key[i], bp_value_name(v),
			     bp_value_name(val[i]));
		if (val[i] == BP_VALUE_DRAW)
			cr_assert_eq(r, BP_REACH_NO_REMOTENESS, "%s", gr.key[i]);
		else
			cr_assert_eq(r, (unsigned)rem[i], "%s: remoteness %u, naive %d", gr.key[i],
				     r, rem[i]);
		checked++;
	}
	for (int v = 1; v < 4; v++)
		cr_expect_eq(sum.counts[v], counts[v], "%s: %s", spec,
			     bp_value_name((enum bp_value)v));
	cr_expect_eq(sum.repetition_draws, counts[BP_VALUE_DRAW]);
	printf("%s: %llu positions, start %s", spec, (unsigned long long)sum.positions,
	       bp_value_name(sum.start_value));
	if (sum.start_remoteness != BP_REACH_NO_REMOTENESS)
		printf(" in %u", sum.start_remoteness);
	printf("; win %llu, loss %llu, draw %llu (all by repetition)\n",
	       (unsigned long long)sum.counts[BP_VALUE_WIN],
	       (unsigned long long)sum.counts[BP_VALUE_LOSS],
	       (unsigned long long)sum.counts[BP_VALUE_DRAW]);
	cr_expect_gt(checked, 0);

	char *dir = temp_db();
	bp_store *db;
	bp_table *tab;
	struct bp_err err = { { 0 } };
	/* bp_solve hands games that repeat to the cyclic solver */
	struct bp_solve_result res = solve_into(dir, g, (struct bp_solve_opts){ .threads = 2 });
	cr_assert_eq(bp_store_open(dir, BP_STORE_READONLY, &db, &err), BP_OK, "%s", err.msg);
	cr_expect_eq(res.value, sum.start_value);
	/* the stored solver keeps one record a class: as many as reach counts */
	struct bp_reach_counts rcount;
	cr_assert_eq(bp_reach(g, 1 << 28, NULL, NULL, &rcount), BP_OK);
	uint64_t classes = 0;
	for (uint32_t d = 0; d < rcount.ndepths; d++)
		classes += rcount.classes[d];
	cr_expect_eq(res.positions, classes, "%s: solver %llu, reach %llu classes", spec,
		     (unsigned long long)res.positions, (unsigned long long)classes);
	bp_reach_counts_free(&rcount);
	cr_assert_eq(bp_table_open(db, g->spec, NULL, BP_STORE_READONLY, &tab, &err), BP_OK, "%s",
		     err.msg);
	for (int i = 0; i < gr.n; i++) {
		if (gr.st[i].over)
			continue;
		struct bp_pos p = parse_pos(g, gr.key[i]);
		struct bp_probe pr;
		cr_assert_eq(bp_probe_position(g, tab, &p, &pr), BP_OK, "%s", gr.key[i]);
		cr_assert_eq(pr.value, val[i], "%s: stored %s, naive %s", gr.key[i],
			     bp_value_name(pr.value), bp_value_name(val[i]));
		if (val[i] != BP_VALUE_DRAW)
			cr_assert_eq(pr.remoteness, (unsigned)rem[i], "%s", gr.key[i]);
	}
	struct bp_verify_report vr;
	cr_assert_eq(bp_verify(g, tab, NULL, &vr), BP_OK);
	cr_expect_eq(vr.inconsistencies, 0);
	bp_table_close(tab);
	bp_store_close(db);
	remove_db(dir);
	bp_reach_table_destroy(t);
	free(val);
	free(rem);
	ngraph_free(&gr);
	bp_game_destroy(g);
}

/* The dense index by its formula (see blooms.c), with canon/rank's general functions. */
static uint64_t naive_rank(const struct bp_pos *p)
{
	uint64_t occ = p->w[0] | p->w[1] | p->w[2] | p->w[3];
	uint64_t t = (uint64_t)__builtin_popcountll(occ);
	uint64_t colours = bp_bits_extract(p->w[1] | p->w[3], occ) |
			   bp_bits_extract(p->w[2] | p->w[3], occ) << t;
	uint64_t state = p->w[4] + 2 * p->w[5] + 6 * p->w[6] + 12 * p->w[7];
	return ((bp_rank_subset(occ) << (2 * t)) + colours) * 24 + state;
}

/* Whether the index of p names a position (the naive test of unrank's holes): keys
 * that some game produces (firstpass with passed, passed with over, none on the empty
 * board), and stones that pos_parse accepts with those keys, fenced blooms and the
 * turn order checked there; a game over has the stones of the position before its
 * final pass, which pos_parse reads (the other side to move, passed=1). */
static int naive_index_valid(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_pos q = *p, back;
	if ((p->w[6] && !p->w[5]) || (p->w[7] && !p->w[6]) ||
	    (!(p->w[0] | p->w[1] | p->w[2] | p->w[3]) && (p->w[4] | p->w[5] | p->w[6])))
		return 0;
	if (q.w[7]) {
		q.w[4] ^= 1;
		q.w[7] = 0;
	}
	return g->ops->pos_parse(g, fmt_pos(g, &q), &back, NULL) == BP_OK;
}

/* The dense index of the cycle-aware solver: every index of small boards unranks to a
 * position that ranks back to it or is a hole, holes exactly where the naive test
 * says; positions from random games on bigger boards round-trip. */
Test(blooms, ranking)
{
	static const char *const small[] = { "blooms:tri2", "blooms:rh2x2", "blooms:tri3",
					     "blooms:hex2" };
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
		struct bp_game *g = open_game(small[i]);
		uint64_t total = 0, holes = 0;
		cr_expect_eq(g->ntiers, (uint32_t)g->board->ncells + 1);
		for (uint32_t t = 0; t < g->ntiers; t++) {
			uint64_t size, back;
			cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
			for (uint64_t idx = 0; idx < size; idx++) {
				struct bp_pos p;
				int rc = g->ops->unrank(g, t, idx, &p);
				if (rc == BP_ENOTFOUND) {
					holes++;
					continue;
				}
				cr_assert_eq(rc, BP_OK);
				cr_assert_eq(g->ops->tier(g, &p), t);
				cr_assert_eq(g->ops->rank(g, &p, &back), BP_OK);
				cr_assert_eq(back, idx, "%s tier %u index %llu", small[i], t,
					     (unsigned long long)idx);
				total++;
			}
			struct bp_pos p;
			cr_expect_eq(g->ops->unrank(g, t, size, &p), BP_ERANGE);
		}
		/* every stone layout with each of its 24 states: a position exactly when
		 * the naive test says so */
		uint64_t layouts = 1, want = 0;
		for (int c = 0; c < g->board->ncells; c++)
			layouts *= 5;
		for (uint64_t l = 0; l < layouts; l++)
			for (uint64_t state = 0; state < 24; state++) {
				struct bp_pos p, back;
				memset(&p, 0, sizeof p);
				for (uint64_t c = 0, x = l; c < (uint64_t)g->board->ncells;
				     c++, x /= 5)
					if (x % 5)
						p.w[x % 5 - 1] |= 1ull << c;
				p.w[4] = state & 1;
				p.w[5] = state / 2 % 3;
				p.w[6] = state / 6 % 2;
				p.w[7] = state / 12;
				int ok = naive_index_valid(g, &p);
				uint32_t t = g->ops->tier(g, &p);
				int rc = g->ops->unrank(g, t, naive_rank(&p), &back);
				cr_assert_eq(rc, ok ? BP_OK : BP_ENOTFOUND, "%s: %s", small[i],
					     fmt_pos(g, &p));
				cr_assert(!ok || bp_pos_equal(&back, &p), "%s", fmt_pos(g, &p));
				want += (uint64_t)ok;
			}
		cr_expect_eq(total, want, "%s", small[i]);
		cr_expect_eq(total + holes, layouts * 24);
		bp_game_destroy(g);
	}
	struct bp_game *g = open_game("blooms:hex3");
	struct bp_move *mv = bp_game_move_buffer(g);
	uint64_t rs = 99;
	printf("blooms ranking: seed 99\n");
	struct bp_pos p;
	g->ops->start(g, &p);
	for (int turn = 0; turn < 200; turn++) {
		uint64_t idx, size;
		struct bp_pos back;
		uint32_t t = g->ops->tier(g, &p);
		cr_assert_eq(g->ops->rank(g, &p, &idx), BP_OK);
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		cr_assert_lt(idx, size);
		cr_assert_eq(g->ops->unrank(g, t, idx, &back), BP_OK);
		cr_assert(bp_pos_equal(&back, &p), "%s", fmt_pos(g, &p));
		int n = g->ops->moves(g, &p, mv);
		if (n == 0)
			g->ops->start(g, &p);
		else
			g->ops->apply(g, &p, mv[rng_next(&rs) % (uint64_t)n]);
	}
	free(mv);
	bp_game_destroy(g);
	g = open_game("blooms:hex5");
	uint64_t size;
	cr_expect_eq(g->ops->tier_size(g, 31, &size), BP_ERANGE, "4^t * C(61, t) * 24 overflows");
	cr_expect_eq(g->ops->tier_size(g, 10, &size), BP_OK);
	bp_game_destroy(g);
}

/* ---- fast paths against their definitions ------------------------------------------ */

/* The canonical form by its definition: of all 4 * nbsym images (transform), the one
 * whose planes r, y, g, k, compared in turn as words, are least. */
static void naive_canonical(const struct bp_game *g, const struct bp_pos *p, struct bp_pos *out)
{
	*out = *p;
	for (int s = 0; s < g->nsym; s++) {
		struct bp_pos img;
		g->ops->transform(g, p, s, &img);
		int c = 0;
		while (c < 4 && img.w[c] == out->w[c])
			c++;
		if (c < 4 && img.w[c] < out->w[c])
			*out = img;
	}
}

/* children() against moves(), apply(), canonical(), tier() and rank(), move by move; where
 * a child lies past the index space (hex5), children() fails with rank()'s error. */
static void check_children(const struct bp_game *g, const struct bp_pos *p, struct bp_move *mv,
			   uint32_t *ct, uint64_t *ci)
{
	int n = g->ops->moves(g, p, mv), got = g->ops->children(g, p, ct, ci), failed = 0;
	for (int i = 0; i < n && !failed; i++) {
		struct bp_pos c = *p, canon;
		uint64_t idx;
		g->ops->apply(g, &c, mv[i]);
		bp_game_canonical(g, &c, &canon);
		failed = g->ops->rank(g, &canon, &idx);
	}
	if (failed) {
		cr_assert_eq(got, failed, "%s", fmt_pos(g, p));
		return;
	}
	cr_assert_eq(got, n, "%s", fmt_pos(g, p));
	for (int i = 0; i < n; i++) {
		struct bp_pos c = *p, canon;
		uint64_t idx;
		g->ops->apply(g, &c, mv[i]);
		bp_game_canonical(g, &c, &canon);
		cr_assert_eq(g->ops->rank(g, &canon, &idx), BP_OK);
		cr_assert(ct[i] == g->ops->tier(g, &canon) && ci[i] == idx,
			  "%s: move %d: children() says tier %u index %llu", fmt_pos(g, p), i,
			  ct[i], (unsigned long long)ci[i]);
	}
}

/* The table canonical form of p against its definition and, when p has an index,
 * rank against the formula. @return 1 when p has an index (rank gave BP_OK). */
static int check_canonical_rank(const struct bp_game *g, const struct bp_pos *p, uint64_t *idx)
{
	struct bp_pos fast, slow;
	g->ops->canonical(g, p, &fast);
	naive_canonical(g, p, &slow);
	cr_assert(bp_pos_equal(&fast, &slow), "%s: canonical %s, by definition %s", fmt_pos(g, p),
		  fmt_pos(g, &fast), fmt_pos(g, &slow));
	if (g->ops->rank(g, p, idx) != BP_OK)
		return 0;
	cr_assert_eq(*idx, naive_rank(p), "%s", fmt_pos(g, p));
	return 1;
}

/* Every index of small boards (and random positions on the solvable sizes): the table
 * canonical form equals the definition, rank equals the formula, and on positions
 * without a fenced bloom children() equals the ordinary path move by move. */
ParameterizedTestParameters(blooms, fast_paths_every_index)
{
	static char boards[][8] = { "tri2", "rh2x2", "tri3", "rh2x3", "hex2" };
	return cr_make_param_array(char[8], boards, sizeof boards / sizeof boards[0]);
}

ParameterizedTest(char (*board)[8], blooms, fast_paths_every_index)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", *board);
	struct bp_game *g = open_game(spec);
	struct bp_move *mv = bp_game_move_buffer(g);
	uint32_t *ct = malloc(sizeof *ct * (size_t)g->max_moves);
	uint64_t *ci = malloc(sizeof *ci * (size_t)g->max_moves);
	cr_assert(ct && ci);
	uint64_t checked = 0, expanded = 0;
	for (uint32_t t = 0; t < g->ntiers; t++) {
		uint64_t size;
		cr_assert_eq(g->ops->tier_size(g, t, &size), BP_OK);
		for (uint64_t idx = 0; idx < size; idx++) {
			struct bp_pos p;
			if (g->ops->unrank(g, t, idx, &p) != BP_OK)
				continue;
			uint64_t back;
			cr_assert(check_canonical_rank(g, &p, &back), "%s", fmt_pos(g, &p));
			cr_assert_eq(back, idx);
			checked++;
			struct bp_blooms_eval e;
			bp_blooms_evaluate(g, &p, &e);
			if (e.fenced || p.w[7])
				continue;
			check_children(g, &p, mv, ct, ci);
			expanded++;
		}
	}
	printf("blooms fast paths %s: %llu positions, %llu expanded\n", spec,
	       (unsigned long long)checked, (unsigned long long)expanded);
	cr_expect_gt(expanded, 0);
	free(ct);
	free(ci);
	free(mv);
	bp_game_destroy(g);
}

ParameterizedTestParameters(blooms, fast_paths_random_games)
{
	static char boards[][8] = { "tri4", "rh3x3", "rh3x4", "rh4x4", "hex3", "hex5" };
	return cr_make_param_array(char[8], boards, sizeof boards / sizeof boards[0]);
}

ParameterizedTest(char (*board)[8], blooms, fast_paths_random_games)
{
	char spec[32];
	snprintf(spec, sizeof spec, "blooms:%s", *board);
	struct bp_game *g = open_game(spec);
	struct bp_move *mv = bp_game_move_buffer(g);
	uint32_t *ct = malloc(sizeof *ct * (size_t)g->max_moves);
	uint64_t *ci = malloc(sizeof *ci * (size_t)g->max_moves);
	cr_assert(ct && ci);
	const uint64_t seed = 1414;
	printf("blooms fast_paths_random_games %s: seed %llu\n", spec, (unsigned long long)seed);
	uint64_t rs = seed;
	struct bp_pos p;
	g->ops->start(g, &p);
	int turns = g->board->ncells > 19 ? 60 : 400;
	for (int turn = 0; turn < turns; turn++) {
		uint64_t idx;
		check_canonical_rank(g, &p, &idx);
		int n = g->ops->moves(g, &p, mv);
		if (n == 0) {
			g->ops->start(g, &p);
			continue;
		}
		check_children(g, &p, mv, ct, ci);
		g->ops->apply(g, &p, mv[rng_next(&rs) % (uint64_t)n]);
	}
	free(ct);
	free(ci);
	free(mv);
	bp_game_destroy(g);
}

/* ---- the structural holes ------------------------------------------------------ */

/* canonical_mask agrees with the naive holes (unrank() accepts the index and
 * canonical() leaves the position as it is) on every index of small boards with 2 to
 * 12 board symmetries, whole tiers and seeded random ranges (any start, any length:
 * across the 24 states of a layout and the carries between colour counters and
 * occupied sets); and on the lower tiers of a board without the whole-plane table
 * (rh4x4, 16 cells: canonical() by bytes) and of one over 16 cells (hex3: planes
 * compared as words). */
Test(blooms, canonical_mask_matches_naive)
{
	static const struct {
		const char *spec;
		uint32_t to; /* the last tier tested */
	} cases[] = {
		{ "blooms:tri2", UINT32_MAX }, { "blooms:rh2x2", UINT32_MAX },
		{ "blooms:tri3", UINT32_MAX }, { "blooms:rh2x3", UINT32_MAX },
		{ "blooms:hex2", UINT32_MAX }, { "blooms:rh2x4", UINT32_MAX },
		{ "blooms:rh4x4", 4 },	       { "blooms:hex3", 3 },
	};
	const uint64_t seed = 20261202;
	printf("blooms.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)seed);
	uint64_t state = seed;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const char *spec = cases[c].spec;
		struct bp_game *g = open_game(spec);
		expect_canonical_mask_range(g, spec, naive_valid_canonical, 0, cases[c].to, &state);
		bp_game_destroy(g);
	}
}
