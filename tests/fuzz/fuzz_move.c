/* SPDX-License-Identifier: MIT */
/* Fuzzes move text: the first byte picks a game instance, the second how many
 * pseudo-random moves lead to the position, the rest is the move. An accepted move
 * must be one of the listed moves; a rejected one must come with a message. */
#include <stdlib.h>

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_game **games;
	int n = bp_fuzz_games(&games);
	if (size < 2 || n == 0 || size > 256)
		return 0;
	const struct bp_game *g = games[data[0] % n];
	struct bp_pos p;
	struct bp_move *mv = bp_game_move_buffer(g);
	g->ops->start(g, &p);
	unsigned x = data[1];
	for (int i = 0; i < data[1] % 16; i++) {
		int k = g->ops->moves(g, &p, mv);
		if (k == 0)
			break;
		x = x * 1103515245u + 12345u;
		g->ops->apply(g, &p, mv[(x >> 8) % (unsigned)k]);
	}
	char *text = bp_fuzz_string(data + 2, size - 2);
	struct bp_move m;
	struct bp_err err = { { 0 } };
	int rc = g->ops->move_parse(g, &p, text, &m, &err);
	if (rc == BP_OK) {
		int k = g->ops->moves(g, &p, mv), found = 0;
		for (int i = 0; i < k; i++)
			found |= mv[i].v == m.v;
		BP_FUZZ_CHECK(found, "an accepted move is a legal move");
		g->ops->apply(g, &p, m);
		bp_fuzz_check_position(g, &p);
	} else {
		BP_FUZZ_CHECK((rc == BP_EPARSE || rc == BP_EILLEGAL) && err.msg[0],
			      "move errors are BP_EPARSE or BP_EILLEGAL with a message");
	}
	free(text);
	free(mv);
	return 0;
}
