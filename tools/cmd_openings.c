/* SPDX-License-Identifier: MIT */
/* boardproof openings GAME [--svg FILE]: every first move's value and remoteness, as a
 * list and as a picture, and where the game has a pie rule or a colour choice, what
 * each opening is worth to the first player once the second player has chosen. */
#include <stdlib.h>
#include <string.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/svg.h"

int bp_cmd_openings(int argc, char **argv)
{
	const char *cmd = "openings";
	static const char *const valued[] = { "svg", "db", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_probe_move *pm = NULL;
	struct bp_svg_mark *marks = NULL;
	struct bp_text out = { 0 }, svg = { 0 }, pos = { 0 };
	struct bp_pos p;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof openings --help)");
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		goto out;
	g->ops->start(g, &p);
	bp_cli_position_text(g, &p, &pos);
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[1]), BP_STORE_READONLY, &db)) ||
	    (rc = bp_cli_open_table(cmd, db, g, &tab)))
		goto out;
	pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	int n = pm ? bp_probe_moves(g, tab, &p, pm) : BP_ENOMEM;
	if (n < 0) {
		bp_cli_error(cmd, "reading the openings of %s: %s", g->spec, bp_strerror(n));
		rc = n == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
		goto out;
	}
	int pie = (g->ops->flags & BP_GAME_PIE) != 0;
	enum bp_value best_pie = BP_VALUE_NONE;
	int counts[4] = { 0 };
	for (int i = 0; i < n; i++) {
		counts[pm[i].value]++;
		enum bp_value v = bp_claim_after_choice(pm[i].value);
		if (best_pie == BP_VALUE_NONE || v == BP_VALUE_DRAW)
			best_pie = v == BP_VALUE_DRAW || best_pie == BP_VALUE_NONE ? v : best_pie;
	}
	if (a.json) {
		bp_text_printf(&out, "{\"instance\": ");
		bp_text_json_string(&out, g->spec);
		bp_text_printf(&out, ", \"position\": ");
		bp_text_json_string(&out, bp_text_str(&pos));
		bp_text_printf(&out, ", \"pie\": %s, \"openings\": [", pie ? "true" : "false");
	} else {
		bp_text_printf(&out,
			       "openings of %s: %d (win %d, draw %d, loss %d for the first "
			       "player)\n",
			       g->spec, n, counts[BP_VALUE_WIN], counts[BP_VALUE_DRAW],
			       counts[BP_VALUE_LOSS]);
		bp_text_printf(&out, "  %-10s %-19s %s\n", "move", "value", "cells");
	}
	int *cells = malloc(sizeof *cells * (size_t)g->board->ncells);
	if (!cells)
		out.failed = 1; /* no openings listed: no report */
	for (int i = 0; i < n && cells; i++) {
		struct bp_text m = { 0 };
		g->ops->move_format(g, &p, pm[i].move, &m);
		int k = bp_svg_move_cells(g, &p, pm[i].move, cells, g->board->ncells);
		char rbuf[24];
		if (a.json) {
			bp_text_printf(&out, "%s{\"move\": ", i ? ", " : "");
			bp_text_json_string(&out, bp_text_str(&m));
			bp_text_printf(&out, ", \"value\": \"%s\", \"remoteness\": %s",
				       bp_value_name(pm[i].value),
				       bp_cli_remoteness(pm[i].remoteness, 1, rbuf));
			if (pie)
				bp_text_printf(&out, ", \"after_choice\": \"%s\"",
					       bp_value_name(bp_claim_after_choice(pm[i].value)));
			bp_text_printf(&out, ", \"cells\": [");
			for (int j = 0; j < k; j++) {
				char name[16];
				bp_board_cell_name(g->board, cells[j], name, sizeof name);
				bp_text_printf(&out, "%s\"%s\"", j ? ", " : "", name);
			}
			bp_text_printf(&out, "]}");
		} else {
			char val[40];
			snprintf(val, sizeof val, "%s %s", bp_value_name(pm[i].value),
				 bp_cli_remoteness(pm[i].remoteness, 0, rbuf));
			bp_text_printf(&out, "  %-10s %-19s ", bp_text_str(&m), val);
			for (int j = 0; j < k; j++) {
				char name[16];
				bp_board_cell_name(g->board, cells[j], name, sizeof name);
				bp_text_printf(&out, "%s%s", j ? "," : "", name);
			}
			if (pie)
				bp_text_printf(&out, "   (after the choice: %s)",
					       bp_value_name(bp_claim_after_choice(pm[i].value)));
			bp_text_printf(&out, "\n");
		}
		if (m.failed) /* an opening without its name is no report */
			out.failed = 1;
		bp_text_free(&m);
	}
	free(cells);
	if (pos.failed)
		out.failed = 1;
	if (a.json) {
		bp_text_printf(&out, "]");
		if (pie)
			bp_text_printf(&out, ", \"value_with_choice\": \"%s\"",
				       bp_value_name(best_pie));
		bp_text_printf(&out, "}\n");
	} else if (pie && n) {
		bp_text_printf(&out,
			       "with the second player's choice after the first turn, the first "
			       "player's best result is a %s\n",
			       bp_value_name(best_pie));
	}
	if (a.opt[0]) {
		int nmarks = bp_cmd_value_marks(g, &p, pm, n, &marks);
		if (nmarks < 0) {
			bp_cli_error(cmd, "out of memory");
			rc = BP_EXIT_IO;
			goto out;
		}
		const char *cap = "first moves: W win, D draw, L loss; turns to the end";
		bp_svg_position(g, &p, marks, nmarks, g->spec, cap, &svg);
		if ((rc = bp_cmd_write_file(cmd, a.opt[0], &svg)))
			goto out;
	}
	rc = bp_cli_print_text(cmd, &out);
out:
	free(pm);
	free(marks);
	bp_text_free(&out);
	bp_text_free(&svg);
	bp_text_free(&pos);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
