/* SPDX-License-Identifier: MIT */
/* boardproof perft GAME DEPTH [--position P] [--stats]. */
#include <stdlib.h>
#include <string.h>

#include "solver/games/perft.h"
#include "tools/cli.h"
#include "tools/commands.h"

int bp_cmd_perft(int argc, char **argv)
{
	const char *cmd = "perft";
	static const char *const valued[] = { "position", "moves", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_pos p;
	uint64_t *counts = NULL;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 2) {
		bp_cli_error(cmd, "expected GAME DEPTH (see boardproof perft --help)");
		return BP_EXIT_USAGE;
	}
	char *end;
	long depth = strtol(a.pos[1], &end, 10);
	if (*end || end == a.pos[1] || depth < 1 || depth > 64) {
		bp_cli_error(cmd, "bad depth '%s' (expected a whole number from 1 to 64)",
			     a.pos[1]);
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)) ||
	    (rc = bp_cli_open_position_moves(cmd, g, a.opt[0], a.opt[1], &p)))
		goto out;
	counts = calloc((size_t)depth + 1, sizeof *counts);
	if (!counts) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	double t0 = bp_cli_now();
	int err = bp_perft(g, &p, (int)depth, counts);
	double secs = bp_cli_now() - t0;
	if (err) {
		bp_cli_error(cmd, "%s",
			     err == BP_ERANGE ? "a count passed 2^64 - 1; use a smaller depth"
					      : bp_strerror(err));
		rc = bp_cli_exit_code(err);
		goto out;
	}
	uint64_t moves = 0;
	for (long d = 1; d <= depth; d++)
		moves += counts[d];
	if (a.json) {
		printf("{\"game\": \"%s\", \"perft\": [", g->spec);
		for (long d = 1; d <= depth; d++)
			printf("%s{\"depth\": %ld, \"count\": %llu}", d > 1 ? ", " : "", d,
			       (unsigned long long)counts[d]);
		printf("]");
		if (a.stats)
			printf(", \"moves\": %llu, \"seconds\": %.6f, \"moves_per_second\": %.0f",
			       (unsigned long long)moves, secs,
			       secs > 0 ? (double)moves / secs : 0.0);
		printf("}\n");
	} else {
		for (long d = 1; d <= depth; d++)
			printf("perft %ld = %llu\n", d, (unsigned long long)counts[d]);
		if (a.stats)
			printf("moves: %llu in %.3f s, %.0f moves per second\n",
			       (unsigned long long)moves, secs,
			       secs > 0 ? (double)moves / secs : 0.0);
	}
out:
	free(counts);
	bp_game_destroy(g);
	return rc;
}
