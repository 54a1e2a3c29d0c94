/* SPDX-License-Identifier: MIT */
/* boardproof solve GAME: strong solving lands with the retrograde solver and the
 * position database; until then the command says so and fails, never printing a
 * result it has not computed. */
#include "tools/cli.h"
#include "tools/commands.h"

int bp_cmd_solve(int argc, char **argv)
{
	const char *cmd = "solve";
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	int rc = bp_cli_parse(cmd, argc, argv, NULL, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof solve --help)");
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		return rc;
	bp_cli_error(cmd,
		     "strong solving is not available in this build yet (the retrograde solver "
		     "and position database are still to come); nothing was solved for %s",
		     g->spec);
	bp_game_destroy(g);
	return BP_EXIT_PROBLEM;
}
