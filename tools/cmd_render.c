/* SPDX-License-Identifier: MIT */
/* boardproof render GAME [POSITION] [--moves M] --svg FILE [--values]: a picture of a
 * position, optionally with each move's value from the database over the cells it
 * changes. */
#include <stdlib.h>
#include <string.h>

#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/svg.h"

void bp_cmd_value_label(enum bp_value v, unsigned rem, char *buf, size_t len)
{
	char c = v == BP_VALUE_WIN ? 'W' : v == BP_VALUE_LOSS ? 'L' : 'D';
	if (rem == BP_RECORD_NO_REMOTENESS)
		snprintf(buf, len, "%c", c);
	else
		snprintf(buf, len, "%c%u", c, rem);
}

int bp_cmd_value_marks(const struct bp_game *g, const struct bp_pos *p,
		       const struct bp_probe_move *pm, int n, struct bp_svg_mark **out)
{
	/* each cell shows the best move that changes it: pm is sorted best first, so
	 * the first move to claim a cell keeps it */
	int ncells = g->board->ncells, nmarks = 0;
	struct bp_svg_mark *marks = calloc((size_t)ncells + 1, sizeof *marks);
	char *taken = calloc((size_t)ncells + 1, 1);
	int *cells = malloc(sizeof *cells * (size_t)ncells);
	if (!marks || !taken || !cells) {
		free(marks);
		free(taken);
		free(cells);
		return BP_ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int k = bp_svg_move_cells(g, p, pm[i].move, cells, ncells);
		for (int j = 0; j < k; j++) {
			if (taken[cells[j]])
				continue;
			taken[cells[j]] = 1;
			marks[nmarks].cell = cells[j];
			marks[nmarks].tint = bp_svg_value_tint(pm[i].value);
			bp_cmd_value_label(pm[i].value, pm[i].remoteness, marks[nmarks].label,
					   sizeof marks[nmarks].label);
			nmarks++;
		}
	}
	free(taken);
	free(cells);
	*out = marks;
	return nmarks;
}

int bp_cmd_write_file(const char *cmd, const char *path, const struct bp_text *t)
{
	if (t->failed) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!f) {
		bp_cli_error(cmd, "cannot write %s", path);
		return BP_EXIT_IO;
	}
	int bad = fwrite(t->s ? t->s : "", 1, t->len, f) != t->len;
	if (f != stdout)
		bad |= fclose(f) != 0;
	if (bad) {
		bp_cli_error(cmd, "writing %s failed", path);
		return BP_EXIT_IO;
	}
	return 0;
}

int bp_cmd_render(int argc, char **argv)
{
	const char *cmd = "render";
	static const char *const valued[] = { "moves", "svg", "db", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_probe_move *pm = NULL;
	struct bp_svg_mark *marks = NULL;
	struct bp_text svg = { 0 }, pos = { 0 };
	char *ptext = NULL;
	struct bp_pos p;
	int nmarks = 0;
	int values = bp_cli_take_flag(&argc, argv, "--values");
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		goto out;
	if (a.npos < 1 || !a.opt[1]) {
		bp_cli_error(cmd, "expected GAME [POSITION] --svg FILE (see boardproof render "
				  "--help)");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	ptext = bp_cmd_join(&a, 1);
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position_moves(cmd, g, ptext, a.opt[0], &p)))
		goto out;
	bp_cli_position_text(g, &p, &pos);
	if (values) {
		if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[2]), BP_STORE_READONLY,
					    &db)) ||
		    (rc = bp_cli_open_table(cmd, db, g, &tab)))
			goto out;
		pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
		int n = pm ? bp_probe_moves(g, tab, &p, pm) : BP_ENOMEM;
		if (n < 0) {
			bp_cli_error(cmd, "reading the moves' values of %s: %s", g->spec,
				     bp_strerror(n));
			rc = n == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
			goto out;
		}
		nmarks = bp_cmd_value_marks(g, &p, pm, n, &marks);
		if (nmarks < 0) {
			bp_cli_error(cmd, "out of memory");
			rc = BP_EXIT_IO;
			goto out;
		}
	}
	bp_svg_position(g, &p, marks, nmarks, g->spec, bp_text_str(&pos), &svg);
	if (pos.failed) /* the picture's caption would name no position */
		svg.failed = 1;
	if ((rc = bp_cmd_write_file(cmd, a.opt[1], &svg)))
		goto out;
	if (a.json) {
		struct bp_text j = { 0 };
		bp_text_printf(&j, "{\"instance\": ");
		bp_text_json_string(&j, g->spec);
		bp_text_printf(&j, ", \"position\": ");
		bp_text_json_string(&j, bp_text_str(&pos));
		bp_text_printf(&j, ", \"svg\": ");
		bp_text_json_string(&j, a.opt[1]);
		bp_text_printf(&j, ", \"marks\": %d}\n", nmarks);
		if (strcmp(a.opt[1], "-") != 0)
			rc = bp_cli_print_text(cmd, &j);
		bp_text_free(&j);
	} else if (strcmp(a.opt[1], "-") != 0) {
		printf("wrote %s (%s%s)\n", a.opt[1], bp_text_str(&pos),
		       values ? ", with each move's value" : "");
	}
out:
	free(pm);
	free(marks);
	free(ptext);
	bp_text_free(&svg);
	bp_text_free(&pos);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
