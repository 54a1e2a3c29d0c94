/* SPDX-License-Identifier: MIT */
/* boardproof play GAME: a game against perfect play from the database, in the terminal
 * or with moves one a line on stdin (for tests and scripts). The program always plays
 * a best move (tablebase order: the fastest win, the slowest loss). Where the game has
 * a pie rule or a colour choice (BP_GAME_PIE), the second player decides after the
 * first turn whether to take over the first player's side; the program takes it
 * exactly when the opening wins for the side that made it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/draw.h"

#define PLAY_MAX_TURNS 4096

struct play {
	const struct bp_game *g;
	bp_table *tab;
	struct bp_probe_move *pm;
	struct bp_pos hist[PLAY_MAX_TURNS + 1];
	int human_side[PLAY_MAX_TURNS + 1]; /* which side the human plays, per turn */
	int nhist;
	int echo; /* stdin is not a terminal: echo what was read */
};

/* Reading the table fails here only for a position it does not hold (BP_ENOTFOUND,
 * a game begun from a position off the table: said, and play goes on) or for damage,
 * no memory or an I/O error: returned, and the game stops with the error, since every
 * later answer would rest on a read that failed. */

/* p's value. @return BP_OK (also when p is not in the table: nothing said); an error. */
static int say_value(const struct play *s, const struct bp_pos *p)
{
	struct bp_probe pr;
	char rbuf[24];
	int rc = bp_probe_position(s->g, s->tab, p, &pr);
	if (rc == BP_OK)
		printf("value: %s %s for the player to move\n", bp_value_name(pr.value),
		       bp_cli_remoteness(pr.remoteness, 0, rbuf));
	return rc == BP_ENOTFOUND ? BP_OK : rc;
}

/* The moves of p with their values. Every text shown is built whole first: out of
 * memory (a move's name cut short) is an error, never a wrong name on the screen.
 * @return BP_OK; BP_ENOMEM (nothing printed); an error reading the table. */
static int show_hints(const struct play *s, const struct bp_pos *p)
{
	int n = bp_probe_moves(s->g, s->tab, p, s->pm);
	if (n == BP_ENOTFOUND) {
		printf("(no values: %s)\n", bp_strerror(n));
		return BP_OK;
	}
	if (n < 0)
		return n;
	struct bp_text t = { 0 };
	bp_text_printf(&t, "moves (best first, value for you):");
	for (int i = 0; i < n; i++) {
		char label[16];
		bp_cmd_value_label(s->pm[i].value, s->pm[i].remoteness, label, sizeof label);
		bp_text_printf(&t, "%s ", i % 8 ? "" : "\n ");
		s->g->ops->move_format(s->g, p, s->pm[i].move, &t);
		bp_text_printf(&t, "=%s", label);
	}
	int failed = t.failed;
	if (!failed)
		printf("%s\n", bp_text_str(&t));
	bp_text_free(&t);
	return failed ? BP_ENOMEM : BP_OK;
}

/* The board and the position's text. @return 0, or -1 when out of memory. */
static int show(const struct play *s, const struct bp_pos *p)
{
	struct bp_text t = { 0 };
	bp_draw_board(s->g, p, &t);
	bp_text_printf(&t, "position: ");
	s->g->ops->pos_format(s->g, p, &t);
	int failed = t.failed;
	if (!failed)
		printf("\n%s\n", bp_text_str(&t));
	bp_text_free(&t);
	return failed ? -1 : 0;
}

/* Reads one line into buf without its newline; 0 at the end of input. */
static int read_line(const struct play *s, const char *prompt, char *buf, size_t len)
{
	printf("%s", prompt);
	fflush(stdout);
	if (!fgets(buf, (int)len, stdin))
		return 0;
	buf[strcspn(buf, "\r\n")] = '\0';
	if (s->echo)
		printf("%s\n", buf);
	return 1;
}

/* The number of turns seen in this line: the position repeats -> draw by repetition. */
static int repeats(const struct play *s, const struct bp_pos *p)
{
	int n = 0;
	for (int i = 0; i < s->nhist; i++)
		n += bp_pos_equal(&s->hist[i], p);
	return n;
}

int bp_cmd_play(int argc, char **argv)
{
	const char *cmd = "play";
	static const char *const valued[] = { "position", "moves", "as", "db", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct play *s = NULL;
	int human = 0;
	int hint = bp_cli_take_flag(&argc, argv, "--hint");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		goto out;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof play --help)");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (a.opt[2] && strcmp(a.opt[2], "first") && strcmp(a.opt[2], "second")) {
		bp_cli_error(cmd, "bad --as '%s' (first or second)", a.opt[2]);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	/* 0: the side to move in the first position; 1: the other */
	human = a.opt[2] && strcmp(a.opt[2], "second") == 0;
	s = calloc(1, sizeof *s);
	if (!s) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position_moves(cmd, g, a.opt[0], a.opt[1], &s->hist[0])))
		goto out;
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[3]), BP_STORE_READONLY, &db)) ||
	    (rc = bp_cli_open_table(cmd, db, g, &tab)))
		goto out;
	s->g = g;
	s->tab = tab;
	s->pm = malloc(sizeof *s->pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	if (!s->pm) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	s->echo = !isatty(0);
	/* the choice after the first turn applies only to a game played from the start */
	struct bp_pos start;
	g->ops->start(g, &start);
	int pie_pending = (g->ops->flags & BP_GAME_PIE) && bp_pos_equal(&start, &s->hist[0]);
	const int pie0 = pie_pending, human0 = human;
	s->nhist = 1;
	s->human_side[0] = 0; /* side 0 is to move at hist[0] */
	printf("%s: you play %s (the side to move %s); commands: a move, undo, hint, "
	       "moves, quit\n",
	       g->spec, human ? "second" : "first", human ? "next" : "now");
	int side = 0, dirty = 1; /* side to move at hist[nhist - 1]; redraw? */
	int hrc = BP_OK;	 /* a failed read of the table */
	for (;;) {
		struct bp_pos *p = &s->hist[s->nhist - 1];
		side = (s->nhist - 1) % 2;
		if (dirty && show(s, p))
			goto oom;
		dirty = 1;
		enum bp_value over = g->ops->outcome(g, p);
		if (over) {
			int you = side == human;
			printf("the game is over: %s for the player to move, so %s\n",
			       bp_value_name(over),
			       over == BP_VALUE_DRAW		      ? "a draw"
			       : (over == BP_VALUE_WIN) == (you != 0) ? "you win"
								      : "perfect play wins");
			break;
		}
		if (repeats(s, p) >= 3) {
			printf("the position has appeared three times: a draw by repetition\n");
			break;
		}
		if (s->nhist > PLAY_MAX_TURNS) {
			printf("the game is too long; stopping\n");
			break;
		}
		if (pie_pending && s->nhist == 2) {
			pie_pending = 0;
			/* the second player (to move now) may take over the first side */
			if (side == human) {
				char line[64];
				int ok = 0;
				while (!ok) {
					if (!read_line(
						    s,
						    "take over the first player's side (pie rule / "
						    "colour choice)? [yes/no] ",
						    line, sizeof line)) {
						printf("\nend of input: the game is unfinished\n");
						goto out;
					}
					ok = !strcmp(line, "yes") || !strcmp(line, "no") ||
					     !strcmp(line, "y") || !strcmp(line, "n");
					if (!ok)
						printf("answer yes or no\n");
				}
				if (line[0] == 'y') {
					human ^= 1;
					printf("you now play the first player's side; perfect play "
					       "moves next\n");
					continue;
				}
			} else {
				struct bp_probe pr;
				int prc = bp_probe_position(g, tab, p, &pr);
				if (prc && prc != BP_ENOTFOUND) { /* never a choice made blind */
					hrc = prc;
					goto failed;
				}
				if (prc == BP_OK && pr.value == BP_VALUE_LOSS) {
					human ^= 1;
					printf("perfect play takes over your side (the opening "
					       "wins for it); you now move\n");
					continue;
				}
				printf("perfect play keeps its side\n");
			}
		}
		if (side != human) {
			int n = bp_probe_moves(g, tab, p, s->pm);
			if (n <= 0) {
				bp_cli_error(cmd, "no value for %s: %s", g->spec,
					     bp_strerror(n < 0 ? n : BP_ENOTFOUND));
				rc = n < 0 ? bp_cli_exit_code(n) : BP_EXIT_DB;
				goto out;
			}
			int pick = 0;
			/* an opening before the choice: a win will be taken over, so a draw
			 * is the best the first player can keep */
			for (int i = 0; pie_pending && s->nhist == 1 && i < n; i++)
				if (s->pm[i].value == BP_VALUE_DRAW) {
					pick = i;
					break;
				}
			s->pm[0] = s->pm[pick];
			struct bp_text m = { 0 };
			char label[16];
			g->ops->move_format(g, p, s->pm[0].move, &m);
			bp_cmd_value_label(s->pm[0].value, s->pm[0].remoteness, label,
					   sizeof label);
			if (m.failed) {
				bp_text_free(&m);
				goto oom;
			}
			printf("perfect play: %s (%s for it)\n", bp_text_str(&m), label);
			bp_text_free(&m);
			s->hist[s->nhist] = *p;
			g->ops->apply(g, &s->hist[s->nhist], s->pm[0].move);
			s->nhist++;
			continue;
		}
		if (hint && (hrc = show_hints(s, p)))
			goto failed;
		char line[128];
		if (!read_line(s, "your move: ", line, sizeof line)) {
			printf("\nend of input: the game is unfinished\n");
			break;
		}
		if (!line[0]) {
			dirty = 0;
			continue;
		}
		if (!strcmp(line, "quit"))
			break;
		if (!strcmp(line, "hint")) {
			if ((hrc = say_value(s, p)) || (hrc = show_hints(s, p)))
				goto failed;
			dirty = 0;
			continue;
		}
		if (!strcmp(line, "moves")) {
			struct bp_move *mv = bp_game_move_buffer(g);
			struct bp_text t = { 0 };
			int n = mv ? g->ops->moves(g, p, mv) : 0;
			for (int i = 0; i < n; i++) {
				bp_text_printf(&t, "%s", i ? " " : "");
				g->ops->move_format(g, p, mv[i], &t);
			}
			int failed = !mv || t.failed;
			if (!failed)
				printf("%s\n", bp_text_str(&t));
			bp_text_free(&t);
			free(mv);
			if (failed)
				goto oom;
			dirty = 0;
			continue;
		}
		if (!strcmp(line, "undo")) {
			/* back to the human's previous turn: their move and the reply */
			int back = s->nhist - 1 >= 2 ? 2 : 0;
			if (!back) {
				printf("nothing to undo\n");
				dirty = 0;
				continue;
			}
			s->nhist -= back;
			if (pie0 && s->nhist <= 2) { /* before the choice: offer it again */
				human = human0;
				pie_pending = 1;
			}
			printf("undone\n");
			continue;
		}
		struct bp_err err = { { 0 } };
		struct bp_move m;
		int mrc = g->ops->move_parse(g, p, line, &m, &err);
		if (mrc) {
			printf("illegal move '%s': %s; try again\n", line,
			       err.msg[0] ? err.msg : bp_strerror(mrc));
			dirty = 0;
			continue;
		}
		s->hist[s->nhist] = *p;
		g->ops->apply(g, &s->hist[s->nhist], m);
		s->nhist++;
	}
	goto out;
oom:
	bp_cli_error(cmd, "out of memory");
	rc = BP_EXIT_IO;
	goto out;
failed:
	bp_cli_error(cmd, "reading the table of %s: %s", g->spec, bp_strerror(hrc));
	rc = bp_cli_exit_code(hrc);
out:
	if (s)
		free(s->pm);
	free(s);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
