/* SPDX-License-Identifier: MIT */
/* boardproof show GAME [POSITION]: the board, side to move, state keys and the game's
 * own evaluation of a position. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/draw.h"

/* Joins positionals from index `from` with spaces, so that a position may be given
 * quoted or as separate words. Returns NULL when there are none. */
char *bp_cmd_join(const struct bp_cli_args *a, int from)
{
	if (a->npos <= from)
		return NULL;
	size_t len = 1;
	for (int i = from; i < a->npos; i++)
		len += strlen(a->pos[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (int i = from; i < a->npos; i++) {
		if (i > from)
			strcat(s, " ");
		strcat(s, a->pos[i]);
	}
	return s;
}

int bp_cmd_show(int argc, char **argv)
{
	const char *cmd = "show";
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_pos p;
	struct bp_text pos = { 0 }, out = { 0 }, json = { 0 }, text = { 0 };
	char *ptext = NULL;
	static const char *const valued[] = { "moves", NULL };
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos < 1) {
		bp_cli_error(cmd, "missing GAME (see boardproof show --help)");
		return BP_EXIT_USAGE;
	}
	ptext = bp_cmd_join(&a, 1);
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position_moves(cmd, g, ptext, a.opt[0], &p)))
		goto out;
	/* a family spec: the member instance this position belongs to (for Landscape
	 * without layout=, the layout of its neutral stones, up to symmetry) */
	struct bp_game *member = NULL;
	struct bp_pos q;
	if ((rc = bp_cli_open_member(cmd, g, &p, &member, &q)))
		goto out;
	char mspec[sizeof g->spec];
	snprintf(mspec, sizeof mspec, "%s",
		 member && strcmp(member->spec, g->spec) ? member->spec : "");
	bp_game_destroy(member);
	bp_cli_position_text(g, &p, &pos);
	const char *ps = bp_text_str(&pos);
	const char *sp = strchr(ps, ' ');
	char to_move[16] = "";
	if (sp)
		sscanf(sp + 1, "%15s", to_move);
	enum bp_value v = g->ops->outcome(g, &p);
	struct bp_move *mv = bp_game_move_buffer(g);
	int nmoves = mv ? g->ops->moves(g, &p, mv) : 0;
	if (!mv) /* no count of the moves: no report */
		out.failed = 1;
	free(mv);
	if (g->ops->describe)
		g->ops->describe(g, &p, &json, &text);
	if (a.json) {
		bp_text_printf(&out, "{\"game\": ");
		bp_text_json_string(&out, g->spec);
		bp_text_printf(&out, ", \"position\": ");
		bp_text_json_string(&out, ps);
		bp_text_printf(&out, ", \"to_move\": ");
		bp_text_json_string(&out, to_move);
		bp_text_printf(&out, ", \"terminal\": %s, \"outcome\": ", v ? "true" : "false");
		if (v)
			bp_text_json_string(&out, bp_value_name(v));
		else
			bp_text_printf(&out, "null");
		bp_text_printf(&out, ", \"moves\": %d", nmoves);
		if (mspec[0]) {
			bp_text_printf(&out, ", \"member\": ");
			bp_text_json_string(&out, mspec);
		}
		if (json.len)
			bp_text_printf(&out, ", %s", bp_text_str(&json));
		bp_text_printf(&out, "}\n");
	} else {
		bp_text_printf(&out, "game:     %s\n", g->spec);
		if (mspec[0])
			bp_text_printf(&out,
				       "member:   %s (the spec stands for a family; this position "
				       "belongs to that instance, up to symmetry)\n",
				       mspec);
		bp_text_printf(&out, "position: %s\nto move:  %s\n\n", ps, to_move);
		bp_draw_board(g, &p, &out);
		bp_text_printf(&out, "\n%s", bp_text_str(&text));
		if (v)
			bp_text_printf(&out, "status:   over: %s for %s, the player to move\n",
				       bp_value_name(v), to_move);
		else
			bp_text_printf(&out, "status:   in play, %d legal moves\n", nmoves);
	}
	if ((rc = bp_cli_game_status(cmd, g)))
		goto out;
	if (pos.failed || json.failed || text.failed)
		out.failed = 1;
	rc = bp_cli_print_text(cmd, &out);
out:
	free(ptext);
	bp_text_free(&pos);
	bp_text_free(&out);
	bp_text_free(&json);
	bp_text_free(&text);
	bp_game_destroy(g);
	return rc;
}
