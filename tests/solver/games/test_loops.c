/* SPDX-License-Identifier: MIT */
/* Loops (RULES.md section 3, solver/games/loops.c): the bitboard check against the
 * naive breadth-first one on random sets with and without rings, the local filter
 * that skips the full check, the ring's geometry, loop groups against the per-player
 * reading, and hand-made sets for each case of section 3 (rules version 2). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "naive_loops.h"
#include "solver/games/loops.h"

struct ring_case {
	char board[16];
	char ring[64]; /* "" for none */
};

ParameterizedTestParameters(loops, random_sets_match_naive)
{
	static struct ring_case cases[] = {
		{ "hex2", "" },
		{ "hex3", "" },
		{ "hex4", "" },
		{ "hex5", "" },
		{ "tri6", "" },
		{ "rh5x6", "" },
		{ "rh8x8", "" },
		{ "tri10", "" },
		{ "hex2", "bbyybbyybbyy" },
		{ "hex3", "bbbyyybbbyyybbbyyy" },
		{ "hex3", "bybybybybybybybyby" },
		{ "hex4", "bbbbyyyybbbbyyyybbbbyyyy" },
		{ "hex5", "bbbbbbbbbbbbbbbyyyyyyyyyyyyyyy" },
	};
	return cr_make_param_array(struct ring_case, cases, sizeof cases / sizeof cases[0]);
}

/* bp_loops_may_close as it was first written (a branch per direction on its kind),
 * kept to check that the branch-free gather gives exactly its answers. */
static int may_close_reference(const struct bp_loops *L, int player, uint64_t g, int c)
{
	unsigned in = L->fixed_in[player][c];
	const uint8_t *to = L->around[c];
	for (int d = 0; d < 6; d++)
		if (to[d] < BP_LOOPS_RING)
			in |= (unsigned)(g >> to[d] & 1) << d;
	if (L->multi_arc[in] || in == 63)
		return 1;
	uint64_t after = g | 1ull << c;
	for (uint64_t x = g & L->nb[c] & ~L->open[player]; x; x &= x - 1)
		if (!(L->nb[__builtin_ctzll(x)] & ~after))
			return 1;
	return 0;
}

/* Player 0 is 'y' and player 1 is 'b', as in revised Glorieta. */
ParameterizedTest(struct ring_case *rc, loops, random_sets_match_naive)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(rc->board, &b, NULL), BP_OK);
	struct bp_loops *L = malloc(sizeof *L);
	uint8_t owners[64];
	int nring = (int)strlen(rc->ring);
	for (int i = 0; i < nring; i++)
		owners[i] = rc->ring[i] == 'b';
	cr_assert_eq(bp_loops_init(L, b, nring ? owners : NULL), BP_OK);
	cr_assert_eq(L->nring, nring);
	struct naive_geo geo;
	naive_geo_init(&geo, b, nring ? rc->ring : NULL);
	unsigned seed = 99;
	printf("loops random_sets_match_naive %s %s: seed %u\n", rc->board, rc->ring, seed);
	srand(seed);
	int loops = 0, filtered = 0;
	for (int trial = 0; trial < 3000; trial++) {
		int density = 30 + rand() % 50; /* percent */
		uint64_t g = 0;
		char cells[64];
		for (int c = 0; c < b->ncells; c++) {
			int in = rand() % 100 < density;
			g |= (uint64_t)in << c;
			cells[c] = in ? 'y' : '.';
		}
		for (int pl = 0; pl < 2; pl++) {
			char letter = "yb"[pl];
			for (int c = 0; c < b->ncells; c++)
				cells[c] = g >> c & 1 ? letter : '.';
			int fast = bp_loops_enclosed(L, pl, g) != 0;
			int naive = naive_has_loop(&geo, cells, letter);
			cr_assert_eq(fast, naive, "%s ring '%s' player %d set %llx", rc->board,
				     rc->ring, pl, (unsigned long long)g);
			loops += fast;
			if (fast)
				continue;
			/* the filter never skips a cell whose addition makes a loop */
			for (int c = 0; c < b->ncells; c++) {
				if (g >> c & 1)
					continue;
				int after = bp_loops_enclosed(L, pl, g | 1ull << c) != 0;
				int may = bp_loops_may_close(L, pl, g, c);
				cr_assert(may || !after, "%s: filter skipped a loop at cell %d",
					  rc->board, c);
				cr_assert_eq(may, may_close_reference(L, pl, g, c),
					     "%s ring '%s' player %d set %llx cell %d", rc->board,
					     rc->ring, pl, (unsigned long long)g, c);
				filtered += !may;
				cr_assert_eq(bp_loops_closes(L, pl, g, c), after);
			}
		}
	}
	cr_expect_gt(loops, 100, "too few loops to mean anything");
	cr_expect_gt(filtered, 1000, "the filter never helps");
	free(L);
	bp_board_destroy(b);
}

ParameterizedTestParameters(loops, closes_in_matches_naive)
{
	static struct ring_case cases[] = {
		{ "hex2", "" }, { "hex3", "" },	 { "hex4", "" },  { "hex5", "" },
		{ "tri6", "" }, { "rh5x6", "" }, { "rh8x8", "" }, { "tri10", "" },
	};
	return cr_make_param_array(struct ring_case, cases, sizeof cases / sizeof cases[0]);
}

/* bp_loops_closes_in (the groups of one loop-free set, no flood of the free cells)
 * against the naive breadth-first check and bp_loops_enclosed, for every empty cell of
 * loop-free sets grown one random cell at a time (a cell that would close a loop is
 * skipped), from sparse to as full as loop-free sets get; the cells asked in a random
 * order, some twice, since the groups are flooded when first needed. */
ParameterizedTest(struct ring_case *rc, loops, closes_in_matches_naive)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(rc->board, &b, NULL), BP_OK);
	struct bp_loops *L = malloc(sizeof *L);
	struct bp_loops_groups *G = malloc(sizeof *G);
	cr_assert_eq(bp_loops_init(L, b, NULL), BP_OK);
	struct naive_geo geo;
	naive_geo_init(&geo, b, NULL);
	unsigned seed = 20261128;
	printf("loops closes_in_matches_naive %s: seed %u\n", rc->board, seed);
	srand(seed);
	const int n = b->ncells;
	int loops = 0, asked = 0;
	for (int trial = 0; trial < 300; trial++) {
		uint64_t g = 0;
		int pl = trial & 1;
		for (int step = 0; step < 4 * n; step++) {
			int add = rand() % n;
			if (g >> add & 1 || bp_loops_enclosed(L, pl, g | 1ull << add))
				continue;
			g |= 1ull << add;
			if (rand() % 3)
				continue;
			bp_loops_groups_init(L, pl, g, G);
			int order[128], k = 0;
			for (int c = 0; c < n; c++)
				if (!(g >> c & 1))
					order[k++] = c;
			for (int i = k - 1; i > 0; i--) {
				int j = rand() % (i + 1), t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
			for (int i = 0, m = k; i < m / 4; i++)
				order[k++] = order[rand() % m];
			for (int i = 0; i < k; i++) {
				int c = order[i];
				char cells[64];
				for (int x = 0; x < n; x++)
					cells[x] = (g | 1ull << c) >> x & 1 ? 'y' : '.';
				int naive = naive_has_loop(&geo, cells, 'y');
				cr_assert_eq(bp_loops_enclosed(L, pl, g | 1ull << c) != 0, naive);
				cr_assert_eq(bp_loops_closes_in(L, G, c), naive,
					     "%s set %llx cell %d", rc->board,
					     (unsigned long long)g, c);
				loops += naive;
				asked++;
			}
		}
	}
	printf("%s: %d cells asked, %d loops\n", rc->board, asked, loops);
	cr_expect_gt(loops, 100, "too few loops to mean anything");
	free(G);
	free(L);
	bp_board_destroy(b);
}

Test(loops, ring_geometry)
{
	/* 6N spaces at distance N, each adjacent to the next, starting at (0, -N) */
	for (int n = 2; n <= 5; n++)
		for (int i = 0; i < 6 * n; i++) {
			int q, r, q2, r2;
			bp_loops_ring_coord(n, i, &q, &r);
			bp_loops_ring_coord(n, (i + 1) % (6 * n), &q2, &r2);
			int s = -q - r;
			cr_expect_eq((abs(q) + abs(r) + abs(s)) / 2, n);
			int dq = q2 - q, dr = r2 - r;
			int adjacent = (abs(dq) + abs(dr) + abs(dq + dr)) == 2;
			cr_expect(adjacent, "hex%d ring %d and %d", n, i, i + 1);
			if (i == 0)
				cr_expect(q == 0 && r == -n);
		}
}

Test(loops, smallest_loops_and_groups)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("hex3", &b, NULL), BP_OK);
	struct bp_loops L;
	cr_assert_eq(bp_loops_init(&L, b, NULL), BP_OK);
	/* the six around c3 (cell 9): b2 b3 c2 c4 d2 d3 = cells 4 5 8 10 13 14 */
	uint64_t six = 1ull << 4 | 1ull << 5 | 1ull << 8 | 1ull << 10 | 1ull << 13 | 1ull << 14;
	cr_expect_eq(bp_loops_enclosed(&L, 0, six), 1ull << 9);
	cr_expect_eq(bp_loops_enclosed(&L, 0, six & ~(1ull << 14)), 0, "five are no loop");
	cr_expect_eq(bp_loops_enclosed(&L, 0, six | 1ull << 9), 1ull << 9,
		     "rules version 2: the flower's centre is surrounded by its own stones");
	uint64_t cells;
	cr_expect_eq(bp_loops_loop_groups(&L, 0, six | 1ull << 0, &cells), 1);
	cr_expect_eq(cells, six | 1ull << 0, "a1 touches b2: it is part of the loop group");
	/* the whole edge ring encloses the seven inner cells */
	uint64_t edge = L.edge;
	cr_expect_eq(bp_loops_enclosed(&L, 1, edge), L.full & ~edge);
	cr_expect_eq(bp_loops_loop_groups(&L, 1, edge, &cells), 1);
	bp_board_destroy(b);
}

/* hex3, drawn with cell indices:
 *
 *         a1  a2  a3                0  1  2
 *       b1  b2  b3  b4            3  4  5  6
 *     c1  c2  c3  c4  c5        7  8  9 10 11
 *       d1  d2  d3  d4           12 13 14 15
 *         e1  e2  e3               16 17 18
 *
 * Every case of RULES.md section 3 (version 2), by hand: a flower around c3 is a loop
 * whatever c3 holds (empty, the opponent's stone, the group's own stone, a neutral),
 * and not with a petal missing; a ring of one colour encloses an edge cell, even one
 * holding the group's own stone; a board full of neutral stones holds a loop. */
#define BIT(c) (1ull << (c))
static const uint64_t petals = BIT(4) | BIT(5) | BIT(8) | BIT(10) | BIT(13) | BIT(14);

Test(loops, section3_flower_whatever_the_centre_holds)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("hex3", &b, NULL), BP_OK);
	struct bp_loops L;
	cr_assert_eq(bp_loops_init(&L, b, NULL), BP_OK);
	/* the group set is the player's stones and neutrals: an empty or opponent-held
	 * centre is outside it, an own or neutral centre inside it */
	cr_expect_eq(bp_loops_enclosed(&L, 0, petals), BIT(9), "empty or opponent centre");
	cr_expect_eq(bp_loops_enclosed(&L, 0, petals | BIT(9)), BIT(9),
		     "own or neutral centre: surrounded by the group's own stones");
	for (int missing = 0; missing < 64; missing++) {
		if (!(petals >> missing & 1))
			continue;
		uint64_t five = petals & ~BIT(missing);
		cr_expect_eq(bp_loops_enclosed(&L, 0, five), 0, "petal %d missing", missing);
		cr_expect_eq(bp_loops_enclosed(&L, 0, five | BIT(9)), 0,
			     "petal %d missing, centre held", missing);
		/* the last petal closes it, centre empty or held */
		cr_expect(bp_loops_closes(&L, 0, five, missing));
		cr_expect(bp_loops_closes(&L, 0, five | BIT(9), missing));
	}
	/* the centre dropped last into its own flower closes the loop too */
	cr_expect(bp_loops_closes(&L, 0, petals & ~BIT(9), 9));
	uint64_t cells;
	cr_expect_eq(bp_loops_loop_groups(&L, 0, petals | BIT(9), &cells), 1);
	cr_expect_eq(cells, petals | BIT(9));
	/* a full board of neutral stones: every inner cell surrounded, for both players */
	cr_expect_eq(bp_loops_enclosed(&L, 0, L.full), L.full & ~L.edge);
	cr_expect_eq(bp_loops_enclosed(&L, 1, L.full), L.full & ~L.edge);
	/* a solid edge-touching blob with no inner cell of its own: no loop */
	cr_expect_eq(bp_loops_enclosed(&L, 0, BIT(0) | BIT(1) | BIT(3) | BIT(4)), 0);
	bp_board_destroy(b);
}

/* With the ring of RULES.md section 6 (ring=sides on hex3: spaces 0-2 black, 3-5
 * yellow, ...; player 0 yellow, 1 black), b1 touches spaces 16 and 17, both yellow.
 * Yellow on b1's four board neighbours a1 b2 c1 c2 encloses b1 through the ring
 * whatever b1 holds; with a black space there (ring=alt) it does not. */
Test(loops, section3_ring_encloses_edge_cell)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("hex3", &b, NULL), BP_OK);
	uint8_t sides[18], alt[18];
	for (int i = 0; i < 18; i++) {
		sides[i] = (uint8_t)((i / 3) % 2 == 0); /* black runs first */
		alt[i] = (uint8_t)(i % 2 == 0);
	}
	struct bp_loops L, A;
	cr_assert_eq(bp_loops_init(&L, b, sides), BP_OK);
	cr_assert_eq(bp_loops_init(&A, b, alt), BP_OK);
	uint64_t around = BIT(0) | BIT(4) | BIT(7) | BIT(8);
	cr_expect_eq(bp_loops_enclosed(&L, 0, around), BIT(3), "b1 empty");
	cr_expect_eq(bp_loops_enclosed(&L, 0, around | BIT(3)), BIT(3), "b1 yellow's own");
	cr_expect_eq(bp_loops_enclosed(&L, 1, around), 0, "black has no such ring");
	cr_expect_eq(bp_loops_enclosed(&A, 0, around), 0, "alt: one space is black");
	cr_expect_eq(bp_loops_enclosed(&A, 0, around | BIT(3)), 0);
	/* the ring alone: b1 with no stones is open (its board neighbours lead out) */
	cr_expect_eq(bp_loops_enclosed(&L, 0, 0), 0);
	/* a ring of one colour holds a loop on the empty board */
	uint8_t mono[18] = { 0 };
	struct bp_loops M;
	cr_assert_eq(bp_loops_init(&M, b, mono), BP_OK);
	cr_expect_eq(bp_loops_enclosed(&M, 0, 0), M.full, "yellow's ring surrounds the board");
	cr_expect_eq(bp_loops_enclosed(&M, 1, 0), 0);
	bp_board_destroy(b);
}

/* Loops per group (bp_loops_loop_groups, each group judged alone) and per player (the
 * union of the player's groups) are two readings of section 3; they must agree on
 * every set: a player has a loop exactly when one of their groups is one. */
Test(loops, per_group_and_per_player_agree)
{
	static const char *const boards[] = { "hex3", "hex4", "tri6", "rh4x5" };
	unsigned seed = 20261124;
	printf("loops per_group_and_per_player_agree: seed %u\n", seed);
	srand(seed);
	for (int k = 0; k < 5; k++) {
		struct bp_board *b;
		cr_assert_eq(bp_board_create(k < 4 ? boards[k] : "hex4", &b, NULL), BP_OK);
		uint8_t ring[24];
		for (int i = 0; i < 24; i++)
			ring[i] = (uint8_t)((i / 4) % 2);
		struct bp_loops L;
		cr_assert_eq(bp_loops_init(&L, b, k == 4 ? ring : NULL), BP_OK);
		int loops = 0;
		for (int trial = 0; trial < 4000; trial++) {
			uint64_t g = 0;
			int density = 30 + rand() % 60;
			for (int c = 0; c < b->ncells; c++)
				g |= (uint64_t)(rand() % 100 < density) << c;
			for (int pl = 0; pl < 2; pl++) {
				uint64_t cells;
				int groups = bp_loops_loop_groups(&L, pl, g, &cells);
				int player = bp_loops_enclosed(&L, pl, g) != 0;
				cr_assert_eq(groups > 0, player, "%s player %d set %llx", b->name,
					     pl, (unsigned long long)g);
				cr_assert_eq(cells & ~g, 0);
				loops += player;
			}
		}
		cr_expect_gt(loops, 200);
		cr_expect_lt(loops, 7800);
		bp_board_destroy(b);
	}
}
