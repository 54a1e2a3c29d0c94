/* SPDX-License-Identifier: MIT */
/* Breadth-first reach with a hash set: on tiered games it must find exactly what the
 * tier-by-tier bitmap enumeration finds (positions and classes), and it refuses work
 * beyond its memory limit without a partial answer. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "solver/enumerate.h"
#include "solver/games/game.h"
#include "solver/reach.h"

ParameterizedTestParameters(reach, matches_enumeration)
{
	static char specs[][32] = { "taifas:2x2", "taifas:3x3", "taifas:2x5,tie=draw",
				    "taifas:3x3,tie=last-stone" };
	return cr_make_param_array(char[32], specs, sizeof specs / sizeof specs[0]);
}

ParameterizedTest(char (*spec)[32], reach, matches_enumeration)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	cr_assert_eq(bp_game_create(*spec, &g, &err), BP_OK, "%s", err.msg);
	struct bp_enum_counts ec;
	struct bp_reach_counts rc;
	cr_assert_eq(bp_enumerate(g, 1 << 26, NULL, NULL, &ec), BP_OK);
	cr_assert_eq(bp_reach(g, 1 << 28, NULL, NULL, &rc), BP_OK);
	uint64_t er = 0, ecl = 0, rr = 0, rcl = 0, term = 0;
	for (uint32_t t = 0; t < ec.ntiers; t++) {
		er += ec.raw[t];
		ecl += ec.classes[t];
	}
	for (uint32_t d = 0; d < rc.ndepths; d++) {
		rr += rc.raw[d];
		rcl += rc.classes[d];
		term += rc.terminal[d];
	}
	cr_expect_eq(rr, er, "%s: reach %llu, enumeration %llu", *spec, (unsigned long long)rr,
		     (unsigned long long)er);
	cr_expect_eq(rcl, ecl, "%s classes", *spec);
	/* in Taifas every move places a stone, so depth = tier, and only full boards end */
	cr_expect_eq(rc.ndepths, ec.ntiers);
	for (uint32_t d = 0; d < rc.ndepths && d < ec.ntiers; d++)
		cr_expect_eq(rc.raw[d], ec.raw[d], "%s depth %u", *spec, d);
	cr_expect_eq(term, rc.raw[rc.ndepths - 1]);
	bp_enum_counts_free(&ec);
	bp_reach_counts_free(&rc);
	bp_game_destroy(g);
}

Test(reach, refuses_past_the_limit)
{
	struct bp_game *g = NULL;
	cr_assert_eq(bp_game_create("taifas:4x4", &g, NULL), BP_OK);
	struct bp_reach_counts rc;
	cr_expect_eq(bp_reach(g, 100000, NULL, NULL, &rc), BP_ERANGE);
	cr_expect_null(rc.raw);
	cr_expect_eq(rc.ndepths, 0);
	cr_expect_eq(bp_reach(g, 10, NULL, NULL, &rc), BP_ERANGE);
	bp_game_destroy(g);
}
