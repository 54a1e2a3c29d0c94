/* SPDX-License-Identifier: MIT */
#include "tests/fuzz/fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const specs[] = {
	"taifas:3x3",
	"taifas:4x4,tie=draw",
	"taifas:2x5,score=fraction,tie=last-stone",
	"chicken:hex2",
	"chicken:hex3,forced=free",
	"landscape:hex3,neutrals=2",
	"glorieta:hex2",
	"glorieta:hex3,ring=alt",
	"blooms:hex2",
	"blooms:tri3",
	"mirador:6x6",
	"mirador:5x7,piece=1",
};

int bp_fuzz_games(struct bp_game ***out)
{
	static struct bp_game *games[sizeof specs / sizeof specs[0]];
	static int n = -1;
	if (n < 0) {
		n = 0;
		for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
			if (bp_game_create(specs[i], &games[n], NULL) == BP_OK)
				n++;
	}
	*out = games;
	return n;
}

char *bp_fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void bp_fuzz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	abort();
}

void bp_fuzz_check_position(const struct bp_game *g, const struct bp_pos *p)
{
	struct bp_text t = { 0 };
	struct bp_pos q;
	g->ops->pos_format(g, p, &t);
	int rc = g->ops->pos_parse(g, bp_text_str(&t), &q, NULL);
	/* A Blooms game ended by two passes is kept internally but is no position text
	 * (RULES.md 8): its printed form must be refused. Everything else round-trips. */
	int unwritable = (g->ops->flags & BP_GAME_CYCLIC) && g->ops->outcome(g, p) != BP_VALUE_NONE;
	if (unwritable) {
		BP_FUZZ_CHECK(rc == BP_EPARSE, "a finished cyclic game's text is refused");
	} else {
		BP_FUZZ_CHECK(rc == BP_OK, "printed position parses");
		BP_FUZZ_CHECK(bp_pos_equal(p, &q), "position round trip");
	}
	struct bp_move *mv = bp_game_move_buffer(g);
	int n = g->ops->moves(g, p, mv);
	BP_FUZZ_CHECK(n >= 0 && n <= g->max_moves, "move count in range");
	BP_FUZZ_CHECK((n == 0) == (g->ops->outcome(g, p) != BP_VALUE_NONE),
		      "no moves iff terminal");
	for (int i = 0; i < n && i < 64; i++) {
		struct bp_text m = { 0 };
		struct bp_move back;
		g->ops->move_format(g, p, mv[i], &m);
		BP_FUZZ_CHECK(g->ops->move_parse(g, p, bp_text_str(&m), &back, NULL) == BP_OK,
			      "listed move parses");
		BP_FUZZ_CHECK(back.v == mv[i].v, "move round trip");
		bp_text_free(&m);
	}
	free(mv);
	bp_text_free(&t);
}
