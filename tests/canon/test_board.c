/* SPDX-License-Identifier: MIT */
/* Board geometry: cell counts, degree census, names, symmetry groups. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "canon/board.h"
#include "canon/symmetry.h"

struct shape_case {
	char name[16];
	int cells, rows, nsym;
	int degrees[7]; /* how many cells have 0..6 neighbours */
};

ParameterizedTestParameters(board, census)
{
	static struct shape_case cases[] = {
		/* hexN: 3N(N-1)+1 cells; corners 3 neighbours, other edge cells 4, inside 6 */
		{ "hex2", 7, 3, 12, { 0, 0, 0, 6, 0, 0, 1 } },
		{ "hex3", 19, 5, 12, { 0, 0, 0, 6, 6, 0, 7 } },
		{ "hex5", 61, 9, 12, { 0, 0, 0, 6, 18, 0, 37 } },
		{ "hex7", 127, 13, 12, { 0, 0, 0, 6, 30, 0, 91 } },
		/* triN: corners 2 (tip) or 3..., see the drawing in canon/board.h */
		{ "tri2", 3, 2, 6, { 0, 0, 3, 0, 0, 0, 0 } },
		{ "tri3", 6, 3, 6, { 0, 0, 3, 0, 3, 0, 0 } },
		{ "tri4", 10, 4, 6, { 0, 0, 3, 0, 6, 0, 1 } },
		/* rhAxB: two acute corners (2), two obtuse (3), other edge cells 4 */
		{ "rh2x2", 4, 2, 4, { 0, 0, 2, 2, 0, 0, 0 } },
		{ "rh3x3", 9, 3, 4, { 0, 0, 2, 2, 4, 0, 1 } },
		{ "rh3x4", 12, 4, 2, { 0, 0, 2, 2, 6, 0, 2 } },
		{ "rh4x3", 12, 3, 2, { 0, 0, 2, 2, 6, 0, 2 } },
		/* WxH: corners 2, edges 3, inside 4 */
		{ "2x2", 4, 2, 8, { 0, 0, 4, 0, 0, 0, 0 } },
		{ "3x3", 9, 3, 8, { 0, 0, 4, 4, 1, 0, 0 } },
		{ "4x5", 20, 5, 4, { 0, 0, 4, 10, 6, 0, 0 } },
		{ "27x27", 729, 27, 8, { 0, 0, 4, 100, 625, 0, 0 } },
	};
	return cr_make_param_array(struct shape_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct shape_case *sc, board, census)
{
	struct bp_board *b;
	struct bp_err err;
	cr_assert_eq(bp_board_create(sc->name, &b, &err), BP_OK, "%s: %s", sc->name, err.msg);
	cr_expect_str_eq(b->name, sc->name);
	cr_expect_eq(b->ncells, sc->cells, "%s cells", sc->name);
	cr_expect_eq(b->nrows, sc->rows, "%s rows", sc->name);
	cr_expect_eq(b->nsym, sc->nsym, "%s symmetries", sc->name);
	int census[7] = { 0 };
	for (int c = 0; c < b->ncells; c++) {
		census[b->cells[c].degree]++;
		/* adjacency is symmetric */
		for (int i = 0; i < b->cells[c].degree; i++) {
			int o = b->cells[c].nb[i], back = 0;
			for (int j = 0; j < b->cells[o].degree; j++)
				back |= b->cells[o].nb[j] == c;
			cr_expect(back, "%s: %d -> %d not symmetric", sc->name, c, o);
		}
	}
	for (int d = 0; d <= 6; d++)
		cr_expect_eq(census[d], sc->degrees[d], "%s: %d cells of degree %d, expected %d",
			     sc->name, census[d], d, sc->degrees[d]);
	bp_board_destroy(b);
}

ParameterizedTestParameters(board, group)
{
	static char names[][16] = { "hex2",  "hex3", "hex4", "tri3", "tri5", "rh3x3",
				    "rh3x5", "3x3",  "4x4",  "3x5",  "8x8" };
	return cr_make_param_array(char[16], names, sizeof names / sizeof names[0]);
}

/* Every symmetry is a bijection preserving adjacency; the set contains the identity
 * first, and is closed under composition and inverses. */
ParameterizedTest(char (*name)[16], board, group)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(*name, &b, NULL), BP_OK);
	for (int c = 0; c < b->ncells; c++)
		cr_expect_eq(bp_board_sym(b, 0, c), c, "%s: symmetry 0 is not the identity", *name);
	for (int s = 0; s < b->nsym; s++) {
		char seen[4096] = { 0 };
		for (int c = 0; c < b->ncells; c++) {
			int img = bp_board_sym(b, s, c);
			cr_assert(img >= 0 && img < b->ncells);
			cr_expect(!seen[img], "%s: symmetry %d is not a bijection", *name, s);
			seen[img] = 1;
			for (int i = 0; i < b->cells[c].degree; i++) {
				int nimg = bp_board_sym(b, s, b->cells[c].nb[i]), adj = 0;
				for (int j = 0; j < b->cells[img].degree; j++)
					adj |= b->cells[img].nb[j] == nimg;
				cr_expect(adj, "%s: symmetry %d breaks adjacency at cell %d", *name,
					  s, c);
			}
			cr_expect_eq(b->cells[c].degree, b->cells[img].degree);
		}
		for (int t = 0; t < b->nsym; t++)
			cr_expect_geq(bp_sym_compose(b, s, t), 0, "%s: %d then %d not in the group",
				      *name, s, t);
		cr_expect_geq(bp_sym_inverse(b, s), 0);
	}
	bp_board_destroy(b);
}

Test(board, names_round_trip)
{
	const char *boards[] = { "hex4", "tri5", "rh3x4", "5x5", "30x28" };
	for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
		struct bp_board *b;
		cr_assert_eq(bp_board_create(boards[i], &b, NULL), BP_OK);
		for (int c = 0; c < b->ncells; c++) {
			char name[16];
			int cell = -1, used = 0;
			int len = bp_board_cell_name(b, c, name, sizeof name);
			cr_assert_eq(bp_board_cell_parse(b, name, &cell, &used, NULL), BP_OK, "%s",
				     name);
			cr_expect_eq(cell, c, "%s: %s parses to %d", boards[i], name, cell);
			cr_expect_eq(used, len);
		}
		bp_board_destroy(b);
	}
}

Test(board, names)
{
	struct bp_board *b;
	char name[16];
	cr_assert_eq(bp_board_create("30x28", &b, NULL), BP_OK);
	bp_board_cell_name(b, 0, name, sizeof name);
	cr_expect_str_eq(name, "a1");
	bp_board_cell_name(b, 26 * 30 + 26, name, sizeof name); /* row 27, column 27 */
	cr_expect_str_eq(name, "aa27");
	bp_board_cell_name(b, 27 * 30 + 29, name, sizeof name);
	cr_expect_str_eq(name, "ab30");
	bp_board_destroy(b);
	cr_assert_eq(bp_board_create("hex3", &b, NULL), BP_OK);
	/* hex3 rows have 3, 4, 5, 4, 3 cells; c3 is the centre (q = r = 0) */
	int cell, used;
	cr_assert_eq(bp_board_cell_parse(b, "c3", &cell, &used, NULL), BP_OK);
	cr_expect_eq(b->cells[cell].q, 0);
	cr_expect_eq(b->cells[cell].r, 0);
	cr_expect_eq(bp_board_cell_parse(b, "a4", &cell, &used, NULL), BP_EPARSE);
	cr_expect_eq(bp_board_cell_parse(b, "f1", &cell, &used, NULL), BP_EPARSE);
	cr_expect_eq(bp_board_cell_parse(b, "c0", &cell, &used, NULL), BP_EPARSE);
	cr_expect_eq(bp_board_cell_parse(b, "3", &cell, &used, NULL), BP_EPARSE);
	bp_board_destroy(b);
}

Test(board, bad_names)
{
	const char *bad[] = { "",    "hex",  "hex1",  "hex0",	"hex03", "hexa",
			      "rh3", "rh3x", "rh3x1", "tri1",	"5",	 "5x",
			      "1x5", "5x5x", "05x5",  "square", "hex100" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct bp_board *b = NULL;
		struct bp_err err = { { 0 } };
		cr_expect_eq(bp_board_create(bad[i], &b, &err), BP_ESPEC, "'%s' accepted", bad[i]);
		cr_expect_null(b);
		cr_expect(strlen(err.msg) > 0, "no message for '%s'", bad[i]);
	}
}
