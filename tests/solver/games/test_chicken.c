/* SPDX-License-Identifier: MIT */
/* Glorieta "Chicken" (RULES.md sections 3 and 4): hand-made positions for each rule
 * and each reading of the [choice]s, malformed positions, and a naive second
 * implementation (letters and breadth-first search, straight from the rules) that
 * must agree with the bitboard one on every move list, outcome and perft count. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "naive_loops.h"
#include "naive_solve.h"
#include "solver/enumerate.h"
#include "solver/games/perft.h"
#include "tests/rng.h"

/* ---- the naive reference ---------------------------------------------------- */

/* Is cell `to` in the group of cell `from` (letters pc or 'n')? */
static int naive_same_group(const struct bp_board *b, const char *cells, char pc, int from, int to)
{
	int seen[64] = { 0 }, queue[64], head = 0, tail = 0;
	seen[from] = 1;
	queue[tail++] = from;
	while (head < tail) {
		int v = queue[head++];
		if (v == to)
			return 1;
		for (int i = 0; i < b->cells[v].degree; i++) {
			int u = b->cells[v].nb[i];
			if (!seen[u] && (cells[u] == pc || cells[u] == 'n')) {
				seen[u] = 1;
				queue[tail++] = u;
			}
		}
	}
	return 0;
}

struct nchicken {
	char cell[64];
	char declined; /* '-', 'b', 'o' */
	char winner;   /* 0 in play, 'b', 'o', or 'd' for a draw */
};

struct nrules {
	struct naive_geo geo;
	int both_mover, forced_decline, formed_mover;
};

static char n_to_move(const struct bp_board *b, const struct nchicken *s)
{
	int nb = 0, no = 0;
	for (int c = 0; c < b->ncells; c++) {
		nb += s->cell[c] == 'b';
		no += s->cell[c] == 'o';
	}
	return nb > no ? 'o' : 'b';
}

static int n_has_friendly(const struct bp_board *b, const struct nchicken *s)
{
	for (int c = 0; c < b->ncells; c++)
		if (s->cell[c] == 'b' || s->cell[c] == 'o')
			return 1;
	return 0;
}

/* Legal turns as (friendly, neutral or -1), straight from rule 4.2-4.3. */
static int n_moves(const struct nrules *R, const struct nchicken *s, int *fs, int *xs)
{
	const struct bp_board *b = R->geo.b;
	int n = 0;
	if (s->winner)
		return 0;
	char me = n_to_move(b, s);
	if (n_has_friendly(b, s) && s->declined == '-')
		for (int f = 0; f < b->ncells; f++)
			for (int x = 0; x < b->ncells; x++) {
				if (f == x || s->cell[f] != '.' || s->cell[x] != '.')
					continue;
				struct nchicken t = *s;
				t.cell[f] = me;
				t.cell[x] = 'n';
				if (!naive_same_group(b, t.cell, me, f, x)) {
					fs[n] = f;
					xs[n++] = x;
				}
			}
	for (int f = 0; f < b->ncells; f++)
		if (s->cell[f] == '.') {
			fs[n] = f;
			xs[n++] = -1;
		}
	return n;
}

static void n_play(const struct nrules *R, struct nchicken *s, int f, int x)
{
	const struct bp_board *b = R->geo.b;
	char me = n_to_move(b, s), other = me == 'b' ? 'o' : 'b';
	if (x < 0 && n_has_friendly(b, s) && s->declined == '-') {
		/* a single stone: declining, unless forced and forced=free */
		int fs[64 * 64], xs[64 * 64], pairs = 0;
		int k = n_moves(R, s, fs, xs);
		for (int i = 0; i < k; i++)
			pairs += xs[i] >= 0;
		if (pairs > 0 || R->forced_decline)
			s->declined = me;
	}
	s->cell[f] = me;
	if (x >= 0)
		s->cell[x] = 'n';
	int mine = naive_has_loop(&R->geo, s->cell, me);
	int theirs = naive_has_loop(&R->geo, s->cell, other);
	if (R->formed_mover && (mine || theirs))
		s->winner = me; /* formed=mover: the turn that formed a loop wins */
	else if (mine && theirs)
		s->winner = R->both_mover ? me : other;
	else if (mine)
		s->winner = me;
	else if (theirs)
		s->winner = other;
	else {
		int full = 1;
		for (int c = 0; c < b->ncells; c++)
			full &= s->cell[c] != '.';
		if (full)
			s->winner = s->declined == '-' ? 'd' : s->declined == 'b' ? 'o' : 'b';
	}
}

static enum bp_value n_outcome(const struct nrules *R, const struct nchicken *s)
{
	if (!s->winner)
		return BP_VALUE_NONE;
	if (s->winner == 'd')
		return BP_VALUE_DRAW;
	return s->winner == n_to_move(R->geo.b, s) ? BP_VALUE_WIN : BP_VALUE_LOSS;
}

static void n_text(const struct nrules *R, const struct nchicken *s, char *out)
{
	naive_rows(R->geo.b, s->cell, out);
	sprintf(out + strlen(out), " %c declined=%c", n_to_move(R->geo.b, s), s->declined);
}

/* Walks the game tree of both implementations in lockstep, comparing move lists,
 * outcomes and position text at every node of depth below `depth`; counts[d] gets
 * perft (the moves at depth - 1 are counted, not visited). */
static void lockstep(const struct bp_game *g, const struct nrules *R, const struct nchicken *s,
		     const struct bp_pos *p, int d, int depth, uint64_t *counts, int invariants)
{
	const struct bp_board *b = g->board;
	char text[512];
	n_text(R, s, text);
	cr_assert_str_eq(fmt_pos(g, p), text);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(R, s), "%s: outcome of '%s'", g->spec, text);
	if (invariants)
		check_position_invariants(g, p);
	static int fs[8][64 * 64], xs[8][64 * 64];
	static char names[8][64 * 64][40];
	static char *sorted[8][64 * 64], *nsorted[8][64 * 64];
	static char nnames[8][64 * 64][40];
	int n = n_moves(R, s, fs[d], xs[d]);
	int m = fast_move_strings(g, p, names[d], sorted[d]);
	counts[d + 1] += (uint64_t)n;
	cr_assert_eq(n, m, "%s: %d naive moves, %d fast in '%s'", g->spec, n, m, text);
	char a[16], c[16];
	for (int i = 0; i < n; i++) {
		if (xs[d][i] >= 0)
			snprintf(nnames[d][i], 40, "%s+%s", naive_cell_name(b, fs[d][i], a),
				 naive_cell_name(b, xs[d][i], c));
		else
			snprintf(nnames[d][i], 40, "%s", naive_cell_name(b, fs[d][i], a));
		nsorted[d][i] = nnames[d][i];
	}
	qsort(nsorted[d], (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(sorted[d][i], nsorted[d][i], "%s: move lists differ in '%s'",
				 g->spec, text);
	for (int i = 0; i < n && d + 1 < depth; i++) {
		struct nchicken t = *s;
		n_play(R, &t, fs[d][i], xs[d][i]);
		struct bp_move mv;
		struct bp_err err;
		cr_assert_eq(g->ops->move_parse(g, p, nnames[d][i], &mv, &err), BP_OK, "%s: %s",
			     nnames[d][i], err.msg);
		struct bp_pos q = *p;
		g->ops->apply(g, &q, mv);
		lockstep(g, R, &t, &q, d + 1, depth, counts, invariants);
	}
}

static void nrules_init(struct nrules *R, const struct bp_game *g)
{
	naive_geo_init(&R->geo, g->board, NULL);
	R->both_mover = strcmp(bp_game_option(g, "both"), "mover") == 0;
	R->forced_decline = strcmp(bp_game_option(g, "forced"), "decline") == 0;
	R->formed_mover = strcmp(bp_game_option(g, "formed"), "mover") == 0;
}

struct perft_case {
	char spec[64];
	int depth;
	int invariants;
};

ParameterizedTestParameters(chicken, perft_matches_naive)
{
	static struct perft_case cases[] = {
		{ "chicken:hex2", 8, 1 },
		{ "chicken:hex2,both=opponent,forced=free", 8, 1 },
		{ "chicken:hex2,formed=mover", 8, 1 },
		{ "chicken:tri3", 7, 1 },
		{ "chicken:rh3x2,forced=free", 7, 1 },
		{ "chicken:hex3", 3, 0 },
	};
	return cr_make_param_array(struct perft_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct perft_case *pc, chicken, perft_matches_naive)
{
	struct bp_game *g = open_game(pc->spec);
	struct nrules R;
	nrules_init(&R, g);
	struct nchicken s;
	memset(&s, 0, sizeof s);
	memset(s.cell, '.', sizeof s.cell);
	s.declined = '-';
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

/* Random games to the end on hex3, both implementations in lockstep. */
Test(chicken, random_games_match_naive)
{
	static const char *specs[] = { "chicken:hex3", "chicken:hex3,forced=free,both=opponent",
				       "chicken:rh8x8", "chicken:hex5",
				       "chicken:hex4,formed=mover" };
	unsigned seed = 20261121;
	printf("chicken random_games_match_naive: seed %u\n", seed);
	srand(seed);
	for (int v = 0; v < 5; v++) {
		struct bp_game *g = open_game(specs[v]);
		struct nrules R;
		nrules_init(&R, g);
		static int fs[64 * 64], xs[64 * 64];
		for (int game = 0; game < 25; game++) {
			struct nchicken s;
			memset(&s, 0, sizeof s);
			memset(s.cell, '.', sizeof s.cell);
			s.declined = '-';
			struct bp_pos p;
			g->ops->start(g, &p);
			for (;;) {
				uint64_t counts[2] = { 0 };
				lockstep(g, &R, &s, &p, 0, 1, counts, game < 5);
				int n = n_moves(&R, &s, fs, xs);
				if (!n)
					break;
				/* decline now and then, so both phases are played */
				int i = rand() % n;
				if (rand() % 8 == 0)
					i = n - 1 - rand() % (n < 3 ? n : 3);
				char name[40], a[16], c[16];
				if (xs[i] >= 0)
					snprintf(name, sizeof name, "%s+%s",
						 naive_cell_name(g->board, fs[i], a),
						 naive_cell_name(g->board, xs[i], c));
				else
					snprintf(name, sizeof name, "%s",
						 naive_cell_name(g->board, fs[i], a));
				struct bp_move mv;
				cr_assert_eq(g->ops->move_parse(g, &p, name, &mv, NULL), BP_OK);
				g->ops->apply(g, &p, mv);
				n_play(&R, &s, fs[i], xs[i]);
			}
		}
		bp_game_destroy(g);
	}
}

/* ---- hand-made positions ----------------------------------------------------- */

/* hex3 rows: a (3) b (4) c (5) d (4) e (3); c3 is the centre, its ring of six is
 * b2 b3 c2 c4 d2 d3. */
Test(chicken, smallest_loop_around_centre)
{
	/* black b2 b3 c2 c4 d2 + orange elsewhere; black closes with d3 */
	char res[2048];
	const char *pos = "o1o/1bb1/1b1b1/1b2/o1o o declined=o";
	cr_assert_eq(outcome_of("chicken:hex3", pos), BP_VALUE_NONE);
	/* orange to move: play somewhere harmless, then black closes */
	cr_assert_eq(after("chicken:hex3", pos, "a2", res), BP_VALUE_NONE);
	cr_assert_eq(after("chicken:hex3", res, "d3", NULL), BP_VALUE_LOSS,
		     "black's loop around c3: orange, to move, has lost");
}

Test(chicken, loop_encloses_any_cell_content)
{
	/* black's six around c3 enclose an orange stone: still a loop, black just moved */
	cr_expect_eq(outcome_of("chicken:hex3", "o1o/1bb1/1bob1/1bb1/o1o o declined=o"),
		     BP_VALUE_LOSS);
}

/* Rules version 2: the flower around c3 is a loop when c3 holds black's own stone
 * (seven cells in a flower) or a neutral stone, which version 1 did not count. */
Test(chicken, flower_around_own_stone_is_a_loop)
{
	const char *pos = "o1o/1bb1/obbb1/1b2/o1o o declined=o";
	char res[2048];
	cr_assert_eq(outcome_of("chicken:hex3", pos), BP_VALUE_NONE);
	cr_assert_eq(after("chicken:hex3", pos, "a2", res), BP_VALUE_NONE);
	cr_expect_eq(after("chicken:hex3", res, "d3", NULL), BP_VALUE_LOSS,
		     "black's seven-cell flower: orange, to move, has lost");
	cr_expect_eq(after("chicken:hex3", res, "e2", NULL), BP_VALUE_NONE,
		     "d3 still missing: no loop");
}

/* Orange's neutral on d3 closes black's flower b2 b3 c2(n) c4(n) d2 d3(n) around the
 * neutral c3. formed=owner: the loop is black's, and black, to move, has won;
 * formed=mover: orange's turn formed a loop, so orange has won. */
Test(chicken, neutral_closes_opponents_flower_both_formed_readings)
{
	const char *before = "n1o/1bb1/onnn1/1b2/3 o declined=-";
	cr_assert_eq(outcome_of("chicken:hex3", before), BP_VALUE_NONE);
	cr_expect_eq(after("chicken:hex3", before, "a2+d3", NULL), BP_VALUE_WIN);
	cr_expect_eq(after("chicken:hex3,formed=owner", before, "a2+d3", NULL), BP_VALUE_WIN);
	cr_expect_eq(after("chicken:hex3,formed=mover", before, "a2+d3", NULL), BP_VALUE_LOSS);
	/* a turn forming only the mover's own loop wins under both readings */
	const char *own = "o1o/1bb1/obbb1/1b2/o1o o declined=o";
	char res[2048];
	after("chicken:hex3,formed=mover", own, "a2", res);
	cr_expect_eq(after("chicken:hex3,formed=mover", res, "d3", NULL), BP_VALUE_LOSS);
}

Test(chicken, group_touching_edge_is_no_loop)
{
	/* a black chain along the top edge and down the side: no cell cut off */
	cr_expect_eq(outcome_of("chicken:hex3", "bbb/o2b/o3b/o2b/o1o o declined=o"), BP_VALUE_NONE);
}

/* hex4: the six around the centre d4 are c3 c4 d3 d5 e3 e4. Five neutrals stand
 * there; orange drops a friendly stone on a1, far from them, and the sixth neutral on
 * e3: a loop of neutrals only, which is a loop for both players. */
Test(chicken, loop_of_neutrals_only_forms_both)
{
	const char *before = "3b/4o/o1nn2/b1n1n1b/3n2/4b/n1o1 o declined=-";
	char res[2048];
	cr_assert_eq(outcome_of("chicken:hex4", before), BP_VALUE_NONE);
	cr_expect_eq(after("chicken:hex4", before, "a1+e3", res), BP_VALUE_LOSS,
		     "both=mover: orange, who made the turn, wins");
	cr_expect_str_eq(res, "o2b/4o/o1nn2/b1n1n1b/2nn2/4b/n1o1 b declined=-");
	cr_expect_eq(after("chicken:hex4,both=opponent", before, "a1+e3", NULL), BP_VALUE_WIN,
		     "both=opponent: black wins");
	/* six neutrals and too few turns to have dropped them: not a position */
	struct bp_game *g = open_game("chicken:hex3");
	struct bp_err err = { { 0 } };
	struct bp_pos p;
	cr_expect_eq(g->ops->pos_parse(g, "b2/1nn1/1n1n1/1nn1/o2 b declined=-", &p, &err),
		     BP_EPARSE);
	bp_game_destroy(g);
}

/* Orange's neutral on d3 closes black's ring b2 b3 c2 c4 d2 d3 (black stones and
 * neutrals) around c3, and no loop of orange: black, now to move, has won. */
Test(chicken, neutral_forms_opponents_loop)
{
	const char *before = "n1o/1bb1/on1n1/1b2/n2 o declined=-";
	cr_assert_eq(outcome_of("chicken:hex3", before), BP_VALUE_NONE);
	cr_expect_eq(after("chicken:hex3", before, "a2+d3", NULL), BP_VALUE_WIN);
}

Test(chicken, pair_must_not_join_one_group)
{
	struct bp_game *g = open_game("chicken:hex3");
	struct bp_pos p = parse_pos(g, "b2/4/5/4/3 o declined=-");
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	/* adjacent friendly and neutral: one group */
	cr_expect_eq(g->ops->move_parse(g, &p, "c3+c4", &mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "one group"), "%s", err.msg);
	/* joined through an existing neutral */
	struct bp_pos q = parse_pos(g, "bo1/1n2/5/4/3 b declined=-");
	cr_expect_eq(g->ops->move_parse(g, &q, "b1+b3", &mv, &err), BP_EILLEGAL, "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &q, "b1+e3", &mv, &err), BP_OK, "%s", err.msg);
	/* the first turn is a single black stone */
	struct bp_pos s;
	g->ops->start(g, &s);
	cr_expect_eq(g->ops->move_parse(g, &s, "a1+e3", &mv, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->move_parse(g, &s, "a1", &mv, &err), BP_OK);
	g->ops->apply(g, &s, mv);
	cr_expect_str_eq(fmt_pos(g, &s), "b2/4/5/4/3 o declined=-",
			 "the first stone is no decline");
	bp_game_destroy(g);
}

Test(chicken, declining_ends_neutrals)
{
	char res[2048];
	cr_assert_eq(after("chicken:hex3", "b2/4/5/4/3 o declined=-", "e3", res), BP_VALUE_NONE);
	cr_expect_str_eq(res, "b2/4/5/4/2o b declined=o");
	struct bp_game *g = open_game("chicken:hex3");
	struct bp_pos p = parse_pos(g, res);
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "a2+c3", &mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "declined"), "%s", err.msg);
	struct bp_move buf[400];
	cr_expect_eq(g->ops->moves(g, &p, buf), 17, "singles only after a decline");
	bp_game_destroy(g);
}

/* tri3 (a1 a2 a3 / b1 b2 / c1) has no inner cell, so no loop. */
Test(chicken, forced_decline_both_readings)
{
	/* one empty cell left: no pair, so the single stone is forced */
	const char *pos = "bnb/on/1 o declined=-";
	char res[2048];
	cr_assert_eq(outcome_of("chicken:tri3", pos), BP_VALUE_NONE);
	cr_expect_eq(after("chicken:tri3", pos, "c1", res), BP_VALUE_WIN,
		     "forced=decline: orange declined first and loses the full board");
	cr_expect_str_eq(res, "bnb/on/o b declined=o");
	cr_expect_eq(after("chicken:tri3,forced=free", pos, "c1", res), BP_VALUE_DRAW,
		     "forced=free: nobody declined");
	cr_expect_str_eq(res, "bnb/on/o b declined=-");
	/* three empty cells, pairwise adjacent: every pair joins one group */
	const char *tri = "2b/1n/o b declined=-";
	struct bp_game *g = open_game("chicken:tri3");
	struct bp_pos p = parse_pos(g, tri);
	struct bp_move mv[64];
	cr_expect_eq(g->ops->moves(g, &p, mv), 3, "singles only");
	bp_game_destroy(g);
	after("chicken:tri3", tri, "a1", res);
	cr_expect_str_eq(res, "b1b/1n/o o declined=b");
	after("chicken:tri3,forced=free", tri, "a1", res);
	cr_expect_str_eq(res, "b1b/1n/o o declined=-");
}

Test(chicken, full_board_rules)
{
	/* full board without a loop: the first decliner loses; nobody: a draw */
	struct bp_game *g = open_game("chicken:tri2");
	/* tri2: a1 a2 / b1, all edge cells: no loop is possible */
	struct bp_pos p = parse_pos(g, "bo/b o declined=o");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_LOSS, "orange declined first and is to move");
	p = parse_pos(g, "bo/n b declined=-");
	cr_expect_eq(g->ops->outcome(g, &p), BP_VALUE_DRAW);
	struct bp_move mv[8];
	cr_expect_eq(g->ops->moves(g, &p, mv), 0);
	bp_game_destroy(g);
}

/* ---- malformed positions ----------------------------------------------------- */

struct bad_case {
	char spec[48];
	char text[80];
	char needle[40]; /* part of the message */
};

ParameterizedTestParameters(chicken, malformed)
{
	static struct bad_case cases[] = {
		{ "chicken:hex2", "bb/3/2 o declined=-", "2 black and 0 orange" },
		{ "chicken:hex2", "b1/3/2 b declined=-", "side to move is b" },
		{ "chicken:hex2", "bo/3/2 b declined=-", "declined=- but only 0 neutral" },
		{ "chicken:hex2", "bo/n2/2 b declined=o", "does not fit" },
		{ "chicken:hex2", "bo/nn1/2 b declined=-", "2 neutral stones but only 1" },
		{ "chicken:hex2", "2/3/2 b declined=b", "empty board" },
		{ "chicken:hex2", "bo/n2/2 b", "missing key 'declined'" },
		{ "chicken:hex2", "bo/n2/2 b declined=x", "declined=x" },
		{ "chicken:hex2", "bo/n2/2 x declined=-", "side to move 'x'" },
		{ "chicken:hex2", "bo/n2/2 b declined=- last=b", "unknown key 'last'" },
		{ "chicken:hex2", "bo/n2/1 b declined=-", "row c has 1 cells" },
		{ "chicken:hex2", "bz/n2/2 b declined=-", "unknown cell character" },
		{ "chicken:hex2", "bo/nbo/2 b declined=o", "does not fit" },
		{ "chicken:hex2,forced=free", "bo/n2/2 b declined=o", "no later turn" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, chicken, malformed)
{
	expect_malformed(bc->spec, bc->text, bc->needle);
}

Test(chicken, forced_free_accepts_fewer_neutrals)
{
	/* under forced=free a forced single keeps declined=-, so fewer neutrals fit */
	struct bp_game *g = open_game("chicken:hex2,forced=free");
	struct bp_pos p;
	cr_expect_eq(g->ops->pos_parse(g, "bo/3/2 b declined=-", &p, NULL), BP_OK);
	bp_game_destroy(g);
}

Test(chicken, moves_errors)
{
	struct bp_game *g = open_game("chicken:hex2");
	struct bp_pos p = parse_pos(g, "b1/3/2 o declined=-");
	struct bp_move mv;
	struct bp_err err = { { 0 } };
	cr_expect_eq(g->ops->move_parse(g, &p, "a1", &mv, &err), BP_EILLEGAL);
	cr_expect(strstr(err.msg, "occupied"), "%s", err.msg);
	cr_expect_eq(g->ops->move_parse(g, &p, "a2+a2", &mv, &err), BP_EILLEGAL);
	cr_expect_eq(g->ops->move_parse(g, &p, "z9", &mv, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "a2-b1", &mv, &err), BP_EPARSE);
	cr_expect_eq(g->ops->move_parse(g, &p, "c2+a2", &mv, &err), BP_OK, "%s", err.msg);
	struct bp_text t = { 0 };
	g->ops->move_format(g, &p, mv, &t);
	cr_expect_str_eq(bp_text_str(&t), "c2+a2");
	bp_text_free(&t);
	bp_game_destroy(g);
}

Test(chicken, spec_errors)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_expect_eq(bp_game_create("chicken:4x4", &g, &err), BP_ESPEC);
	cr_expect_eq(bp_game_create("chicken:hex7", &g, &err), BP_ESPEC);
	cr_expect(strstr(err.msg, "at most 64"), "%s", err.msg);
	cr_expect_eq(bp_game_create("chicken:hex3,forced=maybe", &g, &err), BP_ESPEC);
}

/* ---- ranking -------------------------------------------------------------------- */

/* Every index of the small tiers of hex2 either unranks to a valid position that
 * ranks back to it, or is a hole. */
Test(chicken, rank_unrank_every_index)
{
	struct bp_game *g = open_game("chicken:hex2");
	expect_rank_round_trip(g, UINT32_MAX, 1);
	bp_game_destroy(g);
}

/* ---- every reachable position of small instances -------------------------------- */

#define SET_CAP (1u << 18)

/* Every reachable position once: naive outcome, naive moves as text, and each
 * naive child equal to the fast child (text and outcome); then the enumeration of
 * `count` finds the same number of positions and of canonical forms. */
static void visit_all(const struct bp_game *g, const struct nrules *R, struct pos_set *seen,
		      const struct bp_pos *p, const struct nchicken *s)
{
	if (!set_insert(seen, p))
		return;
	check_position_invariants(g, p);
	static int depth;
	static int fs[16][64 * 64], xs[16][64 * 64];
	static char names[16][64 * 64][40];
	static char *sorted[16][64 * 64], *nsorted[16][64 * 64];
	static char nnames[16][64 * 64][40];
	int d = depth;
	cr_assert_lt(d, 16);
	char text[512];
	n_text(R, s, text);
	cr_assert_str_eq(fmt_pos(g, p), text);
	cr_assert_eq(g->ops->outcome(g, p), n_outcome(R, s), "%s: outcome of '%s'", g->spec, text);
	int n = n_moves(R, s, fs[d], xs[d]);
	int m = fast_move_strings(g, p, names[d], sorted[d]);
	cr_assert_eq(n, m, "%s: move count of '%s'", g->spec, text);
	char a[16], c[16];
	for (int i = 0; i < n; i++) {
		if (xs[d][i] >= 0)
			snprintf(nnames[d][i], 40, "%s+%s", naive_cell_name(g->board, fs[d][i], a),
				 naive_cell_name(g->board, xs[d][i], c));
		else
			snprintf(nnames[d][i], 40, "%s", naive_cell_name(g->board, fs[d][i], a));
		nsorted[d][i] = nnames[d][i];
	}
	qsort(nsorted[d], (size_t)n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++)
		cr_assert_str_eq(sorted[d][i], nsorted[d][i], "%s: moves of '%s'", g->spec, text);
	for (int i = 0; i < n; i++) {
		struct nchicken t = *s;
		n_play(R, &t, fs[d][i], xs[d][i]);
		struct bp_move mv;
		cr_assert_eq(g->ops->move_parse(g, p, nnames[d][i], &mv, NULL), BP_OK);
		struct bp_pos q = *p;
		g->ops->apply(g, &q, mv);
		depth++;
		visit_all(g, R, seen, &q, &t);
		depth--;
	}
}

ParameterizedTestParameters(chicken, every_reachable_position)
{
	static char specs[][64] = { "chicken:hex2",
				    "chicken:hex2,forced=free,both=opponent",
				    "chicken:hex2,formed=mover",
				    "chicken:tri3",
				    "chicken:rh2x4,forced=free",
				    "chicken:rh3x3,formed=mover" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[64], chicken, every_reachable_position)
{
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	struct pos_set seen;
	pos_set_init(&seen, SET_CAP);
	struct nchicken s;
	memset(&s, 0, sizeof s);
	memset(s.cell, '.', sizeof s.cell);
	s.declined = '-';
	struct bp_pos p;
	g->ops->start(g, &p);
	visit_all(g, &R, &seen, &p, &s);
	expect_enumeration_matches(g, &seen);
	pos_set_free(&seen);
	bp_game_destroy(g);
}

/* ---- the naive minimax against every solver ------------------------------------- */

static int nc_children(const void *rules, const void *state, void *out)
{
	const struct nrules *R = rules;
	static int fs[64 * 64], xs[64 * 64];
	int n = n_moves(R, state, fs, xs);
	struct nchicken *kids = out;
	for (int i = 0; i < n; i++) {
		kids[i] = *(const struct nchicken *)state;
		n_play(R, &kids[i], fs[i], xs[i]);
	}
	return n;
}

static enum bp_value nc_outcome(const void *rules, const void *state)
{
	return n_outcome(rules, state);
}

static void nc_text(const void *rules, const void *state, char *out)
{
	n_text(rules, state, out);
}

ParameterizedTestParameters(chicken, naive_minimax_agrees_with_every_solver)
{
	static char specs[][64] = { "chicken:hex2",
				    "chicken:hex2,formed=mover",
				    "chicken:hex2,both=opponent,forced=free",
				    "chicken:tri3",
				    "chicken:tri4",
				    "chicken:tri4,formed=mover" };
	return cr_make_param_array(char[64], specs, sizeof specs / sizeof specs[0]);
}

/* Every position reachable under the naive rules has, in the tables of the tiered
 * and the level-pass solvers, the value and remoteness of a naive minimax. */
ParameterizedTest(char (*spec)[64], chicken, naive_minimax_agrees_with_every_solver)
{
	struct bp_game *g = open_game(*spec);
	struct nrules R;
	nrules_init(&R, g);
	struct nchicken s;
	memset(&s, 0, sizeof s);
	memset(s.cell, '.', sizeof s.cell);
	s.declined = '-';
	struct naive_game ng = { .size = sizeof s,
				 .max_children = g->board->ncells * g->board->ncells,
				 .rules = &R,
				 .children = nc_children,
				 .outcome = nc_outcome,
				 .text = nc_text };
	size_t n = naive_check_solvers(g, &ng, &s, 1u << 19);
	printf("%s: %zu positions agree with the naive minimax\n", *spec, n);
	bp_game_destroy(g);
}

/* ---- the children of one node (proof-number search's kids ops) ---------------- */

/* kids_child after kids_node must make exactly what apply makes, give outcome()'s
 * value and return exactly sym_hash_move's key, for every move of a position, in any order and asked
 * more than once (the pair memos fill in the order of asking): positions along seeded
 * random games of every reading, both phases (pairs and, after a decline, singles),
 * up to full boards. */
Test(chicken, kids_child_same_as_apply_outcome_and_sym_hash_move)
{
	static const char *specs[] = { "chicken:hex3",
				       "chicken:hex3,forced=free,both=opponent",
				       "chicken:hex3,formed=mover",
				       "chicken:hex4",
				       "chicken:hex4,forced=free",
				       "chicken:rh5x5",
				       "chicken:tri5",
				       "chicken:hex5,both=opponent" };
	unsigned seed = 20261128;
	printf("chicken kids_child_same_as_apply_outcome_and_sym_hash_move: seed %u\n", seed);
	srand(seed);
	uint64_t children = 0, over = 0, full = 0;
	for (size_t v = 0; v < sizeof specs / sizeof specs[0]; v++) {
		struct bp_game *g = open_game(specs[v]);
		cr_assert(g->ops->kids_node && g->ops->kids_child);
		void *ctx = malloc(g->ops->kids_ctx_size);
		struct bp_move *mv = bp_game_move_buffer(g);
		int *order = malloc(sizeof *order * (size_t)g->max_moves * 2);
		const int nc = g->board->ncells;
		const uint64_t all = nc == 64 ? ~0ull : (1ull << nc) - 1;
		cr_assert(ctx && mv && order);
		for (int game = 0; game < 40; game++) {
			struct bp_pos p;
			g->ops->start(g, &p);
			while (g->ops->outcome(g, &p) == BP_VALUE_NONE) {
				uint64_t h[BP_GAME_SYM_HASH_MAX];
				g->ops->sym_hash(g, &p, h);
				int n = g->ops->moves(g, &p, mv);
				cr_assert(n > 0);
				/* every move once in a random order, then a few again */
				for (int i = 0; i < n; i++)
					order[i] = i;
				for (int i = n - 1; i > 0; i--) {
					int j = rand() % (i + 1), t = order[i];
					order[i] = order[j];
					order[j] = t;
				}
				int asks = n + n / 4;
				for (int i = n; i < asks; i++)
					order[i] = rand() % n;
				g->ops->kids_node(g, &p, ctx);
				for (int i = 0; i < asks; i++) {
					char what[96];
					snprintf(what, sizeof what, "%s game %d", specs[v], game);
					struct bp_pos want = expect_kids_child(g, ctx, &p, h,
									       mv[order[i]], what);
					children++;
					over += g->ops->outcome(g, &want) != BP_VALUE_NONE;
					full += (want.w[0] | want.w[1] | want.w[2]) == all;
				}
				/* play on: now and then a single, so both phases are met,
				 * except in every fourth game, which plays pairs while it can
				 * (boards filled by a pair) */
				int pairs = 0;
				while (pairs < n && mv[pairs].v >> 16 & 1)
					pairs++;
				int i = rand() % n;
				if (game % 4 == 0 && pairs)
					i = rand() % pairs;
				else if (rand() % 8 == 0)
					i = n - 1 - rand() % (n < 3 ? n : 3);
				g->ops->apply(g, &p, mv[i]);
			}
		}
		free(order);
		free(mv);
		free(ctx);
		bp_game_destroy(g);
	}
	printf("chicken kids ops: %llu children, %llu of them over, %llu full\n",
	       (unsigned long long)children, (unsigned long long)over, (unsigned long long)full);
	cr_expect(over > 1000);
	cr_expect(full > 100);
}

/* canonical_mask (the tier walk's visits, bp_game_walk_mask) agrees on every index of
 * small boards with the naive holes: unrank() accepts the index and canonical() leaves
 * the position as it is; over whole tiers and seeded random ranges. */
Test(chicken, canonical_mask_matches_naive)
{
	const char *specs[] = { "chicken:hex2", "chicken:tri4", "chicken:tri4,forced=free" };
	uint64_t state = 20261128;
	printf("chicken.canonical_mask_matches_naive: seed %llu\n", (unsigned long long)state);
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		struct bp_game *g = open_game(specs[s]);
		expect_canonical_mask_tiers(g, specs[s], naive_valid_canonical, &state);
		bp_game_destroy(g);
	}
}
