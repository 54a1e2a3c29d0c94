/* SPDX-License-Identifier: MIT */
/* Fuzzes move lists (bp_game_play_line: the command's --moves and the explorer's
 * moves= argument): the first byte picks a game instance, the second the separators
 * (the command's " \t\n" or the explorer's " ,") and a limit on the number of moves,
 * the rest is the line. Every move given to the callback must be legal where it is
 * played; an accepted line must lead to a sound position that the moves, spelled back
 * by the game, reach again; a refused one must come with a message naming a move, and
 * leave the position before that move. */
#include <stdlib.h>
#include <string.h>

#include "canon/text.h"
#include "tests/fuzz/fuzz_common.h"

struct seen {
	struct bp_move *mv;
	struct bp_text spelled; /* the moves as move_format spells them, space-separated */
	int n;
};

static int each(void *ctx, const struct bp_game *g, const struct bp_pos *p, struct bp_move m)
{
	struct seen *s = ctx;
	int k = g->ops->moves(g, p, s->mv), found = 0;
	for (int i = 0; i < k; i++)
		found |= s->mv[i].v == m.v;
	BP_FUZZ_CHECK(found, "a move of a line is legal where it is played");
	if (s->n++)
		bp_text_printf(&s->spelled, " ");
	g->ops->move_format(g, p, m, &s->spelled);
	return BP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_game **games;
	int n = bp_fuzz_games(&games);
	if (size < 2 || n == 0 || size > 1024)
		return 0;
	const struct bp_game *g = games[data[0] % n];
	const char *seps = data[1] & 1 ? " ," : " \t\n";
	int max = (data[1] >> 1) & 15; /* 0: no limit */
	char *line = bp_fuzz_string(data + 2, size - 2);
	struct seen s = { .mv = bp_game_move_buffer(g) };
	struct bp_pos p, again;
	struct bp_err err = { { 0 } };
	int number = -1;
	g->ops->start(g, &p);
	int rc = bp_game_play_line(g, &p, line, seps, max, each, &s, &number, &err);
	bp_fuzz_check_position(g, &p);
	if (rc == BP_OK) {
		BP_FUZZ_CHECK(number == 0, "an accepted line names no move");
		BP_FUZZ_CHECK(max == 0 || s.n <= max, "an accepted line keeps the limit");
		struct bp_err err2 = { { 0 } };
		g->ops->start(g, &again);
		int rc2 = bp_game_play_line(g, &again, s.spelled.s ? s.spelled.s : "", " ", 0, NULL,
					    NULL, NULL, &err2);
		BP_FUZZ_CHECK(rc2 == BP_OK && memcmp(&again, &p, sizeof p) == 0,
			      "the moves spelled back reach the same position");
	} else {
		BP_FUZZ_CHECK(rc == BP_EPARSE || rc == BP_EILLEGAL,
			      "line errors are BP_EPARSE or BP_EILLEGAL");
		BP_FUZZ_CHECK(err.msg[0] && strncmp(err.msg, "move ", 5) == 0,
			      "a refused line's message names the move");
		BP_FUZZ_CHECK(number == s.n + 1, "the failing move is the one after those played");
	}
	bp_text_free(&s.spelled);
	free(s.mv);
	free(line);
	return 0;
}
