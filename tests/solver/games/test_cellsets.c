/* SPDX-License-Identifier: MIT */
/* The walks' shared look-ups (solver/games/cellsets.c, solver/games/setrank.c): the
 * table of cell sets against its definition (every symmetry's image of the set, two
 * flood fills) on every set of small boards, under every symmetry and under a
 * subgroup; and the byte-wise colex rank against bp_rank_subset. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>

#include "canon/rank.h"
#include "solver/games/cellsets.h"
#include "solver/games/setrank.h"

struct cellsets_case {
	char board[16];
	int subgroup; /* only the symmetries 0 and 1 */
};

ParameterizedTestParameters(cellsets, every_set_as_defined)
{
	static struct cellsets_case cases[] = {
		{ "hex2", 0 }, { "tri4", 0 }, { "rh3x3", 0 }, { "hex3", 0 }, { "hex3", 1 },
	};
	return cr_make_param_array(struct cellsets_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct cellsets_case *cc, cellsets, every_set_as_defined)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create(cc->board, &b, NULL), BP_OK);
	struct bp_loops *L = malloc(sizeof *L);
	cr_assert_eq(bp_loops_init(L, b, NULL), BP_OK);
	int syms[12], nsym = cc->subgroup ? 2 : b->nsym;
	for (int s = 0; s < nsym; s++)
		syms[s] = s;
	bp_perm64 *perm;
	cr_assert_eq(bp_perm64_create(b, syms, nsym, &perm), BP_OK);
	uint16_t *slot = NULL;
	const uint16_t *z = bp_cellsets_get(&slot, L, perm, nsym);
	cr_assert_not_null(z);
	cr_expect_eq(bp_cellsets_get(&slot, L, perm, nsym), z, "built once");
	for (uint64_t set = 0; set <= L->full; set++) {
		int smaller = 0;
		unsigned fixing = 0;
		for (int s = 1; s < nsym; s++) {
			uint64_t img = 0;
			for (int c = 0; c < b->ncells; c++)
				if (set >> c & 1)
					img |= 1ull << bp_board_sym(b, syms[s], c);
			smaller |= img < set;
			fixing |= img == set ? 1u << s : 0;
		}
		const unsigned e = z[set];
		if (smaller) {
			cr_assert_eq(e & (BP_CELLSETS_SMALLER | BP_CELLSETS_FIXING),
				     BP_CELLSETS_SMALLER, "%s set %llx", cc->board,
				     (unsigned long long)set);
		} else {
			cr_assert_eq(e & (BP_CELLSETS_SMALLER | BP_CELLSETS_FIXING), fixing,
				     "%s set %llx", cc->board, (unsigned long long)set);
		}
		cr_assert_eq(!!(e & BP_CELLSETS_LOOP0), !!bp_loops_enclosed(L, 0, set));
		cr_assert_eq(!!(e & BP_CELLSETS_LOOP1), !!bp_loops_enclosed(L, 1, set));
	}
	free(slot);
	bp_perm64_destroy(perm);
	free(L);
	bp_board_destroy(b);
}

Test(cellsets, none_over_the_limit)
{
	struct bp_board *b;
	cr_assert_eq(bp_board_create("tri6", &b, NULL), BP_OK); /* 21 cells */
	struct bp_loops *L = malloc(sizeof *L);
	cr_assert_eq(bp_loops_init(L, b, NULL), BP_OK);
	int syms[1] = { 0 };
	bp_perm64 *perm;
	cr_assert_eq(bp_perm64_create(b, syms, 1, &perm), BP_OK);
	uint16_t *slot = NULL;
	cr_expect_null(bp_cellsets_get(&slot, L, perm, 1));
	cr_expect_null(slot);
	bp_perm64_destroy(perm);
	free(L);
	bp_board_destroy(b);
}

Test(setrank, equals_rank_subset)
{
	static struct bp_setrank r;
	bp_setrank_init(&r);
	unsigned seed = 7;
	printf("setrank equals_rank_subset: seed %u\n", seed);
	srand(seed);
	for (uint64_t set = 0; set < 1u << 16; set++) {
		cr_assert_eq(bp_setrank_of(&r, set), bp_rank_subset(set), "set %llx",
			     (unsigned long long)set);
		cr_assert_eq(bp_setrank_of16(&r, set), bp_rank_subset(set), "set %llx (16 bits)",
			     (unsigned long long)set);
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t set = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) & ((1u << 24) - 1);
		cr_assert_eq(bp_setrank_of(&r, set), bp_rank_subset(set), "set %llx",
			     (unsigned long long)set);
	}
}
