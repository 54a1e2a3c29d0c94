/* SPDX-License-Identifier: MIT */
/* boardproof moves GAME [POSITION] [--count]: every legal move of a position, or only
 * how many there are. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"

int bp_cmd_moves(int argc, char **argv)
{
	const char *cmd = "moves";
	static const char *const valued[] = { "moves", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_pos p;
	struct bp_text out = { 0 };
	struct bp_move *mv = NULL;
	char *ptext = NULL;
	/* --count is this command's own flag: take it out before the shared parser */
	int only_count = 0, kept = 0, options = 1;
	char **args = malloc(sizeof *args * (size_t)(argc + 1));
	if (!args) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	for (int i = 0; i < argc; i++) {
		options &= strcmp(argv[i], "--") != 0;
		if (i > 0 && options && strcmp(argv[i], "--count") == 0)
			only_count = 1;
		else
			args[kept++] = argv[i];
	}
	args[kept] = NULL;
	int rc = bp_cli_parse(cmd, kept, args, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a)) {
		free(args);
		return rc;
	}
	if (a.npos < 1) {
		bp_cli_error(cmd, "missing GAME (see boardproof moves --help)");
		free(args);
		return BP_EXIT_USAGE;
	}
	ptext = bp_cmd_join(&a, 1);
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position_moves(cmd, g, ptext, a.opt[0], &p)))
		goto out;
	mv = bp_game_move_buffer(g);
	if (!mv) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	int n = g->ops->moves(g, &p, mv);
	enum bp_value over = g->ops->outcome(g, &p);
	if (n == 0 && !a.json && !only_count) {
		/* say so rather than print nothing: an empty list reads as a bug */
		printf("the game is over: %s for the player to move; no legal moves\n",
		       bp_value_name(over ? over : BP_VALUE_DRAW));
		goto out;
	}
	if (only_count) {
		if (a.json)
			printf("{\"count\": %d}\n", n);
		else
			printf("%d\n", n);
		goto out;
	}
	if (a.json)
		bp_text_printf(&out, "{\"moves\": [");
	for (int i = 0; i < n; i++) {
		if (a.json) {
			struct bp_text m = { 0 };
			g->ops->move_format(g, &p, mv[i], &m);
			bp_text_printf(&out, "%s", i ? ", " : "");
			bp_text_json_string(&out, bp_text_str(&m));
			if (m.failed) /* a move without its name is no listing */
				out.failed = 1;
			bp_text_free(&m);
		} else {
			g->ops->move_format(g, &p, mv[i], &out);
			bp_text_printf(&out, "\n");
		}
	}
	if (a.json && n == 0)
		bp_text_printf(&out, "], \"count\": 0, \"finished\": true, \"outcome\": \"%s\"}\n",
			       bp_value_name(over ? over : BP_VALUE_DRAW));
	else if (a.json)
		bp_text_printf(&out, "], \"count\": %d}\n", n);
	if ((rc = bp_cli_game_status(cmd, g)))
		goto out;
	rc = bp_cli_print_text(cmd, &out);
out:
	free(args);
	free(ptext);
	free(mv);
	bp_text_free(&out);
	bp_game_destroy(g);
	return rc;
}
