/* SPDX-License-Identifier: MIT */
/* boardproof branching GAME [--samples N] [--seed S] [--turns T]: the number of legal
 * turns in the positions that seeded random games pass through, by turn number, as
 * minimum, median and maximum. It tests claims such as the Blooms seed's "thousands of
 * ways to take each turn" without solving anything.
 *
 * The generator is splitmix64, and a turn is drawn as the high word of a 64 x 64-bit
 * product with the move count (Lemire's multiply-shift, whose bias, below n / 2^64, is
 * far under anything a sample could show). Everything depends only on N, S and T. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/commands.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int pick(uint64_t *s, int n)
{
	__extension__ typedef unsigned __int128 u128;
	return (int)(((u128)splitmix64(s) * (u128)n) >> 64);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Reads a whole number in [lo, hi]; returns -1 when malformed or out of range. */
static long long read_number(const char *s, long long lo, long long hi)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v < (unsigned long long)lo || v > (unsigned long long)hi)
		return -1;
	return (long long)v;
}

int bp_cmd_branching(int argc, char **argv)
{
	const char *cmd = "branching";
	static const char *const valued[] = { "samples", "seed", "turns", NULL };
	struct bp_cli_args a;
	struct bp_game *g = NULL;
	struct bp_move *mv = NULL;
	int *seen = NULL, *npos = NULL, *all = NULL;
	int rc = bp_cli_parse(cmd, argc, argv, valued, &a);
	if (rc || bp_cli_maybe_help(cmd, &a))
		return rc;
	if (a.npos != 1) {
		bp_cli_error(cmd, "expected GAME (see boardproof branching --help)");
		return BP_EXIT_USAGE;
	}
	long long samples = a.opt[0] ? read_number(a.opt[0], 1, 1000000) : 100;
	if (samples < 0) {
		bp_cli_error(cmd, "bad --samples '%s' (a whole number from 1 to 1000000)",
			     a.opt[0]);
		return BP_EXIT_USAGE;
	}
	uint64_t seed = 1;
	if (a.opt[1]) {
		char *end;
		seed = strtoull(a.opt[1], &end, 10);
		if (!*a.opt[1] || *end || a.opt[1][0] == '-') {
			bp_cli_error(cmd, "bad --seed '%s' (a whole number)", a.opt[1]);
			return BP_EXIT_USAGE;
		}
	}
	long long turns = a.opt[2] ? read_number(a.opt[2], 1, 10000) : 100;
	if (turns < 0) {
		bp_cli_error(cmd, "bad --turns '%s' (a whole number from 1 to 10000)", a.opt[2]);
		return BP_EXIT_USAGE;
	}
	if (samples * (turns + 1) > 50000000) {
		bp_cli_error(cmd, "--samples times --turns is too large (at most 50000000)");
		return BP_EXIT_USAGE;
	}
	if ((rc = bp_cli_open_game(cmd, a.pos[0], &g)))
		goto out;
	size_t rows = (size_t)turns + 1, cols = (size_t)samples;
	mv = bp_game_move_buffer(g);
	seen = malloc(sizeof *seen * rows * cols); /* seen[t * cols + k]: k-th count at turn t */
	npos = calloc(rows, sizeof *npos);
	all = malloc(sizeof *all * rows * cols);
	if (!mv || !seen || !npos || !all) {
		bp_cli_error(cmd, "out of memory");
		rc = BP_EXIT_IO;
		goto out;
	}
	uint64_t state = seed;
	long long finished = 0;
	for (long long k = 0; k < samples; k++) {
		struct bp_pos p;
		g->ops->start(g, &p);
		for (long long t = 0; t <= turns; t++) {
			int n = g->ops->moves(g, &p, mv);
			if (n == 0) {
				finished++;
				break;
			}
			seen[(size_t)t * cols + (size_t)npos[t]++] = n;
			if (t == turns)
				break;
			g->ops->apply(g, &p, mv[pick(&state, n)]);
		}
	}
	size_t nall = 0;
	double sum = 0;
	if (a.json)
		printf("{\"game\": \"%s\", \"samples\": %lld, \"seed\": %llu, \"turns\": [",
		       g->spec, samples, (unsigned long long)seed);
	else
		printf("%s: legal turns along %lld random games (seed %llu, at most %lld "
		       "turns)\n%-6s %10s %10s %10s %10s\n",
		       g->spec, samples, (unsigned long long)seed, turns, "turn", "positions",
		       "min", "median", "max");
	int first = 1;
	for (size_t t = 0; t < rows; t++) {
		int m = npos[t];
		if (!m)
			continue;
		int *row = seen + t * cols;
		qsort(row, (size_t)m, sizeof *row, cmp_int);
		for (int i = 0; i < m; i++) {
			all[nall++] = row[i];
			sum += row[i];
		}
		if (a.json)
			printf("%s{\"turn\": %zu, \"positions\": %d, \"min\": %d, \"median\": %d, "
			       "\"max\": %d}",
			       first ? "" : ", ", t, m, row[0], row[(m - 1) / 2], row[m - 1]);
		else
			printf("%-6zu %10d %10d %10d %10d\n", t, m, row[0], row[(m - 1) / 2],
			       row[m - 1]);
		first = 0;
	}
	qsort(all, nall, sizeof *all, cmp_int);
	if (nall == 0) { /* the start position is terminal */
		all[0] = 0;
		nall = 1;
	}
	if (a.json)
		printf("], \"all\": {\"positions\": %zu, \"min\": %d, \"median\": %d, \"max\": %d, "
		       "\"mean\": %.1f}, \"finished\": %lld}\n",
		       nall, all[0], all[(nall - 1) / 2], all[nall - 1], sum / (double)nall,
		       finished);
	else
		printf("%-6s %10zu %10d %10d %10d   mean %.1f\n%lld of %lld games ended within "
		       "%lld turns\n",
		       "all", nall, all[0], all[(nall - 1) / 2], all[nall - 1], sum / (double)nall,
		       finished, samples, turns);
out:
	free(mv);
	free(seen);
	free(npos);
	free(all);
	bp_game_destroy(g);
	return rc;
}
