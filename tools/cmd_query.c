/* SPDX-License-Identifier: MIT */
/* boardproof query GAME [POSITION]: perfect play from the database. */
#include <stdlib.h>

#include "solver/probe.h"
#include "tools/cli.h"
#include "tools/commands.h"

static void value_text(struct bp_text *t, enum bp_value v, unsigned rem)
{
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "%s (by repetition)", bp_value_name(v));
	else
		bp_text_printf(t, "%s in %u", bp_value_name(v), rem);
}

static void value_json(struct bp_text *t, enum bp_value v, unsigned rem)
{
	bp_text_printf(t, "\"value\": \"%s\", \"remoteness\": ", bp_value_name(v));
	if (rem == BP_RECORD_NO_REMOTENESS)
		bp_text_printf(t, "null");
	else
		bp_text_printf(t, "%u", rem);
}

int bp_cmd_query(int argc, char **argv)
{
	const char *cmd = "query";
	static const char *const valued[] = { "db", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_probe_move *pm = NULL;
	struct bp_text out = { 0 }, pos = { 0 };
	char *ptext = NULL;
	struct bp_pos p;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos < 1) {
		bp_cli_error(cmd, "missing GAME (see boardproof query --help)");
		return BP_EXIT_USAGE;
	}
	ptext = bp_cmd_join(&a, 1);
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position(cmd, g, ptext, &p)))
		goto out;
	if ((rc = bp_cli_open_store(cmd, bp_cli_db_path(a.opt[0]), BP_STORE_READONLY, &db)) ||
	    (rc = bp_cli_open_table(cmd, db, g, &tab)))
		goto out;
	bp_cli_position_text(g, &p, &pos);
	struct bp_probe pr;
	int prc = bp_probe_position(g, tab, &p, &pr);
	if (prc) {
		if (prc == BP_ENOTFOUND)
			bp_cli_error(cmd,
				     "position '%s' is not in the solved table of %s (not "
				     "reachable from "
				     "the start, or its tier is not solved yet)",
				     bp_text_str(&pos), g->spec);
		else
			bp_cli_error(cmd, "reading %s: %s (%s)", g->spec, bp_strerror(prc),
				     bp_table_why(tab));
		rc = prc == BP_ENOTFOUND ? BP_EXIT_USAGE : BP_EXIT_DB;
		goto out;
	}
	pm = malloc(sizeof *pm * (size_t)(g->max_moves > 0 ? g->max_moves : 1));
	if (!pm) {
		rc = BP_EXIT_IO;
		goto out;
	}
	int n = bp_probe_moves(g, tab, &p, pm);
	if (n < 0) {
		bp_cli_error(cmd, "reading the moves' values of %s: %s (%s)", g->spec,
			     bp_strerror(n), bp_table_why(tab));
		rc = BP_EXIT_DB;
		goto out;
	}
	if (a.json) {
		bp_text_printf(&out, "{\"instance\": ");
		bp_text_json_string(&out, g->spec);
		bp_text_printf(&out, ", \"position\": ");
		bp_text_json_string(&out, bp_text_str(&pos));
		bp_text_printf(&out, ", ");
		value_json(&out, pr.value, pr.remoteness);
		bp_text_printf(&out, ", \"moves\": [");
		for (int i = 0; i < n; i++) {
			struct bp_text m = { 0 };
			g->ops->move_format(g, &p, pm[i].move, &m);
			bp_text_printf(&out, "%s{\"move\": ", i ? ", " : "");
			bp_text_json_string(&out, bp_text_str(&m));
			bp_text_printf(&out, ", ");
			value_json(&out, pm[i].value, pm[i].remoteness);
			bp_text_printf(&out, "}");
			bp_text_free(&m);
		}
		bp_text_printf(&out, "]}\n");
	} else {
		bp_text_printf(&out, "position: %s\nvalue:    ", bp_text_str(&pos));
		value_text(&out, pr.value, pr.remoteness);
		bp_text_printf(&out, " for the player to move\n");
		if (n)
			bp_text_printf(&out, "moves (best first, values for the mover):\n");
		for (int i = 0; i < n; i++) {
			struct bp_text m = { 0 };
			g->ops->move_format(g, &p, pm[i].move, &m);
			bp_text_printf(&out, "  %-10s ", bp_text_str(&m));
			value_text(&out, pm[i].value, pm[i].remoteness);
			bp_text_printf(&out, "\n");
			bp_text_free(&m);
		}
	}
	fputs(bp_text_str(&out), stdout);
out:
	free(pm);
	free(ptext);
	bp_text_free(&out);
	bp_text_free(&pos);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
