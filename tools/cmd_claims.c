/* SPDX-License-Identifier: MIT */
/* boardproof claims GAME [--solve] [--claim NAME] [--all] [--check]: verdicts on the
 * designers' claims about GAME from its solved table (solver/claims.h), each with a
 * witness to replay. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/claims.h"
#include "solver/probe.h"
#include "solver/solve.h"
#include "tools/cli.h"
#include "tools/commands.h"

/* Opens g's table; with solve, solves it first when it is missing. */
static int open_or_solve(const char *cmd, const char *path, const struct bp_game *g, int solve,
			 bp_store **db, bp_table **tab)
{
	int rc = bp_cli_open_store(cmd, path, solve ? BP_STORE_CREATE : BP_STORE_READONLY, db);
	if (rc)
		return rc;
	struct bp_err err = { { 0 } };
	rc = bp_probe_open(*db, g, tab, &err);
	if (rc == BP_ENOTFOUND && solve) {
		struct bp_solve_opts opts = { 0 };
		struct bp_solve_result r;
		int src = bp_solve(g, *db, &opts, &r, &err);
		if (src) {
			bp_cli_error(cmd, "solving %s: %s", g->spec,
				     err.msg[0] ? err.msg : bp_strerror(src));
			return src == BP_ERANGE ? BP_EXIT_IO : bp_cli_exit_code(src);
		}
	}
	if (*tab == NULL)
		return bp_cli_open_table(cmd, *db, g, tab);
	return 0;
}

void bp_cmd_walk_tick(struct bp_cmd_table_oracle *t, uint32_t tier, uint32_t ntiers,
		      uint64_t walked, uint64_t total, int done)
{
	if (done) {
		bp_cli_end_tick_line(t->tty, &t->open);
		return;
	}
	if (walked == 0) /* the walk's first tick */
		t->t0 = bp_cli_now();
	char line[160];
	snprintf(line, sizeof line,
		 "%s: walking the stored positions: tier %u of %u, %.1f%% of the table's %llu "
		 "records read (%.0f s)",
		 t->cmd ? t->cmd : "claims", tier, ntiers,
		 total ? 100.0 * (double)walked / (double)total : 0, (unsigned long long)total,
		 bp_cli_now() - t->t0);
	bp_cli_tick_line(t->tty, &t->open, line);
}

void bp_cmd_walk_alone(struct bp_cmd_table_oracle *t, const char *cmd, int progress)
{
	t->release = 1; /* one thread reads the table */
	t->tty = isatty(2);
	t->tick = progress || t->tty ? bp_cmd_walk_tick : NULL;
	t->cmd = cmd;
}

int bp_cmd_claims(int argc, char **argv)
{
	const char *cmd = "claims";
	static const char *const valued[] = { "db", "claim", "max-positions", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	bp_store *db = NULL;
	bp_table *tab = NULL;
	struct bp_text out = { 0 };
	int solve = 0, all = 0, check = 0, kept = 0;
	char **args = malloc(sizeof *args * (size_t)(argc + 1));
	if (!args) {
		bp_cli_error(cmd, "out of memory");
		return BP_EXIT_IO;
	}
	for (int i = 0, options = 1; i < argc; i++) {
		options &= strcmp(argv[i], "--") != 0;
		if (i > 0 && options && strcmp(argv[i], "--solve") == 0)
			solve = 1;
		else if (i > 0 && options && strcmp(argv[i], "--all") == 0)
			all = 1;
		else if (i > 0 && options && strcmp(argv[i], "--check") == 0)
			check = 1;
		else
			args[kept++] = argv[i];
	}
	args[kept] = NULL;
	int rc = bp_cli_parse(cmd, kept, args, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		goto out;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof claims --help)");
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if (a.opt[1]) {
		int known = 0;
		for (int i = 0; bp_claim_names[i]; i++)
			known |= strcmp(a.opt[1], bp_claim_names[i]) == 0;
		if (!known) {
			bp_cli_error(cmd,
				     "unknown claim '%s' (no-draw, soft-finite, first-player, pie, "
				     "fewer-groups, board-fills, corner-openings)",
				     a.opt[1]);
			rc = BP_EXIT_USAGE;
			goto out;
		}
	}
	struct bp_claims_opts copts = { 0 };
	if (a.opt[2] && bp_cli_parse_bytes(a.opt[2], &copts.max_positions)) {
		bp_cli_error(cmd, "bad --max-positions '%s' (a count, with K, M or G)", a.opt[2]);
		rc = BP_EXIT_USAGE;
		goto out;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = open_or_solve(cmd, bp_cli_db_path(a.opt[0]), g, solve, &db, &tab)))
		goto out;
	struct bp_cmd_table_oracle to;
	struct bp_oracle o;
	bp_cmd_table_oracle(g, tab, &to, &o);
	bp_cmd_walk_alone(&to, cmd, a.progress);
	int failed = 0;
	const char *bad = NULL;
	int crc = bp_cmd_claims_report(g, &o, &copts, a.opt[1], all, a.json, &out, &failed, &bad);
	if (crc) {
		bp_cli_error(cmd, "checking %s: %s", bad, bp_strerror(crc));
		rc = crc == BP_ENOMEM ? BP_EXIT_IO : BP_EXIT_DB;
		goto out;
	}
	if ((rc = bp_cli_print_text(cmd, &out)))
		goto out;
	if (check && failed)
		rc = BP_EXIT_PROBLEM;
out:
	free(args);
	bp_text_free(&out);
	bp_table_close(tab);
	if (db)
		bp_store_close(db);
	bp_game_destroy(g);
	return rc;
}
