/* SPDX-License-Identifier: MIT */
/* Helpers every test file shares: open a game, parse a position and print one, each
 * failing the test with the library's message when the input is refused. */
#ifndef BP_TESTS_SUPPORT_H
#define BP_TESTS_SUPPORT_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "solver/game.h"

static inline struct bp_game *open_game(const char *spec)
{
	struct bp_game *g = NULL;
	struct bp_err err = { { 0 } };
	int rc = bp_game_create(spec, &g, &err);
	cr_assert_eq(rc, BP_OK, "%s: %s", spec, err.msg);
	return g;
}

static inline struct bp_pos parse_pos(const struct bp_game *g, const char *text)
{
	struct bp_pos p;
	struct bp_err err = { { 0 } };
	int rc = bp_game_parse_position(g, text, &p, &err);
	cr_assert_eq(rc, BP_OK, "%s '%s': %s", g->spec, text, err.msg);
	return p;
}

/* The position's text, in a static buffer (valid until the next call). */
static inline const char *fmt_pos(const struct bp_game *g, const struct bp_pos *p)
{
	static char buf[2048];
	struct bp_text t = { 0 };
	g->ops->pos_format(g, p, &t);
	snprintf(buf, sizeof buf, "%s", bp_text_str(&t));
	bp_text_free(&t);
	return buf;
}

#endif
