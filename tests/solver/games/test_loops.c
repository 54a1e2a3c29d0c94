/* SPDX-License-Identifier: MIT */
/* Loops (RULES.md section 3, solver/games/loops.c): the bitboard check against the
 * naive breadth-first one on random sets with and without rings, the local filter
 * that skips the full check, the ring's geometry, and loop groups. */
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
	cr_expect_eq(bp_loops_enclosed(&L, 0, six | 1ull << 9), 0,
		     "a solid group encloses no cell outside itself");
	uint64_t cells;
	cr_expect_eq(bp_loops_loop_groups(&L, 0, six | 1ull << 0, &cells), 1);
	cr_expect_eq(cells, six | 1ull << 0, "a1 touches b2: it is part of the loop group");
	/* the whole edge ring encloses the seven inner cells */
	uint64_t edge = L.edge;
	cr_expect_eq(bp_loops_enclosed(&L, 1, edge), L.full & ~edge);
	cr_expect_eq(bp_loops_loop_groups(&L, 1, edge, &cells), 1);
	bp_board_destroy(b);
}
